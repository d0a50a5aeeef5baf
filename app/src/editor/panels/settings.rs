//! Settings: every `StepSettings` field, edited live. The world validates each change; a
//! refused value is reported here and the old settings stay in force. Below them, the threads
//! that step the world and the grab spring, which belong to the editor, not the scene.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::notices::NoticePlace;
use crate::editor::state::{EditorState, MAX_THREADS, machine_threads};
use atoll_physics::StepSettings;
use egui::{DragValue, Grid, RichText};

/// Draws one editor per field and applies the result when anything changed.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState) {
    let mut s: StepSettings = *state.sim.world.settings();
    let mut changed = false;
    Grid::new("settings grid").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        let mut float = |ui: &mut egui::Ui, name: &str, tip: &str, value: &mut f32, speed: f64| {
            // Labelled by its name so screen readers (and the UI tests) find each field.
            let label = ui.label(name).on_hover_text(tip).id;
            let drag = ui.add(DragValue::new(value).speed(speed).max_decimals(5));
            changed |= drag.labelled_by(label).on_hover_text(tip).changed();
            ui.end_row();
        };
        float(ui, "dt", "Time step in seconds (also set by the rate menu).", &mut s.dt, 0.0005);
        float(
            ui,
            "contact hertz",
            "Contact stiffness as a natural frequency, Hz. Clamped to a quarter of the substep rate.",
            &mut s.contact_hertz,
            0.5,
        );
        float(
            ui,
            "contact damping",
            "Contact damping ratio (1 = critical).",
            &mut s.contact_damping_ratio,
            0.1,
        );
        float(
            ui,
            "max push-out speed",
            "Fastest speed (m/s) at which overlapping bodies are pushed apart.",
            &mut s.max_push_out_speed,
            0.05,
        );
        float(
            ui,
            "restitution threshold",
            "Approach speed (m/s) below which restitution is ignored, so resting bodies do not jitter.",
            &mut s.restitution_threshold,
            0.05,
        );
        float(
            ui,
            "speculative distance",
            "Contact points are made while the surfaces are this close (m) before they touch, plus \
             what the pair can close in one step at its speed.",
            &mut s.speculative_distance,
            0.001,
        );
        float(
            ui,
            "AABB margin",
            "Fat AABB margin (m) around each body's tight box; the fat box also stretches over the \
             path the body's velocity and gravity take it on in the next steps.",
            &mut s.aabb_margin,
            0.005,
        );
        float(
            ui,
            "max angular speed",
            "Largest angular speed, rad/s, so a spinning body cannot blow up the integrator; \
             a body the solver drives past it is slowed to it and reported.",
            &mut s.max_angular_speed,
            1.0,
        );
        float(
            ui,
            "max linear speed",
            "Largest linear speed, m/s; a body the solver drives past it is slowed to it and \
             reported.",
            &mut s.max_linear_speed,
            1.0,
        );
        float(
            ui,
            "sleep linear threshold",
            "A body faster than this (m/s) resets its sleep timer.",
            &mut s.sleep_linear_threshold,
            0.005,
        );
        float(
            ui,
            "sleep angular threshold",
            "A body spinning faster than this (rad/s) resets its sleep timer.",
            &mut s.sleep_angular_threshold,
            0.005,
        );
        float(
            ui,
            "time to sleep",
            "Seconds every body of an island must stay slow before the island sleeps.",
            &mut s.time_to_sleep,
            0.05,
        );
        float(
            ui,
            "water density",
            "Density of terrain water, kg/m³: buoyancy is this × submerged volume × −gravity.",
            &mut s.water_density,
            10.0,
        );
        float(
            ui,
            "water linear drag",
            "Damping (1/s) in water per kg of displaced water per kg of body.",
            &mut s.water_linear_drag,
            0.05,
        );
        float(
            ui,
            "water angular drag",
            "Damping (1/s) of the spin of a fully submerged body.",
            &mut s.water_angular_drag,
            0.05,
        );
        float(
            ui,
            "continuous gap",
            "Gap (m) continuous collision leaves: a fast body is put back where it comes this close \
             to the static body or terrain it would have crossed.",
            &mut s.continuous_gap,
            0.0005,
        );

        let tip = "Solver substeps per step (1 to 64). More substeps: stiffer, slower.";
        ui.label("substeps").on_hover_text(tip);
        changed |= ui.add(DragValue::new(&mut s.substeps).speed(0.1)).on_hover_text(tip).changed();
        ui.end_row();

        let tip = "Acceleration applied to every dynamic body, m/s^2.";
        ui.label("gravity").on_hover_text(tip);
        ui.horizontal(|ui| {
            for axis in 0..3 {
                changed |=
                    ui.add(DragValue::new(&mut s.gravity[axis]).speed(0.05)).on_hover_text(tip).changed();
            }
        });
        ui.end_row();

        let mut flag = |ui: &mut egui::Ui, name: &str, tip: &str, value: &mut bool| {
            ui.label(name).on_hover_text(tip);
            changed |= ui.checkbox(value, "").on_hover_text(tip).changed();
            ui.end_row();
        };
        flag(ui, "warm starting", "Start each step's solve from last step's impulses.", &mut s.warm_starting);
        flag(
            ui,
            "continuous collision",
            "Time-of-impact checks for fast bodies against static bodies and the terrain.",
            &mut s.continuous_collision,
        );
        flag(
            ui,
            "sleeping",
            "Let islands fall asleep once all their bodies were slow for the time to sleep.",
            &mut s.sleep_enabled,
        );
    });
    if changed {
        // A refused value becomes the Settings notice, shown below; the world keeps its settings.
        let _ = state.apply_settings(s);
    }
    if let Some(notice) = state.diag.notices.message(NoticePlace::Settings) {
        ui.label(RichText::new(notice).color(ui.visuals().error_fg_color));
    }
    if ui.button("Defaults").on_hover_text("Back to the engine's default settings").clicked() {
        let _ = state.apply_settings(StepSettings::default());
    }
    ui.separator();
    threads(ui, state);
    ui.separator();
    grab_settings(ui, state);
}

/// How many threads step the world: not part of the scene (the result is the same on any
/// count), the machine's cores by default.
fn threads(ui: &mut egui::Ui, state: &mut EditorState) {
    let cores = machine_threads();
    let tip = format!(
        "Threads that step the world, 1 to {MAX_THREADS}; this machine has {cores}. The result is \
         the same bit for bit on any count; more than the cores only adds waiting."
    );
    let mut threads = state.sim.world.thread_count();
    let changed = ui
        .horizontal(|ui| {
            let label = ui.label("threads").on_hover_text(&tip).id;
            let drag = ui.add(DragValue::new(&mut threads).range(1..=MAX_THREADS).speed(0.05));
            let changed = drag.labelled_by(label).on_hover_text(&tip).changed();
            ui.label(format!("(this machine: {cores})"));
            changed
        })
        .inner;
    if changed
        && threads != state.sim.world.thread_count()
        && let Err(e) = state.sim.world.set_thread_count(threads)
    {
        state.diag.notices.report(NoticePlace::Settings, e.to_string());
    }
}

/// The editor's grab spring (dragging a body while playing): not part of the scene.
fn grab_settings(ui: &mut egui::Ui, state: &mut EditorState) {
    ui.label(RichText::new("Grab while playing").strong())
        .on_hover_text("Dragging a dynamic body while the simulation plays pulls it with this spring");
    let mut g = state.sim.grab_settings;
    let mut changed = false;
    Grid::new("grab settings grid").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        let mut float = |ui: &mut egui::Ui, name: &str, tip: &str, value: &mut f32, speed: f64| {
            let label = ui.label(name).on_hover_text(tip).id;
            let drag = ui.add(DragValue::new(value).speed(speed).max_decimals(3));
            changed |= drag.labelled_by(label).on_hover_text(tip).changed();
            ui.end_row();
        };
        float(ui, "grab hertz", "How quickly a grabbed body follows the pointer, Hz.", &mut g.hertz, 0.05);
        float(
            ui,
            "grab damping",
            "Damping ratio of the grab spring (1 = critical).",
            &mut g.damping_ratio,
            0.01,
        );
        float(
            ui,
            "grab max accel.",
            "The largest acceleration the grab gives a body, m/s^2.",
            &mut g.max_acceleration,
            1.0,
        );
    });
    if changed {
        match g.validate() {
            Ok(()) => {
                state.sim.grab_settings = g;
                state.diag.notices.clear(NoticePlace::Settings);
            }
            Err(e) => state.diag.notices.report(NoticePlace::Settings, e),
        }
    }
}

/// The Settings panel.
#[derive(Default)]
pub struct SettingsPanel;

impl Panel for SettingsPanel {
    fn name(&self) -> &'static str {
        "Settings"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state);
    }
}
