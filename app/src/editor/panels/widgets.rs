//! Small widgets the inspection panels share: labelled number rows and vector text. A leaf, so
//! the body and joint inspectors both use it without importing each other.

use atoll_physics::Vec3;
use egui::DragValue;

/// A labelled number field. Returns the response and the new value when it changed. The field
/// takes any number, even an invalid one, so that the engine's refusal can say why.
pub fn number_row(
    ui: &mut egui::Ui,
    label: &str,
    value: f32,
    speed: f64,
    suffix: &str,
) -> Option<(egui::Response, f32)> {
    let label_response = ui.label(label);
    let mut v = value;
    let r = ui
        .add(DragValue::new(&mut v).speed(speed).suffix(suffix).max_decimals(4))
        .labelled_by(label_response.id);
    ui.end_row();
    (r.changed() && v.to_bits() != value.to_bits()).then_some((r, v))
}

/// A labelled row of three number fields (named "`name` x" and so on for accessibility).
/// Returns the response of the one that changed, if any, and the new vector.
pub fn vec3_row(
    ui: &mut egui::Ui,
    label: &str,
    value: Vec3,
    speed: f64,
    name: &str,
) -> (Option<egui::Response>, Vec3) {
    ui.label(label);
    let mut v = value;
    let mut changed = None;
    ui.horizontal(|ui| {
        for (axis, component) in ["x", "y", "z"].into_iter().zip(v.as_mut()) {
            let r = ui.add(DragValue::new(component).speed(speed).max_decimals(4).prefix(format!("{axis} ")));
            let r = r.on_hover_text(format!("{name} {axis}"));
            if r.changed() {
                changed = Some(r);
            }
        }
    });
    ui.end_row();
    (changed.filter(|_| v != value), v)
}

/// A vector as three aligned numbers.
pub fn vec_text(v: Vec3) -> String {
    format!("{:8.3} {:8.3} {:8.3}", v.x, v.y, v.z)
}
