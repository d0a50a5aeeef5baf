//! Ray casts against shapes in local space.

use crate::math::Vec3;

/// Where a ray first hits a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Distance along the ray direction (in units of the direction's length).
    pub t: f32,
    /// Outward surface normal at the hit point (local space).
    pub normal: Vec3,
}
