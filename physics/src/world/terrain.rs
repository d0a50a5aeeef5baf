//! The world's terrain: read access, replacing it, editing it (which wakes the bodies near the
//! change, since the ground under them moved), and finding body–chunk contact pairs.
//!
//! A dynamic body has one contact per terrain chunk whose dilated solid mask its fat box
//! (grown by one voxel) touches. The fat box already covers the body's old and new poses
//! (margin plus predicted displacement), so the pairs are looked for only when it changes
//! (`Body::terrain_fat` remembers the box they were found for), and an edit or a new terrain
//! makes the bodies near it look again. The contacts then go through the same narrowphase,
//! solver, islands (the terrain is static) and events as body pairs.

use super::{World, graph};
use crate::body::{BodyType, UNCHECKED};
use crate::broadphase::ProxyType;
use crate::error::AtollError;
use crate::math::Aabb;
use crate::narrowphase::{TERRAIN, TerrainLink};
use crate::terrain::{ChunkCoord, Edit, EditReport, Terrain};
use glam::IVec3;
use std::sync::atomic::{AtomicU64, Ordering};

/// Friction of the terrain's surface, combined with a body's by the geometric mean as between
/// bodies.
pub const TERRAIN_FRICTION: f32 = 0.6;
/// Restitution of the terrain's surface (pairs take the larger).
pub const TERRAIN_RESTITUTION: f32 = 0.0;

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
        self.destroy_terrain_contacts(|_| true);
        for b in &mut self.bodies.bodies {
            b.terrain_fat = UNCHECKED;
        }
        self.terrain = terrain;
        self.terrain_stamp = fresh_stamp();
        self.wake_all();
    }

    /// Destroys the terrain contacts whose chunk passes `doomed`, waking their bodies (the
    /// ground under them changed) and making them look for terrain pairs again.
    fn destroy_terrain_contacts(&mut self, doomed: impl Fn(ChunkCoord) -> bool) {
        let ids: Vec<u32> = (self.contacts.contacts.iter().enumerate())
            .filter(|(_, c)| c.alive && c.terrain.as_ref().is_some_and(|t| doomed(t.chunk)))
            .map(|(i, _)| i as u32)
            .collect();
        for id in ids {
            let body = self.contacts.contacts[id as usize].body_a;
            self.wake(body);
            self.bodies.bodies[body as usize].terrain_fat = UNCHECKED;
            self.destroy_contact(id);
        }
    }

    /// Stage 3, for the terrain: awake dynamic bodies whose fat box changed look for the chunks
    /// it reaches; pairs with chunks it no longer reaches are destroyed, new ones created (in
    /// body order, then chunk order, so contact ids are deterministic). Returns how many were
    /// created.
    pub(super) fn update_terrain_pairs(&mut self) -> u32 {
        if self.terrain.chunk_count() == 0 {
            return 0;
        }
        let mut created = 0;
        let mut chunks: Vec<ChunkCoord> = Vec::new();
        let mut gone: Vec<u32> = Vec::new();
        let mut next = self.awake_bodies.next_from(0);
        while let Some(i) = next {
            next = self.awake_bodies.next_from(i + 1);
            let b = &self.bodies.bodies[i];
            // Bit-equal boxes (NaN never is) have the same chunks.
            if b.body_type != BodyType::Dynamic || b.fat == b.terrain_fat {
                continue;
            }
            let fat = b.fat;
            self.bodies.bodies[i].terrain_fat = fat;
            chunks.clear();
            let mut in_water = false;
            // A finite box never fails the query; a failure would leave the body without pairs.
            let _ = self.terrain.overlap_chunks(&fat, |c, o| {
                if o.solid {
                    chunks.push(c);
                }
                in_water |= o.water;
                true
            });
            self.bodies.bodies[i].in_water = in_water;
            gone.clear();
            graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, i as u32, |id, other| {
                if other == TERRAIN {
                    let c = &self.contacts.contacts[id as usize];
                    if c.terrain.as_ref().is_some_and(|t| chunks.binary_search(&t.chunk).is_err()) {
                        gone.push(id);
                    }
                }
            });
            // Destroy in contact order, whatever order the body's list holds them in.
            gone.sort_unstable();
            for &id in &gone {
                self.destroy_contact(id);
            }
            for &c in &chunks {
                if self.contacts.contains_terrain(i as u32, c) {
                    continue;
                }
                let Some(data) = self.terrain.chunk_collision(c) else { continue };
                if data.mesh.triangle_count() == 0 {
                    continue;
                }
                let m = self.bodies.bodies[i].material;
                let friction = (m.friction * TERRAIN_FRICTION).sqrt();
                let restitution = m.restitution.max(TERRAIN_RESTITUTION);
                let link = TerrainLink { chunk: c, data };
                let id = self.contacts.create_terrain(i as u32, link, friction, restitution);
                graph::attach(&mut self.bodies.bodies, &mut self.contacts.contacts, id);
                self.awake_contacts.set(id as usize);
                created += 1;
            }
        }
        created
    }

    /// Edits the terrain and wakes the bodies whose boxes come within one voxel of a changed
    /// voxel.
    pub fn edit_terrain(&mut self, edit: &Edit) -> Result<EditReport, AtollError> {
        let report = self.terrain.edit(edit)?;
        if report.changed_voxels > 0 {
            self.terrain_stamp = fresh_stamp();
            // `report.chunks` is sorted: their meshes changed, so contacts holding them go.
            self.destroy_terrain_contacts(|c| report.chunks.binary_search(&c).is_ok());
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
                // The masks changed: the chunks its box reaches may have too.
                self.bodies.bodies[body as usize].terrain_fat = UNCHECKED;
            }
        }
        Ok(report)
    }
}
