//! Plain ball joints (spherical joints without limits, springs or friction: a point constraint
//! and nothing else), four at a time. They are the joints of chains, nets and grids, where
//! there are thousands of them, so they get what the contacts have: graph colouring into
//! batches of four that share no moving body (`colouring.rs`) and one `f32x4` lane per joint.
//!
//! A lane is the scalar point block of `joint/rows.rs`: the arms are turned by each body's
//! exact rotation so far this step (its solver quaternion, gathered per lane). The contacts'
//! linearised rotation vector is not enough here: a joint pulled hard turns its body by tens of
//! degrees in a substep, and arms turned to first order then disagree with the velocities
//! enough to feed energy in (a 3 m violation blew up in one step). The batches follow the joint
//! order, so the result is the same on every run and for every thread count.

use super::colouring::{Batches, EMPTY_LANE};
use super::joint_lanes::{JointLanes, SoftLanes};
use super::simd::Vec3x4;
use super::{Motion, Softness, SolverBody, Velocity};
use crate::joint::Joint;
use crate::joint::rows::Masses;
use crate::math::Vec3;

/// One plain ball joint as prepared for the step, before it is put in a lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointJoint {
    /// The joint's slot.
    pub joint: u32,
    /// Solver indices of its sides.
    pub bodies: (u32, u32),
    pub masses: Masses,
    /// Anchors from the centres of mass at the start of the step, world axes.
    pub arm_a: Vec3,
    pub arm_b: Vec3,
    /// B's centre minus A's at the start of the step.
    pub delta_center: Vec3,
    /// Last step's impulse (warm start).
    pub impulse: Vec3,
}

/// Four plain ball joints, one per lane.
#[derive(Clone, Debug, Default)]
struct WidePointJoint {
    lanes: JointLanes,
    arm_a: Vec3x4,
    arm_b: Vec3x4,
    delta_center: Vec3x4,
    impulse: Vec3x4,
}

/// The plain ball joints of a step, coloured into batches of four.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointJointSolver {
    batches: Batches,
    movable: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    ones: Vec<u8>,
    wide: Vec<WidePointJoint>,
}

impl PointJointSolver {
    /// Colours `joints` (in joint order) and fills the batches; `movable[i]` says whether the
    /// solver moves solver body `i`.
    pub fn prepare(&mut self, joints: &[PointJoint], movable: impl Iterator<Item = bool>) {
        self.movable.clear();
        self.movable.extend(movable);
        self.pairs.clear();
        self.pairs.extend(joints.iter().map(|j| j.bodies));
        self.ones.clear();
        self.ones.resize(joints.len(), 1);
        self.batches.build(self.pairs.iter().copied(), &self.movable, &self.ones);
        self.wide.clear();
        for lanes in &self.batches.lanes {
            let mut w = WidePointJoint::default();
            for (k, &lane) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
                let j = &joints[lane as usize];
                w.lanes.set_lane(k, j.joint, j.bodies, &j.masses);
                w.arm_a.set_lane(k, j.arm_a);
                w.arm_b.set_lane(k, j.arm_b);
                w.delta_center.set_lane(k, j.delta_center);
                w.impulse.set_lane(k, j.impulse);
            }
            self.wide.push(w);
        }
    }

    /// Joints in the batches.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The joint slots solved, in batch order.
    pub fn joints(&self) -> impl Iterator<Item = u32> + '_ {
        self.wide.iter().flat_map(|w| w.lanes.filled().map(|(_, j)| j))
    }

    /// With `None`, applies the accumulated impulses again (the warm start); with
    /// `Some(soft)`, solves every batch once with feedback `soft` (the relax passes feedback
    /// that does nothing).
    pub fn run(
        &mut self,
        bodies: &[SolverBody],
        motions: &[Motion],
        velocities: &mut [Velocity],
        soft: Option<Softness>,
    ) {
        for w in &mut self.wide {
            let lanes = &w.lanes;
            let motion = lanes.motion(bodies, motions);
            let arms = (motion.turn_a.rotate(w.arm_a), motion.turn_b.rotate(w.arm_b));
            let mut v = lanes.velocity(velocities);
            match soft {
                None => lanes.apply_point(&mut v, arms, w.impulse),
                Some(soft) => {
                    let separation = w.delta_center + motion.moved_b - motion.moved_a + arms.1 - arms.0;
                    lanes.solve_point(&mut v, arms, separation, &SoftLanes::splat(soft), &mut w.impulse);
                }
            }
            lanes.store_velocity(velocities, &v);
        }
    }

    /// Writes each joint's impulse back for the next step, with its force (impulse over the
    /// substep `h`); a plain ball joint carries no torque, motor or limit.
    pub fn store(&self, joints: &mut [Joint], h: f32) {
        for w in &self.wide {
            for (k, joint) in w.lanes.filled() {
                let j = &mut joints[joint as usize];
                j.impulses.point = w.impulse.lane(k);
                j.force = j.impulses.point / h;
                j.torque = Vec3::ZERO;
                j.motor_load = 0.0;
                j.limit_active = false;
            }
        }
    }
}
