//! [`Material`]: a body's (or a child shape's) density, friction and restitution.

use crate::error::{AtollError, check_non_negative, check_positive};

/// Surface and bulk material of a body.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Material {
    /// kg/m³; sets the mass of dynamic bodies.
    pub density: f32,
    /// Coulomb friction coefficient; pairs combine by the geometric mean.
    pub friction: f32,
    /// Bounciness, 0..=1; pairs take the larger.
    pub restitution: f32,
}

impl Default for Material {
    fn default() -> Self {
        Self { density: 1000.0, friction: 0.6, restitution: 0.0 }
    }
}

impl Material {
    /// Checks that every field is finite and in range.
    pub fn validate(&self) -> Result<(), AtollError> {
        check_positive("density", self.density)?;
        check_non_negative("friction", self.friction)?;
        check_non_negative("restitution", self.restitution)?;
        if self.restitution > 1.0 {
            return Err(AtollError::invalid(
                "restitution",
                format!("must be <= 1, got {}", self.restitution),
            ));
        }
        Ok(())
    }
}
