//! Scene files: a versioned RON description of settings and bodies, with validation that names
//! the line, column and field of the first problem, limits that stop a hostile file from
//! allocating without bound, and saving that never destroys the previous file.

pub mod builtin;
mod error;
mod fields;
pub(crate) mod io;
mod joint;
mod terrain;
mod view;

pub use error::SceneError;
pub use joint::{BodyRef, SceneJoint};
pub use terrain::{SceneChunk, SceneTerrain};
pub use view::SceneView;

use crate::body::{BodyDesc, BodyId, BodyType, KinematicMotion, Material};
use crate::error::AtollError;
use crate::math::{Quat, Transform, Vec3};
use crate::shape::Shape;
use crate::world::{StepSettings, World};
use serde::{Deserialize, Serialize};

/// The scene format version this build writes: 2 added joints. It reads every version from 1.
pub const SCENE_VERSION: u32 = 2;
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
    #[serde(deserialize_with = "fields::version")]
    pub version: u32,
    /// A title shown by the editor.
    #[serde(default)]
    pub name: String,
    /// Step settings.
    #[serde(default, deserialize_with = "fields::settings")]
    pub settings: StepSettings,
    /// The bodies, in creation order.
    #[serde(default, deserialize_with = "fields::bodies")]
    pub bodies: Vec<SceneBody>,
    /// The joints, after the bodies they join (version 1 files have none).
    #[serde(default, deserialize_with = "fields::joints", skip_serializing_if = "Vec::is_empty")]
    pub joints: Vec<SceneJoint>,
    /// Voxel terrain, if the scene has one (older files have none).
    #[serde(default, deserialize_with = "fields::terrain", skip_serializing_if = "Option::is_none")]
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
#[serde(try_from = "fields::RawShape")]
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
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            can_sleep: true,
            motion: None,
            colour: None,
        }
    }

    /// A live body of `world` as it is now, unnamed and uncoloured.
    pub fn from_world(world: &World, id: BodyId) -> Result<SceneBody, AtollError> {
        Ok(SceneBody::from_desc(&world.body_desc(id)?))
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

    /// Creates a world holding this scene's bodies and joints; the ids are in scene order
    /// (the joints' are [`World::joint_ids`] in the same order).
    pub fn build_world(&self) -> Result<(World, Vec<BodyId>), AtollError> {
        let mut world = World::new(self.settings)?;
        if let Some(t) = &self.terrain {
            world.set_terrain(t.to_terrain()?);
        }
        let mut ids = Vec::with_capacity(self.bodies.len());
        for body in &self.bodies {
            ids.push(world.create_body(&body.to_desc()?)?);
        }
        let names: Vec<&str> = self.bodies.iter().map(|b| b.name.as_str()).collect();
        for joint in &self.joints {
            world.create_joint(&joint.to_desc(&ids, &names)?)?;
        }
        Ok((world, ids))
    }

    /// Captures a world's current state as a scene; `name_of` names each body (colours are
    /// the caller's to fill in).
    pub fn from_world(world: &World, name: &str, mut name_of: impl FnMut(BodyId) -> String) -> Scene {
        let mut scene = Scene::new(name);
        scene.settings = *world.settings();
        if world.has_terrain() {
            scene.terrain = Some(SceneTerrain::from_terrain(world.terrain()));
        }
        let mut index_of = std::collections::HashMap::new();
        for (index, id) in world.body_ids().enumerate() {
            let mut body = SceneBody::from_world(world, id).expect("live id");
            body.name = name_of(id);
            scene.bodies.push(body);
            index_of.insert(id, index);
        }
        for id in world.joint_ids() {
            scene.joints.push(SceneJoint::from_world(world, id, |b| index_of[&b]).expect("live id"));
        }
        scene
    }
}
