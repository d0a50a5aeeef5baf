//! The Inspector of a selected joint: its type-specific settings (frames, axis, limits, motor,
//! spring), its options (enabled, collide connected, breaking), then what the world reports of
//! it (coordinate, force, torque, motor load, limit, island) and plots over the kept timeline
//! of its coordinate, force (the steps where a limit pushed marked), error and motor load.
//!
//! An edit is one undo step (a dragged field extends it until the button is released), applied
//! in place so a joint edited while the simulation runs keeps its warm start. A refused value
//! (a lower limit above the upper, a negative hertz) is not applied: the panel says why.

use super::widgets::{csv_row, number_row, vec_text, vec3_row};
use crate::editor::edit::JointRecord;
use crate::editor::joint_trace::JointSample;
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use crate::editor::undo::MergeKey;
use crate::render::joint_lines::JointState;
use atoll_physics::{
    JointFrame, JointId, JointKind, JointType, JointView, Limits, Motor, Quat, Spring, Vec3, World,
};
use egui::{Grid, RichText};
use egui_plot::{Line, Plot};

/// The field changed this frame: its name for the undo label and the refusal, and the widget
/// whose gesture it belongs to.
type Changed = Option<(String, egui::Id)>;

/// Draws the selected joint's Inspector.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, id: JointId) {
    let (Ok(record), Ok(view)) =
        (JointRecord::capture(&state.sim.world, &mut state.doc.entities, id), state.sim.world.joint(id))
    else {
        ui.weak("The selected joint no longer exists.");
        return;
    };
    let mut after = record.clone();
    let mut changed: Changed = None;
    let turns = Turns::of(&state.sim.world, &record);
    Grid::new("joint edit").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        let mut fields = Fields { ui, changed: &mut changed };
        fields.common(&mut after, &view, &turns);
        fields.kind(&mut after.desc.kind);
    });
    if let Some(notice) = state.diag.notices.message(NoticePlace::Inspector) {
        ui.colored_label(ui.visuals().error_fg_color, notice);
    }
    if let Some((field, widget)) = changed
        && after != record
    {
        let label = format!("set joint {field}");
        match state.change_selected_joint(&label, Some(MergeKey(widget.value())), |r| *r = after) {
            Ok(()) => state.diag.notices.clear(NoticePlace::Inspector),
            Err(reason) => {
                state.diag.notices.report(NoticePlace::Inspector, format!("{field}: refused, {reason}"))
            }
        }
    }
    ui.separator();
    readouts(ui, state, id);
    let trace = &mut state.diag.joint_trace;
    trace.follow(&state.sim.world, &state.sim.timeline.history, Some(id));
    if trace.fill_for(FILL_PER_FRAME) {
        ui.ctx().request_repaint();
    }
    plots(ui, state, id);
    substeps(ui, state, id);
}

/// "Save joint CSV" and the path it writes to (kept per joint), and what the last save did.
fn save_row(ui: &mut egui::Ui, samples: &[JointSample], id: JointId) {
    csv_row(
        ui,
        ("joint", id),
        "Save joint CSV",
        "The joint's history, one row a kept step",
        || std::env::temp_dir().join(format!("atoll-joint-{}.csv", id.index())).display().to_string(),
        |path| {
            save_joint_csv(path, samples)
                .map(|()| format!("saved {} steps of the joint to {}", samples.len(), path.display()))
        },
    );
}

/// Writes a joint's samples as CSV to `path`: the step, then every plotted series.
pub fn save_joint_csv(path: &std::path::Path, samples: &[JointSample]) -> std::io::Result<()> {
    let header = ["step", "position", "force_n", "anchors_apart_m", "motor_load", "limit_active"];
    let rows = samples.iter().map(|s| {
        [
            s.step.to_string(),
            s.position.to_string(),
            s.force.to_string(),
            s.error.to_string(),
            s.motor_load.to_string(),
            s.limit_active.to_string(),
        ]
    });
    crate::editor::csv::write_csv(path, &header, rows)
}

/// The joint through the step shown, pass by pass: a switch to trace it, and how fast its
/// anchors part after each solve and relax (the velocity error of its point rows).
fn substeps(ui: &mut egui::Ui, state: &mut EditorState, id: JointId) {
    let mut on = state.sim.world.traced_joints() == [id];
    if ui
        .checkbox(&mut on, "trace its substeps")
        .on_hover_text("How fast its anchors part after each pass of each substep (the solve runs on one thread meanwhile)")
        .changed()
    {
        let ids: &[JointId] = if on { &[id] } else { &[] };
        let _ = state.sim.world.set_traced_joints(ids);
    }
    if !on {
        return;
    }
    let trace =
        state.sim.world.joint_traces().iter().find(|t| t.joint == id).filter(|t| !t.substeps.is_empty());
    let Some(trace) = trace.cloned() else {
        let step = state.sim.world.step_count();
        let (first, _) = state.sim.timeline.range();
        if step > first && ui.button(format!("Trace step {step} substep by substep")).clicked() {
            if let Err(e) = state.trace_step_shown() {
                state.diag.notices.report(NoticePlace::Inspector, e);
            }
        } else {
            ui.weak("Step to trace the joint (a sleeping joint is not solved).");
        }
        return;
    };
    ui.label(format!("step {}, anchors parting after each pass (mm/s):", state.sim.world.step_count()));
    let x = |s: &atoll_physics::JointSubstep| {
        f64::from(s.substep) + if s.pass == atoll_physics::TracePass::Relax { 0.5 } else { 0.0 }
    };
    let points: Vec<[f64; 2]> =
        trace.substeps.iter().map(|s| [x(s), f64::from(s.anchor_speed) * 1e3]).collect();
    let [r, g, b] = SUBSTEP_COLOUR;
    Plot::new("joint substeps plot").height(80.0).allow_scroll(false).allow_drag(false).show(ui, |plot| {
        plot.line(
            Line::new("anchors parting (mm/s)", points).color(egui::Color32::from_rgb(r, g, b)).width(2.0),
        );
    });
}

/// The colour of the joint's substep trace (sRGB), which tests look for.
pub const SUBSTEP_COLOUR: [u8; 3] = [250, 210, 60];

/// The time a frame spends filling in the selected joint's kept steps.
const FILL_PER_FRAME: std::time::Duration = std::time::Duration::from_millis(4);

/// The colour of the marks of the steps where a limit pushed (sRGB), which tests look for.
pub const LIMIT_COLOUR: [u8; 3] = [235, 70, 70];

/// The rotations of the joint's two bodies now, to turn a world axis into their frames.
struct Turns {
    a: Quat,
    b: Quat,
}

impl Turns {
    fn of(world: &World, record: &JointRecord) -> Turns {
        let turn = |id| world.body(id).map_or(Quat::IDENTITY, |b| b.transform.rotation);
        Turns { a: record.desc.body_a.map_or(Quat::IDENTITY, turn), b: turn(record.desc.body_b) }
    }
}

/// The edit rows, each writing into the edited copy and noting which field changed.
struct Fields<'a, 'u> {
    ui: &'u mut egui::Ui,
    changed: &'a mut Changed,
}

impl Fields<'_, '_> {
    fn note(&mut self, field: &str, response: &egui::Response) {
        *self.changed = Some((field.to_string(), response.id));
    }

    fn number(&mut self, field: &str, value: &mut f32, speed: f64, suffix: &str) {
        if let Some((r, v)) = number_row(self.ui, field, *value, speed, suffix) {
            *value = v;
            self.note(field, &r);
        }
    }

    /// An angle stored in radians, shown in degrees.
    fn angle(&mut self, field: &str, radians: &mut f32) {
        let mut degrees = radians.to_degrees();
        self.number(field, &mut degrees, 0.5, "°");
        // Unchanged fields keep their exact radians (degrees and back may round).
        if degrees.to_bits() != radians.to_degrees().to_bits() {
            *radians = degrees.to_radians();
        }
    }

    fn check(&mut self, field: &str, value: &mut bool) {
        self.ui.label(field);
        let r = self.ui.checkbox(value, "");
        if r.changed() {
            self.note(field, &r);
        }
        self.ui.end_row();
    }

    /// A setting that may be absent: a checkbox, then its rows while it is on.
    fn optional<T: Copy>(
        &mut self,
        field: &str,
        value: &mut Option<T>,
        default: T,
        rows: impl FnOnce(&mut Self, &mut T),
    ) {
        let mut on = value.is_some();
        self.check(field, &mut on);
        match (on, value.as_mut()) {
            (false, _) => *value = None,
            (true, None) => *value = Some(default),
            (true, Some(inner)) => rows(self, inner),
        }
    }

    fn common(&mut self, record: &mut JointRecord, view: &JointView, turns: &Turns) {
        self.ui.label("name");
        let r = self.ui.add(egui::TextEdit::singleline(&mut record.name).desired_width(160.0));
        if r.changed() {
            self.note("name", &r);
        }
        self.ui.end_row();

        self.ui.label("type");
        let current = record.desc.kind.joint_type();
        let mut chosen = current;
        let r = egui::ComboBox::from_id_salt("joint type")
            .selected_text(current.name())
            .show_ui(self.ui, |ui| {
                for t in JointType::ALL {
                    ui.selectable_value(&mut chosen, t, t.name());
                }
            })
            .response;
        if chosen != current {
            record.desc.kind = match chosen {
                // A rod as long as the anchors are apart now, so the switch does not yank.
                JointType::Distance => JointKind::Distance(atoll_physics::DistanceJoint::rigid(
                    view.anchor_a.distance(view.anchor_b),
                )),
                t => JointKind::default_of(t),
            };
            self.note("type", &r);
        }
        self.ui.end_row();

        let desc = &mut record.desc;
        let anchor_a_label = if desc.body_a.is_some() { "anchor A (body)" } else { "anchor A (world)" };
        let (r, anchor) = vec3_row(self.ui, anchor_a_label, desc.frame_a.anchor, 0.01, "anchor A");
        if let Some(r) = r {
            desc.frame_a.anchor = anchor;
            self.note("anchor A", &r);
        }
        let (r, anchor) = vec3_row(self.ui, "anchor B (body)", desc.frame_b.anchor, 0.01, "anchor B");
        if let Some(r) = r {
            desc.frame_b.anchor = anchor;
            self.note("anchor B", &r);
        }
        // The axis is edited in world space and re-aims both frames, so the joint's angles count
        // from where the bodies are now (translations still count from the anchors).
        let (r, axis) = vec3_row(self.ui, "axis (world)", view.axis, 0.01, "axis");
        if let Some(r) = r {
            self.note("axis", &r);
            let aim = |turn: Quat, frame: &mut JointFrame| match JointFrame::with_axis(frame.anchor, axis) {
                Ok(world) => frame.rotation = (turn.conjugate() * world.rotation).normalize(),
                // A zero axis: a rotation the engine refuses, so the refusal names the axis.
                Err(_) => frame.rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 0.0),
            };
            aim(turns.a, &mut desc.frame_a);
            aim(turns.b, &mut desc.frame_b);
        }

        self.check("enabled", &mut desc.enabled);
        self.check("collide connected", &mut desc.collide_connected);
        self.optional("breaks at force", &mut desc.break_force, 1000.0, |f, force| {
            f.number("break force", force, 1.0, " N");
        });
        self.optional("breaks at torque", &mut desc.break_torque, 1000.0, |f, torque| {
            f.number("break torque", torque, 1.0, " N·m");
        });
    }

    fn spring(&mut self, field: &str, spring: &mut Option<Spring>) {
        self.optional(field, spring, Spring::new(2.0, 0.5), |f, s| {
            f.number("hertz", &mut s.hertz, 0.05, " Hz");
            f.number("damping ratio", &mut s.damping_ratio, 0.01, "");
        });
    }

    fn angle_limits(&mut self, field: &str, limits: &mut Option<Limits>) {
        self.optional(field, limits, Limits::new(-0.5, 0.5), |f, l| {
            f.angle("lower", &mut l.lower);
            f.angle("upper", &mut l.upper);
        });
    }

    fn length_limits(&mut self, field: &str, limits: &mut Option<Limits>, default: Limits) {
        self.optional(field, limits, default, |f, l| {
            f.number("lower", &mut l.lower, 0.01, " m");
            f.number("upper", &mut l.upper, 0.01, " m");
        });
    }

    /// A motor on a rotation: speed shown in °/s, torque in N·m.
    fn angular_motor(&mut self, motor: &mut Option<Motor>) {
        self.optional("motor", motor, Motor::new(1.0, 10.0), |f, m| {
            let mut speed = m.speed.to_degrees();
            f.number("speed", &mut speed, 1.0, " °/s");
            if speed.to_bits() != m.speed.to_degrees().to_bits() {
                m.speed = speed.to_radians();
            }
            f.number("max torque", &mut m.max_force, 0.5, " N·m");
        });
    }

    fn kind(&mut self, kind: &mut JointKind) {
        match kind {
            JointKind::Revolute(hinge) => {
                self.angle_limits("angle limits", &mut hinge.limits);
                self.angular_motor(&mut hinge.motor);
                self.spring("spring", &mut hinge.spring);
                if hinge.spring.is_some() {
                    self.angle("target angle", &mut hinge.target_angle);
                }
            }
            JointKind::Spherical(ball) => {
                self.optional("swing cone", &mut ball.swing_limit, 0.5, |f, cone| {
                    f.angle("cone half angle", cone)
                });
                self.angle_limits("twist range", &mut ball.twist_limits);
                self.spring("spring", &mut ball.spring);
                self.number("friction", &mut ball.friction, 0.01, " N·m");
            }
            JointKind::Prismatic(slider) => {
                self.length_limits("limits", &mut slider.limits, Limits::new(-0.5, 0.5));
                self.optional("motor", &mut slider.motor, Motor::new(0.5, 100.0), |f, m| {
                    f.number("speed", &mut m.speed, 0.01, " m/s");
                    f.number("max force", &mut m.max_force, 1.0, " N");
                });
                self.spring("spring", &mut slider.spring);
                if slider.spring.is_some() {
                    self.number("target", &mut slider.target_translation, 0.01, " m");
                }
            }
            JointKind::Fixed(weld) => {
                self.spring("linear spring", &mut weld.linear_spring);
                self.spring("angular spring", &mut weld.angular_spring);
            }
            JointKind::Distance(rope) => {
                self.number("length", &mut rope.length, 0.01, " m");
                // A rope's range starts slack: from touching to its length.
                let rope_range = Limits::new(0.0, rope.length);
                self.length_limits("min and max", &mut rope.limits, rope_range);
                self.spring("spring", &mut rope.spring);
            }
            JointKind::Wheel(wheel) => {
                self.angular_motor(&mut wheel.motor);
                self.spring("suspension", &mut wheel.suspension);
                self.length_limits("travel", &mut wheel.suspension_limits, Limits::new(-0.25, 0.25));
            }
        }
    }
}

/// Whether the joint's coordinate is an angle (shown in degrees) rather than a length.
fn is_angle(joint_type: JointType) -> bool {
    matches!(joint_type, JointType::Revolute | JointType::Spherical)
}

/// What the world reports of the joint after the last step.
fn readouts(ui: &mut egui::Ui, state: &EditorState, id: JointId) {
    let world = &state.sim.world;
    let (Ok(view), Ok(desc)) = (world.joint(id), world.joint_desc(id)) else { return };
    let side = |body: Option<atoll_physics::BodyId>| body.map_or("world".to_string(), |b| state.body_name(b));
    let joint_state = JointState::of(&view, &desc);
    let [r, g, b] = joint_state.colour();
    ui.label(RichText::new(format!("{} joint", view.joint_type.name())).strong());
    Grid::new("joint facts").num_columns(2).striped(true).spacing([12.0, 3.0]).show(ui, |ui| {
        let mut vector_row = |name: &str, value: Vec3, unit: &str| {
            ui.label(name);
            ui.monospace(format!("{:.2} {unit}", value.length()))
                .on_hover_text(format!("{} {unit} (world axes)", vec_text(value)));
            ui.end_row();
        };
        vector_row("force", view.force, "N");
        vector_row("torque", view.torque, "N·m");
        let mut row = |name: &str, value: String| {
            ui.label(name);
            ui.monospace(value);
            ui.end_row();
        };
        row("id", id.index().to_string());
        row("links", format!("{} – {}", side(view.body_a), side(Some(view.body_b))));
        let coordinate = match view.joint_type {
            t if is_angle(t) => format!("{:.2}° (angle)", view.position.to_degrees()),
            JointType::Fixed => "-".to_string(),
            JointType::Distance => format!("{:.4} m (length)", view.position),
            _ => format!("{:.4} m (translation)", view.position),
        };
        row("now", coordinate);
        if view.joint_type == JointType::Spherical {
            row("swing", format!("{:.2}°", view.swing.to_degrees()));
        }
        let unit = if matches!(view.joint_type, JointType::Prismatic) { "N" } else { "N·m" };
        row("motor load", format!("{:.3} {unit}", view.motor_load));
        row("limit", if view.limit_active { "pushing".into() } else { "free".into() });
        row("island", view.island.map_or("-".into(), |i| i.index().to_string()));
        if let Some(f) = desc.break_force {
            row("of break force", format!("{:.0} %", 100.0 * view.force.length() / f.max(f32::MIN_POSITIVE)));
        }
        if let Some(t) = desc.break_torque {
            row(
                "of break torque",
                format!("{:.0} %", 100.0 * view.torque.length() / t.max(f32::MIN_POSITIVE)),
            );
        }
        ui.label("state");
        ui.colored_label(egui::Color32::from_rgb(r, g, b), joint_state.label());
        ui.end_row();
    });
}

/// The joint's coordinate, force, error and motor load over the kept steps, one small plot
/// each; the steps where a limit pushed are marked on the force's.
fn plots(ui: &mut egui::Ui, state: &EditorState, id: JointId) {
    let Ok(view) = state.sim.world.joint(id) else { return };
    let samples: Vec<_> = state.diag.joint_trace.samples(id).copied().collect();
    if samples.len() < 2 {
        ui.weak("Play or step to plot the joint's angle and force.");
        return;
    }
    if let Some((next, last)) = state.diag.joint_trace.filling() {
        ui.weak(format!("filling in the kept steps: step {next} of {last}"));
    }
    let angle = is_angle(view.joint_type);
    let (name, scale) =
        if angle { ("angle (°)", 180.0 / std::f64::consts::PI) } else { ("position (m)", 1.0) };
    let series = |read: &dyn Fn(&JointSample) -> f64| -> Vec<[f64; 2]> {
        samples.iter().map(|s| [s.step as f64, read(s)]).collect()
    };
    let limited: Vec<[f64; 2]> =
        samples.iter().filter(|s| s.limit_active).map(|s| [s.step as f64, f64::from(s.force)]).collect();
    let now = state.sim.world.step_count() as f64;
    let mut plots = vec![
        ("joint position plot", name, [90, 170, 250], series(&|s| f64::from(s.position) * scale)),
        ("joint force plot", "force (N)", [250, 170, 60], series(&|s| f64::from(s.force))),
        ("joint error plot", "anchors apart (mm)", [120, 210, 120], series(&|s| f64::from(s.error) * 1e3)),
    ];
    if samples.iter().any(|s| s.motor_load != 0.0) {
        let load = series(&|s| f64::from(s.motor_load));
        plots.push(("joint motor plot", "motor load (N or N m)", [200, 130, 230], load));
    }
    save_row(ui, &samples, id);
    for (id_salt, label, [r, g, b], points) in plots {
        ui.label(label);
        Plot::new(id_salt).height(80.0).allow_scroll(false).allow_drag(false).show(ui, |plot| {
            plot.line(Line::new(label, points).color(egui::Color32::from_rgb(r, g, b)).width(1.5));
            if id_salt == "joint force plot" && !limited.is_empty() {
                let [r, g, b] = LIMIT_COLOUR;
                let marks = egui_plot::Points::new("limit pushed", limited.clone())
                    .color(egui::Color32::from_rgb(r, g, b))
                    .radius(2.5);
                plot.points(marks);
            }
            plot.vline(egui_plot::VLine::new("", now).color(egui::Color32::GRAY));
        });
    }
}
