//! The distance joint: the anchors are held at a length (rigidly, or by a spring), or kept
//! within a range (a rope when the range starts at 0). Rows along the line between the anchors.

use super::desc::{Limits, Spring};
use super::rows::{Row, RowSolver};
use super::{JointConstants, JointImpulses, JointPose};
use crate::error::{AtollError, check_non_negative};
use serde::{Deserialize, Serialize};

/// Holds the anchors' distance.
///
/// - With an active spring, the spring pulls towards `length` and the limits (if any) hold.
/// - Without a spring but with limits, the distance is free within them (a rope: `0..max`).
/// - With neither, the distance is held rigidly at `length`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct DistanceJoint {
    /// Rest length, metres.
    pub length: f32,
    /// Pulls towards `length`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub spring: Option<Spring>,
    /// Shortest and longest allowed distance, metres (lower ≥ 0).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limits: Option<Limits>,
}

impl Default for DistanceJoint {
    fn default() -> Self {
        DistanceJoint { length: 1.0, spring: None, limits: None }
    }
}

impl DistanceJoint {
    /// A rigid rod of `length`.
    pub fn rigid(length: f32) -> DistanceJoint {
        DistanceJoint { length, ..Default::default() }
    }

    /// A rope: any distance up to `max_length`.
    pub fn rope(max_length: f32) -> DistanceJoint {
        DistanceJoint { length: max_length, spring: None, limits: Some(Limits::new(0.0, max_length)) }
    }

    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        check_non_negative("distance length", self.length)?;
        if let Some(s) = self.spring {
            s.validate()?;
        }
        if let Some(l) = self.limits {
            l.validate("distance limits")?;
            check_non_negative("distance lower limit", l.lower)?;
        }
        Ok(())
    }
}

/// One pass over the rows.
pub(crate) fn solve(
    j: &DistanceJoint,
    r: &mut RowSolver,
    pose: &JointPose,
    k: &JointConstants,
    acc: &mut JointImpulses,
) {
    let d = pose.separation();
    let length = d.length();
    // With the anchors together the line has no direction; A's axis stands in.
    let direction = if length > 1e-6 { d / length } else { pose.axes_a().0 };
    let row = Row::linear(direction, pose.arm_a, pose.arm_b);
    if j.spring.is_some_and(|s| s.is_active()) {
        r.spring(&row, length - j.length, k.springs[0], &mut acc.spring);
    } else if j.limits.is_none() {
        r.rigid(&row, length - j.length, &mut acc.spring);
    }
    if let Some(l) = j.limits {
        r.limit(&row, length - l.lower, &mut acc.lower);
        r.limit(&row.negated(), l.upper - length, &mut acc.upper);
    }
}
