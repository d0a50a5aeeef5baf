//! Islands: the live islands in a table sortable by any column; clicking a row highlights the
//! island's bodies and frames them. The selected island's solve can be watched: how fast its
//! contacts' points still approach after each pass of each substep of the step shown (the
//! engine's island trace, `World::set_traced_island`), which the relax is to bring to rest.

use super::panel::{Dock, Panel, PanelContext};
use super::widgets::still_plot;
use crate::editor::state::EditorState;
use atoll_physics::world::IslandView;
use atoll_physics::{IslandId, TracePass};
use egui::{Grid, ScrollArea};
use std::cmp::Ordering;

/// Most rows drawn; the scenes with thousands of one-body islands would otherwise cost frames.
const MAX_ROWS: usize = 500;

/// A column of the islands table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Column {
    /// Island id.
    #[default]
    Id,
    /// Body count.
    Bodies,
    /// Touching contact count.
    Contacts,
    /// Enabled joint count.
    Joints,
    /// Awake or asleep.
    Awake,
    /// Smallest sleep timer.
    SleepTimer,
    /// May-split flag.
    MaySplit,
}

impl Column {
    const ALL: [Column; 7] = [
        Column::Id,
        Column::Bodies,
        Column::Contacts,
        Column::Joints,
        Column::Awake,
        Column::SleepTimer,
        Column::MaySplit,
    ];

    fn title(self) -> &'static str {
        match self {
            Column::Id => "id",
            Column::Bodies => "bodies",
            Column::Contacts => "contacts",
            Column::Joints => "joints",
            Column::Awake => "awake",
            Column::SleepTimer => "min sleep",
            Column::MaySplit => "may split",
        }
    }

    fn compare(self, a: &IslandView, b: &IslandView) -> Ordering {
        match self {
            Column::Id => a.id.cmp(&b.id),
            Column::Bodies => a.body_count.cmp(&b.body_count),
            Column::Contacts => a.contact_count.cmp(&b.contact_count),
            Column::Joints => a.joint_count.cmp(&b.joint_count),
            Column::Awake => a.awake.cmp(&b.awake),
            Column::SleepTimer => a.min_sleep_timer.total_cmp(&b.min_sleep_timer),
            Column::MaySplit => a.may_split.cmp(&b.may_split),
        }
        // Ties in id order, so the list does not shuffle between frames.
        .then(a.id.cmp(&b.id))
    }
}

/// How the table is sorted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IslandSort {
    /// The column sorted by.
    pub column: Column,
    /// Largest first.
    pub descending: bool,
}

/// Draws the islands table.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, sort: &mut IslandSort) {
    let mut islands: Vec<IslandView> = state.sim.world.islands().collect();
    islands.sort_by(|a, b| {
        let order = sort.column.compare(a, b);
        if sort.descending { order.reverse() } else { order }
    });
    let awake = islands.iter().filter(|i| i.awake).count();
    ui.label(format!("{} islands, {awake} awake", islands.len()));
    let mut clicked = None;
    ScrollArea::vertical().id_salt("islands scroll").max_height(260.0).show(ui, |ui| {
        Grid::new("islands table").num_columns(7).striped(true).spacing([12.0, 2.0]).show(ui, |ui| {
            for column in Column::ALL {
                let arrow = match (sort.column == column, sort.descending) {
                    (true, false) => " ^",
                    (true, true) => " v",
                    (false, _) => "",
                };
                let header = ui.selectable_label(sort.column == column, format!("{}{arrow}", column.title()));
                if header.on_hover_text("Sort by this column; click again to reverse").clicked() {
                    if sort.column == column {
                        sort.descending = !sort.descending;
                    } else {
                        *sort = IslandSort { column, descending: false };
                    }
                }
            }
            ui.end_row();
            for island in islands.iter().take(MAX_ROWS) {
                let selected = state.view.selected_island == Some(island.id);
                if ui.selectable_label(selected, island.id.index().to_string()).clicked() {
                    clicked = Some(if selected { None } else { Some(island.id) });
                }
                ui.monospace(island.body_count.to_string());
                ui.monospace(island.contact_count.to_string());
                ui.monospace(island.joint_count.to_string());
                ui.label(if island.awake { "awake" } else { "asleep" });
                ui.monospace(format!("{:.2} s", island.min_sleep_timer));
                ui.label(if island.may_split { "yes" } else { "" });
                ui.end_row();
            }
        });
    });
    if islands.len() > MAX_ROWS {
        ui.weak(format!("showing {MAX_ROWS} of {}", islands.len()));
    }
    if let Some(choice) = clicked {
        state.select_island(choice);
        state.frame_highlighted();
    }
    solver_view(ui, state);
}

/// The largest approach speed's line colour (sRGB), which tests look for.
pub const APPROACH_COLOUR: [u8; 3] = [250, 120, 90];

/// The selected island's solve, pass by pass: a switch to watch it, and its velocity error
/// through the step shown.
fn solver_view(ui: &mut egui::Ui, state: &mut EditorState) {
    let Some(island) = state.view.selected_island else { return };
    let watched = state.sim.world.traced_island();
    let mut on = watched == Some(island);
    if ui
        .checkbox(&mut on, "watch this island's solve")
        .on_hover_text(
            "Its velocity error after each pass of each substep (the solve runs on one thread meanwhile)",
        )
        .changed()
    {
        let _ = state.sim.world.set_traced_island(on.then_some(island));
    }
    if !on {
        return;
    }
    let Some(trace) = state.sim.world.island_trace().filter(|t| t.island == island) else {
        let step = state.sim.world.step_count();
        let (first, _) = state.sim.timeline.range();
        if step > first && ui.button(format!("Trace step {step} substep by substep")).clicked() {
            if let Err(e) = state.trace_step_shown() {
                state.sim.branching.note = Some(e);
            }
        } else {
            ui.weak("Step to trace the island's solve.");
        }
        return;
    };
    let last = trace.substeps.iter().rev().find(|s| s.pass == TracePass::Relax);
    ui.label(format!(
        "island {} through step {}: {} touching pairs; after the last relax, points approach at {:.3} mm/s at most",
        island_number(island),
        state.sim.world.step_count(),
        trace.contacts,
        last.map_or(0.0, |s| s.max_approach * 1e3),
    ));
    // The passes in order along x: substep k's solve at k, its relax at k + 0.5.
    let x = |s: &atoll_physics::IslandSubstep| {
        f64::from(s.substep) + if s.pass == TracePass::Relax { 0.5 } else { 0.0 }
    };
    let max: Vec<[f64; 2]> = trace.substeps.iter().map(|s| [x(s), f64::from(s.max_approach) * 1e3]).collect();
    let mean: Vec<[f64; 2]> =
        trace.substeps.iter().map(|s| [x(s), f64::from(s.mean_approach) * 1e3]).collect();
    let [r, g, b] = APPROACH_COLOUR;
    still_plot("island velocity error", 110.0, egui_plot::Corner::RightTop).show(ui, |p| {
        p.line(
            egui_plot::Line::new("largest approach (mm/s)", max)
                .color(egui::Color32::from_rgb(r, g, b))
                .width(2.0),
        );
        p.line(
            egui_plot::Line::new("mean approach (mm/s)", mean)
                .color(egui::Color32::from_rgb(90, 170, 250))
                .width(2.0),
        );
    });
    ui.weak("x: substep (its solve pass at the whole number, its relax half a substep on)");
}

/// The number an island is shown by in the table.
fn island_number(id: IslandId) -> u32 {
    id.index()
}

/// The Islands panel.
#[derive(Default)]
pub struct IslandsPanel {
    /// The table's sort order.
    pub sort: IslandSort,
}

impl Panel for IslandsPanel {
    fn name(&self) -> &'static str {
        "Islands"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state, &mut self.sort);
    }
}
