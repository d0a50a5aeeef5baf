//! Touch events: a contact began or stopped touching. The narrowphase's blocks make them for
//! the contacts they flag, in contact order; destroying a body or a terrain chunk makes the
//! end events of its touching contacts.

use crate::body::{BodyId, BodyStore};
use crate::narrowphase::{Contact, TERRAIN};
use crate::terrain::ChunkCoord;

/// Two bodies began or stopped touching during the last step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TouchEvent {
    /// First body.
    pub body_a: BodyId,
    /// Second body, or [`BodyId::TERRAIN`].
    pub body_b: BodyId,
    /// The terrain chunk when the second side is the terrain.
    pub chunk: Option<ChunkCoord>,
    /// True when they began touching, false when they stopped.
    pub began: bool,
}

/// The event for contact `c` (of terrain chunk `chunk`, if any) beginning or ending.
pub(crate) fn touch_event(
    bodies: &BodyStore,
    c: &Contact,
    chunk: Option<ChunkCoord>,
    began: bool,
) -> TouchEvent {
    TouchEvent { body_a: bodies.id_at(c.body_a), body_b: other_id(bodies, c), chunk, began }
}

/// The id of contact `c`'s second side: a body, or [`BodyId::TERRAIN`].
pub(crate) fn other_id(bodies: &BodyStore, c: &Contact) -> BodyId {
    if c.body_b == TERRAIN { BodyId::TERRAIN } else { bodies.id_at(c.body_b) }
}
