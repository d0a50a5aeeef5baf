//! The engine's error type: every rejected input says what was wrong.

use std::fmt;

/// An error returned by the engine's API. Nothing invalid ever enters the world.
#[derive(Clone, Debug, PartialEq)]
pub enum AtollError {
    /// A value was non-finite, out of range or geometrically degenerate.
    InvalidInput {
        /// Which input (for example `"sphere radius"`).
        what: &'static str,
        /// Why it was refused, with the offending value.
        reason: String,
    },
    /// A body id that does not name a live body (destroyed or never created).
    StaleBodyId,
    /// An island id that does not name a live island (merged into another, emptied, or never
    /// created).
    StaleIslandId,
    /// A contact id that does not name a live contact pair (destroyed or never created).
    StaleContactId,
    /// A joint id that does not name a live joint (destroyed or never created).
    StaleJointId,
    /// A terrain edit or voxel access reached outside the terrain's world bounds.
    OutOfTerrainBounds {
        /// Which input (for example `"brush centre"`).
        what: &'static str,
        /// Where it was and what the bounds are.
        reason: String,
    },
}

impl AtollError {
    /// Shorthand for [`AtollError::InvalidInput`].
    pub fn invalid(what: &'static str, reason: impl Into<String>) -> Self {
        AtollError::InvalidInput { what, reason: reason.into() }
    }
}

impl fmt::Display for AtollError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AtollError::InvalidInput { what, reason } => write!(f, "invalid {what}: {reason}"),
            AtollError::StaleBodyId => write!(f, "the body id does not name a live body"),
            AtollError::StaleIslandId => write!(f, "the island id does not name a live island"),
            AtollError::StaleContactId => write!(f, "the contact id does not name a live contact pair"),
            AtollError::StaleJointId => write!(f, "the joint id does not name a live joint"),
            AtollError::OutOfTerrainBounds { what, reason } => {
                write!(f, "{what} lies outside the terrain bounds: {reason}")
            }
        }
    }
}

impl std::error::Error for AtollError {}

/// Checks that `v` is finite; names the input otherwise.
pub(crate) fn check_finite(what: &'static str, v: f32) -> Result<f32, AtollError> {
    if v.is_finite() { Ok(v) } else { Err(AtollError::invalid(what, format!("{v} is not finite"))) }
}

/// Checks that `v` is finite and strictly positive.
pub(crate) fn check_positive(what: &'static str, v: f32) -> Result<f32, AtollError> {
    check_finite(what, v)?;
    if v > 0.0 { Ok(v) } else { Err(AtollError::invalid(what, format!("must be > 0, got {v}"))) }
}

/// Checks that `v` is finite and not negative.
pub(crate) fn check_non_negative(what: &'static str, v: f32) -> Result<f32, AtollError> {
    check_finite(what, v)?;
    if v >= 0.0 { Ok(v) } else { Err(AtollError::invalid(what, format!("must be >= 0, got {v}"))) }
}

/// Checks that every component of `v` is finite.
pub(crate) fn check_vec3(what: &'static str, v: glam::Vec3) -> Result<glam::Vec3, AtollError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(AtollError::invalid(what, format!("{v} has a non-finite component")))
    }
}

/// Checks a rotation is finite and close enough to unit length to be normalised safely.
pub(crate) fn validate_rotation(q: glam::Quat) -> Result<(), AtollError> {
    if !q.is_finite() {
        return Err(AtollError::invalid("rotation", format!("{q} has a non-finite component")));
    }
    if (q.length() - 1.0).abs() > 1e-3 {
        return Err(AtollError::invalid(
            "rotation",
            format!("{q} is not a unit quaternion (length {})", q.length()),
        ));
    }
    Ok(())
}
