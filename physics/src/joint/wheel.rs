//! The wheel joint: B spins about the axis and rides a suspension along A's frame Y axis.
//! Rows: the suspension spring and limits, the spin motor, two rows keeping B's anchor on the
//! suspension line, and two keeping B's axis on A's.

use super::desc::{Limits, Motor, Spring, validate_drive};
use super::revolute::keep_axes_aligned;
use super::rows::{Row, RowSolver};
use super::{JointConstants, JointImpulses, JointPose};
use crate::error::AtollError;
use serde::{Deserialize, Serialize};

/// A wheel on a suspension.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct WheelJoint {
    /// Drives the spin (rad/s) with at most `max_force` N·m.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub motor: Option<Motor>,
    /// The suspension spring, pulling the anchors together along the suspension axis. Always
    /// written, `None` too: a file that leaves it out gets the default spring (files from
    /// before this rule meant that), so a wheel without one must say so to come back without.
    pub suspension: Option<Spring>,
    /// Suspension travel range, metres (B's anchor along A's Y axis from A's anchor).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub suspension_limits: Option<Limits>,
}

impl Default for WheelJoint {
    fn default() -> Self {
        WheelJoint { motor: None, suspension: Some(Spring::new(4.0, 0.7)), suspension_limits: None }
    }
}

impl WheelJoint {
    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        validate_drive(self.suspension_limits, "suspension limits", None, self.motor, self.suspension)
    }
}

/// One pass over the rows.
pub(crate) fn solve(
    j: &WheelJoint,
    r: &mut RowSolver,
    pose: &JointPose,
    k: &JointConstants,
    acc: &mut JointImpulses,
) {
    let (axis, up, side) = pose.axes_a();
    let d = pose.separation();
    let arm_a = pose.arm_a + d;
    let travel = d.dot(up);
    let suspension = Row::linear(up, arm_a, pose.arm_b);
    if j.suspension.is_some_and(|s| s.is_active()) {
        r.spring(&suspension, travel, k.springs[0], &mut acc.spring);
    }
    if let Some(l) = j.suspension_limits {
        r.limit(&suspension, travel - l.lower, &mut acc.lower);
        r.limit(&suspension.negated(), l.upper - travel, &mut acc.upper);
    }
    if let Some(m) = j.motor {
        r.motor(&Row::angular(axis), m.speed, m.max_force * r.h, &mut acc.motor);
    }
    r.rigid(&Row::linear(axis, arm_a, pose.arm_b), d.dot(axis), &mut acc.lateral[0]);
    r.rigid(&Row::linear(side, arm_a, pose.arm_b), d.dot(side), &mut acc.lateral[1]);
    keep_axes_aligned(r, pose.axis_b(), up, side, &mut acc.tilt);
}
