//! The revolute joint (hinge): B turns about the joint axis relative to A and nothing else.
//! Rows: a spring towards a target angle, a velocity motor, lower and upper angle limits, the
//! point constraint, and two rows that keep B's axis on A's.

use super::desc::{Limits, Motor, Spring, validate_drive};
use super::pose::wrap_angle;
use super::rows::{Row, RowSolver};
use super::{JointConstants, JointImpulses, JointPose};
use crate::error::{AtollError, check_finite};
use serde::{Deserialize, Serialize};
use std::f32::consts::PI;

/// A hinge about the frames' X axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RevoluteJoint {
    /// Angle range, radians within -π..=π.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// Drives the angular speed (rad/s) with at most `max_force` N·m.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motor: Option<Motor>,
    /// Pulls towards `target_angle`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spring: Option<Spring>,
    /// The spring's rest angle, radians.
    pub target_angle: f32,
}

impl RevoluteJoint {
    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        validate_drive(self.limits, "revolute limits", Some(PI), self.motor, self.spring)?;
        check_finite("revolute target angle", self.target_angle)?;
        Ok(())
    }
}

/// One pass over the rows.
pub(crate) fn solve(
    j: &RevoluteJoint,
    r: &mut RowSolver,
    pose: &JointPose,
    k: &JointConstants,
    acc: &mut JointImpulses,
) {
    let (axis, normal, binormal) = pose.axes_a();
    let spin = Row::angular(axis);
    let spring = j.spring.is_some_and(|s| s.is_active());
    // The angle (two arctangents) only where a spring or a limit needs it.
    let angle = if spring || j.limits.is_some() { pose.twist() } else { 0.0 };
    if spring {
        r.spring(&spin, wrap_angle(angle - j.target_angle), k.springs[0], &mut acc.spring);
    }
    if let Some(m) = j.motor {
        r.motor(&spin, m.speed, m.max_force * r.h, &mut acc.motor);
    }
    if let Some(l) = j.limits {
        r.limit(&spin, angle - l.lower, &mut acc.lower);
        r.limit(&spin.negated(), l.upper - angle, &mut acc.upper);
    }
    let soft = r.rigid_feedback();
    r.point((pose.arm_a, pose.arm_b), pose.separation(), soft, &mut acc.point);
    keep_axes_aligned(r, pose.axis_b(), normal, binormal, &mut acc.tilt);
}

/// Two rows holding B's axis `b` perpendicular to A's `normal` and `binormal`, so it stays on
/// A's axis (shared with the wheel joint).
#[inline]
pub(crate) fn keep_axes_aligned(
    r: &mut RowSolver,
    b: crate::math::Vec3,
    normal: crate::math::Vec3,
    binormal: crate::math::Vec3,
    acc: &mut [f32; 2],
) {
    // C = b · n changes as (w_b − w_a) · (b × n).
    r.rigid(&Row::angular(b.cross(normal)), b.dot(normal), &mut acc[0]);
    r.rigid(&Row::angular(b.cross(binormal)), b.dot(binormal), &mut acc[1]);
}
