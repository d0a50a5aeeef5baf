//! The contact trace: for the contacts a user asked to watch
//! ([`crate::World::set_traced_contacts`]), the accumulated impulses after each pass of each
//! substep, the solver's own numbers read from its lanes. A debugger shows how a contact's
//! push builds up over a step; a test holds it against theory (a resting box's contact carries
//! its weight). For an island a user asked to watch ([`crate::World::set_traced_island`]),
//! how fast its contacts' points still approach after each pass (its velocity error): how the
//! solver's passes converge over a step's substeps. For the joints a user asked to watch
//! ([`crate::World::set_traced_joints`]), how fast their two anchors still move apart after
//! each pass (the velocity error of their point rows).
//!
//! It costs nothing while no contact is watched: the step tests one option per pass. While
//! some are, the solve runs on the caller's thread alone (a team's members would still be in
//! the next stage while the trace reads the lanes), which changes no result: the substeps give
//! the same bits on any number of threads.

use super::contact::{SharedContacts, TracedLane};
use super::{SolverBody, Velocity};
use crate::island::id::IslandId;
use crate::joint::JointId;
use crate::math::Vec3;
use crate::narrowphase::{ContactId, MAX_MANIFOLD_POINTS};
use crate::parallel::SharedSlice;

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

/// A watched island's velocity error after one pass of one substep: over the manifold points
/// of its touching contacts, the speed at which a point's two sides still approach
/// (`max(0, -v_n)`, `v_n` the normal relative velocity), which the relax pass is to bring to
/// zero.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IslandSubstep {
    /// The substep, from 0.
    pub substep: u32,
    /// The pass it followed.
    pub pass: TracePass,
    /// The points measured.
    pub points: u32,
    /// The largest approach speed, m/s.
    pub max_approach: f32,
    /// The mean approach speed over the points, m/s.
    pub mean_approach: f32,
}

/// A watched island through the last step: a sample per pass of each substep, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct IslandTrace {
    /// The island.
    pub island: IslandId,
    /// Its touching contacts solved in the step.
    pub contacts: u32,
    /// The samples, substep by substep, the solve's before the relax's.
    pub substeps: Vec<IslandSubstep>,
}

/// A watched joint's velocity error after one pass of one substep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSubstep {
    /// The substep, from 0.
    pub substep: u32,
    /// The pass it followed.
    pub pass: TracePass,
    /// How fast its two anchors move apart, m/s: what its point rows (all but a prismatic's
    /// axis, a wheel's suspension and a distance joint's line, which move by design) are to
    /// bring to zero.
    pub anchor_speed: f32,
    /// How fast its two bodies turn relative to each other, rad/s (its free axes included).
    pub relative_spin: f32,
}

/// One watched joint through the last step: a sample per pass of each substep, in order.
/// Empty when neither of its bodies was awake.
#[derive(Clone, Debug, PartialEq)]
pub struct JointSubsteps {
    /// The joint.
    pub joint: JointId,
    /// The samples, substep by substep, the solve's before the relax's.
    pub substeps: Vec<JointSubstep>,
}

/// A watched joint as the solve sees it: its bodies' solver indices and its anchors' arms
/// from their centres of mass at the step's start (world axes), set by the world before the
/// solve.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TracedJoint {
    /// Its place among the watched joints.
    pub trace: usize,
    pub body_a: u32,
    pub body_b: u32,
    pub arm_a: Vec3,
    pub arm_b: Vec3,
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
    /// The watched island.
    pub island: Option<IslandId>,
    /// Its contacts' slots this step, ascending (set by the world before the solve).
    pub island_slots: Vec<u32>,
    /// Where those that touch sit, found at the first sample of a step.
    island_lanes: Option<Vec<TracedLane>>,
    /// The watched island's trace of the last step.
    pub island_trace: Option<IslandTrace>,
    /// The watched joints.
    pub joints: Vec<JointId>,
    /// Those whose bodies the solve moves, as it sees them this step.
    pub traced_joints: Vec<TracedJoint>,
    /// The watched joints' traces of the last step, one per watched joint.
    pub joint_traces: Vec<JointSubsteps>,
}

impl ContactTracer {
    /// Whether any contact or an island is watched.
    pub fn is_active(&self) -> bool {
        !self.watched.is_empty() || self.island.is_some() || !self.joints.is_empty()
    }

    /// Clears the traces for a new step.
    pub fn begin_step(&mut self) {
        self.lanes = None;
        self.island_lanes = None;
        self.traces.clear();
        self.traces
            .extend(self.watched.iter().map(|&contact| ContactTrace { contact, substeps: Vec::new() }));
        self.island_trace =
            self.island.map(|island| IslandTrace { island, contacts: 0, substeps: Vec::new() });
        self.joint_traces.clear();
        self.joint_traces
            .extend(self.joints.iter().map(|&joint| JointSubsteps { joint, substeps: Vec::new() }));
    }

    /// Reads the watched contacts' impulses, and the watched island's velocity error from
    /// `velocities`, after pass `pass` of substep `substep`.
    pub fn sample(
        &mut self,
        contacts: &SharedContacts,
        bodies: &SharedSlice<SolverBody>,
        velocities: &SharedSlice<Velocity>,
        substep: u32,
        pass: TracePass,
    ) {
        for joint in &self.traced_joints {
            let (a, b) = (joint.body_a as usize, joint.body_b as usize);
            // SAFETY: the trace reads between stages on the only member of a team of one
            // (`World::solve` runs the solve alone while anything is watched): nothing writes
            // the solver bodies or their velocities meanwhile.
            let ((sa, sb), (va, vb)) = unsafe {
                (
                    (bodies.slice(a..a + 1)[0], bodies.slice(b..b + 1)[0]),
                    (velocities.slice(a..a + 1)[0], velocities.slice(b..b + 1)[0]),
                )
            };
            let vec = |v: [f32; 4]| Vec3::new(v[0], v[1], v[2]);
            // The arms turned as far as the bodies have since the step began.
            let (ra, rb) = (sa.dq * joint.arm_a, sb.dq * joint.arm_b);
            let (wa, wb) = (vec(va.second), vec(vb.second));
            let apart = (vec(vb.first) + wb.cross(rb)) - (vec(va.first) + wa.cross(ra));
            self.joint_traces[joint.trace].substeps.push(JointSubstep {
                substep,
                pass,
                anchor_speed: apart.length(),
                relative_spin: (wb - wa).length(),
            });
        }
        if let Some(trace) = self.island_trace.as_mut() {
            let slots = &self.island_slots;
            let lanes = self
                .island_lanes
                .get_or_insert_with(|| contacts.traced_lanes(|slot| slots.binary_search(&slot).ok()));
            trace.contacts = lanes.len() as u32;
            let (mut points, mut max, mut sum) = (0u32, 0.0f32, 0.0f64);
            for lane in lanes.iter() {
                let (count, speeds) = contacts.lane_normal_speeds(lane, velocities);
                for &v in &speeds[..count as usize] {
                    let approach = (-v).max(0.0);
                    max = max.max(approach);
                    sum += f64::from(approach);
                }
                points += u32::from(count);
            }
            let mean = if points == 0 { 0.0 } else { (sum / f64::from(points)) as f32 };
            trace.substeps.push(IslandSubstep {
                substep,
                pass,
                points,
                max_approach: max,
                mean_approach: mean,
            });
        }
        if self.watched.is_empty() {
            return;
        }
        let watched = &self.watched;
        let lanes = self.lanes.get_or_insert_with(|| {
            contacts.traced_lanes(|slot| watched.iter().position(|c| c.index() == slot))
        });
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
