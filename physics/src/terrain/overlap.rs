//! The bit broadphase query: does a box come near solid or water terrain?

use super::Terrain;
use super::mask::SliceMask;
use super::voxel::ChunkCoord;
use crate::error::{AtollError, check_vec3};
use crate::math::Aabb;
use glam::IVec3;

/// Which masks a box touches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerrainOverlap {
    /// A solid mask bit lies under the grown box.
    pub solid: bool,
    /// A water mask bit lies under the grown box.
    pub water: bool,
}

/// `X_RANGE[a][b]`: the bits with `a <= x <= b` in every row of a slice.
const X_RANGE: [[u64; 8]; 8] = {
    let mut t = [[0u64; 8]; 8];
    let mut a = 0;
    while a < 8 {
        let mut b = a;
        while b < 8 {
            let row = ((1u64 << (b + 1)) - (1u64 << a)) & 0xff;
            t[a][b] = row * 0x0101_0101_0101_0101;
            b += 1;
        }
        a += 1;
    }
    t
};

/// `Z_RANGE[a][b]`: the rows with `a <= z <= b` of a slice.
const Z_RANGE: [[u64; 8]; 8] = {
    let mut t = [[0u64; 8]; 8];
    let mut a = 0;
    while a < 8 {
        let mut b = a;
        while b < 8 {
            t[a][b] = ((1u128 << (8 * (b + 1))) - (1u128 << (8 * a))) as u64;
            b += 1;
        }
        a += 1;
    }
    t
};

impl Terrain {
    /// The voxel range `aabb` covers after growing it by one voxel, clipped to the bounds;
    /// `None` when it misses the bounds.
    fn grown_voxel_range(&self, aabb: &Aabb) -> Result<Option<(IVec3, IVec3)>, AtollError> {
        check_vec3("box min", aabb.min)?;
        check_vec3("box max", aabb.max)?;
        if aabb.min.cmpgt(aabb.max).any() {
            return Err(AtollError::invalid("box", format!("min {} exceeds max {}", aabb.min, aabb.max)));
        }
        let s = self.settings.voxel_size;
        let (lo_v, hi_v) = (self.settings.min_voxel(), self.settings.max_voxel());
        // Clamp in f32 before converting, so huge boxes cannot overflow the integer range.
        let lo =
            ((aabb.min / s).floor() - 1.0).max(lo_v.as_vec3() - 1.0).min(hi_v.as_vec3() + 1.0).as_ivec3();
        let hi =
            ((aabb.max / s).floor() + 1.0).max(lo_v.as_vec3() - 1.0).min(hi_v.as_vec3() + 1.0).as_ivec3();
        let (lo, hi) = (lo.max(lo_v), hi.min(hi_v));
        Ok(if lo.cmple(hi).all() { Some((lo, hi)) } else { None })
    }

    /// The bit broadphase test: grows `aabb` by one voxel and reports whether it covers a
    /// solid or a water mask bit.
    pub fn overlap_aabb(&self, aabb: &Aabb) -> Result<TerrainOverlap, AtollError> {
        let mut out = TerrainOverlap::default();
        self.overlap_chunks(aabb, |_, o| {
            out.solid |= o.solid;
            out.water |= o.water;
            !(out.solid && out.water)
        })?;
        Ok(out)
    }

    /// Calls `f` for each chunk (in coordinate order) whose masks the grown box touches, with
    /// what it touches there; `f` returns false to stop.
    pub fn overlap_chunks(
        &self,
        aabb: &Aabb,
        mut f: impl FnMut(ChunkCoord, TerrainOverlap) -> bool,
    ) -> Result<(), AtollError> {
        let Some((lo, hi)) = self.grown_voxel_range(aabb)? else { return Ok(()) };
        let (c0, c1) = (ChunkCoord::of_voxel(lo), ChunkCoord::of_voxel(hi));
        // The mask map is sparse and ordered by (x, y, z): one range per (x, y) column.
        for x in c0.x..=c1.x {
            for y in c0.y..=c1.y {
                let column = ChunkCoord::new(x, y, c0.z)..=ChunkCoord::new(x, y, c1.z);
                for (&c, m) in self.masks.range(column) {
                    let o = c.origin_voxel();
                    let l = (lo - o).max(IVec3::ZERO);
                    let h = (hi - o).min(IVec3::splat(7));
                    let xz = X_RANGE[l.x as usize][h.x as usize] & Z_RANGE[l.z as usize][h.z as usize];
                    let hit = |slices: SliceMask| (l.y..=h.y).any(|y| slices[y as usize] & xz != 0);
                    let r = TerrainOverlap { solid: hit(m.solid()), water: hit(m.water()) };
                    if (r.solid || r.water) && !f(c, r) {
                        return Ok(());
                    }
                }
            }
        }
        Ok(())
    }
}
