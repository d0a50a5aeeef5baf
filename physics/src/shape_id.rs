//! [`ShapeId`]: one shape of a body as the API names it, the body's own or one of a compound
//! body's children (`BodyDesc::children`). Inside the step a shape is named by its shape key
//! (`crate::shape_key`), which is a slot and changes meaning as slots are reused; a `ShapeId`
//! carries the body's generational id, so a kept one is refused once its body is gone.

use crate::body::BodyId;

/// One shape of a body: part 0 is the body's own shape, part `k` its child `k - 1` (the order
/// of [`crate::BodyDesc::children`]), as [`crate::World::body_shapes`] lists them.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ShapeId {
    /// The body the shape belongs to.
    pub body: BodyId,
    /// Which of its shapes: 0 its own, `k` its child `k - 1`.
    pub part: u32,
}

impl ShapeId {
    /// Part `part` of body `body`.
    pub const fn new(body: BodyId, part: u32) -> ShapeId {
        ShapeId { body, part }
    }

    /// The order the world reports shapes in: by body slot, then by part.
    pub(crate) fn order(&self) -> (u32, u32) {
        (self.body.index(), self.part)
    }
}

/// A body's own shape (part 0).
impl From<BodyId> for ShapeId {
    fn from(body: BodyId) -> ShapeId {
        ShapeId { body, part: 0 }
    }
}
