//! Watching contacts and an island through the solver's substeps
//! ([`World::set_traced_contacts`], [`World::contact_traces`], [`World::set_traced_island`],
//! [`World::island_trace`]); the trace itself is taken by the solve
//! (`solver/contact_trace.rs`).

use super::World;
use crate::body::NONE;
use crate::error::AtollError;
use crate::graph;
use crate::island::id::IslandId;
use crate::joint::{JointId, JointPose};
use crate::narrowphase::ContactId;
use crate::solver::{ContactTrace, FIXED_SLOT, IslandTrace, JointSubsteps, TracedJoint};

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
        at_most("traced contacts", ids.len())?;
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

    /// Watches joints `ids`: from the next step on, [`World::joint_traces`] gives how fast
    /// each one's anchors move apart after every pass of every substep (the velocity error of
    /// its point rows). An empty list stops watching. A stale id, or more than
    /// [`MAX_TRACED_CONTACTS`], is refused and nothing changes. Watching changes no result.
    pub fn set_traced_joints(&mut self, ids: &[JointId]) -> Result<(), AtollError> {
        at_most("traced joints", ids.len())?;
        for &id in ids {
            self.joint(id)?;
        }
        self.contact_tracer.joints = ids.to_vec();
        self.contact_tracer.joint_traces.clear();
        self.contact_tracer.traced_joints.clear();
        Ok(())
    }

    /// The joints watched (those destroyed since are dropped at the next step).
    pub fn traced_joints(&self) -> &[JointId] {
        &self.contact_tracer.joints
    }

    /// The watched joints' traces of the last step, in the order they were given; a joint
    /// the step did not solve (disabled, or its bodies asleep) has no samples.
    pub fn joint_traces(&self) -> &[JointSubsteps] {
        &self.contact_tracer.joint_traces
    }

    /// Before a solve, once the solver indices are known: the watched joints as the solve
    /// sees them (destroyed ones dropped).
    pub(super) fn prepare_joint_trace(&mut self) {
        let watched = std::mem::take(&mut self.contact_tracer.joints);
        self.contact_tracer.joints = watched.into_iter().filter(|&id| self.joint(id).is_ok()).collect();
        let mut traced = std::mem::take(&mut self.contact_tracer.traced_joints);
        traced.clear();
        let bodies = &self.bodies.bodies;
        // Entries of bodies not awake this step may be stale: those count as the fixed body.
        let index = |body: u32| {
            if body != NONE && bodies[body as usize].awake {
                self.scratch.solve.solver_index[body as usize]
            } else {
                FIXED_SLOT
            }
        };
        for (trace, &id) in self.contact_tracer.joints.iter().enumerate() {
            let Ok(slot) = self.joints.slot(id) else { continue };
            let j = &self.joints.joints[slot as usize];
            let (a, b) = (index(j.body_a), index(j.body_b));
            if !j.enabled || (a == FIXED_SLOT && b == FIXED_SLOT) {
                continue;
            }
            let pose = JointPose::of(j, bodies);
            traced.push(TracedJoint { trace, body_a: a, body_b: b, arm_a: pose.arm_a, arm_b: pose.arm_b });
        }
        self.contact_tracer.traced_joints = traced;
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

/// Refuses to watch more than [`MAX_TRACED_CONTACTS`] of `what` at once.
fn at_most(what: &'static str, count: usize) -> Result<(), AtollError> {
    if count > MAX_TRACED_CONTACTS {
        return Err(AtollError::invalid(what, format!("at most {MAX_TRACED_CONTACTS} at once, got {count}")));
    }
    Ok(())
}
