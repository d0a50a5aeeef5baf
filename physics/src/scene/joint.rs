//! Joints in scene files: each names its bodies by their index in the scene's `bodies` list or
//! by their name, and is checked while it is read, so a bad entry reports its line, column and
//! field like every other scene error.

use super::fields::BoundedSeq;
use crate::body::{BodyId, BodyType};
use crate::error::AtollError;
use crate::joint::{JointDesc, JointFrame, JointKind};
use serde::de::{Error, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::cell::RefCell;
use std::fmt;

/// A body named by a scene joint: its index in the scene's `bodies` list, or its name there
/// (names must then be unique).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BodyRef {
    /// The body at this index.
    Index(usize),
    /// The body of this name.
    Name(String),
}

impl Serialize for BodyRef {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BodyRef::Index(i) => s.serialize_u64(*i as u64),
            BodyRef::Name(n) => s.serialize_str(n),
        }
    }
}

impl<'de> Deserialize<'de> for BodyRef {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<BodyRef, D::Error> {
        struct RefVisitor;
        impl Visitor<'_> for RefVisitor {
            type Value = BodyRef;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                write!(f, "a body's index in `bodies` or its name")
            }
            fn visit_u64<E: Error>(self, v: u64) -> Result<BodyRef, E> {
                Ok(BodyRef::Index(v as usize))
            }
            fn visit_i64<E: Error>(self, v: i64) -> Result<BodyRef, E> {
                usize::try_from(v)
                    .map(BodyRef::Index)
                    .map_err(|_| E::custom(format!("no body has index {v}")))
            }
            fn visit_str<E: Error>(self, v: &str) -> Result<BodyRef, E> {
                Ok(BodyRef::Name(v.to_string()))
            }
        }
        let r = d.deserialize_any(RefVisitor)?;
        resolve_body(&r).map_err(D::Error::custom)?;
        Ok(r)
    }
}

/// One joint of a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneJoint {
    /// A name shown by the editor.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// The type and its parameters.
    #[serde(deserialize_with = "joint_kind")]
    pub kind: JointKind,
    /// Body A; absent for the world.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body_a: Option<BodyRef>,
    /// Body B.
    pub body_b: BodyRef,
    /// A's frame in A's body frame (world space for the world).
    #[serde(deserialize_with = "joint_frame")]
    pub frame_a: JointFrame,
    /// B's frame in B's body frame.
    #[serde(deserialize_with = "joint_frame")]
    pub frame_b: JointFrame,
    /// The two bodies collide with each other.
    #[serde(default, skip_serializing_if = "is_false")]
    pub collide_connected: bool,
    /// Solved with the step.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub enabled: bool,
    /// Breaking force, N.
    #[serde(
        default,
        deserialize_with = "super::fields::optional_non_negative",
        skip_serializing_if = "Option::is_none"
    )]
    pub break_force: Option<f32>,
    /// Breaking torque, N·m.
    #[serde(
        default,
        deserialize_with = "super::fields::optional_non_negative",
        skip_serializing_if = "Option::is_none"
    )]
    pub break_torque: Option<f32>,
}

fn yes() -> bool {
    true
}

fn is_true(v: &bool) -> bool {
    *v
}

fn is_false(v: &bool) -> bool {
    !*v
}

impl SceneJoint {
    /// A joint of `kind` between `body_a` (or the world) and `body_b` with the given frames.
    pub fn new(
        kind: JointKind,
        body_a: Option<BodyRef>,
        body_b: BodyRef,
        frames: (JointFrame, JointFrame),
    ) -> Self {
        SceneJoint {
            name: String::new(),
            kind,
            body_a,
            body_b,
            frame_a: frames.0,
            frame_b: frames.1,
            collide_connected: false,
            enabled: true,
            break_force: None,
            break_torque: None,
        }
    }

    /// The engine's description, with body references looked up in `ids` (the scene's bodies
    /// in order) and `names` (their names).
    pub fn to_desc(&self, ids: &[BodyId], names: &[&str]) -> Result<JointDesc, AtollError> {
        let find = |r: &BodyRef| -> Result<BodyId, AtollError> {
            let index = match r {
                BodyRef::Index(i) => *i,
                BodyRef::Name(n) => names
                    .iter()
                    .position(|name| name == n)
                    .ok_or_else(|| AtollError::invalid("joint body", format!("no body is named {n:?}")))?,
            };
            ids.get(index)
                .copied()
                .ok_or_else(|| AtollError::invalid("joint body", format!("no body has index {index}")))
        };
        Ok(JointDesc {
            kind: self.kind,
            body_a: self.body_a.as_ref().map(find).transpose()?,
            body_b: find(&self.body_b)?,
            frame_a: self.frame_a,
            frame_b: self.frame_b,
            collide_connected: self.collide_connected,
            enabled: self.enabled,
            break_force: self.break_force,
            break_torque: self.break_torque,
        })
    }
}

/// What a joint entry needs to know of the bodies read before it: their names and types.
#[derive(Clone, Debug, Default)]
pub(super) struct BodiesRead {
    pub names: Vec<String>,
    pub types: Vec<BodyType>,
}

impl BodiesRead {
    /// The index `r` names, or why it names none.
    pub fn index(&self, r: &BodyRef) -> Result<usize, String> {
        match r {
            BodyRef::Index(i) if *i < self.types.len() => Ok(*i),
            BodyRef::Index(i) => Err(format!("no body has index {i} (the scene has {})", self.types.len())),
            BodyRef::Name(n) => {
                let mut found = self.names.iter().enumerate().filter(|(_, name)| *name == n);
                match (found.next(), found.next()) {
                    (Some((i, _)), None) => Ok(i),
                    (None, _) => Err(format!("no body is named {n:?}")),
                    (Some(_), Some(_)) => Err(format!("several bodies are named {n:?}; use an index")),
                }
            }
        }
    }
}

thread_local! {
    /// The bodies of the scene being read, once its `bodies` list is read: joint entries, read
    /// after it, check their body references against it while they are read, so a bad
    /// reference reports its own line and column.
    static BODIES_READ: RefCell<Option<BodiesRead>> = const { RefCell::new(None) };
}

/// Forgets the bodies of any scene read before (called around every read).
pub(super) fn forget_bodies() {
    BODIES_READ.with(|b| *b.borrow_mut() = None);
}

/// The index a joint's body reference names in the scene being read, or why it names none.
pub(super) fn resolve_body(r: &BodyRef) -> Result<usize, String> {
    BODIES_READ.with(|b| match &*b.borrow() {
        Some(bodies) => bodies.index(r),
        None => Err("joints must come after the bodies they join".to_string()),
    })
}

/// Remembers the bodies of the scene being read, for its joints' references.
pub(super) fn remember_bodies(read: BodiesRead) {
    BODIES_READ.with(|b| *b.borrow_mut() = Some(read));
}

pub(super) fn joints<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneJoint>, D::Error> {
    d.deserialize_seq(BoundedSeq::<SceneJoint>::new(super::MAX_JOINTS, "joints").checked(check_joint))
}

/// What a joint entry can only be checked for whole: it joins two different bodies, one of
/// them dynamic.
fn check_joint(joint: &SceneJoint) -> Result<(), String> {
    let b = resolve_body(&joint.body_b)?;
    let a = joint.body_a.as_ref().map(resolve_body).transpose()?;
    if a == Some(b) {
        return Err("a joint cannot link a body to itself".to_string());
    }
    BODIES_READ.with(|read| {
        let read = read.borrow();
        let types = &read.as_ref().expect("bodies were read").types;
        if types[b] != BodyType::Dynamic && a.is_none_or(|a| types[a] != BodyType::Dynamic) {
            return Err("at least one of a joint's bodies must be dynamic".to_string());
        }
        Ok(())
    })
}

pub(super) fn joint_kind<'de, D: Deserializer<'de>>(d: D) -> Result<JointKind, D::Error> {
    let kind = JointKind::deserialize(d)?;
    kind.validate().map_err(D::Error::custom)?;
    Ok(kind)
}

pub(super) fn joint_frame<'de, D: Deserializer<'de>>(d: D) -> Result<JointFrame, D::Error> {
    let frame = JointFrame::deserialize(d)?;
    frame.validate("joint anchor").map_err(D::Error::custom)?;
    Ok(frame)
}
