//! The editor's real UI driven by egui_kittest and rendered through wgpu (lavapipe in CI): play,
//! pause and single-step change the world as they should, and the viewport shows a picture.

mod common;

use atoll::editor::Editor;
use common::harness;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

fn steps(harness: &Harness<'_, Editor>) -> u64 {
    harness.state().state.sim.world.step_count()
}

#[test]
fn play_pause_step_reset() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    assert_eq!(steps(&harness), 0, "the editor opens paused");

    harness.key_press(egui::Key::Space);
    harness.run_steps(5);
    assert!(harness.state().state.sim.playing);
    let played = steps(&harness);
    assert!(played >= 4, "playing advanced only {played} steps");

    harness.get_by_label("Pause").click();
    harness.run_steps(2);
    assert!(!harness.state().state.sim.playing);
    let paused_at = steps(&harness);
    harness.run_steps(3);
    assert_eq!(steps(&harness), paused_at, "paused, yet the world advanced");

    let top = |h: &Harness<'_, Editor>| {
        let world = &h.state().state.sim.world;
        world.body_ids().map(|id| world.transform(id).unwrap().position).last().unwrap()
    };
    let before = top(&harness);
    harness.get_by_label("Step").click();
    harness.run_steps(2);
    assert_eq!(steps(&harness), paused_at + 1, "Step must advance exactly one step");
    assert_ne!(top(&harness), before, "the step did not move the falling top box");

    harness.key_press(egui::Key::Period);
    harness.run_steps(1);
    assert_eq!(steps(&harness), paused_at + 2, "`.` steps once");

    harness.key_press(egui::Key::R);
    harness.run_steps(1);
    assert_eq!(steps(&harness), 0, "R resets to the loaded state");
}

#[test]
fn viewport_shows_the_scene() {
    let mut harness = harness("pyramid_3d.ron");
    harness.run_steps(2);
    let image = harness.render().expect("the harness renders through wgpu");
    // Set ATOLL_UI_SNAPSHOT=file.png to look at the frame this test checks.
    if let Some(path) = std::env::var_os("ATOLL_UI_SNAPSHOT") {
        image.save(path).unwrap();
    }
    // The viewport fills the middle of the window: it must show a picture, not a flat colour.
    let (w, h) = image.dimensions();
    let mut colours = std::collections::HashSet::new();
    for y in (h / 4..3 * h / 4).step_by(3) {
        for x in (w / 4..3 * w / 4).step_by(3) {
            colours.insert(image.get_pixel(x, y).0);
        }
    }
    assert!(colours.len() > 50, "viewport looks uniform: {} colours", colours.len());
    // The status bar reports the scene, its awake bodies and islands.
    let bodies = harness.state().state.sim.world.body_count();
    harness.get_by_label(&format!("{bodies} bodies"));
    harness.get_by_label_contains("awake)");
}

#[test]
fn frame_bench_times_the_editor_on_a_live_scene() {
    use atoll::frame_bench::{FrameBenchOptions, measure};
    let options = FrameBenchOptions {
        frames: 3,
        warmup: 1,
        ..FrameBenchOptions::new(atoll::scenes::scenes_dir().join("tower.ron"))
    };
    let report = measure(&options).expect("the bench needs a GPU adapter, as every rendering test");
    assert_eq!((report.frames, report.bodies, report.min_awake), (3, 21, 20));
    let m = report.median;
    assert!(m.ui_ms > 0.0 && m.instances_ms > 0.0 && m.tessellate_ms > 0.0, "{m:?}");
    let parts =
        m.ui_ms + m.instances_ms + m.lines_ms + m.viewport_record_ms + m.tessellate_ms + m.egui_record_ms;
    assert!(m.cpu_ms > 0.0 && parts <= m.cpu_ms * 1.5 + 0.1, "parts {parts} against {m:?}");
}
