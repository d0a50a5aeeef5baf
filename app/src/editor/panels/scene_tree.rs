//! The Scene list: every joint (by name, or its type and bodies) and every body by name, each
//! filtered by a search text; a click selects, Shift or Ctrl + click adds a body to the
//! selection.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use atoll_physics::JointId;
use egui::ScrollArea;

/// Most joint rows shown before the list scrolls.
const JOINT_LIST_HEIGHT: f32 = 160.0;

/// Draws the Joints section (when the scene has joints) with its filter, then the body list
/// with its filter.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, filter: &mut String, joint_filter: &mut String) {
    if state.sim.world.joint_count() > 0 {
        egui::CollapsingHeader::new(format!("Joints ({})", state.sim.world.joint_count()))
            .id_salt("joints section")
            .default_open(true)
            .show(ui, |ui| joints(ui, state, joint_filter));
    }
    bodies(ui, state, filter);
}

/// A joint's row text: its name, or its type and the bodies it links.
pub fn joint_label(state: &EditorState, id: JointId) -> String {
    let name = state.doc.entities.joint_name_of(id);
    let Ok(view) = state.sim.world.joint(id) else { return name };
    let side = |body: Option<atoll_physics::BodyId>| body.map_or("world".to_string(), |b| state.body_name(b));
    let links = format!("{} {} – {}", view.joint_type.name(), side(view.body_a), side(Some(view.body_b)));
    if name.is_empty() { links } else { format!("{name} ({links})") }
}

fn joints(ui: &mut egui::Ui, state: &mut EditorState, filter: &mut String) {
    ui.horizontal(|ui| {
        ui.label("Filter");
        ui.add(
            egui::TextEdit::singleline(filter)
                .id_salt("joint filter")
                .hint_text("name, type or body")
                .desired_width(f32::INFINITY),
        );
    });
    let needle = filter.to_lowercase();
    let rows: Vec<(JointId, String)> = state
        .sim
        .world
        .joint_ids()
        .map(|id| (id, joint_label(state, id)))
        .filter(|(_, label)| needle.is_empty() || label.to_lowercase().contains(&needle))
        .collect();
    ui.weak(format!("{} of {} joints", rows.len(), state.sim.world.joint_count()));
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 2.0;
    ScrollArea::vertical().id_salt("joint list").max_height(JOINT_LIST_HEIGHT).show_rows(
        ui,
        row_height,
        rows.len(),
        |ui, range| {
            for (id, label) in &rows[range] {
                let enabled = state.sim.world.joint(*id).is_ok_and(|v| v.enabled);
                let text =
                    if enabled { egui::RichText::new(label) } else { egui::RichText::new(label).weak() };
                let selected = state.doc.selection.joint() == Some(*id);
                if ui.selectable_label(selected, text).clicked() {
                    state.doc.selection.set_joint(if selected { None } else { Some(*id) });
                }
            }
        },
    );
    ui.separator();
}

fn bodies(ui: &mut egui::Ui, state: &mut EditorState, filter: &mut String) {
    ui.horizontal(|ui| {
        ui.label("Filter");
        ui.add(egui::TextEdit::singleline(filter).hint_text("filter by name").desired_width(f32::INFINITY));
    });
    let needle = filter.to_lowercase();
    let rows: Vec<_> = state
        .sim
        .world
        .body_ids()
        .map(|id| (id, state.body_name(id)))
        .filter(|(_, name)| needle.is_empty() || name.to_lowercase().contains(&needle))
        .collect();
    ui.weak(format!("{} of {} bodies", rows.len(), state.sim.world.body_count()));
    ui.separator();
    let row_height = ui.text_style_height(&egui::TextStyle::Body) + 2.0;
    ScrollArea::vertical().id_salt("scene list").auto_shrink(false).show_rows(
        ui,
        row_height,
        rows.len(),
        |ui, range| {
            for (id, name) in &rows[range] {
                let asleep = !state.sim.world.is_awake(*id).unwrap_or(true);
                let text = if asleep { egui::RichText::new(name).weak() } else { egui::RichText::new(name) };
                let response = ui.selectable_label(state.doc.selection.contains(*id), text);
                if response.clicked() {
                    let add = ui.input(|i| i.modifiers.shift || i.modifiers.command);
                    if add {
                        state.doc.selection.toggle(*id);
                    } else if state.doc.selection.ids() == [*id] {
                        state.doc.selection.set(None);
                    } else {
                        state.doc.selection.set(Some(*id));
                    }
                }
            }
        },
    );
}

/// The Scene panel.
#[derive(Default)]
pub struct ScenePanel {
    /// The name filter of the bodies.
    pub body_filter: String,
    /// The joint filter (name, type or body).
    pub joint_filter: String,
}

impl Panel for ScenePanel {
    fn name(&self) -> &'static str {
        "Scene"
    }

    fn dock(&self) -> Dock {
        Dock::Left
    }

    fn default_open(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state, &mut self.body_filter, &mut self.joint_filter);
    }
}
