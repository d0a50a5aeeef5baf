//! [`SceneChild`]: a compound body's further shape as a scene file holds it (version 4).

use super::fields::BoundedSeq;
use super::{SceneShape, fields, is_default_material, is_identity, is_zero_vec};
use crate::child::{ChildDesc, MAX_CHILDREN};
use crate::error::AtollError;
use crate::filter::CollisionFilter;
use crate::material::Material;
use crate::math::{Quat, Transform, Vec3};
use crate::sensor::Sensor;
use serde::{Deserialize, Deserializer, Serialize};

/// A shape of a compound body beside its own, in the body's frame.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneChild {
    /// The shape.
    pub shape: SceneShape,
    /// Where its frame sits in the body's.
    #[serde(default, deserialize_with = "fields::finite_vec3", skip_serializing_if = "is_zero_vec")]
    pub position: Vec3,
    /// How it is turned there (x, y, z, w); must be unit length.
    #[serde(
        default = "identity",
        deserialize_with = "fields::rotation",
        skip_serializing_if = "is_identity"
    )]
    pub rotation: Quat,
    /// Density, friction and restitution.
    #[serde(default, deserialize_with = "fields::material", skip_serializing_if = "is_default_material")]
    pub material: Material,
    /// Which bodies it may collide with.
    #[serde(default, skip_serializing_if = "CollisionFilter::is_default")]
    pub filter: CollisionFilter,
    /// Makes it a sensor.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensor: Option<Sensor>,
}

fn identity() -> Quat {
    Quat::IDENTITY
}

impl SceneChild {
    /// The scene description of an engine child.
    pub fn from_desc(c: &ChildDesc) -> SceneChild {
        SceneChild {
            shape: SceneShape::from_shape(&c.shape),
            position: c.pose.position,
            rotation: c.pose.rotation,
            material: c.material,
            filter: c.filter,
            sensor: c.sensor,
        }
    }

    /// The engine's description of this child.
    pub fn to_desc(&self) -> Result<ChildDesc, AtollError> {
        Ok(ChildDesc {
            shape: self.shape.to_shape()?,
            pose: Transform::new(self.position, self.rotation),
            material: self.material,
            filter: self.filter,
            sensor: self.sensor,
        })
    }
}

/// A body's children, at most [`MAX_CHILDREN`].
pub(super) fn children<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneChild>, D::Error> {
    d.deserialize_seq(BoundedSeq::<SceneChild>::new(MAX_CHILDREN, "children"))
}
