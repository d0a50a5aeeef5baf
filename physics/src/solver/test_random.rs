//! A small deterministic generator for the solver's tests, which feed the wide lanes and the
//! scalar rows the same random bodies, poses and impulses.

use crate::math::{Mat3, Quat, Vec3};

/// A linear congruential generator: the same numbers on every run and platform.
pub(crate) struct TestRandom(pub u32);

impl TestRandom {
    /// A number in [-1, 1).
    pub fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(1664525).wrapping_add(1013904223);
        (self.0 >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
    }

    /// A vector with each component in [-scale, scale).
    pub fn vec(&mut self, scale: f32) -> Vec3 {
        Vec3::new(self.unit(), self.unit(), self.unit()) * scale
    }

    /// A rotation of up to about 3.5 radians about a random axis.
    pub fn rotation(&mut self) -> Quat {
        Quat::from_scaled_axis(self.vec(2.0))
    }

    /// A symmetric positive definite matrix, as an inertia (or its inverse) in world axes.
    pub fn inertia(&mut self) -> Mat3 {
        let q = Mat3::from_quat(self.rotation());
        let d = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 3.0) + self.vec(0.5));
        q * d * q.transpose()
    }
}
