//! Mouse and keyboard in the 3D view of the real editor UI (egui_kittest, rendered through
//! wgpu): a click selects the body drawn under the pointer, WASD flies the camera.

mod common;

use atoll::editor::Editor;
use atoll_physics::BodyType;
use common::harness;
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// Where the lower part of `body` is drawn, in window points. (The camera looks down on the
/// tower, so the box above hides the top of each box's front, centre included.)
fn screen_position(harness: &Harness<'_, Editor>, body: atoll_physics::BodyId) -> Pos2 {
    let editor = harness.state();
    let rect = editor.viewport().rect();
    let bounds = editor.state.world.aabb(body).unwrap();
    let centre = bounds.center() - glam::Vec3::Y * 0.3 * bounds.half_extents().y;
    let size = glam::Vec2::new(rect.width(), rect.height());
    let pixel = editor.state.camera.project(centre, size).expect("the body is in front of the camera");
    rect.min + egui::vec2(pixel.x, pixel.y)
}

fn click(harness: &mut Harness<'_, Editor>, pos: Pos2) {
    harness.hover_at(pos);
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(Event::PointerButton {
            pos,
            button: PointerButton::Primary,
            pressed,
            modifiers: Modifiers::NONE,
        });
    }
    harness.run_steps(2);
}

#[test]
fn clicking_where_a_body_is_drawn_selects_it() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let world = &harness.state().state.world;
    let boxes: Vec<_> =
        world.body_ids().filter(|&id| world.body(id).unwrap().body_type == BodyType::Dynamic).collect();
    // The bottom, a middle and the top box of the tower: each click selects that one.
    for body in [boxes[0], boxes[boxes.len() / 2], *boxes.last().unwrap()] {
        let pos = screen_position(&harness, body);
        click(&mut harness, pos);
        assert_eq!(harness.state().state.selected, Some(body), "click at {pos:?}");
    }
    // The Inspector follows the selection.
    let name = harness.state().state.body_name(*boxes.last().unwrap());
    assert!(harness.query_all_by_label_contains(&name).count() >= 2, "{name} not in the Inspector");

    // A click on the empty sky above the tower clears it.
    let rect = harness.state().viewport().rect();
    click(&mut harness, Pos2::new(rect.center().x, rect.top() + 5.0));
    assert_eq!(harness.state().state.selected, None);
}

#[test]
fn wasd_flies_the_camera_and_a_text_field_keeps_the_keys() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let camera = |h: &Harness<'_, Editor>| h.state().state.camera;
    let start = camera(&harness);
    let held = |harness: &mut Harness<'_, Editor>, key: Key| {
        harness.key_down(key);
        harness.run_steps(4);
        harness.key_up(key);
        harness.run_steps(1);
    };

    held(&mut harness, Key::W);
    let forward = camera(&harness).target - start.target;
    assert!(forward.length() > 0.1, "W did not move the camera");
    assert!(forward.normalize().dot(start.forward()) > 0.99, "W moved along {forward}, not forward");
    assert_eq!(camera(&harness).distance, start.distance, "flying keeps the orbit distance");

    let before = camera(&harness).target;
    held(&mut harness, Key::D);
    let right = camera(&harness).target - before;
    assert!(right.length() > 0.1 && right.dot(start.forward()).abs() < 1e-3, "D moved {right}");

    let before = camera(&harness).target;
    held(&mut harness, Key::E);
    let up = camera(&harness).target - before;
    assert!(up.y > 0.1 && up.x.abs() + up.z.abs() < 1e-3, "E moved {up}");

    // A text field (the Scene list's filter) has the keyboard: typing there must not fly.
    harness.query_all_by_role(egui::accesskit::Role::TextInput).next().expect("a text field").click();
    harness.run_steps(1);
    let before = camera(&harness).target;
    held(&mut harness, Key::S);
    assert_eq!(camera(&harness).target, before, "S flew while a text field had focus");
}
