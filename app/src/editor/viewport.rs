//! The 3D viewport inside egui: renders the world offscreen with [`Renderer`], shows the texture
//! as an image, and turns mouse input into camera moves and picks.

use super::gizmo::Gizmo;
use super::grab::Grab;
use super::notices::NoticePlace;
use super::state::EditorState;
use crate::render::Renderer;
use egui::{Color32, Key, PointerButton, Pos2, Rect, Sense, Stroke, Vec2};

/// The offscreen renderer and the egui texture id it is registered under.
pub struct Viewport {
    render_state: egui_wgpu::RenderState,
    renderer: Renderer,
    texture: Option<egui::TextureId>,
    rect: Rect,
    /// Where a shift-drag began (a box selection, or a row of spawned bodies).
    shift_drag_from: Option<Pos2>,
    /// The move and turn gizmo on the selection. Kept with the viewport that draws it and feeds
    /// it the pointer, not in the editor state, which its drags change through edits.
    gizmo: Gizmo,
}

impl Viewport {
    /// A viewport drawing with the device of `render_state` (eframe's, or a test's).
    pub fn new(render_state: egui_wgpu::RenderState) -> Viewport {
        let renderer = Renderer::new(&render_state.device, &render_state.queue, [1, 1]);
        Viewport {
            render_state,
            renderer,
            texture: None,
            rect: Rect::NOTHING,
            shift_drag_from: None,
            gizmo: Gizmo::default(),
        }
    }

    /// Where the CPU time of the last viewport render went.
    pub fn render_cpu_times(&self) -> crate::render::RenderCpuTimes {
        self.renderer.cpu_times()
    }

    /// The screen rectangle of the last frame's 3D view (for tests that click into it).
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// Fills the remaining space of `ui` with the 3D view.
    pub fn show(&mut self, ui: &mut egui::Ui, state: &mut EditorState) -> egui::Response {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        self.rect = rect;
        let aspect = rect.width() / rect.height().max(1.0);
        if state.needs_framing && rect.width() > 1.0 {
            state.camera.frame_world(&state.world, aspect);
            state.needs_framing = false;
        }
        if let Some(bounds) = state.frame_target.take() {
            state.camera.frame_aabb(&bounds, aspect);
        }
        handle_input(ui, &response, rect, state, &mut self.gizmo, &mut self.shift_drag_from);
        for (before, after, chunks) in state.terrain_tool.pending.drain(..) {
            self.renderer.terrain_mut().note_edit(before, after, &chunks);
        }

        let pixels = (rect.size() * ui.pixels_per_point()).round();
        let resized = self.renderer.resize([pixels.x as u32, pixels.y as u32]);
        state.refresh_highlight();
        self.renderer.set_view(&state.view);
        self.renderer.render(&state.world, &state.camera);
        state.terrain_rebuild = self.renderer.terrain_rebuild();
        self.register_texture(resized);
        if let Some(texture) = self.texture {
            let uv = Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter_at(rect).image(texture, rect, uv, egui::Color32::WHITE);
        }
        let painter = ui.painter_at(rect);
        self.gizmo.paint(state, &painter, rect);
        paint_grab(state, &painter, rect);
        paint_pending_joint(state, &painter, rect, response.hover_pos());
        if let (Some(from), Some(to)) =
            (self.shift_drag_from, response.hover_pos().or(response.interact_pointer_pos()))
        {
            if state.spawn_tool.active {
                painter.line_segment([from, to], Stroke::new(2.0, Color32::from_rgb(255, 200, 80)));
            } else {
                let marquee = Rect::from_two_pos(from, to);
                painter.rect_filled(marquee, 0.0, Color32::from_rgba_unmultiplied(255, 170, 60, 30));
                painter.rect_stroke(
                    marquee,
                    0.0,
                    Stroke::new(1.0, Color32::from_rgb(255, 170, 60)),
                    egui::StrokeKind::Inside,
                );
            }
        }
        response
    }

    /// Registers the colour texture with egui's wgpu renderer once, and points the id at the
    /// new texture whenever the target was reallocated.
    fn register_texture(&mut self, resized: bool) {
        let device = &self.render_state.device;
        let view = self.renderer.egui_view();
        let mut egui_renderer = self.render_state.renderer.write();
        match self.texture {
            None => {
                self.texture =
                    Some(egui_renderer.register_native_texture(device, view, wgpu::FilterMode::Linear))
            }
            Some(id) if resized => egui_renderer.update_egui_texture_from_wgpu_texture(
                device,
                view,
                wgpu::FilterMode::Linear,
                id,
            ),
            Some(_) => {}
        }
    }
}

/// Left drag orbits, right or middle drag pans, the wheel zooms, WASD flies, a click picks
/// (Shift adds to the selection). While playing, a left drag that starts on a dynamic body
/// grabs it (Alt + left drag still orbits). A left drag that starts on a gizmo handle moves or turns the
/// selection; a shift-drag selects the bodies in a box, or with the spawn tool places a row.
/// With the spawn tool a click places a body; with a terrain brush chosen the left button
/// paints (Alt + left drag still orbits).
fn handle_input(
    ui: &egui::Ui,
    response: &egui::Response,
    rect: Rect,
    state: &mut EditorState,
    gizmo: &mut Gizmo,
    shift_drag_from: &mut Option<Pos2>,
) {
    let delta = to_glam(response.drag_delta());
    let (shift, ctrl) = ui.input(|i| (i.modifiers.shift, i.modifiers.command));
    let pointer = response.hover_pos().or_else(|| response.interact_pointer_pos());
    let gizmo_owns = gizmo_input(ui, response, rect, state, gizmo, pointer, ctrl);
    let painting = !gizmo_owns && paint(ui, response, rect, state);
    // A grab under way keeps the button whatever modifiers come and go.
    let grabbing = !gizmo_owns
        && !painting
        && (state.grab.is_some() || !shift)
        && grab_input(ui, response, rect, state, pointer);
    if response.drag_started_by(PointerButton::Primary) && shift && !gizmo_owns && !painting {
        *shift_drag_from = ui.input(|i| i.pointer.press_origin());
    }
    if gizmo_owns || painting || grabbing || shift_drag_from.is_some() {
        // The primary button belongs to the gizmo, the brush, the grab or the shift-drag.
    } else if response.dragged_by(PointerButton::Primary) {
        state.camera.orbit(delta);
    }
    if response.dragged_by(PointerButton::Secondary) || response.dragged_by(PointerButton::Middle) {
        state.camera.pan(delta, rect.height());
    }
    if let Some(from) = *shift_drag_from
        && response.drag_stopped()
    {
        *shift_drag_from = None;
        if let Some(to) = pointer {
            finish_shift_drag(state, rect, from, to);
        }
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            // One wheel notch is about 50 points; make it one zoom step.
            state.camera.zoom(scroll / 50.0);
        }
    }
    fly(ui, state);
    if response.clicked()
        && !painting
        && !gizmo_owns
        && let Some(pos) = response.interact_pointer_pos()
    {
        let (pixel, size) = (to_glam(pos - rect.min), to_glam(rect.size()));
        if state.spawn_tool.active {
            let (origin, dir) = state.camera.ray_through(pixel, size);
            if let Err(e) = state.spawn_on_ray(origin, dir) {
                state.notices.report(NoticePlace::ErrorWindow, e);
            }
        } else if state.joint_tool.active {
            let (origin, dir) = state.camera.ray_through(pixel, size);
            if let Err(e) = state.joint_click(origin, dir) {
                state.notices.report(NoticePlace::ErrorWindow, e);
            }
        } else {
            state.pick(pixel, size, shift);
        }
    }
}

/// The gizmo's share of the input: hover, grab, drag, release. Returns whether it has the
/// primary button this frame (so nothing else reacts to the same press).
fn gizmo_input(
    ui: &egui::Ui,
    response: &egui::Response,
    rect: Rect,
    state: &mut EditorState,
    gizmo: &mut Gizmo,
    pointer: Option<Pos2>,
    snap: bool,
) -> bool {
    if !gizmo.dragging() {
        gizmo.hovered = pointer.and_then(|p| Gizmo::hit(state, rect, p));
        if response.drag_started_by(PointerButton::Primary)
            && let Some(origin) = ui.input(|i| i.pointer.press_origin())
            && let Some(handle) = Gizmo::hit(state, rect, origin)
        {
            gizmo.begin(state, rect, handle, origin);
        }
    }
    let mut owns = gizmo.dragging();
    if gizmo.dragging() {
        if let Some(p) = pointer
            && response.dragged_by(PointerButton::Primary)
        {
            gizmo.update(state, rect, p, snap);
        }
        if response.drag_stopped() || !ui.input(|i| i.pointer.primary_down()) {
            gizmo.end(state);
        }
    } else if response.clicked() && gizmo.hovered.is_some() {
        // A click on a handle without a drag neither picks nor spawns.
        owns = true;
    }
    owns
}

/// Grabbing while playing: a left drag that starts on a dynamic body (no tool active, Alt not
/// held) pulls it towards the pointer until the button is released. Returns whether a grab has
/// the primary button this frame.
fn grab_input(
    ui: &egui::Ui,
    response: &egui::Response,
    rect: Rect,
    state: &mut EditorState,
    pointer: Option<Pos2>,
) -> bool {
    let size = to_glam(rect.size());
    if let Some(grab) = state.grab.as_mut() {
        if !ui.input(|i| i.pointer.primary_down()) || response.drag_stopped() || !state.playing {
            state.grab = None;
        } else if let Some(p) = pointer {
            let (eye, dir) = state.camera.ray_through(to_glam(p - rect.min), size);
            grab.aim(eye, dir);
            ui.ctx().request_repaint();
        }
        return true;
    }
    let tools_idle =
        !state.spawn_tool.active && !state.joint_tool.active && state.terrain_tool.mode.is_none();
    if !(state.playing && tools_idle && response.drag_started_by(PointerButton::Primary))
        || ui.input(|i| i.modifiers.alt)
    {
        return false;
    }
    let Some(origin) = ui.input(|i| i.pointer.press_origin()) else { return false };
    let (eye, dir) = state.camera.ray_through(to_glam(origin - rect.min), size);
    let Ok(ray) = atoll_physics::Ray::new(eye, dir, 1.0e4) else { return false };
    let hit = state.world.cast_ray(&ray, &atoll_physics::QueryFilter::BODIES);
    state.grab = hit.and_then(|hit| Grab::begin(&state.world, hit.body, hit.point, eye));
    state.grab.is_some()
}

/// The grab's spring as a line from the grabbed point to the pointer.
fn paint_grab(state: &EditorState, painter: &egui::Painter, rect: Rect) {
    let Some(grab) = state.grab else { return };
    let size = to_glam(rect.size());
    let on_screen = |p| state.camera.project(p, size).map(|p| rect.min + egui::vec2(p.x, p.y));
    if let (Some(from), Some(to)) = (grab.point(&state.world).and_then(on_screen), on_screen(grab.target)) {
        let colour = Color32::from_rgb(255, 230, 90);
        painter.line_segment([from, to], Stroke::new(2.0, colour));
        painter.circle_filled(from, 3.5, colour);
        painter.circle_stroke(to, 5.0, Stroke::new(1.5, colour));
    }
}

/// The Joint tool's first click: its anchor, and a line from it to the pointer.
fn paint_pending_joint(state: &EditorState, painter: &egui::Painter, rect: Rect, pointer: Option<Pos2>) {
    let Some(pending) = state.joint_tool.pending.filter(|_| state.joint_tool.active) else { return };
    let size = to_glam(rect.size());
    let Some((anchor, _)) = pending.world(&state.world) else { return };
    let Some(anchor) = state.camera.project(anchor, size).map(|p| rect.min + egui::vec2(p.x, p.y)) else {
        return;
    };
    let colour = Color32::from_rgb(70, 220, 255);
    painter.circle_stroke(anchor, 6.0, Stroke::new(2.0, colour));
    painter.circle_filled(anchor, 2.5, colour);
    if let Some(to) = pointer {
        painter.line_segment([anchor, to], Stroke::new(1.5, colour));
    }
}

/// A shift-drag ended: place a row of bodies (spawn tool) or select what lies in the box.
fn finish_shift_drag(state: &mut EditorState, rect: Rect, from: Pos2, to: Pos2) {
    let size = to_glam(rect.size());
    if state.spawn_tool.active {
        let a = state.camera.ray_through(to_glam(from - rect.min), size);
        let b = state.camera.ray_through(to_glam(to - rect.min), size);
        if let Err(e) = state.spawn_row(a, b) {
            state.notices.report(NoticePlace::ErrorWindow, e);
        }
        return;
    }
    let marquee = Rect::from_two_pos(from, to);
    let inside: Vec<_> = state
        .world
        .body_ids()
        .filter(|id| {
            // The ground and walls would come along with every box drawn over them.
            let movable = state.world.body(*id).is_ok_and(|b| b.body_type != atoll_physics::BodyType::Static);
            let Ok(bounds) = state.world.aabb(*id) else { return false };
            if !movable {
                return false;
            }
            state
                .camera
                .project(bounds.center(), size)
                .is_some_and(|p| marquee.contains(rect.min + egui::vec2(p.x, p.y)))
        })
        .collect();
    for id in inside {
        state.selection.add(id);
    }
}

/// The terrain brush: aims at the terrain under the pointer, shows the brush there and, while
/// the primary button is held on the view, strokes. Returns whether the primary button belongs
/// to the brush this frame.
fn paint(ui: &egui::Ui, response: &egui::Response, rect: Rect, state: &mut EditorState) -> bool {
    let alt = ui.input(|i| i.modifiers.alt);
    let Some(pointer) = response.hover_pos().or_else(|| response.interact_pointer_pos()) else {
        state.terrain_tool.hover = None;
        finish_stroke(state);
        state.view.brush = None;
        return false;
    };
    let (origin, dir) = state.camera.ray_through(to_glam(pointer - rect.min), to_glam(rect.size()));
    state.terrain_tool.aim(&state.world, origin, dir);
    let tool = &state.terrain_tool;
    state.view.terrain_chunk = tool.hover.map(|hit| hit.chunk);
    if tool.mode.is_none() || alt {
        state.view.brush = None;
        finish_stroke(state);
        return false;
    }
    state.view.brush = tool.hover.map(|hit| (hit.point, tool.radius));
    let pressed = response.is_pointer_button_down_on() && ui.input(|i| i.pointer.primary_down());
    if pressed {
        match state.terrain_tool.stroke(&mut state.world) {
            Ok(dabs) if dabs > 0 => state.mark_edited(),
            Ok(_) => {}
            Err(e) => state.notices.report(NoticePlace::ErrorWindow, e),
        }
        ui.ctx().request_repaint();
    } else {
        finish_stroke(state);
    }
    true
}

/// Ends the brush stroke in progress, if any, and records it as one undo step.
fn finish_stroke(state: &mut EditorState) {
    if let Some(stroke) = state.terrain_tool.end_stroke() {
        state.record_stroke(stroke);
    }
}

/// WASD flies (W forward, S back, A left, D right, E up, Q down; Shift is faster) while no
/// text field has the keyboard.
fn fly(ui: &egui::Ui, state: &mut EditorState) {
    if ui.ctx().egui_wants_keyboard_input() || ui.input(|i| i.modifiers.command) {
        return;
    }
    let (direction, seconds, fast) = ui.input(|i| {
        let axis = |plus: Key, minus: Key| i.key_down(plus) as i32 as f32 - i.key_down(minus) as i32 as f32;
        let direction = glam::Vec3::new(axis(Key::D, Key::A), axis(Key::E, Key::Q), axis(Key::W, Key::S));
        // A stalled frame must not throw the camera across the world.
        (direction, i.stable_dt.min(0.1), i.modifiers.shift)
    });
    if direction != glam::Vec3::ZERO {
        state.camera.fly(direction, seconds, fast);
        // Keep drawing while a key is held, even when the simulation is paused.
        ui.ctx().request_repaint();
    }
}

fn to_glam(v: Vec2) -> glam::Vec2 {
    glam::Vec2::new(v.x, v.y)
}
