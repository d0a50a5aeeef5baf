//! Bodies the step had to hold back: those the solver drove past a speed cap, and those whose
//! state turned non-finite. Finalising marks them (a byte per awake body, [`FaultMark`]); this
//! file turns the marks into events in awake order, and stops and isolates a non-finite body
//! so nothing of it spreads: it stays where the step began, at rest, its joints disabled and
//! its contacts' impulses forgotten. `World::step` never leaves a non-finite number in a body,
//! joint or contact.

use super::World;
use crate::body::{BodyId, NONE};
use crate::graph;
use crate::joint::{JointEventKind, JointImpulses};
use crate::math::Vec3;
use crate::narrowphase::{MAX_MANIFOLD_POINTS, PointImpulse};

/// What finalising found of one awake body: nothing, a cap, or a non-finite state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum FaultMark {
    #[default]
    None,
    Capped,
    NonFinite,
}

/// What the step did to a body it had to hold back.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum BodyFaultKind {
    /// The solver drove the body past `StepSettings::max_linear_speed` or
    /// `max_angular_speed`; it was slowed to them.
    Capped,
    /// The body's state turned non-finite: it was put back where the step began, at rest,
    /// its joints disabled (each reported as [`JointEventKind::Isolated`]) and its contacts'
    /// impulses zeroed.
    NonFinite,
}

/// A body the last step held back ([`World::body_faults`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BodyFault {
    /// The body.
    pub body: BodyId,
    /// The step it happened in (the world's step count after it).
    pub step: u64,
    /// What happened.
    pub kind: BodyFaultKind,
}

impl World {
    /// The bodies the last step slowed to a speed cap or stopped for a non-finite state, in
    /// body order of the awake list.
    pub fn body_faults(&self) -> &[BodyFault] {
        &self.body_faults
    }

    /// Reports every body finalising marked (`StepScratch::fault_marks`, per awake body) and
    /// isolates the non-finite ones; returns how many were capped and how many non-finite.
    pub(super) fn report_body_faults(&mut self) -> (u32, u32) {
        let (mut capped, mut non_finite) = (0, 0);
        let step = self.step_count + 1;
        for k in 0..self.scratch.finalize.fault_marks.len() {
            let mark = self.scratch.finalize.fault_marks[k];
            if mark == FaultMark::None {
                continue;
            }
            let slot = self.scratch.solve.awake[k];
            let kind = if mark == FaultMark::Capped {
                capped += 1;
                BodyFaultKind::Capped
            } else {
                non_finite += 1;
                self.isolate(slot);
                BodyFaultKind::NonFinite
            };
            self.body_faults.push(BodyFault { body: self.bodies.id_at(slot), step, kind });
        }
        (capped, non_finite)
    }

    /// Disables every joint of body `slot` (reported as isolated) with its impulses and
    /// readouts zeroed, and zeroes the impulses of its contacts, so no non-finite number of
    /// this step's solve stays behind for the next to warm start from.
    fn isolate(&mut self, slot: u32) {
        let mut key = self.bodies.bodies[slot as usize].joint_head;
        while key != NONE {
            let (joint, side) = graph::edge_parts(key);
            key = self.joints.joints[joint as usize].edges[side].next;
            let j = &mut self.joints.joints[joint as usize];
            j.impulses = JointImpulses::default();
            (j.force, j.torque, j.motor_load, j.limit_active) = (Vec3::ZERO, Vec3::ZERO, 0.0, false);
            if j.enabled {
                self.disable_joint_reporting(joint, JointEventKind::Isolated);
            }
        }
        let contacts = &mut self.contacts.contacts;
        let mut touched = std::mem::take(&mut self.scratch.candidates);
        touched.clear();
        graph::for_each_contact(&self.bodies.bodies, contacts, slot, |c, _| touched.push(c));
        for &c in &touched {
            let contact = &mut contacts[c as usize];
            contact.impulses = [PointImpulse::default(); MAX_MANIFOLD_POINTS];
            contact.friction_impulse = Vec3::ZERO;
            contact.twist_impulse = 0.0;
        }
        self.scratch.candidates = touched;
    }
}
