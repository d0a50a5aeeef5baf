//! Authoring through the real editor UI (egui_kittest, rendered through wgpu on lavapipe):
//! building a scene from an empty one with the spawn tool, the gizmo, the Inspector, Delete,
//! undo and redo, checking the world and the saved file after every step; the recovery file
//! restoring unsaved work; and a rendered frame showing the gizmo and the selection outline.

mod common;

use atoll::editor::autosave::Autosave;
use atoll::editor::{Editor, ToolKind};
use atoll_physics::{BodyId, Scene, SceneShape};
use common::{click, harness, on_screen};
use egui::accesskit::Role;
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};
use std::time::Duration;

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("atoll-authoring-{}-{name}", std::process::id()))
}

fn press(harness: &mut Harness<'_, Editor>, pos: Pos2, pressed: bool, modifiers: Modifiers) {
    harness.event(Event::PointerButton { pos, button: PointerButton::Primary, pressed, modifiers });
}

/// A left drag from `from` to `to` in a few pointer moves.
fn drag(harness: &mut Harness<'_, Editor>, from: Pos2, to: Pos2) {
    drag_with(harness, from, to, Modifiers::NONE);
}

/// A left drag with `modifiers` held, from `from` to `to` in a few pointer moves.
fn drag_with(harness: &mut Harness<'_, Editor>, from: Pos2, to: Pos2, modifiers: Modifiers) {
    harness.event(Event::ModifiersChanged(modifiers));
    harness.hover_at(from);
    harness.run_steps(1);
    press(harness, from, true, modifiers);
    harness.run_steps(1);
    for k in 1..=6 {
        harness.hover_at(from + (to - from) * (k as f32 / 6.0));
        harness.run_steps(1);
    }
    press(harness, to, false, modifiers);
    harness.run_steps(2);
    harness.event(Event::ModifiersChanged(Modifiers::NONE));
    harness.run_steps(1);
}

/// Saves with Ctrl+S (the scene has a file by then) and reads the file back.
fn save_and_load(harness: &mut Harness<'_, Editor>, path: &Path) -> Scene {
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    assert!(!harness.state().state.doc.dirty, "saved, yet still marked unsaved");
    Scene::load(path).unwrap()
}

fn dynamic_bodies(harness: &Harness<'_, Editor>) -> Vec<BodyId> {
    let world = &harness.state().state.sim.world;
    world
        .body_ids()
        .filter(|id| world.body(*id).unwrap().body_type == atoll_physics::BodyType::Dynamic)
        .collect()
}

#[test]
fn build_a_scene_from_nothing_then_undo_and_redo() {
    let mut harness = harness("tower.ron");
    harness.state_mut().state.doc.session.native_dialogs = false;
    harness.run_steps(2);

    // An empty scene (a ground), saved through the path prompt so that Ctrl+S works after.
    harness.get_by_label("File").click();
    harness.run_steps(2);
    harness.get_by_label("New").click();
    harness.run_steps(3);
    assert_eq!(harness.state().state.sim.world.body_count(), 1);
    let path = temp_path("scene.ron");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::S);
    harness.run_steps(2);
    harness.state_mut().state.doc.session.path_prompt.as_mut().expect("Ctrl+S asks where").text =
        path.display().to_string();
    harness.get_by_label("OK").click();
    harness.run_steps(2);
    assert_eq!(Scene::load(&path).unwrap().bodies.len(), 1);

    // Spawn three bodies with the spawn tool: a click on the ground places each on it.
    harness.get_by_label("Spawn tool").click();
    harness.run_steps(1);
    harness.get_by_label("sphere").click();
    harness.run_steps(1);
    let centre = harness.state().viewport().rect().center();
    for dx in [-150.0, 0.0, 150.0] {
        click(&mut harness, centre + egui::vec2(dx, 40.0));
    }
    let bodies = dynamic_bodies(&harness);
    assert_eq!(bodies.len(), 3, "three clicks, three bodies");
    let state = &harness.state().state;
    for id in &bodies {
        let body = state.sim.world.body(*id).unwrap();
        assert!(matches!(body.shape, atoll_physics::Shape::Sphere { .. }));
        let y = body.transform.position.y;
        assert!((y - 0.5).abs() < 1e-3, "a sphere of radius 0.5 rests on the ground: y = {y}");
    }
    assert_eq!(state.doc.undo.undo_len(), 3);
    let saved = save_and_load(&mut harness, &path);
    assert_eq!(saved.bodies.len(), 4);
    assert!(
        saved.bodies[1..]
            .iter()
            .all(|b| matches!(b.shape, SceneShape::Sphere { .. }) && b.name.starts_with("sphere"))
    );

    // Move the last one with the gizmo's x arrow (the spawn tool off, so the click selects).
    harness.key_press(Key::B);
    harness.run_steps(1);
    assert!(!harness.state().tools.is_active(ToolKind::Spawn));
    let moved = bodies[2];
    assert_eq!(harness.state().state.selected(), Some(moved), "the last spawned body is selected");
    let start = harness.state().state.sim.world.transform(moved).unwrap().position;
    let camera = harness.state().state.view.camera;
    let length = (camera.eye() - start).length() * 0.16;
    let grab = on_screen(&harness, start + glam::Vec3::X * length * 0.7);
    let tip = on_screen(&harness, start + glam::Vec3::X * length);
    drag(&mut harness, grab, grab + (tip - grab) * 3.0);
    let after_move = harness.state().state.sim.world.transform(moved).unwrap().position;
    assert!(after_move.x > start.x + 0.2, "moved along x: {start} -> {after_move}");
    assert!((after_move.y - start.y).abs() < 1e-4 && (after_move.z - start.z).abs() < 1e-4);
    assert_eq!(harness.state().state.doc.undo.undo_len(), 4, "the whole drag is one undo step");
    let saved = save_and_load(&mut harness, &path);
    assert!((saved.bodies[3].position.x - after_move.x).abs() < 1e-5);

    // Change its friction in the Inspector, and refuse a negative radius with the reason.
    harness.get_by_role_and_label(Role::SpinButton, "friction").set_value_accesskit(0.1);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body(moved).unwrap().material.friction, 0.1);
    harness.get_by_role_and_label(Role::SpinButton, "radius").set_value_accesskit(-1.0);
    harness.run_steps(2);
    harness.get_by_label_contains("refused");
    assert!(
        matches!(harness.state().state.sim.world.body(moved).unwrap().shape, atoll_physics::Shape::Sphere { radius } if *radius == 0.5)
    );
    assert_eq!(harness.state().state.doc.undo.undo_len(), 5, "the refused radius is not an edit");
    let saved = save_and_load(&mut harness, &path);
    assert_eq!(saved.bodies[3].material.friction, 0.1);

    // Delete the first sphere.
    let first = on_screen(&harness, harness.state().state.sim.world.transform(bodies[0]).unwrap().position);
    click(&mut harness, first);
    assert_eq!(harness.state().state.selected(), Some(bodies[0]));
    harness.key_press(Key::Delete);
    harness.run_steps(2);
    assert!(harness.state().state.sim.world.body(bodies[0]).is_err());
    assert_eq!(dynamic_bodies(&harness).len(), 2);
    let saved = save_and_load(&mut harness, &path);
    assert_eq!(saved.bodies.len(), 3);

    // Undo twice: the sphere comes back, then the friction goes back.
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(dynamic_bodies(&harness).len(), 3, "undo brings the deleted sphere back");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body(moved).unwrap().material.friction, 0.6);
    let saved = save_and_load(&mut harness, &path);
    assert_eq!(saved.bodies.len(), 4);
    assert_eq!(saved.bodies[3].material.friction, 0.6);
    assert!((saved.bodies[3].position.x - after_move.x).abs() < 1e-5, "the move stays");

    // Redo once: the friction is 0.1 again; the delete stays undone.
    harness.key_press_modifiers(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body(moved).unwrap().material.friction, 0.1);
    assert_eq!(dynamic_bodies(&harness).len(), 3);
    let saved = save_and_load(&mut harness, &path);
    assert_eq!(saved.bodies.len(), 4);
    assert_eq!(saved.bodies[3].material.friction, 0.1);

    // Stepping is not an edit, and Reset returns to the edited state.
    harness.get_by_label("Step").click();
    harness.run_steps(2);
    assert!(!harness.state().state.doc.dirty);
    harness.key_press(Key::R);
    harness.run_steps(1);
    assert_eq!(harness.state().state.sim.world.step_count(), 0);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn the_recovery_file_restores_unsaved_work() {
    let dir = temp_path("state");
    let _ = std::fs::remove_dir_all(&dir);
    {
        let mut harness = harness("tower.ron");
        let mut autosave = Autosave::in_dir(dir.clone());
        autosave.interval = Some(Duration::ZERO);
        harness.state_mut().state.doc.session.autosave = autosave;
        harness.run_steps(1);
        let bodies = harness.state().state.sim.world.body_count();
        harness.state_mut().state.select_all();
        harness.key_press_modifiers(Modifiers::COMMAND, Key::D);
        harness.run_steps(2);
        assert_eq!(harness.state().state.sim.world.body_count(), bodies * 2);
        assert!(
            harness.state().state.doc.session.autosave.last_written.is_some(),
            "the due autosave was written"
        );
    }
    // The next start offers the work back.
    let mut harness = harness("tower.ron");
    let bodies = harness.state().state.sim.world.body_count();
    harness.state_mut().state.doc.session.autosave = Autosave::in_dir(dir.clone());
    harness.run_steps(2);
    harness.get_by_label_contains("Atoll closed with unsaved changes");
    harness.get_by_label("Restore").click();
    harness.run_steps(2);
    let state = &harness.state().state;
    assert_eq!(state.sim.world.body_count(), bodies * 2);
    assert!(state.doc.dirty, "restored work is unsaved");
    assert!(
        state.doc.session.scene_path.as_deref().is_some_and(|p| p.ends_with("tower.ron")),
        "it belongs to tower.ron"
    );
    std::fs::remove_dir_all(dir).unwrap();
}

#[test]
fn a_rendered_frame_shows_the_gizmo_and_the_selection_outline() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    // A box in the middle of the tower, so the whole gizmo is in view.
    let id = harness.state().state.sim.world.body_ids().nth(12).unwrap();
    harness.state_mut().state.doc.selection.set(Some(id));
    harness.run_steps(2);
    let image = harness.render().expect("the harness renders through wgpu");
    if let Some(path) = std::env::var_os("ATOLL_GIZMO_SNAPSHOT") {
        image.save(path).unwrap();
    }
    let ppp = harness.ctx.pixels_per_point();
    let pixel = |p: Pos2| *image.get_pixel((p.x * ppp) as u32, (p.y * ppp) as u32);
    let pivot = harness.state().state.sim.world.transform(id).unwrap().position;
    let length = (harness.state().state.view.camera.eye() - pivot).length() * 0.16;
    // The arrow tips' discs, in the axis colours.
    let axes =
        [(glam::Vec3::X, [230, 60, 60]), (glam::Vec3::Y, [80, 200, 80]), (glam::Vec3::Z, [70, 120, 240])];
    for (axis, rgb) in axes {
        let p = pixel(on_screen(&harness, pivot + axis * length));
        let off = (0..3).map(|c| (p[c] as i32 - rgb[c]).abs()).max().unwrap();
        assert!(off < 40, "the {axis} tip is {p:?}, not {rgb:?}");
    }
    // The outline: orange pixels around the selected box, none far from it.
    let bounds = harness.state().state.sim.world.aabb(id).unwrap();
    let (lo, hi) = (on_screen(&harness, bounds.min), on_screen(&harness, bounds.max));
    let around = egui::Rect::from_two_pos(lo, hi).expand(12.0);
    let is_outline = |p: image::Rgba<u8>| p[0] > 220 && (120..=210).contains(&p[1]) && p[2] < 110;
    let mut near = 0;
    for y in (around.top() as i32)..(around.bottom() as i32) {
        for x in (around.left() as i32)..(around.right() as i32) {
            near += is_outline(pixel(Pos2::new(x as f32, y as f32))) as usize;
        }
    }
    // About 20 at this window size (the box is some 40 pixels across); none would be drawn
    // without the outline, since no box of the tower is this orange.
    assert!(near > 12, "only {near} outline pixels around the selected box");
}

/// A left drag with Shift held.
fn shift_drag(harness: &mut Harness<'_, Editor>, from: Pos2, to: Pos2) {
    drag_with(harness, from, to, Modifiers::SHIFT);
}

#[test]
fn shift_drag_selects_in_a_box_and_places_a_row_with_the_spawn_tool() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    // A box around the lower half of the tower selects those boxes, not the ground.
    let world = &harness.state().state.sim.world;
    let boxes = dynamic_bodies(&harness);
    let low = world.transform(boxes[1]).unwrap().position;
    let high = world.transform(boxes[8]).unwrap().position;
    let (a, b) = (on_screen(&harness, low), on_screen(&harness, high));
    shift_drag(&mut harness, a + egui::vec2(-60.0, 10.0), b + egui::vec2(60.0, -10.0));
    let selected = harness.state().state.doc.selection.ids().to_vec();
    assert!(selected.len() >= 6 && selected.len() <= 10, "selected {} boxes", selected.len());
    assert!(selected.iter().all(|id| boxes.contains(id)), "only tower boxes");
    assert!(selected.contains(&boxes[4]));

    // With the spawn tool, the same gesture places a row on the ground: one undo step.
    harness.key_press(Key::B);
    harness.run_steps(1);
    let before = harness.state().state.sim.world.body_count();
    let undo_before = harness.state().state.doc.undo.undo_len();
    let rect = harness.state().viewport().rect();
    let y = rect.bottom() - 80.0;
    shift_drag(&mut harness, Pos2::new(rect.left() + 80.0, y), Pos2::new(rect.left() + 260.0, y));
    let placed = harness.state().state.sim.world.body_count() - before;
    assert!(placed >= 2, "a row of {placed}");
    assert_eq!(harness.state().state.doc.undo.undo_len(), undo_before + 1);
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body_count(), before);
}

#[test]
fn closing_with_unsaved_changes_asks_first() {
    let mut harness = harness("tower.ron");
    harness.run_steps(1);
    let request_close = |harness: &mut Harness<'_, Editor>| {
        harness
            .input_mut()
            .viewports
            .entry(egui::ViewportId::ROOT)
            .or_default()
            .events
            .push(egui::ViewportEvent::Close);
        harness.run_steps(1);
        harness.input_mut().viewports.entry(egui::ViewportId::ROOT).or_default().events.clear();
        harness.run_steps(1);
    };
    // Nothing edited: the window may close without a question.
    request_close(&mut harness);
    assert!(!harness.state().state.doc.session.confirm_close);
    // Edited: the close is held back and the editor asks.
    harness.state_mut().state.select_all();
    harness.key_press(Key::Delete);
    harness.run_steps(1);
    request_close(&mut harness);
    assert!(harness.state().state.doc.session.confirm_close);
    harness.get_by_label("Save the changes to Tower (20 boxes) before closing?");
    harness.get_by_label("Cancel").click();
    harness.run_steps(2);
    assert!(
        !harness.state().state.doc.session.confirm_close && !harness.state().state.doc.session.close_approved
    );
    request_close(&mut harness);
    harness.get_by_label("Don't save").click();
    harness.run_steps(2);
    assert!(harness.state().state.doc.session.close_approved, "Don't save lets the window close");
}

#[test]
fn the_group_generator_and_a_colour_of_ones_own() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let before = harness.state().state.sim.world.body_count();
    harness.get_by_label("Edit").click();
    harness.run_steps(2);
    harness.get_by_label("Generate a group...").click();
    harness.run_steps(2);
    harness.get_by_label("Create").click();
    harness.run_steps(2);
    // The default group is a pyramid of base 6: 21 boxes, one undo step.
    assert_eq!(harness.state().state.sim.world.body_count(), before + 21);
    assert_eq!(harness.state().state.doc.undo.undo_label(), Some("generate 21"));

    // Give the tower's middle box a colour of its own in the Inspector; it is drawn in it.
    let id = harness.state().state.sim.world.body_ids().nth(10).unwrap();
    harness.state_mut().state.doc.selection.set(Some(id));
    harness.run_steps(2);
    let centre = harness.state().state.sim.world.transform(id).unwrap().position;
    let at = |harness: &mut Harness<'_, Editor>| {
        let p = on_screen(harness, centre);
        let ppp = harness.ctx.pixels_per_point();
        let image = harness.render().unwrap();
        *image.get_pixel((p.x * ppp) as u32, (p.y * ppp) as u32)
    };
    harness.get_by_label("own").click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.doc.entities.meta_of(id).colour, Some([200, 120, 60]));
    harness.key_press(Key::Escape);
    harness.run_steps(2);
    let coloured = at(&mut harness);
    assert!(coloured[0] > coloured[2] + 60 && coloured[1] > coloured[2], "drawn orange: {coloured:?}");
    harness.key_press_modifiers(Modifiers::COMMAND, Key::Z);
    harness.run_steps(2);
    assert_eq!(harness.state().state.doc.entities.meta_of(id).colour, None);
    assert_ne!(at(&mut harness), coloured, "undo gives the palette colour back");
}
