//! Edits as deltas: what changed, enough to apply it again and to take it back. The undo
//! history stores these, never whole worlds. Bodies and joints are named by their entity keys,
//! so an edit still finds them after undo and redo gave them new engine ids.

use super::entities::{Entities, EntityKey, EntityMeta, JointKey};
use atoll_physics::terrain::{ChunkCoord, Voxel};
use atoll_physics::{BodyId, JointDesc, JointId, SceneBody, StepSettings, Transform, World};
use glam::IVec3;

/// One body as an edit remembers it: its key and everything needed to create it again.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyRecord {
    /// The entity the body is.
    pub key: EntityKey,
    /// The body, with its name and colour.
    pub body: SceneBody,
}

impl BodyRecord {
    /// The live body `id` as it is now.
    pub fn capture(world: &World, entities: &mut Entities, id: BodyId) -> Result<BodyRecord, String> {
        let key = entities.key(id);
        let mut body = SceneBody::from_world(world, id).map_err(|e| e.to_string())?;
        let meta = entities.meta(key);
        body.name = meta.name;
        body.colour = meta.colour;
        Ok(BodyRecord { key, body })
    }

    /// Heap bytes beyond the record itself.
    fn heap_bytes(&self) -> usize {
        let hull = match &self.body.shape {
            atoll_physics::SceneShape::Hull { points } => {
                points.capacity() * size_of::<atoll_physics::Vec3>()
            }
            _ => 0,
        };
        self.body.name.capacity() + hull
    }
}

/// One joint as an edit remembers it: its key, its bodies' keys and everything needed to
/// create it again.
#[derive(Clone, Debug, PartialEq)]
pub struct JointRecord {
    /// The joint's key.
    pub key: JointKey,
    /// Body A's key; `None` for the world.
    pub body_a: Option<EntityKey>,
    /// Body B's key.
    pub body_b: EntityKey,
    /// The joint; its body ids are those of when it was recorded and are looked up again from
    /// the keys when it is created.
    pub desc: JointDesc,
    /// Its name (may be empty).
    pub name: String,
}

impl JointRecord {
    /// The live joint `id` as it is now.
    pub fn capture(world: &World, entities: &mut Entities, id: JointId) -> Result<JointRecord, String> {
        let desc = world.joint_desc(id).map_err(|e| e.to_string())?;
        let key = entities.joint_key(id);
        Ok(JointRecord {
            key,
            body_a: desc.body_a.map(|b| entities.key(b)),
            body_b: entities.key(desc.body_b),
            name: entities.joint_name(key),
            desc,
        })
    }

    /// Checks what does not need the world: the joint's parameters and its two sides.
    fn validate(&self) -> Result<(), String> {
        if self.body_a == Some(self.body_b) {
            return Err("a joint cannot link a body to itself".to_string());
        }
        self.desc.validate().map_err(|e| e.to_string())
    }

    /// The engine's description with the bodies the keys name now.
    fn live_desc(&self, entities: &Entities) -> Result<JointDesc, String> {
        let body = |key: EntityKey| entities.body(key).ok_or_else(|| "the joint's body is gone".to_string());
        Ok(JointDesc { body_a: self.body_a.map(body).transpose()?, body_b: body(self.body_b)?, ..self.desc })
    }
}

/// A change to the edited scene.
#[derive(Clone, Debug, PartialEq)]
pub enum Edit {
    /// Bodies created, in this order.
    Add(Vec<BodyRecord>),
    /// Bodies destroyed, in this order.
    Remove(Vec<BodyRecord>),
    /// Bodies changed in place: each one's state before and after.
    Change(Vec<(BodyRecord, BodyRecord)>),
    /// The step settings changed.
    Settings {
        /// Before the edit.
        before: StepSettings,
        /// After the edit.
        after: StepSettings,
    },
    /// Terrain voxels changed (a brush stroke), with the bodies the change brought or took.
    Terrain {
        /// Each changed voxel: its value before and after.
        voxels: Vec<(IVec3, Voxel, Voxel)>,
        /// Bodies created with the change (rocks a stroke cut loose), in this order.
        added: Vec<BodyRecord>,
        /// Bodies destroyed with it (those rocks, when the stroke is undone), in this order.
        removed: Vec<BodyRecord>,
    },
    /// Joints created, in this order (their bodies exist).
    AddJoints(Vec<JointRecord>),
    /// Joints destroyed, in this order.
    RemoveJoints(Vec<JointRecord>),
    /// Joints changed: each one before and after (changed in place: same engine id, island and
    /// warm start; its bodies stay).
    ChangeJoints(Vec<(JointRecord, JointRecord)>),
    /// Several edits as one step, applied in order (deleting bodies with their joints, pasting
    /// bodies with the joints between them). All or nothing: a part that fails takes back the
    /// parts before it.
    Group(Vec<Edit>),
}

/// What applying an edit did, for the selection and the viewport.
#[derive(Clone, Debug, Default)]
pub struct Applied {
    /// The live bodies it created or changed.
    pub bodies: Vec<BodyId>,
    /// The live joints it created or changed.
    pub joints: Vec<JointId>,
    /// Terrain changes: the terrain stamp before and after, and the chunks to redraw.
    pub terrain: Option<(u64, u64, Vec<ChunkCoord>)>,
}

impl Edit {
    /// The edit that takes this one back. Bodies removed are re-created in the reverse order,
    /// so the engine's free list hands them their old slots again (and the other way round).
    pub fn inverse(&self) -> Edit {
        let reversed = |records: &Vec<BodyRecord>| records.iter().rev().cloned().collect();
        match self {
            Edit::Add(records) => Edit::Remove(reversed(records)),
            Edit::Remove(records) => Edit::Add(reversed(records)),
            Edit::Change(pairs) => Edit::Change(pairs.iter().map(|(b, a)| (a.clone(), b.clone())).collect()),
            Edit::Settings { before, after } => Edit::Settings { before: *after, after: *before },
            Edit::Terrain { voxels, added, removed } => Edit::Terrain {
                voxels: voxels.iter().map(|&(v, before, after)| (v, after, before)).collect(),
                added: reversed(removed),
                removed: reversed(added),
            },
            Edit::AddJoints(records) => Edit::RemoveJoints(records.iter().rev().cloned().collect()),
            Edit::RemoveJoints(records) => Edit::AddJoints(records.iter().rev().cloned().collect()),
            Edit::ChangeJoints(pairs) => {
                Edit::ChangeJoints(pairs.iter().map(|(b, a)| (a.clone(), b.clone())).collect())
            }
            Edit::Group(parts) => Edit::Group(parts.iter().rev().map(Edit::inverse).collect()),
        }
    }

    /// Checks the edit against the engine's rules without changing anything: every body it
    /// creates or changes must be valid.
    pub fn validate(&self) -> Result<(), String> {
        let check =
            |record: &BodyRecord| record.body.to_desc().and_then(|d| d.validate()).map_err(|e| e.to_string());
        match self {
            Edit::Add(records) => records.iter().try_for_each(check),
            Edit::Remove(_) => Ok(()),
            Edit::Change(pairs) => pairs.iter().try_for_each(|(_, after)| check(after)),
            Edit::Settings { after, .. } => after.validate().map_err(|e| e.to_string()),
            Edit::Terrain { added, .. } => added.iter().try_for_each(check),
            Edit::AddJoints(records) => records.iter().try_for_each(JointRecord::validate),
            Edit::RemoveJoints(_) => Ok(()),
            Edit::ChangeJoints(pairs) => pairs.iter().try_for_each(|(_, after)| after.validate()),
            Edit::Group(parts) => parts.iter().try_for_each(Edit::validate),
        }
    }

    /// Applies the edit to `world`; returns the live bodies it created or changed. The edit is
    /// validated first, so a refused edit changes nothing.
    pub fn apply(&self, world: &mut World, entities: &mut Entities) -> Result<Applied, String> {
        self.validate()?;
        let mut applied = Applied::default();
        match self {
            Edit::Add(records) => add(world, entities, records, &mut applied.bodies)?,
            Edit::Remove(records) => remove(world, entities, records)?,
            Edit::Terrain { voxels, added, removed } => {
                remove(world, entities, removed)?;
                let before = world.terrain_stamp();
                let writes: Vec<(IVec3, Voxel)> = voxels.iter().map(|&(v, _, after)| (v, after)).collect();
                let report = world.set_terrain_voxels(&writes).map_err(|e| e.to_string())?;
                applied.terrain = Some((before, world.terrain_stamp(), report.chunks));
                add(world, entities, added, &mut applied.bodies)?;
            }
            Edit::Change(pairs) => {
                for (_, after) in pairs {
                    let Some(id) = entities.body(after.key) else { continue };
                    set_body(world, id, &after.body)?;
                    entities.set_meta(after.key, meta_of(&after.body));
                    applied.bodies.push(id);
                }
            }
            Edit::Settings { after, .. } => world.set_settings(*after).map_err(|e| e.to_string())?,
            Edit::AddJoints(records) => add_joints(world, entities, records, &mut applied.joints)?,
            Edit::RemoveJoints(records) => remove_joints(world, entities, records)?,
            Edit::ChangeJoints(pairs) => change_joints(world, entities, pairs, &mut applied.joints)?,
            Edit::Group(parts) => {
                for (done, part) in parts.iter().enumerate() {
                    match part.apply(world, entities) {
                        Ok(part_applied) => {
                            applied.bodies.extend(part_applied.bodies);
                            applied.joints.extend(part_applied.joints);
                            applied.terrain = applied.terrain.or(part_applied.terrain);
                        }
                        Err(e) => {
                            // Take back what was done, newest first, so the world is as it was.
                            for earlier in parts[..done].iter().rev() {
                                let _ = earlier.inverse().apply(world, entities);
                            }
                            return Err(e);
                        }
                    }
                }
            }
        }
        Ok(applied)
    }

    /// Bodies the edit names (for a label such as "move 3 bodies").
    pub fn body_count(&self) -> usize {
        match self {
            Edit::Add(r) | Edit::Remove(r) => r.len(),
            Edit::Change(p) => p.len(),
            Edit::Settings { .. } | Edit::AddJoints(_) | Edit::RemoveJoints(_) | Edit::ChangeJoints(_) => 0,
            Edit::Terrain { added, removed, .. } => added.len() + removed.len(),
            Edit::Group(parts) => parts.iter().map(Edit::body_count).sum(),
        }
    }

    /// Joints the edit names.
    pub fn joint_count(&self) -> usize {
        match self {
            Edit::AddJoints(r) | Edit::RemoveJoints(r) => r.len(),
            Edit::ChangeJoints(p) => p.len(),
            Edit::Group(parts) => parts.iter().map(Edit::joint_count).sum(),
            _ => 0,
        }
    }

    /// Whether the edit creates bodies (they become the selection).
    pub fn adds_bodies(&self) -> bool {
        match self {
            Edit::Add(_) => true,
            Edit::Group(parts) => parts.iter().any(Edit::adds_bodies),
            _ => false,
        }
    }

    /// Whether the edit only takes things away (bodies, joints): after it, nothing it names is
    /// left to select.
    pub fn only_removes(&self) -> bool {
        match self {
            Edit::Remove(_) | Edit::RemoveJoints(_) => true,
            Edit::Group(parts) => parts.iter().all(Edit::only_removes),
            _ => false,
        }
    }

    /// Gives back the spare capacity of its lists (collected lists start with room for four),
    /// before the edit goes into the undo history for good.
    pub fn shrink_to_fit(&mut self) {
        match self {
            Edit::Add(r) | Edit::Remove(r) => r.shrink_to_fit(),
            Edit::Change(p) => p.shrink_to_fit(),
            Edit::Settings { .. } => {}
            Edit::Terrain { voxels, added, removed } => {
                voxels.shrink_to_fit();
                added.shrink_to_fit();
                removed.shrink_to_fit();
            }
            Edit::AddJoints(r) | Edit::RemoveJoints(r) => r.shrink_to_fit(),
            Edit::ChangeJoints(p) => p.shrink_to_fit(),
            Edit::Group(parts) => {
                parts.iter_mut().for_each(Edit::shrink_to_fit);
                parts.shrink_to_fit();
            }
        }
    }

    /// The heap bytes the edit holds, plus its own size: what it costs in the undo history.
    pub fn bytes(&self) -> usize {
        let heap = match self {
            Edit::Add(r) | Edit::Remove(r) => records_bytes(r),
            Edit::Change(p) => {
                p.capacity() * size_of::<(BodyRecord, BodyRecord)>()
                    + p.iter().map(|(b, a)| b.heap_bytes() + a.heap_bytes()).sum::<usize>()
            }
            Edit::Settings { .. } => 0,
            Edit::Terrain { voxels, added, removed } => {
                voxels.capacity() * size_of::<(IVec3, Voxel, Voxel)>()
                    + records_bytes(added)
                    + records_bytes(removed)
            }
            Edit::AddJoints(r) | Edit::RemoveJoints(r) => {
                r.capacity() * size_of::<JointRecord>() + r.iter().map(|j| j.name.capacity()).sum::<usize>()
            }
            Edit::ChangeJoints(p) => {
                p.capacity() * size_of::<(JointRecord, JointRecord)>()
                    + p.iter().map(|(b, a)| b.name.capacity() + a.name.capacity()).sum::<usize>()
            }
            // Each part counts its own size.
            Edit::Group(parts) => {
                parts.iter().map(Edit::bytes).sum::<usize>()
                    + (parts.capacity() - parts.len()) * size_of::<Edit>()
            }
        };
        size_of::<Edit>() + heap
    }
}

/// "1 body", "3 bodies": how an undo step's label counts the bodies an edit names (here, with
/// the edits, so every tool that labels an edit words it the same way).
pub fn bodies_text(n: usize) -> String {
    if n == 1 { "1 body".to_string() } else { format!("{n} bodies") }
}

/// What a list of body records holds: its slots and their heap data.
fn records_bytes(records: &Vec<BodyRecord>) -> usize {
    records.capacity() * size_of::<BodyRecord>() + records.iter().map(BodyRecord::heap_bytes).sum::<usize>()
}

/// Creates the bodies of `records` under their keys, in order.
fn add(
    world: &mut World,
    entities: &mut Entities,
    records: &[BodyRecord],
    touched: &mut Vec<BodyId>,
) -> Result<(), String> {
    for record in records {
        let desc = record.body.to_desc().map_err(|e| e.to_string())?;
        let id = world.create_body(&desc).map_err(|e| e.to_string())?;
        entities.bind(record.key, id);
        entities.set_meta(record.key, meta_of(&record.body));
        touched.push(id);
    }
    Ok(())
}

/// Destroys the live bodies of `records`, in order, and forgets the keys of the joints that
/// went with them.
fn remove(world: &mut World, entities: &mut Entities, records: &[BodyRecord]) -> Result<(), String> {
    for record in records {
        if let Some(id) = entities.body(record.key) {
            let joints = world.destroy_body(id).map_err(|e| e.to_string())?;
            entities.unbind(record.key);
            for joint in joints {
                if let Some(key) = entities.existing_joint_key(joint) {
                    entities.unbind_joint(key);
                }
            }
        }
    }
    Ok(())
}

/// Creates the joints of `records` under their keys, in order.
fn add_joints(
    world: &mut World,
    entities: &mut Entities,
    records: &[JointRecord],
    touched: &mut Vec<JointId>,
) -> Result<(), String> {
    let descs: Vec<JointDesc> = records.iter().map(|r| r.live_desc(entities)).collect::<Result<_, _>>()?;
    let first = touched.len();
    for (record, desc) in records.iter().zip(&descs) {
        match world.create_joint(desc) {
            Ok(id) => {
                entities.bind_joint(record.key, id);
                entities.set_joint_name(record.key, record.name.clone());
                touched.push(id);
            }
            Err(e) => {
                // All or nothing: the joints this call made go again.
                for (made, id) in records.iter().zip(touched.drain(first..)) {
                    let _ = world.destroy_joint(id);
                    entities.unbind_joint(made.key);
                }
                return Err(format!("joint {}: {e}", record.name));
            }
        }
    }
    Ok(())
}

/// Changes live joints in place to the `after` side of each pair (their ids, islands and warm
/// starts stay). Every joint is looked up and checked before any changes, so a refused change
/// changes nothing.
fn change_joints(
    world: &mut World,
    entities: &mut Entities,
    pairs: &[(JointRecord, JointRecord)],
    touched: &mut Vec<JointId>,
) -> Result<(), String> {
    let mut changes = Vec::with_capacity(pairs.len());
    for (_, after) in pairs {
        let id = entities.joint(after.key).ok_or_else(|| format!("joint {}: it is gone", after.name))?;
        let desc = after.live_desc(entities)?;
        let now = world.joint_desc(id).map_err(|e| e.to_string())?;
        if (now.body_a, now.body_b) != (desc.body_a, desc.body_b) {
            return Err(format!("joint {}: its bodies cannot change", after.name));
        }
        changes.push((after, id, desc));
    }
    for (after, id, desc) in changes {
        world.set_joint_desc(id, &desc).map_err(|e| format!("joint {}: {e}", after.name))?;
        entities.set_joint_name(after.key, after.name.clone());
        touched.push(id);
    }
    Ok(())
}

/// Destroys the live joints of `records`, in order.
fn remove_joints(world: &mut World, entities: &mut Entities, records: &[JointRecord]) -> Result<(), String> {
    for record in records {
        if let Some(id) = entities.joint(record.key) {
            world.destroy_joint(id).map_err(|e| e.to_string())?;
            entities.unbind_joint(record.key);
        }
    }
    Ok(())
}

fn meta_of(body: &SceneBody) -> EntityMeta {
    EntityMeta { name: body.name.clone(), colour: body.colour }
}

/// Brings a live body to `after` with the lightest engine call that does it: when only its
/// pose, velocities or collision filter differ from what the world holds, it is teleported,
/// its velocities and filter set (contacts the filter allows and warm starting survive);
/// anything else rebuilds the body in place.
fn set_body(world: &mut World, id: BodyId, after: &SceneBody) -> Result<(), String> {
    let error = |e: atoll_physics::AtollError| e.to_string();
    let live = SceneBody::from_world(world, id).map_err(error)?;
    let light = SceneBody {
        position: after.position,
        rotation: after.rotation,
        linear_velocity: after.linear_velocity,
        angular_velocity: after.angular_velocity,
        filter: after.filter,
        name: after.name.clone(),
        colour: after.colour,
        ..live.clone()
    } == *after;
    if !light {
        let desc = after.to_desc().map_err(error)?;
        return world.replace_body(id, &desc).map_err(error);
    }
    if (live.position, live.rotation) != (after.position, after.rotation) {
        world.set_transform(id, Transform::new(after.position, after.rotation)).map_err(error)?;
    }
    if live.linear_velocity != after.linear_velocity {
        world.set_linear_velocity(id, after.linear_velocity).map_err(error)?;
    }
    if live.angular_velocity != after.angular_velocity {
        world.set_angular_velocity(id, after.angular_velocity).map_err(error)?;
    }
    if live.filter != after.filter {
        world.set_filter(id, after.filter).map_err(error)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyType, SceneShape, Vec3};

    fn world_and_entities() -> (World, Entities) {
        let world = World::new(StepSettings::default()).unwrap();
        let entities = Entities::default();
        (world, entities)
    }

    fn ball(entities: &mut Entities, x: f32) -> BodyRecord {
        let mut body =
            SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.5 }, Vec3::new(x, 1.0, 0.0));
        body.name = format!("ball {x}");
        BodyRecord { key: entities.fresh_key(), body }
    }

    #[test]
    fn add_remove_change_and_their_inverses() {
        let (mut world, mut entities) = world_and_entities();
        let add =
            Edit::Add(vec![ball(&mut entities, 0.0), ball(&mut entities, 2.0), ball(&mut entities, 4.0)]);
        let ids = add.apply(&mut world, &mut entities).unwrap().bodies;
        assert_eq!(world.body_count(), 3);
        let slots: Vec<u32> = ids.iter().map(|id| id.index()).collect();

        let removed: Vec<BodyRecord> =
            ids.iter().map(|id| BodyRecord::capture(&world, &mut entities, *id).unwrap()).collect();
        let remove = Edit::Remove(removed);
        remove.apply(&mut world, &mut entities).unwrap();
        assert_eq!(world.body_count(), 0);
        let back = remove.inverse().apply(&mut world, &mut entities).unwrap().bodies;
        let mut back_slots: Vec<u32> = back.iter().map(|id| id.index()).collect();
        back_slots.reverse();
        assert_eq!(back_slots, slots, "undoing a delete gives the bodies their slots again");
        let key = match &add {
            Edit::Add(r) => r[1].key,
            _ => unreachable!(),
        };
        let id = entities.body(key).unwrap();
        assert_eq!(entities.meta_of(id).name, "ball 2");

        let before = BodyRecord::capture(&world, &mut entities, id).unwrap();
        let mut after = before.clone();
        after.body.position = Vec3::new(9.0, 1.0, 0.0);
        after.body.material.friction = 0.1;
        let change = Edit::Change(vec![(before, after)]);
        change.apply(&mut world, &mut entities).unwrap();
        assert_eq!(world.transform(id).unwrap().position, Vec3::new(9.0, 1.0, 0.0));
        assert_eq!(world.body(id).unwrap().material.friction, 0.1);
        change.inverse().apply(&mut world, &mut entities).unwrap();
        assert_eq!(world.transform(id).unwrap().position, Vec3::new(2.0, 1.0, 0.0));
        assert_eq!(world.body(id).unwrap().material.friction, 0.6);
    }

    #[test]
    fn a_group_that_fails_part_way_takes_back_its_first_parts() {
        let (mut world, mut entities) = world_and_entities();
        let (a, b) = (ball(&mut entities, 0.0), ball(&mut entities, 2.0));
        let desc = atoll_physics::JointDesc::new(
            atoll_physics::JointKind::Spherical(Default::default()),
            None,
            BodyId::TERRAIN,
        );
        let joint = |body_b: EntityKey, entities: &mut Entities| JointRecord {
            key: entities.fresh_joint_key(),
            body_a: None,
            body_b,
            desc,
            name: String::new(),
        };
        let to_a = joint(a.key, &mut entities);
        // A joint to a body that is never created: the group fails at its last part.
        let stray = joint(entities.fresh_key(), &mut entities);
        let group = Edit::Group(vec![Edit::Add(vec![a, b]), Edit::AddJoints(vec![to_a, stray])]);
        let error = group.apply(&mut world, &mut entities).unwrap_err();
        assert!(error.contains("gone"), "{error}");
        assert_eq!((world.body_count(), world.joint_count()), (0, 0), "nothing of the group stays");
        let Edit::Group(parts) = &group else { unreachable!() };
        let good = Edit::Group(vec![parts[0].clone(), {
            let Edit::AddJoints(j) = &parts[1] else { unreachable!() };
            Edit::AddJoints(vec![j[0].clone()])
        }]);
        let applied = good.apply(&mut world, &mut entities).unwrap();
        assert_eq!((applied.bodies.len(), applied.joints.len()), (2, 1));
        good.inverse().apply(&mut world, &mut entities).unwrap();
        assert_eq!((world.body_count(), world.joint_count()), (0, 0));
    }

    #[test]
    fn a_refused_edit_changes_nothing() {
        let (mut world, mut entities) = world_and_entities();
        let mut bad = ball(&mut entities, 0.0);
        bad.body.shape = SceneShape::Sphere { radius: -1.0 };
        let good = ball(&mut entities, 3.0);
        let error = Edit::Add(vec![good, bad]).apply(&mut world, &mut entities).unwrap_err();
        assert!(error.contains("radius"), "{error}");
        assert_eq!(world.body_count(), 0, "the valid body before the bad one was not created either");
    }
}
