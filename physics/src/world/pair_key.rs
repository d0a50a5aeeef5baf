//! [`PairKey`]: what names a contact pair across steps. A [`ContactId`] lives as long as one
//! pair's contact does (the shapes part, the contact is destroyed, and a new one gets a new
//! id when they meet again); a debugger following a pair over a timeline, or into a world put
//! back at an earlier step, asks by its shapes instead (`World::contact_of_pair`).

use super::{ContactView, World};
use crate::body::BodyId;
use crate::narrowphase::ContactId;
use crate::shape_id::ShapeId;
use crate::terrain::ChunkCoord;

/// A contact pair by what it is between: two shapes, or a shape and a terrain chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct PairKey {
    /// The first shape (the contact's body A's).
    pub a: ShapeId,
    /// The second shape, or [`BodyId::TERRAIN`]'s part 0 for a terrain contact.
    pub b: ShapeId,
    /// The terrain chunk of a terrain contact.
    pub chunk: Option<ChunkCoord>,
}

impl ContactView {
    /// The pair this contact is between.
    pub fn pair_key(&self) -> PairKey {
        PairKey {
            a: ShapeId::new(self.body_a, self.part_a),
            b: ShapeId::new(self.body_b, self.part_b),
            chunk: self.chunk,
        }
    }
}

impl World {
    /// The contact between the shapes of `key` now, if they have one (either order of the two
    /// shapes; a shape whose body is gone has none).
    pub fn contact_of_pair(&self, key: &PairKey) -> Option<ContactId> {
        let shape_key = |s: ShapeId| {
            self.bodies.get(s.body).ok()?;
            self.bodies.key_of(s.body.index(), s.part)
        };
        let slot = match key.chunk {
            Some(chunk) if key.b.body == BodyId::TERRAIN => {
                self.contacts.find_terrain(shape_key(key.a)?, chunk)
            }
            Some(_) => None,
            None => {
                let (a, b) = (shape_key(key.a)?, shape_key(key.b)?);
                self.contacts.find(a.min(b), a.max(b))
            }
        }?;
        Some(self.contacts.id_at(slot))
    }
}
