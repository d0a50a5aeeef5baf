//! What a joint is made from: its type with its parameters, its two bodies and their frames,
//! and the options every joint has. Everything is checked before it reaches the world.

use super::{DistanceJoint, FixedJoint, PrismaticJoint, RevoluteJoint, SphericalJoint, WheelJoint};
use crate::body::{BodyId, validate_rotation};
use crate::error::{AtollError, check_finite, check_non_negative, check_vec3};
use crate::math::{Quat, Vec3};
use serde::{Deserialize, Serialize};

/// A joint's frame on one side, in that body's frame (or in world space for the world side):
/// the anchor point and the rotation whose X axis is the joint axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointFrame {
    /// The anchor point.
    pub anchor: Vec3,
    /// The frame's rotation: its X axis is the joint axis, its Y axis the reference for
    /// angles (and a wheel's suspension direction).
    #[serde(default = "identity")]
    pub rotation: Quat,
}

fn identity() -> Quat {
    Quat::IDENTITY
}

impl JointFrame {
    /// A frame at `anchor` with the body's own axes.
    pub fn at(anchor: Vec3) -> JointFrame {
        JointFrame { anchor, rotation: Quat::IDENTITY }
    }

    /// A frame at `anchor` whose X axis is `axis` (normalised; refused when zero or not
    /// finite); Y is the shortest turn of the body's Y to be perpendicular.
    pub fn with_axis(anchor: Vec3, axis: Vec3) -> Result<JointFrame, AtollError> {
        let axis = unit_axis("joint axis", axis)?;
        Ok(JointFrame { anchor, rotation: Quat::from_rotation_arc(Vec3::X, axis) })
    }

    /// A frame at `anchor` with X along `axis` and Y along `normal` made perpendicular to it
    /// (refused when either is zero or not finite, or they are parallel).
    pub fn with_axes(anchor: Vec3, axis: Vec3, normal: Vec3) -> Result<JointFrame, AtollError> {
        let x = unit_axis("joint axis", axis)?;
        let y = check_vec3("joint normal", normal)?;
        let y = y - x * x.dot(y);
        if y.length_squared() < 1e-12 {
            return Err(AtollError::invalid(
                "joint normal",
                format!("{normal} is parallel to the axis {axis}"),
            ));
        }
        let y = y.normalize();
        let z = x.cross(y);
        Ok(JointFrame {
            anchor,
            rotation: Quat::from_mat3(&crate::math::Mat3::from_cols(x, y, z)).normalize(),
        })
    }

    /// This world-space frame seen from a body at `pose`: the same anchor and axes in the
    /// body's frame.
    pub fn in_body(&self, pose: &crate::math::Transform) -> JointFrame {
        JointFrame {
            anchor: pose.inverse_transform_point(self.anchor),
            rotation: (pose.rotation.conjugate() * self.rotation).normalize(),
        }
    }

    /// The frame's X axis (the joint axis), in its body's frame.
    pub fn axis(&self) -> Vec3 {
        self.rotation * Vec3::X
    }

    pub(crate) fn validate(&self, what: &'static str) -> Result<(), AtollError> {
        check_vec3(what, self.anchor)?;
        validate_rotation(self.rotation)
    }
}

/// A unit vector from `v`, refusing zero and non-finite ones.
pub(crate) fn unit_axis(what: &'static str, v: Vec3) -> Result<Vec3, AtollError> {
    check_vec3(what, v)?;
    let length = v.length();
    if length <= 1e-6 || !length.is_finite() {
        return Err(AtollError::invalid(what, format!("{v} has no direction (length {length})")));
    }
    Ok(v / length)
}

/// A spring along (or about) a joint's free coordinate: its natural frequency and damping.
/// A frequency of 0 turns the spring off.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Spring {
    /// Natural frequency, Hz (≥ 0).
    pub hertz: f32,
    /// Damping ratio (1 = critical, ≥ 0).
    pub damping_ratio: f32,
}

impl Spring {
    /// A spring of `hertz` with damping ratio `damping_ratio`.
    pub fn new(hertz: f32, damping_ratio: f32) -> Spring {
        Spring { hertz, damping_ratio }
    }

    /// It pulls at all (its frequency is above 0).
    pub fn is_active(&self) -> bool {
        self.hertz > 0.0
    }

    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        check_non_negative("spring hertz", self.hertz)?;
        check_non_negative("spring damping ratio", self.damping_ratio)?;
        Ok(())
    }
}

/// A velocity motor on a joint's free coordinate: it drives the coordinate's rate towards
/// `speed` with at most `max_force` (a torque for rotations).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Motor {
    /// Target speed: rad/s for rotations, m/s for translations.
    pub speed: f32,
    /// Largest force (N) or torque (N·m) the motor applies (≥ 0).
    pub max_force: f32,
}

impl Motor {
    /// A motor driving towards `speed` with at most `max_force`.
    pub fn new(speed: f32, max_force: f32) -> Motor {
        Motor { speed, max_force }
    }

    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        check_finite("motor speed", self.speed)?;
        check_non_negative("motor max force", self.max_force)?;
        Ok(())
    }
}

/// Checks what drives a joint's free coordinate: its limits (within ±`bound` when given: an
/// angle's within a turn), its motor and its spring.
pub(crate) fn validate_drive(
    limits: Option<Limits>,
    limits_what: &'static str,
    bound: Option<f32>,
    motor: Option<Motor>,
    spring: Option<Spring>,
) -> Result<(), AtollError> {
    if let Some(l) = limits {
        match bound {
            Some(bound) => l.validate_within(limits_what, bound)?,
            None => l.validate(limits_what)?,
        }
    }
    if let Some(m) = motor {
        m.validate()?;
    }
    if let Some(s) = spring {
        s.validate()?;
    }
    Ok(())
}

/// A range for a joint coordinate: radians for angles, metres for translations.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Limits {
    /// Lowest value.
    pub lower: f32,
    /// Highest value (≥ `lower`).
    pub upper: f32,
}

impl Limits {
    /// The range `lower..=upper`.
    pub fn new(lower: f32, upper: f32) -> Limits {
        Limits { lower, upper }
    }

    pub(crate) fn validate(&self, what: &'static str) -> Result<(), AtollError> {
        check_finite(what, self.lower)?;
        check_finite(what, self.upper)?;
        if self.lower > self.upper {
            return Err(AtollError::invalid(
                what,
                format!("the lower limit {} is above the upper limit {}", self.lower, self.upper),
            ));
        }
        Ok(())
    }

    /// The range checked to lie within `-bound..=bound` (angles within a turn).
    pub(crate) fn validate_within(&self, what: &'static str, bound: f32) -> Result<(), AtollError> {
        self.validate(what)?;
        if self.lower < -bound || self.upper > bound {
            return Err(AtollError::invalid(
                what,
                format!("{}..{} must lie within -{bound}..{bound}", self.lower, self.upper),
            ));
        }
        Ok(())
    }
}

/// The type of a joint, with its own parameters.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub enum JointKind {
    /// A hinge: one free rotation about the axis.
    Revolute(RevoluteJoint),
    /// A ball and socket: free rotation, optionally within a cone and a twist range.
    Spherical(SphericalJoint),
    /// A slider: one free translation along the axis, rotation locked.
    Prismatic(PrismaticJoint),
    /// A weld: all six degrees locked, rigid or springy.
    Fixed(FixedJoint),
    /// Keeps the anchors at a length, or within a range (a rope).
    Distance(DistanceJoint),
    /// A wheel: spin about the axis, suspension along A's frame Y axis.
    Wheel(WheelJoint),
}

/// The type of a joint without its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum JointType {
    /// Hinge.
    Revolute,
    /// Ball and socket.
    Spherical,
    /// Slider.
    Prismatic,
    /// Weld.
    Fixed,
    /// Distance or rope.
    Distance,
    /// Wheel with suspension.
    Wheel,
}

impl JointType {
    /// Every type, in menu order.
    pub const ALL: [JointType; 6] = [
        JointType::Revolute,
        JointType::Spherical,
        JointType::Prismatic,
        JointType::Fixed,
        JointType::Distance,
        JointType::Wheel,
    ];

    /// A lower-case name for display.
    pub fn name(self) -> &'static str {
        match self {
            JointType::Revolute => "revolute",
            JointType::Spherical => "spherical",
            JointType::Prismatic => "prismatic",
            JointType::Fixed => "fixed",
            JointType::Distance => "distance",
            JointType::Wheel => "wheel",
        }
    }
}

impl JointKind {
    /// Its type.
    pub fn joint_type(&self) -> JointType {
        match self {
            JointKind::Revolute(_) => JointType::Revolute,
            JointKind::Spherical(_) => JointType::Spherical,
            JointKind::Prismatic(_) => JointType::Prismatic,
            JointKind::Fixed(_) => JointType::Fixed,
            JointKind::Distance(_) => JointType::Distance,
            JointKind::Wheel(_) => JointType::Wheel,
        }
    }

    /// The type's parameters at their defaults (no limits, motors or springs; a distance
    /// joint of length 1).
    pub fn default_of(joint_type: JointType) -> JointKind {
        match joint_type {
            JointType::Revolute => JointKind::Revolute(RevoluteJoint::default()),
            JointType::Spherical => JointKind::Spherical(SphericalJoint::default()),
            JointType::Prismatic => JointKind::Prismatic(PrismaticJoint::default()),
            JointType::Fixed => JointKind::Fixed(FixedJoint::default()),
            JointType::Distance => JointKind::Distance(DistanceJoint::default()),
            JointType::Wheel => JointKind::Wheel(WheelJoint::default()),
        }
    }

    pub(crate) fn validate(&self) -> Result<(), AtollError> {
        match self {
            JointKind::Revolute(j) => j.validate(),
            JointKind::Spherical(j) => j.validate(),
            JointKind::Prismatic(j) => j.validate(),
            JointKind::Fixed(j) => j.validate(),
            JointKind::Distance(j) => j.validate(),
            JointKind::Wheel(j) => j.validate(),
        }
    }
}

/// Everything needed to create a joint.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct JointDesc {
    /// The type and its parameters.
    pub kind: JointKind,
    /// Body A, or `None` to anchor side A to the world (its frame is then in world space).
    pub body_a: Option<BodyId>,
    /// Body B.
    pub body_b: BodyId,
    /// A's frame in A's body frame (world space for the world).
    pub frame_a: JointFrame,
    /// B's frame in B's body frame.
    pub frame_b: JointFrame,
    /// The two bodies collide with each other (default false).
    pub collide_connected: bool,
    /// Solved with the step (default true).
    pub enabled: bool,
    /// The joint breaks (is reported and disabled) when its force exceeds this, N.
    pub break_force: Option<f32>,
    /// The joint breaks when its torque exceeds this, N·m.
    pub break_torque: Option<f32>,
}

impl JointDesc {
    /// A joint of `kind` between `body_a` (or the world) and `body_b`, both frames at their
    /// bodies' origins with the bodies' axes; set the frames before creating it (see
    /// [`crate::World::joint_desc_at`] to place both at one world point).
    pub fn new(kind: JointKind, body_a: Option<BodyId>, body_b: BodyId) -> JointDesc {
        JointDesc {
            kind,
            body_a,
            body_b,
            frame_a: JointFrame::at(Vec3::ZERO),
            frame_b: JointFrame::at(Vec3::ZERO),
            collide_connected: false,
            enabled: true,
            break_force: None,
            break_torque: None,
        }
    }

    /// Checks everything that does not need the world: parameters, frames and thresholds.
    pub fn validate(&self) -> Result<(), AtollError> {
        self.kind.validate()?;
        self.frame_a.validate("joint frame A anchor")?;
        self.frame_b.validate("joint frame B anchor")?;
        if let Some(f) = self.break_force {
            check_non_negative("break force", f)?;
        }
        if let Some(t) = self.break_torque {
            check_non_negative("break torque", t)?;
        }
        if self.body_a == Some(self.body_b) {
            return Err(AtollError::invalid("joint bodies", "a joint cannot link a body to itself"));
        }
        Ok(())
    }
}
