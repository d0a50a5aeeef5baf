//! The timeline bar under the viewport: the kept steps as a bar with the current step, marks
//! where a body was stopped for a non-finite state, edits were made, bodies were slowed to a
//! speed cap, joints broke, islands woke or fell asleep and many pairs began touching (one
//! mark per step, the most telling, [`Mark`]; hovering the bar names the step under the
//! pointer, what happened in it and what the colours mean), buttons to step back and forward
//! (Shift: ten), and dragging or clicking on the bar to go to a step (a slice of replay per
//! frame, so a drag stays smooth in a large world). Going to a step puts the world there, so
//! every panel shows that step.

use crate::editor::state::EditorState;
use atoll_physics::StepRecord;
use egui::{Color32, Rect, Sense, Stroke, StrokeKind, pos2, vec2};

/// Height of the bar, in points.
pub const BAR_HEIGHT: f32 = 22.0;

/// Pairs beginning to touch in one step that make a mark ("contacts beginning in bulk").
pub const TOUCH_BURST: u32 = 20;

// Colours of the marks and the cursor.

/// A body stopped for a non-finite state.
pub const STOP_COLOUR: Color32 = Color32::from_rgb(255, 0, 220);
/// An edit.
pub const EDIT_COLOUR: Color32 = Color32::from_rgb(240, 200, 60);
/// Bodies slowed to a speed cap.
pub const CAPPED_COLOUR: Color32 = Color32::from_rgb(180, 120, 255);
/// Islands falling asleep.
pub const SLEEP_COLOUR: Color32 = Color32::from_rgb(90, 140, 255);
/// Islands waking.
pub const WAKE_COLOUR: Color32 = Color32::from_rgb(255, 140, 60);
/// Joints breaking.
pub const BREAK_COLOUR: Color32 = Color32::from_rgb(235, 60, 60);
/// Contacts beginning in bulk.
pub const TOUCH_COLOUR: Color32 = Color32::from_rgb(120, 220, 120);
/// Bodies entering or leaving sensors.
pub const SENSOR_COLOUR: Color32 = Color32::from_rgb(40, 210, 230);
/// The current step.
pub const CURSOR_COLOUR: Color32 = Color32::WHITE;
/// The bar's background.
pub const BAR_COLOUR: Color32 = Color32::from_rgb(40, 44, 52);

/// What a step's mark stands for, least telling first: where several happened in a step (or
/// in the steps one pixel column covers), the greatest is drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Mark {
    /// [`TOUCH_BURST`] or more pairs began touching.
    Touches,
    /// A body entered or left a sensor: what a scene's sensors are there to report.
    Sensor,
    /// Islands fell asleep.
    Sleep,
    /// Islands woke.
    Wake,
    /// Joints broke.
    Break,
    /// Bodies were slowed to a speed cap: the solve asked more of them than the settings allow,
    /// a warning worth more than the events of an ordinary step.
    Capped,
    /// An edit: it explains whatever follows.
    Edit,
    /// A body's state turned non-finite and it was stopped: the step went wrong, the one thing
    /// a user scrubbing for trouble must not miss, so it beats even an edit.
    Stop,
}

impl Mark {
    /// Every mark, least telling first.
    pub const ALL: [Mark; 8] = [
        Mark::Touches,
        Mark::Sensor,
        Mark::Sleep,
        Mark::Wake,
        Mark::Break,
        Mark::Capped,
        Mark::Edit,
        Mark::Stop,
    ];

    /// The mark's colour.
    pub fn colour(self) -> Color32 {
        match self {
            Mark::Touches => TOUCH_COLOUR,
            Mark::Sensor => SENSOR_COLOUR,
            Mark::Sleep => SLEEP_COLOUR,
            Mark::Wake => WAKE_COLOUR,
            Mark::Break => BREAK_COLOUR,
            Mark::Capped => CAPPED_COLOUR,
            Mark::Edit => EDIT_COLOUR,
            Mark::Stop => STOP_COLOUR,
        }
    }

    /// What the mark means, for the legend.
    pub fn meaning(self) -> String {
        match self {
            Mark::Touches => format!("{TOUCH_BURST} or more pairs began touching"),
            Mark::Sensor => "a body entered or left a sensor".into(),
            Mark::Sleep => "islands fell asleep".into(),
            Mark::Wake => "islands woke".into(),
            Mark::Break => "joints broke".into(),
            Mark::Capped => "bodies slowed to a speed cap".into(),
            Mark::Edit => "an edit".into(),
            Mark::Stop => "a body stopped: its state turned non-finite".into(),
        }
    }

    /// The colour's name, for the legend.
    fn colour_name(self) -> &'static str {
        match self {
            Mark::Touches => "green",
            Mark::Sensor => "cyan",
            Mark::Sleep => "blue",
            Mark::Wake => "orange",
            Mark::Break => "red",
            Mark::Capped => "violet",
            Mark::Edit => "yellow",
            Mark::Stop => "magenta",
        }
    }
}

/// A step's mark, if it has one (the most telling event wins).
pub fn mark_of(record: &StepRecord) -> Option<Mark> {
    let e = record.events;
    if e.bodies_stopped > 0 {
        Some(Mark::Stop)
    } else if edited(record) {
        Some(Mark::Edit)
    } else if e.bodies_capped > 0 {
        Some(Mark::Capped)
    } else if e.joints_broken > 0 {
        Some(Mark::Break)
    } else if e.woke > 0 {
        Some(Mark::Wake)
    } else if e.fell_asleep > 0 {
        Some(Mark::Sleep)
    } else if e.sensor_events > 0 {
        Some(Mark::Sensor)
    } else if e.touches_began >= TOUCH_BURST {
        Some(Mark::Touches)
    } else {
        None
    }
}

/// Whether an edit was made at the step: one either starts a segment or is an input the step
/// was made with (a push, a grab). The first step's segment start is no edit.
fn edited(record: &StepRecord) -> bool {
    (record.after_edit && record.step != 0) || record.inputs > 0
}

/// The colour of a step's mark, if it has one.
pub fn mark_colour(record: &StepRecord) -> Option<Color32> {
    mark_of(record).map(Mark::colour)
}

/// What happened in a step, in words ("step 412: 2 bodies slowed to a speed cap"), for the
/// bar's hover text.
pub fn describe(record: &StepRecord) -> String {
    let e = record.events;
    let counted = |n: u32, one: &str, many: &str| match n {
        0 => None,
        1 => Some(format!("1 {one}")),
        n => Some(format!("{n} {many}")),
    };
    let mut what: Vec<String> = [
        counted(e.bodies_stopped, "body stopped (non-finite)", "bodies stopped (non-finite)"),
        edited(record).then(|| "edited".to_string()),
        counted(e.bodies_capped, "body slowed to a speed cap", "bodies slowed to a speed cap"),
        counted(e.joints_broken, "joint broke", "joints broke"),
        counted(e.woke, "island woke", "islands woke"),
        counted(e.fell_asleep, "island fell asleep", "islands fell asleep"),
        counted(e.sensor_events, "sensor event", "sensor events"),
        counted(e.touches_began, "pair began touching", "pairs began touching"),
    ]
    .into_iter()
    .flatten()
    .collect();
    if what.is_empty() {
        what.push("nothing to mark".into());
    }
    format!("step {}: {}", record.step, what.join(", "))
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
    let range = state.sim.timeline.range();
    let step = state.sim.world.step_count();
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
        match state.sim.timeline.scrub_target {
            Some(target) => ui.label(format!("step {step} → {target}")).on_hover_text(
                "Replaying towards the step under the pointer, a slice of each frame; every panel shows the step reached",
            ),
            None => ui.label(format!("step {step}")).on_hover_text("The step the world is at; every panel shows this step"),
        };
        let width = (ui.available_width() - 150.0).max(60.0);
        let (rect, response) = ui.allocate_exact_size(vec2(width, BAR_HEIGHT), Sense::click_and_drag());
        response.widget_info(|| egui::WidgetInfo::labeled(egui::Role::Slider, true, "timeline"));
        let response = response.on_hover_ui(|ui| hover(ui, state, rect, range));
        paint_bar(ui, state, rect, range, step);
        if (response.dragged() || response.clicked())
            && let Some(pointer) = response.interact_pointer_pos()
        {
            let target = step_at(rect, range, pointer.x);
            if target != state.sim.world.step_count() || state.sim.timeline.scrub_target.is_some() {
                state.scrub_to(target);
            }
        }
        if state.sim.timeline.scrub_target.is_some() {
            // The next slice of the scrub comes with the next frame.
            ui.ctx().request_repaint();
        }
        let history = &state.sim.timeline.history;
        ui.label(format!("kept {}..={}", range.0, range.1)).on_hover_text(format!(
            "A keyframe every {} steps, {:.1} MiB",
            history.keyframe_interval(),
            history.bytes() as f64 / (1 << 20) as f64
        ));
    });
}

/// The bar's hover text: the step under the pointer and what happened in it, and the legend.
fn hover(ui: &mut egui::Ui, state: &EditorState, rect: Rect, range: (u64, u64)) {
    let history = &state.sim.timeline.history;
    if let Some(pointer) = ui.ctx().pointer_hover_pos()
        && let Some(record) = history.record_of(step_at(rect, range, pointer.x))
    {
        ui.label(describe(record));
    }
    ui.label("Click or drag to go to a step. Marks, most telling first:");
    for mark in Mark::ALL.into_iter().rev() {
        ui.horizontal(|ui| {
            let (swatch, _) = ui.allocate_exact_size(vec2(10.0, 10.0), Sense::hover());
            ui.painter().rect_filled(swatch, 1.0, mark.colour());
            ui.label(format!("{}: {}", mark.colour_name(), mark.meaning()));
        });
    }
}

fn paint_bar(ui: &egui::Ui, state: &EditorState, rect: Rect, range: (u64, u64), step: u64) {
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 3.0, BAR_COLOUR);
    // One mark per pixel column at most: the most telling among the steps it covers.
    let draw = |x: f32, mark: Mark| {
        painter.line_segment(
            [pos2(x, rect.top() + 3.0), pos2(x, rect.bottom() - 3.0)],
            Stroke::new(2.0, mark.colour()),
        );
    };
    let mut column: Option<(f32, Mark)> = None;
    for record in state.sim.timeline.history.steps() {
        let Some(mark) = mark_of(record) else { continue };
        let x = step_x(rect, range, record.step).round();
        column = match column {
            Some((at, best)) if at == x => Some((x, best.max(mark))),
            Some((at, best)) => {
                draw(at, best);
                Some((x, mark))
            }
            None => Some((x, mark)),
        };
    }
    if let Some((x, mark)) = column {
        draw(x, mark);
    }
    let x = step_x(rect, range, step);
    painter.rect_filled(
        Rect::from_center_size(pos2(x, rect.center().y), vec2(4.0, rect.height())),
        1.0,
        CURSOR_COLOUR,
    );
    painter.rect_stroke(rect, 3.0, Stroke::new(1.0, Color32::from_gray(90)), StrokeKind::Inside);
}
