//! Branches: fork the timeline at the step shown ("what would another setting have done
//! here?"), switch between the branches, choose the one compared, rename and drop them; and
//! how far apart the compared branch's bodies are from the ones shown over the steps (largest
//! and mean, and the selected body's island), the first step where they differ marked. The
//! compared branch's bodies are drawn as ghosts in the viewport where they stand apart. An
//! edit made at a step in the past keeps the recorded steps after it as a branch (on by
//! default), so playing on from an edit compares the new future with the old.

use super::panel::{Dock, Panel, PanelContext};
use super::widgets::{clicked_step, still_plot};
use crate::editor::state::EditorState;
use atoll_physics::{BranchId, BranchInfo};
use egui_plot::{Line, VLine};

/// The largest distance's line colour (sRGB), which tests look for.
pub const MAX_COLOUR: [u8; 3] = [255, 150, 60];
/// The mean distance's line colour (sRGB).
pub const MEAN_COLOUR: [u8; 3] = [90, 160, 255];
/// The selected body's island's line colour (sRGB).
pub const ISLAND_COLOUR: [u8; 3] = [120, 220, 90];
/// The first difference's mark (sRGB).
pub const FIRST_DIFFERENCE_COLOUR: [u8; 3] = [235, 70, 70];

/// The Branches panel's fields.
#[derive(Default)]
pub struct BranchesPanel {
    /// The name the next fork takes (a free "branch N" when empty).
    pub fork_name: String,
    /// The new name typed for the branch shown.
    pub rename: String,
    /// What the last command refused, if anything.
    pub refused: Option<String>,
}

/// What a click in the list asked for.
enum Asked {
    Switch(BranchId),
    Compare(Option<BranchId>),
    Drop(BranchId),
}

impl BranchesPanel {
    /// Forks at the step shown under the typed name (or a free "branch N").
    pub fn fork(&mut self, state: &mut EditorState) -> Result<BranchId, String> {
        let name = match self.fork_name.trim() {
            "" => free_name(&state.sim.branching.branches.infos()),
            typed => typed.to_string(),
        };
        let forked = state.fork_branch(&name);
        if forked.is_ok() {
            self.fork_name.clear();
        }
        forked
    }
}

/// "branch N" with the smallest N no branch is named.
fn free_name(infos: &[&BranchInfo]) -> String {
    (1..)
        .map(|n| format!("branch {n}"))
        .find(|name| infos.iter().all(|i| &i.name != name))
        .expect("a free name")
}

impl Panel for BranchesPanel {
    fn name(&self) -> &'static str {
        "Branches"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        let state = &mut *cx.state;
        ui.horizontal(|ui| {
            if ui
                .button("Fork here")
                .on_hover_text("A branch from the step shown: change a setting or a body in it and play")
                .clicked()
            {
                self.refused = self.fork(state).err();
            }
            ui.add(
                egui::TextEdit::singleline(&mut self.fork_name)
                    .hint_text("name")
                    .desired_width(f32::INFINITY),
            );
        });
        let branches = &state.sim.branching.branches;
        let active = branches.active().id;
        let compared = branches.compared().map(|c| c.id);
        let infos: Vec<BranchInfo> = branches.infos().into_iter().cloned().collect();
        let mut asked = None;
        egui::Grid::new("branches").num_columns(4).striped(true).show(ui, |ui| {
            for info in &infos {
                let shown = info.id == active;
                let name = if shown {
                    egui::RichText::new(&info.name).strong()
                } else {
                    egui::RichText::new(&info.name)
                };
                ui.label(name);
                ui.label(match info.parent {
                    Some(_) => format!("from step {}", info.fork_step),
                    None => "the first".to_string(),
                });
                if shown {
                    ui.label("shown");
                } else if ui.button("show").on_hover_text("Show and edit this branch").clicked() {
                    asked = Some(Asked::Switch(info.id));
                }
                ui.horizontal(|ui| {
                    if !shown {
                        let mut on = compared == Some(info.id);
                        if ui.checkbox(&mut on, "compare").changed() {
                            asked = Some(Asked::Compare(on.then_some(info.id)));
                        }
                        if ui.button("drop").clicked() {
                            asked = Some(Asked::Drop(info.id));
                        }
                    }
                });
                ui.end_row();
            }
        });
        if let Some(asked) = asked {
            let done = match asked {
                Asked::Switch(id) => state.switch_branch(id),
                Asked::Compare(id) => state.compare_branch(id),
                Asked::Drop(id) => state.drop_branch(id),
            };
            self.refused = done.err();
        }
        ui.horizontal(|ui| {
            let renamed = ui.button("Rename").clicked();
            ui.add(egui::TextEdit::singleline(&mut self.rename).hint_text("new name of the branch shown"));
            if renamed {
                let id = state.sim.branching.branches.active().id;
                self.refused = state.rename_branch(id, &self.rename).err();
                if self.refused.is_none() {
                    self.rename.clear();
                }
            }
        });
        ui.checkbox(&mut state.sim.branching.ghosts, "draw the compared branch as ghosts");
        ui.checkbox(
            &mut state.sim.branching.keep_discarded,
            "an edit in the past keeps the steps after it as a branch",
        )
        .on_hover_text("Off: the edit discards the recorded steps after it");
        if let Some(refused) = &self.refused {
            ui.colored_label(ui.visuals().error_fg_color, refused);
        } else if let Some(note) = &state.sim.branching.note {
            ui.label(note);
        }
        divergence_ui(ui, state);
        let share = state.sim.branching.branches.share();
        ui.weak(format!(
            "Each branch's timeline keeps {:.0} MiB; the parked branches hold {:.1} MiB.",
            share.budget_bytes as f64 / f64::from(1 << 20),
            state.sim.branching.branches.bytes() as f64 / f64::from(1 << 20),
        ));
    }
}

/// The comparison with the compared branch: now, over the steps, and where it began.
fn divergence_ui(ui: &mut egui::Ui, state: &mut EditorState) {
    let branches = &state.sim.branching.branches;
    let Some(other) = branches.compared() else {
        if !branches.is_empty() {
            ui.weak("Tick \"compare\" on a branch to see how far apart it goes.");
        }
        return;
    };
    let now = state.sim.world.step_count();
    let first = branches.first_difference();
    ui.label(format!("compared with {:?}", other.name));
    match branches.log().get(&now) {
        Some(sample) => {
            let d = &sample.divergence;
            let farthest =
                d.farthest.map(|b| format!(", {} farthest", state.body_name(b))).unwrap_or_default();
            ui.label(format!(
                "step {now}: at most {:.4} m apart, {:.4} m on average{farthest}",
                d.max, d.mean
            ));
            if d.unmatched > 0 {
                ui.label(format!("{} bodies are in one branch only", d.unmatched));
            }
        }
        None => {
            ui.weak(format!("{:?} has not reached step {now}", other.name));
        }
    }
    ui.label(match first {
        Some(step) => format!("first difference at step {step}"),
        None => "no difference yet".to_string(),
    });
    let log = branches.log();
    if log.len() < 2 {
        return;
    }
    let active = branches.active().id;
    // The selected body's island now, followed over the steps it was compared in this branch.
    let island = state.selected().and_then(|b| state.sim.world.body_island(b).ok().flatten());
    let colour = |[r, g, b]: [u8; 3]| egui::Color32::from_rgb(r, g, b);
    let response = still_plot("divergence", 130.0, egui_plot::Corner::LeftTop).show(ui, |p| {
        let points = |read: &dyn Fn(&atoll_physics::Divergence) -> f32| -> Vec<[f64; 2]> {
            log.iter().map(|(s, d)| [*s as f64, f64::from(read(&d.divergence))]).collect()
        };
        p.line(Line::new("largest (m)", points(&|d| d.max)).color(colour(MAX_COLOUR)).width(2.0));
        p.line(Line::new("mean (m)", points(&|d| d.mean)).color(colour(MEAN_COLOUR)).width(2.0));
        if let Some(island) = island {
            let own: Vec<[f64; 2]> = (log.iter().filter(|(_, d)| d.measured_in == active))
                .filter_map(|(s, d)| {
                    let i = d.divergence.islands.iter().find(|i| i.island == island)?;
                    Some([*s as f64, f64::from(i.max)])
                })
                .collect();
            if !own.is_empty() {
                p.line(
                    Line::new("selected island, largest (m)", own).color(colour(ISLAND_COLOUR)).width(2.0),
                );
            }
        }
        if let Some(step) = first {
            p.vline(
                VLine::new("first difference", step as f64).color(colour(FIRST_DIFFERENCE_COLOUR)).width(2.0),
            );
        }
        p.vline(VLine::new("", now as f64));
        p.pointer_coordinate()
    });
    if let Some(step) = clicked_step(&response)
        && let Err(e) = state.go_to_kept_step(step)
    {
        state.sim.branching.note = Some(e);
    }
}
