//! What Ctrl+C copied: bodies as they were then, and the joints among them (a joint is copied
//! when both its sides are: two copied bodies, or a copied body and the world).

use super::edit::{BodyRecord, JointRecord};
use super::entities::Entities;
use atoll_physics::{BodyId, JointDesc, SceneBody, Vec3, World};

/// A copied joint: its sides as indices into the copied bodies (`None`: the world).
#[derive(Clone, Debug, PartialEq)]
pub struct CopiedJoint {
    /// Side A's body in [`Clipboard::bodies`], or the world.
    pub body_a: Option<usize>,
    /// Side B's body in [`Clipboard::bodies`].
    pub body_b: usize,
    /// The joint (its body ids are those of when it was copied).
    pub desc: JointDesc,
    /// Its name.
    pub name: String,
}

/// Copied bodies and the joints among them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Clipboard {
    /// The bodies, as they were when copied.
    pub bodies: Vec<SceneBody>,
    /// The joints whose sides were all copied.
    pub joints: Vec<CopiedJoint>,
}

impl Clipboard {
    /// The bodies `records` (live ids `ids`, in the same order) of `world` with the joints
    /// among them.
    pub fn copy(world: &World, entities: &Entities, records: Vec<BodyRecord>, ids: &[BodyId]) -> Clipboard {
        let index_of = |id: BodyId| ids.iter().position(|&b| b == id);
        let mut joints = Vec::new();
        for joint in world.joint_ids() {
            let Ok(desc) = world.joint_desc(joint) else { continue };
            let body_a = match desc.body_a {
                Some(a) => match index_of(a) {
                    Some(i) => Some(i),
                    None => continue,
                },
                None => None,
            };
            let Some(body_b) = index_of(desc.body_b) else { continue };
            joints.push(CopiedJoint { body_a, body_b, desc, name: entities.joint_name_of(joint) });
        }
        Clipboard { bodies: records.into_iter().map(|r| r.body).collect(), joints }
    }

    /// Nothing copied.
    pub fn is_empty(&self) -> bool {
        self.bodies.is_empty()
    }

    /// The same bodies and joints moved by `offset` (a joint's world side moves with them).
    pub fn moved(&self, offset: Vec3) -> Clipboard {
        let mut moved = self.clone();
        moved.bodies.iter_mut().for_each(|b| b.position += offset);
        for joint in moved.joints.iter_mut().filter(|j| j.body_a.is_none()) {
            joint.desc.frame_a.anchor += offset;
        }
        moved
    }

    /// Records for creating the clipboard's contents under fresh keys.
    pub fn records(&self, entities: &mut Entities) -> (Vec<BodyRecord>, Vec<JointRecord>) {
        let bodies: Vec<BodyRecord> = self
            .bodies
            .iter()
            .map(|body| BodyRecord { key: entities.fresh_key(), body: body.clone() })
            .collect();
        let joints = self
            .joints
            .iter()
            .map(|j| JointRecord {
                key: entities.fresh_joint_key(),
                body_a: j.body_a.map(|i| bodies[i].key),
                body_b: bodies[j.body_b].key,
                desc: j.desc,
                name: j.name.clone(),
            })
            .collect();
        (bodies, joints)
    }
}
