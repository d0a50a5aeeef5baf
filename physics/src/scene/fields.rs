//! Field-level validation while deserialising, so an error carries the position of the bad
//! value (ron reports it) and its path (serde_path_to_error tracks it).

use super::terrain::{SceneChunk, SceneTerrain};
use super::{MAX_BODIES, MAX_HULL_POINTS, SCENE_VERSION, SceneBody, SceneShape};
use crate::body::Material;
use crate::error::AtollError;
use crate::math::{Quat, Vec3};
use crate::terrain::MAX_STORED_CHUNKS;
use crate::world::StepSettings;
use serde::de::{Error, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;
use std::marker::PhantomData;

pub(super) fn version<'de, D: Deserializer<'de>>(d: D) -> Result<u32, D::Error> {
    let v = u32::deserialize(d)?;
    if v != SCENE_VERSION {
        return Err(D::Error::custom(format!(
            "unsupported scene version {v} (this build reads version {SCENE_VERSION})"
        )));
    }
    Ok(v)
}

pub(super) fn settings<'de, D: Deserializer<'de>>(d: D) -> Result<StepSettings, D::Error> {
    let s = StepSettings::deserialize(d)?;
    s.validate().map_err(D::Error::custom)?;
    Ok(s)
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
    d.deserialize_seq(BoundedSeq::<SceneBody>::new(MAX_BODIES, "bodies"))
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

/// A sequence visitor that refuses more than `limit` elements and never pre-allocates more
/// than a small amount, whatever the input claims.
struct BoundedSeq<T> {
    limit: usize,
    what: &'static str,
    marker: PhantomData<T>,
}

impl<T> BoundedSeq<T> {
    fn new(limit: usize, what: &'static str) -> Self {
        Self { limit, what, marker: PhantomData }
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
