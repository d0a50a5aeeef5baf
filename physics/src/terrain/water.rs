//! The water field around a body: water densities of a block of voxels, read chunk by chunk
//! once, then sampled trilinearly between voxel centres (the field the mesher draws the water
//! surface from, at half density).

use super::Terrain;
use super::voxel::{CHUNK_SIZE, ChunkCoord};
use crate::math::{Aabb, Vec3};
use glam::IVec3;

/// Water densities (0 = dry, 1 = full) of the voxels `lo .. lo + size`, x fastest, then y.
#[derive(Clone, Debug, Default)]
pub struct WaterBlock {
    lo: IVec3,
    size: IVec3,
    voxel: f32,
    density: Vec<f32>,
}

impl Terrain {
    /// Fills `block` with the water densities of every voxel whose centre the trilinear samples
    /// of points in `aabb` read. Voxels outside the stored chunks are dry. Returns whether any
    /// of them holds water (a body beside a lake, whose box only reaches the dilated water
    /// mask, has nothing to sample).
    pub fn water_block(&self, aabb: &Aabb, block: &mut WaterBlock) -> bool {
        let mut wet = false;
        let s = self.settings.voxel_size;
        // Samples read the centres around them: centre of voxel v is (v + 0.5) s.
        let lo = (aabb.min / s - 0.5).floor().as_ivec3();
        let hi = (aabb.max / s - 0.5).floor().as_ivec3() + IVec3::ONE;
        block.lo = lo;
        block.size = hi - lo + IVec3::ONE;
        block.voxel = s;
        block.density.clear();
        block.density.resize((block.size.x * block.size.y * block.size.z) as usize, 0.0);
        let (c0, c1) = (ChunkCoord::of_voxel(lo), ChunkCoord::of_voxel(hi));
        for x in c0.x..=c1.x {
            for y in c0.y..=c1.y {
                for z in c0.z..=c1.z {
                    let c = ChunkCoord::new(x, y, z);
                    let Some(chunk) = self.chunks.get(&c) else { continue };
                    let o = c.origin_voxel();
                    let (a, b) = (lo.max(o), hi.min(o + IVec3::splat(CHUNK_SIZE - 1)));
                    for vy in a.y..=b.y {
                        for vz in a.z..=b.z {
                            for vx in a.x..=b.x {
                                let v = IVec3::new(vx, vy, vz);
                                let density = chunk.get(v - o).water_density();
                                if density > 0 {
                                    let k = block.index(v);
                                    block.density[k] = density as f32 / 255.0;
                                    wet = true;
                                }
                            }
                        }
                    }
                }
            }
        }
        wet
    }
}

impl WaterBlock {
    #[inline]
    fn index(&self, v: IVec3) -> usize {
        let l = v - self.lo;
        (l.x + self.size.x * (l.z + self.size.z * l.y)) as usize
    }

    #[inline]
    fn at(&self, v: IVec3) -> f32 {
        let l = v - self.lo;
        if l.cmplt(IVec3::ZERO).any() || l.cmpge(self.size).any() {
            return 0.0;
        }
        self.density[self.index(v)]
    }

    /// The water density at world point `p`, trilinear between voxel centres.
    pub fn sample(&self, p: Vec3) -> f32 {
        let q = p / self.voxel - 0.5;
        let base = q.floor();
        let f = q - base;
        let b = base.as_ivec3();
        let mut sum = 0.0;
        for corner in 0..8 {
            let d = IVec3::new(corner & 1, corner >> 1 & 1, corner >> 2 & 1);
            let w = (if d.x == 1 { f.x } else { 1.0 - f.x })
                * (if d.y == 1 { f.y } else { 1.0 - f.y })
                * (if d.z == 1 { f.z } else { 1.0 - f.z });
            sum += w * self.at(b + d);
        }
        sum
    }

    /// How far below the water surface `p` lies (metres; negative above it), read from the
    /// density: a surface ramp spans one voxel, with half density on the surface, so within
    /// half a voxel of the surface the depth is exact for a level surface; beyond, it saturates
    /// at ± half a voxel.
    pub fn depth(&self, p: Vec3) -> f32 {
        (self.sample(p) - 0.5) * self.voxel
    }
}
