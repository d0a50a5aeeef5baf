//! Scene files: a versioned RON description of settings and bodies, with validation that names
//! the line, column and field of the first problem, limits that stop a hostile file from
//! allocating without bound, and saving that never destroys the previous file.

mod build;
pub mod builtin;
mod child;
mod error;
pub(crate) mod fields;
pub(crate) mod io;
mod joint;
mod terrain;
mod view;

pub use child::SceneChild;
pub use error::SceneError;
pub use joint::{BodyRef, SceneJoint};
pub use terrain::{SceneChunk, SceneTerrain};
pub use view::SceneView;

use crate::body::{BodyDesc, BodyType, KinematicMotion, Material};
use crate::error::AtollError;
use crate::filter::CollisionFilter;
use crate::math::{Quat, Transform, Vec3};
use crate::sensor::Sensor;
use crate::shape::Shape;
use crate::world::settings::StepSettings;
use fields::BoundedSeq;
use joint::BodiesRead;
use serde::de::Error;
use serde::{Deserialize, Deserializer, Serialize};

/// The scene format version this build writes: 2 added joints, 3 filters and sensors, 4 the
/// children of compound bodies. It reads every version from 1.
pub const SCENE_VERSION: u32 = 4;
/// Largest scene file accepted, in bytes.
pub const MAX_SCENE_BYTES: u64 = 64 << 20;
/// Most bodies a scene may hold.
pub const MAX_BODIES: usize = 250_000;
/// Most joints a scene may hold.
pub const MAX_JOINTS: usize = 250_000;
/// Most points a hull may be given as.
pub const MAX_HULL_POINTS: usize = 4096;

/// A whole scene: what a file holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scene {
    /// Format version, 1 to [`SCENE_VERSION`] (files are written at the newest).
    #[serde(deserialize_with = "version")]
    pub version: u32,
    /// A title shown by the editor.
    #[serde(default)]
    pub name: String,
    /// Step settings.
    #[serde(default, deserialize_with = "fields::settings")]
    pub settings: StepSettings,
    /// The bodies, in creation order.
    #[serde(default, deserialize_with = "bodies")]
    pub bodies: Vec<SceneBody>,
    /// The joints, after the bodies they join (version 1 files have none).
    #[serde(default, deserialize_with = "joint::joints", skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<SceneJoint>,
    /// Voxel terrain, if the scene has one (older files have none).
    #[serde(default, deserialize_with = "terrain::terrain", skip_serializing_if = "Option::is_none")]
    pub terrain: Option<SceneTerrain>,
    /// Where the editor first looks at the scene from (none: it frames the moving bodies).
    #[serde(default, deserialize_with = "fields::view", skip_serializing_if = "Option::is_none")]
    pub view: Option<SceneView>,
}

/// One body of a scene.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneBody {
    /// A name shown by the editor.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub name: String,
    /// Static, kinematic or dynamic.
    pub body_type: BodyType,
    /// The collision shape.
    pub shape: SceneShape,
    /// Position of the body frame.
    #[serde(deserialize_with = "fields::finite_vec3")]
    pub position: Vec3,
    /// Rotation of the body frame (x, y, z, w); must be unit length.
    #[serde(
        default = "identity",
        deserialize_with = "fields::rotation",
        skip_serializing_if = "is_identity"
    )]
    pub rotation: Quat,
    /// Initial velocity of the centre of mass.
    #[serde(default, deserialize_with = "fields::finite_vec3", skip_serializing_if = "is_zero_vec")]
    pub linear_velocity: Vec3,
    /// Initial angular velocity.
    #[serde(default, deserialize_with = "fields::finite_vec3", skip_serializing_if = "is_zero_vec")]
    pub angular_velocity: Vec3,
    /// Density, friction and restitution.
    #[serde(default, deserialize_with = "fields::material", skip_serializing_if = "is_default_material")]
    pub material: Material,
    /// Which other bodies it may collide with (version 3).
    #[serde(default, skip_serializing_if = "CollisionFilter::is_default")]
    pub filter: CollisionFilter,
    /// Makes it a sensor: it reports what overlaps it and pushes nothing (version 3).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sensor: Option<Sensor>,
    /// The further shapes of a compound body, in its frame (version 4); `shape` is its first.
    #[serde(default, deserialize_with = "child::children", skip_serializing_if = "Vec::is_empty")]
    pub children: Vec<SceneChild>,
    /// Linear damping rate, 1/s (0 = none): with no other force the velocity decays about as
    /// `e^(-rate · t)` (applied implicitly every substep, `v / (1 + h · rate)`, so any rate is
    /// stable).
    #[serde(default, deserialize_with = "fields::non_negative", skip_serializing_if = "is_zero")]
    pub linear_damping: f32,
    /// Angular damping rate, 1/s (0 = none), applied like the linear one.
    #[serde(default, deserialize_with = "fields::non_negative", skip_serializing_if = "is_zero")]
    pub angular_damping: f32,
    /// Multiplies gravity.
    #[serde(default = "one", deserialize_with = "fields::finite", skip_serializing_if = "is_one")]
    pub gravity_scale: f32,
    /// May fall asleep.
    #[serde(default = "yes", skip_serializing_if = "is_true")]
    pub can_sleep: bool,
    /// A scripted motion (kinematic bodies only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub motion: Option<KinematicMotion>,
    /// The colour the editor draws the body in (sRGB); without one it picks a palette colour.
    /// The engine ignores it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub colour: Option<[u8; 3]>,
}

fn identity() -> Quat {
    Quat::IDENTITY
}

fn one() -> f32 {
    1.0
}

fn yes() -> bool {
    true
}

// Fields at their defaults are left out of saved files, which keeps them short and readable.
// "At its default" means bit for bit: -0.0 equals 0.0 to `==`, and a -0.0 left out would load
// back as 0.0, so a saved world would not be the world that was saved.
fn same_bits(a: &[f32], b: &[f32]) -> bool {
    a.iter().map(|x| x.to_bits()).eq(b.iter().map(|x| x.to_bits()))
}

fn is_identity(q: &Quat) -> bool {
    same_bits(&q.to_array(), &Quat::IDENTITY.to_array())
}

fn is_zero_vec(v: &Vec3) -> bool {
    same_bits(&v.to_array(), &[0.0; 3])
}

fn is_default_material(m: &Material) -> bool {
    let d = Material::default();
    same_bits(&[m.density, m.friction, m.restitution], &[d.density, d.friction, d.restitution])
}

fn is_zero(v: &f32) -> bool {
    same_bits(&[*v], &[0.0])
}

fn is_one(v: &f32) -> bool {
    same_bits(&[*v], &[1.0])
}

fn is_true(v: &bool) -> bool {
    *v
}

/// A shape as written in a scene file. Hulls keep the points they were given, so a scene saves
/// back exactly what was loaded.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "RawShape")]
pub enum SceneShape {
    /// A ball.
    Sphere {
        /// Radius.
        radius: f32,
    },
    /// A capsule along local Y.
    Capsule {
        /// Half the inner segment's length.
        half_height: f32,
        /// Radius.
        radius: f32,
    },
    /// A box.
    Box {
        /// Half size per axis.
        half_extents: Vec3,
    },
    /// The convex hull of points.
    Hull {
        /// The point cloud.
        points: Vec<Vec3>,
    },
}

impl SceneShape {
    /// Builds the engine shape (a hull runs quickhull).
    pub fn to_shape(&self) -> Result<Shape, AtollError> {
        match self {
            SceneShape::Sphere { radius } => Shape::sphere(*radius),
            SceneShape::Capsule { half_height, radius } => Shape::capsule(*half_height, *radius),
            SceneShape::Box { half_extents } => Shape::cuboid(*half_extents),
            SceneShape::Hull { points } => Shape::hull(points),
        }
    }

    /// The scene description of an engine shape (a hull is written as its vertices).
    pub fn from_shape(shape: &Shape) -> SceneShape {
        match shape {
            Shape::Sphere { radius } => SceneShape::Sphere { radius: *radius },
            Shape::Capsule { half_height, radius } => {
                SceneShape::Capsule { half_height: *half_height, radius: *radius }
            }
            Shape::Cuboid { half_extents } => SceneShape::Box { half_extents: *half_extents },
            Shape::Hull(h) => SceneShape::Hull { points: h.vertices().to_vec() },
        }
    }
}

impl SceneBody {
    /// A body of `body_type` with `shape` at `position`, everything else default.
    pub fn new(body_type: BodyType, shape: SceneShape, position: Vec3) -> Self {
        SceneBody {
            name: String::new(),
            body_type,
            shape,
            position,
            rotation: Quat::IDENTITY,
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            material: Material::default(),
            filter: CollisionFilter::DEFAULT,
            sensor: None,
            children: Vec::new(),
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            can_sleep: true,
            motion: None,
            colour: None,
        }
    }

    /// The scene description of an engine body description, unnamed and uncoloured.
    pub fn from_desc(d: &BodyDesc) -> SceneBody {
        SceneBody {
            name: String::new(),
            body_type: d.body_type,
            shape: SceneShape::from_shape(&d.shape),
            position: d.transform.position,
            rotation: d.transform.rotation,
            linear_velocity: d.linear_velocity,
            angular_velocity: d.angular_velocity,
            material: d.material,
            filter: d.filter,
            sensor: d.sensor,
            children: d.children.iter().map(SceneChild::from_desc).collect(),
            linear_damping: d.linear_damping,
            angular_damping: d.angular_damping,
            gravity_scale: d.gravity_scale,
            can_sleep: d.can_sleep,
            motion: d.motion,
            colour: None,
        }
    }

    /// The engine's description of this body.
    pub fn to_desc(&self) -> Result<BodyDesc, AtollError> {
        Ok(BodyDesc {
            body_type: self.body_type,
            shape: self.shape.to_shape()?,
            transform: Transform::new(self.position, self.rotation),
            linear_velocity: self.linear_velocity,
            angular_velocity: self.angular_velocity,
            material: self.material,
            filter: self.filter,
            sensor: self.sensor,
            children: self.children.iter().map(SceneChild::to_desc).collect::<Result<_, _>>()?,
            linear_damping: self.linear_damping,
            angular_damping: self.angular_damping,
            gravity_scale: self.gravity_scale,
            can_sleep: self.can_sleep,
            motion: self.motion,
        })
    }
}

impl Scene {
    /// An empty scene with default settings.
    pub fn new(name: impl Into<String>) -> Self {
        Scene {
            version: SCENE_VERSION,
            name: name.into(),
            settings: StepSettings::default(),
            bodies: Vec::new(),
            joints: Vec::new(),
            terrain: None,
            view: None,
        }
    }
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

pub(super) fn bodies<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneBody>, D::Error> {
    let bodies = d.deserialize_seq(BoundedSeq::<SceneBody>::new(MAX_BODIES, "bodies"))?;
    let read = BodiesRead {
        names: bodies.iter().map(|b| b.name.clone()).collect(),
        types: bodies.iter().map(|b| b.body_type).collect(),
    };
    joint::remember_bodies(read);
    Ok(bodies)
}

fn hull_points<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Vec3>, D::Error> {
    d.deserialize_seq(BoundedSeq::<Vec3>::new(MAX_HULL_POINTS, "hull points"))
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
