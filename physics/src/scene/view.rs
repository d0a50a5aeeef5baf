//! Where a scene is first looked at from: an orbit viewpoint (the point looked at, the angles
//! about it and the distance), so that a built-in scene opens on a good view of what it shows
//! and a saved scene opens where it was left.

use crate::error::{AtollError, check_finite, check_vec3};
use crate::math::Vec3;
use serde::{Deserialize, Serialize};

/// An orbit viewpoint.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneView {
    /// The point looked at.
    pub target: Vec3,
    /// Turn about the vertical, radians: at 0 the eye is on the +Z side of the target, looking
    /// along −Z; a positive yaw swings it towards +X.
    pub yaw: f32,
    /// The eye's elevation above the target, radians, within ±π/2 (positive looks down).
    pub pitch: f32,
    /// Distance from the target, metres (> 0).
    pub distance: f32,
}

impl SceneView {
    /// Checks the viewpoint: finite, a positive distance, a pitch within ±π/2.
    pub fn validate(&self) -> Result<(), AtollError> {
        check_vec3("view target", self.target)?;
        check_finite("view yaw", self.yaw)?;
        check_finite("view pitch", self.pitch)?;
        check_finite("view distance", self.distance)?;
        if self.distance <= 0.0 {
            return Err(AtollError::invalid("view distance", format!("{} must be above 0", self.distance)));
        }
        if self.pitch.abs() > std::f32::consts::FRAC_PI_2 {
            return Err(AtollError::invalid("view pitch", format!("{} must lie within ±π/2", self.pitch)));
        }
        Ok(())
    }
}
