//! The Scene list: every body by name, filtered by a search text; a click selects, Shift or
//! Ctrl + click adds to the selection.

use crate::editor::state::EditorState;
use egui::ScrollArea;

/// Draws the filter box and the body list.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, filter: &mut String) {
    ui.horizontal(|ui| {
        ui.label("Filter");
        ui.add(egui::TextEdit::singleline(filter).hint_text("filter by name").desired_width(f32::INFINITY));
    });
    let needle = filter.to_lowercase();
    let rows: Vec<_> = state
        .world
        .body_ids()
        .map(|id| (id, state.body_name(id)))
        .filter(|(_, name)| needle.is_empty() || name.to_lowercase().contains(&needle))
        .collect();
    ui.weak(format!("{} of {} bodies", rows.len(), state.world.body_count()));
    ui.separator();
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 2.0;
    ScrollArea::vertical().id_salt("scene list").auto_shrink(false).show_rows(
        ui,
        row_height,
        rows.len(),
        |ui, range| {
            for (id, name) in &rows[range] {
                let asleep = !state.world.is_awake(*id).unwrap_or(true);
                let text = if asleep { egui::RichText::new(name).weak() } else { egui::RichText::new(name) };
                let response = ui.selectable_label(state.selection.contains(*id), text);
                if response.clicked() {
                    let add = ui.input(|i| i.modifiers.shift || i.modifiers.command);
                    if add {
                        state.selection.toggle(*id);
                    } else if state.selection.ids() == [*id] {
                        state.selection.set(None);
                    } else {
                        state.selection.set(Some(*id));
                    }
                }
            }
        },
    );
}
