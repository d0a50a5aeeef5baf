//! Sensors: every sensor of the scene with the bodies overlapping it now, and the bodies that
//! entered or left it in the last step. A name selects its body.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use atoll_physics::BodyId;
use egui::RichText;

/// Draws the sensors and their overlaps; returns the body whose name was clicked, if any.
fn show(ui: &mut egui::Ui, state: &EditorState) -> Option<BodyId> {
    let world = &state.sim.world;
    let sensors: Vec<BodyId> = world.sensors().collect();
    if sensors.is_empty() {
        ui.weak("No sensors. Tick \"sensor\" in the Inspector to make a body one.");
        return None;
    }
    let mut pick = None;
    let mut name_button = |ui: &mut egui::Ui, id: BodyId| {
        if ui.small_button(state.body_name(id)).clicked() {
            pick = Some(id);
        }
    };
    for sensor in sensors {
        let visitors = world.sensor_overlaps(sensor).unwrap_or(&[]);
        ui.horizontal_wrapped(|ui| {
            name_button(ui, sensor);
            ui.label(RichText::new(format!("{} inside", visitors.len())).weak());
            for &visitor in visitors {
                name_button(ui, visitor);
            }
        });
    }
    let events = world.sensor_events();
    if !events.is_empty() {
        ui.separator();
        ui.label(format!("last step, step {}:", world.step_count()));
        for e in events {
            let verb = if e.began { "entered" } else { "left" };
            ui.label(format!("{} {verb} {}", state.body_name(e.visitor), state.body_name(e.sensor)));
        }
    }
    pick
}

/// The Sensors panel.
#[derive(Default)]
pub struct SensorsPanel;

impl Panel for SensorsPanel {
    fn name(&self) -> &'static str {
        "Sensors"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        if let Some(id) = show(ui, cx.state) {
            cx.state.doc.selection.set(Some(id));
        }
    }
}
