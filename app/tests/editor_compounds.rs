//! Compound bodies in the editor: Combine and Split from the keys, each one undo step that
//! keeps every shape where it was; the Inspector's rows for a child, a refused value saying
//! why; a part made a sensor, drawn translucent and listed by the Sensors panel; and the
//! furniture scene drawn with its legs.

mod common;

use atoll::editor::Editor;
use atoll_physics::{BodyId, ShapeId, Transform, Vec3};
use common::harness;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// Every shape of every body, at its world pose, sorted: what Combine and Split must keep.
fn shape_poses(harness: &Harness<'_, Editor>) -> Vec<[i32; 3]> {
    let world = &harness.state().state.sim.world;
    let mut poses: Vec<[i32; 3]> = world
        .body_ids()
        .flat_map(|id| world.body_shapes(id).unwrap().map(|(_, pose)| millimetres(pose)).collect::<Vec<_>>())
        .collect();
    poses.sort();
    poses
}

fn millimetres(pose: Transform) -> [i32; 3] {
    (pose.position * 1000.0).round().as_ivec3().to_array()
}

#[test]
fn combine_and_split_keep_every_shape_in_place_and_undo_in_one_step() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let before = shape_poses(&harness);
    let count = harness.state().state.sim.world.body_count();
    let boxes: Vec<BodyId> = harness.state().state.sim.world.body_ids().skip(1).take(3).collect();
    harness.state_mut().state.doc.selection.set_many(boxes.clone());
    harness.run_steps(1);

    // Ctrl+G: one body of three boxes, the primary (last picked) kept.
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::G);
    harness.run_steps(2);
    let world = &harness.state().state.sim.world;
    assert_eq!(world.body_count(), count - 2);
    let combined = boxes[2];
    assert_eq!(world.body_desc(combined).unwrap().children.len(), 2);
    assert_eq!(shape_poses(&harness), before, "combining moved a shape");
    assert_eq!(harness.state().state.selected(), Some(combined));
    // The Inspector lists the children.
    harness.get_by_label_contains("Children (2 shapes");

    // Ctrl+Shift+G: three bodies again, where the boxes were.
    harness.key_press_modifiers(egui::Modifiers::COMMAND.plus(egui::Modifiers::SHIFT), egui::Key::G);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body_count(), count);
    assert_eq!(shape_poses(&harness), before, "splitting moved a shape");

    // Undo the split, then the combine: one step each.
    harness.state_mut().state.undo();
    harness.run_steps(1);
    assert_eq!(harness.state().state.sim.world.body_count(), count - 2);
    harness.state_mut().state.undo();
    harness.run_steps(1);
    let world = &harness.state().state.sim.world;
    assert_eq!(world.body_count(), count);
    // (The boxes that were removed came back under new ids.)
    assert!(world.body_ids().all(|id| world.body_desc(id).is_ok_and(|d| d.children.is_empty())));
    assert_eq!(shape_poses(&harness), before);
}

#[test]
fn the_inspector_edits_a_childs_density_and_refuses_a_negative_one() {
    let mut harness = harness("furniture.ron");
    harness.run_steps(2);
    let table = harness.state().state.sim.world.body_ids().nth(1).unwrap();
    assert_eq!(harness.state().state.body_name(table), "table 0");
    harness.get_by_label("table 0").click();
    harness.run_steps(2);
    let mass = |harness: &Harness<'_, Editor>| harness.state().state.sim.world.body(table).unwrap().mass;
    let before = mass(&harness);
    // The body's own density row first, then one per child: child 1's is the second.
    let retype = |harness: &mut Harness<'_, Editor>, text: &str| {
        harness.get_all_by_label("density").nth(1).expect("child 1's density").click();
        harness.run_steps(1);
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        harness.get_all_by_label("density").nth(1).unwrap().type_text(text);
        harness.key_press(egui::Key::Enter);
        harness.run_steps(2);
    };
    retype(&mut harness, "1400");
    let desc = harness.state().state.sim.world.body_desc(table).unwrap();
    assert_eq!(desc.children[0].material.density, 1400.0);
    assert_eq!(desc.children[1].material.density, 700.0, "only child 1 changed");
    // One leg of 0.06 × 0.72 × 0.06 m went from 700 to 1400 kg/m³.
    let gained = mass(&harness) - before;
    assert!((gained - 0.06 * 0.72 * 0.06 * 700.0).abs() < 1e-3, "the table gained {gained} kg");

    retype(&mut harness, "-5");
    harness.get_by_label_contains("child 1 density: refused");
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-inspector-child.png")).unwrap();
    assert_eq!(
        harness.state().state.sim.world.body_desc(table).unwrap().children[0].material.density,
        1400.0
    );
}

#[test]
fn the_furniture_is_drawn_with_its_legs() {
    let mut harness = harness("furniture.ron");
    harness.run_steps(2);
    let world = &harness.state().state.sim.world;
    let table = world.body_ids().nth(1).unwrap();
    // Halfway down the front left leg of the first table, in the world.
    let (_, leg) = world.body_shapes(table).unwrap().nth(3).unwrap();
    let at = common::on_screen(&harness, leg.position);
    // Beside the leg, between the legs: the floor shows through.
    let beside = common::on_screen(&harness, leg.position + Vec3::new(0.3, 0.0, 0.0));
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-furniture.png")).unwrap();
    let scale = image.width() as f32 / 1280.0;
    let pixel = |p: egui::Pos2| image.get_pixel((p.x * scale) as u32, (p.y * scale) as u32).0;
    let (leg_rgb, floor_rgb) = (pixel(at), pixel(beside));
    let difference: i32 = (0..3).map(|k| (leg_rgb[k] as i32 - floor_rgb[k] as i32).abs()).sum();
    assert!(difference > 40, "the leg ({leg_rgb:?}) is not drawn over the floor ({floor_rgb:?})");
}

#[test]
fn a_child_made_a_sensor_is_drawn_translucent_weighs_nothing_and_is_listed_by_its_part() {
    let mut harness = harness("furniture.ron");
    harness.run_steps(2);
    let table = harness.state().state.sim.world.body_ids().nth(1).unwrap();
    harness.get_by_label("table 0").click();
    harness.run_steps(2);
    let world = &harness.state().state.sim.world;
    let before = world.body(table).unwrap().mass;
    // The front left leg: child 3.
    let (_, leg) = world.body_shapes(table).unwrap().nth(3).unwrap();
    let at = common::on_screen(&harness, leg.position);
    let pixel = |harness: &mut Harness<'_, Editor>| {
        let image = harness.render().unwrap();
        let scale = image.width() as f32 / 1280.0;
        image.get_pixel((at.x * scale) as u32, (at.y * scale) as u32).0
    };
    let solid = pixel(&mut harness);
    // The body's own sensor box first, then one per child: child 3's is the fourth.
    harness
        .get_all_by_role_and_label(egui::accesskit::Role::CheckBox, "sensor")
        .nth(3)
        .expect("child 3's sensor box")
        .click_accesskit();
    harness.run_steps(2);
    let world = &harness.state().state.sim.world;
    assert!(world.sensor(ShapeId::new(table, 3)).unwrap().is_some(), "child 3 is a sensor");
    assert_eq!(world.sensor(table).unwrap(), None, "the top stays solid");
    // The leg weighs nothing now: 0.06 × 0.72 × 0.06 m of 700 kg/m³ lighter.
    let lost = before - world.body(table).unwrap().mass;
    assert!((lost - 0.06 * 0.72 * 0.06 * 700.0).abs() < 1e-3, "the table lost {lost} kg");
    let translucent = pixel(&mut harness);
    harness.render().unwrap().save(std::env::temp_dir().join("atoll-sensor-leg.png")).unwrap();
    let apart = (0..3).map(|i| solid[i].abs_diff(translucent[i]) as u32).sum::<u32>();
    assert!(apart > 40, "the leg was drawn as opaque as before: {solid:?} against {translucent:?}");
    common::open_panel(&mut harness, "Sensors");
    harness.get_by_label_contains("table 0 part 3");
}
