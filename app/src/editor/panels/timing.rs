//! Timing: per-stage step times over the last steps as plot lines, and their median and max.

use crate::editor::history::HISTORY_LEN;
use crate::editor::state::EditorState;
use atoll_physics::Stage;
use egui::Grid;
use egui_plot::{Legend, Line, Plot};

/// Draws the stage plot and the median/max table.
pub fn show(ui: &mut egui::Ui, state: &EditorState) {
    let history = &state.history;
    if history.is_empty() {
        ui.weak("Play or step to collect step times.");
    }
    Plot::new("timing plot")
        .height(190.0)
        // Small, translucent, in pipeline order: the legend shares the plot with nine lines.
        .legend(
            Legend::default()
                .text_style(egui::TextStyle::Small)
                .background_alpha(0.6)
                .follow_insertion_order(true)
                .position(egui_plot::Corner::LeftTop),
        )
        .allow_scroll(false)
        .include_y(0.0)
        .y_axis_label("ms")
        .show(ui, |plot| {
            for (index, stage) in Stage::ALL.iter().enumerate() {
                let points: Vec<[f64; 2]> =
                    history.samples().map(|s| [s.step as f64, s.stage_ms[index]]).collect();
                plot.line(Line::new(stage.name(), points));
            }
        });
    ui.label(format!("last {} of {HISTORY_LEN} steps", history.len()));
    Grid::new("timing table").num_columns(3).striped(true).spacing([16.0, 2.0]).show(ui, |ui| {
        ui.strong("stage");
        ui.strong("median ms");
        ui.strong("max ms");
        ui.end_row();
        let mut row = |name: &str, (median, max): (f64, f64)| {
            ui.label(name);
            ui.monospace(format!("{median:8.3}"));
            ui.monospace(format!("{max:8.3}"));
            ui.end_row();
        };
        for (index, stage) in Stage::ALL.iter().enumerate() {
            row(stage.name(), history.median_max(|s| s.stage_ms[index]));
        }
        row("total", history.median_max(|s| s.total_ms));
    });
}
