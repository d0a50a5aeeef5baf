//! Watching contacts and an island through the solver's substeps
//! ([`World::set_traced_contacts`], [`World::contact_traces`], [`World::set_traced_island`],
//! [`World::island_trace`]); the trace itself is taken by the solve
//! (`solver/contact_trace.rs`).

use super::World;
use crate::error::AtollError;
use crate::graph;
use crate::island::id::IslandId;
use crate::narrowphase::ContactId;
use crate::solver::{ContactTrace, IslandTrace};

/// Most contacts watched at once: a debugger shows a few, and each costs a search of the
/// batches per step.
pub const MAX_TRACED_CONTACTS: usize = 16;

impl World {
    /// Watches contacts `ids`: from the next step on, [`World::contact_traces`] gives each
    /// one's accumulated impulses after every pass of every substep. An empty list stops
    /// watching (a step then spends nothing on it). A stale id, or more than
    /// [`MAX_TRACED_CONTACTS`], is refused and nothing changes. Watching changes no result:
    /// the solve runs on one thread meanwhile, which gives the same bits.
    pub fn set_traced_contacts(&mut self, ids: &[ContactId]) -> Result<(), AtollError> {
        if ids.len() > MAX_TRACED_CONTACTS {
            return Err(AtollError::invalid(
                "traced contacts",
                format!("at most {MAX_TRACED_CONTACTS} at once, got {}", ids.len()),
            ));
        }
        for &id in ids {
            self.contact(id)?;
        }
        self.contact_tracer.watched = ids.to_vec();
        self.contact_tracer.traces.clear();
        Ok(())
    }

    /// The contacts watched (those destroyed since are dropped at the next step).
    pub fn traced_contacts(&self) -> &[ContactId] {
        &self.contact_tracer.watched
    }

    /// The watched contacts' traces of the last step, in the order they were given; a contact
    /// that did not touch has no samples.
    pub fn contact_traces(&self) -> &[ContactTrace] {
        &self.contact_tracer.traces
    }

    /// Watches island `island` (`None`: none): from the next step on, [`World::island_trace`]
    /// gives its velocity error after every pass of every substep. A stale id is refused.
    /// Watching changes no result (the solve runs on one thread meanwhile, as for contacts).
    /// The watch ends when the island does (merged into another, or split off).
    pub fn set_traced_island(&mut self, island: Option<IslandId>) -> Result<(), AtollError> {
        if let Some(id) = island {
            self.island(id)?;
        }
        self.contact_tracer.island = island;
        self.contact_tracer.island_trace = None;
        Ok(())
    }

    /// The island watched.
    pub fn traced_island(&self) -> Option<IslandId> {
        self.contact_tracer.island
    }

    /// The watched island's trace of the last step, when it was solved.
    pub fn island_trace(&self) -> Option<&IslandTrace> {
        self.contact_tracer.island_trace.as_ref()
    }

    /// Before a solve: the watched island's contacts, or the watch ended when the island did.
    pub(super) fn prepare_island_trace(&mut self) {
        let Some(id) = self.contact_tracer.island else { return };
        let Ok(bodies) = self.island_bodies(id) else {
            self.contact_tracer.island = None;
            self.contact_tracer.island_trace = None;
            return;
        };
        let mut slots = std::mem::take(&mut self.contact_tracer.island_slots);
        slots.clear();
        for body in bodies {
            graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, body.index(), |c, _| {
                slots.push(c)
            });
        }
        slots.sort_unstable();
        slots.dedup();
        self.contact_tracer.island_slots = slots;
    }
}
