//! [`ShapeCast`]: a shape moved along a straight path, checked once; [`ShapeCastHit`]: where it
//! first touches a body or the terrain (`World::cast_shape`).

use super::PlacedShape;
use crate::body::BodyId;
use crate::error::{AtollError, check_vec3};
use crate::math::{Transform, Vec3};
use crate::terrain::ChunkCoord;

/// How close a cast shape comes to what it hits: the cast stops when the gap is at most this
/// (metres), so the hit pose touches without overlapping. A tenth of a millimetre is well above
/// the rounding of positions within a few kilometres of the origin (an `f32` step there is
/// under a millimetre's hundredth at 100 m) and well below anything a user can see.
pub const CAST_TOLERANCE: f32 = 1e-4;

/// A [`PlacedShape`] moved by `translation` without turning: the pose at fraction `f` is the
/// start moved by `f * translation`, `0 <= f <= 1`. The translation must be finite and not
/// zero (a cast that goes nowhere is an overlap query), and its length must be finite too.
#[derive(Clone, Debug, PartialEq)]
pub struct ShapeCast {
    start: PlacedShape,
    translation: Vec3,
}

impl ShapeCast {
    /// The cast of `start` along `translation`, or an error naming the bad argument.
    pub fn new(start: PlacedShape, translation: Vec3) -> Result<ShapeCast, AtollError> {
        check_vec3("cast translation", translation)?;
        if translation.length_squared() == 0.0 {
            return Err(AtollError::invalid("cast translation", "must not be zero"));
        }
        if !translation.length().is_finite() {
            return Err(AtollError::invalid(
                "cast translation",
                format!("{translation} is too long to measure"),
            ));
        }
        Ok(ShapeCast { start, translation })
    }

    /// The shape where the cast starts.
    pub fn start(&self) -> &PlacedShape {
        &self.start
    }

    /// How far it moves.
    pub fn translation(&self) -> Vec3 {
        self.translation
    }

    /// The shape's pose at `fraction` of the way.
    pub fn pose_at(&self, fraction: f32) -> Transform {
        let start = self.start.pose();
        Transform::new(start.position + self.translation * fraction, start.rotation)
    }
}

/// Where a cast shape first touches a body or the terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ShapeCastHit {
    /// The body hit, or [`BodyId::TERRAIN`].
    pub body: BodyId,
    /// The chunk whose triangles were hit, when the terrain was.
    pub chunk: Option<ChunkCoord>,
    /// How far along the cast the shape first touches, in `[0, 1]`: 0 when it starts touching
    /// or overlapping. At this fraction the gap is at most [`CAST_TOLERANCE`].
    pub fraction: f32,
    /// The touching point on the surface of what was hit, world space.
    pub point: Vec3,
    /// The unit normal of what was hit at that point, pointing out of it toward the shape.
    pub normal: Vec3,
}
