//! [`Stage::Islands`]: the narrowphase's begin and end bits walked in contact order, linking,
//! waking and unlinking islands (`island/` keeps the islands themselves).

use crate::body::BodyType;
use crate::narrowphase::TERRAIN;
#[cfg(doc)]
use crate::profile::Stage;
use crate::world::{WakeCause, World};

impl World {
    /// [`Stage::Islands`]: walk the begin/end bits in contact order. A begin between two dynamic bodies
    /// links (and so merges and wakes) their islands; a begin with a kinematic body wakes the
    /// dynamic one's island; an end unlinks the edge.
    pub(super) fn update_islands(&mut self) {
        let mut next = self.began_bits.next_from(0);
        while let Some(id) = next {
            let c = &self.contacts.contacts[id];
            let (a, b) = (c.body_a, c.body_b);
            // The terrain is static: touching it links and wakes nothing.
            if b == TERRAIN {
                next = self.began_bits.next_from(id + 1);
                continue;
            }
            let (ta, tb) =
                (self.bodies.bodies[a as usize].body_type, self.bodies.bodies[b as usize].body_type);
            let (ida, idb) = (self.cause_body(a), self.cause_body(b));
            if ta == BodyType::Dynamic && tb == BodyType::Dynamic {
                self.wake(a, WakeCause::Contact { body: ida, other: idb });
                self.wake(b, WakeCause::Contact { body: idb, other: ida });
                self.islands.link(&mut crate::world::body_graph!(self), id as u32);
            } else if ta == BodyType::Kinematic || tb == BodyType::Kinematic {
                self.wake(a, WakeCause::Kinematic { body: ida, kinematic: idb });
                self.wake(b, WakeCause::Kinematic { body: idb, kinematic: ida });
            }
            next = self.began_bits.next_from(id + 1);
        }
        for id in self.ended_bits.iter() {
            self.islands.unlink(&mut self.contacts.contacts, id as u32);
        }
        self.began_bits.clear_all();
        self.ended_bits.clear_all();
    }
}
