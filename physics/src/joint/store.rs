//! The joint array: every joint's description, its place in the body graph and its island,
//! and the impulses it keeps from step to step for warm starting.

use super::{JointDesc, JointFrame, JointId, JointKind};
use crate::body::EdgeLink;
use crate::body::NONE;
use crate::error::AtollError;
use crate::island::IslandLink;
use crate::math::Vec3;

/// The accumulated impulses of a joint's rows (per substep), kept for warm starting. Each
/// type uses the fields its rows need.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct JointImpulses {
    /// The point constraint's impulse, world axes.
    pub point: Vec3,
    /// The rotation lock's (or orientation spring's) angular impulse, world axes.
    pub rotation: Vec3,
    /// The spring row (or a distance joint's rigid row).
    pub spring: f32,
    pub motor: f32,
    pub lower: f32,
    pub upper: f32,
    /// A spherical joint's swing cone.
    pub swing: f32,
    /// A spherical joint's friction, world axes.
    pub friction: Vec3,
    /// Rows keeping B's anchor on A's axis or suspension line.
    pub lateral: [f32; 2],
    /// Rows keeping B's axis on A's.
    pub tilt: [f32; 2],
}

impl JointImpulses {
    /// Every impulse, for the state hash.
    pub fn words(&self) -> [f32; 18] {
        let (p, r, f) = (self.point, self.rotation, self.friction);
        [
            p.x,
            p.y,
            p.z,
            r.x,
            r.y,
            r.z,
            f.x,
            f.y,
            f.z,
            self.spring,
            self.motor,
            self.lower,
            self.upper,
            self.swing,
            self.lateral[0],
            self.lateral[1],
            self.tilt[0],
            self.tilt[1],
        ]
    }
}

/// One joint. Kept private: the world reports it through [`super::JointView`].
///
/// What walking a body's joint list reads (the sides, the list links, whether the joint keeps
/// its bodies from colliding) comes first, in one aligned 32-byte block and so in one cache
/// line: the pair finding walks the lists of every moved proxy in a jointed net for each
/// neighbour it finds, and spread over three lines of the joint those walks were most of the
/// joint grid's pair stage.
#[derive(Clone, Debug)]
#[repr(C, align(32))]
pub(crate) struct Joint {
    /// Body slot of side A, or [`NONE`] for the world.
    pub body_a: u32,
    pub body_b: u32,
    /// Links in each body's joint list: `edges[0]` for A, `edges[1]` for B.
    pub edges: [EdgeLink; 2],
    pub enabled: bool,
    pub collide_connected: bool,
    pub alive: bool,
    /// What the solver's sorting pass reads of `kind` and the breaking thresholds, here in the
    /// first block rather than two cache lines further on: a grid's 19 800 joints are sorted
    /// every step. Kept by [`Joint::from_desc`] and [`Joint::set_solve_inputs`].
    class: SolveClass,
    pub generation: u32,
    /// Written with the thresholds through [`Joint::set_solve_inputs`], which keeps `class`.
    pub kind: JointKind,
    pub frame_a: JointFrame,
    pub frame_b: JointFrame,
    /// Breaking thresholds (infinite: unbreakable), written through
    /// [`Joint::set_solve_inputs`].
    pub break_force: f32,
    pub break_torque: f32,
    /// A limit pushed in the last step.
    pub limit_active: bool,
    /// The island it is an edge of (enabled joints between two dynamic bodies only).
    pub island: IslandLink,
    pub impulses: JointImpulses,
    /// The force and torque on B in the last step it was solved, N and N·m.
    pub force: Vec3,
    pub torque: Vec3,
    /// The motor's force or torque in the last step.
    pub motor_load: f32,
}

// The list walk's fields and the sorting pass's in the first 32 bytes (see [`Joint`]).
const _: () = assert!(
    std::mem::align_of::<Joint>() == 32
        && std::mem::offset_of!(Joint, generation) + 4 <= 32
        && std::mem::offset_of!(Joint, edges) < 32
        && std::mem::offset_of!(Joint, collide_connected) < 32
        && std::mem::offset_of!(Joint, enabled) < 32
        && std::mem::offset_of!(Joint, class) < 32
);

/// How a joint's type and thresholds place it in the solve: a plain ball joint (a spherical
/// joint with nothing but its point constraint) is solved four at a time, and only a
/// breakable joint is looked at for breaking after the solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct SolveClass(u8);

impl SolveClass {
    const PLAIN_BALL: u8 = 1;
    const BREAKABLE: u8 = 2;

    /// The class of a joint of `kind` breaking at `break_force` or `break_torque`.
    pub fn of(kind: &JointKind, break_force: f32, break_torque: f32) -> SolveClass {
        let plain_ball = matches!(kind, JointKind::Spherical(j)
            if j.swing_limit.is_none() && j.twist_limits.is_none() && j.friction == 0.0
                && !j.spring.is_some_and(|s| s.is_active()));
        let breakable = break_force.is_finite() || break_torque.is_finite();
        SolveClass((u8::from(plain_ball) * Self::PLAIN_BALL) | (u8::from(breakable) * Self::BREAKABLE))
    }

    /// Solved four at a time with its point constraint alone.
    pub fn plain_ball(self) -> bool {
        self.0 & Self::PLAIN_BALL != 0
    }

    /// Has a finite breaking force or torque.
    pub fn breakable(self) -> bool {
        self.0 & Self::BREAKABLE != 0
    }
}

impl Joint {
    /// A new joint in the world's slots `body_a` and `body_b`.
    pub(crate) fn from_desc(desc: &JointDesc, body_a: u32, body_b: u32, generation: u32) -> Joint {
        let mut joint = Joint {
            generation,
            alive: true,
            kind: desc.kind,
            body_a,
            body_b,
            frame_a: desc.frame_a,
            frame_b: desc.frame_b,
            collide_connected: desc.collide_connected,
            enabled: desc.enabled,
            class: SolveClass::default(),
            break_force: 0.0,
            break_torque: 0.0,
            edges: [EdgeLink::default(); 2],
            island: IslandLink::NONE,
            impulses: JointImpulses::default(),
            force: Vec3::ZERO,
            torque: Vec3::ZERO,
            motor_load: 0.0,
            limit_active: false,
        };
        joint.set_solve_inputs(desc.kind, desc.break_force, desc.break_torque);
        joint
    }

    /// How the solver places it ([`SolveClass`]).
    pub fn class(&self) -> SolveClass {
        self.class
    }

    /// Sets what decides the joint's [`SolveClass`], and the class with it: its type and
    /// parameters and its breaking thresholds (`None`: unbreakable).
    pub fn set_solve_inputs(&mut self, kind: JointKind, break_force: Option<f32>, break_torque: Option<f32>) {
        self.kind = kind;
        self.break_force = break_force.unwrap_or(f32::INFINITY);
        self.break_torque = break_torque.unwrap_or(f32::INFINITY);
        self.class = SolveClass::of(&self.kind, self.break_force, self.break_torque);
    }

    /// Forgets what the last solve left (on creation, enabling and disabling).
    pub fn clear_solution(&mut self) {
        self.impulses = JointImpulses::default();
        self.force = Vec3::ZERO;
        self.torque = Vec3::ZERO;
        self.motor_load = 0.0;
        self.limit_active = false;
    }

    /// The other side of the joint from body slot `body` ([`NONE`] for the world).
    pub fn other(&self, body: u32) -> u32 {
        if self.body_a == body { self.body_b } else { self.body_a }
    }
}

/// The dense joint array with a free list of destroyed slots.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointStore {
    pub joints: Vec<Joint>,
    free: Vec<u32>,
    live: usize,
}

impl JointStore {
    /// Stores a joint between body slots `body_a` (or [`NONE`]) and `body_b`.
    pub fn insert(&mut self, desc: &JointDesc, body_a: u32, body_b: u32) -> JointId {
        self.live += 1;
        if let Some(index) = self.free.pop() {
            let generation = self.joints[index as usize].generation.wrapping_add(1);
            self.joints[index as usize] = Joint::from_desc(desc, body_a, body_b, generation);
            JointId::new(index, generation)
        } else {
            let index = self.joints.len() as u32;
            self.joints.push(Joint::from_desc(desc, body_a, body_b, 0));
            JointId::new(index, 0)
        }
    }

    /// Frees slot `index`.
    pub fn remove(&mut self, index: u32) {
        let joint = &mut self.joints[index as usize];
        joint.alive = false;
        joint.body_a = NONE;
        joint.body_b = NONE;
        self.free.push(index);
        self.live -= 1;
    }

    /// The slot of a live joint; a stale id is refused.
    pub fn slot(&self, id: JointId) -> Result<u32, AtollError> {
        match self.joints.get(id.index() as usize) {
            Some(j) if j.alive && j.generation == id.generation() => Ok(id.index()),
            _ => Err(AtollError::StaleJointId),
        }
    }

    /// The id of the live joint in slot `index`.
    pub fn id_at(&self, index: u32) -> JointId {
        JointId::new(index, self.joints[index as usize].generation)
    }

    /// Live joints.
    pub fn live_count(&self) -> usize {
        self.live
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::joint::{JointType, Limits, SphericalJoint};

    /// The class follows the kind and the thresholds through creation and every change: a
    /// plain ball joint until it gets a limit, friction or a live spring; breakable once a
    /// threshold is finite; nothing else is a plain ball.
    #[test]
    fn the_solve_class_follows_the_kind_and_the_thresholds() {
        let body = crate::body::BodyId::new(1, 0);
        let plain = JointKind::Spherical(SphericalJoint::default());
        let mut desc = JointDesc::new(plain, None, body);
        let mut joint = Joint::from_desc(&desc, NONE, 1, 0);
        assert!(joint.class().plain_ball() && !joint.class().breakable());
        desc.break_torque = Some(50.0);
        joint = Joint::from_desc(&desc, NONE, 1, 0);
        assert!(joint.class().plain_ball() && joint.class().breakable());
        let limited = JointKind::Spherical(SphericalJoint {
            twist_limits: Some(Limits::new(-0.5, 0.5)),
            ..Default::default()
        });
        joint.set_solve_inputs(limited, None, None);
        assert!(!joint.class().plain_ball() && !joint.class().breakable());
        let rubbing = JointKind::Spherical(SphericalJoint { friction: 0.1, ..Default::default() });
        joint.set_solve_inputs(rubbing, Some(1.0), None);
        assert!(!joint.class().plain_ball() && joint.class().breakable());
        for t in JointType::ALL.into_iter().filter(|&t| t != JointType::Spherical) {
            joint.set_solve_inputs(JointKind::default_of(t), None, None);
            assert_eq!(joint.class(), SolveClass::default(), "{t:?}");
        }
        joint.set_solve_inputs(plain, None, None);
        assert_eq!(joint.class(), SolveClass::of(&plain, f32::INFINITY, f32::INFINITY));
        assert!(joint.class().plain_ball());
    }
}
