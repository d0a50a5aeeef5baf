//! [`Stage::Water`]: buoyancy and drag for the awake dynamic bodies whose boxes reach water
//! (the model is described in `world/water.rs`, beside its types).

use crate::body::{Body, BodyType};
use crate::math::Vec3;
#[cfg(doc)]
use crate::profile::Stage;
use crate::terrain::{Terrain, WaterBlock};
use crate::world::{StepSettings, WaterContact, WaterEvent, World};

/// The water stage's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct WaterScratch {
    /// The water densities around the body being sampled.
    pub(crate) block: WaterBlock,
    /// Some awake body got a water contact since the water last went inert.
    pub(crate) wet: bool,
}

/// Samples per axis of a body's volume.
const SAMPLES: usize = 5;

/// The water contact of body `b` at its current pose (`None` when nothing is submerged).
fn water_contact(
    b: &Body,
    terrain: &Terrain,
    block: &mut WaterBlock,
    gravity: Vec3,
    settings: &StepSettings,
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
    pub(super) fn apply_water(&mut self) {
        let s = &self.settings;
        // Water without density or drag acts on nothing: skip the sampling.
        let inert = s.water_density == 0.0 && s.water_linear_drag == 0.0 && s.water_angular_drag == 0.0;
        if self.terrain.chunk_count() == 0 || inert {
            // Forget the awake bodies' last water contacts, once (a world without water never
            // walks its bodies here).
            if self.scratch.water.wet {
                for i in self.awake_bodies.iter() {
                    if self.body_terrain[i].water.take().is_some() {
                        let body = self.bodies.id_at(i as u32);
                        self.water_events.push(WaterEvent { body, entered: false });
                    }
                }
                self.scratch.water.wet = false;
            }
            return;
        }
        let (gravity, settings) = (self.settings.gravity, self.settings);
        let mut block = std::mem::take(&mut self.scratch.water.block);
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
            self.scratch.water.wet |= contact.is_some();
            if contact.is_some() != state.water.is_some() {
                let body = self.bodies.id_at(i as u32);
                self.water_events.push(WaterEvent { body, entered: contact.is_some() });
            }
            self.body_terrain[i].water = contact;
        }
        self.scratch.water.block = block;
    }
}
