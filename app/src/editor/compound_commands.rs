//! Combine and Split: the selected bodies made one compound body, and a compound body taken
//! apart into one body per shape, each one undo step. Every shape keeps its place in the world.

use super::commands::joints_text;
use super::edit::{BodyRecord, Edit, JointRecord, bodies_text};
use super::state::EditorState;
use atoll_physics::scene::SceneChild;
use atoll_physics::{MAX_CHILDREN, SceneBody, Transform};

impl EditorState {
    /// Makes the selected bodies one body: the primary selection keeps its type, pose,
    /// velocities and the rest of its own settings, and every other selected body's shapes
    /// become its children where they are now (with their materials, filters and sensor
    /// flags). The others and their joints go; one undo step brings them back.
    pub fn combine_selection(&mut self) -> Result<(), String> {
        let Some(primary) = self.selected() else { return Ok(()) };
        let records = self.selected_records()?;
        if records.len() < 2 {
            return Err("select two bodies or more to combine them".into());
        }
        let key = self.doc.entities.key(primary);
        let (kept, others): (Vec<BodyRecord>, Vec<BodyRecord>) =
            records.into_iter().partition(|r| r.key == key);
        let kept = kept.into_iter().next().ok_or("the primary selection is not among the selected bodies")?;
        let mut combined = kept.clone();
        let frame = Transform::new(kept.body.position, kept.body.rotation);
        for other in &others {
            combined.body.children.extend(shapes_in(&other.body, &frame));
        }
        if combined.body.children.len() > MAX_CHILDREN {
            return Err(format!("a body holds at most {MAX_CHILDREN} shapes beside its own"));
        }
        // The joints of the bodies that go; the kept body's own joints stay.
        let joints = self.joints_of(&others)?;
        let mut label = format!("combine {}", bodies_text(others.len() + 1));
        let mut parts = Vec::new();
        if !joints.is_empty() {
            label += &format!(" (dropping {})", joints_text(joints.len()));
            parts.push(Edit::RemoveJoints(joints));
        }
        parts.push(Edit::Remove(others));
        parts.push(Edit::Change(vec![(kept, combined)]));
        self.commit(&label, Edit::Group(parts), None)?;
        self.doc.selection.set(Some(primary));
        Ok(())
    }

    /// Takes the selected compound bodies apart: each keeps its own shape, and each child
    /// becomes a body of the same type, placed where it is, moving as that point of the body
    /// moved. One undo step puts the compound back.
    pub fn split_selection(&mut self) -> Result<(), String> {
        let records = self.selected_records()?;
        let compounds: Vec<BodyRecord> =
            records.into_iter().filter(|r| !r.body.children.is_empty()).collect();
        if compounds.is_empty() {
            return Err("select a body made of several shapes to split it".into());
        }
        let (mut changes, mut added) = (Vec::new(), Vec::new());
        for record in compounds {
            let mut alone = record.clone();
            alone.body.children.clear();
            let center = self.center_of_mass(&record)?;
            for (k, child) in record.body.children.iter().enumerate() {
                let body = body_of_child(
                    &record.body,
                    child,
                    center,
                    format!("{} part {}", record.body.name, k + 1),
                );
                added.push(BodyRecord { key: self.doc.entities.fresh_key(), body });
            }
            changes.push((record, alone));
        }
        let label = format!("split into {}", bodies_text(changes.len() + added.len()));
        self.commit(&label, Edit::Group(vec![Edit::Change(changes), Edit::Add(added)]), None)
    }

    /// The joints of the live bodies `records` name, in joint order, each once.
    fn joints_of(&mut self, records: &[BodyRecord]) -> Result<Vec<JointRecord>, String> {
        let mut joints = Vec::new();
        for record in records {
            let Some(id) = self.doc.entities.body(record.key) else { continue };
            joints.extend(self.sim.world.body_joints(id).map_err(|e| e.to_string())?);
        }
        joints.sort_by_key(|j| j.index());
        joints.dedup();
        joints.iter().map(|&j| JointRecord::capture(&self.sim.world, &mut self.doc.entities, j)).collect()
    }

    /// The world centre of mass of the live body `record` names.
    fn center_of_mass(&mut self, record: &BodyRecord) -> Result<atoll_physics::Vec3, String> {
        let id = self.doc.entities.body(record.key).ok_or("the body no longer exists")?;
        Ok(self.sim.world.body(id).map_err(|e| e.to_string())?.center_of_mass)
    }
}

/// Every shape of `body` (its own, then its children) as a child placed in `frame`, where it
/// is in the world now.
fn shapes_in(body: &SceneBody, frame: &Transform) -> Vec<SceneChild> {
    let pose = Transform::new(body.position, body.rotation);
    let own = SceneChild {
        shape: body.shape.clone(),
        position: atoll_physics::Vec3::ZERO,
        rotation: atoll_physics::Quat::IDENTITY,
        material: body.material,
        filter: body.filter,
        sensor: body.sensor,
    };
    std::iter::once(&own)
        .chain(&body.children)
        .map(|c| {
            let world = pose.mul(&Transform::new(c.position, c.rotation));
            let local = frame.inverse_mul(&world);
            SceneChild { position: local.position, rotation: local.rotation.normalize(), ..c.clone() }
        })
        .collect()
}

/// Child `child` of compound `body` as a body of its own: the compound's type and settings,
/// the child's shape, material, filter and sensor flag, placed where the child is, moving as
/// that point of the compound moved (about its centre of mass `center`).
fn body_of_child(
    body: &SceneBody,
    child: &SceneChild,
    center: atoll_physics::Vec3,
    name: String,
) -> SceneBody {
    let pose =
        Transform::new(body.position, body.rotation).mul(&Transform::new(child.position, child.rotation));
    SceneBody {
        name,
        shape: child.shape.clone(),
        position: pose.position,
        rotation: pose.rotation.normalize(),
        linear_velocity: body.linear_velocity + body.angular_velocity.cross(pose.position - center),
        material: child.material,
        filter: child.filter,
        sensor: child.sensor,
        children: Vec::new(),
        colour: None,
        ..body.clone()
    }
}
