//! Field-level validation while deserialising, so an error carries the position of the bad
//! value (ron reports it) and its path (serde_path_to_error tracks it). The checks here know
//! no scene type; each scene type's own (bodies, joints, terrain) sit beside it.

use super::view::SceneView;
use crate::body::Material;
use crate::math::{Quat, Vec3};
use crate::world::settings::StepSettings;
use serde::de::{Error, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer};
use std::fmt;
use std::marker::PhantomData;

pub(super) fn settings<'de, D: Deserializer<'de>>(d: D) -> Result<StepSettings, D::Error> {
    let s = StepSettings::deserialize(d)?;
    s.validate().map_err(D::Error::custom)?;
    Ok(s)
}

pub(super) fn view<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SceneView>, D::Error> {
    let v = Option::<SceneView>::deserialize(d)?;
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

pub(super) fn optional_non_negative<'de, D: Deserializer<'de>>(d: D) -> Result<Option<f32>, D::Error> {
    let v = Option::<f32>::deserialize(d)?;
    if let Some(v) = v {
        crate::error::check_non_negative("value", v).map_err(D::Error::custom)?;
    }
    Ok(v)
}

/// A check of one element read whole; the error says what is wrong with it.
pub(crate) type ElementCheck<T> = fn(&T) -> Result<(), String>;

/// A sequence visitor that refuses more than `limit` elements and never pre-allocates more
/// than a small amount, whatever the input claims.
pub(crate) struct BoundedSeq<T> {
    limit: usize,
    what: &'static str,
    /// A check of each element once it is read whole (its error names the element).
    check: Option<ElementCheck<T>>,
    marker: PhantomData<T>,
}

impl<T> BoundedSeq<T> {
    pub(crate) fn new(limit: usize, what: &'static str) -> Self {
        Self { limit, what, check: None, marker: PhantomData }
    }

    pub(crate) fn checked(self, check: ElementCheck<T>) -> Self {
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
