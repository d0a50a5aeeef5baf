//! [`Stage::Water`]: buoyancy and drag for the awake dynamic bodies whose boxes reach water
//! (the model is described in `world/water.rs`, beside its types).

use crate::body::{Body, BodyType};
use crate::math::{Aabb, Transform, Vec3};
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape::Shape;
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

/// How much of one shape (at `pose`, world box `tight`) is under water: the share of its
/// sampled volume and the centre of that part, or `None` when none of it is.
fn submersion(
    shape: &Shape,
    pose: &Transform,
    tight: &Aabb,
    terrain: &Terrain,
    block: &mut WaterBlock,
) -> Option<(f32, Vec3)> {
    if !terrain.water_block(tight, block) {
        return None;
    }
    let local = shape.local_aabb();
    let step = (local.max - local.min) / SAMPLES as f32;
    // The smoothing span: one sample row, at most one voxel (beyond half a voxel the depth
    // read from the densities saturates).
    let span = (step.x.max(step.y).max(step.z)).min(terrain.voxel_size());
    let (mut count, mut submerged, mut moment) = (0u32, 0.0f32, Vec3::ZERO);
    for i in 0..SAMPLES * SAMPLES * SAMPLES {
        let cell =
            Vec3::new((i % SAMPLES) as f32, (i / SAMPLES % SAMPLES) as f32, (i / (SAMPLES * SAMPLES)) as f32);
        let p = local.min + (cell + 0.5) * step;
        if !shape.contains_local_point(p) {
            continue;
        }
        count += 1;
        let world = pose.transform_point(p);
        let share = (0.5 + block.depth(world) / span).clamp(0.0, 1.0);
        submerged += share;
        moment += world * share;
    }
    if count == 0 || submerged == 0.0 {
        return None;
    }
    Some((submerged / count as f32, moment / submerged))
}

/// The water contact of body `b` at its current pose (`None` when nothing is submerged). A
/// compound body's shapes (`children`, with their volumes; `own_volume` its own shape's) each
/// add their submerged volume at their own centre of buoyancy. A sensor part displaces no
/// water (volume 0), as it weighs nothing.
fn water_contact(
    b: &Body,
    own_volume: f32,
    children: &[(&Shape, &Transform, &Aabb, f32)],
    terrain: &Terrain,
    block: &mut WaterBlock,
    gravity: Vec3,
    settings: &StepSettings,
) -> Option<WaterContact> {
    let (submerged_volume, fraction, center) = if children.is_empty() {
        let (fraction, center) = submersion(&b.shape, &b.transform, &b.tight, terrain, block)?;
        let volume = b.mass / b.material.density;
        (volume * fraction, fraction, center)
    } else {
        let own = (&b.shape, &b.transform, &b.tight, own_volume);
        let (mut total, mut submerged, mut moment) = (0.0f32, 0.0f32, Vec3::ZERO);
        for &(shape, pose, tight, volume) in std::iter::once(&own).chain(children) {
            if volume == 0.0 {
                continue;
            }
            total += volume;
            if let Some((fraction, center)) = submersion(shape, pose, tight, terrain, block) {
                submerged += volume * fraction;
                moment += center * (volume * fraction);
            }
        }
        if submerged == 0.0 {
            return None;
        }
        (submerged, submerged / total, moment / submerged)
    };
    let buoyancy = -gravity * settings.water_density * submerged_volume;
    Some(WaterContact {
        submerged_volume,
        submerged_fraction: fraction,
        buoyancy,
        center_of_buoyancy: center,
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
                let store = &self.bodies.children;
                let volume =
                    |shape: &Shape, sensor: bool| if sensor { 0.0 } else { shape.mass_properties(1.0).mass };
                let children: Vec<_> = (store.of(i as u32).iter().map(|&c| &store.children[c as usize]))
                    .map(|c| (&c.shape, &c.transform, &c.tight, volume(&c.shape, c.sensor.is_some())))
                    .collect();
                let own_volume = volume(&b.shape, self.bodies.sensor(i as u32).is_some());
                water_contact(b, own_volume, &children, &self.terrain, &mut block, gravity, &settings)
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
