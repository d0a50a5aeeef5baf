//! The bars around the viewport: simulation controls and the scenes menu on top, the status
//! line at the bottom, and the keyboard shortcuts.

use super::scenes;
use super::state::EditorState;
use egui::{Key, Modifiers};

/// Applies the shortcuts: Space plays or pauses, `.` or → steps once, `R` resets. They are
/// consumed before widgets run, so a focused button never sees the same Space press.
pub fn handle_shortcuts(ctx: &egui::Context, state: &mut EditorState) {
    let (play, step, reset) = ctx.input_mut(|i| {
        let play = i.consume_key(Modifiers::NONE, Key::Space);
        let step =
            i.consume_key(Modifiers::NONE, Key::Period) | i.consume_key(Modifiers::NONE, Key::ArrowRight);
        let reset = i.consume_key(Modifiers::NONE, Key::R);
        (play, step, reset)
    });
    if play {
        state.toggle_play();
    }
    if step {
        state.step_once();
    }
    if reset {
        state.reset();
    }
}

/// The menu and control bar.
pub fn top_bar(ui: &mut egui::Ui, state: &mut EditorState) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("Scenes", |ui| scenes_menu(ui, state));
        ui.separator();
        let play_label = if state.playing { "Pause" } else { "Play" };
        if ui.button(play_label).on_hover_text("Start or stop the simulation (Space)").clicked() {
            state.toggle_play();
        }
        if ui.button("Step").on_hover_text("Advance one step (. or →)").clicked() {
            state.step_once();
        }
        if ui.button("Reset").on_hover_text("Back to the loaded state (R)").clicked() {
            state.reset();
        }
        ui.separator();
        ui.label(egui::RichText::new(&state.scene_name).strong());
    });
}

fn scenes_menu(ui: &mut egui::Ui, state: &mut EditorState) {
    let files = scenes::list(&crate::cli::scenes_dir());
    if files.is_empty() {
        ui.label("no scenes/ folder found");
    }
    for path in files {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let is_open = state.scene_path.as_deref() == Some(path.as_path());
        if ui.selectable_label(is_open, name).clicked() {
            state.open_in_place(&path);
            ui.close();
        }
    }
}

/// The status line: step, simulated time, bodies, step and frame times.
pub fn status_bar(ui: &mut egui::Ui, state: &EditorState) {
    ui.horizontal(|ui| {
        let world = &state.world;
        ui.label(format!("step {}", world.step_count()));
        ui.separator();
        ui.label(format!("t = {:.3} s", world.time()));
        ui.separator();
        ui.label(format!("{} bodies", world.body_count()));
        ui.separator();
        ui.label(format!("step {:.2} ms", state.last_step_ms));
        ui.separator();
        ui.label(format!("frame {:.2} ms", state.frame_ms));
        if let Some(selected) = state.selected {
            ui.separator();
            ui.label(format!("selected body {}", selected.index()));
        }
    });
}

/// A dismissable window showing the last error, if any.
pub fn error_window(ctx: &egui::Context, state: &mut EditorState) {
    let Some(message) = state.error.clone() else { return };
    let mut open = true;
    egui::Window::new("Could not open the scene").open(&mut open).collapsible(false).show(ctx, |ui| {
        ui.label(message);
    });
    if !open {
        state.error = None;
    }
}
