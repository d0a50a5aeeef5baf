//! The Inspector: everything the world reports about the selected body.

use crate::editor::state::EditorState;
use atoll_physics::{Shape, Vec3};
use egui::{Grid, RichText};

/// Draws the inspector of the selected body (or a hint when nothing is selected).
pub fn show(ui: &mut egui::Ui, state: &EditorState) {
    let Some(id) = state.selected else {
        ui.weak("Click a body in the viewport or the Scene list.");
        return;
    };
    let world = &state.world;
    let Ok(body) = world.body(id) else {
        ui.weak("The selected body no longer exists.");
        return;
    };
    let euler = {
        let (x, y, z) = body.transform.rotation.to_euler(glam::EulerRot::XYZ);
        Vec3::new(x, y, z) * (180.0 / std::f32::consts::PI)
    };
    let touching = world.touching_contacts().filter(|c| c.body_a == id || c.body_b == id).count();
    let island = world.body_island(id).ok().flatten();
    let awake = world.is_awake(id).unwrap_or(false);

    ui.label(RichText::new(state.body_name(id)).strong());
    Grid::new("inspector").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        let mut row = |name: &str, value: String| {
            ui.label(name);
            ui.monospace(value);
            ui.end_row();
        };
        row("id", id.index().to_string());
        row("type", format!("{:?}", body.body_type));
        row("shape", shape_text(body.shape));
        row("mass", format!("{:.3} kg", body.mass));
        let i = body.inertia;
        row("inertia", vec_text(Vec3::new(i.x_axis.x, i.y_axis.y, i.z_axis.z)));
        row("position", vec_text(body.transform.position));
        row("rotation", format!("{} deg", vec_text(euler)));
        row("lin. velocity", vec_text(body.linear_velocity));
        row("ang. velocity", vec_text(body.angular_velocity));
        row("island", island.map_or("-".into(), |i| i.to_string()));
        row("sleep timer", format!("{:.3} s", world.sleep_timer(id).unwrap_or(0.0)));
        row("state", if awake { "awake".into() } else { "asleep".into() });
        row("touching", format!("{touching} contacts"));
        match world.water_contact(id).ok().flatten() {
            Some(w) => {
                row(
                    "submerged",
                    format!("{:.1} % ({:.3} m3)", w.submerged_fraction * 100.0, w.submerged_volume),
                );
                row("buoyancy", format!("{} N", vec_text(w.buoyancy)));
                row("buoyancy at", vec_text(w.center_of_buoyancy));
            }
            None => row("submerged", "dry".into()),
        }
        let m = body.material;
        row("density", format!("{:.0} kg/m3", m.density));
        row("friction", format!("{:.2}", m.friction));
        row("restitution", format!("{:.2}", m.restitution));
    });
}

fn vec_text(v: Vec3) -> String {
    format!("{:8.3} {:8.3} {:8.3}", v.x, v.y, v.z)
}

fn shape_text(shape: &Shape) -> String {
    match shape {
        Shape::Sphere { radius } => format!("sphere r {radius:.3}"),
        Shape::Capsule { half_height, radius } => format!("capsule h/2 {half_height:.3} r {radius:.3}"),
        Shape::Cuboid { half_extents: h } => format!("box half {:.3} x {:.3} x {:.3}", h.x, h.y, h.z),
        Shape::Hull(hull) => format!("hull, {} vertices", hull.vertices().len()),
    }
}
