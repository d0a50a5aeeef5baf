//! What is selected: either bodies, a set in the order they were picked, the last one primary
//! (the one the Inspector shows first and the gizmo sits on), or one joint. Selecting one kind
//! drops the other, so the Inspector, Delete and the gizmo always know what they act on.

use atoll_physics::{BodyId, JointId, World};

/// The selected bodies, primary last, or the selected joint.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Selection {
    ids: Vec<BodyId>,
    joint: Option<JointId>,
}

impl Selection {
    /// The selected bodies, in the order they were picked.
    pub fn ids(&self) -> &[BodyId] {
        &self.ids
    }

    /// The primary body: the last one picked.
    pub fn primary(&self) -> Option<BodyId> {
        self.ids.last().copied()
    }

    /// Whether `id` is selected.
    pub fn contains(&self, id: BodyId) -> bool {
        self.ids.contains(&id)
    }

    /// Whether nothing is selected, neither a body nor a joint.
    pub fn is_empty(&self) -> bool {
        self.ids.is_empty() && self.joint.is_none()
    }

    /// Whether any body is selected.
    pub fn has_bodies(&self) -> bool {
        !self.ids.is_empty()
    }

    /// The selected joint.
    pub fn joint(&self) -> Option<JointId> {
        self.joint
    }

    /// Selects only joint `id` (or nothing).
    pub fn set_joint(&mut self, id: Option<JointId>) {
        self.ids.clear();
        self.joint = id;
    }

    /// Selects only `id` (or nothing).
    pub fn set(&mut self, id: Option<BodyId>) {
        self.joint = None;
        self.ids.clear();
        self.ids.extend(id);
    }

    /// Selects exactly `ids` (the last one primary), without repeats.
    pub fn set_many(&mut self, ids: impl IntoIterator<Item = BodyId>) {
        self.joint = None;
        self.ids.clear();
        for id in ids {
            self.add(id);
        }
    }

    /// Adds `id` as the primary body.
    pub fn add(&mut self, id: BodyId) {
        self.joint = None;
        self.ids.retain(|x| *x != id);
        self.ids.push(id);
    }

    /// Adds `id`, or takes it out when it was selected.
    pub fn toggle(&mut self, id: BodyId) {
        self.joint = None;
        if self.contains(id) {
            self.ids.retain(|x| *x != id);
        } else {
            self.ids.push(id);
        }
    }

    /// Forgets bodies and joints that no longer exist.
    pub fn retain_live(&mut self, world: &World) {
        self.ids.retain(|id| world.body(*id).is_ok());
        self.joint = self.joint.filter(|id| world.joint(*id).is_ok());
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyDesc, Shape, StepSettings, Vec3};

    #[test]
    fn toggling_adding_and_dead_bodies() {
        let mut world = World::new(StepSettings::default()).unwrap();
        let ids: Vec<BodyId> = (0..3)
            .map(|i| {
                world
                    .create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::X * i as f32))
                    .unwrap()
            })
            .collect();
        let mut selection = Selection::default();
        selection.set(Some(ids[0]));
        selection.toggle(ids[1]);
        assert_eq!(selection.primary(), Some(ids[1]));
        selection.add(ids[0]);
        assert_eq!(selection.ids(), &[ids[1], ids[0]]);
        selection.toggle(ids[0]);
        assert_eq!(selection.ids(), &[ids[1]]);
        world.destroy_body(ids[1]).unwrap();
        selection.retain_live(&world);
        assert!(selection.is_empty());
    }
}
