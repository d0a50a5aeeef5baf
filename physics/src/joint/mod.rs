//! Joints: constraints between two bodies, or a body and the world, solved inside the soft step
//! beside the contacts (see [`crate::solver`]). A joint is named by a [`JointId`], described by
//! a [`JointDesc`] and read back as a [`JointView`]. Each type lives in its own file with its
//! parameters and its rows: [`RevoluteJoint`], [`SphericalJoint`], [`PrismaticJoint`],
//! [`FixedJoint`], [`DistanceJoint`], [`WheelJoint`]. The shared row algebra (soft equality
//! rows, limits, motors, springs, the point and rotation blocks) is in `rows.rs`.
//!
//! Frame conventions: each side has a [`JointFrame`] (an anchor point and a rotation) in its
//! body's frame. The frame's X axis is the joint's axis: the hinge axis of a revolute joint,
//! the slide axis of a prismatic joint, the twist axis of a spherical joint and the spin axis
//! of a wheel. A wheel's suspension runs along body A's frame Y axis. Angles are measured
//! about X from A's frame to B's.

mod desc;
mod distance;
mod fixed;
mod pose;
mod prismatic;
mod revolute;
pub(crate) mod rows;
mod spherical;
mod store;
mod wheel;

pub use desc::{JointDesc, JointFrame, JointKind, JointType, Limits, Motor, Spring};
pub use distance::DistanceJoint;
pub use fixed::FixedJoint;
pub(crate) use pose::JointPose;
pub use prismatic::PrismaticJoint;
pub use revolute::RevoluteJoint;
pub use spherical::SphericalJoint;
pub(crate) use store::{Joint, JointImpulses, JointStore, SolveClass};
pub use wheel::WheelJoint;

use crate::body::BodyId;
use crate::island::id::IslandId;
use crate::math::Vec3;

crate::id::generational_id!(
    /// Names a joint: its slot plus the slot's generation, so a kept id of a destroyed joint
    /// is refused rather than naming a newer joint in the same slot.
    JointId
);

/// A joint as the world reports it: what it links, where it is, and what it did last step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointView {
    /// The joint's id.
    pub id: JointId,
    /// Revolute, spherical, prismatic, fixed, distance or wheel.
    pub joint_type: JointType,
    /// Body A, or `None` when side A is the world.
    pub body_a: Option<BodyId>,
    /// Body B.
    pub body_b: BodyId,
    /// Solved with the step (a broken joint is disabled).
    pub enabled: bool,
    /// Its two bodies collide with each other.
    pub collide_connected: bool,
    /// World position of A's anchor.
    pub anchor_a: Vec3,
    /// World position of B's anchor.
    pub anchor_b: Vec3,
    /// World direction of the joint axis (A's frame X axis).
    pub axis: Vec3,
    /// World direction of A's frame Y axis (a wheel's suspension axis).
    pub normal: Vec3,
    /// The joint's coordinate: the angle about the axis (revolute, spherical twist, wheel
    /// spin), radians; the translation along the axis (prismatic) or the suspension (wheel),
    /// metres; the anchors' distance (distance joints), metres; 0 for fixed joints.
    pub position: f32,
    /// A spherical joint's swing: the angle between the two frames' X axes, radians (0 for
    /// the other types).
    pub swing: f32,
    /// The force the joint applied to body B in the last step, N (world axes).
    pub force: Vec3,
    /// The torque the joint applied to body B in the last step, N·m (world axes), apart from
    /// the moment of `force` about B's centre.
    pub torque: Vec3,
    /// The motor's force (N) or torque (N·m) in the last step; 0 without a motor.
    pub motor_load: f32,
    /// A limit pushed in the last step.
    pub limit_active: bool,
    /// The island the joint is an edge of (joints to the world, static or kinematic bodies
    /// and disabled joints are in none).
    pub island: Option<IslandId>,
}

/// Why a joint event was raised.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum JointEventKind {
    /// The joint's force or torque exceeded its breaking threshold: it was disabled.
    Broke {
        /// The force it carried in the breaking step, N.
        force: f32,
        /// The torque it carried in the breaking step, N·m.
        torque: f32,
    },
    /// One of its bodies was destroyed, and the joint with it.
    Destroyed,
    /// One of its bodies' state turned non-finite in the step: the joint was disabled, its
    /// impulses zeroed, so nothing of it spreads ([`crate::world::BodyFaultKind::NonFinite`]).
    Isolated,
}

/// Something happened to a joint during the last step or edit.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointEvent {
    /// The joint (stale once it is destroyed).
    pub joint: JointId,
    /// Body A, or `None` for the world.
    pub body_a: Option<BodyId>,
    /// Body B.
    pub body_b: BodyId,
    /// What happened.
    pub kind: JointEventKind,
}

/// What a joint's rows need that stays the same for a whole step.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct JointConstants {
    /// The softness of its springs for this step's substep: `[0]` the main (or linear)
    /// spring, `[1]` a fixed joint's angular spring.
    pub springs: [crate::solver::Softness; 2],
    /// The inverse of the two bodies' summed inverse inertias (the rotation block's mass).
    pub rotation_mass: crate::math::Mat3,
}

impl JointKind {
    /// The softness of this joint's springs for substep `h` (unused entries: none).
    pub(crate) fn spring_softness(&self, h: f32) -> [crate::solver::Softness; 2] {
        let soft = |s: Option<Spring>| {
            s.filter(Spring::is_active)
                .map_or_else(Default::default, |s| crate::solver::Softness::new(s.hertz, s.damping_ratio, h))
        };
        match self {
            JointKind::Revolute(j) => [soft(j.spring), Default::default()],
            JointKind::Spherical(j) => [soft(j.spring), Default::default()],
            JointKind::Prismatic(j) => [soft(j.spring), Default::default()],
            JointKind::Fixed(j) => [soft(j.linear_spring), soft(j.angular_spring)],
            JointKind::Distance(j) => [soft(j.spring), Default::default()],
            JointKind::Wheel(j) => [soft(j.suspension), Default::default()],
        }
    }

    /// One pass over this joint's rows at `pose`.
    #[inline]
    pub(crate) fn solve(
        &self,
        rows: &mut rows::RowSolver,
        pose: &JointPose,
        constants: &JointConstants,
        impulses: &mut JointImpulses,
    ) {
        match self {
            JointKind::Revolute(j) => revolute::solve(j, rows, pose, constants, impulses),
            JointKind::Spherical(j) => spherical::solve(j, rows, pose, constants, impulses),
            JointKind::Prismatic(j) => prismatic::solve(j, rows, pose, constants, impulses),
            JointKind::Fixed(j) => fixed::solve(j, rows, pose, constants, impulses),
            JointKind::Distance(j) => distance::solve(j, rows, pose, constants, impulses),
            JointKind::Wheel(j) => wheel::solve(j, rows, pose, constants, impulses),
        }
    }

    /// The joint's coordinate at `pose` (see [`JointView::position`]) and its swing.
    pub(crate) fn coordinates(&self, pose: &JointPose) -> (f32, f32) {
        match self {
            JointKind::Revolute(_) => (pose.twist(), 0.0),
            JointKind::Spherical(_) => (pose.twist(), pose.swing()),
            JointKind::Prismatic(_) => (pose.separation().dot(pose.axes_a().0), 0.0),
            JointKind::Fixed(_) => (0.0, 0.0),
            JointKind::Distance(_) => (pose.separation().length(), 0.0),
            JointKind::Wheel(_) => (pose.separation().dot(pose.axes_a().1), 0.0),
        }
    }
}
