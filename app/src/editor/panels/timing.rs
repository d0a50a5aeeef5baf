//! Timing: per-stage step times over the last steps, as lines or stacked, and their median and
//! max.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::history::HISTORY_LEN;
use crate::editor::state::EditorState;
use atoll_physics::Stage;
use egui::Grid;
use egui_plot::{Legend, Line, Plot};

/// One colour per stage, the same in both plot modes (golden-ratio hues, as egui_plot's own).
fn stage_colour(index: usize) -> egui::Color32 {
    let hue = (index as f32 * 0.618_034).fract();
    egui::ecolor::Hsva::new(hue, 0.85, 0.5, 1.0).into()
}

/// Draws the stage plot (lines, or stacked areas whose top is the whole step) and the
/// median/max table.
pub fn show(ui: &mut egui::Ui, state: &EditorState, stacked: &mut bool) {
    let history = &state.diag.history;
    ui.horizontal(|ui| {
        ui.selectable_value(stacked, false, "Lines").on_hover_text("One line per stage");
        ui.selectable_value(stacked, true, "Stacked")
            .on_hover_text("Each stage on top of the ones before it; the top edge is the whole step");
        if history.is_empty() {
            ui.weak("Play or step to collect step times.");
        }
    });
    let stacked = *stacked;
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
            // Stacked: stage k is drawn at the sum of stages 0..=k, top one first, so each
            // filled band shows its own stage over the bands below it.
            let order: Vec<usize> =
                if stacked { (0..Stage::ALL.len()).rev().collect() } else { (0..Stage::ALL.len()).collect() };
            for index in order {
                let value = |ms: &[f64]| if stacked { ms[..=index].iter().sum() } else { ms[index] };
                let points: Vec<[f64; 2]> =
                    history.samples().map(|s| [s.step as f64, value(&s.stage_ms)]).collect();
                let line = Line::new(Stage::ALL[index].name(), points).color(stage_colour(index));
                plot.line(if stacked { line.fill(0.0) } else { line });
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

/// The Timing panel.
#[derive(Default)]
pub struct TimingPanel {
    /// The plot stacks the stages instead of drawing one line each.
    pub stacked: bool,
}

impl Panel for TimingPanel {
    fn name(&self) -> &'static str {
        "Timing"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn default_open(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state, &mut self.stacked);
    }
}
