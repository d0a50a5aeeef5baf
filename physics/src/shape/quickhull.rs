//! Quickhull: the convex hull of a point cloud.

use super::ConvexHull;
use crate::error::AtollError;
use crate::math::Vec3;

impl ConvexHull {
    /// The convex hull of `points`, at most [`super::MAX_HULL_VERTICES`] vertices.
    pub fn from_points(points: &[Vec3]) -> Result<ConvexHull, AtollError> {
        let _ = points;
        Err(AtollError::invalid("convex hull", "quickhull is being written"))
    }
}
