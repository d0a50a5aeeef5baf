//! The Inspector: every property of the selection, editable, and what the world reports about
//! the primary body (mass, island, sleep, contacts, water), with the kept steps at which the
//! step held it back (slowed to a speed cap, or stopped for a non-finite state), each with a
//! button that goes there.
//!
//! An edit applies to every selected body (a position moves them all by the same amount) as one
//! undo step; dragging a field keeps extending that step until the button is released. A value
//! the engine refuses (a negative size, NaN) is not applied: the field shows the reason.

use super::panel::{Dock, Panel, PanelContext};
use super::widgets::{bits_row, integer_row, number_row, vec_text, vec3_row};
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use crate::editor::undo::MergeKey;
use atoll_physics::scene::SceneChild;
use atoll_physics::{BodyFaultKind, BodyId, BodyType, Quat, SceneBody, SceneShape, Sensor, Vec3};
use egui::{Grid, RichText};

/// One property change, applied to each selected body.
type Change = Box<dyn Fn(&mut SceneBody)>;

/// Draws the inspector of the selection (or a hint when nothing is selected).
pub fn show(ui: &mut egui::Ui, state: &mut EditorState) {
    if let Some(joint) = state.doc.selection.joint() {
        super::joint_inspector::show(ui, state, joint);
        return;
    }
    let Some(id) = state.selected() else {
        ui.weak("Click a body in the viewport or the Scene list (Shift+click adds to the selection).");
        return;
    };
    let Ok(mut body) = SceneBody::from_world(&state.sim.world, id) else {
        ui.weak("The selected body no longer exists.");
        return;
    };
    let meta = state.doc.entities.meta_of(id);
    body.name = meta.name;
    body.colour = meta.colour;
    let count = state.doc.selection.ids().len();
    if count > 1 {
        ui.label(RichText::new(format!("{count} bodies selected: edits apply to all")).italics());
    }

    let mut changes: Vec<(String, MergeKey, Change)> = Vec::new();
    Grid::new("inspector edit").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        edit_rows(ui, &body, &mut changes);
    });
    // Between the body's rows and its children's, near whichever field was refused.
    if let Some(notice) = state.diag.notices.message(NoticePlace::Inspector) {
        ui.colored_label(ui.visuals().error_fg_color, notice);
    }
    children_rows(ui, &body, &mut changes);
    for (field, merge, change) in changes {
        let label = format!("set {field}");
        match state.change_selection(&label, Some(merge), |b| change(b)) {
            Ok(()) => state.diag.notices.clear(NoticePlace::Inspector),
            Err(reason) => {
                state.diag.notices.report(NoticePlace::Inspector, format!("{field}: refused, {reason}"))
            }
        }
    }
    ui.separator();
    facts(ui, state, id);
    held_back(ui, state, id);
    super::why_awake::show(ui, state, id);
    super::body_history::show(ui, state, id);
}

/// The editable rows; each changed field adds its change.
fn edit_rows(ui: &mut egui::Ui, body: &SceneBody, changes: &mut Vec<(String, MergeKey, Change)>) {
    let mut push = |field: &str, response: &egui::Response, change: Change| {
        changes.push((field.to_string(), MergeKey(response.id.value()), change));
    };

    ui.label("name");
    let mut name = body.name.clone();
    let r = ui.add(egui::TextEdit::singleline(&mut name).desired_width(160.0));
    if r.changed() {
        push("name", &r, Box::new(move |b| b.name = name.clone()));
    }
    ui.end_row();

    ui.label("type");
    let mut body_type = body.body_type;
    let r = egui::ComboBox::from_id_salt("body type")
        .selected_text(format!("{body_type:?}"))
        .show_ui(ui, |ui| {
            for t in [BodyType::Static, BodyType::Kinematic, BodyType::Dynamic] {
                ui.selectable_value(&mut body_type, t, format!("{t:?}"));
            }
        })
        .response;
    if body_type != body.body_type {
        push("type", &r, Box::new(move |b| b.body_type = body_type));
    }
    ui.end_row();

    shape_rows(ui, &body.shape, Part::Own, &mut push);

    let (r, position) = vec3_row(ui, "position", body.position, 0.01, "position");
    if let Some(r) = r {
        // Several bodies move together by the same amount, keeping their arrangement.
        let delta = position - body.position;
        push("position", &r, Box::new(move |b| b.position += delta));
    }
    let euler = euler_degrees(body.rotation);
    let (r, new_euler) = vec3_row(ui, "rotation (deg)", euler, 0.5, "rotation");
    if let Some(r) = r {
        let rotation = from_euler_degrees(new_euler);
        push("rotation", &r, Box::new(move |b| b.rotation = rotation));
    }
    let (r, v) = vec3_row(ui, "lin. velocity", body.linear_velocity, 0.05, "linear velocity");
    if let Some(r) = r {
        push("linear velocity", &r, Box::new(move |b| b.linear_velocity = v));
    }
    let (r, w) = vec3_row(ui, "ang. velocity", body.angular_velocity, 0.05, "angular velocity");
    if let Some(r) = r {
        push("angular velocity", &r, Box::new(move |b| b.angular_velocity = w));
    }

    let m = body.material;
    if let Some((r, v)) = number_row(ui, "density", m.density, 1.0, " kg/m3") {
        push("density", &r, Box::new(move |b| b.material.density = v));
    }
    if let Some((r, v)) = number_row(ui, "friction", m.friction, 0.01, "") {
        push("friction", &r, Box::new(move |b| b.material.friction = v));
    }
    if let Some((r, v)) = number_row(ui, "restitution", m.restitution, 0.01, "") {
        push("restitution", &r, Box::new(move |b| b.material.restitution = v));
    }
    // Collision filter: categories and mask as bits, the group as a number (Box2D's rule:
    // a shared positive group always collides, a shared negative one never).
    let f = body.filter;
    if let Some((r, v)) = bits_row(ui, "category", f.category) {
        push("category", &r, Box::new(move |b| b.filter.category = v));
    }
    if let Some((r, v)) = bits_row(ui, "collides with", f.mask) {
        push("mask", &r, Box::new(move |b| b.filter.mask = v));
    }
    if let Some((r, v)) = integer_row(ui, "group", f.group) {
        push("group", &r, Box::new(move |b| b.filter.group = v));
    }
    let label = ui.label("sensor");
    ui.horizontal(|ui| {
        let mut sensor = body.sensor.is_some();
        let r = ui.checkbox(&mut sensor, "").labelled_by(label.id);
        let r = r.on_hover_text("Reports what overlaps it and pushes nothing");
        if r.changed() {
            let new = sensor.then(Sensor::default);
            push("sensor", &r, Box::new(move |b| b.sensor = new));
        }
        if let Some(spec) = body.sensor {
            let mut detect_static = spec.detect_static;
            let r = ui.checkbox(&mut detect_static, "sees static bodies");
            if r.changed() {
                push("sensor", &r, Box::new(move |b| b.sensor = Some(Sensor { detect_static })));
            }
        }
    });
    ui.end_row();
    if let Some((r, v)) = number_row(ui, "lin. damping", body.linear_damping, 0.01, " 1/s") {
        push("linear damping", &r, Box::new(move |b| b.linear_damping = v));
    }
    if let Some((r, v)) = number_row(ui, "ang. damping", body.angular_damping, 0.01, " 1/s") {
        push("angular damping", &r, Box::new(move |b| b.angular_damping = v));
    }
    if let Some((r, v)) = number_row(ui, "gravity scale", body.gravity_scale, 0.01, "") {
        push("gravity scale", &r, Box::new(move |b| b.gravity_scale = v));
    }

    ui.label("can sleep");
    let mut can_sleep = body.can_sleep;
    let r = ui.checkbox(&mut can_sleep, "");
    if r.changed() {
        push("can sleep", &r, Box::new(move |b| b.can_sleep = can_sleep));
    }
    ui.end_row();

    ui.label("colour");
    ui.horizontal(|ui| {
        let mut own = body.colour.is_some();
        let r = ui.checkbox(&mut own, "own").on_hover_text("Off: a palette colour picked by the editor");
        if r.changed() {
            let colour = own.then_some([200, 120, 60]);
            push("colour", &r, Box::new(move |b| b.colour = colour));
        }
        if let Some(mut rgb) = body.colour {
            let r = ui.color_edit_button_srgb(&mut rgb);
            if r.changed() {
                push("colour", &r, Box::new(move |b| b.colour = Some(rgb)));
            }
        }
    });
    ui.end_row();
}

/// A compound body's further shapes, each with its shape, pose in the body's frame, material,
/// filter and sensor flag, editable as the body's own fields are.
fn children_rows(ui: &mut egui::Ui, body: &SceneBody, changes: &mut Vec<(String, MergeKey, Change)>) {
    if body.children.is_empty() {
        return;
    }
    let mut push = |field: &str, response: &egui::Response, change: Change| {
        changes.push((field.to_string(), MergeKey(response.id.value()), change));
    };
    let title = format!("Children ({} shapes beside its own)", body.children.len());
    egui::CollapsingHeader::new(title).id_salt("inspector children").default_open(true).show(ui, |ui| {
        for (k, child) in body.children.iter().enumerate() {
            ui.push_id(("child", k), |ui| {
                ui.label(RichText::new(format!("child {}", k + 1)).strong());
                Grid::new("child edit").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
                    child_rows(ui, child, k, &mut push);
                });
            });
        }
    });
}

/// The rows of child `k` of the selected body.
fn child_rows(
    ui: &mut egui::Ui,
    child: &SceneChild,
    k: usize,
    push: &mut impl FnMut(&str, &egui::Response, Change),
) {
    let part = Part::Child(k);
    // Applies `f` to child `k` of each selected body that has one.
    fn on_child(k: usize, f: impl Fn(&mut SceneChild) + 'static) -> Change {
        Box::new(move |b| {
            if let Some(c) = b.children.get_mut(k) {
                f(c);
            }
        })
    }
    shape_rows(ui, &child.shape, part, push);
    let (r, position) = vec3_row(ui, "position", child.position, 0.01, "child position");
    if let Some(r) = r {
        push(&part.field("position"), &r, on_child(k, move |c| c.position = position));
    }
    let (r, euler) = vec3_row(ui, "rotation (deg)", euler_degrees(child.rotation), 0.5, "child rotation");
    if let Some(r) = r {
        let rotation = from_euler_degrees(euler);
        push(&part.field("rotation"), &r, on_child(k, move |c| c.rotation = rotation));
    }
    let m = child.material;
    if let Some((r, v)) = number_row(ui, "density", m.density, 1.0, " kg/m3") {
        push(&part.field("density"), &r, on_child(k, move |c| c.material.density = v));
    }
    if let Some((r, v)) = number_row(ui, "friction", m.friction, 0.01, "") {
        push(&part.field("friction"), &r, on_child(k, move |c| c.material.friction = v));
    }
    if let Some((r, v)) = number_row(ui, "restitution", m.restitution, 0.01, "") {
        push(&part.field("restitution"), &r, on_child(k, move |c| c.material.restitution = v));
    }
    let f = child.filter;
    if let Some((r, v)) = bits_row(ui, "category", f.category) {
        push(&part.field("category"), &r, on_child(k, move |c| c.filter.category = v));
    }
    if let Some((r, v)) = bits_row(ui, "collides with", f.mask) {
        push(&part.field("mask"), &r, on_child(k, move |c| c.filter.mask = v));
    }
    if let Some((r, v)) = integer_row(ui, "group", f.group) {
        push(&part.field("group"), &r, on_child(k, move |c| c.filter.group = v));
    }
    let label = ui.label("sensor");
    let mut sensor = child.sensor.is_some();
    let r = ui.checkbox(&mut sensor, "").labelled_by(label.id);
    if r.changed() {
        let new = sensor.then(Sensor::default);
        push(&part.field("sensor"), &r, on_child(k, move |c| c.sensor = new));
    }
    ui.end_row();
}

/// Which of a body's shapes a row edits: its own, or its child `k` (0-based in
/// `SceneBody::children`).
#[derive(Clone, Copy)]
enum Part {
    Own,
    Child(usize),
}

impl Part {
    /// Gives the part `shape` (a body without that child is left as it is: the selection may
    /// hold bodies with fewer children).
    fn set_shape(self, b: &mut SceneBody, shape: SceneShape) {
        match self {
            Part::Own => b.shape = shape,
            Part::Child(k) => {
                if let Some(c) = b.children.get_mut(k) {
                    c.shape = shape;
                }
            }
        }
    }

    /// The field name a refused edit reports.
    fn field(self, name: &str) -> String {
        match self {
            Part::Own => name.to_string(),
            Part::Child(k) => format!("child {} {name}", k + 1),
        }
    }
}

/// The shape's kind and sizes. A new kind keeps the body's size roughly.
fn shape_rows(
    ui: &mut egui::Ui,
    shape: &SceneShape,
    part: Part,
    push: &mut impl FnMut(&str, &egui::Response, Change),
) {
    let size = match shape {
        SceneShape::Sphere { radius } => *radius,
        SceneShape::Capsule { radius, .. } => *radius,
        SceneShape::Box { half_extents } => half_extents.max_element(),
        SceneShape::Hull { points } => points.iter().map(|p| p.length()).fold(0.0, f32::max),
    };
    ui.label("shape");
    let kinds = [
        ("sphere", SceneShape::Sphere { radius: size }),
        ("capsule", SceneShape::Capsule { half_height: size, radius: size }),
        ("box", SceneShape::Box { half_extents: Vec3::splat(size) }),
    ];
    let current = match shape {
        SceneShape::Sphere { .. } => "sphere",
        SceneShape::Capsule { .. } => "capsule",
        SceneShape::Box { .. } => "box",
        SceneShape::Hull { .. } => "hull",
    };
    let mut chosen = None;
    let r = egui::ComboBox::from_id_salt(("shape kind", part.field("")))
        .selected_text(current)
        .show_ui(ui, |ui| {
            for (label, kind) in &kinds {
                if ui.selectable_label(*label == current, *label).clicked() && *label != current {
                    chosen = Some(kind.clone());
                }
            }
        })
        .response;
    if let Some(kind) = chosen {
        push(&part.field("shape"), &r, Box::new(move |b| part.set_shape(b, kind.clone())));
    }
    ui.end_row();
    match shape.clone() {
        SceneShape::Sphere { radius } => {
            if let Some((r, v)) = number_row(ui, "radius", radius, 0.01, " m") {
                let shape = SceneShape::Sphere { radius: v };
                push(&part.field("sphere radius"), &r, Box::new(move |b| part.set_shape(b, shape.clone())));
            }
        }
        SceneShape::Capsule { half_height, radius } => {
            if let Some((r, v)) = number_row(ui, "half height", half_height, 0.01, " m") {
                let shape = SceneShape::Capsule { half_height: v, radius };
                push(
                    &part.field("capsule half height"),
                    &r,
                    Box::new(move |b| part.set_shape(b, shape.clone())),
                );
            }
            if let Some((r, v)) = number_row(ui, "radius", radius, 0.01, " m") {
                let shape = SceneShape::Capsule { half_height, radius: v };
                push(&part.field("capsule radius"), &r, Box::new(move |b| part.set_shape(b, shape.clone())));
            }
        }
        SceneShape::Box { half_extents } => {
            let (r, v) = vec3_row(ui, "half extents", half_extents, 0.01, "half extents");
            if let Some(r) = r {
                let shape = SceneShape::Box { half_extents: v };
                push(
                    &part.field("box half extents"),
                    &r,
                    Box::new(move |b| part.set_shape(b, shape.clone())),
                );
            }
        }
        SceneShape::Hull { points } => {
            ui.label("hull");
            ui.monospace(format!("{} points", points.len()));
            ui.end_row();
        }
    }
}

fn euler_degrees(q: Quat) -> Vec3 {
    let (x, y, z) = q.to_euler(glam::EulerRot::XYZ);
    // Adding zero turns -0.0 into 0.0, which the fields would show as "-0.0".
    Vec3::new(x, y, z).map(|a| a.to_degrees() + 0.0)
}

fn from_euler_degrees(e: Vec3) -> Quat {
    let r = e.map(f32::to_radians);
    Quat::from_euler(glam::EulerRot::XYZ, r.x, r.y, r.z).normalize()
}

/// What the world reports about the primary body beyond its editable properties.
fn facts(ui: &mut egui::Ui, state: &EditorState, id: BodyId) {
    let world = &state.sim.world;
    let Ok(body) = world.body(id) else { return };
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
        row("mass", format!("{:.3} kg", body.mass));
        let i = body.inertia;
        row("inertia", vec_text(Vec3::new(i.x_axis.x, i.y_axis.y, i.z_axis.z)));
        row("island", island.map_or("-".into(), |i| i.index().to_string()));
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
    });
}

/// The row of the kept steps at which the step held body `id` back as `kind`, if it did: "capped
/// at step 412 (and 37 more)", "stopped at step 9 (non-finite)". The first such step is named,
/// since what went wrong starts there; the count says whether it went on.
pub fn held_back_text(state: &EditorState, id: BodyId, kind: BodyFaultKind) -> Option<(String, u64)> {
    let held = state.sim.timeline.history.held_back(id, kind)?;
    let more = held.steps - 1;
    let text = match (kind, more) {
        (BodyFaultKind::Capped, 0) => format!("capped at step {}", held.first),
        (BodyFaultKind::Capped, n) => format!("capped at step {} (and {n} more)", held.first),
        (BodyFaultKind::NonFinite, 0) => format!("stopped at step {} (non-finite)", held.first),
        (BodyFaultKind::NonFinite, n) => format!("stopped at step {} (non-finite; and {n} more)", held.first),
    };
    Some((text, held.first))
}

/// Where the kept steps held body `id` back, a stop before a cap (the graver), each row in the
/// timeline's colour of its mark and with a button that goes to the step it names.
fn held_back(ui: &mut egui::Ui, state: &mut EditorState, id: BodyId) {
    use super::timeline::{CAPPED_COLOUR, STOP_COLOUR};
    let rows: Vec<_> = [(BodyFaultKind::NonFinite, STOP_COLOUR), (BodyFaultKind::Capped, CAPPED_COLOUR)]
        .into_iter()
        .filter_map(|(kind, colour)| Some((held_back_text(state, id, kind)?, colour)))
        .collect();
    if rows.is_empty() {
        return;
    }
    ui.add_space(4.0);
    ui.label(RichText::new("Held back by the step").strong()).on_hover_text(
        "Kept steps at which the solve drove this body past a speed cap (Settings) and it was slowed \
         to it, or its state turned non-finite and it was stopped where the step began, its joints \
         disabled",
    );
    let mut go_to = None;
    for ((text, step), colour) in rows {
        ui.horizontal(|ui| {
            ui.label(RichText::new(text).color(colour));
            if ui
                .button(format!("go to step {step}"))
                .on_hover_text("Go to that step on the timeline")
                .clicked()
            {
                go_to = Some(step);
            }
        });
    }
    if let Some(step) = go_to
        && let Err(e) = state.go_to_step(step)
    {
        state.diag.notices.report(NoticePlace::ErrorWindow, e);
    }
}

/// The Inspector panel.
#[derive(Default)]
pub struct InspectorPanel;

impl Panel for InspectorPanel {
    fn name(&self) -> &'static str {
        "Inspector"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn default_open(&self) -> bool {
        true
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state);
    }
}
