//! The contacts the narrowphase flags: those that separated (to be destroyed), and those that
//! began or stopped touching (for the islands), with the touch events all of them raise.
//!
//! Each block of the narrowphase notes its own as it updates them, in lists of its own, while
//! the contact and its bodies are still in that member's cache; the step then takes the lists in
//! block order, which is contact order on any number of threads. Only destroying the separated
//! ones, which rewrites the bodies' lists, the islands and the pair lookup, is left to one
//! thread. (Finding the flagged contacts in a pass of its own after the narrowphase, and making
//! their events there, was a tenth of a tumbling pile's narrowphase on two threads: 0.24 of
//! 2.5 million cycles a step, on one thread while the other waited.)

use super::touch_events::touch_event;
use crate::body::BodyStore;
use crate::narrowphase::{Contact, TerrainLink};
use crate::world::TouchEvent;

/// One block's flagged contacts, each list in contact order, and their touch events.
#[derive(Clone, Debug, Default)]
pub(crate) struct FlaggedBlock {
    /// Contacts whose bounds no longer overlap: destroyed after the narrowphase.
    pub separated: Vec<u32>,
    /// Contacts that began touching this step.
    pub began: Vec<u32>,
    /// Contacts that stopped touching this step (and did not separate).
    pub ended: Vec<u32>,
    /// The touch events of the flagged contacts, in contact order: a separated contact that
    /// was touching ends its touch.
    pub events: Vec<TouchEvent>,
}

impl FlaggedBlock {
    /// Empties the lists for a new step.
    pub fn clear(&mut self) {
        self.separated.clear();
        self.began.clear();
        self.ended.clear();
        self.events.clear();
    }

    /// Bytes the lists hold (their lengths, not capacities).
    pub fn bytes(&self) -> usize {
        (self.separated.len() + self.began.len() + self.ended.len()) * 4
            + self.events.len() * std::mem::size_of::<TouchEvent>()
    }

    /// Notes contact `id`, just updated, when it separated, began or ended touching (in that
    /// order of precedence), with its touch event. `links` are the contacts' terrain links,
    /// looked up only for a terrain contact's touch event (a body pair's entry is never read:
    /// that read was a cache miss for every separated pair of a tumbling pile).
    #[inline]
    pub fn note(&mut self, id: usize, c: &Contact, links: &[Option<TerrainLink>], bodies: &BodyStore) {
        let (list, event) = if c.separated {
            // Separating skips the update, so `touching` is still last step's.
            (&mut self.separated, c.touching.then_some(false))
        } else if c.began {
            (&mut self.began, Some(true))
        } else if c.ended {
            (&mut self.ended, Some(false))
        } else {
            return;
        };
        list.push(id as u32);
        if let Some(began) = event {
            self.events.push(touch_event(bodies, c, c.terrain_chunk(|| links[id].as_ref()), began));
        }
    }
}
