//! Collision filters at run time: a body's filter changed between steps takes effect at the
//! start of the next step, which drops the contacts it no longer allows (with their end-touch
//! events, in contact order) and lets the broadphase look at the body's pairs again. The pair
//! finding (`world/step/pairs.rs`) and the terrain's (`world/terrain.rs`) make no pair the
//! filters refuse.

use super::World;
use super::terrain::{BodyTerrain, TERRAIN_FILTER};
use crate::body::BodyId;
use crate::error::AtollError;
use crate::filter::CollisionFilter;
use crate::graph;
use crate::narrowphase::TERRAIN;
use crate::recording::input::Input;

impl World {
    /// A body's collision filter.
    pub fn filter(&self, id: BodyId) -> Result<CollisionFilter, AtollError> {
        self.bodies.get(id)?;
        Ok(*self.bodies.filter(id.index()))
    }

    /// Sets a body's collision filter. It takes effect in the next step: its contacts with
    /// bodies (and the terrain) the filter no longer allows are dropped there, with end-touch
    /// events for those touching, and pairs it now allows are found. The body wakes. Every
    /// filter is valid; an edit of what the world is made of (like a material).
    pub fn set_filter(&mut self, id: BodyId, filter: CollisionFilter) -> Result<(), AtollError> {
        self.bodies.get(id)?;
        if *self.bodies.filter(id.index()) == filter {
            return Ok(());
        }
        self.edit_body(id, false)?;
        self.note_edit(true);
        self.bodies.set_filter(id.index(), filter);
        self.refiltered.push(id.index());
        self.log_input(|| Input::SetFilter { body: id, filter });
        Ok(())
    }

    /// Applies the filters changed since the last step: drops the contacts of the changed
    /// bodies their filters refuse (in contact order, so the events' order depends on nothing
    /// else) and has the broadphase and the terrain pairing look at those bodies again.
    pub(super) fn apply_filter_changes(&mut self) {
        if self.refiltered.is_empty() {
            return;
        }
        let mut changed = std::mem::take(&mut self.refiltered);
        changed.sort_unstable();
        changed.dedup();
        let mut refused = Vec::new();
        for &slot in &changed {
            let body = &self.bodies.bodies[slot as usize];
            if !body.alive {
                continue;
            }
            let (store, filter) = (&self.bodies, self.bodies.filter(slot));
            graph::for_each_contact(&store.bodies, &self.contacts.contacts, slot, |contact, other| {
                let other_filter = if other == TERRAIN { &TERRAIN_FILTER } else { store.filter(other) };
                if !filter.allows(other_filter) {
                    refused.push(contact);
                }
            });
            self.broadphase.touch_proxy(body.proxy);
            // The terrain's pairs are looked for again whatever the box.
            if let Some(terrain) = self.body_terrain.get_mut(slot as usize) {
                terrain.fat = BodyTerrain::default().fat;
            }
        }
        refused.sort_unstable();
        refused.dedup();
        for contact in refused {
            self.destroy_contact(contact);
        }
        changed.clear();
        self.refiltered = changed;
    }
}
