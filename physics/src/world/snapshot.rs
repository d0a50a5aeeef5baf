//! The world side of snapshots: taking one and going back to it ([`Snapshot`] holds a whole
//! world).

use super::World;
use crate::snapshot::Snapshot;
use std::sync::Arc;

impl World {
    /// Captures the whole state.
    pub fn snapshot(&self) -> Snapshot {
        Snapshot { world: Box::new(self.clone()) }
    }

    /// Captures the whole state without the step's scratch arrays, which every step fills
    /// again: what a history keeps as the world of a structure (restored before a compact
    /// state, which holds the little scratch a step reads).
    pub fn snapshot_without_scratch(&self) -> Snapshot {
        let mut world = self.clone();
        world.scratch = Default::default();
        world.threads = None;
        Snapshot { world: Box::new(world) }
    }

    /// Returns to a captured state (keeping this world's thread count, which is not state).
    pub fn restore(&mut self, snapshot: &Snapshot) {
        let (threads, edits, tape) = (self.threads.take(), self.edits, self.tape.take());
        // What a debugger watches is this world's, not the snapshot's (ids the snapshot lacks
        // are dropped at the next step).
        let watched = std::mem::take(&mut self.contact_tracer.watched);
        let (island, joints) = (self.contact_tracer.island, std::mem::take(&mut self.contact_tracer.joints));
        *self = (*snapshot.world).clone();
        self.threads = threads;
        self.contact_tracer.watched = watched;
        self.contact_tracer.island = island;
        self.contact_tracer.island_trace = None;
        self.contact_tracer.joints = joints;
        self.contact_tracer.joint_traces.clear();
        self.contact_tracer.traced_joints.clear();
        self.contact_tracer.traces.clear();
        // This world's tape, when it holds the snapshot's history, keeps the entries after the
        // snapshot's place (so stepping on walks them again); otherwise the snapshot's own.
        if let Some(mut tape) = tape
            && let Some(theirs) = &self.tape
            && Arc::ptr_eq(&tape.origin, &theirs.origin)
            && tape.seek(theirs.mark())
        {
            self.tape = Some(tape);
        }
        // Its structure stamp is the snapshot's (the same content); the count only grows.
        self.edits = edits.max(self.edits) + 1;
    }
}
