//! What every tool is: the [`Tool`] trait, and the viewport input a tool reads.
//!
//! A leaf of the tools: each tool's file and the registry in `tools/mod.rs` import it, and it
//! imports neither.

use crate::editor::state::EditorState;
use egui::{Pos2, Rect};
use glam::{Vec2, Vec3};

/// One frame of the pointer over the 3D view, as a tool sees it.
pub struct ViewportInput<'a> {
    /// The UI the view is drawn in (for the modifiers and the pointer buttons).
    pub ui: &'a egui::Ui,
    /// The view's response to the pointer this frame.
    pub response: &'a egui::Response,
    /// The view's screen rectangle.
    pub rect: Rect,
    /// The pointer over the view, hovering or dragging, if any.
    pub pointer: Option<Pos2>,
}

impl ViewportInput<'_> {
    /// The view ray (eye, direction) through the screen point `pos`.
    pub fn ray(&self, state: &EditorState, pos: Pos2) -> (Vec3, Vec3) {
        state.view.camera.ray_through(self.pixel(pos), self.size())
    }

    /// `pos` in pixels from the view's top-left corner.
    pub fn pixel(&self, pos: Pos2) -> Vec2 {
        Vec2::new(pos.x - self.rect.min.x, pos.y - self.rect.min.y)
    }

    /// The view's size in points.
    pub fn size(&self) -> Vec2 {
        Vec2::new(self.rect.width(), self.rect.height())
    }

    /// Where the world point `p` is drawn, if it is in front of the camera.
    pub fn on_screen(&self, state: &EditorState, p: Vec3) -> Option<Pos2> {
        state.view.camera.project(p, self.size()).map(|s| self.rect.min + egui::vec2(s.x, s.y))
    }
}

/// A tool of the viewport: the one active tool gets the pointer (clicks and left drags), draws
/// its overlay, and has a palette of settings that shows whether or not it is active.
///
/// Tools are held beside the editor state, not in it (see `tools/mod.rs`), so their methods take
/// the whole state and make their changes through its commands (one undo step each).
pub trait Tool {
    /// The tool's name, as its palette and the help say it.
    fn name(&self) -> &'static str;

    /// The pointer over the view this frame, while the tool is active. Returns whether the tool
    /// has the primary button this frame, so that the camera does not orbit with it.
    fn viewport_input(&mut self, state: &mut EditorState, input: &ViewportInput) -> bool;

    /// Every frame, active or not: what the tool tracks under the pointer (the terrain under the
    /// brush is shown even with the brush off).
    fn track_pointer(&mut self, _state: &mut EditorState, _input: &ViewportInput) {}

    /// Draws the tool's overlay over the 3D view, while it is active.
    fn paint(&self, _state: &EditorState, _painter: &egui::Painter, _input: &ViewportInput) {}

    /// The tool's palette: its switch and settings. `active` says whether it is the active tool;
    /// returns `Some(on)` when the user switched it on or off.
    fn palette(&mut self, ui: &mut egui::Ui, state: &mut EditorState, active: bool) -> Option<bool>;

    /// Drops half-made work (Esc). Returns whether there was any, so that the first Esc cancels
    /// it and the next leaves the tool.
    fn cancel(&mut self) -> bool {
        false
    }

    /// The tool stops being the active one: work under way is finished or dropped.
    fn deactivate(&mut self, _state: &mut EditorState) {
        self.cancel();
    }

    /// Another scene replaced the world: whatever names the old world's bodies or terrain goes,
    /// the settings stay.
    fn scene_replaced(&mut self) {
        self.cancel();
    }
}
