//! Where a joint's two frames are: the anchors relative to the bodies' centres of mass, the
//! vector between the centres, and the frames' world rotations. The solver takes one at the
//! start of a step and moves it by each body's motion since, so every substep sees the current
//! pose without touching the bodies' transforms.

use super::Joint;
use crate::body::{Body, NONE};
use crate::math::{Quat, Transform, Vec3};

/// The pose of a joint's frames.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct JointPose {
    /// A's anchor relative to A's centre of mass, world axes.
    pub arm_a: Vec3,
    /// B's anchor relative to B's centre of mass, world axes.
    pub arm_b: Vec3,
    /// B's centre of mass minus A's.
    pub delta_center: Vec3,
    /// A's frame rotation in world space.
    pub frame_a: Quat,
    /// B's frame rotation in world space.
    pub frame_b: Quat,
}

/// One side of a joint as the pose needs it: the body's pose and centre of mass in its frame.
/// The world side is the identity pose with its centre at the origin.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PoseSide {
    pub transform: Transform,
    pub local_center: Vec3,
}

impl PoseSide {
    /// The world as a joint side.
    pub const WORLD: PoseSide = PoseSide { transform: Transform::IDENTITY, local_center: Vec3::ZERO };
}

/// Where a joint's anchors are: the part of its pose a plain ball joint reads.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Anchors {
    /// A's anchor relative to A's centre of mass, world axes.
    pub arm_a: Vec3,
    /// B's anchor relative to B's centre of mass, world axes.
    pub arm_b: Vec3,
    /// B's centre of mass minus A's.
    pub delta_center: Vec3,
}

impl Anchors {
    /// The anchors `anchor_a` and `anchor_b` (in their bodies' frames) of sides `a` and `b`.
    #[inline]
    pub fn new(a: &PoseSide, anchor_a: Vec3, b: &PoseSide, anchor_b: Vec3) -> Anchors {
        let center_a = a.transform.transform_point(a.local_center);
        let center_b = b.transform.transform_point(b.local_center);
        Anchors {
            arm_a: a.transform.rotation * (anchor_a - a.local_center),
            arm_b: b.transform.rotation * (anchor_b - b.local_center),
            delta_center: center_b - center_a,
        }
    }
}

/// Joint `j`'s two sides with their bodies (by slot in `bodies`) where they are now.
#[inline]
fn sides(j: &Joint, bodies: &[Body]) -> (PoseSide, PoseSide) {
    let side = |body: u32| {
        if body == NONE {
            PoseSide::WORLD
        } else {
            let b = &bodies[body as usize];
            PoseSide { transform: b.transform, local_center: b.local_center }
        }
    };
    (side(j.body_a), side(j.body_b))
}

impl JointPose {
    /// Joint `j`'s pose with its sides' bodies (by slot in `bodies`) where they are now.
    pub fn of(j: &Joint, bodies: &[Body]) -> JointPose {
        let (a, b) = sides(j, bodies);
        JointPose::new(&a, (j.frame_a.anchor, j.frame_a.rotation), &b, (j.frame_b.anchor, j.frame_b.rotation))
    }

    /// What [`JointPose::of`] gives of the anchors alone, the same bits: the arms and the
    /// centres' offset, without turning the frames, which a plain ball joint never reads (the
    /// poses of its fill were a twentieth of the joint grid's instructions, some 30 % of them
    /// the frames).
    // Always inlined: the plain ball joints' fill calls it for every joint, and once the direct
    // solve called it too, it was no longer inlined there (the joint grid +0.8 % instructions).
    #[inline(always)]
    pub fn anchors_of(j: &Joint, bodies: &[Body]) -> Anchors {
        let (a, b) = sides(j, bodies);
        Anchors::new(&a, j.frame_a.anchor, &b, j.frame_b.anchor)
    }

    /// The pose of frames `(anchor, rotation)` on sides `a` and `b`.
    pub fn new(a: &PoseSide, frame_a: (Vec3, Quat), b: &PoseSide, frame_b: (Vec3, Quat)) -> JointPose {
        let Anchors { arm_a, arm_b, delta_center } = Anchors::new(a, frame_a.0, b, frame_b.0);
        JointPose {
            arm_a,
            arm_b,
            delta_center,
            frame_a: a.transform.rotation * frame_a.1,
            frame_b: b.transform.rotation * frame_b.1,
        }
    }

    /// This pose after A turned by `turn_a` and moved its centre by `moved_a`, and B likewise.
    #[inline]
    pub fn moved(&self, turn_a: Quat, moved_a: Vec3, turn_b: Quat, moved_b: Vec3) -> JointPose {
        JointPose {
            arm_a: turn_a * self.arm_a,
            arm_b: turn_b * self.arm_b,
            delta_center: self.delta_center + moved_b - moved_a,
            frame_a: turn_a * self.frame_a,
            frame_b: turn_b * self.frame_b,
        }
    }

    /// From A's anchor to B's anchor.
    #[inline]
    pub fn separation(&self) -> Vec3 {
        self.delta_center + self.arm_b - self.arm_a
    }

    /// A's frame axes in world space: X (the joint axis), Y and Z.
    #[inline]
    pub fn axes_a(&self) -> (Vec3, Vec3, Vec3) {
        (self.frame_a * Vec3::X, self.frame_a * Vec3::Y, self.frame_a * Vec3::Z)
    }

    /// B's frame X axis in world space.
    #[inline]
    pub fn axis_b(&self) -> Vec3 {
        self.frame_b * Vec3::X
    }

    /// B's frame relative to A's, in A's frame.
    #[inline]
    pub fn relative_rotation(&self) -> Quat {
        self.frame_a.conjugate() * self.frame_b
    }

    /// The angle B's frame has turned about X relative to A's (the twist of a swing-twist
    /// split), in -π..=π.
    #[inline]
    pub fn twist(&self) -> f32 {
        let q = self.relative_rotation();
        let angle = 2.0 * q.x.atan2(q.w);
        wrap_angle(angle)
    }

    /// The angle between the two frames' X axes, 0..=π.
    #[inline]
    pub fn swing(&self) -> f32 {
        let (a, b) = (self.frame_a * Vec3::X, self.frame_b * Vec3::X);
        a.cross(b).length().atan2(a.dot(b))
    }
}

/// `angle` wrapped into -π..=π.
#[inline]
pub(crate) fn wrap_angle(angle: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    if angle > PI {
        angle - TAU
    } else if angle < -PI {
        angle + TAU
    } else {
        angle
    }
}

/// The rotation vector that takes frame `a` to frame `b` (world axes), the short way round:
/// its rate of change is B's angular velocity minus A's while it is small.
#[inline]
pub(crate) fn rotation_error(a: Quat, b: Quat) -> Vec3 {
    let q = b * a.conjugate();
    let v = Vec3::new(q.x, q.y, q.z);
    if q.w < 0.0 { -2.0 * v } else { 2.0 * v }
}
