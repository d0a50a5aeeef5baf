//! Joints in the real editor UI (egui_kittest, rendered through wgpu on lavapipe): the joints
//! overlay drawn at the anchors, a click on an anchor selecting the joint, the joint Inspector
//! editing it in place and refusing a reversed limit with its reason, the Joints list, and
//! deleting a body taking its joints with it.

mod common;

use atoll::editor::{Editor, ToolKind};
use atoll::render::joint_lines::JointState;
use atoll_physics::{JointId, JointKind, Limits};
use common::{click, harness, on_screen, pixels_near};
use egui::accesskit::Role;
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// The doors scene, its first (motorised) hinge, and that hinge's anchor on screen.
fn doors() -> (Harness<'static, Editor>, JointId, Pos2) {
    let mut harness = harness("door.ron");
    harness.run_steps(3);
    let joint = harness.state().state.sim.world.joint_ids().next().unwrap();
    let anchor = harness.state().state.sim.world.joint(joint).unwrap().anchor_a;
    let at = on_screen(&harness, anchor);
    (harness, joint, at)
}

#[test]
fn the_joints_overlay_draws_at_the_anchor_and_a_click_there_selects_the_joint() {
    let (mut harness, joint, at) = doors();
    let free = JointState::Free.colour();
    let plain = harness.render().unwrap();
    assert_eq!(pixels_near(&plain, at, 4, free, 60), 0, "no joint colour before the overlay is on");

    harness.get_by_label("View").click();
    harness.run_steps(3);
    harness.get_by_label("Joints").click();
    harness.run_steps(2);
    assert!(harness.state().state.view.options.overlays.joints);
    harness.key_press(Key::Escape);
    harness.run_steps(2);
    let drawn = harness.render().unwrap();
    let near = pixels_near(&drawn, at, 4, free, 60);
    assert!(near >= 3, "the hinge's anchor cross is drawn where the anchor is: {near} pixels");

    // A click on the anchor selects the joint, and the Inspector shows it.
    click(&mut harness, at);
    assert_eq!(harness.state().state.doc.selection.joint(), Some(joint));
    assert!(!harness.state().state.doc.selection.has_bodies());
    harness.get_by_label("revolute joint");
    // Its bodies, in the Inspector and in the Scene panel's Joints list.
    assert_eq!(harness.query_all_by_label_contains("post 0 – door 0").count(), 2);
    // The selected joint is drawn in the selection colour (the pointer moved off it first: the
    // rendered frame draws the cursor). The gizmo now sits on the anchor and covers its centre,
    // so the orange is looked for around it: the cross and the limit arc.
    harness.hover_at(at + egui::vec2(80.0, 120.0));
    harness.run_steps(2);
    let selected = harness.render().unwrap();
    let orange = pixels_near(&selected, at, 16, [255, 170, 60], 60);
    assert!(orange >= 3, "the selected joint turns orange: {orange} pixels");
    assert_eq!(pixels_near(&drawn, at, 16, [255, 170, 60], 60), 0, "and was not orange before");
    harness.get_by_label("Joints (2)");
}

#[test]
fn the_inspector_edits_a_joint_in_place_and_refuses_a_lower_limit_above_the_upper() {
    let (mut harness, joint, _) = doors();
    harness.state_mut().state.doc.selection.set_joint(Some(joint));
    harness.run_steps(2);
    let limits =
        |harness: &Harness<'_, Editor>| match harness.state().state.sim.world.joint_desc(joint).unwrap().kind
        {
            JointKind::Revolute(hinge) => hinge.limits,
            other => panic!("not a hinge: {other:?}"),
        };
    assert_eq!(limits(&harness), Some(Limits::new(-0.1, 1.8)));

    // A new upper limit of 90°: applied in place (same id), one undo step.
    harness.get_by_role_and_label(Role::SpinButton, "upper").set_value_accesskit(90.0);
    harness.run_steps(2);
    let upper = limits(&harness).unwrap().upper;
    assert!((upper - 90f32.to_radians()).abs() < 1e-5, "upper {upper}");
    assert_eq!(harness.state().state.doc.selection.joint(), Some(joint));
    let steps = harness.state().state.doc.undo.undo_len();

    // A lower limit of 120°, above the upper: refused with the reason, nothing changes.
    harness.get_by_role_and_label(Role::SpinButton, "lower").set_value_accesskit(120.0);
    harness.run_steps(2);
    harness.get_by_label_contains("above the upper limit");
    assert!((limits(&harness).unwrap().lower + 0.1).abs() < 1e-6);
    assert_eq!(harness.state().state.doc.undo.undo_len(), steps, "a refused value is not an edit");

    // The motor runs the door to its new limit.
    harness.state_mut().state.step_many(240);
    harness.run_steps(2);
    let view = harness.state().state.sim.world.joint(joint).unwrap();
    assert!(view.position < 90f32.to_radians() + 1f32.to_radians(), "held at the limit: {}", view.position);
    assert!(view.limit_active);
    harness.get_by_label_contains("pushing");
}

#[test]
fn deleting_a_door_removes_its_hinge_and_undo_brings_both_back() {
    let mut harness = harness("door.ron");
    harness.run_steps(2);
    // The built-in joint scenes open on a view of their own.
    let view =
        atoll_physics::Scene::load(&atoll::scenes::scenes_dir().join("door.ron")).unwrap().view.unwrap();
    assert_eq!(harness.state().state.view.camera.to_view(), view);
    let state = &harness.state().state;
    let door = state.sim.world.body_ids().find(|id| state.body_name(*id) == "door 0").unwrap();
    let at = on_screen(&harness, state.sim.world.transform(door).unwrap().position);
    click(&mut harness, at);
    assert_eq!(harness.state().state.selected(), Some(door));
    harness.key_press(Key::Delete);
    harness.run_steps(2);
    let state = &harness.state().state;
    assert_eq!(state.sim.world.joint_count(), 1, "the door's hinge went with it");
    assert_eq!(state.doc.undo.undo_label(), Some("delete 1 body and 1 joint"));
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.joint_count(), 2);
}

#[test]
fn grabbing_a_box_of_the_pyramid_while_playing_pulls_it_up_and_releasing_drops_it() {
    let mut harness = harness("pyramid_3d.ron");
    harness.run_steps(2);
    let state = &harness.state().state;
    let top = state
        .sim
        .world
        .body_ids()
        .filter(|id| state.sim.world.body(*id).is_ok_and(|b| b.body_type == atoll_physics::BodyType::Dynamic))
        .max_by(|a, b| {
            let y = |id| state.sim.world.transform(id).unwrap().position.y;
            y(*a).total_cmp(&y(*b))
        })
        .unwrap();
    let start = state.sim.world.transform(top).unwrap().position;
    let edits = state.doc.undo.undo_len();
    harness.key_press(Key::Space);
    harness.run_steps(1);
    assert!(harness.state().state.sim.playing);

    let from = on_screen(&harness, start);
    harness.hover_at(from);
    harness.run_steps(1);
    harness.event(Event::PointerButton {
        pos: from,
        button: PointerButton::Primary,
        pressed: true,
        modifiers: Modifiers::NONE,
    });
    harness.run_steps(1);
    // Up the screen in small moves, then hold there for a second of frames.
    for k in 1..=10 {
        harness.hover_at(from - egui::vec2(0.0, 8.0 * k as f32));
        harness.run_steps(1);
    }
    assert_eq!(harness.state().state.sim.grab.map(|g| g.body), Some(top), "the drag grabbed the top box");
    harness.run_steps(60);
    let held = harness.state().state.sim.world.transform(top).unwrap().position;
    assert!(held.y > start.y + 0.5, "pulled up towards the pointer: {} -> {}", start.y, held.y);
    // The grab is drawn as a yellow line from the grabbed point to the pointer.
    let grab = harness.state().state.sim.grab.unwrap();
    let (a, b) = (
        on_screen(&harness, grab.point(&harness.state().state.sim.world).unwrap()),
        on_screen(&harness, grab.target),
    );
    let image = harness.render().unwrap();
    let middle = a + (b - a) * 0.5;
    assert!(
        pixels_near(&image, middle, 2, [255, 230, 90], 60) >= 2,
        "the grab line is drawn from {a} to {b}"
    );
    let to = from - egui::vec2(0.0, 80.0);
    harness.event(Event::PointerButton {
        pos: to,
        button: PointerButton::Primary,
        pressed: false,
        modifiers: Modifiers::NONE,
    });
    harness.run_steps(1);
    assert!(harness.state().state.sim.grab.is_none(), "released");
    let released = harness.state().state.sim.world.transform(top).unwrap().position;
    harness.run_steps(40);
    let fallen = harness.state().state.sim.world.transform(top).unwrap().position;
    assert!(fallen.y < released.y - 0.3, "released, it falls: {} -> {}", released.y, fallen.y);
    assert_eq!(harness.state().state.doc.undo.undo_len(), edits, "grabbing is not an edit");
    assert!(!harness.state().state.doc.dirty);
}

#[test]
fn the_joint_tool_hinges_two_boxes_that_stay_linked_while_playing_and_undo_takes_it_back() {
    use atoll_physics::{BodyType, SceneBody, SceneShape, Vec3};
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    // Two boxes in the air: the left one hinged to the world by the tool, the right one hinged
    // to the left one.
    {
        let state = &mut harness.state_mut().state;
        let boxed = |x: f32| {
            SceneBody::new(
                BodyType::Dynamic,
                SceneShape::Box { half_extents: Vec3::splat(0.4) },
                Vec3::new(x, 4.0, 6.0),
            )
        };
        state.add_bodies("spawn", vec![boxed(-0.45), boxed(0.45)]).unwrap();
        state.frame_selection();
    }
    harness.run_steps(2);
    let ids = harness.state().state.doc.selection.ids().to_vec();
    let (left, right) = (ids[0], ids[1]);
    harness.key_press(Key::J);
    harness.run_steps(1);
    assert!(harness.state().tools.is_active(ToolKind::Joint));
    harness.get_by_label("revolute").click();
    harness.run_steps(1);

    let position =
        |harness: &Harness<'_, Editor>, id| harness.state().state.sim.world.transform(id).unwrap().position;
    let left_at = on_screen(&harness, position(&harness, left));
    let right_at = on_screen(&harness, position(&harness, right));
    let sky = egui::pos2(left_at.x, harness.state().viewport().rect().min.y + 5.0);
    // Left box to the world.
    click(&mut harness, left_at);
    assert_eq!(harness.state().tools.joint.pending.map(|p| p.body), Some(left));
    // While picking, the pending anchor and a line to the pointer are drawn.
    harness.hover_at(sky);
    harness.run_steps(1);
    let picking = harness.render().unwrap();
    let midway = left_at + (sky - left_at) * 0.5;
    assert!(pixels_near(&picking, midway, 2, JointState::Free.colour(), 60) >= 1, "the line to the pointer");
    click(&mut harness, sky);
    // The new hinge is selected and the gizmo sits on its anchor, over the left box: clear the
    // selection so the next clicks reach the boxes rather than the gizmo's handles.
    assert!(harness.state().state.doc.selection.joint().is_some());
    harness.state_mut().state.doc.selection.set_joint(None);
    harness.run_steps(1);
    // Right box (its face towards the camera) to the left box: the seam between them.
    let seam = left_at + (right_at - left_at) * 0.5;
    click(&mut harness, right_at + (seam - right_at) * 0.8);
    click(&mut harness, left_at);
    let state = &harness.state().state;
    assert_eq!(state.sim.world.joint_count(), 2, "two hinges");
    let between = state.doc.selection.joint().expect("the new hinge is selected");
    let view = state.sim.world.joint(between).unwrap();
    assert_eq!((view.body_a, view.body_b), (Some(left), right));
    assert_eq!(state.doc.undo.undo_label(), Some("add revolute joint"));

    // Play two seconds: the right box swings from the left one, which hangs from the world.
    harness.key_press(Key::Space);
    harness.run_steps(120);
    let state = &harness.state().state;
    let gap = |id| {
        let v = state.sim.world.joint(id).unwrap();
        (v.anchor_a - v.anchor_b).length()
    };
    for joint in state.sim.world.joint_ids() {
        assert!(gap(joint) < 0.01, "the hinge holds: {} m apart", gap(joint));
    }
    assert!(position(&harness, right).y > 2.0, "still hanging, not fallen: {}", position(&harness, right).y);
    harness.key_press(Key::Space);
    harness.run_steps(1);

    // Undo removes the hinge; redo brings it back.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(1);
    assert_eq!(harness.state().state.sim.world.joint_count(), 1);
    harness.key_press_modifiers(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
    harness.run_steps(1);
    assert_eq!(harness.state().state.sim.world.joint_count(), 2);
    // Esc leaves the tool.
    harness.key_press(Key::Escape);
    harness.run_steps(1);
    assert!(!harness.state().tools.is_active(ToolKind::Joint));
}

#[test]
fn a_scene_with_joints_saves_and_loads_back_with_the_same_joints() {
    use atoll::editor::files;
    let mut harness = harness("ragdoll_pile.ron");
    harness.run_steps(2);
    // Name one joint and change another's limits through the Inspector, then save as.
    let first = harness.state().state.sim.world.joint_ids().next().unwrap();
    harness.state_mut().state.doc.selection.set_joint(Some(first));
    harness.run_steps(2);
    harness.get_by_role_and_label(Role::SpinButton, "cone half angle").set_value_accesskit(30.0);
    harness.run_steps(2);
    let path = std::env::temp_dir().join(format!("atoll-joints-ui-{}.ron", std::process::id()));
    files::save_as(&mut harness.state_mut().state, &path).unwrap();
    // Each joint with its bodies as positions in the body list (ids differ between worlds).
    let joints = |world: &atoll_physics::World| -> Vec<_> {
        let index = |id| world.body_ids().position(|b| b == id);
        world
            .joint_ids()
            .map(|id| {
                let d = world.joint_desc(id).unwrap();
                (d.kind, d.frame_a, d.frame_b, d.collide_connected, d.body_a.and_then(index), index(d.body_b))
            })
            .collect()
    };
    let saved = joints(&harness.state().state.sim.world);

    // Open something else, then the saved file: the same joints, settings and bodies.
    files::open(&mut harness.state_mut().state, &atoll::scenes::scenes_dir().join("tower.ron"));
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.joint_count(), 0);
    files::open(&mut harness.state_mut().state, &path);
    harness.run_steps(2);
    let loaded = joints(&harness.state().state.sim.world);
    assert_eq!(loaded.len(), saved.len());
    assert_eq!(loaded, saved);
    let JointKind::Spherical(neck) = loaded[0].0 else { panic!("the neck is a ball joint") };
    assert!((neck.swing_limit.unwrap() - 30f32.to_radians()).abs() < 1e-6);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_joint_selected_late_is_plotted_over_the_whole_timeline_with_its_limit_marked() {
    let (mut harness, joint, _) = doors();
    // The motor turns the door at 1 rad/s up to its 1.8 rad limit, which holds it from then on.
    harness.state_mut().state.step_many(240);
    harness.run_steps(2);
    harness.state_mut().state.doc.selection.set_joint(Some(joint));
    for panel in ["Timing", "Scene"] {
        harness.get_by_label(panel).click_accesskit();
        harness.run_steps(2);
    }
    harness.run_steps(6);
    let trace = &harness.state().state.diag.joint_trace;
    assert!(trace.filling().is_none(), "the walk through the kept steps is done");
    let samples: Vec<_> = trace.samples(joint).copied().collect();
    let (first, last) = harness.state().state.sim.timeline.range();
    assert_eq!(samples.iter().map(|s| s.step).collect::<Vec<_>>(), (first..=last).collect::<Vec<_>>());
    // Before the limit the motor, at its most torque, swings the heavy door open; then the
    // limit holds it.
    let at = |step: u64| samples.iter().find(|s| s.step == step).unwrap();
    assert!(at(60).position > at(30).position + 0.1, "{:?} {:?}", at(30), at(60));
    assert!(!at(60).limit_active && at(60).motor_load == 150.0);
    let held = samples.iter().find(|s| s.limit_active).expect("the limit holds it in the end");
    assert!((held.position - 1.8).abs() < 0.05, "{held:?}");
    // The plots are below the settings: scrolled into view, the last one's label at the bottom.
    for _ in 0..3 {
        harness.get_by_label("motor load (N or N m)").scroll_to_me();
        harness.run_steps(2);
    }
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-joint-history.png")).unwrap();
    let marks = common::dock_pixels(&image, atoll::editor::panels::joint_inspector::LIMIT_COLOUR);
    assert!(marks > 20, "{marks} pixels of the limit's marks");
    // The history as CSV: a header and a row per kept step.
    let path = std::env::temp_dir().join(format!("atoll-joint-{}.csv", joint.index()));
    let _ = std::fs::remove_file(&path);
    harness.get_by_label("Save joint CSV").scroll_to_me();
    harness.run_steps(2);
    harness.get_by_label("Save joint CSV").click_accesskit();
    harness.run_steps(2);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with("step,position,force_n,anchors_apart_m,motor_load,limit_active"));
    assert_eq!(text.lines().count(), 1 + samples.len());
    assert!(text.lines().last().unwrap().ends_with(",true"), "the limit holds at the end");
}

#[test]
fn the_inspector_traces_a_joint_through_the_step_shown_pass_by_pass() {
    let (mut harness, joint, _) = doors();
    harness.state_mut().state.step_many(30);
    harness.state_mut().state.doc.selection.set_joint(Some(joint));
    for panel in ["Timing", "Scene"] {
        harness.get_by_label(panel).click_accesskit();
        harness.run_steps(2);
    }
    harness.get_by_label("trace its substeps").scroll_to_me();
    harness.run_steps(2);
    harness.get_by_label("trace its substeps").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.traced_joints(), [joint]);
    // The step shown was taken before: taken again from the one before, it is traced.
    harness.get_by_label_contains("substep by substep").click_accesskit();
    harness.run_steps(2);
    let world = &harness.state().state.sim.world;
    assert_eq!(world.step_count(), 30);
    let trace = &world.joint_traces()[0];
    assert_eq!(trace.substeps.len(), 2 * world.settings().substeps as usize);
    harness.get_by_label_contains("anchors parting after each pass");
    for _ in 0..3 {
        harness.get_by_label_contains("anchors parting after each pass").scroll_to_me();
        harness.run_steps(2);
    }
    let image = harness.render().unwrap();
    let drawn = common::dock_pixels(&image, atoll::editor::panels::joint_inspector::SUBSTEP_COLOUR);
    assert!(drawn > 30, "{drawn} pixels of the substep trace");
}
