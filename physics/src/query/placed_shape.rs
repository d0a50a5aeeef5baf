//! [`PlacedShape`]: a shape at a pose in the world, checked once, the argument of the shape
//! queries (`World::overlap_shape`, and the start of a [`super::ShapeCast`]).

use crate::error::{AtollError, check_vec3, validate_rotation};
use crate::math::{Aabb, Transform};
use crate::shape::{Shape, validate_shape};

/// A checked shape placed in the world: its sizes finite and positive (a hand-built
/// `Shape::Sphere { radius: -1.0 }` is refused), its position finite, its rotation finite and
/// of unit length within 10⁻³ (then normalised). Queries take their shapes only through
/// [`PlacedShape::new`], as ray queries take theirs through `Ray::new`.
#[derive(Clone, Debug, PartialEq)]
pub struct PlacedShape {
    shape: Shape,
    pose: Transform,
}

impl PlacedShape {
    /// `shape` placed at `pose`, or an error naming the bad argument.
    pub fn new(shape: Shape, pose: Transform) -> Result<PlacedShape, AtollError> {
        validate_shape(&shape)?;
        check_vec3("shape position", pose.position)?;
        validate_rotation(pose.rotation)?;
        let pose = Transform::new(pose.position, pose.rotation.normalize());
        Ok(PlacedShape { shape, pose })
    }

    /// The shape, in its own frame.
    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// Where it is placed.
    pub fn pose(&self) -> &Transform {
        &self.pose
    }

    /// The box around it, world space.
    pub fn aabb(&self) -> Aabb {
        self.shape.world_aabb(&self.pose)
    }
}
