//! Ray casts against the terrain: a 3D DDA over chunks, skipping chunks without solid mask
//! bits, then the kD trees of the chunks whose triangles the ray can reach there.
//!
//! A chunk's triangles can reach up to one voxel into its neighbours, and every point of them
//! lies in a voxel whose dilated solid mask bit is set (in the chunk holding that voxel). So a
//! hit point lies in a chunk `x` the walk visits that has solid bits, and belongs to `x` or to
//! a neighbour across a face, edge or corner of `x` that the ray passes within one voxel of
//! while in `x`. At each such `x` the walk tests `x` and only those neighbours (usually none:
//! most of a ray's path through a chunk is far from its border), skipping chunks that store no
//! voxels, chunks it already tested (a 27-bit mask around the current chunk, shifted as the
//! walk steps) and chunks whose box grown by one voxel the ray misses. Since a hit point
//! lies in some chunk the walk visits, the walk stops at the first chunk it enters beyond the
//! best hit.
//!
//! Nothing on the walk allocates; the cache is locked once per ray.

use super::kdtree::{slab, slab_inv};
use super::voxel::{CHUNK_SIZE, ChunkCoord, VoxelMaterial};
use super::{Terrain, mesher::ChunkCollision};
use crate::math::Vec3;
use crate::query::Ray;
use glam::IVec3;

/// How close (chunk units) the ray must pass to a chunk face for the neighbour across it to be
/// tested: one voxel plus slack for rounding in the segment's end points.
const NEAR_FACE: f32 = (1.0 + 0.125) / CHUNK_SIZE as f32;

/// Bit strides of the x, y and z offsets in a [`Tested`] mask.
const STRIDE: [u32; 3] = [9, 3, 1];
/// Every bit of a [`Tested`] mask.
const ALL: u32 = (1 << 27) - 1;

/// The bits of a [`Tested`] mask whose offset along `axis` is `v` (-1, 0 or 1).
const fn layer(axis: usize, v: i32) -> u32 {
    let mut bits = 0;
    let mut i = 0;
    while i < 27 {
        let offset = (i / STRIDE[axis] % 3) as i32 - 1;
        if offset == v {
            bits |= 1 << i;
        }
        i += 1;
    }
    bits
}

/// Per axis, the bits at offset +1 and at offset -1.
const LAYER_HI: [u32; 3] = [layer(0, 1), layer(1, 1), layer(2, 1)];
const LAYER_LO: [u32; 3] = [layer(0, -1), layer(1, -1), layer(2, -1)];

/// Which of the current chunk's 27 neighbours (itself included) the ray has tested: bit
/// `9 (dx + 1) + 3 (dy + 1) + (dz + 1)`. The walk moves monotonically along each axis, so a
/// chunk that leaves the current neighbourhood never comes back into it, and a step only shifts
/// the mask: an exact "tested once" in a u32, where a set of coordinates needed a B-tree.
#[derive(Clone, Copy, Default)]
struct Tested(u32);

impl Tested {
    /// Bit of neighbour offset `n` (each component -1..=1).
    #[cfg(test)]
    fn bit(n: IVec3) -> u32 {
        1 << ((n.x + 1) as u32 * 9 + (n.y + 1) as u32 * 3 + (n.z + 1) as u32)
    }

    /// The walk stepped `step` (±1) along `axis`: offsets move the other way.
    #[inline]
    fn shift(&mut self, axis: usize, step: i32) {
        self.0 = if step > 0 {
            (self.0 >> STRIDE[axis]) & !LAYER_HI[axis]
        } else {
            (self.0 << STRIDE[axis]) & !LAYER_LO[axis] & ALL
        };
    }
}

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
    /// The first solid terrain triangle along `ray` (checked by [`Ray::new`]). Ties go to
    /// the lower chunk coordinate, then the lower triangle, so the answer never depends on the
    /// cache.
    pub fn cast_ray(&self, ray: &Ray) -> Option<TerrainHit> {
        let (origin, dir, max_t) = (ray.origin, ray.dir, ray.max_t);
        let s = self.settings.voxel_size;
        let (t0, t1) = slab(&self.settings.world_aabb(), origin, dir, 0.0, max_t)?;
        // Walk in chunk units: p(t) = o + t d with one chunk = 1.
        let size = s * CHUNK_SIZE as f32;
        let (o, d) = (origin / size, dir / size);
        let lo = IVec3::from_array(self.settings.min_chunk);
        let hi = IVec3::from_array(self.settings.max_chunk) - IVec3::ONE;
        let mut cell = floor(o + d * t0).clamp(lo, hi);
        let step = IVec3::new(sign(d.x), sign(d.y), sign(d.z));
        // Where the ray leaves `cell` along axis `a` (an integer boundary, so each is computed
        // afresh rather than accumulated, and only for the axis stepped).
        let leave = |cell: IVec3, a: usize| {
            if d[a] == 0.0 {
                return f32::INFINITY;
            }
            let boundary = if d[a] > 0.0 { cell[a] + 1 } else { cell[a] } as f32;
            (boundary - o[a]) / d[a]
        };
        let mut ts = [leave(cell, 0), leave(cell, 1), leave(cell, 2)];
        let mut tested = Tested::default();
        let inv = Vec3::ONE / dir;
        let local_dir = dir / s;
        let local = (local_dir, Vec3::ONE / local_dir);
        let mut cache = self.cache.lock();
        let mut best: Option<TerrainHit> = None;
        let mut enter = t0;
        loop {
            if best.is_some_and(|b| b.t < enter) || enter > t1 {
                break;
            }
            let a = if ts[0] <= ts[1] && ts[0] <= ts[2] {
                0
            } else if ts[1] <= ts[2] {
                1
            } else {
                2
            };
            if self.has_solid_bits(ChunkCoord::from_ivec3(cell)) {
                // The ray's part in this chunk, relative to its first corner: which faces it
                // passes within one voxel of.
                let exit = ts[a].min(t1);
                let (pa, pb) = (o + d * enter - cell.as_vec3(), o + d * exit - cell.as_vec3());
                let (near_lo, near_hi) = (
                    pa.min(pb).cmplt(Vec3::splat(NEAR_FACE)),
                    pa.max(pb).cmpgt(Vec3::splat(1.0 - NEAR_FACE)),
                );
                // The neighbours to test: offsets -1 and +1 along the axes whose faces are
                // near, as a mask of the 27, less those already tested; visited in bit order.
                let mut todo = ALL & !tested.0;
                for axis in 0..3 {
                    let mut keep = !(LAYER_LO[axis] | LAYER_HI[axis]);
                    if near_lo.test(axis) {
                        keep |= LAYER_LO[axis];
                    }
                    if near_hi.test(axis) {
                        keep |= LAYER_HI[axis];
                    }
                    todo &= keep;
                }
                while todo != 0 {
                    let i = todo.trailing_zeros();
                    let bit = 1 << i;
                    todo &= !bit;
                    let offset = IVec3::new(i as i32 / 9, i as i32 / 3 % 3, i as i32 % 3) - IVec3::ONE;
                    let c = ChunkCoord::from_ivec3(cell + offset);
                    if !self.is_stored(c) {
                        continue;
                    }
                    tested.0 |= bit;
                    let limit = best.map_or(max_t, |b| b.t);
                    // Triangles reach half a voxel past the chunk; the box grown by one is slack
                    // enough for the reciprocals' rounding.
                    if slab_inv(&self.chunk_aabb(c).grown(s), origin, dir, inv, 0.0, limit).is_none() {
                        continue;
                    }
                    if let Some(data) = cache.get_stored(self, c) {
                        self.cast_in_chunk(c, data, (origin, dir), local, limit, &mut best);
                    }
                }
            }
            cell[a] += step[a];
            tested.shift(a, step[a]);
            if cell[a] < lo[a] || cell[a] > hi[a] {
                break;
            }
            enter = ts[a].max(enter);
            ts[a] = leave(cell, a);
        }
        best
    }

    /// Tests chunk `c`'s triangles (`data`) with the ray `(origin, dir)` up to `limit` and
    /// keeps the better hit. `local` is the direction in voxel units (`dir / voxel size`) and
    /// its reciprocals.
    fn cast_in_chunk(
        &self,
        c: ChunkCoord,
        data: &ChunkCollision,
        (origin, dir): (Vec3, Vec3),
        local: (Vec3, Vec3),
        limit: f32,
        best: &mut Option<TerrainHit>,
    ) {
        let s = self.settings.voxel_size;
        let base = self.chunk_origin(c);
        // The same transform as the brute-force reference, so `t` is bit for bit the same
        // (the direction's part, the same for every chunk, is the caller's).
        let lo = (origin - base) / s;
        let Some((t, tri)) = data.tree.cast_ray_inv(&data.mesh, lo, local.0, local.1, limit) else { return };
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

/// `p.floor().as_ivec3()` (saturating, NaN to 0) without a libm call per component: x86-64's
/// baseline SSE2 has no rounding instruction, so `f32::floor` is a function call.
#[inline]
fn floor(p: Vec3) -> IVec3 {
    let f = |x: f32| {
        let i = x as i32;
        // Truncation rounds negative non-integers up; beyond i32 the cast saturates, as
        // `as_ivec3` of the floor would.
        if (i as f32) > x { i.saturating_sub(1) } else { i }
    };
    IVec3::new(f(p.x), f(p.y), f(p.z))
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// The shifted mask equals a set of absolute coordinates seen from the current chunk, on
    /// every monotone walk of a few steps.
    #[test]
    fn tested_mask_follows_the_walk() {
        let mut seed = 0x1234_5678_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        for _ in 0..200 {
            let mut sign = || if next() & 1 == 0 { 1 } else { -1 };
            let step = IVec3::new(sign(), sign(), sign());
            let (mut cell, mut mask, mut set) = (IVec3::ZERO, Tested::default(), BTreeSet::new());
            for _ in 0..12 {
                for _ in 0..3 {
                    let mut unit = || (next() % 3) as i32 - 1;
                    let offset = IVec3::new(unit(), unit(), unit());
                    mask.0 |= Tested::bit(offset);
                    set.insert((cell + offset).to_array());
                }
                let a = (next() % 3) as usize;
                cell[a] += step[a];
                mask.shift(a, step[a]);
                for i in 0..27 {
                    let offset = IVec3::new(i / 9, i / 3 % 3, i % 3) - 1;
                    let expected = set.contains(&(cell + offset).to_array());
                    assert_eq!(mask.0 & Tested::bit(offset) != 0, expected, "{cell} {offset}");
                }
            }
        }
    }
}
