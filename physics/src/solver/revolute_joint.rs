//! Revolute joints (hinges), four at a time: the hinges of bridges, doors, limbs and machines.
//! They are coloured into batches of four that share no moving body, as the contacts and the
//! plain ball joints are, and each lane runs the rows of `joint/revolute.rs` in the same order:
//! the spring towards the target angle, the motor, the lower and upper limits, the point block
//! and the two rows that keep B's axis on A's. A lane without a spring, motor or limit has that
//! row zeroed, and a batch where no lane has one skips it (a bridge's hinges have a motor and
//! nothing else). The frames and arms are turned by each body's exact rotation so far this step,
//! as in `point_joint.rs`. The batches follow the joint order, so the result is the same on
//! every run and for every thread count.

use super::colouring::{Batches, EMPTY_LANE};
use super::joint_lanes::{JointLanes, LaneMotion, LaneVelocity, SoftLanes};
use super::simd::{Quatx4, Vec3x4, f32x4, wrap_angle};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::joint::rows::{Masses, Pass};
use crate::joint::{Joint, JointImpulses, JointPose, RevoluteJoint};

/// One revolute joint as prepared for the step, before it is put in a lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreparedRevolute {
    /// The joint's slot.
    pub joint: u32,
    /// Solver indices of its sides.
    pub bodies: (u32, u32),
    pub masses: Masses,
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
struct WideRevolute {
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
    lower: f32x4,
    upper: f32x4,
    /// All ones in lanes with limits.
    has_limits: f32x4,
    point: Vec3x4,
    tilt: [f32x4; 2],
    spring_impulse: f32x4,
    motor_impulse: f32x4,
    lower_impulse: f32x4,
    upper_impulse: f32x4,
}

/// A batch's pose at the bodies' motion so far.
struct LanePose {
    arms: (Vec3x4, Vec3x4),
    separation: Vec3x4,
    frame_a: Quatx4,
    frame_b: Quatx4,
}

impl WideRevolute {
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

    /// The angular impulse the accumulated rows carry, world axes, at `pose`.
    #[inline(always)]
    fn torque(&self, pose: &LanePose) -> Vec3x4 {
        let (axis, normal, binormal) = pose.frame_a.axes();
        let b = pose.frame_b.x_axis();
        let spin = self.spring_impulse + self.motor_impulse + self.lower_impulse - self.upper_impulse;
        axis * spin + b.cross(normal) * self.tilt[0] + b.cross(binormal) * self.tilt[1]
    }

    /// One pass of solving with feedback `rigid` on the rigid rows (springs keep theirs).
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
                let (one, active) = (f32x4::splat(1.0), self.has_limits);
                let feedback = (rigid, inv_h);
                spin.limit(v, one, angle - self.lower, feedback, active, &mut self.lower_impulse);
                spin.limit(v, -one, self.upper - angle, feedback, active, &mut self.upper_impulse);
            }
        }
        lanes.solve_point(v, pose.arms, pose.separation, rigid, &mut self.point);
        // C = b · n changes as (w_b − w_a) · (b × n).
        let b = pose.frame_b.x_axis();
        lanes.angular_row(b.cross(normal)).equality(v, b.dot(normal), rigid, &mut self.tilt[0]);
        lanes.angular_row(b.cross(binormal)).equality(v, b.dot(binormal), rigid, &mut self.tilt[1]);
    }
}

/// The revolute joints of a step, coloured into batches of four.
#[derive(Clone, Debug, Default)]
pub(crate) struct RevoluteJointSolver {
    batches: Batches,
    movable: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    ones: Vec<u8>,
    wide: Vec<WideRevolute>,
    h: f32,
}

impl RevoluteJointSolver {
    /// Colours `joints` (in joint order) and fills the batches; `movable[i]` says whether the
    /// solver moves solver body `i`; `h` is the substep.
    pub fn prepare(&mut self, joints: &[PreparedRevolute], movable: impl Iterator<Item = bool>, h: f32) {
        self.h = h;
        self.movable.clear();
        self.movable.extend(movable);
        self.pairs.clear();
        self.pairs.extend(joints.iter().map(|j| j.bodies));
        self.ones.clear();
        self.ones.resize(joints.len(), 1);
        self.batches.build(self.pairs.iter().copied(), &self.movable, &self.ones);
        self.wide.clear();
        for lanes in &self.batches.lanes {
            let mut w = WideRevolute::default();
            for (k, &lane) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
                let j = &joints[lane as usize];
                w.lanes.set_lane(k, j.joint, j.bodies, &j.masses);
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
                    w.lower.as_mut_array()[k] = l.lower;
                    w.upper.as_mut_array()[k] = l.upper;
                    w.has_limits.as_mut_array()[k] = f32::from_bits(u32::MAX);
                    w.lower_impulse.as_mut_array()[k] = i.lower;
                    w.upper_impulse.as_mut_array()[k] = i.upper;
                }
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

    /// Runs `pass` (warm start, solve with feedback `rigid` or relax) over every batch.
    pub fn run(
        &mut self,
        pass: Pass,
        bodies: &[SolverBody],
        motions: &[Motion],
        velocities: &mut [Velocity],
        rigid: Softness,
    ) {
        let rigid = SoftLanes::splat(match pass {
            Pass::Solve => rigid,
            _ => Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 },
        });
        let inv_h = f32x4::splat(1.0 / self.h);
        for w in &mut self.wide {
            let pose = w.pose(&w.lanes.motion(bodies, motions));
            let mut v = w.lanes.velocity(velocities);
            match pass {
                Pass::WarmStart => {
                    w.lanes.apply_point(&mut v, pose.arms, w.point);
                    w.lanes.apply_torque(&mut v, w.torque(&pose));
                }
                Pass::Solve | Pass::Relax => w.solve(&mut v, &pose, &rigid, inv_h),
                Pass::Reaction => continue,
            }
            w.lanes.store_velocity(velocities, &v);
        }
    }

    /// Writes the impulses back for the next step, with the force, torque, motor load and limit
    /// state each joint had at the end of the step.
    pub fn store(&self, bodies: &[SolverBody], motions: &[Motion], joints: &mut [Joint]) {
        let inv_h = 1.0 / self.h;
        for w in &self.wide {
            let torque = w.torque(&w.pose(&w.lanes.motion(bodies, motions)));
            for (k, joint) in w.lanes.filled() {
                let lane = |x: f32x4| x.as_array()[k];
                let i = JointImpulses {
                    point: w.point.lane(k),
                    tilt: [lane(w.tilt[0]), lane(w.tilt[1])],
                    spring: lane(w.spring_impulse),
                    motor: lane(w.motor_impulse),
                    lower: lane(w.lower_impulse),
                    upper: lane(w.upper_impulse),
                    ..Default::default()
                };
                let j = &mut joints[joint as usize];
                j.force = i.point * inv_h;
                j.torque = torque.lane(k) * inv_h;
                j.motor_load = i.motor * inv_h;
                j.limit_active = i.lower > 0.0 || i.upper > 0.0;
                j.impulses = i;
            }
        }
    }
}
