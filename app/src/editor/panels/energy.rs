//! Energy: the scene's kinetic, potential and total energy and its linear and angular momentum
//! over the recorded steps (each step's `Energy`, kept by the history), the selected body's
//! island's over the steps since it was selected, a "find the blow-up" button that goes to the first step whose energy rose
//! with no input to explain it and selects the body that gained most, and the plotted values
//! saved as CSV for analysis elsewhere.

use super::panel::{Dock, Panel, PanelContext};
use super::widgets::{clicked_step, still_plot};
use crate::editor::csv::write_csv;
use crate::editor::state::EditorState;
use atoll_physics::{BodyId, Energy, StepRecord};
use egui_plot::{Line, VLine};
use std::path::{Path, PathBuf};

/// The Energy panel's settings and what its last search found.
pub struct EnergyPanel {
    /// A rise counts as a blow-up above this share of the step before's total energy.
    pub share: f64,
    /// Where "Save CSV" writes.
    pub csv_path: String,
    /// What the last search or save said.
    pub outcome: Option<String>,
}

impl Default for EnergyPanel {
    fn default() -> Self {
        let csv = std::env::temp_dir().join("atoll-energy.csv");
        EnergyPanel { share: 0.1, csv_path: csv.display().to_string(), outcome: None }
    }
}

/// A plotted series: its label, its colour (sRGB) and how it reads a step's energy.
type Series = (&'static str, [u8; 3], fn(&Energy) -> f64);

/// The total energy's line colour (sRGB), which tests look for.
pub const TOTAL_COLOUR: [u8; 3] = [120, 220, 90];

/// The energies, plotted together.
const ENERGIES: [Series; 3] = [
    ("kinetic (J)", [235, 90, 80], |e| e.kinetic),
    ("potential (J)", [80, 140, 255], |e| e.potential),
    ("total (J)", TOTAL_COLOUR, Energy::total),
];

/// The momenta's sizes, plotted together.
const MOMENTA: [Series; 2] = [
    ("|linear momentum| (kg m/s)", [255, 165, 60], |e| e.linear_momentum.length()),
    ("|angular momentum| (kg m²/s)", [190, 110, 255], |e| e.angular_momentum.length()),
];

impl EnergyPanel {
    /// Goes to the first unexplained rise of energy above the share and selects the body whose
    /// energy rose most in it (the world is put at the step before to read each body's, then at
    /// the step). Returns what it found, for the panel and for tests.
    pub fn find_blow_up(&mut self, state: &mut EditorState) -> Result<Option<(u64, BodyId)>, String> {
        let Some(step) = state.sim.timeline.history.find_blow_up(self.share) else {
            self.outcome =
                Some(format!("no step's energy rose by more than {:.0} % unexplained", self.share * 100.0));
            return Ok(None);
        };
        state.go_to_step(step - 1)?;
        let ids: Vec<BodyId> = state.sim.world.body_ids().collect();
        let before: Vec<f64> = ids.iter().map(|&id| body_total(state, id)).collect();
        state.go_to_step(step)?;
        let gained = ids.iter().zip(&before).map(|(&id, b)| (id, body_total(state, id) - b));
        let (body, most) = gained.max_by(|a, b| a.1.total_cmp(&b.1)).expect("a rise needs a body");
        state.doc.selection.set(Some(body));
        self.outcome = Some(format!("step {step}: {} gained most, {most:.1} J", state.body_name(body)));
        Ok(Some((step, body)))
    }

    /// Writes the kept steps' energies as CSV to `path`: one row a step.
    pub fn save_csv(path: &Path, steps: &[StepRecord]) -> std::io::Result<()> {
        let header = ["step", "kinetic_J", "potential_J", "total_J", "px", "py", "pz", "Lx", "Ly", "Lz"];
        let rows = steps.iter().map(|r| {
            let (e, p, l) = (r.energy, r.energy.linear_momentum, r.energy.angular_momentum);
            let values = [e.kinetic, e.potential, e.total(), p.x, p.y, p.z, l.x, l.y, l.z];
            std::iter::once(r.step.to_string()).chain(values.map(|v| v.to_string()))
        });
        write_csv(path, &header, rows)
    }
}

/// A body's kinetic plus potential energy now (0 for a gone or non-dynamic body).
fn body_total(state: &EditorState, id: BodyId) -> f64 {
    state.sim.world.body_energy(id).map_or(0.0, |e| e.total())
}

/// One plot of `series` over the kept steps, a line at the current step; the step clicked.
fn plot(ui: &mut egui::Ui, title: &str, steps: &[StepRecord], series: &[Series], now: u64) -> Option<u64> {
    let response = still_plot(title, 110.0, egui_plot::Corner::LeftTop).show(ui, |p| {
        for (name, [r, g, b], read) in series {
            let points: Vec<[f64; 2]> = steps.iter().map(|s| [s.step as f64, read(&s.energy)]).collect();
            p.line(Line::new(*name, points).color(egui::Color32::from_rgb(*r, *g, *b)).width(2.0));
        }
        p.vline(VLine::new("now", now as f64));
        p.pointer_coordinate()
    });
    clicked_step(&response)
}

impl Panel for EnergyPanel {
    fn name(&self) -> &'static str {
        "Energy"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let state = &mut *cx.state;
        let steps: Vec<StepRecord> = state.sim.timeline.history.steps().copied().collect();
        if steps.len() < 2 {
            ui.weak("Play or step to plot the scene's energy and momentum.");
            return;
        }
        let now = state.sim.world.step_count();
        let e = state.sim.world.energy();
        ui.label(format!(
            "now: kinetic {:.1} J, potential {:.1} J, total {:.1} J",
            e.kinetic,
            e.potential,
            e.total()
        ));
        if let Some(island) = state.selected().and_then(|b| state.sim.world.body_island(b).ok().flatten())
            && let Ok(i) = state.sim.world.island_energy(island)
        {
            ui.label(format!("selected body's island: kinetic {:.1} J, total {:.1} J", i.kinetic, i.total()));
        }
        let mut go = plot(ui, "energy", &steps, &ENERGIES, now);
        go = go.or(plot(ui, "momentum", &steps, &MOMENTA, now));
        let island: Vec<(u64, Energy)> = state.diag.island_energy.samples().copied().collect();
        if island.len() >= 2
            && let Some(body) = state.diag.island_energy.body()
        {
            ui.label(format!("the island of {}, since it was selected:", state.body_name(body)));
            let response = still_plot("island energy", 110.0, egui_plot::Corner::LeftTop).show(ui, |p| {
                for (name, [r, g, b], read) in &ENERGIES {
                    let points: Vec<[f64; 2]> = island.iter().map(|(s, e)| [*s as f64, read(e)]).collect();
                    p.line(Line::new(*name, points).color(egui::Color32::from_rgb(*r, *g, *b)).width(2.0));
                }
                p.vline(VLine::new("", now as f64));
                p.pointer_coordinate()
            });
            go = go.or(clicked_step(&response));
        }
        if let Some(step) = go
            && let Err(e) = state.go_to_kept_step(step)
        {
            self.outcome = Some(e);
        }
        ui.horizontal(|ui| {
            if ui
                .button("Find the blow-up")
                .on_hover_text("The first step whose energy rose with no input made")
                .clicked()
                && let Err(e) = self.find_blow_up(state)
            {
                self.outcome = Some(e);
            }
            ui.label("rise above");
            let mut percent = self.share * 100.0;
            if ui.add(egui::DragValue::new(&mut percent).range(0.1..=1000.0).suffix(" %")).changed() {
                self.share = percent / 100.0;
            }
        });
        ui.horizontal(|ui| {
            if ui.button("Save CSV").clicked() {
                let path = PathBuf::from(&self.csv_path);
                self.outcome = Some(match EnergyPanel::save_csv(&path, &steps) {
                    Ok(()) => format!("saved {} steps to {}", steps.len(), path.display()),
                    Err(e) => format!("could not save {}: {e}", path.display()),
                });
            }
            ui.add(egui::TextEdit::singleline(&mut self.csv_path).desired_width(f32::INFINITY));
        });
        if let Some(outcome) = &self.outcome {
            ui.label(outcome);
        }
    }
}
