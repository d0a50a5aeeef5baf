//! The transform gizmo on the selection: three axis arrows that move it along an axis and three
//! rings that turn it about one, drawn over the 3D view with egui's painter (so they always
//! show, even inside a pile) and picked in screen space. Holding Ctrl snaps moves to the grid
//! and turns to the angle step. A drag is one undo step; while the simulation plays, the
//! dragged bodies are held at rest where the gizmo puts them.
//!
//! On a selected joint the gizmo sits on its anchor and moves the anchor or turns the joint's
//! axes (both sides' frames together, so the joint stays at rest), leaving the bodies where
//! they are.

use super::edit::{BodyRecord, Edit, JointRecord, bodies_text};
use super::notices::NoticePlace;
use super::state::EditorState;
use super::undo::MergeKey;
use crate::render::OrbitCamera;
use atoll_physics::{Quat, Vec3};
use egui::{Color32, Pos2, Rect, Stroke};

/// Gizmo drags merge into one undo step until the button is released.
const GIZMO_GESTURE: MergeKey = MergeKey(u64::MAX - 1);
/// How close to a handle, in points, the pointer must be to grab it.
const GRAB_POINTS: f32 = 9.0;
/// The arrows' length as a fraction of the camera's distance to the pivot (constant on screen).
const SIZE: f32 = 0.16;
/// Points along each ring.
const RING_SEGMENTS: usize = 48;

/// A part of the gizmo the pointer can grab.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Handle {
    /// The arrow along axis 0 (x), 1 (y) or 2 (z).
    Move(usize),
    /// The ring about axis 0, 1 or 2.
    Turn(usize),
}

/// The gizmo's settings and the drag in progress.
#[derive(Clone, Debug)]
pub struct Gizmo {
    /// The grid that moves snap to, metres.
    pub grid: f32,
    /// The step that turns snap to, degrees.
    pub angle_step: f32,
    /// The handle under the pointer.
    pub hovered: Option<Handle>,
    drag: Option<Drag>,
}

impl Default for Gizmo {
    fn default() -> Self {
        Gizmo { grid: 0.25, angle_step: 15.0, hovered: None, drag: None }
    }
}

#[derive(Clone, Debug)]
struct Drag {
    handle: Handle,
    pivot: Vec3,
    /// Where the grab started: the axis parameter of a move, the angle of a turn.
    start: f32,
    what: Dragged,
}

/// What a drag moves: the selected bodies as they were when it began, or the selected joint as
/// it was (its frames are placed with its bodies' poses at each update, since they may move
/// while the simulation plays).
#[derive(Clone, Debug)]
enum Dragged {
    Bodies(Vec<BodyRecord>),
    Joint(Box<JointRecord>),
}

/// The gizmo's screen geometry for one frame.
struct Layout {
    pivot: Vec3,
    centre: Pos2,
    tips: [Option<Pos2>; 3],
    rings: [Vec<Pos2>; 3],
}

/// Axis colours: x red, y green, z blue, as in the body axes overlay.
const AXIS_COLOURS: [Color32; 3] =
    [Color32::from_rgb(230, 60, 60), Color32::from_rgb(80, 200, 80), Color32::from_rgb(70, 120, 240)];

fn axis(i: usize) -> Vec3 {
    [Vec3::X, Vec3::Y, Vec3::Z][i]
}

impl Gizmo {
    /// Whether a handle is being dragged.
    pub fn dragging(&self) -> bool {
        self.drag.is_some()
    }

    /// The pivot the gizmo sits on: the selected joint's anchor, or the primary selected
    /// body's origin.
    pub fn pivot(state: &EditorState) -> Option<Vec3> {
        if let Some(joint) = state.doc.selection.joint() {
            return state.sim.world.joint(joint).ok().map(|v| v.anchor_a);
        }
        state.selected().and_then(|id| state.sim.world.transform(id).ok()).map(|t| t.position)
    }

    fn layout(state: &EditorState, rect: Rect) -> Option<Layout> {
        let pivot = Gizmo::pivot(state)?;
        let camera = &state.view.camera;
        let length = (camera.eye() - pivot).length() * SIZE;
        let size = glam::Vec2::new(rect.width(), rect.height());
        let to_screen = |p: Vec3| camera.project(p, size).map(|s| rect.min + egui::vec2(s.x, s.y));
        let centre = to_screen(pivot)?;
        let tips = [0, 1, 2].map(|i| to_screen(pivot + axis(i) * length));
        let rings = [0, 1, 2].map(|i| {
            let (u, v) = axis(i).any_orthonormal_pair();
            (0..=RING_SEGMENTS)
                .filter_map(|k| {
                    let a = k as f32 / RING_SEGMENTS as f32 * std::f32::consts::TAU;
                    to_screen(pivot + (u * a.cos() + v * a.sin()) * length * 0.75)
                })
                .collect()
        });
        Some(Layout { pivot, centre, tips, rings })
    }

    /// The handle nearest `pointer` within grabbing distance.
    fn handle_at(layout: &Layout, pointer: Pos2) -> Option<Handle> {
        let mut best: Option<(f32, Handle)> = None;
        let mut consider = |d: f32, h: Handle| {
            if d < GRAB_POINTS && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, h));
            }
        };
        for i in 0..3 {
            if let Some(tip) = layout.tips[i] {
                consider(segment_distance(pointer, layout.centre, tip), Handle::Move(i));
            }
            for pair in layout.rings[i].windows(2) {
                // A ring counts a little less than an arrow where they cross.
                consider(segment_distance(pointer, pair[0], pair[1]) + 1.0, Handle::Turn(i));
            }
        }
        best.map(|(_, h)| h)
    }

    /// The handle under `pointer` in the view `rect`, if the selection has a gizmo.
    pub fn hit(state: &EditorState, rect: Rect, pointer: Pos2) -> Option<Handle> {
        Gizmo::handle_at(&Gizmo::layout(state, rect)?, pointer)
    }

    /// Starts dragging `handle` with the pointer at `pointer`.
    pub fn begin(&mut self, state: &mut EditorState, rect: Rect, handle: Handle, pointer: Pos2) {
        let Some(layout) = Gizmo::layout(state, rect) else { return };
        let Some(start) = parameter(&state.view.camera, rect, &layout, handle, pointer) else { return };
        let what = if let Some(joint) = state.doc.selection.joint() {
            let Ok(record) = JointRecord::capture(&state.sim.world, &mut state.doc.entities, joint) else {
                return;
            };
            Dragged::Joint(Box::new(record))
        } else {
            let mut ids = state.doc.selection.ids().to_vec();
            ids.sort_by_key(|id| id.index());
            let bodies: Result<Vec<_>, _> = ids
                .iter()
                .map(|id| BodyRecord::capture(&state.sim.world, &mut state.doc.entities, *id))
                .collect();
            let Ok(bodies) = bodies else { return };
            Dragged::Bodies(bodies)
        };
        self.drag = Some(Drag { handle, pivot: layout.pivot, start, what });
    }

    /// Follows the pointer while a handle is held: moves or turns the bodies from where they
    /// were when the drag began (one undo step for the whole drag). `snap` rounds to the grid or
    /// the angle step.
    pub fn update(&mut self, state: &mut EditorState, rect: Rect, pointer: Pos2, snap: bool) {
        let Some(drag) = &self.drag else { return };
        let Some(layout) = Gizmo::layout(state, rect) else { return };
        let layout = Layout { pivot: drag.pivot, ..layout };
        let Some(now) = parameter(&state.view.camera, rect, &layout, drag.handle, pointer) else { return };
        let (offset, turn) = match drag.handle {
            Handle::Move(i) => {
                let mut d = now - drag.start;
                if snap && self.grid > 0.0 {
                    d = (d / self.grid).round() * self.grid;
                }
                (axis(i) * d, Quat::IDENTITY)
            }
            Handle::Turn(i) => {
                let mut a = wrap_angle(now - drag.start);
                let step = self.angle_step.to_radians();
                if snap && step > 0.0 {
                    a = (a / step).round() * step;
                }
                (Vec3::ZERO, Quat::from_axis_angle(axis(i), a))
            }
        };
        let place = |p: Vec3| drag.pivot + turn * (p - drag.pivot) + offset;
        let verb = match drag.handle {
            Handle::Move(_) => "move",
            Handle::Turn(_) => "turn",
        };
        let (label, edit) = match &drag.what {
            Dragged::Bodies(bodies) => {
                let pairs = bodies
                    .iter()
                    .map(|before| {
                        let mut after = before.clone();
                        let b = &mut after.body;
                        b.position = place(b.position);
                        b.rotation = (turn * b.rotation).normalize();
                        // Held by the gizmo, a body is at rest: letting go drops it from still.
                        b.linear_velocity = Vec3::ZERO;
                        b.angular_velocity = Vec3::ZERO;
                        (before.clone(), after)
                    })
                    .collect();
                (format!("{verb} {}", bodies_text(bodies.len())), Edit::Change(pairs))
            }
            Dragged::Joint(before) => {
                // The world for a side without a body.
                let pose = |id: Option<atoll_physics::BodyId>| {
                    id.and_then(|id| state.sim.world.transform(id).ok()).unwrap_or_default()
                };
                let (pose_a, pose_b) = (pose(before.desc.body_a), pose(Some(before.desc.body_b)));
                let mut after = (**before).clone();
                // Each side's frame, taken to the world, moved or turned there, and brought back.
                for (frame, pose) in [(&mut after.desc.frame_a, &pose_a), (&mut after.desc.frame_b, &pose_b)]
                {
                    frame.anchor = pose.inverse_transform_point(place(pose.transform_point(frame.anchor)));
                    let world = turn * pose.rotation * frame.rotation;
                    frame.rotation = (pose.rotation.conjugate() * world).normalize();
                }
                (format!("{verb} joint"), Edit::ChangeJoints(vec![((**before).clone(), after)]))
            }
        };
        if let Err(e) = state.commit(&label, edit, Some(GIZMO_GESTURE)) {
            state.diag.notices.report(NoticePlace::ErrorWindow, e);
            self.drag = None;
        }
    }

    /// Ends the drag (the button was released).
    pub fn end(&mut self, state: &mut EditorState) {
        if self.drag.take().is_some() {
            state.doc.undo.seal();
        }
    }

    /// Draws the gizmo over the view; the hovered or dragged handle is drawn brighter.
    pub fn paint(&self, state: &EditorState, painter: &egui::Painter, rect: Rect) {
        let Some(layout) = Gizmo::layout(state, rect) else { return };
        let active = self.drag.as_ref().map(|d| d.handle).or(self.hovered);
        for (i, axis_colour) in AXIS_COLOURS.into_iter().enumerate() {
            let lit = |h: Handle| active == Some(h);
            let colour = |h: Handle| if lit(h) { Color32::from_rgb(255, 230, 90) } else { axis_colour };
            let ring = Handle::Turn(i);
            let width = if lit(ring) { 3.0 } else { 1.5 };
            painter.add(egui::Shape::line(layout.rings[i].clone(), Stroke::new(width, colour(ring))));
            if let Some(tip) = layout.tips[i] {
                let arrow = Handle::Move(i);
                let width = if lit(arrow) { 4.0 } else { 2.5 };
                painter.line_segment([layout.centre, tip], Stroke::new(width, colour(arrow)));
                painter.circle_filled(tip, 5.0, colour(arrow));
            }
        }
        painter.circle_filled(layout.centre, 3.5, Color32::WHITE);
    }
}

/// The drag parameter under `pointer`: for a move, where along the axis the view ray passes
/// closest; for a turn, the angle of the ray's hit on the ring's plane.
fn parameter(
    camera: &OrbitCamera,
    rect: Rect,
    layout: &Layout,
    handle: Handle,
    pointer: Pos2,
) -> Option<f32> {
    let pixel = glam::Vec2::new(pointer.x - rect.min.x, pointer.y - rect.min.y);
    let (origin, dir) = camera.ray_through(pixel, glam::Vec2::new(rect.width(), rect.height()));
    match handle {
        Handle::Move(i) => {
            let a = axis(i);
            // Closest points of the axis line p + s a and the ray o + t d.
            let w = layout.pivot - origin;
            let (b, d, e) = (a.dot(dir), a.dot(w), dir.dot(w));
            let denominator = dir.length_squared() - b * b;
            // An axis seen end-on gives no usable parameter.
            (denominator.abs() > 1e-6).then(|| (b * e - d * dir.length_squared()) / denominator)
        }
        Handle::Turn(i) => {
            let n = axis(i);
            let denominator = n.dot(dir);
            if denominator.abs() < 1e-6 {
                return None;
            }
            let t = n.dot(layout.pivot - origin) / denominator;
            let r = origin + dir * t - layout.pivot;
            let (u, v) = n.any_orthonormal_pair();
            Some(r.dot(v).atan2(r.dot(u)))
        }
    }
}

fn wrap_angle(a: f32) -> f32 {
    use std::f32::consts::{PI, TAU};
    (a + PI).rem_euclid(TAU) - PI
}

fn segment_distance(p: Pos2, a: Pos2, b: Pos2) -> f32 {
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_sq().max(1e-6)).clamp(0.0, 1.0);
    (a + ab * t - p).length()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dragging_the_x_arrow_moves_the_selection_along_x_with_snapping() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(2), None).unwrap();
        let id = state.sim.world.body_ids().last().unwrap();
        state.doc.selection.set(Some(id));
        let start = state.sim.world.transform(id).unwrap().position;
        state.view.camera.target = start;
        let rect = Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
        let layout = Gizmo::layout(&state, rect).unwrap();
        let grab = layout.centre + (layout.tips[0].unwrap() - layout.centre) * 0.8;
        assert_eq!(Gizmo::hit(&state, rect, grab), Some(Handle::Move(0)));
        let mut gizmo = Gizmo::default();
        gizmo.begin(&mut state, rect, Handle::Move(0), grab);
        let further = grab + (layout.tips[0].unwrap() - layout.centre) * 0.5;
        gizmo.update(&mut state, rect, further, false);
        gizmo.update(&mut state, rect, further + egui::vec2(0.0, 0.5), true);
        gizmo.end(&mut state);
        let moved = state.sim.world.transform(id).unwrap().position;
        assert!((moved.y - start.y).abs() < 1e-5 && (moved.z - start.z).abs() < 1e-5);
        let dx = moved.x - start.x;
        assert!(dx > 0.05, "moved by {dx}");
        assert!(((dx / 0.25).round() * 0.25 - dx).abs() < 1e-4, "snapped to the grid: {dx}");
        assert_eq!(state.doc.undo.undo_len(), 1, "one drag, one undo step");
        state.undo();
        assert_eq!(state.sim.world.transform(id).unwrap().position, start);
    }

    #[test]
    fn turning_a_selected_joint_with_a_ring_turns_its_axis_about_the_anchor() {
        let mut state = EditorState::from_scene(&atoll_physics::scene::builtin::motor_door(), None).unwrap();
        let joint = state.sim.world.joint_ids().next().unwrap();
        state.doc.selection.set_joint(Some(joint));
        let before = state.sim.world.joint(joint).unwrap();
        state.view.camera.target = before.anchor_a;
        state.view.camera.yaw = 0.9;
        state.view.camera.pitch = 0.3;
        let rect = Rect::from_min_size(Pos2::ZERO, egui::vec2(800.0, 600.0));
        let layout = Gizmo::layout(&state, rect).unwrap();
        assert!((layout.pivot - before.anchor_a).length() < 1e-5, "the gizmo sits on the anchor");
        // A quarter of the x ring (12 of its 48 segments).
        let ring = &layout.rings[0];
        let (from, to) = (ring[4], ring[16]);
        let mut gizmo = Gizmo::default();
        gizmo.begin(&mut state, rect, Handle::Turn(0), from);
        gizmo.update(&mut state, rect, to, true);
        gizmo.end(&mut state);
        let after = state.sim.world.joint(joint).expect("turned in place: the same joint");
        assert!((after.anchor_a - before.anchor_a).length() < 1e-4, "the anchor stays");
        assert!((after.anchor_b - after.anchor_a).length() < 1e-4, "both sides turned together");
        let angle = after.axis.angle_between(before.axis).to_degrees();
        assert!((angle - 90.0).abs() < 0.5, "a quarter turn, snapped: {angle}°");
        assert!(after.axis.x.abs() < 1e-4, "turned about x");
        assert_eq!(state.doc.undo.undo_label(), Some("turn joint"));
        state.undo();
        assert!(state.sim.world.joint(joint).unwrap().axis.distance(before.axis) < 1e-5);
    }
}
