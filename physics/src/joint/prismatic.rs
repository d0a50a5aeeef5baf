//! The prismatic joint (slider): B slides along A's axis and cannot turn relative to A. Rows:
//! a spring towards a target position, a velocity motor, lower and upper limits, the rotation
//! lock, and two rows keeping B's anchor on A's axis.

use super::desc::{Limits, Motor, Spring, validate_drive};
use super::pose::rotation_error;
use super::rows::{Row, RowSolver};
use super::{JointConstants, JointImpulses, JointPose};
use crate::error::{AtollError, check_finite};
use serde::{Deserialize, Serialize};

/// A slider along the frames' X axis.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct PrismaticJoint {
    /// Translation range along the axis, metres.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
    /// Drives the sliding speed (m/s) with at most `max_force` N.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motor: Option<Motor>,
    /// Pulls towards `target_translation`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spring: Option<Spring>,
    /// The spring's rest translation, metres.
    pub target_translation: f32,
}

impl PrismaticJoint {
    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        validate_drive(self.limits, "prismatic limits", None, self.motor, self.spring)?;
        check_finite("prismatic target translation", self.target_translation)?;
        Ok(())
    }
}

/// One pass over the rows.
pub(crate) fn solve(
    j: &PrismaticJoint,
    r: &mut RowSolver,
    pose: &JointPose,
    k: &JointConstants,
    acc: &mut JointImpulses,
) {
    let (axis, normal, binormal) = pose.axes_a();
    let d = pose.separation();
    // The directions turn with A, so A's moment arm reaches B's anchor.
    let arm_a = pose.arm_a + d;
    let translation = d.dot(axis);
    let slide = Row::linear(axis, arm_a, pose.arm_b);
    if j.spring.is_some_and(|s| s.is_active()) {
        r.spring(&slide, translation - j.target_translation, k.springs[0], &mut acc.spring);
    }
    if let Some(m) = j.motor {
        r.motor(&slide, m.speed, m.max_force * r.h, &mut acc.motor);
    }
    if let Some(l) = j.limits {
        r.limit(&slide, translation - l.lower, &mut acc.lower);
        r.limit(&slide.negated(), l.upper - translation, &mut acc.upper);
    }
    let soft = r.rigid_feedback();
    r.rotation(&k.rotation_mass, rotation_error(pose.frame_a, pose.frame_b), soft, &mut acc.rotation);
    r.rigid(&Row::linear(normal, arm_a, pose.arm_b), d.dot(normal), &mut acc.lateral[0]);
    r.rigid(&Row::linear(binormal, arm_a, pose.arm_b), d.dot(binormal), &mut acc.lateral[1]);
}
