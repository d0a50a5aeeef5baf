//! Watching contacts through the solver's substeps ([`World::set_traced_contacts`],
//! [`World::contact_traces`]); the trace itself is taken by the solve
//! (`solver/contact_trace.rs`).

use super::World;
use crate::error::AtollError;
use crate::narrowphase::ContactId;
use crate::solver::ContactTrace;

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
}
