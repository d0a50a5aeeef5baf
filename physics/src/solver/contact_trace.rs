//! The contact trace: for the contacts a user asked to watch
//! ([`crate::World::set_traced_contacts`]), the accumulated impulses after each pass of each
//! substep, the solver's own numbers read from its lanes. A debugger shows how a contact's
//! push builds up over a step; a test holds it against theory (a resting box's contact carries
//! its weight).
//!
//! It costs nothing while no contact is watched: the step tests one option per pass. While
//! some are, the solve runs on the caller's thread alone (a team's members would still be in
//! the next stage while the trace reads the lanes), which changes no result: the substeps give
//! the same bits on any number of threads.

use super::contact::{SharedContacts, TracedLane};
use crate::narrowphase::{ContactId, MAX_MANIFOLD_POINTS};

/// Which pass of a substep a sample follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TracePass {
    /// The solve, with soft position feedback.
    Solve,
    /// The relax, without it: the velocities made consistent.
    Relax,
}

/// A watched contact's accumulated impulses after one pass of one substep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSubstep {
    /// The substep, from 0.
    pub substep: u32,
    /// The pass it followed.
    pub pass: TracePass,
    /// Manifold points solved.
    pub points: u8,
    /// Each point's normal impulse so far in the substep, N·s (0 past `points`).
    pub normal: [f32; MAX_MANIFOLD_POINTS],
    /// The friction impulse along the manifold's two tangents, N·s.
    pub friction: [f32; 2],
    /// The twist impulse about the normal, N·m·s.
    pub twist: f32,
}

impl ContactSubstep {
    /// The points' normal impulses summed, N·s.
    pub fn total_normal(&self) -> f32 {
        self.normal[..self.points as usize].iter().sum()
    }
}

/// One watched contact through the last step: a sample per pass of each substep, in order.
/// Empty when the contact did not touch (it was not solved).
#[derive(Clone, Debug, PartialEq)]
pub struct ContactTrace {
    /// The contact.
    pub contact: ContactId,
    /// The samples, substep by substep, the solve's before the relax's.
    pub substeps: Vec<ContactSubstep>,
}

/// The trace being taken during a step: the watched contacts (ids and slots), where they sit,
/// and what was read so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactTracer {
    /// The watched contacts.
    pub watched: Vec<ContactId>,
    /// Where those that touch sit, found at the first sample of a step.
    lanes: Option<Vec<TracedLane>>,
    /// The last step's traces, one per watched contact.
    pub traces: Vec<ContactTrace>,
}

impl ContactTracer {
    /// Whether any contact is watched.
    pub fn is_active(&self) -> bool {
        !self.watched.is_empty()
    }

    /// Clears the traces for a new step.
    pub fn begin_step(&mut self) {
        self.lanes = None;
        self.traces.clear();
        self.traces
            .extend(self.watched.iter().map(|&contact| ContactTrace { contact, substeps: Vec::new() }));
    }

    /// Reads the watched contacts' impulses after pass `pass` of substep `substep`.
    pub fn sample(&mut self, contacts: &SharedContacts, substep: u32, pass: TracePass) {
        let slots: Vec<u32> = self.watched.iter().map(|c| c.index()).collect();
        let lanes = self.lanes.get_or_insert_with(|| contacts.traced_lanes(&slots));
        for lane in lanes.iter() {
            let (points, normal, friction, twist) = contacts.lane_impulses(lane);
            self.traces[lane.trace].substeps.push(ContactSubstep {
                substep,
                pass,
                points,
                normal,
                friction,
                twist,
            });
        }
    }
}
