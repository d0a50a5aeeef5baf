//! Field-level validation while deserialising, so an error carries the position of the bad
//! value (ron reports it) and its path (serde_path_to_error tracks it).

use super::joint::{BodiesRead, BodyRef, SceneJoint};
use super::terrain::{SceneChunk, SceneTerrain};
use super::{MAX_BODIES, MAX_HULL_POINTS, MAX_JOINTS, SCENE_VERSION, SceneBody, SceneShape};
use crate::body::BodyType;
use crate::body::Material;
use crate::error::AtollError;
use crate::joint::{JointFrame, JointKind};
use crate::math::{Quat, Vec3};
use crate::terrain::MAX_STORED_CHUNKS;
use crate::world::StepSettings;
use serde::de::{Error, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::cell::RefCell;
use std::fmt;
use std::marker::PhantomData;

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

pub(super) fn version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    // Version 1 (before joints) reads as version 2 without joints.
    if !(1..=SCENE_VERSION).contains(&v) {
        return Err(D::Error::custom(format!(
            "unsupported scene version {v} (this build reads versions 1 to {SCENE_VERSION})"
        )));
    }
    Ok(v)
}

pub(super) fn settings<'de, D: Deserializer<'de>>(d: D) -> Result<StepSettings, D::Error> {
    let s = StepSettings::deserialize(d)?;
    s.validate().map_err(D::Error::custom)?;
    Ok(s)
}

pub(super) fn view<'de, D: Deserializer<'de>>(d: D) -> Result<Option<super::SceneView>, D::Error> {
    let v = Option::<super::SceneView>::deserialize(d)?;
    if let Some(v) = &v {
        v.validate().map_err(D::Error::custom)?;
    }
    Ok(v)
}

pub(super) fn material<'de, D: Deserializer<'de>>(d: D) -> Result<Material, D::Error> {
    let m = Material::deserialize(d)?;
    m.validate().map_err(D::Error::custom)?;
    Ok(m)
}

pub(super) fn finite_vec3<'de, D: Deserializer<'de>>(d: D) -> Result<Vec3, D::Error> {
    let v = Vec3::deserialize(d)?;
    if !v.is_finite() {
        return Err(D::Error::custom(format!("{v} has a non-finite component")));
    }
    Ok(v)
}

pub(super) fn rotation<'de, D: Deserializer<'de>>(d: D) -> Result<Quat, D::Error> {
    let q = Quat::deserialize(d)?;
    crate::body::validate_rotation(q).map_err(D::Error::custom)?;
    Ok(q)
}

pub(super) fn finite<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    let v = f32::deserialize(d)?;
    crate::error::check_finite("value", v).map_err(D::Error::custom)
}

pub(super) fn non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<f32, D::Error> {
    let v = f32::deserialize(d)?;
    crate::error::check_non_negative("value", v).map_err(D::Error::custom)
}

pub(super) fn bodies<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneBody>, D::Error> {
    let bodies = d.deserialize_seq(BoundedSeq::<SceneBody>::new(MAX_BODIES, "bodies"))?;
    let read = BodiesRead {
        names: bodies.iter().map(|b| b.name.clone()).collect(),
        types: bodies.iter().map(|b| b.body_type).collect(),
    };
    BODIES_READ.with(|b| *b.borrow_mut() = Some(read));
    Ok(bodies)
}

pub(super) fn joints<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneJoint>, D::Error> {
    d.deserialize_seq(BoundedSeq::<SceneJoint>::new(MAX_JOINTS, "joints").checked(check_joint))
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

pub(super) fn optional_non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
    let v = Option::<f32>::deserialize(d)?;
    if let Some(v) = v {
        crate::error::check_non_negative("value", v).map_err(D::Error::custom)?;
    }
    Ok(v)
}

pub(super) fn terrain<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SceneTerrain>, D::Error> {
    let t = Option::<SceneTerrain>::deserialize(d)?;
    if let Some(t) = &t {
        // Decoding is the validation: runs, materials, bounds, duplicates.
        t.to_terrain().map_err(D::Error::custom)?;
    }
    Ok(t)
}

pub(super) fn terrain_chunks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneChunk>, D::Error> {
    d.deserialize_seq(BoundedSeq::<SceneChunk>::new(MAX_STORED_CHUNKS, "terrain chunks"))
}

fn hull_points<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec3>, D::Error> {
    d.deserialize_seq(BoundedSeq::<Vec3>::new(MAX_HULL_POINTS, "hull points"))
}

/// A check of one element read whole; the error says what is wrong with it.
type ElementCheck<T> = fn(&T) -> Result<(), String>;

/// A sequence visitor that refuses more than `limit` elements and never pre-allocates more
/// than a small amount, whatever the input claims.
struct BoundedSeq<T> {
    limit: usize,
    what: &'static str,
    /// A check of each element once it is read whole (its error names the element).
    check: Option<ElementCheck<T>>,
    marker: PhantomData<T>,
}

impl<T> BoundedSeq<T> {
    fn new(limit: usize, what: &'static str) -> Self {
        Self { limit, what, check: None, marker: PhantomData }
    }

    fn checked(self, check: ElementCheck<T>) -> Self {
        Self { check: Some(check), ..self }
    }
}

impl<'de, T: Deserialize<'de>> Visitor<'de> for BoundedSeq<T> {
    type Value = Vec<T>;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(f, "a list of at most {} {}", self.limit, self.what)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Vec<T>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1024));
        while let Some(item) = seq.next_element()? {
            if out.len() == self.limit {
                return Err(A::Error::custom(format!("more than {} {}", self.limit, self.what)));
            }
            if let Some(check) = self.check {
                check(&item)
                    .map_err(|e| A::Error::custom(format!("{} entry {}: {e}", self.what, out.len())))?;
            }
            out.push(item);
        }
        Ok(out)
    }
}

/// The shape as parsed, before validation.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) enum RawShape {
    Sphere {
        radius: f32,
    },
    Capsule {
        half_height: f32,
        radius: f32,
    },
    Box {
        half_extents: Vec3,
    },
    Hull {
        #[serde(deserialize_with = "hull_points")]
        points: Vec<Vec3>,
    },
}

impl TryFrom<RawShape> for SceneShape {
    type Error = AtollError;

    fn try_from(raw: RawShape) -> Result<Self, AtollError> {
        let shape = match raw {
            RawShape::Sphere { radius } => SceneShape::Sphere { radius },
            RawShape::Capsule { half_height, radius } => SceneShape::Capsule { half_height, radius },
            RawShape::Box { half_extents } => SceneShape::Box { half_extents },
            RawShape::Hull { points } => SceneShape::Hull { points },
        };
        // Building the shape is the validation: it refuses bad sizes and degenerate hulls.
        shape.to_shape()?;
        Ok(shape)
    }
}
