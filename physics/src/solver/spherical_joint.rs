//! Spherical joints with a cone, a twist range, friction or a spring (the shoulders, hips and
//! necks of ragdolls), four at a time; plain ball joints have their own, leaner batches
//! (`point_joint.rs`). Coloured into batches of four that share no moving body, each lane runs
//! the rows of `joint/spherical.rs` in the same order: friction, the spring towards the target
//! orientation, the swing cone, the lower and upper twist limits and the point block. A lane
//! without one of these has it zeroed or masked, and a batch where no lane has it skips it. The
//! frames and arms are turned by each body's exact rotation so far this step. The batches
//! follow the joint order, so the result is the same on every run and for every thread count.

use super::joint_lanes::{
    JointLanes, LaneMotion, LaneVelocity, RangeLanes, SoftLanes, WideJoint, WideJoints, store_impulses,
};
use super::simd::{Quatx4, SymMat3x4, Vec3x4, f32x4, select};
use super::{Motion, Softness, SolverBody};
use crate::joint::rows::masses_of;
use crate::joint::rows::rotation_mass;
use crate::joint::{Joint, JointImpulses, JointPose, SphericalJoint};

/// One spherical joint as prepared for the step, before it is put in a lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PreparedSpherical {
    /// The joint's slot.
    pub joint: u32,
    /// Solver indices of its sides.
    pub bodies: (u32, u32),
    /// The pose at the start of the step.
    pub pose: JointPose,
    pub ball: SphericalJoint,
    /// The spring's feedback for this step (zero without a spring).
    pub spring: Softness,
    pub impulses: JointImpulses,
}

/// Which optional rows some lane of a batch has.
#[derive(Clone, Copy, Debug, Default)]
struct Rows {
    friction: bool,
    spring: bool,
    swing: bool,
    twist: bool,
}

/// Four spherical joints, one per lane.
#[derive(Clone, Debug, Default)]
pub(crate) struct WideSpherical {
    lanes: JointLanes,
    rows: Rows,
    arm_a: Vec3x4,
    arm_b: Vec3x4,
    delta_center: Vec3x4,
    frame_a: Quatx4,
    frame_b: Quatx4,
    /// The rotation block's mass, at the start of the step (friction and spring).
    rotation_mass: SymMat3x4,
    /// Friction's largest angular impulse per substep (0 without friction).
    friction_max: f32x4,
    spring: SoftLanes,
    target_rotation: Quatx4,
    cone: f32x4,
    /// All ones in lanes with a cone.
    has_cone: f32x4,
    twist: RangeLanes,
    point: Vec3x4,
    friction: Vec3x4,
    rotation: Vec3x4,
    swing_impulse: f32x4,
}

/// A batch's pose at the bodies' motion so far, with the rows' axes.
pub(crate) struct LanePose {
    arms: (Vec3x4, Vec3x4),
    separation: Vec3x4,
    frame_a: Quatx4,
    frame_b: Quatx4,
    /// The direction the swing grows in (B turning about it opens the cone), where the swing
    /// has one: all ones in `swings`.
    swing_axis: Vec3x4,
    swing: f32x4,
    swings: f32x4,
    /// The twist rows' axis: halfway between the two frames' X axes.
    twist_axis: Vec3x4,
}

/// Swings closer to straight than this have no direction, and are far from any cone.
const STRAIGHT: f32 = 1e-6;

impl WideJoint for WideSpherical {
    type Pose = LanePose;

    fn lanes(&self) -> &JointLanes {
        &self.lanes
    }

    #[inline(always)]
    fn pose(&self, m: &LaneMotion) -> LanePose {
        let arms = (m.turn_a.rotate(self.arm_a), m.turn_b.rotate(self.arm_b));
        let (frame_a, frame_b) = (m.turn_a.mul(&self.frame_a), m.turn_b.mul(&self.frame_b));
        let (a, b) = (frame_a.x_axis(), frame_b.x_axis());
        let one = f32x4::splat(1.0);
        let n = a.cross(b);
        let sine = n.dot(n).sqrt();
        let swings = sine.simd_gt(f32x4::splat(STRAIGHT));
        let between = a + b;
        let length = between.dot(between).sqrt();
        let usable = length.simd_gt(f32x4::splat(1e-30));
        let twist_axis = Vec3x4 {
            x: select(usable, between.x / length, a.x),
            y: select(usable, between.y / length, a.y),
            z: select(usable, between.z / length, a.z),
        };
        LanePose {
            arms,
            separation: self.delta_center + m.moved_b - m.moved_a + arms.1 - arms.0,
            frame_a,
            frame_b,
            swing_axis: n * -(one / select(swings, sine, one)),
            swing: sine.atan2(a.dot(b)),
            swings,
            twist_axis,
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
        let rows = self.rows;
        if rows.friction {
            lanes.rotation_friction(v, &self.rotation_mass, self.friction_max, &mut self.friction);
        }
        if rows.spring {
            let error = rotation_error(&pose.frame_a.mul(&self.target_rotation), &pose.frame_b);
            lanes.solve_rotation(v, &self.rotation_mass, error, &self.spring, &mut self.rotation);
        }
        let (one, feedback) = (f32x4::splat(1.0), (rigid, inv_h));
        if rows.swing {
            let active = self.has_cone & pose.swings;
            let row = lanes.angular_row(pose.swing_axis);
            row.limit(v, one, self.cone - pose.swing, feedback, active, &mut self.swing_impulse);
        }
        if rows.twist {
            let twist = pose.frame_a.twist_to(&pose.frame_b);
            self.twist.solve(&lanes.angular_row(pose.twist_axis), v, twist, feedback);
        }
        lanes.masses.solve_point(v, pose.arms, pose.separation, rigid, &mut self.point);
    }

    /// The impulses, and the force, torque, motor load and limit state at the end of the step.
    fn store(&self, bodies: &[SolverBody], motions: &[Motion], h: f32, joints: [Option<&mut Joint>; 4]) {
        let torque = self.torque(&self.pose(&self.lanes.motion(bodies, motions)));
        let impulses = |k: usize| {
            let lane = |x: f32x4| x.as_array()[k];
            JointImpulses {
                point: self.point.lane(k),
                friction: self.friction.lane(k),
                rotation: self.rotation.lane(k),
                swing: lane(self.swing_impulse),
                lower: lane(self.twist.lower_impulse),
                upper: lane(self.twist.upper_impulse),
                ..Default::default()
            }
        };
        store_impulses(joints, h, impulses, |k| torque.lane(k));
    }
}

impl WideSpherical {
    /// The angular impulse the accumulated rows carry, world axes, at `pose`.
    #[inline(always)]
    fn torque(&self, pose: &LanePose) -> Vec3x4 {
        let swing = select(pose.swings, self.swing_impulse, f32x4::ZERO);
        self.friction + self.rotation + pose.swing_axis * swing + pose.twist_axis * self.twist.impulse()
    }
}

/// The rotation vector that takes frame `a` to frame `b` per lane (see `rotation_error` in
/// `joint/pose.rs`).
#[inline(always)]
fn rotation_error(a: &Quatx4, b: &Quatx4) -> Vec3x4 {
    let inverse_a = Quatx4 { xyz: a.xyz * f32x4::splat(-1.0), w: a.w };
    let q = b.mul(&inverse_a);
    let two = f32x4::splat(2.0);
    q.xyz * select(q.w.simd_lt(f32x4::ZERO), -two, two)
}

/// The limited spherical joints of a step, coloured into batches of four.
#[derive(Clone, Debug, Default)]
pub(crate) struct SphericalJointSolver {
    pub batches: WideJoints<WideSpherical>,
}

impl SphericalJointSolver {
    /// Colours `joints` (in joint order) and fills the batches with the masses of `bodies` (the
    /// solver bodies, of which `movable` marks the ones the solver moves); `h` is the substep.
    pub fn prepare(&mut self, joints: &[PreparedSpherical], bodies: &[SolverBody], movable: &[bool], h: f32) {
        let all_ones = f32::from_bits(u32::MAX);
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
                let (ball, i) = (&j.ball, &j.impulses);
                w.point.set_lane(k, i.point);
                let spring = ball.spring.is_some_and(|s| s.is_active());
                if ball.friction > 0.0 || spring {
                    let (a, b) = (&bodies[j.bodies.0 as usize], &bodies[j.bodies.1 as usize]);
                    w.rotation_mass.set_lane(k, &rotation_mass(&masses_of(a, b)));
                }
                if ball.friction > 0.0 {
                    w.rows.friction = true;
                    w.friction_max.as_mut_array()[k] = ball.friction * h;
                    w.friction.set_lane(k, i.friction);
                }
                if spring {
                    w.rows.spring = true;
                    w.spring.set_lane(k, j.spring);
                    w.target_rotation.set_lane(k, ball.target_rotation);
                    w.rotation.set_lane(k, i.rotation);
                }
                if let Some(cone) = ball.swing_limit {
                    w.rows.swing = true;
                    w.cone.as_mut_array()[k] = cone;
                    w.has_cone.as_mut_array()[k] = all_ones;
                    w.swing_impulse.as_mut_array()[k] = i.swing;
                }
                if let Some(l) = ball.twist_limits {
                    w.rows.twist = true;
                    w.twist.set_lane(k, l, (i.lower, i.upper));
                }
            },
        );
    }
}
