//! [`ClosestPoint`]: the answer of `World::closest_point`, the nearest point of the bodies and
//! the terrain to a point.

use crate::body::BodyId;
use crate::math::Vec3;
use crate::terrain::ChunkCoord;

/// The point of a body's or the terrain's surface nearest to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClosestPoint {
    /// The body, or [`BodyId::TERRAIN`].
    pub body: BodyId,
    /// The chunk whose triangle holds the point, when the terrain was nearest.
    pub chunk: Option<ChunkCoord>,
    /// The nearest point, world space; the query point itself when it lies inside.
    pub point: Vec3,
    /// How far it is from the query point: 0 inside.
    pub distance: f32,
}
