//! The world's terrain: read access, replacing it, editing it (which wakes the bodies near the
//! change, since the ground under them moved), and finding body–chunk contact pairs.
//!
//! A dynamic body has one contact per terrain chunk whose dilated solid mask its fat box
//! (grown by one voxel) touches. The fat box already covers the body's old and new poses
//! (margin plus predicted displacement), so the pairs are looked for only when it changes
//! ([`BodyTerrain::fat`] remembers the box they were found for), and an edit or a new terrain
//! makes the bodies near it look again. The contacts then go through the same narrowphase,
//! solver, islands (the terrain is static) and events as body pairs.

use super::WaterContact;
use super::World;
use crate::body::{BodyDesc, BodyId, BodyType, Material};
use crate::broadphase::ProxyType;
use crate::error::AtollError;
use crate::filter::CollisionFilter;
use crate::graph;
use crate::id::fresh_stamp;
use crate::island::wake_cause::WakeCause;
use crate::math::{Aabb, Vec3};
use crate::narrowphase::{TERRAIN, TerrainLink};
use crate::shape::Shape;
use crate::shape_key::child_key;
use crate::terrain::{BrushMode, ChunkCoord, Edit, EditReport, Terrain, Voxel};
use glam::IVec3;

/// Friction of the terrain's surface, combined with a body's by the geometric mean as between
/// bodies.
pub const TERRAIN_FRICTION: f32 = 0.6;
/// The terrain's collision filter: a body collides with it when their filters allow each other.
pub const TERRAIN_FILTER: CollisionFilter = CollisionFilter::DEFAULT;
/// Restitution of the terrain's surface (pairs take the larger).
pub const TERRAIN_RESTITUTION: f32 = 0.0;
/// What the world keeps per body slot about the terrain, beside the bodies (so the body
/// array, which every stage walks, stays as small as it was without terrain).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyTerrain {
    /// The fat box the body's terrain contacts were last found for: they are looked for again
    /// when the body's fat box differs (NaN, never equal, when they must be looked for).
    pub fat: Aabb,
    /// The box reaches water mask bits (found with the terrain pairs).
    pub in_water: bool,
    /// The water contact of the last step the body was simulated in.
    pub water: Option<WaterContact>,
}

impl BodyTerrain {
    /// Equal bit for bit (the default's NaN box included).
    pub fn same_as(&self, other: &BodyTerrain) -> bool {
        let bits = |b: &Aabb| [b.min.to_array(), b.max.to_array()].map(|v| v.map(f32::to_bits));
        bits(&self.fat) == bits(&other.fat) && self.in_water == other.in_water && self.water == other.water
    }
}

impl Default for BodyTerrain {
    fn default() -> Self {
        BodyTerrain { fat: Aabb { min: Vec3::NAN, max: Vec3::NAN }, in_water: false, water: None }
    }
}

/// Density of the rock bodies that edits cut loose from the terrain, kg/m³.
pub const FRAGMENT_DENSITY: f32 = 2000.0;

/// Can `edit` take solid away (and so cut a region loose)? Adding never does, so a designer
/// can paint a floating island without it falling.
fn removes_solid(edit: &Edit) -> bool {
    match edit {
        Edit::Sphere(b) => matches!(b.mode, BrushMode::Remove | BrushMode::Smooth),
        Edit::FillBox { voxel, .. } => !voxel.is_solid(),
    }
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
        self.body_terrain.fill(BodyTerrain::default());
        self.terrain = terrain;
        self.terrain_stamp = fresh_stamp();
        self.note_edit(true);
        self.unlogged(World::wake_all);
        if self.tape.is_some() {
            let scene = crate::scene::SceneTerrain::from_terrain(&self.terrain);
            self.log_input(|| crate::recording::input::Input::SetTerrain(scene));
        }
    }

    /// Destroys the terrain contacts whose chunk passes `doomed`, waking their bodies (the
    /// ground under them changed) and making them look for terrain pairs again.
    fn destroy_terrain_contacts(&mut self, doomed: impl Fn(ChunkCoord) -> bool) {
        let ids: Vec<u32> = (self.contacts.links.iter().enumerate())
            .filter(|(_, l)| l.as_ref().is_some_and(|t| doomed(t.chunk)))
            .map(|(i, _)| i as u32)
            .collect();
        for id in ids {
            let body = self.contacts.contacts[id as usize].body_a;
            self.wake(body, WakeCause::Terrain { body: self.cause_body(body) });
            self.body_terrain[body as usize].fat = BodyTerrain::default().fat;
            self.destroy_contact(id);
        }
    }

    /// [`crate::Stage::Pairs`], for the terrain: awake dynamic bodies whose fat box changed
    /// look for the chunks it reaches, each of their shapes by its own fat box (a compound body
    /// looks every step it is awake: its children's boxes move apart from its own); pairs with
    /// chunks a shape no longer reaches are destroyed, new ones created (in body order, then
    /// shape order, then chunk order, so contact ids are deterministic). Returns how many were
    /// created.
    pub(super) fn update_terrain_pairs(&mut self) -> u32 {
        if self.terrain.chunk_count() == 0 {
            return 0;
        }
        let mut created = 0;
        // The (shape key, chunk) pairs a body's shapes reach, in shape order then chunk order.
        let mut wanted: Vec<(u32, ChunkCoord)> = Vec::new();
        let mut gone: Vec<u32> = Vec::new();
        let mut next = self.awake_bodies.next_from(0);
        while let Some(i) = next {
            next = self.awake_bodies.next_from(i + 1);
            let b = &self.bodies.bodies[i];
            let children = self.bodies.children.of(i as u32);
            // Bit-equal boxes (NaN never is) have the same chunks.
            if b.body_type != BodyType::Dynamic || (children.is_empty() && b.fat == self.body_terrain[i].fat)
            {
                continue;
            }
            self.body_terrain[i].fat = b.fat;
            wanted.clear();
            let mut in_water = false;
            let own = std::iter::once((i as u32, b.fat));
            let shapes = own.chain(
                children.iter().map(|&c| (child_key(c), self.bodies.children.children[c as usize].fat)),
            );
            for (shape, fat) in shapes {
                // A sensor, or a shape whose filter refuses the terrain's, has no pairs with it
                // (water still carries it).
                let (filter, sensor) = self.bodies.rules_of(shape);
                let grounded = sensor.is_none() && filter.allows(&TERRAIN_FILTER);
                // A finite box never fails the query; a failure would leave the shape without
                // pairs.
                let _ = self.terrain.overlap_chunks(&fat, |c, o| {
                    if o.solid && grounded {
                        wanted.push((shape, c));
                    }
                    in_water |= o.water;
                    true
                });
            }
            self.body_terrain[i].in_water = in_water;
            gone.clear();
            graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, i as u32, |id, other| {
                if other != TERRAIN {
                    return;
                }
                let shape = self.contacts.contacts[id as usize].shape_a;
                let chunk = self.contacts.chunk(id as usize);
                if chunk.is_some_and(|c| !wanted.contains(&(shape, c))) {
                    gone.push(id);
                }
            });
            // Destroy in contact order, whatever order the body's list holds them in.
            gone.sort_unstable();
            for &id in &gone {
                self.destroy_contact(id);
            }
            for &(shape, c) in &wanted {
                if self.contacts.contains_terrain(shape, c) {
                    continue;
                }
                let Some(data) = self.terrain.chunk_collision(c) else { continue };
                if data.mesh.triangle_count() == 0 {
                    continue;
                }
                let m = self.bodies.part(shape).2;
                let friction = (m.friction * TERRAIN_FRICTION).sqrt();
                let restitution = m.restitution.max(TERRAIN_RESTITUTION);
                let link = TerrainLink { chunk: c, data };
                let id = self.contacts.create_terrain((shape, i as u32), link, friction, restitution);
                graph::attach(&mut self.bodies.bodies, &mut self.contacts.contacts, id);
                self.awake_contacts.set(id as usize);
                created += 1;
            }
        }
        created
    }

    /// Edits the terrain and wakes the bodies whose boxes come within one voxel of a changed
    /// voxel. An edit that removes solid may cut regions loose: they become dynamic bodies
    /// ([`World::detached_bodies`]).
    pub fn edit_terrain(&mut self, edit: &Edit) -> Result<EditReport, AtollError> {
        let mut report = self.terrain.edit(edit)?;
        self.after_terrain_change(&report);
        self.detached.clear();
        if report.changed_voxels > 0 && removes_solid(edit) {
            let previous = self.unlogged(|w| w.detach_fragments(report.voxel_min, report.voxel_max))?;
            report.previous.extend(previous);
        }
        self.log_input(|| crate::recording::input::Input::EditTerrain(*edit));
        Ok(report)
    }

    /// Writes voxels as they are given (an undo or redo of earlier edits, from their
    /// [`EditReport::previous`]) and wakes the bodies near them like an edit. Cuts nothing
    /// loose: the fragments an edit made are bodies the caller removes or adds itself.
    pub fn set_terrain_voxels(&mut self, changes: &[(IVec3, Voxel)]) -> Result<EditReport, AtollError> {
        let report = self.terrain.set_voxels(changes)?;
        self.after_terrain_change(&report);
        self.detached.clear();
        self.log_input(|| crate::recording::input::Input::SetTerrainVoxels(changes.to_vec()));
        Ok(report)
    }

    /// After voxels changed: a new terrain stamp, the touched chunks' contacts dropped, the
    /// bodies within a voxel of the change woken.
    fn after_terrain_change(&mut self, report: &EditReport) {
        if report.changed_voxels > 0 {
            self.terrain_stamp = fresh_stamp();
            self.note_edit(true);
            // `report.chunks` is sorted: their meshes changed, so contacts holding them go.
            self.destroy_terrain_contacts(|c| report.chunks.binary_search(&c).is_ok());
            let s = self.terrain.voxel_size();
            let region = Aabb::new(
                (report.voxel_min - IVec3::ONE).as_vec3() * s,
                (report.voxel_max + IVec3::splat(2)).as_vec3() * s,
            );
            let mut near = Vec::new();
            self.broadphase.tree(ProxyType::Movable).query(&region, |_, key| {
                near.push(self.bodies.body_of(key));
                true
            });
            // In body order: the tree's shape (which depends on the world's history and on
            // rebuilds) must not decide which body an island records as having woken it.
            near.sort_unstable();
            near.dedup();
            for body in near {
                self.wake(body, WakeCause::Terrain { body: self.cause_body(body) });
                // The masks changed: the chunks its box reaches may have too.
                self.body_terrain[body as usize].fat = BodyTerrain::default().fat;
            }
        }
    }

    /// The bodies the last terrain edit cut loose from the terrain (see
    /// [`Terrain::floating_fragments`]), in the order they were made.
    pub fn detached_bodies(&self) -> &[BodyId] {
        &self.detached
    }

    /// Turns the regions of solid voxels the edit of `min..=max` left floating into dynamic
    /// rock bodies: each a convex hull around its voxels (corners pulled in a fifth of a voxel
    /// towards their centres, where the smooth surface runs), its voxels gone from the terrain.
    /// Returns the voxels it removed with their old values.
    fn detach_fragments(&mut self, min: IVec3, max: IVec3) -> Result<Vec<(IVec3, Voxel)>, AtollError> {
        let mut previous = Vec::new();
        let s = self.terrain.voxel_size();
        for fragment in self.terrain.floating_fragments(min, max) {
            let corners: Vec<Vec3> = fragment
                .iter()
                .flat_map(|v| {
                    let centre = (v.as_vec3() + 0.5) * s;
                    (0..8).map(move |k| {
                        let sign =
                            Vec3::new((k & 1) as f32, (k >> 1 & 1) as f32, (k >> 2 & 1) as f32) * 2.0 - 1.0;
                        centre + sign * (0.4 * s)
                    })
                })
                .collect();
            let centre = corners.iter().copied().sum::<Vec3>() / corners.len() as f32;
            let local: Vec<Vec3> = corners.iter().map(|&c| c - centre).collect();
            let Ok(shape) = Shape::hull(&local) else { continue };
            let report = self.terrain.remove_fragment(&fragment)?;
            self.destroy_terrain_contacts(|c| report.chunks.binary_search(&c).is_ok());
            previous.extend(report.previous);
            let desc = BodyDesc::dynamic(shape, centre)
                .with_material(Material { density: FRAGMENT_DENSITY, ..Material::default() });
            let id = self.create_body(&desc)?;
            self.detached.push(id);
        }
        Ok(previous)
    }
}
