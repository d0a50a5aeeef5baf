//! The fixed joint (weld): B's frame is held on A's in position and orientation, rigidly or
//! through linear and angular springs. Rows: the rotation lock and the point constraint.

use super::desc::Spring;
use super::pose::rotation_error;
use super::rows::RowSolver;
use super::{JointConstants, JointImpulses, JointPose};
use crate::error::AtollError;
use serde::{Deserialize, Serialize};

/// A weld, rigid unless a spring is given.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FixedJoint {
    /// Makes the position springy (none: rigid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub linear_spring: Option<Spring>,
    /// Makes the orientation springy (none: rigid).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub angular_spring: Option<Spring>,
}

impl FixedJoint {
    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        if let Some(s) = self.linear_spring {
            s.validate()?;
        }
        if let Some(s) = self.angular_spring {
            s.validate()?;
        }
        Ok(())
    }
}

/// One pass over the rows.
pub(crate) fn solve(
    j: &FixedJoint,
    r: &mut RowSolver,
    pose: &JointPose,
    k: &JointConstants,
    acc: &mut JointImpulses,
) {
    let angular =
        if j.angular_spring.is_some_and(|s| s.is_active()) { k.springs[1] } else { r.rigid_feedback() };
    r.rotation(&k.rotation_mass, rotation_error(pose.frame_a, pose.frame_b), angular, &mut acc.rotation);
    let linear =
        if j.linear_spring.is_some_and(|s| s.is_active()) { k.springs[0] } else { r.rigid_feedback() };
    r.point((pose.arm_a, pose.arm_b), pose.separation(), linear, &mut acc.point);
}
