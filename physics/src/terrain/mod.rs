//! Voxel terrain: sparse 8×8×8 chunks of (material, occupancy) voxels, bit broadphase masks,
//! a smooth mesher, per-chunk loose kD trees in a bounded cache, ray casts and editing.
//!
//! Voxel `v` fills the world box `[v s, (v + 1) s]` for voxel size `s`; its sample (the value
//! the mesher interpolates) sits at the centre. Chunk `c` holds voxels `8c .. 8c + 8`. Voxels
//! outside the world bounds are air, and nothing is ever stored there.

mod cache;
mod closest;
mod edit;
mod fragments;
pub mod kdtree;
pub mod mask;
pub mod mesher;
mod overlap;
mod ray;
pub mod rle;
mod voxel;
mod water;

#[cfg(test)]
mod tests;

pub use cache::CacheStats;
pub use closest::TerrainPoint;
pub(crate) use closest::{Region, closest_on_triangle};
pub use edit::{BrushMode, Edit, EditReport, MAX_BRUSH_VOXELS, MAX_FILL_VOXELS, SphereBrush};
pub use fragments::MAX_FRAGMENT_VOXELS;
pub use kdtree::{KdNode, KdTree};
pub use mask::{ChunkMask, SliceMask};
pub use mesher::{ChunkCollision, ChunkMesh, MeshField, RenderMesh};
pub use overlap::TerrainOverlap;
pub use ray::TerrainHit;
pub use voxel::{
    CHUNK_SIZE, CHUNK_VOXELS, Chunk, ChunkCoord, SURFACE_LEVEL, Voxel, VoxelMaterial, index_voxel,
    voxel_index,
};
pub use water::WaterBlock;

use crate::error::{AtollError, check_positive};
use crate::hash::FastMap;
use crate::math::{Aabb, Vec3};
use glam::IVec3;
use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// Largest extent of the world bounds along one axis, in chunks.
pub const MAX_EXTENT_CHUNKS: i32 = 1024;
/// Largest absolute chunk coordinate of the bounds, so voxel coordinates stay exact in f32.
pub const MAX_CHUNK_COORD: i32 = 1 << 20;
/// Most chunks a terrain may store; each holds 1 KiB of voxels, so this caps voxels at 256 MiB.
pub const MAX_STORED_CHUNKS: usize = 1 << 18;

/// Voxel size and world bounds of a terrain.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TerrainSettings {
    /// Edge of one voxel, metres.
    pub voxel_size: f32,
    /// First chunk inside the bounds, per axis.
    pub min_chunk: [i32; 3],
    /// First chunk past the bounds, per axis (exclusive).
    pub max_chunk: [i32; 3],
}

impl Default for TerrainSettings {
    fn default() -> Self {
        TerrainSettings { voxel_size: 0.5, min_chunk: [-8, -4, -8], max_chunk: [8, 4, 8] }
    }
}

impl TerrainSettings {
    /// Checks the voxel size (finite, > 0) and the bounds (non-empty, not too large).
    pub fn validate(&self) -> Result<(), AtollError> {
        check_positive("terrain voxel size", self.voxel_size)?;
        let chunk = self.voxel_size * CHUNK_SIZE as f32 * MAX_CHUNK_COORD as f32;
        if !chunk.is_finite() {
            return Err(AtollError::invalid(
                "terrain voxel size",
                format!("{} is too large", self.voxel_size),
            ));
        }
        for axis in 0..3 {
            let (lo, hi) = (self.min_chunk[axis], self.max_chunk[axis]);
            // `unsigned_abs`: `i32::MIN` has no `abs` (a hostile file's bounds).
            if lo.unsigned_abs() > MAX_CHUNK_COORD.unsigned_abs()
                || hi.unsigned_abs() > MAX_CHUNK_COORD.unsigned_abs()
            {
                return Err(AtollError::invalid(
                    "terrain bounds",
                    format!("chunk coordinates must lie within ±{MAX_CHUNK_COORD}, got {lo}..{hi}"),
                ));
            }
            if hi <= lo || hi - lo > MAX_EXTENT_CHUNKS {
                return Err(AtollError::invalid(
                    "terrain bounds",
                    format!("axis {axis}: {lo}..{hi} must hold 1..={MAX_EXTENT_CHUNKS} chunks"),
                ));
            }
        }
        Ok(())
    }

    /// True when chunk `c` lies inside the bounds.
    #[inline]
    pub fn contains_chunk(&self, c: ChunkCoord) -> bool {
        let v = c.to_ivec3();
        v.cmpge(self.min_chunk_v()).all() && v.cmplt(self.max_chunk_v()).all()
    }

    /// True when voxel `v` lies inside the bounds.
    #[inline]
    pub fn contains_voxel(&self, v: IVec3) -> bool {
        v.cmpge(self.min_voxel()).all() && v.cmple(self.max_voxel()).all()
    }

    fn min_chunk_v(&self) -> IVec3 {
        IVec3::from_array(self.min_chunk)
    }

    fn max_chunk_v(&self) -> IVec3 {
        IVec3::from_array(self.max_chunk)
    }

    /// First voxel inside the bounds.
    pub fn min_voxel(&self) -> IVec3 {
        self.min_chunk_v() * CHUNK_SIZE
    }

    /// Last voxel inside the bounds (inclusive).
    pub fn max_voxel(&self) -> IVec3 {
        self.max_chunk_v() * CHUNK_SIZE - IVec3::ONE
    }

    /// The bounds in world space.
    pub fn world_aabb(&self) -> Aabb {
        let s = self.voxel_size;
        Aabb::new(self.min_voxel().as_vec3() * s, (self.max_voxel() + IVec3::ONE).as_vec3() * s)
    }

    /// Voxels inside the bounds.
    pub fn voxel_count(&self) -> u64 {
        let e = self.max_voxel() - self.min_voxel() + IVec3::ONE;
        e.x as u64 * e.y as u64 * e.z as u64
    }
}

/// Counts and sizes the editor's terrain panel shows.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TerrainStats {
    /// Chunks holding at least one non-air voxel.
    pub stored_chunks: usize,
    /// Chunks whose solid mask is full (tagged, no mask kept).
    pub solid_chunks: usize,
    /// Chunks whose water mask is full (tagged, no mask kept).
    pub water_chunks: usize,
    /// Chunks keeping both masks.
    pub mixed_chunks: usize,
    /// Bytes of mask payload (128 per mixed chunk).
    pub mask_bytes: usize,
    /// Mask bytes per voxel of the chunks with a mask entry.
    pub mask_bytes_per_voxel: f64,
    /// The mesh cache's counters.
    pub cache: CacheStats,
}

/// The terrain: settings, stored chunks (sparse, ordered by coordinate), their masks and the
/// cache of meshes and kD trees.
#[derive(Clone, Debug, Default)]
pub struct Terrain {
    settings: TerrainSettings,
    chunks: BTreeMap<ChunkCoord, Chunk>,
    masks: BTreeMap<ChunkCoord, ChunkMask>,
    /// Per chunk with a mask entry or stored voxels: [`STORED`] and [`SOLID_BITS`] flags, the
    /// two questions the world ray walk asks of every chunk it crosses, hashed so each is one
    /// lookup (the B-tree maps above keep the coordinate order the rest of the API promises).
    /// Kept in step with `chunks` and `masks` by [`Terrain::rebuild_masks`].
    index: FastMap<ChunkCoord, u8>,
    cache: cache::CacheCell,
}

/// [`Terrain::index`] flag: the chunk stores voxels (so it may have triangles).
const STORED: u8 = 1;
/// [`Terrain::index`] flag: the chunk's dilated solid mask has a bit set.
const SOLID_BITS: u8 = 2;

/// Terrains are equal when their settings and voxels are; masks follow from the voxels and the
/// cache holds nothing that changes a result.
impl PartialEq for Terrain {
    fn eq(&self, other: &Self) -> bool {
        self.settings == other.settings && self.chunks == other.chunks
    }
}

impl Terrain {
    /// An empty terrain (all air).
    pub fn new(settings: TerrainSettings) -> Result<Terrain, AtollError> {
        settings.validate()?;
        Ok(Terrain { settings, ..Default::default() })
    }

    /// A terrain whose voxel `v` is `f(v)` everywhere inside the bounds (non-canonical air,
    /// like a solid kind with occupancy 0, is stored as air).
    pub fn from_fn(
        settings: TerrainSettings,
        mut f: impl FnMut(IVec3) -> Voxel,
    ) -> Result<Terrain, AtollError> {
        let mut t = Terrain::new(settings)?;
        let (lo, hi) = (settings.min_chunk, settings.max_chunk);
        for x in lo[0]..hi[0] {
            for y in lo[1]..hi[1] {
                for z in lo[2]..hi[2] {
                    let c = ChunkCoord::new(x, y, z);
                    let mut chunk = Chunk::empty();
                    for (i, v) in chunk.voxels_mut().iter_mut().enumerate() {
                        let w = f(c.origin_voxel() + index_voxel(i));
                        *v = Voxel::canonical(w.material, w.occupancy);
                    }
                    if !chunk.is_empty() {
                        t.chunks.insert(c, chunk);
                        if t.chunks.len() > MAX_STORED_CHUNKS {
                            return Err(too_many_chunks());
                        }
                    }
                }
            }
        }
        t.rebuild_all_masks();
        Ok(t)
    }

    /// A terrain from stored chunks: each must lie in the bounds, appear once and hold only
    /// canonical voxels; all-air chunks are dropped.
    pub fn from_chunks(
        settings: TerrainSettings,
        chunks: impl IntoIterator<Item = (ChunkCoord, Chunk)>,
    ) -> Result<Terrain, AtollError> {
        let mut t = Terrain::new(settings)?;
        for (c, chunk) in chunks {
            if !settings.contains_chunk(c) {
                return Err(AtollError::OutOfTerrainBounds {
                    what: "chunk",
                    reason: format!("{c:?} is not in {:?}..{:?}", settings.min_chunk, settings.max_chunk),
                });
            }
            if let Some(bad) = chunk.voxels().iter().find(|v| Voxel::new(v.material, v.occupancy).is_err()) {
                return Err(AtollError::invalid("chunk voxel", format!("{c:?} holds {bad:?}")));
            }
            if chunk.is_empty() {
                continue;
            }
            if t.chunks.insert(c, chunk).is_some() {
                return Err(AtollError::invalid("chunk", format!("{c:?} appears twice")));
            }
            if t.chunks.len() > MAX_STORED_CHUNKS {
                return Err(too_many_chunks());
            }
        }
        t.rebuild_all_masks();
        Ok(t)
    }

    /// Voxel size and bounds.
    pub fn settings(&self) -> &TerrainSettings {
        &self.settings
    }

    /// Edge of one voxel, metres.
    pub fn voxel_size(&self) -> f32 {
        self.settings.voxel_size
    }

    /// The voxel at `v` (air outside the bounds and in chunks not stored).
    pub fn voxel(&self, v: IVec3) -> Voxel {
        match self.chunks.get(&ChunkCoord::of_voxel(v)) {
            Some(chunk) => chunk.get(v & 7),
            None => Voxel::AIR,
        }
    }

    /// A stored chunk.
    pub fn chunk(&self, c: ChunkCoord) -> Option<&Chunk> {
        self.chunks.get(&c)
    }

    /// Stored chunks in coordinate order.
    pub fn chunks(&self) -> impl Iterator<Item = (ChunkCoord, &Chunk)> + '_ {
        self.chunks.iter().map(|(c, k)| (*c, k))
    }

    /// Number of stored chunks.
    pub fn chunk_count(&self) -> usize {
        self.chunks.len()
    }

    /// The masks of chunk `c` (`None`: nothing solid or water within one voxel of it).
    pub fn mask(&self, c: ChunkCoord) -> Option<&ChunkMask> {
        self.masks.get(&c)
    }

    /// Every chunk with a mask entry, in coordinate order.
    pub fn masks(&self) -> impl Iterator<Item = (ChunkCoord, &ChunkMask)> + '_ {
        self.masks.iter().map(|(c, m)| (*c, m))
    }

    /// World box of chunk `c`.
    pub fn chunk_aabb(&self, c: ChunkCoord) -> Aabb {
        let s = self.settings.voxel_size;
        let o = c.origin_voxel();
        Aabb::new(o.as_vec3() * s, (o + IVec3::splat(CHUNK_SIZE)).as_vec3() * s)
    }

    /// World position of chunk `c`'s first corner, which the mesh's local coordinates start at.
    pub fn chunk_origin(&self, c: ChunkCoord) -> Vec3 {
        c.origin_voxel().as_vec3() * self.settings.voxel_size
    }

    /// The voxel holding world point `p` (not clamped to the bounds).
    pub fn voxel_at(&self, p: Vec3) -> IVec3 {
        (p / self.settings.voxel_size).floor().as_ivec3()
    }

    /// Chunk classes, mask bytes and cache counters.
    pub fn stats(&self) -> TerrainStats {
        let mut s = TerrainStats { stored_chunks: self.chunks.len(), ..Default::default() };
        for m in self.masks.values() {
            match m {
                ChunkMask::Solid => s.solid_chunks += 1,
                ChunkMask::Water => s.water_chunks += 1,
                ChunkMask::Mixed { .. } => s.mixed_chunks += 1,
            }
            s.mask_bytes += m.payload_bytes();
        }
        if !self.masks.is_empty() {
            s.mask_bytes_per_voxel = s.mask_bytes as f64 / (self.masks.len() * CHUNK_VOXELS) as f64;
        }
        s.cache = self.cache_stats();
        s
    }

    /// Recomputes every mask.
    fn rebuild_all_masks(&mut self) {
        let all: BTreeSet<ChunkCoord> = self.chunks.keys().flat_map(|c| neighbours(*c)).collect();
        self.masks.clear();
        self.index.clear();
        self.rebuild_masks(&all);
    }

    /// The index flags of chunk `c` (0 when it has none).
    #[inline]
    fn index_flags(&self, c: ChunkCoord) -> u8 {
        self.index.get(&c).copied().unwrap_or(0)
    }

    /// True when chunk `c` stores voxels (the same answer as `self.chunks.contains_key`).
    #[inline]
    pub(crate) fn is_stored(&self, c: ChunkCoord) -> bool {
        self.index_flags(c) & STORED != 0
    }

    /// True when chunk `c`'s dilated solid mask has a bit set.
    #[inline]
    pub(crate) fn has_solid_bits(&self, c: ChunkCoord) -> bool {
        self.index_flags(c) & SOLID_BITS != 0
    }

    /// Recomputes the masks of `coords` (each mask reads the chunk's 3×3×3 neighbourhood).
    fn rebuild_masks(&mut self, coords: &BTreeSet<ChunkCoord>) {
        // Raw bits of every chunk the dilations read, computed once each.
        let mut raw: BTreeMap<ChunkCoord, (SliceMask, SliceMask)> = BTreeMap::new();
        for c in coords.iter().flat_map(|c| neighbours(*c)) {
            if let std::collections::btree_map::Entry::Vacant(e) = raw.entry(c)
                && let Some(chunk) = self.chunks.get(&c)
            {
                e.insert(mask::raw_bits(chunk));
            }
        }
        for &c in coords {
            if !self.settings.contains_chunk(c) {
                continue;
            }
            let at = |dx, dy, dz| raw.get(&ChunkCoord::new(c.x + dx, c.y + dy, c.z + dz));
            let solid = mask::dilate(|dx, dy, dz| at(dx, dy, dz).map_or(mask::EMPTY, |r| r.0));
            let water = mask::dilate(|dx, dy, dz| at(dx, dy, dz).map_or(mask::EMPTY, |r| r.1));
            let flags = (u8::from(self.chunks.contains_key(&c)) * STORED)
                | (u8::from(solid != mask::EMPTY) * SOLID_BITS);
            match ChunkMask::classify(solid, water) {
                Some(m) => self.masks.insert(c, m),
                None => self.masks.remove(&c),
            };
            // Every chunk whose voxels change is among `coords` (an edit's affected chunks
            // include the ones it writes), so the stored flag follows `chunks` here too.
            if flags == 0 {
                self.index.remove(&c);
            } else {
                self.index.insert(c, flags);
            }
        }
    }
}

/// Chunk `c` and its 26 neighbours, in coordinate order.
pub(crate) fn neighbours(c: ChunkCoord) -> impl Iterator<Item = ChunkCoord> {
    (-1..=1).flat_map(move |dx| {
        (-1..=1).flat_map(move |dy| (-1..=1).map(move |dz| ChunkCoord::new(c.x + dx, c.y + dy, c.z + dz)))
    })
}

fn too_many_chunks() -> AtollError {
    AtollError::invalid("terrain", format!("more than {MAX_STORED_CHUNKS} chunks hold voxels"))
}
