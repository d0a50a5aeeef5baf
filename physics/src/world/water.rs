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
use crate::math::Vec3;

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
}
