//! One input: a call that changed a recorded world other than by stepping, with its
//! arguments, so a replay can make the same call at the same step.

use crate::body::BodyId;
use crate::filter::CollisionFilter;
use crate::joint::{JointDesc, JointId};
use crate::math::{Quat, Vec3};
use crate::scene::{SceneBody, SceneTerrain};
use crate::terrain::{Edit, Voxel};
use crate::world::settings::StepSettings;
use glam::IVec3;
use serde::{Deserialize, Serialize};

/// A change made to a world between steps: one of [`World`]'s calls that change it, with its
/// arguments. Bodies and joints are named by their ids, which a replay gives out the same
/// (the same calls from the same scene fill the same slots).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Input {
    /// [`World::create_body`], with the body as a scene describes it.
    CreateBody(SceneBody),
    /// [`World::replace_body`].
    ReplaceBody {
        /// The body rebuilt.
        body: BodyId,
        /// What it becomes.
        desc: SceneBody,
    },
    /// [`World::destroy_body`].
    DestroyBody(BodyId),
    /// [`World::set_transform`].
    SetTransform {
        /// The body moved.
        body: BodyId,
        /// Its new position.
        position: Vec3,
        /// Its new rotation.
        rotation: Quat,
    },
    /// [`World::set_linear_velocity`].
    SetLinearVelocity {
        /// The body.
        body: BodyId,
        /// Its new velocity.
        velocity: Vec3,
    },
    /// [`World::set_angular_velocity`].
    SetAngularVelocity {
        /// The body.
        body: BodyId,
        /// Its new angular velocity.
        velocity: Vec3,
    },
    /// [`World::apply_force`].
    ApplyForce {
        /// The body pushed.
        body: BodyId,
        /// The force, N.
        force: Vec3,
    },
    /// [`World::apply_force_at_point`].
    ApplyForceAtPoint {
        /// The body pushed.
        body: BodyId,
        /// The force, N.
        force: Vec3,
        /// Where, world space.
        point: Vec3,
    },
    /// [`World::apply_torque`].
    ApplyTorque {
        /// The body turned.
        body: BodyId,
        /// The torque, N·m.
        torque: Vec3,
    },
    /// [`World::apply_impulse`].
    ApplyImpulse {
        /// The body struck.
        body: BodyId,
        /// The impulse, N·s.
        impulse: Vec3,
    },
    /// [`World::apply_impulse_at_point`].
    ApplyImpulseAtPoint {
        /// The body struck.
        body: BodyId,
        /// The impulse, N·s.
        impulse: Vec3,
        /// Where, world space.
        point: Vec3,
    },
    /// [`World::wake_body`].
    WakeBody(BodyId),
    /// [`World::wake_all`].
    WakeAll,
    /// [`World::set_settings`].
    SetSettings(StepSettings),
    /// [`World::set_gravity`].
    SetGravity(Vec3),
    /// [`World::set_filter`].
    SetFilter {
        /// The body.
        body: BodyId,
        /// Its new filter.
        filter: CollisionFilter,
    },
    /// [`World::create_joint`].
    CreateJoint(JointDesc),
    /// [`World::set_joint_desc`].
    SetJointDesc {
        /// The joint changed.
        joint: JointId,
        /// What it becomes.
        desc: JointDesc,
    },
    /// [`World::destroy_joint`].
    DestroyJoint(JointId),
    /// [`World::set_joint_enabled`].
    SetJointEnabled {
        /// The joint.
        joint: JointId,
        /// Whether it is solved.
        enabled: bool,
    },
    /// [`World::set_terrain`], with the terrain as a scene holds it.
    SetTerrain(SceneTerrain),
    /// [`World::edit_terrain`].
    EditTerrain(Edit),
    /// [`World::set_terrain_voxels`].
    SetTerrainVoxels(Vec<(IVec3, Voxel)>),
}

impl Input {
    /// A short description for messages: "SetLinearVelocity of body 3".
    pub fn describe(&self) -> String {
        let body = |what: &str, id: &BodyId| format!("{what} of body {}", id.index());
        let joint = |what: &str, id: &JointId| format!("{what} of joint {}", id.index());
        match self {
            Input::CreateBody(_) => "CreateBody".to_string(),
            Input::ReplaceBody { body: id, .. } => body("ReplaceBody", id),
            Input::DestroyBody(id) => body("DestroyBody", id),
            Input::SetTransform { body: id, .. } => body("SetTransform", id),
            Input::SetLinearVelocity { body: id, .. } => body("SetLinearVelocity", id),
            Input::SetAngularVelocity { body: id, .. } => body("SetAngularVelocity", id),
            Input::ApplyForce { body: id, .. } => body("ApplyForce", id),
            Input::ApplyForceAtPoint { body: id, .. } => body("ApplyForceAtPoint", id),
            Input::ApplyTorque { body: id, .. } => body("ApplyTorque", id),
            Input::ApplyImpulse { body: id, .. } => body("ApplyImpulse", id),
            Input::ApplyImpulseAtPoint { body: id, .. } => body("ApplyImpulseAtPoint", id),
            Input::WakeBody(id) => body("WakeBody", id),
            Input::WakeAll => "WakeAll".to_string(),
            Input::SetSettings(_) => "SetSettings".to_string(),
            Input::SetGravity(_) => "SetGravity".to_string(),
            Input::SetFilter { body: id, .. } => body("SetFilter", id),
            Input::CreateJoint(_) => "CreateJoint".to_string(),
            Input::SetJointDesc { joint: id, .. } => joint("SetJointDesc", id),
            Input::DestroyJoint(id) => joint("DestroyJoint", id),
            Input::SetJointEnabled { joint: id, .. } => joint("SetJointEnabled", id),
            Input::SetTerrain(_) => "SetTerrain".to_string(),
            Input::EditTerrain(_) => "EditTerrain".to_string(),
            Input::SetTerrainVoxels(v) => format!("SetTerrainVoxels of {} voxels", v.len()),
        }
    }
}
