//! The Joint tool: a palette of every joint type, and two clicks to make one. The first click on
//! a body picks it and the anchor (the point clicked); the joint's axis starts as the surface
//! normal there (a hinge turns about it, a slider slides along it; the Inspector turns it). The
//! second click on another body links the two; a click on empty space, or on the terrain or the
//! ground, anchors the joint to the world. Creating a joint is one undo step; Esc cancels a
//! half-made one.
//!
//! The first body is side B (the one the joint moves: a door), the second side A (its post, or
//! the world). A distance joint runs from the first click to the second, at that length; every
//! other type starts with both frames at the first click, at rest.

use super::edit::JointRecord;
use super::spawn::surface_under;
use super::state::EditorState;
use atoll_physics::{BodyId, DistanceJoint, JointKind, JointType, QueryFilter, Ray, Vec3};

/// The first click of a joint being made, kept in the clicked body's frame: while the
/// simulation plays the body moves on, and the anchor moves with it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PendingJoint {
    /// The body clicked first (side B).
    pub body: BodyId,
    /// The anchor: the point clicked, in the body's frame.
    local_anchor: Vec3,
    /// The surface normal there, in the body's frame: the joint's axis.
    local_normal: Vec3,
}

impl PendingJoint {
    /// The anchor and axis in world space where the body is now; `None` once it is gone.
    pub fn world(&self, world: &atoll_physics::World) -> Option<(Vec3, Vec3)> {
        let pose = world.transform(self.body).ok()?;
        Some((pose.transform_point(self.local_anchor), pose.rotation * self.local_normal))
    }
}

/// The Joint tool's state.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointTool {
    /// Clicks in the viewport make joints.
    pub active: bool,
    /// The type the next joint gets.
    pub joint_type: JointType,
    /// The first click, while the second is awaited.
    pub pending: Option<PendingJoint>,
}

impl Default for JointTool {
    fn default() -> Self {
        JointTool { active: false, joint_type: JointType::Revolute, pending: None }
    }
}

impl JointTool {
    /// Turns the tool on or off; either way a half-made joint is dropped.
    pub fn set_active(&mut self, active: bool) {
        self.active = active;
        self.pending = None;
    }

    /// What the tool asks of the user now, for the panel and the status line.
    pub fn hint(&self) -> &'static str {
        match self.pending {
            None => "Click a body: the joint's anchor (the axis is the surface normal there).",
            Some(_) => "Click a second body, or empty space for the world (Esc cancels).",
        }
    }
}

/// Longest reach of the tool's rays, metres.
const REACH: f32 = 1.0e4;

impl EditorState {
    /// A click of the Joint tool along the view ray `origin` + t `dir`: the first picks the body
    /// and anchor, the second makes the joint (one undo step) and selects it. A refused joint
    /// (two static bodies, the same body twice) changes nothing and says why; the tool keeps its
    /// first click so the user can pick another second body.
    pub fn joint_click(&mut self, origin: Vec3, dir: Vec3) -> Result<(), String> {
        let ray = Ray::new(origin, dir, REACH).map_err(|e| e.to_string())?;
        let hit = self.world.cast_ray(&ray, &QueryFilter::BODIES);
        let Some(first) = self.joint_tool.pending else {
            let hit = hit.ok_or("click a body first: the joint's anchor is the point clicked")?;
            let pose = self.world.transform(hit.body).map_err(|e| e.to_string())?;
            self.joint_tool.pending = Some(PendingJoint {
                body: hit.body,
                local_anchor: pose.inverse_transform_point(hit.point),
                local_normal: pose.rotation.conjugate() * hit.normal,
            });
            return Ok(());
        };
        let Some((anchor, normal)) = first.world(&self.world) else {
            // Deleted (or undone away) since the first click: start again.
            self.joint_tool.pending = None;
            return Err("the body clicked first is gone: click a body again".into());
        };
        let (other, other_point) = match hit {
            Some(hit) if hit.body == first.body => {
                return Err("a joint links two bodies: click another body, or empty space".into());
            }
            Some(hit) => (Some(hit.body), hit.point),
            // The world: where the pointer meets the terrain or the ground, or else the point on
            // the ray as far from the eye as the anchor is.
            None => {
                let in_front = origin + dir.normalize_or_zero() * origin.distance(anchor);
                (None, surface_under(&self.world, origin, dir).map_or(in_front, |(p, _)| p))
            }
        };
        let joint_type = self.joint_tool.joint_type;
        let kind = match joint_type {
            JointType::Distance => JointKind::Distance(DistanceJoint::rigid(anchor.distance(other_point))),
            t => JointKind::default_of(t),
        };
        let mut desc =
            self.world.joint_desc_at(kind, other, first.body, anchor, normal).map_err(|e| e.to_string())?;
        if joint_type == JointType::Distance {
            desc.frame_a.anchor = match other {
                Some(body) => self
                    .world
                    .transform(body)
                    .map_err(|e| e.to_string())?
                    .inverse_transform_point(other_point),
                None => other_point,
            };
        }
        // Checked here so a refusal keeps the first click (the world would refuse it too).
        let dynamic = |id: Option<BodyId>| {
            id.is_some_and(|id| {
                self.world.body(id).is_ok_and(|b| b.body_type == atoll_physics::BodyType::Dynamic)
            })
        };
        if !dynamic(Some(first.body)) && !dynamic(other) {
            return Err("a joint needs at least one dynamic body".into());
        }
        let record = JointRecord {
            key: self.entities.fresh_joint_key(),
            body_a: other.map(|b| self.entities.key(b)),
            body_b: self.entities.key(first.body),
            desc,
            name: String::new(),
        };
        let key = record.key;
        self.add_joints(&format!("add {} joint", joint_type.name()), vec![record])?;
        self.joint_tool.pending = None;
        self.selection.set_joint(self.entities.joint(key));
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyType, SceneBody, SceneShape};

    /// A state with two boxes side by side in the air, returned with their ids.
    fn two_boxes() -> (EditorState, BodyId, BodyId) {
        let mut state = EditorState::from_scene(&crate::builtin::tower(1), None).unwrap();
        state.world.destroy_body(state.world.body_ids().last().unwrap()).unwrap();
        let boxed = |x: f32| {
            SceneBody::new(
                BodyType::Dynamic,
                SceneShape::Box { half_extents: Vec3::splat(0.5) },
                Vec3::new(x, 3.0, 0.0),
            )
        };
        state.add_bodies("spawn", vec![boxed(0.0), boxed(1.0)]).unwrap();
        let ids = state.selection.ids().to_vec();
        (state, ids[0], ids[1])
    }

    /// A ray from the front (+Z) at `point`.
    fn at(point: Vec3) -> (Vec3, Vec3) {
        (point + Vec3::Z * 10.0, -Vec3::Z)
    }

    #[test]
    fn two_clicks_make_a_hinge_about_the_clicked_faces_normal_as_one_undo_step() {
        let (mut state, a, b) = two_boxes();
        state.joint_tool.set_active(true);
        let (o, d) = at(Vec3::new(0.0, 3.2, 0.0));
        state.joint_click(o, d).unwrap();
        assert_eq!(state.joint_tool.pending.map(|p| p.body), Some(a));
        let (o, d) = at(Vec3::new(1.0, 3.0, 0.0));
        state.joint_click(o, d).unwrap();
        assert_eq!(state.world.joint_count(), 1);
        let joint = state.selection.joint().expect("the new joint is selected");
        let view = state.world.joint(joint).unwrap();
        assert_eq!((view.body_a, view.body_b), (Some(b), a));
        assert!(
            view.anchor_a.distance(Vec3::new(0.0, 3.2, 0.5)) < 1e-4,
            "anchor at the click: {}",
            view.anchor_a
        );
        assert!(view.axis.distance(Vec3::Z) < 1e-5, "axis along the face normal: {}", view.axis);
        assert_eq!(state.undo().as_deref(), Some("add revolute joint"));
        assert_eq!(state.world.joint_count(), 0);
        assert_eq!(state.redo().as_deref(), Some("add revolute joint"));
        assert_eq!(state.world.joint_count(), 1);
    }

    #[test]
    fn empty_space_is_the_world_and_refusals_keep_the_first_click() {
        let (mut state, a, _) = two_boxes();
        state.joint_tool.set_active(true);
        let sky = (Vec3::new(0.0, 50.0, 10.0), Vec3::Y);
        assert!(state.joint_click(sky.0, sky.1).is_err(), "the first click needs a body");
        let (o, d) = at(Vec3::new(0.0, 3.0, 0.0));
        state.joint_click(o, d).unwrap();
        assert!(state.joint_click(o, d).unwrap_err().contains("two bodies"));
        assert!(state.joint_tool.pending.is_some(), "still waiting for the second click");
        state.joint_tool.joint_type = JointType::Distance;
        state.joint_click(sky.0, sky.1).unwrap();
        let view = state.world.joint(state.selection.joint().unwrap()).unwrap();
        assert_eq!((view.body_a, view.body_b), (None, a));
        assert!(view.position > 1.0, "a rod from the box to the point in front of it: {}", view.position);
        // Escape-like cancel.
        state.joint_click(o, d).unwrap();
        state.joint_tool.set_active(false);
        assert!(state.joint_tool.pending.is_none());
    }

    #[test]
    fn the_first_click_moves_with_its_body_and_is_dropped_when_the_body_goes() {
        let (mut state, a, b) = two_boxes();
        state.joint_tool.set_active(true);
        let (o, d) = at(Vec3::new(0.0, 3.2, 0.0));
        state.joint_click(o, d).unwrap();
        // The box falls a little before the second click: the anchor goes with it.
        for _ in 0..10 {
            state.world.step();
        }
        let fallen = state.world.transform(a).unwrap().position;
        let (anchor, _) = state.joint_tool.pending.unwrap().world(&state.world).unwrap();
        assert!(
            (anchor - (fallen + Vec3::new(0.0, 0.2, 0.5))).length() < 1e-3,
            "anchor {anchor}, box {fallen}"
        );
        state.world.destroy_body(a).unwrap();
        let (o, d) = at(state.world.transform(b).unwrap().position);
        assert!(state.joint_click(o, d).unwrap_err().contains("gone"));
        assert!(state.joint_tool.pending.is_none(), "a first click on a gone body is dropped");
    }
}
