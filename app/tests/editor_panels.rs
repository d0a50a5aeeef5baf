//! The editor's panels, files and view modes driven through the real UI with egui_kittest and
//! rendered through wgpu (lavapipe in CI). File operations go through the functions the File
//! menu calls, with a path instead of a dialog.

mod common;

use atoll::editor::files;
use atoll::editor::notices::NoticePlace;
use atoll::editor::panels::islands::{Column, IslandsPanel};
use atoll::editor::panels::timing::TimingPanel;
use atoll::scenes::scenes_dir;
use atoll_physics::{Scene, StepSettings};
use common::harness;
use egui_kittest::kittest::Queryable;

/// The viewport's share of a UI frame: the middle of the window, away from the side panels.
fn viewport_pixels(image: &image::RgbaImage) -> Vec<[u8; 4]> {
    common::frame_pixels(image, (0.4, 0.6), (0.3, 0.7))
}

fn changed_fraction(a: &[[u8; 4]], b: &[[u8; 4]]) -> f64 {
    let changed = a.iter().zip(b).filter(|(p, q)| (0..3).any(|i| p[i].abs_diff(q[i]) > 12)).count();
    changed as f64 / a.len() as f64
}

#[test]
fn open_through_the_file_path_and_inspect_the_selected_body() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    files::open(&mut harness.state_mut().state, &scenes_dir().join("pyramid_3d.ron"));
    harness.run_steps(2);
    let state = &harness.state().state;
    assert!(state.doc.scene_name.to_lowercase().contains("pyramid"), "{}", state.doc.scene_name);

    // Select the first box through the Scene list, by its name from the file.
    let id = state.sim.world.body_ids().nth(1).unwrap();
    let name = state.body_name(id);
    let mass = state.sim.world.body(id).unwrap().mass;
    harness.get_by_label(&name).click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.selected(), Some(id));
    // The inspector shows its mass.
    harness.get_by_label(&format!("{mass:.3} kg"));
    assert!(harness.state().title().contains("pyramid_3d.ron"), "{}", harness.state().title());
}

#[test]
fn a_bad_file_keeps_the_scene_and_reports_where() {
    let mut harness = harness("tower.ron");
    harness.run_steps(1);
    let path = std::env::temp_dir().join(format!("atoll-bad-{}.ron", std::process::id()));
    std::fs::write(&path, "(\n  version: 1,\n  name: \"x\",\n  bodies: [ ( nme: 3 ) ],\n)\n").unwrap();
    let bodies = harness.state().state.sim.world.body_count();
    files::open(&mut harness.state_mut().state, &path);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body_count(), bodies);
    let error = harness.state().state.diag.notices.message(NoticePlace::ErrorWindow).unwrap().to_string();
    assert!(error.contains("line 4, column"), "no line in {error}");
    harness.get_by_label_contains("nme");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn save_writes_a_file_that_loads_back_and_clears_the_star() {
    let mut harness = harness("tower.ron");
    harness.get_by_label("Step").click();
    harness.run_steps(2);
    assert!(!harness.state().title().ends_with('*'), "stepping is not an edit: {}", harness.state().title());
    harness.state_mut().state.select_all();
    harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::D);
    harness.run_steps(2);
    assert!(harness.state().title().ends_with('*'), "edited, not marked: {}", harness.state().title());
    let path = std::env::temp_dir().join(format!("atoll-save-{}.ron", std::process::id()));
    files::save_as(&mut harness.state_mut().state, &path).unwrap();
    harness.run_steps(1);
    assert!(!harness.state().title().ends_with('*'), "{}", harness.state().title());
    let scene = Scene::load(&path).unwrap();
    assert_eq!(scene.bodies.len(), harness.state().state.sim.world.body_count());
    assert_eq!(scene.bodies[0].name, "ground");
    std::fs::remove_file(path).unwrap();
}

#[test]
fn settings_refuse_a_negative_dt_and_keep_the_old_one() {
    let mut harness = harness("tower.ron");
    common::open_panel(&mut harness, "Settings");
    harness.run_steps(2);
    let old = *harness.state().state.sim.world.settings();
    // Type a negative dt into the panel's field, as assistive technology would.
    harness.get_by_role_and_label(egui::accesskit::Role::SpinButton, "dt").set_value_accesskit(-0.01);
    harness.run_steps(2);
    let refused = harness.state().state.diag.notices.message(NoticePlace::Settings).map(str::to_string);
    assert!(refused.as_deref().is_some_and(|e| e.contains("dt")), "typed -0.01 was not refused: {refused:?}");
    assert_eq!(*harness.state().state.sim.world.settings(), old);
    // The same refusal through the function the panel calls.
    let bad = StepSettings { dt: -0.01, ..old };
    assert!(harness.state_mut().state.apply_settings(bad).is_err());
    assert_eq!(*harness.state().state.sim.world.settings(), old);
    harness.get_by_label_contains("refused: invalid dt");
    // A valid change goes through and clears the message.
    harness.state_mut().state.set_rate(120).unwrap();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.settings().dt, 1.0 / 120.0);
    assert!(harness.query_by_label_contains("refused").is_none());
}

#[test]
fn the_linear_speed_cap_is_set_in_settings_and_a_zero_is_refused() {
    let mut harness = harness("tower.ron");
    common::open_panel(&mut harness, "Settings");
    harness.run_steps(2);
    let field = || (egui::accesskit::Role::SpinButton, "max linear speed");
    harness.get_by_role_and_label(field().0, field().1).set_value_accesskit(50.0);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.settings().max_linear_speed, 50.0);
    harness.get_by_role_and_label(field().0, field().1).set_value_accesskit(0.0);
    harness.run_steps(2);
    let refused = harness.state().state.diag.notices.message(NoticePlace::Settings).map(str::to_string);
    assert!(
        refused.as_deref().is_some_and(|e| e.contains("max linear speed")),
        "0 was not refused: {refused:?}"
    );
    assert_eq!(harness.state().state.sim.world.settings().max_linear_speed, 50.0);
    // The row is drawn: render it to look at (the file is left in the temporary folder).
    harness.get_by_role_and_label(field().0, field().1).scroll_to_me();
    harness.run_steps(3);
    harness.render().unwrap().save(std::env::temp_dir().join("atoll-settings-speed-cap.png")).unwrap();
}

#[test]
fn the_world_steps_on_every_core_and_settings_change_the_thread_count() {
    let mut harness = harness("pyramid_3d.ron");
    let cores = atoll::editor::state::machine_threads();
    assert_eq!(harness.state().state.sim.world.thread_count(), cores, "not every core by default");
    common::open_panel(&mut harness, "Settings");
    harness.run_steps(2);
    harness.get_by_label_contains(&format!("(this machine: {cores})"));
    // Typed into the panel's field, as assistive technology would.
    harness.get_by_role_and_label(egui::accesskit::Role::SpinButton, "threads").set_value_accesskit(3.0);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.thread_count(), 3);
    // The field is drawn: a box lighter than the panel behind it, with the bright strokes of
    // the 3 in it.
    harness.get_by_role_and_label(egui::accesskit::Role::SpinButton, "threads").scroll_to_me();
    harness.run_steps(3);
    let field = harness.get_by_role_and_label(egui::accesskit::Role::SpinButton, "threads").rect();
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-settings-threads.png")).unwrap();
    let scale = image.width() as f32 / 1280.0;
    let pixel = |x: f32, y: f32| image.get_pixel((x * scale) as u32, (y * scale) as u32).0;
    let background = pixel(field.left() - 4.0, field.top() - 3.0);
    let inside: Vec<[u8; 4]> = (2..(field.width() as u32 - 2))
        .flat_map(|dx| (2..(field.height() as u32 - 2)).map(move |dy| (dx as f32, dy as f32)))
        .map(|(dx, dy)| pixel(field.left() + dx, field.top() + dy))
        .collect();
    let boxed = inside.iter().filter(|p| (0..3).any(|i| p[i].abs_diff(background[i]) > 8)).count();
    let bright = inside.iter().filter(|p| p[..3].iter().all(|&c| c > 150)).count();
    assert!(boxed * 2 > inside.len(), "no field box: {boxed} of {} pixels", inside.len());
    assert!(bright >= 5, "no digit in the field: {bright} bright pixels");
    // The count stays when another scene is opened.
    files::new_scene(&mut harness.state_mut().state);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.thread_count(), 3);
}

#[test]
fn view_menu_overlays_and_island_colours_change_the_viewport() {
    let mut harness = harness("pyramid_3d.ron");
    harness.run_steps(3);
    let plain = viewport_pixels(&harness.render().unwrap());

    harness.get_by_label("View").click();
    harness.run_steps(3);
    harness.get_by_label("AABBs").click();
    harness.run_steps(2);
    assert!(harness.state().state.view.options.overlays.aabbs);
    let with_boxes = viewport_pixels(&harness.render().unwrap());
    let boxes = changed_fraction(&plain, &with_boxes);
    assert!(boxes > 0.01, "AABB overlay changed only {:.2} % of the viewport", boxes * 100.0);

    harness.state_mut().state.view.options.overlays.aabbs = false;
    if harness.query_by_label("AABBs").is_none() {
        harness.get_by_label("View").click();
        harness.run_steps(3);
    }
    harness.get_by_label("Colour by island").click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.view.options.colour_mode, atoll::render::ColourMode::Island);
    let islands = viewport_pixels(&harness.render().unwrap());
    let recoloured = changed_fraction(&plain, &islands);
    assert!(recoloured > 0.05, "colour by island changed only {:.2} %", recoloured * 100.0);

    // Set ATOLL_UI_SNAPSHOT=file.png to look at a working session: stepped, a body selected,
    // contacts drawn, the islands listed.
    if let Some(path) = std::env::var_os("ATOLL_UI_SNAPSHOT") {
        let editor = harness.state_mut();
        editor.state.step_many(20);
        let body = editor.state.sim.world.body_ids().nth(200);
        editor.state.doc.selection.set(body);
        editor.state.view.options.overlays.contacts = true;
        harness.get_by_label("Islands").click();
        harness.run_steps(3);
        harness.render().unwrap().save(path).unwrap();
    }
}

#[test]
fn islands_panel_selects_an_island_step_n_steps_and_sleep_panel_shows() {
    let mut harness = harness("tower.ron");
    harness.state_mut().state.sim.step_n = 30;
    harness.get_by_label("Step N").click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), 30);
    common::open_panel(&mut harness, "Islands");
    harness.run_steps(2);
    let island = harness.state().state.sim.world.islands().next().unwrap();
    // The id cell is the first cell with that text (counts in other columns may repeat it).
    harness.query_all_by_label(&island.id.index().to_string()).next().unwrap().click();
    harness.run_steps(2);
    let state = &harness.state().state;
    assert_eq!(state.view.selected_island, Some(island.id));
    assert_eq!(state.view.options.highlighted.len(), island.body_count as usize);

    // Headers sort; a second click reverses.
    harness.get_by_label("bodies").click();
    harness.run_steps(2);
    assert_eq!(harness.state().panels.find::<IslandsPanel>().unwrap().sort.column, Column::Bodies);
    harness.get_by_label("bodies ^").click();
    harness.run_steps(2);
    assert!(harness.state().panels.find::<IslandsPanel>().unwrap().sort.descending);

    // The Sleep panel plots the counts and bins every dynamic body's timer.
    common::open_panel(&mut harness, "Sleep");
    harness.run_steps(2);
    harness.get_by_label_contains("past the time to sleep");
}

#[test]
fn open_through_the_menu_falls_back_to_the_path_prompt() {
    let mut harness = harness("tower.ron");
    // As on a machine without a desktop portal: the menu must not wait for a dialog.
    harness.state_mut().state.doc.session.native_dialogs = false;
    harness.get_by_label("File").click();
    harness.run_steps(3);
    harness.get_by_label("Open...").click();
    harness.run_steps(2);
    harness.get_by_label("Path of the .ron file:");
    let target = scenes_dir().join("pyramid_3d.ron");
    harness.state_mut().state.doc.session.path_prompt.as_mut().unwrap().text = target.display().to_string();
    harness.run_steps(1);
    harness.get_by_label("OK").click();
    harness.run_steps(2);
    let state = &harness.state().state;
    assert!(state.doc.session.path_prompt.is_none());
    assert_eq!(state.doc.session.scene_path.as_deref(), Some(target.as_path()));
    assert_eq!(state.doc.session.recent.first().map(|p| p.as_path()), Some(target.as_path()));
    assert!(harness.state().title().contains("pyramid_3d.ron"));
}

#[test]
fn timing_plot_switches_between_lines_and_stacked() {
    let mut harness = harness("pyramid_3d.ron");
    harness.state_mut().state.step_many(40);
    harness.run_steps(3);
    // The right-hand panel, where the Timing plot sits under the Inspector.
    let panel = |image: &image::RgbaImage| {
        let (w, h) = image.dimensions();
        let mut out = Vec::new();
        for y in (0..h).step_by(2) {
            for x in (w - 340..w).step_by(2) {
                out.push(image.get_pixel(x, y).0);
            }
        }
        out
    };
    let lines = panel(&harness.render().unwrap());
    harness.get_by_label("Stacked").click();
    harness.run_steps(3);
    assert!(harness.state().panels.find::<TimingPanel>().unwrap().stacked);
    let image = harness.render().unwrap();
    if let Some(path) = std::env::var_os("ATOLL_TIMING_SNAPSHOT") {
        image.save(path).unwrap();
    }
    let stacked = panel(&image);
    // The filled bands cover far more of the plot than nine thin lines.
    let changed = changed_fraction(&lines, &stacked);
    assert!(changed > 0.02, "stacking changed only {:.2} % of the panel", changed * 100.0);
    harness.get_by_label("Lines").click();
    harness.run_steps(3);
    assert!(!harness.state().panels.find::<TimingPanel>().unwrap().stacked);
}

#[test]
fn the_inspector_shows_a_floating_bodys_water_contact_and_the_contacts_panel_its_terrain_pairs() {
    let mut harness = harness("boats.ron");
    harness.state_mut().state.step_many(240);
    harness.run_steps(2);
    let state = &harness.state().state;
    let (id, name) = state
        .sim
        .world
        .body_ids()
        .map(|id| (id, state.body_name(id)))
        .find(|(_, name)| name == "crate 0")
        .expect("the boats scene has crate 0");
    let water = state.sim.world.water_contact(id).unwrap().expect("crate 0 floats");
    harness.get_by_label(&name).click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.selected(), Some(id));
    harness.get_by_label(&format!(
        "{:.1} % ({:.3} m3)",
        water.submerged_fraction * 100.0,
        water.submerged_volume
    ));
    // A stone on the pond's bed touches the terrain: its pair is listed against the terrain.
    let stone = state_body(&harness, "stone 0");
    // (The Scene list runs past the window: clicked as assistive technology does.)
    harness.get_by_label("stone 0").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.selected(), Some(stone));
    // Fold the panels above it so its table is on screen.
    for header in ["Inspector", "Timing", "Contacts"] {
        harness.get_by_label(header).click();
        harness.run_steps(2);
    }
    harness.get_by_label_contains("1 touching pairs of stone 0");
    let listed = harness.query_all_by_label_contains("stone 0 - terrain").count();
    assert!(listed > 0, "the Contacts panel lists the stone's terrain contact");
}

fn state_body(
    harness: &egui_kittest::Harness<'_, atoll::editor::Editor>,
    name: &str,
) -> atoll_physics::BodyId {
    let state = &harness.state().state;
    state.sim.world.body_ids().find(|&id| state.body_name(id) == name).unwrap()
}

#[test]
fn the_inspector_edits_a_bodys_collision_filter_and_refuses_text_that_is_not_bits() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let id = harness.state().state.sim.world.body_ids().nth(1).unwrap();
    let name = harness.state().state.body_name(id);
    harness.get_by_label(&name).click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.selected(), Some(id));
    let undo_before = harness.state().state.doc.undo.undo_len();

    // Collide with category 1 only: typed as hexadecimal into the mask's field.
    let retype = |harness: &mut egui_kittest::Harness<'_, atoll::editor::Editor>, label: &str, text: &str| {
        harness.get_by_label(label).click();
        harness.run_steps(1);
        harness.key_press_modifiers(egui::Modifiers::COMMAND, egui::Key::A);
        harness.get_by_label(label).type_text(text);
        harness.run_steps(2);
    };
    retype(&mut harness, "collides with", "0x1");
    let filter = harness.state().state.sim.world.filter(id).unwrap();
    assert_eq!(filter.mask, 1);
    assert_eq!(harness.state().state.doc.undo.undo_len(), undo_before + 1);

    // Text that is not 64 bits says why, and changes nothing.
    let red_text = |image: &image::RgbaImage| {
        // The right side panel, where the Inspector is.
        let rect = egui::Rect::from_min_max(egui::pos2(750.0, 35.0), egui::pos2(1280.0, 740.0));
        image
            .enumerate_pixels()
            .filter(|(x, y, _)| rect.contains(egui::pos2(*x as f32, *y as f32)))
            .filter(|(_, _, p)| p[0] > 200 && p[1] < 90 && p[2] < 90)
            .count()
    };
    let before = red_text(&harness.render().unwrap());
    retype(&mut harness, "category", "0xfish");
    harness.get_by_label_contains("not 64 bits");
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-inspector-filter.png")).unwrap();
    let after = red_text(&image);
    assert!(
        after > before + 200,
        "the refused text and its reason are drawn in the error colour: {before} -> {after}"
    );
    assert_eq!(harness.state().state.sim.world.filter(id).unwrap().category, 1);
    assert_eq!(harness.state().state.doc.undo.undo_len(), undo_before + 1);

    // Undo gives the default filter back.
    harness.key_press(egui::Key::Escape);
    harness.run_steps(1);
    harness.state_mut().state.undo();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.filter(id).unwrap(), atoll_physics::CollisionFilter::DEFAULT);
}

#[test]
fn sensors_are_drawn_translucent_listed_with_what_is_inside_and_marked_on_the_timeline() {
    let mut harness = harness("sorting.ron");
    harness.run_steps(2);
    let counters: Vec<atoll_physics::BodyId> =
        harness.state().state.sim.world.sensors().map(|s| s.body).collect();
    assert_eq!(counters.len(), 3, "the sorting machine counts three kinds");
    let red = counters[0];
    let centre = harness.state().state.sim.world.transform(red).unwrap().position;
    let at = common::on_screen(&harness, centre);
    let pixel = |harness: &mut egui_kittest::Harness<'_, atoll::editor::Editor>| {
        let image = harness.render().unwrap();
        let scale = image.width() as f32 / 1280.0;
        image.get_pixel((at.x * scale) as u32, (at.y * scale) as u32).0
    };
    let translucent = pixel(&mut harness);
    harness.render().unwrap().save(std::env::temp_dir().join("atoll-sensors.png")).unwrap();

    // Untick "sensor" in the Inspector: the counter becomes an ordinary opaque box.
    harness.state_mut().state.doc.selection.set(Some(red));
    harness.run_steps(2);
    harness.get_by_role_and_label(egui::accesskit::Role::CheckBox, "sensor").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.sensor(red).unwrap(), None);
    let opaque = pixel(&mut harness);
    let apart = (0..3).map(|i| translucent[i].abs_diff(opaque[i]) as u32).sum::<u32>();
    assert!(apart > 60, "the sensor was drawn as opaque as a box: {translucent:?} against {opaque:?}");
    harness.state_mut().state.undo();
    harness.run_steps(2);
    assert!(harness.state().state.sim.world.sensor(red).unwrap().is_some(), "undo makes it a sensor again");

    // Run the machine: the Sensors panel lists the counters with the balls inside, and the
    // timeline marks the steps with sensor events.
    harness.state_mut().state.doc.selection.set(None);
    harness.state_mut().state.step_many(360);
    harness.run_steps(2);
    common::open_panel(&mut harness, "Sensors");
    let inside = harness.state().state.sim.world.sensor_overlaps(counters[2]).unwrap().len();
    assert!(inside > 0, "blue balls reached their counter");
    assert!(
        harness.query_all_by_label(&format!("{inside} inside")).count() >= 1,
        "the panel lists the count"
    );
    harness.render().unwrap().save(std::env::temp_dir().join("atoll-sensors-panel.png")).unwrap();
    use atoll::editor::panels::timeline::{Mark, mark_of};
    let marked = (harness.state().state.sim.timeline.history.steps())
        .filter(|r| mark_of(r) == Some(Mark::Sensor))
        .count();
    assert!(marked > 0, "sensor events are marked on the timeline");
}

#[test]
fn the_energy_panel_plots_finds_an_injected_blow_up_selects_its_body_and_saves_csv() {
    use atoll::editor::panels::energy::EnergyPanel;
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    harness.state_mut().state.step_many(10);
    // The top box flung sideways behind the tape's back, as a solver fault would, while the
    // tower is awake.
    let top = {
        let world = &harness.state().state.sim.world;
        world.body_ids().max_by(|a, b| {
            let y = |id| world.transform(id).unwrap().position.y;
            y(*a).total_cmp(&y(*b))
        })
    }
    .unwrap();
    harness.state_mut().state.sim.world.inject_velocity_for_test(top, glam::Vec3::new(30.0, 0.0, 0.0));
    harness.state_mut().state.step_many(40);
    harness.run_steps(2);
    // Fold the Timing panel above so the plots are on screen.
    harness.get_by_label("Timing").click_accesskit();
    harness.run_steps(2);
    common::open_panel(&mut harness, "Energy");
    harness.get_by_label_contains("now: kinetic");
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-energy.png")).unwrap();
    // The total energy's line is drawn in the right dock.
    let scale = image.width() as f32 / 1280.0;
    let dock = harness.get_by_label_contains("now: kinetic").rect();
    let below = egui::pos2(dock.center().x, dock.bottom() + 60.0);
    let found = common::pixels_near(
        &image,
        egui::pos2(below.x * scale, below.y * scale),
        (140.0 * scale) as i32,
        atoll::editor::panels::energy::TOTAL_COLOUR,
        60,
    );
    assert!(found >= 20, "the total energy's line is drawn below {below:?}: {found} pixels");
    // The button goes to the step and selects the box.
    harness.get_by_label("Find the blow-up").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), 11);
    assert_eq!(harness.state().state.selected(), Some(top));
    let name = harness.state().state.body_name(top);
    assert!(harness.query_all_by_label_contains(&format!("step 11: {name} gained most")).count() >= 1);
    // The energies as CSV: a header and a row per kept step, the rise at step 81.
    let path = std::env::temp_dir().join(format!("atoll-energy-{}.csv", std::process::id()));
    harness.state_mut().panels.find_mut::<EnergyPanel>().unwrap().csv_path = path.display().to_string();
    harness.run_steps(1);
    harness.get_by_label("Save CSV").click_accesskit();
    harness.run_steps(2);
    let text = std::fs::read_to_string(&path).unwrap();
    let rows: Vec<&str> = text.lines().collect();
    assert_eq!(rows[0], "step,kinetic_J,potential_J,total_J,px,py,pz,Lx,Ly,Lz");
    assert_eq!(rows.len(), 1 + harness.state().state.sim.timeline.history.steps().len());
    let kinetic = |step: &str| -> f64 {
        let row = rows.iter().find(|r| r.starts_with(&format!("{step},"))).unwrap();
        row.split(',').nth(1).unwrap().parse().unwrap()
    };
    assert!(kinetic("11") > kinetic("10") + 1000.0);
    std::fs::remove_file(&path).ok();
    // The selected box's island, plotted from its selection on: the steps taken since.
    harness.state_mut().state.step_many(5);
    harness.run_steps(2);
    let samples: Vec<_> = harness.state().state.diag.island_energy.samples().copied().collect();
    assert_eq!(samples.iter().map(|s| s.0).collect::<Vec<_>>(), [12, 13, 14, 15, 16]);
    let world = &harness.state().state.sim.world;
    let island = world.body_island(top).unwrap().expect("the flung box is awake in an island");
    assert_eq!(samples.last().unwrap().1, world.island_energy(island).unwrap());
    harness.get_by_label_contains(&format!("the island of {name}, since it was selected"));
}

#[test]
fn a_watched_contact_is_plotted_step_by_step_and_substep_by_substep_and_saved_as_csv() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    // The bottom box, selected: the Contacts panel lists its two pairs (floor and box above).
    let bottom = harness.state().state.sim.world.body_ids().nth(1).unwrap();
    harness.state_mut().state.doc.selection.set(Some(bottom));
    harness.state_mut().state.step_many(20);
    harness.run_steps(2);
    common::open_panel(&mut harness, "Contacts");
    harness.get_all_by_label("watch").next().expect("a watch button per pair").click_accesskit();
    harness.run_steps(2);
    let watched = harness.state().state.diag.contact_watch.contact().expect("a pair is watched");
    assert_eq!(harness.state().state.sim.world.traced_contacts(), [watched]);
    harness.get_by_label_contains("watching ");
    // The kept steps before the pair was picked are filled in by a walk through the history,
    // a slice a frame: every kept step has a sample, the same as the world had then.
    harness.run_steps(4);
    assert!(harness.state().state.diag.contact_watch.filling().is_none(), "the walk is done");
    let (first, last) = harness.state().state.sim.timeline.range();
    let samples: Vec<_> = harness.state().state.diag.contact_watch.samples().copied().collect();
    assert_eq!(samples.iter().map(|s| s.step).collect::<Vec<_>>(), (first..=last).collect::<Vec<_>>());
    let (weight_then, weight_now) = (samples[10].total_normal(), samples.last().unwrap().total_normal());
    assert!(
        weight_then > 0.0 && (weight_then - weight_now).abs() < 0.05 * weight_now,
        "{weight_then} {weight_now}"
    );
    // The step shown was not traced when the pair was picked: taking it again traces it.
    harness.get_by_label_contains("substep by substep").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), last);
    harness.get_by_label_contains("substep by substep (N)");
    // Woken (the settled tower sleeps, and a sleeping pair is not solved): the last step is
    // traced.
    harness.state_mut().state.sim.world.wake_all();
    harness.state_mut().state.step_many(10);
    harness.run_steps(2);
    harness.get_by_label_contains("substep by substep (N)");
    // The Timing and Inspector panels closed: both plots in view.
    for panel in ["Timing", "Inspector"] {
        harness.get_by_label(panel).click_accesskit();
        harness.run_steps(2);
    }
    harness.get_by_label("Save contact CSV").scroll_to_me();
    harness.run_steps(2);
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-contact-watch.png")).unwrap();
    // The plots' lines are drawn in the panel (right of the viewport): the first point's, and
    // the substeps' solve line, in the same blue.
    let drawn = common::dock_pixels(&image, {
        let [r, g, b, _] = atoll::editor::panels::contacts::POINT_COLOURS[0].to_array();
        [r, g, b]
    });
    assert!(drawn > 50, "{drawn} pixels of the first point's line");
    // Saved: a row per step watched.
    let path = std::env::temp_dir().join("atoll-contact.csv");
    let _ = std::fs::remove_file(&path);
    harness.get_by_label("Save contact CSV").click_accesskit();
    harness.run_steps(2);
    harness.get_by_label_contains("steps of the pair to");
    let text = std::fs::read_to_string(&path).unwrap();
    let kept = harness.state().state.sim.timeline.history.steps().len();
    assert_eq!(text.lines().count(), 1 + kept, "a header and a row per kept step");
    assert!(text.starts_with("step,points,normal_1_n"));
    // Unwatching stops the engine's trace.
    harness.get_by_label("watching").click_accesskit();
    harness.run_steps(2);
    assert!(harness.state().state.sim.world.traced_contacts().is_empty());
}

#[test]
fn the_islands_panel_watches_the_selected_islands_solve_pass_by_pass() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let awake = StepSettings { sleep_enabled: false, ..*harness.state().state.sim.world.settings() };
    harness.state_mut().state.apply_settings(awake).unwrap();
    harness.state_mut().state.step_many(30);
    let island = {
        let world = &harness.state().state.sim.world;
        let body = world.body_ids().find(|&b| world.body(b).unwrap().mass > 0.0).unwrap();
        world.body_island(body).unwrap().unwrap()
    };
    harness.state_mut().state.select_island(Some(island));
    for panel in ["Timing", "Inspector"] {
        harness.get_by_label(panel).click_accesskit();
        harness.run_steps(2);
    }
    common::open_panel(&mut harness, "Islands");
    harness.get_by_label("watch this island's solve").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.traced_island(), Some(island));
    // The step shown was taken before the watch: taken again, it is traced.
    harness.get_by_label_contains("substep by substep").click_accesskit();
    harness.run_steps(2);
    let trace = harness.state().state.sim.world.island_trace().cloned().expect("the step is traced");
    let substeps = harness.state().state.sim.world.settings().substeps as usize;
    assert_eq!(trace.substeps.len(), 2 * substeps);
    assert_eq!(trace.contacts as usize, harness.state().state.sim.world.touching_contacts().count());
    harness.get_by_label_contains("touching pairs; after the last relax");
    harness.state_mut().state.step_many(3);
    harness.run_steps(2);
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-island-solve.png")).unwrap();
    let drawn = common::dock_pixels(&image, atoll::editor::panels::islands::APPROACH_COLOUR);
    assert!(drawn > 50, "{drawn} pixels of the largest approach's line");
    // Unticked: the engine stops tracing.
    harness.get_by_label("watch this island's solve").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.traced_island(), None);
}
