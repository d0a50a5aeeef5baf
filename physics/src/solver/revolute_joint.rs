//! Revolute joints (hinges), four at a time: the hinges of bridges, doors, limbs and machines.
//! They are coloured into batches of four that share no moving body, as the contacts and the
//! plain ball joints are, and each lane runs the rows of `joint/revolute.rs` in the same order:
//! the spring towards the target angle, the motor, the lower and upper limits, the point block
//! and the two rows that keep B's axis on A's. A lane without a spring, motor or limit has that
//! row zeroed, and a batch where no lane has one skips it (a bridge's hinges have a motor and
//! nothing else). The frames and arms are turned by each body's exact rotation so far this step,
//! as in `point_joint.rs`. The batches follow the joint order, so the result is the same on
//! every run and for every thread count.

use super::joint_lanes::{
    JointLanes, LaneMotion, LaneVelocity, RangeLanes, SoftLanes, WideJoint, WideJoints, store_impulses,
};
use super::simd::{Quatx4, Vec3x4, f32x4, wrap_angle};
use super::{Motion, Softness, SolverBody};
use crate::joint::{Joint, JointImpulses, JointPose, RevoluteJoint};

/// One revolute joint as prepared for the step, before it is put in a lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreparedRevolute {
    /// The joint's slot.
    pub joint: u32,
    /// Solver indices of its sides.
    pub bodies: (u32, u32),
    /// The pose at the start of the step.
    pub pose: JointPose,
    pub hinge: RevoluteJoint,
    /// The spring's feedback for this step (zero without a spring).
    pub spring: Softness,
    pub impulses: JointImpulses,
}

/// Which optional rows some lane of a batch has.
#[derive(Clone, Copy, Debug, Default)]
struct Rows {
    spring: bool,
    motor: bool,
    limits: bool,
}

/// Four revolute joints, one per lane.
#[derive(Clone, Debug, Default)]
pub(crate) struct WideRevolute {
    lanes: JointLanes,
    rows: Rows,
    arm_a: Vec3x4,
    arm_b: Vec3x4,
    delta_center: Vec3x4,
    frame_a: Quatx4,
    frame_b: Quatx4,
    spring: SoftLanes,
    target_angle: f32x4,
    motor_speed: f32x4,
    /// The motor's largest impulse per substep (0 without a motor).
    motor_max: f32x4,
    limits: RangeLanes,
    point: Vec3x4,
    tilt: [f32x4; 2],
    spring_impulse: f32x4,
    motor_impulse: f32x4,
}

/// A batch's pose at the bodies' motion so far.
pub(crate) struct LanePose {
    arms: (Vec3x4, Vec3x4),
    separation: Vec3x4,
    frame_a: Quatx4,
    frame_b: Quatx4,
}

impl WideJoint for WideRevolute {
    type Pose = LanePose;

    fn lanes(&self) -> &JointLanes {
        &self.lanes
    }

    #[inline(always)]
    fn pose(&self, m: &LaneMotion) -> LanePose {
        let arms = (m.turn_a.rotate(self.arm_a), m.turn_b.rotate(self.arm_b));
        LanePose {
            arms,
            separation: self.delta_center + m.moved_b - m.moved_a + arms.1 - arms.0,
            frame_a: m.turn_a.mul(&self.frame_a),
            frame_b: m.turn_b.mul(&self.frame_b),
        }
    }

    #[inline(always)]
    fn warm_start(&self, v: &mut LaneVelocity, pose: &LanePose) {
        self.lanes.masses.apply_point(v, pose.arms, self.point);
        self.lanes.apply_torque(v, self.torque(pose));
    }

    #[inline(always)]
    fn solve(&mut self, v: &mut LaneVelocity, pose: &LanePose, rigid: &SoftLanes, inv_h: f32x4) {
        let lanes = &self.lanes;
        let (axis, normal, binormal) = pose.frame_a.axes();
        let rows = self.rows;
        if rows.spring || rows.motor || rows.limits {
            let spin = lanes.angular_row(axis);
            let angle =
                if rows.spring || rows.limits { pose.frame_a.twist_to(&pose.frame_b) } else { f32x4::ZERO };
            if rows.spring {
                let c = wrap_angle(angle - self.target_angle);
                spin.equality(v, c, &self.spring, &mut self.spring_impulse);
            }
            if rows.motor {
                spin.motor(v, self.motor_speed, self.motor_max, &mut self.motor_impulse);
            }
            if rows.limits {
                self.limits.solve(&spin, v, angle, (rigid, inv_h));
            }
        }
        lanes.masses.solve_point(v, pose.arms, pose.separation, rigid, &mut self.point);
        // C = b · n changes as (w_b − w_a) · (b × n).
        let b = pose.frame_b.x_axis();
        lanes.angular_row(b.cross(normal)).equality(v, b.dot(normal), rigid, &mut self.tilt[0]);
        lanes.angular_row(b.cross(binormal)).equality(v, b.dot(binormal), rigid, &mut self.tilt[1]);
    }

    /// The impulses, and the force, torque, motor load and limit state at the end of the step.
    fn store(&self, bodies: &[SolverBody], motions: &[Motion], h: f32, joints: [Option<&mut Joint>; 4]) {
        let torque = self.torque(&self.pose(&self.lanes.motion(bodies, motions)));
        let impulses = |k: usize| {
            let lane = |x: f32x4| x.as_array()[k];
            JointImpulses {
                point: self.point.lane(k),
                tilt: [lane(self.tilt[0]), lane(self.tilt[1])],
                spring: lane(self.spring_impulse),
                motor: lane(self.motor_impulse),
                lower: lane(self.limits.lower_impulse),
                upper: lane(self.limits.upper_impulse),
                ..Default::default()
            }
        };
        store_impulses(joints, h, impulses, |k| torque.lane(k));
    }
}

impl WideRevolute {
    /// The angular impulse the accumulated rows carry, world axes, at `pose`.
    #[inline(always)]
    fn torque(&self, pose: &LanePose) -> Vec3x4 {
        let (axis, normal, binormal) = pose.frame_a.axes();
        let b = pose.frame_b.x_axis();
        let spin = self.spring_impulse + self.motor_impulse + self.limits.impulse();
        axis * spin + b.cross(normal) * self.tilt[0] + b.cross(binormal) * self.tilt[1]
    }
}

/// The revolute joints of a step, coloured into batches of four.
#[derive(Clone, Debug, Default)]
pub(crate) struct RevoluteJointSolver {
    pub batches: WideJoints<WideRevolute>,
}

impl RevoluteJointSolver {
    /// Colours `joints` (in joint order) and fills the batches with the masses of `bodies` (the
    /// solver bodies, of which `movable` marks the ones the solver moves); `h` is the substep.
    pub fn prepare(&mut self, joints: &[PreparedRevolute], bodies: &[SolverBody], movable: &[bool], h: f32) {
        self.batches.prepare(
            joints,
            |j| j.bodies,
            movable,
            h,
            |w, k, j| {
                w.lanes.set_lane(k, j.joint, j.bodies, bodies);
                w.arm_a.set_lane(k, j.pose.arm_a);
                w.arm_b.set_lane(k, j.pose.arm_b);
                w.delta_center.set_lane(k, j.pose.delta_center);
                w.frame_a.set_lane(k, j.pose.frame_a);
                w.frame_b.set_lane(k, j.pose.frame_b);
                // Impulses only of the rows the joint has: a row it lacks applies nothing.
                let (hinge, i) = (&j.hinge, &j.impulses);
                w.point.set_lane(k, i.point);
                w.tilt[0].as_mut_array()[k] = i.tilt[0];
                w.tilt[1].as_mut_array()[k] = i.tilt[1];
                if hinge.spring.is_some_and(|s| s.is_active()) {
                    w.rows.spring = true;
                    w.spring.set_lane(k, j.spring);
                    w.target_angle.as_mut_array()[k] = hinge.target_angle;
                    w.spring_impulse.as_mut_array()[k] = i.spring;
                }
                if let Some(m) = hinge.motor {
                    w.rows.motor = true;
                    w.motor_speed.as_mut_array()[k] = m.speed;
                    w.motor_max.as_mut_array()[k] = m.max_force * h;
                    w.motor_impulse.as_mut_array()[k] = i.motor;
                }
                if let Some(l) = hinge.limits {
                    w.rows.limits = true;
                    w.limits.set_lane(k, l, (i.lower, i.upper));
                }
            },
        );
    }
}
