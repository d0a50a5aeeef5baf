//! The Joint tool's palette: the tool's switch, every joint type, and what to click next.

use crate::editor::state::EditorState;
use atoll_physics::JointType;

/// Draws the Joint tool's switch and type palette.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState) {
    let mut active = state.joint_tool.active;
    let r = ui
        .toggle_value(&mut active, "Joint tool")
        .on_hover_text("Click a body (the anchor), then another body or empty space (the world) (J)");
    if r.changed() {
        state.joint_tool.set_active(active);
        if active {
            state.spawn_tool.active = false;
            state.terrain_tool.mode = None;
        }
    }
    ui.horizontal_wrapped(|ui| {
        for joint_type in JointType::ALL {
            ui.selectable_value(&mut state.joint_tool.joint_type, joint_type, joint_type.name());
        }
    });
    if state.joint_tool.active {
        ui.weak(state.joint_tool.hint());
    }
}
