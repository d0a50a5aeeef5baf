//! Editing: sphere brushes and box fills. Every edit computes all new values from the old ones
//! first (so smoothing reads an unchanged field), writes them, and reports the chunks whose
//! derived data (masks, meshes) read a changed voxel: those within one voxel of it.

use super::voxel::{Chunk, ChunkCoord, Voxel, VoxelMaterial};
use super::{Terrain, too_many_chunks};
use crate::error::{AtollError, check_positive, check_vec3};
use crate::math::Vec3;
use glam::IVec3;
use std::collections::BTreeSet;

/// Largest brush radius, in voxels (a 64-voxel brush touches about 1.1 million voxels).
pub const MAX_BRUSH_VOXELS: f32 = 64.0;
/// Most voxels one box fill may set.
pub const MAX_FILL_VOXELS: u64 = 1 << 22;

/// What a sphere brush does.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BrushMode {
    /// Raises solid occupancy towards a sphere of the brush material.
    Add,
    /// Lowers occupancy (solid and water) towards the outside of the sphere.
    Remove,
    /// Moves solid occupancy towards its 27-voxel average, strongest at the centre.
    Smooth,
    /// Repaints solid voxels inside the sphere with the brush material.
    Paint,
    /// Raises water occupancy towards a sphere, in voxels that are not solid.
    FillWater,
}

/// A sphere brush.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SphereBrush {
    /// Centre, world space; must lie inside the terrain bounds.
    pub center: Vec3,
    /// Radius, metres; at most [`MAX_BRUSH_VOXELS`] voxels.
    pub radius: f32,
    /// How far one application moves voxels towards the target, in (0, 1].
    pub strength: f32,
    /// What the brush does.
    pub mode: BrushMode,
    /// The solid material that [`BrushMode::Add`] and [`BrushMode::Paint`] lay down.
    pub material: VoxelMaterial,
}

/// A terrain edit.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Edit {
    /// A sphere brush application.
    Sphere(SphereBrush),
    /// Sets every voxel of `min..=max` (voxel coordinates, inside the bounds) to `voxel`.
    FillBox {
        /// First voxel.
        min: IVec3,
        /// Last voxel (inclusive).
        max: IVec3,
        /// The value written; must be canonical (see [`Voxel::new`]).
        voxel: Voxel,
    },
}

/// What an edit changed.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EditReport {
    /// Voxels whose value changed.
    pub changed_voxels: usize,
    /// Chunks within one voxel of a changed voxel, in coordinate order: their masks were rebuilt
    /// and their meshes dropped from the cache.
    pub chunks: Vec<ChunkCoord>,
    /// Smallest changed voxel per axis (meaningless when nothing changed).
    pub voxel_min: IVec3,
    /// Largest changed voxel per axis.
    pub voxel_max: IVec3,
    /// Each changed voxel with the value it had before, in the order they were written: writing
    /// them back in reverse order undoes the edit.
    pub previous: Vec<(IVec3, Voxel)>,
}

impl Terrain {
    /// Applies an edit. Deterministic: the same edits on the same terrain give the same voxels.
    pub fn edit(&mut self, edit: &Edit) -> Result<EditReport, AtollError> {
        let changes = match edit {
            Edit::Sphere(b) => self.sphere_changes(b)?,
            Edit::FillBox { min, max, voxel } => self.box_changes(*min, *max, *voxel)?,
        };
        self.apply(&changes)
    }

    fn sphere_changes(&self, b: &SphereBrush) -> Result<Vec<(IVec3, Voxel)>, AtollError> {
        let s = self.settings.voxel_size;
        check_vec3("brush centre", b.center)?;
        check_positive("brush radius", b.radius)?;
        check_positive("brush strength", b.strength)?;
        if b.strength > 1.0 {
            return Err(AtollError::invalid("brush strength", format!("must be <= 1, got {}", b.strength)));
        }
        if b.radius / s > MAX_BRUSH_VOXELS {
            return Err(AtollError::invalid(
                "brush radius",
                format!("{} m is more than {MAX_BRUSH_VOXELS} voxels of {s} m", b.radius),
            ));
        }
        if matches!(b.mode, BrushMode::Add | BrushMode::Paint) && !b.material.is_solid() {
            return Err(AtollError::invalid("brush material", format!("{:?} is not solid", b.material)));
        }
        let bounds = self.settings.world_aabb();
        if !(bounds.min.cmple(b.center).all() && b.center.cmplt(bounds.max).all()) {
            return Err(AtollError::OutOfTerrainBounds {
                what: "brush centre",
                reason: format!("{} is not in {:?}", b.center, bounds),
            });
        }
        // The density ramp reaches half a voxel past the radius; voxels past the bounds are
        // clipped (the centre is inside, so the brush always reaches some voxel).
        let reach = Vec3::splat(b.radius + s);
        let lo = ((b.center - reach) / s).floor().as_ivec3().max(self.settings.min_voxel());
        let hi = ((b.center + reach) / s).floor().as_ivec3().min(self.settings.max_voxel());
        let old = self.read_box(lo - IVec3::ONE, hi + IVec3::ONE);
        let size = hi - lo + IVec3::splat(3);
        let at = |v: IVec3| {
            let l = v - lo + IVec3::ONE;
            old[(l.x + size.x * (l.z + size.z * l.y)) as usize]
        };
        let mut out = Vec::new();
        for y in lo.y..=hi.y {
            for z in lo.z..=hi.z {
                for x in lo.x..=hi.x {
                    let v = IVec3::new(x, y, z);
                    let d = ((v.as_vec3() + 0.5) * s - b.center).length();
                    let cur = at(v);
                    let new = brush_voxel(b, s, d, cur, || neighbourhood(&at, v));
                    if new != cur {
                        out.push((v, new));
                    }
                }
            }
        }
        Ok(out)
    }

    fn box_changes(&self, min: IVec3, max: IVec3, voxel: Voxel) -> Result<Vec<(IVec3, Voxel)>, AtollError> {
        Voxel::new(voxel.material, voxel.occupancy)?;
        if min.cmpgt(max).any() {
            return Err(AtollError::invalid("fill box", format!("min {min} exceeds max {max}")));
        }
        if !self.settings.contains_voxel(min) || !self.settings.contains_voxel(max) {
            return Err(AtollError::OutOfTerrainBounds {
                what: "fill box",
                reason: format!(
                    "{min}..={max} is not in {}..={}",
                    self.settings.min_voxel(),
                    self.settings.max_voxel()
                ),
            });
        }
        let e = (max - min + IVec3::ONE).as_u64vec3();
        if e.x * e.y * e.z > MAX_FILL_VOXELS {
            return Err(AtollError::invalid("fill box", format!("more than {MAX_FILL_VOXELS} voxels")));
        }
        let mut out = Vec::new();
        for y in min.y..=max.y {
            for z in min.z..=max.z {
                for x in min.x..=max.x {
                    let v = IVec3::new(x, y, z);
                    if self.voxel(v) != voxel {
                        out.push((v, voxel));
                    }
                }
            }
        }
        Ok(out)
    }

    /// The voxels of `lo..=hi` as a dense array, x fastest, then z, then y.
    pub(super) fn read_box(&self, lo: IVec3, hi: IVec3) -> Vec<Voxel> {
        let mut out = Vec::with_capacity(((hi - lo + IVec3::ONE).element_product()) as usize);
        for y in lo.y..=hi.y {
            for z in lo.z..=hi.z {
                // One map lookup per chunk row segment rather than per voxel.
                let mut x = lo.x;
                while x <= hi.x {
                    let v = IVec3::new(x, y, z);
                    let end = ((x >> 3) * 8 + 7).min(hi.x);
                    match self.chunks.get(&ChunkCoord::of_voxel(v)) {
                        Some(chunk) => out.extend((x..=end).map(|x| chunk.get(IVec3::new(x, y, z) & 7))),
                        None => out.extend((x..=end).map(|_| Voxel::AIR)),
                    }
                    x = end + 1;
                }
            }
        }
        out
    }

    /// Writes `changes` as one edit (for undo and redo, which replay what an earlier edit
    /// reported). Every voxel must lie inside the bounds; none is written otherwise.
    pub fn set_voxels(&mut self, changes: &[(IVec3, Voxel)]) -> Result<EditReport, AtollError> {
        if let Some((v, _)) = changes.iter().find(|(v, _)| !self.settings.contains_voxel(*v)) {
            return Err(AtollError::OutOfTerrainBounds {
                what: "voxel",
                reason: format!("{v} is outside the terrain"),
            });
        }
        self.apply(changes)
    }

    /// Writes the changes, drops chunks that became air, and rebuilds what reads them.
    fn apply(&mut self, changes: &[(IVec3, Voxel)]) -> Result<EditReport, AtollError> {
        let mut report = EditReport { changed_voxels: changes.len(), ..Default::default() };
        if changes.is_empty() {
            return Ok(report);
        }
        let new_chunks = changes
            .iter()
            .map(|(v, _)| ChunkCoord::of_voxel(*v))
            .collect::<BTreeSet<_>>()
            .into_iter()
            .filter(|c| !self.chunks.contains_key(c))
            .count();
        if self.chunks.len() + new_chunks > super::MAX_STORED_CHUNKS {
            return Err(too_many_chunks());
        }
        let mut written = BTreeSet::new();
        let mut affected = BTreeSet::new();
        report.voxel_min = changes[0].0;
        report.voxel_max = changes[0].0;
        report.previous.reserve(changes.len());
        for &(v, voxel) in changes {
            report.previous.push((v, self.voxel(v)));
            let c = ChunkCoord::of_voxel(v);
            self.chunks.entry(c).or_insert_with(Chunk::empty).set(v & 7, voxel);
            written.insert(c);
            report.voxel_min = report.voxel_min.min(v);
            report.voxel_max = report.voxel_max.max(v);
            let (a, b) = (ChunkCoord::of_voxel(v - IVec3::ONE), ChunkCoord::of_voxel(v + IVec3::ONE));
            for x in a.x..=b.x {
                for y in a.y..=b.y {
                    for z in a.z..=b.z {
                        let n = ChunkCoord::new(x, y, z);
                        if self.settings.contains_chunk(n) {
                            affected.insert(n);
                        }
                    }
                }
            }
        }
        for c in written {
            if self.chunks[&c].is_empty() {
                self.chunks.remove(&c);
            }
        }
        self.rebuild_masks(&affected);
        self.cache.invalidate(affected.iter().copied());
        report.chunks = affected.into_iter().collect();
        Ok(report)
    }
}

/// The 27 voxels around `v` (itself included).
fn neighbourhood(at: &impl Fn(IVec3) -> Voxel, v: IVec3) -> [Voxel; 27] {
    let mut n = [Voxel::AIR; 27];
    for (i, slot) in n.iter_mut().enumerate() {
        let i = i as i32;
        *slot = at(v + IVec3::new(i % 3 - 1, i / 9 - 1, (i / 3) % 3 - 1));
    }
    n
}

/// Moves `from` towards `to` by `fraction`, rounding to the nearest step.
fn towards(from: u8, to: f32, fraction: f32) -> u8 {
    let f = from as f32;
    (f + (to - f) * fraction).round().clamp(0.0, 255.0) as u8
}

/// A voxel's new value under brush `b` at distance `d` (metres) from the centre.
fn brush_voxel(b: &SphereBrush, s: f32, d: f32, cur: Voxel, around: impl FnOnce() -> [Voxel; 27]) -> Voxel {
    // Density of a ball of radius r: 255 well inside, 0 well outside, 127.5 on the sphere, so
    // the mesher's surface lands on the brush's sphere.
    let ball = (0.5 + (b.radius - d) / s).clamp(0.0, 1.0) * 255.0;
    match b.mode {
        BrushMode::Add => {
            let o = cur.solid_density();
            if ball <= o as f32 {
                return cur;
            }
            let n = towards(o, ball, b.strength);
            if n <= o {
                return cur;
            }
            let material = if cur.material.is_solid() { cur.material } else { b.material };
            Voxel::canonical(material, n)
        }
        BrushMode::Remove => {
            let keep = 255.0 - ball;
            if cur.occupancy as f32 <= keep {
                return cur;
            }
            Voxel::canonical(cur.material, towards(cur.occupancy, keep, b.strength))
        }
        BrushMode::Smooth => {
            if d > b.radius || cur.material == VoxelMaterial::Water {
                return cur;
            }
            let n = around();
            let avg = n.iter().map(|v| v.solid_density() as f32).sum::<f32>() / 27.0;
            let o = cur.solid_density();
            let new = towards(o, avg, b.strength * (1.0 - d / b.radius));
            let material = if cur.material.is_solid() { cur.material } else { majority_solid(&n) };
            Voxel::canonical(material, new)
        }
        BrushMode::Paint => {
            if d <= b.radius && cur.material.is_solid() {
                Voxel { material: b.material, occupancy: cur.occupancy }
            } else {
                cur
            }
        }
        BrushMode::FillWater => {
            if cur.material.is_solid() {
                return cur;
            }
            let o = cur.water_density();
            if ball <= o as f32 {
                return cur;
            }
            let n = towards(o, ball, b.strength);
            if n <= o { cur } else { Voxel::canonical(VoxelMaterial::Water, n) }
        }
    }
}

/// The most common solid material around a voxel (ties to the lower byte), for voxels that
/// smoothing turns from air into ground. Air when there is none (then occupancy stays 0 anyway).
fn majority_solid(n: &[Voxel; 27]) -> VoxelMaterial {
    let mut count = [0u8; 6];
    for v in n {
        if v.material.is_solid() {
            count[v.material as usize] += 1;
        }
    }
    let best = (1..6).max_by_key(|&m| (count[m], std::cmp::Reverse(m))).unwrap_or(0);
    if count[best] == 0 { VoxelMaterial::Air } else { VoxelMaterial::ALL[best] }
}
