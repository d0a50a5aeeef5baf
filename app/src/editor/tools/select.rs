//! The select tool, the default: a click selects the body under the pointer (Shift adds to the
//! selection or takes out; near a drawn joint anchor, the joint), a shift-drag selects the bodies
//! in a box, and while playing a left drag that starts on a dynamic body grabs it (Alt + drag
//! still orbits).
//!
//! The grab itself is the simulation's (it pulls the body at every step, and the timeline drops
//! it): this tool only starts it; the viewport carries it on and ends it whatever the tool.

use super::tool::{Tool, ViewportInput};
use crate::editor::grab::Grab;
use crate::editor::state::EditorState;
use egui::{Color32, PointerButton, Pos2, Rect, Stroke};

/// The select tool: nothing to set, only the box being drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct SelectTool {
    /// The shift-drag selecting in a box, while one is under way.
    marquee: BoxDrag,
}

impl Tool for SelectTool {
    fn name(&self) -> &'static str {
        "Select"
    }

    fn viewport_input(&mut self, state: &mut EditorState, input: &ViewportInput) -> bool {
        let shift = input.ui.input(|i| i.modifiers.shift);
        let grabbing = !shift && !self.marquee.under_way() && begin_grab(state, input);
        if grabbing {
            return true;
        }
        box_select(&mut self.marquee, state, input) || pick_on_click(state, input)
    }

    fn paint(&self, _state: &EditorState, painter: &egui::Painter, input: &ViewportInput) {
        paint_marquee(&self.marquee, painter, input);
    }

    fn palette(&mut self, ui: &mut egui::Ui, _state: &mut EditorState, active: bool) -> Option<bool> {
        let mut on = active;
        ui.toggle_value(&mut on, self.name())
            .on_hover_text("Click to select, shift-drag to select in a box (Esc)");
        (on != active).then_some(on)
    }

    fn cancel(&mut self) -> bool {
        self.marquee.cancel()
    }
}

/// A shift-drag with the primary button over the view: where it began, while it goes on.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BoxDrag {
    from: Option<Pos2>,
}

impl BoxDrag {
    /// Follows the drag this frame: a shift + primary drag begins it; returns its two corners
    /// (start, end) on the frame it ends.
    pub fn input(&mut self, input: &ViewportInput) -> Option<(Pos2, Pos2)> {
        let response = input.response;
        if response.drag_started_by(PointerButton::Primary) && input.ui.input(|i| i.modifiers.shift) {
            self.from = input.ui.input(|i| i.pointer.press_origin());
        }
        if self.from.is_some() && response.drag_stopped() {
            let from = self.from.take()?;
            return input.pointer.map(|to| (from, to));
        }
        None
    }

    /// Whether a drag is under way (it has the primary button).
    pub fn under_way(&self) -> bool {
        self.from.is_some()
    }

    /// The drag's start and the pointer, while it goes on.
    pub fn span(&self, input: &ViewportInput) -> Option<(Pos2, Pos2)> {
        let to = input.response.hover_pos().or(input.response.interact_pointer_pos());
        self.from.zip(to)
    }

    /// Forgets a drag under way. Returns whether there was one.
    pub fn cancel(&mut self) -> bool {
        self.from.take().is_some()
    }
}

/// Selects the bodies whose centres fall in the box of a finished shift-drag. Returns whether
/// the box has the primary button this frame.
pub fn box_select(marquee: &mut BoxDrag, state: &mut EditorState, input: &ViewportInput) -> bool {
    if let Some((from, to)) = marquee.input(input) {
        select_in_box(state, input, Rect::from_two_pos(from, to));
        return true;
    }
    marquee.under_way()
}

/// Draws the box of a shift-drag under way.
pub fn paint_marquee(marquee: &BoxDrag, painter: &egui::Painter, input: &ViewportInput) {
    let Some((from, to)) = marquee.span(input) else { return };
    let marquee = Rect::from_two_pos(from, to);
    painter.rect_filled(marquee, 0.0, Color32::from_rgba_unmultiplied(255, 170, 60, 30));
    painter.rect_stroke(
        marquee,
        0.0,
        Stroke::new(1.0, Color32::from_rgb(255, 170, 60)),
        egui::StrokeKind::Inside,
    );
}

/// A click picks: the body under the pointer (Shift adds to the selection). Returns false: a
/// click leaves the button free.
pub fn pick_on_click(state: &mut EditorState, input: &ViewportInput) -> bool {
    if input.response.clicked()
        && let Some(pos) = input.response.interact_pointer_pos()
    {
        let shift = input.ui.input(|i| i.modifiers.shift);
        state.pick(input.pixel(pos), input.size(), shift);
    }
    false
}

fn select_in_box(state: &mut EditorState, input: &ViewportInput, marquee: Rect) {
    let inside: Vec<_> = state
        .sim
        .world
        .body_ids()
        .filter(|id| {
            // The ground and walls would come along with every box drawn over them.
            let movable =
                state.sim.world.body(*id).is_ok_and(|b| b.body_type != atoll_physics::BodyType::Static);
            let Ok(bounds) = state.sim.world.aabb(*id) else { return false };
            if !movable {
                return false;
            }
            input.on_screen(state, bounds.center()).is_some_and(|p| marquee.contains(p))
        })
        .collect();
    for id in inside {
        state.doc.selection.add(id);
    }
}

/// While playing, a left drag that starts on a dynamic body (Alt not held) grabs it. Returns
/// whether a grab began.
fn begin_grab(state: &mut EditorState, input: &ViewportInput) -> bool {
    let ui = input.ui;
    if !(state.sim.playing && input.response.drag_started_by(PointerButton::Primary))
        || ui.input(|i| i.modifiers.alt)
    {
        return false;
    }
    let Some(origin) = ui.input(|i| i.pointer.press_origin()) else { return false };
    let (eye, dir) = input.ray(state, origin);
    let Ok(ray) = atoll_physics::Ray::new(eye, dir, 1.0e4) else { return false };
    let hit = state.sim.world.cast_ray(&ray, &atoll_physics::QueryFilter::BODIES);
    state.sim.grab = hit.and_then(|hit| Grab::begin(&state.sim.world, hit.body, hit.point, eye));
    state.sim.grab.is_some()
}
