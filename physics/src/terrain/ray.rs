//! Ray casts against the terrain: a 3D DDA over chunks, skipping chunks without solid mask
//! bits, then each candidate chunk's kD tree.
//!
//! A chunk's triangles can reach up to one voxel into its neighbours, so when the walk enters a
//! chunk with solid bits it tests every chunk (itself and its 26 neighbours) whose box grown by
//! one voxel the ray crosses, each once. Since a hit point lies in some chunk the walk visits,
//! the walk can stop at the first chunk it enters beyond the best hit.

use super::kdtree::slab;
use super::voxel::{CHUNK_SIZE, ChunkCoord, VoxelMaterial};
use super::{Terrain, neighbours};
use crate::error::{AtollError, check_non_negative, check_vec3};
use crate::math::Vec3;
use glam::IVec3;
use std::collections::BTreeSet;

/// Where a ray first hits solid terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainHit {
    /// Distance along the ray in units of its direction's length.
    pub t: f32,
    /// The hit point, world space.
    pub point: Vec3,
    /// Unit normal of the triangle hit, pointing out of the solid.
    pub normal: Vec3,
    /// Material of the triangle hit.
    pub material: VoxelMaterial,
    /// The chunk whose mesh holds the triangle.
    pub chunk: ChunkCoord,
    /// The triangle's index in that chunk's mesh.
    pub triangle: usize,
}

impl Terrain {
    /// The first solid terrain triangle along `origin + t dir`, `0 <= t <= max_t`. Ties go to
    /// the lower chunk coordinate, then the lower triangle, so the answer never depends on the
    /// cache.
    pub fn cast_ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Result<Option<TerrainHit>, AtollError> {
        check_vec3("ray origin", origin)?;
        check_vec3("ray direction", dir)?;
        check_non_negative("ray length", max_t)?;
        if dir.length_squared() == 0.0 {
            return Err(AtollError::invalid("ray direction", "must not be zero"));
        }
        let s = self.settings.voxel_size;
        let Some((t0, t1)) = slab(&self.settings.world_aabb(), origin, dir, 0.0, max_t) else {
            return Ok(None);
        };
        // Walk in chunk units: p(t) = o + t d with one chunk = 1.
        let size = s * CHUNK_SIZE as f32;
        let (o, d) = (origin / size, dir / size);
        let lo = IVec3::from_array(self.settings.min_chunk);
        let hi = IVec3::from_array(self.settings.max_chunk) - IVec3::ONE;
        let mut cell = (o + d * t0).floor().as_ivec3().clamp(lo, hi);
        let step = IVec3::new(sign(d.x), sign(d.y), sign(d.z));
        let next_t = |cell: IVec3, a: usize| {
            if d[a] == 0.0 {
                return f32::INFINITY;
            }
            let boundary = if d[a] > 0.0 { cell[a] + 1 } else { cell[a] } as f32;
            (boundary - o[a]) / d[a]
        };
        let mut tested = BTreeSet::new();
        let mut best: Option<TerrainHit> = None;
        let mut enter = t0;
        loop {
            if best.is_some_and(|b| b.t < enter) || enter > t1 {
                break;
            }
            let c = ChunkCoord::from_ivec3(cell);
            if self.masks.get(&c).is_some_and(|m| m.has_solid()) {
                for n in neighbours(c) {
                    if tested.insert(n) {
                        self.cast_in_chunk(n, origin, dir, max_t, &mut best);
                    }
                }
            }
            let ts = [next_t(cell, 0), next_t(cell, 1), next_t(cell, 2)];
            let a = if ts[0] <= ts[1] && ts[0] <= ts[2] {
                0
            } else if ts[1] <= ts[2] {
                1
            } else {
                2
            };
            cell[a] += step[a];
            if cell[a] < lo[a] || cell[a] > hi[a] {
                break;
            }
            enter = ts[a].max(enter);
        }
        Ok(best)
    }

    /// Tests chunk `c`'s triangles when the ray crosses its box grown by one voxel.
    fn cast_in_chunk(
        &self,
        c: ChunkCoord,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        best: &mut Option<TerrainHit>,
    ) {
        let s = self.settings.voxel_size;
        let limit = best.map_or(max_t, |b| b.t);
        if slab(&self.chunk_aabb(c).grown(s), origin, dir, 0.0, limit).is_none() {
            return;
        }
        let Some(data) = self.chunk_collision(c) else { return };
        let base = self.chunk_origin(c);
        let (lo, ld) = ((origin - base) / s, dir / s);
        let Some((t, tri)) = data.tree.cast_ray(&data.mesh, lo, ld, limit) else { return };
        let better = match best {
            None => true,
            Some(b) => t < b.t || (t == b.t && (c, tri) < (b.chunk, b.triangle)),
        };
        if better {
            let [a, b, cc] = data.mesh.triangle(tri);
            *best = Some(TerrainHit {
                t,
                point: origin + dir * t,
                normal: (b - a).cross(cc - a).try_normalize().unwrap_or(Vec3::Y),
                material: data.mesh.materials()[tri],
                chunk: c,
                triangle: tri,
            });
        }
    }
}

fn sign(v: f32) -> i32 {
    if v > 0.0 {
        1
    } else if v < 0.0 {
        -1
    } else {
        0
    }
}
