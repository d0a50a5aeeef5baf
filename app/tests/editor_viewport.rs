//! Mouse and keyboard in the 3D view of the real editor UI (egui_kittest, rendered through
//! wgpu): a click selects the body drawn under the pointer, WASD flies the camera.

mod common;

use atoll::editor::{Editor, ToolKind};
use atoll_physics::BodyType;
use common::{click, harness};
use egui::{Event, Key, Modifiers, PointerButton, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// Where the lower part of `body` is drawn, in window points. (The camera looks down on the
/// tower, so the box above hides the top of each box's front, centre included.)
fn screen_position(harness: &Harness<'_, Editor>, body: atoll_physics::BodyId) -> Pos2 {
    let editor = harness.state();
    let rect = editor.viewport().rect();
    let bounds = editor.state.sim.world.aabb(body).unwrap();
    let centre = bounds.center() - glam::Vec3::Y * 0.3 * bounds.half_extents().y;
    let size = glam::Vec2::new(rect.width(), rect.height());
    let pixel = editor.state.view.camera.project(centre, size).expect("the body is in front of the camera");
    rect.min + egui::vec2(pixel.x, pixel.y)
}

#[test]
fn clicking_where_a_body_is_drawn_selects_it() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let world = &harness.state().state.sim.world;
    let boxes: Vec<_> =
        world.body_ids().filter(|&id| world.body(id).unwrap().body_type == BodyType::Dynamic).collect();
    // The bottom, a middle and the top box of the tower: each click selects that one.
    for body in [boxes[0], boxes[boxes.len() / 2], *boxes.last().unwrap()] {
        let pos = screen_position(&harness, body);
        click(&mut harness, pos);
        assert_eq!(harness.state().state.selected(), Some(body), "click at {pos:?}");
    }
    // The Inspector follows the selection.
    let name = harness.state().state.body_name(*boxes.last().unwrap());
    assert!(harness.query_all_by_label_contains(&name).count() >= 2, "{name} not in the Inspector");

    // A click on the empty sky above the tower clears it.
    let rect = harness.state().viewport().rect();
    // (Away from the centre line, where the top box's gizmo arrow reaches up.)
    click(&mut harness, Pos2::new(rect.left() + 20.0, rect.top() + 5.0));
    assert_eq!(harness.state().state.selected(), None);
}

#[test]
fn wasd_flies_the_camera_and_a_text_field_keeps_the_keys() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let camera = |h: &Harness<'_, Editor>| h.state().state.view.camera;
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

/// Solid occupancy summed over the voxels within `radius` metres of `centre`.
fn solid_around(world: &atoll_physics::World, centre: glam::Vec3, radius: f32) -> u64 {
    let terrain = world.terrain();
    let (lo, hi) = (terrain.voxel_at(centre - radius), terrain.voxel_at(centre + radius));
    let mut sum = 0;
    for x in lo.x..=hi.x {
        for y in lo.y..=hi.y {
            for z in lo.z..=hi.z {
                sum += terrain.voxel(glam::IVec3::new(x, y, z)).solid_density() as u64;
            }
        }
    }
    sum
}

#[test]
fn dragging_the_add_brush_raises_the_terrain_under_the_pointer() {
    use atoll_physics::terrain::BrushMode;
    let mut harness = harness("terrain.ron");
    harness.run_steps(2);
    // Choose the brush through the Terrain panel.
    common::open_panel(&mut harness, "Terrain");
    // Let the panel open and settle its layout before clicking inside it.
    harness.run_steps(4);
    // The joint tool on first: choosing a brush switches it off (it used to stay on).
    harness.key_press(Key::J);
    harness.run_steps(1);
    assert!(harness.state().tools.is_active(ToolKind::Joint));
    harness.get_by_label("add").click();
    harness.run_steps(1);
    assert!(harness.state().tools.is_active(ToolKind::Terrain));
    assert!(!harness.state().tools.is_active(ToolKind::Joint));
    assert_eq!(harness.state().tools.terrain.mode, BrushMode::Add);

    let rect = harness.state().viewport().rect();
    let start = rect.center();
    harness.hover_at(start);
    harness.run_steps(2);
    let hit = harness.state().tools.terrain.hover.expect("the view centre shows terrain");
    assert!(harness.state().state.view.options.brush.is_some(), "the brush follows the pointer");
    let stamp = harness.state().state.sim.world.terrain_stamp();
    let before = solid_around(&harness.state().state.sim.world, hit.point, 2.0);
    let camera = harness.state().state.view.camera;

    let button = |pos, pressed| Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    harness.event(button(start, true));
    harness.run_steps(2);
    let end = start + egui::vec2(60.0, 0.0);
    for k in 1..=6 {
        harness.event(Event::PointerMoved(start + egui::vec2(10.0 * k as f32, 0.0)));
        harness.run_steps(1);
    }
    harness.event(button(end, false));
    harness.run_steps(2);

    let state = &harness.state().state;
    assert_ne!(state.sim.world.terrain_stamp(), stamp, "the stroke edited the terrain");
    assert!(solid_around(&state.sim.world, hit.point, 2.0) > before, "the ground under the press rose");
    assert!(harness.state().tools.terrain.last_dab_stats.is_some_and(|d| d.voxels > 0));
    assert_eq!(state.view.camera.yaw, camera.yaw, "painting does not orbit");
    assert!(state.doc.dirty);
    assert!(state.diag.terrain_rebuild.chunks > 0, "the viewport re-meshed the touched chunks");

    // The brush is drawn where the pointer is: its yellow wire sphere shows around it.
    harness.hover_at(start);
    harness.run_steps(2);
    let image = harness.render().unwrap();
    if let Some(path) = std::env::var_os("ATOLL_TERRAIN_SNAPSHOT") {
        image.save(path).unwrap();
    }
    let ppp = image.width() as f32 / 1280.0;
    let brush_yellow = |x: i32, y: i32| {
        let p = image.get_pixel((x as f32 * ppp) as u32, (y as f32 * ppp) as u32);
        p[0] > 200 && p[1] > 190 && p[2] < 170
    };
    let near = (-80..=80)
        .flat_map(|dx| (-80..=80).map(move |dy| (dx, dy)))
        .filter(|(dx, dy)| brush_yellow(start.x as i32 + dx, start.y as i32 + dy))
        .count();
    assert!(near > 20, "{near} brush pixels around the pointer");
}

/// A left-button drag from `from` to `to` in small moves, released at `to`.
fn drag(harness: &mut Harness<'_, Editor>, from: Pos2, to: Pos2) {
    harness.hover_at(from);
    harness.run_steps(1);
    let button = |pos, pressed| Event::PointerButton {
        pos,
        button: PointerButton::Primary,
        pressed,
        modifiers: Modifiers::NONE,
    };
    harness.event(button(from, true));
    harness.run_steps(1);
    for k in 1..=12 {
        harness.hover_at(from + (to - from) * (k as f32 / 12.0));
        harness.run_steps(1);
    }
    harness.event(button(to, false));
    harness.run_steps(2);
}

#[test]
fn the_query_tool_casts_a_ball_into_the_tower_and_draws_the_hit_then_finds_overlaps() {
    use atoll::editor::tools::query::{HIT_COLOUR, QueryAnswer, QueryMode};
    use common::{on_screen, pixels_near};
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    harness.key_press(Key::K);
    harness.run_steps(1);
    assert!(harness.state().tools.is_active(ToolKind::Query), "K switches the query tool on");
    common::open_panel(&mut harness, "Queries");
    // From the floor left of the tower to the floor right of it: the ball, resting on the
    // floor, meets the bottom box's left face.
    let world = &harness.state().state.sim.world;
    let bottom = world
        .body_ids()
        .filter(|&id| world.body(id).unwrap().body_type == BodyType::Dynamic)
        .min_by(|&a, &b| {
            world.transform(a).unwrap().position.y.total_cmp(&world.transform(b).unwrap().position.y)
        })
        .unwrap();
    let bounds = world.aabb(bottom).unwrap();
    let floor = glam::Vec3::new(bounds.center().x, bounds.min.y, bounds.center().z);
    let (from, to) =
        (on_screen(&harness, floor - glam::Vec3::X * 3.0), on_screen(&harness, floor + glam::Vec3::X * 3.0));
    drag(&mut harness, from, to);
    let tool = &harness.state().tools.query;
    assert!(tool.kept.is_some(), "the dragged query is kept");
    let QueryAnswer::Cast { hit: Some(hit), .. } = tool.answer.clone() else {
        panic!("a cast with a hit: {:?}", tool.answer)
    };
    assert_eq!(hit.body, bottom, "{hit:?}");
    assert!(
        hit.normal.x < -0.99 && (hit.point.x - bounds.min.x).abs() < 1e-3,
        "the box's left face: {hit:?}"
    );
    assert!(hit.fraction > 0.0 && hit.fraction < 0.5, "{hit:?}");
    // The hit point and its normal are drawn, and the palette says what was hit.
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-query.png")).unwrap();
    let scale = image.width() as f32 / 1280.0;
    let at = on_screen(&harness, hit.point);
    assert!(
        pixels_near(&image, Pos2::new(at.x * scale, at.y * scale), 3, HIT_COLOUR, 60) >= 5,
        "the hit point is drawn at {at:?}"
    );
    let name = harness.state().state.body_name(bottom);
    assert!(harness.query_all_by_label_contains(&format!("hit {name} at fraction")).count() >= 1);
    // Esc lets the query follow the pointer again.
    harness.key_press(Key::Escape);
    harness.run_steps(1);
    assert!(harness.state().tools.query.kept.is_none());

    // Overlap: a ball on the bottom box's front face overlaps that box.
    harness.get_by_label("overlap").click();
    harness.run_steps(1);
    assert_eq!(harness.state().tools.query.mode, QueryMode::Overlap);
    let front =
        glam::Vec3::new(bounds.center().x, bounds.center().y - 0.2 * bounds.half_extents().y, bounds.max.z);
    let at = on_screen(&harness, front);
    click(&mut harness, at);
    let QueryAnswer::Overlap { found, .. } = harness.state().tools.query.answer.clone() else {
        panic!("an overlap")
    };
    assert!(found.contains(&bottom), "{found:?}");
    assert!(harness.query_all_by_label_contains("overlaps").count() >= 1);
    harness.render().unwrap().save(std::env::temp_dir().join("atoll-query-overlap.png")).unwrap();
}
