//! Stable names for the bodies and joints of the edited scene.
//!
//! A body deleted and brought back by undo is a new body to the engine (a new [`BodyId`]), yet
//! the edits before and after it must still find it. Every body therefore has an
//! [`EntityKey`] that the undo history refers to, and the editor's own data about it (its name
//! and colour) is kept under that key. Joints likewise have a [`JointKey`] and a name.

use atoll_physics::{BodyId, JointId, World};
use std::collections::HashMap;

/// The editor's name for one body of the scene, unchanged by undo and redo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EntityKey(u32);

/// The editor's name for one joint of the scene, unchanged by undo and redo.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct JointKey(u32);

/// What the editor, not the engine, knows about a body.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EntityMeta {
    /// The name shown in the Scene list and saved with the scene (may be empty).
    pub name: String,
    /// The colour the body is drawn in (sRGB); `None` picks a palette colour.
    pub colour: Option<[u8; 3]>,
}

/// The live bodies' keys, and the keys' bodies and metadata.
#[derive(Clone, Debug, Default)]
pub struct Entities {
    body_of: HashMap<EntityKey, BodyId>,
    /// Indexed by body slot; the generation in `body_of` tells whether it is still that body.
    key_of_slot: Vec<Option<EntityKey>>,
    meta: HashMap<EntityKey, EntityMeta>,
    next: u32,
    /// Bumped whenever a colour changes, so the viewport rebuilds its colour table only then.
    colour_revision: u64,
    /// The joints' keys, as `body_of` and `key_of_slot` are the bodies'.
    joint_of: HashMap<JointKey, JointId>,
    joint_key_of_slot: Vec<Option<JointKey>>,
    /// Joint names (saved with the scene; absent when empty).
    joint_names: HashMap<JointKey, String>,
    next_joint: u32,
    /// Every body id a key ever named, and every joint id: a move along the timeline to a
    /// step before an edit gives back bodies and joints that the edit destroyed (or that an
    /// undo made again under new ids), and they keep their keys and names
    /// ([`Entities::follow`]).
    named: HashMap<BodyId, EntityKey>,
    named_joints: HashMap<JointId, JointKey>,
    /// The world make-up ([`World::structure_stamp`]) the live tables were last matched to.
    followed: u64,
}

impl Entities {
    /// Keys for every body of `world`, with the metadata `meta_of` gives each.
    pub fn for_world(world: &World, mut meta_of: impl FnMut(BodyId) -> EntityMeta) -> Entities {
        let mut entities = Entities::default();
        for id in world.body_ids() {
            let key = entities.key(id);
            entities.meta.insert(key, meta_of(id));
        }
        entities
    }

    /// Gives every joint of `world` a key, with the name `name_of` gives it.
    pub fn name_joints(&mut self, world: &World, mut name_of: impl FnMut(JointId) -> String) {
        for id in world.joint_ids() {
            let key = self.joint_key(id);
            self.set_joint_name(key, name_of(id));
        }
    }

    /// The key of a live joint, given one now if it has none.
    pub fn joint_key(&mut self, id: JointId) -> JointKey {
        if let Some(key) = self.existing_joint_key(id) {
            return key;
        }
        let key = self.fresh_joint_key();
        self.bind_joint(key, id);
        key
    }

    /// The key of a joint, if it has one.
    pub fn existing_joint_key(&self, id: JointId) -> Option<JointKey> {
        let key = (*self.joint_key_of_slot.get(id.index() as usize)?)?;
        (self.joint_of.get(&key) == Some(&id)).then_some(key)
    }

    /// A fresh key for a joint about to be created.
    pub fn fresh_joint_key(&mut self) -> JointKey {
        let key = JointKey(self.next_joint);
        self.next_joint += 1;
        key
    }

    /// Records that `key` now names the live joint `id`.
    pub fn bind_joint(&mut self, key: JointKey, id: JointId) {
        let slot = id.index() as usize;
        if self.joint_key_of_slot.len() <= slot {
            self.joint_key_of_slot.resize(slot + 1, None);
        }
        self.joint_key_of_slot[slot] = Some(key);
        self.joint_of.insert(key, id);
        self.named_joints.insert(id, key);
    }

    /// Records that the joint of `key` was destroyed; its name is kept for undo.
    pub fn unbind_joint(&mut self, key: JointKey) {
        if let Some(id) = self.joint_of.remove(&key)
            && let Some(slot) = self.joint_key_of_slot.get_mut(id.index() as usize)
        {
            *slot = None;
        }
    }

    /// The live joint `key` names.
    pub fn joint(&self, key: JointKey) -> Option<JointId> {
        self.joint_of.get(&key).copied()
    }

    /// The name of joint `key` (empty when it has none).
    pub fn joint_name(&self, key: JointKey) -> String {
        self.joint_names.get(&key).cloned().unwrap_or_default()
    }

    /// Names joint `key` (an empty name removes it).
    pub fn set_joint_name(&mut self, key: JointKey, name: String) {
        if name.is_empty() {
            self.joint_names.remove(&key);
        } else {
            self.joint_names.insert(key, name);
        }
    }

    /// The name of a live joint (empty when it has none).
    pub fn joint_name_of(&self, id: JointId) -> String {
        self.existing_joint_key(id).map(|key| self.joint_name(key)).unwrap_or_default()
    }

    /// The key of a live body, given one now if it has none (a body the engine made by itself,
    /// such as a rock cut loose from the terrain).
    pub fn key(&mut self, id: BodyId) -> EntityKey {
        if let Some(key) = self.existing_key(id) {
            return key;
        }
        let key = EntityKey(self.next);
        self.next += 1;
        self.bind(key, id);
        key
    }

    /// The key of a body, if it has one.
    pub fn existing_key(&self, id: BodyId) -> Option<EntityKey> {
        let key = (*self.key_of_slot.get(id.index() as usize)?)?;
        (self.body_of.get(&key) == Some(&id)).then_some(key)
    }

    /// A fresh key for a body about to be created.
    pub fn fresh_key(&mut self) -> EntityKey {
        let key = EntityKey(self.next);
        self.next += 1;
        key
    }

    /// Records that `key` now names the live body `id` (it was created, or created again).
    pub fn bind(&mut self, key: EntityKey, id: BodyId) {
        let slot = id.index() as usize;
        if self.key_of_slot.len() <= slot {
            self.key_of_slot.resize(slot + 1, None);
        }
        self.key_of_slot[slot] = Some(key);
        self.body_of.insert(key, id);
        self.named.insert(id, key);
    }

    /// Matches the live tables to `world` when its make-up changed since the last call (a move
    /// along the timeline across an edit): every body and joint of the world that a key ever
    /// named is bound to it again, and keys whose body or joint the world lacks are unbound
    /// (their names kept). The undo steps and commands, which find bodies by key, then find the
    /// ones the world shows.
    pub fn follow(&mut self, world: &World) {
        let stamp = world.structure_stamp();
        if stamp == self.followed {
            return;
        }
        self.followed = stamp;
        let gone: Vec<EntityKey> =
            self.body_of.iter().filter(|(_, id)| world.body(**id).is_err()).map(|(key, _)| *key).collect();
        for key in gone {
            self.unbind(key);
        }
        for id in world.body_ids() {
            if self.existing_key(id).is_none()
                && let Some(&key) = self.named.get(&id)
            {
                self.bind(key, id);
            }
        }
        let gone: Vec<JointKey> =
            self.joint_of.iter().filter(|(_, id)| world.joint(**id).is_err()).map(|(key, _)| *key).collect();
        for key in gone {
            self.unbind_joint(key);
        }
        for id in world.joint_ids() {
            if self.existing_joint_key(id).is_none()
                && let Some(&key) = self.named_joints.get(&id)
            {
                self.bind_joint(key, id);
            }
        }
        self.colour_revision += 1;
    }

    /// Records that the body of `key` was destroyed; its metadata is kept for undo.
    pub fn unbind(&mut self, key: EntityKey) {
        if let Some(id) = self.body_of.remove(&key)
            && let Some(slot) = self.key_of_slot.get_mut(id.index() as usize)
        {
            *slot = None;
        }
    }

    /// The live body `key` names.
    pub fn body(&self, key: EntityKey) -> Option<BodyId> {
        self.body_of.get(&key).copied()
    }

    /// The metadata of `key` (default when it has none).
    pub fn meta(&self, key: EntityKey) -> EntityMeta {
        self.meta.get(&key).cloned().unwrap_or_default()
    }

    /// Sets the metadata of `key`.
    pub fn set_meta(&mut self, key: EntityKey, meta: EntityMeta) {
        if self.meta.get(&key).map(|m| m.colour) != Some(meta.colour) {
            self.colour_revision += 1;
        }
        self.meta.insert(key, meta);
    }

    /// The metadata of a live body.
    pub fn meta_of(&self, id: BodyId) -> EntityMeta {
        self.existing_key(id).map(|key| self.meta(key)).unwrap_or_default()
    }

    /// Changes whenever a body's colour does.
    pub fn colour_revision(&self) -> u64 {
        self.colour_revision
    }

    /// The live bodies that have a colour of their own.
    pub fn colours(&self) -> impl Iterator<Item = (BodyId, [u8; 3])> + '_ {
        self.body_of.iter().filter_map(|(key, id)| Some((*id, self.meta.get(key)?.colour?)))
    }

    /// The bytes the tables hold on the heap (for the undo memory figure).
    pub fn heap_bytes(&self) -> usize {
        let names: usize = self.meta.values().map(|m| m.name.capacity()).sum();
        let joint_names: usize = self.joint_names.values().map(String::capacity).sum();
        self.body_of.capacity() * size_of::<(EntityKey, BodyId)>()
            + self.key_of_slot.capacity() * size_of::<Option<EntityKey>>()
            + self.meta.capacity() * size_of::<(EntityKey, EntityMeta)>()
            + names
            + self.joint_of.capacity() * size_of::<(JointKey, JointId)>()
            + self.joint_key_of_slot.capacity() * size_of::<Option<JointKey>>()
            + self.joint_names.capacity() * size_of::<(JointKey, String)>()
            + joint_names
            + self.named.capacity() * size_of::<(BodyId, EntityKey)>()
            + self.named_joints.capacity() * size_of::<(JointId, JointKey)>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyDesc, Shape, StepSettings, Vec3};

    #[test]
    fn a_key_follows_its_body_through_destroy_and_create() {
        let mut world = World::new(StepSettings::default()).unwrap();
        let ball = BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::ZERO);
        let first = world.create_body(&ball).unwrap();
        let mut entities = Entities::for_world(&world, |_| EntityMeta { name: "ball".into(), colour: None });
        let key = entities.existing_key(first).unwrap();
        assert_eq!(entities.meta_of(first).name, "ball");

        world.destroy_body(first).unwrap();
        entities.unbind(key);
        assert_eq!(entities.body(key), None);
        let again = world.create_body(&ball).unwrap();
        assert_eq!(entities.existing_key(again), None, "a new body in the old slot has no key yet");
        entities.bind(key, again);
        assert_eq!(entities.existing_key(again), Some(key));
        assert_eq!(entities.meta_of(again).name, "ball", "the name survives");
        assert_eq!(entities.existing_key(first), None, "the stale id has no key");
    }

    #[test]
    fn following_a_world_of_another_make_up_binds_the_keys_its_bodies_had() {
        let mut world = World::new(StepSettings::default()).unwrap();
        let ball = BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::ZERO);
        let first = world.create_body(&ball).unwrap();
        let mut entities = Entities::for_world(&world, |_| EntityMeta { name: "ball".into(), colour: None });
        entities.follow(&world);
        let before = world.snapshot();
        let key = entities.existing_key(first).unwrap();
        // Destroyed and made again by undo, under a new id; another body added.
        world.destroy_body(first).unwrap();
        entities.unbind(key);
        let again = world.create_body(&ball).unwrap();
        entities.bind(key, again);
        let other = world.create_body(&ball).unwrap();
        let other_key = entities.key(other);
        entities.follow(&world);
        // Back to the world before: the first id is the ball again, the other body is gone.
        world.restore(&before);
        entities.follow(&world);
        assert_eq!(entities.body(key), Some(first));
        assert_eq!(entities.meta_of(first).name, "ball");
        assert_eq!(entities.body(other_key), None, "the later body is not in this world");
    }
}
