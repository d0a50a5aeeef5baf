//! The timeline bar under the viewport: the kept steps as a bar with the current step, marks
//! where islands fell asleep or woke, joints broke, many pairs began touching and edits were
//! made, buttons to step back and forward (Shift: ten), and dragging or clicking on the bar to
//! go to a step (a slice of replay per frame, so a drag stays smooth in a large world). Going
//! to a step puts the world there, so every panel shows that step.

use crate::editor::state::EditorState;
use atoll_physics::StepRecord;
use egui::{Color32, Rect, Sense, Stroke, StrokeKind, pos2, vec2};

/// Height of the bar, in points.
pub const BAR_HEIGHT: f32 = 22.0;

/// Pairs beginning to touch in one step that make a mark ("contacts beginning in bulk").
pub const TOUCH_BURST: u32 = 20;

/// Colours of the marks and the cursor.
pub const EDIT_COLOUR: Color32 = Color32::from_rgb(240, 200, 60);
/// Islands falling asleep.
pub const SLEEP_COLOUR: Color32 = Color32::from_rgb(90, 140, 255);
/// Islands waking.
pub const WAKE_COLOUR: Color32 = Color32::from_rgb(255, 140, 60);
/// Joints breaking.
pub const BREAK_COLOUR: Color32 = Color32::from_rgb(235, 60, 60);
/// Contacts beginning in bulk.
pub const TOUCH_COLOUR: Color32 = Color32::from_rgb(120, 220, 120);
/// The current step.
pub const CURSOR_COLOUR: Color32 = Color32::WHITE;
/// The bar's background.
pub const BAR_COLOUR: Color32 = Color32::from_rgb(40, 44, 52);

/// The colour of a step's mark, if it has one (the most telling event wins).
pub fn mark_colour(record: &StepRecord) -> Option<Color32> {
    let e = record.events;
    // An edit either starts a segment or is an input the step was made with (a push, a grab).
    if (record.after_edit && record.step != 0) || record.inputs > 0 {
        Some(EDIT_COLOUR)
    } else if e.joints_broken > 0 {
        Some(BREAK_COLOUR)
    } else if e.woke > 0 {
        Some(WAKE_COLOUR)
    } else if e.fell_asleep > 0 {
        Some(SLEEP_COLOUR)
    } else if e.touches_began >= TOUCH_BURST {
        Some(TOUCH_COLOUR)
    } else {
        None
    }
}

/// The x of step `step` on a bar over `rect` for kept steps `first..=last`.
pub fn step_x(rect: Rect, (first, last): (u64, u64), step: u64) -> f32 {
    let span = (last - first).max(1) as f32;
    rect.left() + (step.saturating_sub(first)) as f32 / span * rect.width()
}

/// The step under `x` on that bar.
pub fn step_at(rect: Rect, (first, last): (u64, u64), x: f32) -> u64 {
    let t = ((x - rect.left()) / rect.width().max(1.0)).clamp(0.0, 1.0);
    first + (t * (last - first) as f32).round() as u64
}

/// Draws the timeline and applies what the user did with it.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState) {
    let range = state.timeline.range();
    let step = state.world.step_count();
    ui.horizontal(|ui| {
        let button =
            |ui: &mut egui::Ui, label: &str, hover: &str| ui.button(label).on_hover_text(hover).clicked();
        if button(ui, "-10", "Ten steps back (Shift+, or Shift+Left)") {
            state.step_back(10);
        }
        if button(ui, "-1", "One step back (, or Left)") {
            state.step_back(1);
        }
        if button(ui, "+1", "One step forward (. or Right)") {
            state.step_once();
        }
        if button(ui, "+10", "Ten steps forward (Shift+. or Shift+Right)") {
            state.step_many(10);
        }
        match state.timeline.scrub_target {
            Some(target) => ui.label(format!("step {step} → {target}")).on_hover_text(
                "Replaying towards the step under the pointer, a slice of each frame; every panel shows the step reached",
            ),
            None => ui.label(format!("step {step}")).on_hover_text("The step the world is at; every panel shows this step"),
        };
        let width = (ui.available_width() - 150.0).max(60.0);
        let (rect, response) = ui.allocate_exact_size(vec2(width, BAR_HEIGHT), Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, "timeline"));
        paint_bar(ui, state, rect, range, step);
        if (response.dragged() || response.clicked())
            && let Some(pointer) = response.interact_pointer_pos()
        {
            let target = step_at(rect, range, pointer.x);
            if target != state.world.step_count() || state.timeline.scrub_target.is_some() {
                state.scrub_to(target);
            }
        }
        if state.timeline.scrub_target.is_some() {
            // The next slice of the scrub comes with the next frame.
            ui.ctx().request_repaint();
        }
        let history = &state.timeline.history;
        ui.label(format!("kept {}..={}", range.0, range.1)).on_hover_text(format!(
            "A keyframe every {} steps, {:.1} MiB",
            history.keyframe_interval(),
            history.bytes() as f64 / (1 << 20) as f64
        ));
    });
}

fn paint_bar(ui: &egui::Ui, state: &EditorState, rect: Rect, range: (u64, u64), step: u64) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, BAR_COLOUR);
    // One mark per pixel column at most: the most telling event among the steps it covers.
    let mut last_x = f32::NEG_INFINITY;
    for record in state.timeline.history.steps() {
        let Some(colour) = mark_colour(record) else { continue };
        let x = step_x(rect, range, record.step).round();
        if x == last_x && colour != EDIT_COLOUR {
            continue;
        }
        last_x = x;
        painter.line_segment(
            [pos2(x, rect.top() + 3.0), pos2(x, rect.bottom() - 3.0)],
            Stroke::new(2.0, colour),
        );
    }
    let x = step_x(rect, range, step);
    painter.rect_filled(
        Rect::from_center_size(pos2(x, rect.center().y), vec2(4.0, rect.height())),
        1.0,
        CURSOR_COLOUR,
    );
    painter.rect_stroke(rect, 3.0, Stroke::new(1.0, Color32::from_gray(90)), StrokeKind::Inside);
}
