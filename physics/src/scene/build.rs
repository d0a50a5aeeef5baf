//! Scenes into worlds and back: building a world from a scene, and describing a world's
//! current state as a scene. Kept apart from the scene types so they (which the world's
//! recorded inputs carry) depend on nothing of the world but its settings.

use super::{BodyRef, Scene, SceneBody, SceneJoint, SceneTerrain};
use crate::body::BodyId;
use crate::error::AtollError;
use crate::joint::JointId;
use crate::recording::tape::{Origin, Tape};
use crate::snapshot::state_hash;
use crate::world::World;

impl Scene {
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

    /// Builds the scene's world (as [`Scene::build_world`]) with a tape, so that
    /// [`World::recording`] can say how it came to any later state.
    pub fn build_recorded_world(&self) -> Result<(World, Vec<BodyId>), AtollError> {
        let (mut world, ids) = self.build_world()?;
        let hash = state_hash(&world);
        world.tape = Some(Tape::new(Origin { scene: self.clone(), hash }));
        Ok((world, ids))
    }
}

impl SceneBody {
    /// A live body of `world` as it is now, unnamed and uncoloured.
    pub fn from_world(world: &World, id: BodyId) -> Result<SceneBody, AtollError> {
        Ok(SceneBody::from_desc(&world.body_desc(id)?))
    }
}

impl SceneJoint {
    /// The scene joint of live joint `id` of `world`, naming bodies by their index in the
    /// world's live bodies (the order [`super::Scene::from_world`] writes them in).
    pub fn from_world(
        world: &World,
        id: JointId,
        index_of: impl Fn(BodyId) -> usize,
    ) -> Result<Self, AtollError> {
        let d = world.joint_desc(id)?;
        Ok(SceneJoint {
            name: String::new(),
            kind: d.kind,
            body_a: d.body_a.map(|b| BodyRef::Index(index_of(b))),
            body_b: BodyRef::Index(index_of(d.body_b)),
            frame_a: d.frame_a,
            frame_b: d.frame_b,
            collide_connected: d.collide_connected,
            enabled: d.enabled,
            break_force: d.break_force,
            break_torque: d.break_torque,
        })
    }
}
