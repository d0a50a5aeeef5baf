//! The 3D viewport inside egui: renders the world offscreen with [`Renderer`], shows the texture
//! as an image, and turns mouse input into camera moves and picks.

use super::gizmo::Gizmo;
use super::state::EditorState;
use super::tools::{ToolKind, Tools, ViewportInput};
use crate::render::Renderer;
use egui::{Color32, Key, PointerButton, Pos2, Rect, Sense, Stroke, Vec2};

/// The offscreen renderer and the egui texture id it is registered under.
pub struct Viewport {
    render_state: egui_wgpu::RenderState,
    renderer: Renderer,
    texture: Option<egui::TextureId>,
    rect: Rect,
    /// The move and turn gizmo on the selection. Kept with the viewport that draws it and feeds
    /// it the pointer, not in the editor state, which its drags change through edits.
    gizmo: Gizmo,
}

impl Viewport {
    /// A viewport drawing with the device of `render_state` (eframe's, or a test's).
    pub fn new(render_state: egui_wgpu::RenderState) -> Viewport {
        let renderer = Renderer::new(&render_state.device, &render_state.queue, [1, 1]);
        Viewport { render_state, renderer, texture: None, rect: Rect::NOTHING, gizmo: Gizmo::default() }
    }

    /// Where the CPU time of the last viewport render went.
    pub fn render_cpu_times(&self) -> crate::render::RenderCpuTimes {
        self.renderer.cpu_times()
    }

    /// The screen rectangle of the last frame's 3D view (for tests that click into it).
    pub fn rect(&self) -> Rect {
        self.rect
    }

    /// Fills the remaining space of `ui` with the 3D view; the active tool of `tools` has the
    /// pointer.
    pub fn show(&mut self, ui: &mut egui::Ui, state: &mut EditorState, tools: &mut Tools) -> egui::Response {
        let rect = ui.available_rect_before_wrap();
        let response = ui.allocate_rect(rect, Sense::click_and_drag());
        self.rect = rect;
        let aspect = rect.width() / rect.height().max(1.0);
        if state.view.needs_framing && rect.width() > 1.0 {
            state.view.camera.frame_world(&state.sim.world, aspect);
            state.view.needs_framing = false;
        }
        if let Some(bounds) = state.view.frame_target.take() {
            state.view.camera.frame_aabb(&bounds, aspect);
        }
        tools.follow_scene(state);
        handle_input(ui, &response, rect, state, tools, &mut self.gizmo);
        for (before, after, chunks) in state.view.terrain_edits.drain(..) {
            self.renderer.terrain_mut().note_edit(before, after, &chunks);
        }

        let pixels = (rect.size() * ui.pixels_per_point()).round();
        let resized = self.renderer.resize([pixels.x as u32, pixels.y as u32]);
        state.refresh_highlight();
        self.renderer.set_view(&state.view.options);
        // The compared branch as ghosts, where it is at the step shown.
        let ghosts = (state.sim.branching.ghosts)
            .then(|| state.sim.branching.branches.compared_world())
            .flatten()
            .filter(|other| other.step_count() == state.sim.world.step_count());
        self.renderer.render_with_ghosts(&state.sim.world, ghosts, &state.view.camera);
        state.diag.terrain_rebuild = self.renderer.terrain_rebuild();
        self.register_texture(resized);
        if let Some(texture) = self.texture {
            let uv = Rect::from_min_max(egui::pos2(0.0, 0.0), egui::pos2(1.0, 1.0));
            ui.painter_at(rect).image(texture, rect, uv, egui::Color32::WHITE);
        }
        let painter = ui.painter_at(rect);
        self.gizmo.paint(state, &painter, rect);
        paint_grab(state, &painter, rect);
        let pointer = response.hover_pos().or_else(|| response.interact_pointer_pos());
        let input = ViewportInput { ui, response: &response, rect, pointer };
        tools.get(tools.active()).paint(state, &painter, &input);
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

/// Left drag orbits, right or middle drag pans, the wheel zooms, WASD flies. A left drag that
/// starts on a gizmo handle moves or turns the selection, whatever the tool; a grab under way
/// (begun by the select tool while playing) keeps the button until it is released; otherwise the
/// active tool has the pointer (see `tools/`), and the primary button orbits when it does not
/// take it.
fn handle_input(
    ui: &egui::Ui,
    response: &egui::Response,
    rect: Rect,
    state: &mut EditorState,
    tools: &mut Tools,
    gizmo: &mut Gizmo,
) {
    let delta = to_glam(response.drag_delta());
    let ctrl = ui.input(|i| i.modifiers.command);
    let pointer = response.hover_pos().or_else(|| response.interact_pointer_pos());
    let input = ViewportInput { ui, response, rect, pointer };
    let gizmo_owns = gizmo_input(ui, response, rect, state, gizmo, pointer, ctrl);
    for &kind in ToolKind::ALL {
        tools.get_mut(kind).track_pointer(state, &input);
    }
    let grabbing = !gizmo_owns && carry_grab(&input, state);
    let tool_owns = !gizmo_owns && !grabbing && tools.active_mut().viewport_input(state, &input);
    if gizmo_owns || grabbing || tool_owns {
        // The primary button belongs to the gizmo, the grab or the tool.
    } else if response.dragged_by(PointerButton::Primary) {
        state.view.camera.orbit(delta);
    }
    if response.dragged_by(PointerButton::Secondary) || response.dragged_by(PointerButton::Middle) {
        state.view.camera.pan(delta, rect.height());
    }
    if response.hovered() {
        let scroll = ui.input(|i| i.smooth_scroll_delta.y);
        if scroll != 0.0 {
            // One wheel notch is about 50 points; make it one zoom step.
            state.view.camera.zoom(scroll / 50.0);
        }
    }
    fly(ui, state);
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

/// A grab under way follows the pointer until the button is released (or play stops),
/// whatever the tool and the modifiers. Returns whether a grab has the primary button.
fn carry_grab(input: &ViewportInput, state: &mut EditorState) -> bool {
    let Some(grab) = state.sim.grab.as_mut() else { return false };
    let ui = input.ui;
    if !ui.input(|i| i.pointer.primary_down()) || input.response.drag_stopped() || !state.sim.playing {
        state.sim.grab = None;
    } else if let Some(p) = input.pointer {
        let (eye, dir) = state.view.camera.ray_through(input.pixel(p), input.size());
        grab.aim(eye, dir);
        ui.ctx().request_repaint();
    }
    true
}

/// The grab's spring as a line from the grabbed point to the pointer.
fn paint_grab(state: &EditorState, painter: &egui::Painter, rect: Rect) {
    let Some(grab) = state.sim.grab else { return };
    let size = to_glam(rect.size());
    let on_screen = |p| state.view.camera.project(p, size).map(|p| rect.min + egui::vec2(p.x, p.y));
    if let (Some(from), Some(to)) = (grab.point(&state.sim.world).and_then(on_screen), on_screen(grab.target))
    {
        let colour = Color32::from_rgb(255, 230, 90);
        painter.line_segment([from, to], Stroke::new(2.0, colour));
        painter.circle_filled(from, 3.5, colour);
        painter.circle_stroke(to, 5.0, Stroke::new(1.5, colour));
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
        state.view.camera.fly(direction, seconds, fast);
        // Keep drawing while a key is held, even when the simulation is paused.
        ui.ctx().request_repaint();
    }
}

fn to_glam(v: Vec2) -> glam::Vec2 {
    glam::Vec2::new(v.x, v.y)
}
