//! Broadphase: statistics of both trees and a plot of the movable tree's height and the
//! re-insertions per step.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use egui::Grid;
use egui_plot::{Legend, Line, Plot};

/// Draws the tree statistics and the history plot.
pub fn show(ui: &mut egui::Ui, state: &EditorState) {
    let stats = state.sim.world.broadphase_stats();
    Grid::new("broadphase table").num_columns(3).striped(true).spacing([16.0, 2.0]).show(ui, |ui| {
        ui.strong("");
        ui.strong("movable");
        ui.strong("static");
        ui.end_row();
        let (m, s) = (stats.movable_tree, stats.static_tree);
        let mut row = |name: &str, a: String, b: String| {
            ui.label(name);
            ui.monospace(a);
            ui.monospace(b);
            ui.end_row();
        };
        row("height", m.height.to_string(), s.height.to_string());
        row("nodes", m.node_count.to_string(), s.node_count.to_string());
        row("proxies", m.proxy_count.to_string(), s.proxy_count.to_string());
        row("max balance", m.max_balance.to_string(), s.max_balance.to_string());
        row(
            "surface area",
            format!("{:.1} m2", m.total_surface_area),
            format!("{:.1} m2", s.total_surface_area),
        );
    });
    ui.label(format!("re-insertions last step: {}", stats.reinsertions_last_step));
    let history = &state.diag.history;
    Plot::new("broadphase plot")
        .height(120.0)
        .legend(Legend::default().text_style(egui::TextStyle::Small).position(egui_plot::Corner::LeftTop))
        .allow_scroll(false)
        .include_y(0.0)
        .show(ui, |plot| {
            let height: Vec<[f64; 2]> =
                history.samples().map(|s| [s.step as f64, s.tree_height as f64]).collect();
            let reinsertions: Vec<[f64; 2]> =
                history.samples().map(|s| [s.step as f64, s.reinsertions as f64]).collect();
            plot.line(Line::new("tree height", height));
            plot.line(Line::new("re-insertions", reinsertions));
        });
}

/// The Broadphase panel.
#[derive(Default)]
pub struct BroadphasePanel;

impl Panel for BroadphasePanel {
    fn name(&self) -> &'static str {
        "Broadphase"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state);
    }
}
