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

use super::select::{BoxDrag, box_select, paint_marquee};
use super::spawn::surface_under;
use super::tool::{Tool, ViewportInput};
use crate::editor::edit::JointRecord;
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use atoll_physics::{BodyId, DistanceJoint, JointKind, JointType, QueryFilter, Ray, Vec3};
use egui::{Color32, Stroke};

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
    /// The type the next joint gets.
    pub joint_type: JointType,
    /// The first click, while the second is awaited.
    pub pending: Option<PendingJoint>,
    /// A shift-drag selecting in a box (as with the select tool), while one is under way.
    marquee: BoxDrag,
}

impl Default for JointTool {
    fn default() -> Self {
        JointTool { joint_type: JointType::Revolute, pending: None, marquee: BoxDrag::default() }
    }
}

impl JointTool {
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

impl JointTool {
    /// A click of the Joint tool along the view ray `origin` + t `dir`: the first picks the body
    /// and anchor, the second makes the joint (one undo step) and selects it. A refused joint
    /// (two static bodies, the same body twice) changes nothing and says why; the tool keeps its
    /// first click so the user can pick another second body.
    pub fn click(&mut self, state: &mut EditorState, origin: Vec3, dir: Vec3) -> Result<(), String> {
        let ray = Ray::new(origin, dir, REACH).map_err(|e| e.to_string())?;
        let hit = state.sim.world.cast_ray(&ray, &QueryFilter::BODIES);
        let Some(first) = self.pending else {
            let hit = hit.ok_or("click a body first: the joint's anchor is the point clicked")?;
            let pose = state.sim.world.transform(hit.body).map_err(|e| e.to_string())?;
            self.pending = Some(PendingJoint {
                body: hit.body,
                local_anchor: pose.inverse_transform_point(hit.point),
                local_normal: pose.rotation.conjugate() * hit.normal,
            });
            return Ok(());
        };
        let Some((anchor, normal)) = first.world(&state.sim.world) else {
            // Deleted (or undone away) since the first click: start again.
            self.pending = None;
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
                (None, surface_under(&state.sim.world, origin, dir).map_or(in_front, |(p, _)| p))
            }
        };
        let joint_type = self.joint_type;
        let kind = match joint_type {
            JointType::Distance => JointKind::Distance(DistanceJoint::rigid(anchor.distance(other_point))),
            t => JointKind::default_of(t),
        };
        let mut desc = state
            .sim
            .world
            .joint_desc_at(kind, other, first.body, anchor, normal)
            .map_err(|e| e.to_string())?;
        if joint_type == JointType::Distance {
            desc.frame_a.anchor = match other {
                Some(body) => state
                    .sim
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
                state.sim.world.body(id).is_ok_and(|b| b.body_type == atoll_physics::BodyType::Dynamic)
            })
        };
        if !dynamic(Some(first.body)) && !dynamic(other) {
            return Err("a joint needs at least one dynamic body".into());
        }
        let record = JointRecord {
            key: state.doc.entities.fresh_joint_key(),
            body_a: other.map(|b| state.doc.entities.key(b)),
            body_b: state.doc.entities.key(first.body),
            desc,
            name: String::new(),
        };
        let key = record.key;
        state.add_joints(&format!("add {} joint", joint_type.name()), vec![record])?;
        self.pending = None;
        state.doc.selection.set_joint(state.doc.entities.joint(key));
        Ok(())
    }
}

impl Tool for JointTool {
    fn name(&self) -> &'static str {
        "Joint tool"
    }

    /// A click is one of the tool's two clicks; a shift-drag selects in a box, as with the
    /// select tool.
    fn viewport_input(&mut self, state: &mut EditorState, input: &ViewportInput) -> bool {
        if box_select(&mut self.marquee, state, input) {
            return true;
        }
        if input.response.clicked()
            && let Some(pos) = input.response.interact_pointer_pos()
        {
            let (origin, dir) = input.ray(state, pos);
            if let Err(e) = self.click(state, origin, dir) {
                state.diag.notices.report(NoticePlace::ErrorWindow, e);
            }
        }
        false
    }

    /// The first click: its anchor, and a line from it to the pointer.
    fn paint(&self, state: &EditorState, painter: &egui::Painter, input: &ViewportInput) {
        paint_marquee(&self.marquee, painter, input);
        let Some(pending) = self.pending else { return };
        let Some((anchor, _)) = pending.world(&state.sim.world) else { return };
        let Some(anchor) = input.on_screen(state, anchor) else { return };
        let colour = Color32::from_rgb(70, 220, 255);
        painter.circle_stroke(anchor, 6.0, Stroke::new(2.0, colour));
        painter.circle_filled(anchor, 2.5, colour);
        if let Some(to) = input.response.hover_pos() {
            painter.line_segment([anchor, to], Stroke::new(1.5, colour));
        }
    }

    /// The tool's switch, every joint type, and what to click next.
    fn palette(&mut self, ui: &mut egui::Ui, _state: &mut EditorState, active: bool) -> Option<bool> {
        let mut on = active;
        let r = ui
            .toggle_value(&mut on, self.name())
            .on_hover_text("Click a body (the anchor), then another body or empty space (the world) (J)");
        ui.horizontal_wrapped(|ui| {
            for joint_type in JointType::ALL {
                ui.selectable_value(&mut self.joint_type, joint_type, joint_type.name());
            }
        });
        if active {
            ui.weak(self.hint());
        }
        r.changed().then_some(on)
    }

    fn cancel(&mut self) -> bool {
        let marquee = self.marquee.cancel();
        self.pending.take().is_some() || marquee
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyType, SceneBody, SceneShape};

    /// A state with two boxes side by side in the air, returned with their ids.
    fn two_boxes() -> (EditorState, BodyId, BodyId) {
        let mut state = EditorState::from_scene(&crate::builtin::tower(1), None).unwrap();
        state.sim.world.destroy_body(state.sim.world.body_ids().last().unwrap()).unwrap();
        let boxed = |x: f32| {
            SceneBody::new(
                BodyType::Dynamic,
                SceneShape::Box { half_extents: Vec3::splat(0.5) },
                Vec3::new(x, 3.0, 0.0),
            )
        };
        state.add_bodies("spawn", vec![boxed(0.0), boxed(1.0)]).unwrap();
        let ids = state.doc.selection.ids().to_vec();
        (state, ids[0], ids[1])
    }

    /// A ray from the front (+Z) at `point`.
    fn at(point: Vec3) -> (Vec3, Vec3) {
        (point + Vec3::Z * 10.0, -Vec3::Z)
    }

    #[test]
    fn two_clicks_make_a_hinge_about_the_clicked_faces_normal_as_one_undo_step() {
        let (mut state, a, b) = two_boxes();
        let mut tool = JointTool::default();
        let (o, d) = at(Vec3::new(0.0, 3.2, 0.0));
        tool.click(&mut state, o, d).unwrap();
        assert_eq!(tool.pending.map(|p| p.body), Some(a));
        let (o, d) = at(Vec3::new(1.0, 3.0, 0.0));
        tool.click(&mut state, o, d).unwrap();
        assert_eq!(state.sim.world.joint_count(), 1);
        let joint = state.doc.selection.joint().expect("the new joint is selected");
        let view = state.sim.world.joint(joint).unwrap();
        assert_eq!((view.body_a, view.body_b), (Some(b), a));
        assert!(
            view.anchor_a.distance(Vec3::new(0.0, 3.2, 0.5)) < 1e-4,
            "anchor at the click: {}",
            view.anchor_a
        );
        assert!(view.axis.distance(Vec3::Z) < 1e-5, "axis along the face normal: {}", view.axis);
        assert_eq!(state.undo().as_deref(), Some("add revolute joint"));
        assert_eq!(state.sim.world.joint_count(), 0);
        assert_eq!(state.redo().as_deref(), Some("add revolute joint"));
        assert_eq!(state.sim.world.joint_count(), 1);
    }

    #[test]
    fn empty_space_is_the_world_and_refusals_keep_the_first_click() {
        let (mut state, a, _) = two_boxes();
        let mut tool = JointTool::default();
        let sky = (Vec3::new(0.0, 50.0, 10.0), Vec3::Y);
        assert!(tool.click(&mut state, sky.0, sky.1).is_err(), "the first click needs a body");
        let (o, d) = at(Vec3::new(0.0, 3.0, 0.0));
        tool.click(&mut state, o, d).unwrap();
        assert!(tool.click(&mut state, o, d).unwrap_err().contains("two bodies"));
        assert!(tool.pending.is_some(), "still waiting for the second click");
        tool.joint_type = JointType::Distance;
        tool.click(&mut state, sky.0, sky.1).unwrap();
        let view = state.sim.world.joint(state.doc.selection.joint().unwrap()).unwrap();
        assert_eq!((view.body_a, view.body_b), (None, a));
        assert!(view.position > 1.0, "a rod from the box to the point in front of it: {}", view.position);
        // Escape-like cancel.
        tool.click(&mut state, o, d).unwrap();
        tool.cancel();
        assert!(tool.pending.is_none());
    }

    #[test]
    fn the_first_click_moves_with_its_body_and_is_dropped_when_the_body_goes() {
        let (mut state, a, b) = two_boxes();
        let mut tool = JointTool::default();
        let (o, d) = at(Vec3::new(0.0, 3.2, 0.0));
        tool.click(&mut state, o, d).unwrap();
        // The box falls a little before the second click: the anchor goes with it.
        for _ in 0..10 {
            state.sim.world.step();
        }
        let fallen = state.sim.world.transform(a).unwrap().position;
        let (anchor, _) = tool.pending.unwrap().world(&state.sim.world).unwrap();
        assert!(
            (anchor - (fallen + Vec3::new(0.0, 0.2, 0.5))).length() < 1e-3,
            "anchor {anchor}, box {fallen}"
        );
        state.sim.world.destroy_body(a).unwrap();
        let (o, d) = at(state.sim.world.transform(b).unwrap().position);
        assert!(tool.click(&mut state, o, d).unwrap_err().contains("gone"));
        assert!(tool.pending.is_none(), "a first click on a gone body is dropped");
    }
}
