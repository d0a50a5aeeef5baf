//! Floating fragments: after an edit that removed solid, the regions of solid voxels it cut off
//! from the rest of the terrain.
//!
//! A region cut off by the edit must hold a solid voxel next to the edit, so only the solid
//! voxels of the edited box (grown by one) seed a flood fill over 6-connected solid voxels.
//! A fill that reaches the edge of the terrain's bounds is anchored (the ground continues past
//! them), and so is one that grows past [`MAX_FRAGMENT_VOXELS`] (a hill is ground, not a
//! boulder); everything an anchored fill reached is remembered, so the other seeds of the same
//! ground stop as soon as they touch it. What is left are fragments: small regions hanging in
//! the air, which the world turns into bodies.

use super::Terrain;
use super::voxel::Voxel;
use glam::IVec3;
use std::collections::{BTreeSet, HashSet};

/// Largest fragment, voxels; a larger cut-off region stays terrain.
pub const MAX_FRAGMENT_VOXELS: usize = 4096;

/// The six face neighbours.
const FACES: [IVec3; 6] = [IVec3::X, IVec3::NEG_X, IVec3::Y, IVec3::NEG_Y, IVec3::Z, IVec3::NEG_Z];

impl Terrain {
    /// The fragments among the solid voxels of `min..=max` (voxel coordinates, grown by one
    /// here): each as its voxels in order, fragments ordered by their first voxel.
    pub fn floating_fragments(&self, min: IVec3, max: IVec3) -> Vec<Vec<IVec3>> {
        let (lo_bound, hi_bound) = (self.settings.min_voxel(), self.settings.max_voxel());
        let (lo, hi) = ((min - IVec3::ONE).max(lo_bound), (max + IVec3::ONE).min(hi_bound));
        let mut anchored: HashSet<IVec3> = HashSet::new();
        let mut done: HashSet<IVec3> = HashSet::new();
        let mut fragments = Vec::new();
        for y in lo.y..=hi.y {
            for z in lo.z..=hi.z {
                for x in lo.x..=hi.x {
                    let seed = IVec3::new(x, y, z);
                    if done.contains(&seed) || anchored.contains(&seed) || !self.voxel(seed).is_solid() {
                        continue;
                    }
                    match self.fill_from(seed, &anchored) {
                        Fill::Fragment(voxels) => {
                            done.extend(voxels.iter().map(|&v| IVec3::from_array(v)));
                            fragments.push(voxels.into_iter().map(IVec3::from_array).collect());
                        }
                        Fill::Anchored(reached) => {
                            anchored.extend(reached.into_iter().map(IVec3::from_array))
                        }
                    }
                }
            }
        }
        fragments
    }

    /// Flood-fills the solid region holding `seed`, stopping as soon as it is anchored.
    fn fill_from(&self, seed: IVec3, anchored: &HashSet<IVec3>) -> Fill {
        let (lo, hi) = (self.settings.min_voxel(), self.settings.max_voxel());
        let mut region = BTreeSet::from([seed.to_array()]);
        let mut stack = vec![seed];
        while let Some(v) = stack.pop() {
            if v.cmpeq(lo).any() || v.cmpeq(hi).any() || region.len() > MAX_FRAGMENT_VOXELS {
                return Fill::Anchored(region);
            }
            for f in FACES {
                let n = v + f;
                if anchored.contains(&n) {
                    return Fill::Anchored(region);
                }
                if !region.contains(&n.to_array()) && self.voxel(n).is_solid() {
                    region.insert(n.to_array());
                    stack.push(n);
                }
            }
        }
        Fill::Fragment(region)
    }

    /// Removes a fragment's voxels, and the thin solid density around them that belonged to
    /// its surface, from the terrain.
    pub(crate) fn remove_fragment(
        &mut self,
        voxels: &[IVec3],
    ) -> Result<super::EditReport, crate::AtollError> {
        let inside: HashSet<IVec3> = voxels.iter().copied().collect();
        let mut changes: BTreeSet<[i32; 3]> = voxels.iter().map(|v| v.to_array()).collect();
        for &v in voxels {
            for f in FACES {
                let n = v + f;
                let voxel = self.voxel(n);
                if !inside.contains(&n) && !voxel.is_solid() && voxel.solid_density() > 0 {
                    changes.insert(n.to_array());
                }
            }
        }
        let changes: Vec<(IVec3, Voxel)> =
            changes.into_iter().map(|v| (IVec3::from_array(v), Voxel::AIR)).collect();
        self.set_voxels(&changes)
    }
}

/// Voxels as arrays, which order (glam's vectors do not), so a fragment lists its voxels in
/// coordinate order.
enum Fill {
    Fragment(BTreeSet<[i32; 3]>),
    Anchored(BTreeSet<[i32; 3]>),
}
