//! Contacts: the manifolds of the selected body, or of every touching pair (capped); a pair
//! can be watched: its points' forces over the whole kept timeline (the steps before it was
//! picked filled in by a walk through the history, a slice a frame), and the step shown
//! substep by substep (the engine's trace; a step in the past is taken again to trace it),
//! with the history saved as CSV.

use super::panel::{Dock, Panel, PanelContext};
use super::widgets::still_plot;
use crate::editor::contact_watch::ContactSample;
use crate::editor::csv::write_csv;
use crate::editor::state::EditorState;
use atoll_physics::{ContactId, TracePass};
use egui::{Grid, ScrollArea};
use egui_plot::{Corner, Line, VLine};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// Most rows drawn: beyond this the table stops being readable and costs frame time.
const MAX_ROWS: usize = 300;

/// Draws the manifold table; returns the pair whose watch button was clicked, if any.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState) -> Option<ContactId> {
    let selected = state.selected();
    let contacts: Vec<_> = state
        .sim
        .world
        .touching_contacts()
        .filter(|c| selected.is_none_or(|id| c.body_a == id || c.body_b == id))
        .collect();
    let scope = match selected {
        Some(id) => format!("of {}", state.body_name(id)),
        None => "of all bodies".into(),
    };
    let points: usize = contacts.iter().map(|c| c.manifold.count).sum();
    let watched = state.diag.contact_watch.pair();
    let mut toggled = None;
    ui.label(format!("{} touching pairs {scope}, {points} points", contacts.len()));
    ScrollArea::both().id_salt("contacts scroll").max_height(260.0).show(ui, |ui| {
        Grid::new("contacts table").num_columns(8).striped(true).spacing([10.0, 2.0]).show(ui, |ui| {
            for title in
                ["pair", "point", "separation", "normal", "impulse", "friction / twist", "feature", ""]
            {
                ui.strong(title);
            }
            ui.end_row();
            let mut rows = 0;
            let mut hovered = None;
            'pairs: for c in &contacts {
                let n = c.manifold.normal;
                for (k, point) in c.manifold.points().iter().enumerate() {
                    if rows == MAX_ROWS {
                        break 'pairs;
                    }
                    rows += 1;
                    // Friction acts on the whole manifold: shown once, on its first row.
                    let (pair, friction) = if k == 0 {
                        (
                            match c.chunk {
                                Some(k) => {
                                    format!("{} - terrain {} {} {}", state.body_name(c.body_a), k.x, k.y, k.z)
                                }
                                None => {
                                    format!("{} - {}", state.body_name(c.body_a), state.body_name(c.body_b))
                                }
                            },
                            format!("{:.4} / {:.4}", c.friction_impulse.length(), c.twist_impulse),
                        )
                    } else {
                        (String::new(), String::new())
                    };
                    let impulse = c.impulses[k];
                    let p = point.position;
                    let cells = [
                        ui.label(pair),
                        ui.monospace(format!("{:.3} {:.3} {:.3}", p.x, p.y, p.z)),
                        ui.monospace(format!("{:+.4}", point.separation)),
                        ui.monospace(format!("{:+.2} {:+.2} {:+.2}", n.x, n.y, n.z)),
                        ui.monospace(format!("{:.4}", impulse.normal)),
                        ui.monospace(friction),
                        ui.monospace(format!("{:08x}", point.feature)),
                    ];
                    if cells.iter().any(egui::Response::hovered) {
                        hovered = Some((p, n));
                    }
                    if k == 0 {
                        let watching = watched == Some(c.pair_key());
                        if ui.small_button(if watching { "watching" } else { "watch" }).clicked() {
                            toggled = Some(c.id);
                        }
                    }
                    ui.end_row();
                }
            }
            // The viewport marks the hovered point this frame (it draws after the panels).
            state.view.options.marker = hovered;
        });
    });
    if points > MAX_ROWS {
        ui.weak(format!("showing the first {MAX_ROWS} points; select a body to narrow the list"));
    }
    toggled
}

/// The watched pair: its forces over the kept steps, and the step shown substep by substep.
/// Returns whether the user asked for the step shown to be traced.
fn show_watch(ui: &mut egui::Ui, state: &EditorState) -> bool {
    let world = &state.sim.world;
    let Some(pair) = state.diag.contact_watch.pair() else { return false };
    let shape = |s: atoll_physics::ShapeId| match s.part {
        0 => state.body_name(s.body),
        part => format!("{} part {part}", state.body_name(s.body)),
    };
    ui.separator();
    ui.label(format!("watching {} - {}", shape(pair.a), shape(pair.b)));
    if let Some((next, last)) = state.diag.contact_watch.filling() {
        ui.weak(format!("filling in the kept steps: step {next} of {last}"));
    }
    let samples: Vec<ContactSample> = state.diag.contact_watch.samples().copied().collect();
    let now = world.step_count() as f64;
    still_plot("watched contact forces", 150.0, Corner::RightTop).show(ui, |p| {
        for (k, colour) in POINT_COLOURS.iter().enumerate() {
            let points: Vec<[f64; 2]> = (samples.iter())
                .map(|s| [s.step as f64, f64::from(if k < s.points as usize { s.normal[k] } else { 0.0 })])
                .collect();
            p.line(Line::new(format!("point {} N", k + 1), points).color(*colour).width(1.5));
        }
        let friction: Vec<[f64; 2]> =
            samples.iter().map(|s| [s.step as f64, f64::from(s.friction)]).collect();
        p.line(Line::new("friction N", friction).color(egui::Color32::from_rgb(240, 200, 60)).width(1.5));
        // Unnamed: the step now is no series for the legend.
        p.vline(VLine::new("", now));
    });
    // The deepest point's separation, where the pair had points.
    let separation: Vec<[f64; 2]> = (samples.iter())
        .filter(|s| s.points > 0)
        .map(|s| [s.step as f64, f64::from(s.separation) * 1e3])
        .collect();
    if !separation.is_empty() {
        still_plot("watched contact separation", 70.0, Corner::RightTop).show(ui, |p| {
            p.line(Line::new("deepest point (mm)", separation).color(SEPARATION_COLOUR).width(1.5));
            p.vline(VLine::new("", now));
        });
    }
    // The last step, pass by pass: the impulse so far in the substep over the substep, a force.
    let h = f64::from(world.settings().dt) / f64::from(world.settings().substeps.max(1));
    let id = state.diag.contact_watch.contact();
    let trace = world.contact_traces().iter().find(|t| Some(t.contact) == id);
    let substeps = trace.map_or(&[][..], |t| &t.substeps[..]);
    if substeps.is_empty() {
        let Some(id) = id else {
            ui.weak("The pair has no contact at this step.");
            return false;
        };
        let asleep = world
            .contact(id)
            .is_ok_and(|c| [c.body_a, c.body_b].iter().all(|&b| !world.is_awake(b).unwrap_or(false)));
        if asleep {
            ui.weak("The pair sleeps: the last step did not solve it.");
            return false;
        }
        let (first, _) = state.sim.timeline.range();
        let step = world.step_count();
        return step > first
            && ui
                .button(format!("Trace step {step} substep by substep"))
                .on_hover_text("Takes the step again from the one before, tracing the pair")
                .clicked();
    }
    ui.label(format!("step {}, substep by substep (N):", world.step_count()));
    still_plot("watched contact substeps", 90.0, Corner::LeftTop).show(ui, |p| {
        for (pass, label, colour) in [
            (TracePass::Solve, "solve", egui::Color32::from_rgb(90, 170, 250)),
            (TracePass::Relax, "relax", egui::Color32::from_rgb(250, 120, 90)),
        ] {
            let points: Vec<[f64; 2]> = (substeps.iter().filter(|s| s.pass == pass))
                .map(|s| [f64::from(s.substep), f64::from(s.total_normal()) / h])
                .collect();
            p.line(Line::new(label, points).color(colour).width(2.0));
        }
    });
    false
}

/// The colour of the deepest point's separation line.
pub const SEPARATION_COLOUR: egui::Color32 = egui::Color32::from_rgb(160, 220, 220);

/// The colours of the manifold points' lines.
pub const POINT_COLOURS: [egui::Color32; 4] = [
    egui::Color32::from_rgb(90, 170, 250),
    egui::Color32::from_rgb(250, 120, 90),
    egui::Color32::from_rgb(120, 210, 120),
    egui::Color32::from_rgb(200, 130, 230),
];

/// Saves the watched pair's samples as CSV.
pub fn save_watch_csv(path: &Path, samples: &[ContactSample]) -> std::io::Result<()> {
    write_csv(
        path,
        &[
            "step",
            "points",
            "normal_1_n",
            "normal_2_n",
            "normal_3_n",
            "normal_4_n",
            "friction_n",
            "separation_m",
        ],
        samples.iter().map(|s| {
            let mut row = vec![s.step.to_string(), s.points.to_string()];
            row.extend(s.normal.iter().map(|n| n.to_string()));
            row.extend([s.friction.to_string(), s.separation.to_string()]);
            row
        }),
    )
}

/// The time a frame spends filling in the watched pair's kept steps.
pub const FILL_PER_FRAME: Duration = Duration::from_millis(4);

/// The Contacts panel, with the watched pair's CSV path and what the last save said.
pub struct ContactsPanel {
    csv_path: String,
    outcome: Option<String>,
}

impl Default for ContactsPanel {
    fn default() -> Self {
        let path = std::env::temp_dir().join("atoll-contact.csv");
        ContactsPanel { csv_path: path.display().to_string(), outcome: None }
    }
}

impl Panel for ContactsPanel {
    fn name(&self) -> &'static str {
        "Contacts"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let state = &mut *cx.state;
        if let Some(id) = show(ui, state) {
            let pair = state.sim.world.contact(id).ok().map(|c| c.pair_key());
            let watch = (state.diag.contact_watch.pair() != pair).then_some(id);
            let (watcher, world) = (&mut state.diag.contact_watch, &mut state.sim.world);
            if let Err(e) = watcher.watch(world, &state.sim.timeline.history, watch) {
                self.outcome = Some(e);
            }
        }
        if state.diag.contact_watch.fill_for(FILL_PER_FRAME) {
            ui.ctx().request_repaint();
        }
        if show_watch(ui, state)
            && let Err(e) = state.trace_step_shown()
        {
            self.outcome = Some(e);
        }
        if state.diag.contact_watch.pair().is_some() {
            ui.horizontal(|ui| {
                if ui.button("Save contact CSV").clicked() {
                    let samples: Vec<ContactSample> = state.diag.contact_watch.samples().copied().collect();
                    let path = PathBuf::from(&self.csv_path);
                    self.outcome = Some(match save_watch_csv(&path, &samples) {
                        Ok(()) => format!("saved {} steps of the pair to {}", samples.len(), path.display()),
                        Err(e) => format!("could not save {}: {e}", path.display()),
                    });
                }
                ui.add(egui::TextEdit::singleline(&mut self.csv_path).desired_width(f32::INFINITY));
            });
        }
        if let Some(outcome) = &self.outcome {
            ui.label(outcome);
        }
    }
}
