//! The world's terrain: read access, replacing it, and editing it (which wakes the bodies near
//! the change, since the ground under them moved).

use super::World;
use crate::broadphase::ProxyType;
use crate::error::AtollError;
use crate::math::Aabb;
use crate::terrain::{Edit, EditReport, Terrain};
use glam::IVec3;
use std::sync::atomic::{AtomicU64, Ordering};

/// The last terrain stamp handed out, process-wide, so two worlds never share a stamp for
/// different terrains.
static LAST_STAMP: AtomicU64 = AtomicU64::new(0);

fn fresh_stamp() -> u64 {
    LAST_STAMP.fetch_add(1, Ordering::Relaxed) + 1
}

impl World {
    /// The voxel terrain.
    pub fn terrain(&self) -> &Terrain {
        &self.terrain
    }

    /// True when the world has a terrain: stored chunks or settings other than the default.
    pub fn has_terrain(&self) -> bool {
        self.terrain.chunk_count() > 0 || *self.terrain.settings() != Default::default()
    }

    /// Names the terrain's current content: equal stamps mean equal terrains, so a renderer
    /// that drew stamp `s` has nothing to redraw while the stamp stays `s`. An empty default
    /// terrain has stamp 0; every [`World::set_terrain`] and every edit that changed a voxel
    /// takes a new stamp, unique in the process. A cloned world keeps its stamp (same content).
    pub fn terrain_stamp(&self) -> u64 {
        self.terrain_stamp
    }

    /// Replaces the terrain and wakes every body.
    pub fn set_terrain(&mut self, terrain: Terrain) {
        self.terrain = terrain;
        self.terrain_stamp = fresh_stamp();
        self.wake_all();
    }

    /// Edits the terrain and wakes the bodies whose boxes come within one voxel of a changed
    /// voxel.
    pub fn edit_terrain(&mut self, edit: &Edit) -> Result<EditReport, AtollError> {
        let report = self.terrain.edit(edit)?;
        if report.changed_voxels > 0 {
            self.terrain_stamp = fresh_stamp();
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
