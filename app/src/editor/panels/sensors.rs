//! Sensors: every sensor shape of the scene (a body's own, or a compound's part) with the
//! bodies overlapping it now, and the bodies that entered or left it in the last step. A name
//! selects its body.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use atoll_physics::{BodyId, ShapeId};
use egui::RichText;

/// Draws the sensors and their overlaps; returns the body whose name was clicked, if any.
fn show(ui: &mut egui::Ui, state: &EditorState) -> Option<BodyId> {
    let world = &state.sim.world;
    let sensors: Vec<ShapeId> = world.sensors().collect();
    if sensors.is_empty() {
        ui.weak("No sensors. Tick \"sensor\" in the Inspector to make a body one.");
        return None;
    }
    let mut pick = None;
    let mut name_button = |ui: &mut egui::Ui, id: BodyId, label: String| {
        if ui.small_button(label).clicked() {
            pick = Some(id);
        }
    };
    for sensor in sensors {
        let visitors = world.sensor_overlaps(sensor).unwrap_or(&[]);
        ui.horizontal_wrapped(|ui| {
            name_button(ui, sensor.body, sensor_name(state, sensor));
            ui.label(RichText::new(format!("{} inside", visitors.len())).weak());
            for &visitor in visitors {
                name_button(ui, visitor, state.body_name(visitor));
            }
        });
    }
    let events = world.sensor_events();
    if !events.is_empty() {
        ui.separator();
        ui.label(format!("last step, step {}:", world.step_count()));
        for e in events {
            let verb = if e.began { "entered" } else { "left" };
            ui.label(format!("{} {verb} {}", state.body_name(e.visitor), sensor_name(state, e.sensor)));
        }
    }
    pick
}

/// A sensor shape's name: its body's, and which part when it is not the body's own shape.
fn sensor_name(state: &EditorState, sensor: ShapeId) -> String {
    match sensor.part {
        0 => state.body_name(sensor.body),
        part => format!("{} part {part}", state.body_name(sensor.body)),
    }
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
