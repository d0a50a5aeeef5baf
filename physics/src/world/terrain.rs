//! The world's terrain: read access, replacing it, and editing it (which wakes the bodies near
//! the change, since the ground under them moved).

use super::World;
use crate::broadphase::ProxyType;
use crate::error::AtollError;
use crate::math::Aabb;
use crate::terrain::{Edit, EditReport, Terrain};
use glam::IVec3;

impl World {
    /// The voxel terrain.
    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// True when the world has a terrain: stored chunks or settings other than the default.
    pub fn has_terrain(&self) -> bool {
        self.terrain.chunk_count() > 0 || *self.terrain.settings() != Default::default()
    }

    /// Replaces the terrain and wakes every body.
    pub fn set_terrain(&mut self, terrain: Terrain) {
        self.terrain = terrain;
        self.wake_all();
    }

    /// Edits the terrain and wakes the bodies whose boxes come within one voxel of a changed
    /// voxel.
    pub fn edit_terrain(&mut self, edit: &Edit) -> Result<EditReport, AtollError> {
        let report = self.terrain.edit(edit)?;
        if report.changed_voxels > 0 {
            let s = self.terrain.voxel_size();
            let region = Aabb::new(
                (report.voxel_min - IVec3::ONE).as_vec3() * s,
                (report.voxel_max + IVec3::splat(2)).as_vec3() * s,
            );
            let mut near = Vec::new();
            self.broadphase.tree(ProxyType::Movable).query(&region, |_, body| {
                near.push(body);
                true
            });
            for body in near {
                self.wake(body);
            }
        }
        Ok(report)
    }
}
