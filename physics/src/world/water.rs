//! Water: buoyancy and drag on the awake dynamic bodies whose boxes reach water.
//!
//! A body's water contact samples its volume on a 5 × 5 × 5 grid over its local box, keeps the
//! points inside the shape (each standing for an equal share of the volume) and weighs each by
//! how far under the water surface it lies, read from the terrain's water densities: fully
//! counted half a sample spacing below the surface, not at all half a spacing above, linearly
//! between, so the submerged volume changes smoothly as the body bobs (no steps as sample rows
//! cross the surface, which would keep it bobbing). Buoyancy, water density × submerged volume
//! × −gravity, acts at the submerged samples' centroid; drag is added to the body's damping for
//! this step, so the solver applies it implicitly and even a very light body cannot overshoot.

use super::World;
use crate::body::{Body, BodyType};
use crate::math::Vec3;
use crate::terrain::{Terrain, WaterBlock};

/// Samples per axis of a body's volume.
const SAMPLES: usize = 5;

/// A body's contact with water in the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct WaterContact {
    /// Submerged volume, m³.
    pub submerged_volume: f32,
    /// Submerged share of the body's volume, 0..=1.
    pub submerged_fraction: f32,
    /// Buoyancy force, N (world).
    pub buoyancy: Vec3,
    /// Where buoyancy acts: the centroid of the submerged volume (world).
    pub center_of_buoyancy: Vec3,
    /// Linear damping added by the water this step, 1/s.
    pub linear_damping: f32,
    /// Angular damping added by the water this step, 1/s.
    pub angular_damping: f32,
}

/// A body entered or left the water during the last step: its water contact began or ended.
/// Water contacts are per body, not entries of the contact store: water links no two bodies
/// (it is not an island edge) and adds no solver rows (buoyancy is a force, drag a damping), so
/// it has events of its own instead of touch events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WaterEvent {
    /// The body.
    pub body: crate::BodyId,
    /// True when it entered the water, false when it left.
    pub entered: bool,
}

/// The water contact of body `b` at its current pose (`None` when nothing is submerged).
fn water_contact(
    b: &Body,
    terrain: &Terrain,
    block: &mut WaterBlock,
    gravity: Vec3,
    settings: &super::StepSettings,
) -> Option<WaterContact> {
    if !terrain.water_block(&b.tight, block) {
        return None;
    }
    let local = b.shape.local_aabb();
    let step = (local.max - local.min) / SAMPLES as f32;
    // The smoothing span: one sample row, at most one voxel (beyond half a voxel the depth
    // read from the densities saturates).
    let span = (step.x.max(step.y).max(step.z)).min(terrain.voxel_size());
    let (mut count, mut submerged, mut moment) = (0u32, 0.0f32, Vec3::ZERO);
    for i in 0..SAMPLES * SAMPLES * SAMPLES {
        let cell =
            Vec3::new((i % SAMPLES) as f32, (i / SAMPLES % SAMPLES) as f32, (i / (SAMPLES * SAMPLES)) as f32);
        let p = local.min + (cell + 0.5) * step;
        if !b.shape.contains_local_point(p) {
            continue;
        }
        count += 1;
        let world = b.transform.transform_point(p);
        let share = (0.5 + block.depth(world) / span).clamp(0.0, 1.0);
        submerged += share;
        moment += world * share;
    }
    if count == 0 || submerged == 0.0 {
        return None;
    }
    let volume = b.mass / b.material.density;
    let fraction = submerged / count as f32;
    let submerged_volume = volume * fraction;
    let buoyancy = -gravity * settings.water_density * submerged_volume;
    Some(WaterContact {
        submerged_volume,
        submerged_fraction: fraction,
        buoyancy,
        center_of_buoyancy: moment / submerged,
        linear_damping: settings.water_linear_drag * settings.water_density * submerged_volume / b.mass,
        angular_damping: settings.water_angular_drag * fraction,
    })
}

impl World {
    /// The body's contact with water in the last step it was simulated (`None` when dry; a body
    /// asleep when the water was made inert keeps its last one until it wakes).
    pub fn water_contact(&self, id: crate::BodyId) -> Result<Option<WaterContact>, crate::AtollError> {
        self.bodies.get(id)?;
        Ok(self.body_terrain[id.index() as usize].water)
    }

    /// Bodies that entered or left the water during the last step, in body slot order.
    pub fn water_events(&self) -> &[WaterEvent] {
        &self.water_events
    }

    /// [`crate::Stage::Water`]: buoyancy and drag for awake dynamic bodies whose boxes reach water bits (found
    /// with their terrain pairs). Adds to the forces the solver integrates this step.
    pub(super) fn apply_water(&mut self) {
        let s = &self.settings;
        // Water without density or drag acts on nothing: skip the sampling.
        let inert = s.water_density == 0.0 && s.water_linear_drag == 0.0 && s.water_angular_drag == 0.0;
        if self.terrain.chunk_count() == 0 || inert {
            // Forget the awake bodies' last water contacts, once (a world without water never
            // walks its bodies here).
            if self.scratch.wet {
                for i in self.awake_bodies.iter() {
                    if self.body_terrain[i].water.take().is_some() {
                        let body = self.bodies.id_at(i as u32);
                        self.water_events.push(WaterEvent { body, entered: false });
                    }
                }
                self.scratch.wet = false;
            }
            return;
        }
        let (gravity, settings) = (self.settings.gravity, self.settings);
        let mut block = std::mem::take(&mut self.scratch.water_block);
        for i in self.awake_bodies.iter() {
            let b = &self.bodies.bodies[i];
            let state = self.body_terrain[i];
            if b.body_type != BodyType::Dynamic || (!state.in_water && state.water.is_none()) {
                continue;
            }
            let contact = if state.in_water {
                water_contact(b, &self.terrain, &mut block, gravity, &settings)
            } else {
                None
            };
            let b = &mut self.bodies.bodies[i];
            if let Some(w) = &contact {
                b.force += w.buoyancy;
                b.torque += (w.center_of_buoyancy - b.center()).cross(w.buoyancy);
            }
            self.scratch.wet |= contact.is_some();
            if contact.is_some() != state.water.is_some() {
                let body = self.bodies.id_at(i as u32);
                self.water_events.push(WaterEvent { body, entered: contact.is_some() });
            }
            self.body_terrain[i].water = contact;
        }
        self.scratch.water_block = block;
    }
}
