//! The spherical joint (ball and socket): the anchors meet, rotation is free. Rows: friction,
//! a spring towards a target orientation, a swing cone about A's axis, a twist range about it,
//! and the point constraint.

use super::desc::{Limits, Spring};
use super::pose::rotation_error;
use super::rows::{Row, RowSolver};
use super::{JointConstants, JointImpulses, JointPose};
use crate::error::{AtollError, check_finite, check_non_negative};
use crate::math::Quat;
use serde::{Deserialize, Serialize};
use std::f32::consts::PI;

/// A ball and socket.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SphericalJoint {
    /// Largest angle between the frames' X axes (the cone's half angle), radians in 0..=π.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub swing_limit: Option<f32>,
    /// Twist range about the X axis, radians within -π..=π.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub twist_limits: Option<Limits>,
    /// Pulls B's frame towards `target_rotation` relative to A's.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spring: Option<Spring>,
    /// The spring's rest orientation of B's frame in A's frame.
    pub target_rotation: Quat,
    /// Dry friction: the largest torque (N·m) resisting any relative rotation, 0 for none.
    /// Ragdolls need a little, or a limb resting on its cone rolls about it for ever.
    pub friction: f32,
}

impl Default for SphericalJoint {
    fn default() -> Self {
        SphericalJoint {
            swing_limit: None,
            twist_limits: None,
            spring: None,
            target_rotation: Quat::IDENTITY,
            friction: 0.0,
        }
    }
}

impl SphericalJoint {
    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        if let Some(cone) = self.swing_limit {
            check_finite("swing limit", cone)?;
            if !(0.0..=PI).contains(&cone) {
                return Err(AtollError::invalid("swing limit", format!("must be within 0..=π, got {cone}")));
            }
        }
        if let Some(l) = self.twist_limits {
            l.validate_within("twist limits", PI)?;
        }
        if let Some(s) = self.spring {
            s.validate()?;
        }
        check_non_negative("spherical friction", self.friction)?;
        crate::body::validate_rotation(self.target_rotation)
    }
}

/// One pass over the rows.
pub(crate) fn solve(
    j: &SphericalJoint,
    r: &mut RowSolver,
    pose: &JointPose,
    k: &JointConstants,
    acc: &mut JointImpulses,
) {
    if j.friction > 0.0 {
        r.rotation_friction(&k.rotation_mass, j.friction * r.h, &mut acc.friction);
    }
    if j.spring.is_some_and(|s| s.is_active()) {
        let error = rotation_error(pose.frame_a * j.target_rotation, pose.frame_b);
        r.rotation(&k.rotation_mass, error, k.springs[0], &mut acc.rotation);
    }
    let (a, b) = (pose.axes_a().0, pose.axis_b());
    if let Some(cone) = j.swing_limit {
        let n = a.cross(b);
        let sine = n.length();
        // Straight along the axis the swing has no direction, and is far from any limit.
        if sine > 1e-6 {
            let swing = sine.atan2(a.dot(b));
            // The swing grows as B turns about a × b.
            r.limit(&Row::angular(-n / sine), cone - swing, &mut acc.swing);
        }
    }
    if let Some(l) = j.twist_limits {
        let twist = pose.twist();
        let axis = Row::angular((a + b).normalize_or(a));
        r.limit(&axis, twist - l.lower, &mut acc.lower);
        r.limit(&axis.negated(), l.upper - twist, &mut acc.upper);
    }
    let soft = r.rigid_feedback();
    r.point((pose.arm_a, pose.arm_b), pose.separation(), soft, &mut acc.point);
}
