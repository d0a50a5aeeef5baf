//! Islands: the live islands in a table sortable by any column; clicking a row highlights the
//! island's bodies and frames them.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use atoll_physics::world::IslandView;
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
