//! Recordings in the editor, driven through the real UI with egui_kittest: File > Save
//! recording writes the scene with the edits made while it ran and every step's hash; File >
//! Open recording replays it as the simulation plays and says every step matched; a tampered
//! recording stops at the step where it differs and names it; a malformed one leaves the open
//! scene as it was.

mod common;

use atoll::editor::Editor;
use atoll_physics::{Recording, Vec3, state_hash};
use common::harness;
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;
use std::path::{Path, PathBuf};

fn temp_path(name: &str) -> PathBuf {
    std::env::temp_dir().join(format!("atoll-recording-{}-{name}", std::process::id()))
}

/// The tower stepped 20 times, knocked, and stepped 40 more.
fn tower_with_a_knock() -> Harness<'static, Editor> {
    let mut harness = harness("tower.ron");
    harness.state_mut().state.doc.session.native_dialogs = false;
    harness.run_steps(2);
    let state = &mut harness.state_mut().state;
    state.step_many(20);
    let top = state.sim.world.body_ids().last().unwrap();
    state.sim.world.apply_impulse(top, Vec3::new(3.0, 4.0, 0.0)).unwrap();
    state.mark_edited();
    state.step_many(40);
    harness.run_steps(2);
    harness
}

/// Chooses `item` in the File menu and answers the path prompt with `path`.
fn file_menu_with_path(harness: &mut Harness<'_, Editor>, item: &str, path: &Path) {
    harness.get_by_label("File").click();
    harness.run_steps(2);
    harness.get_by_label(item).click();
    harness.run_steps(2);
    harness.state_mut().state.doc.session.path_prompt.as_mut().expect("the menu asks where").text =
        path.display().to_string();
    harness.run_steps(1);
    harness.get_by_label("OK").click();
    harness.run_steps(2);
}

/// Runs frames until the replay stops (at most `frames`).
fn run_replay(harness: &mut Harness<'_, Editor>, frames: usize) {
    for _ in 0..frames {
        if !harness.state().state.replaying() {
            break;
        }
        harness.run_steps(1);
    }
    harness.run_steps(2);
}

#[test]
fn a_saved_recording_opens_and_replays_every_step() {
    let mut harness = tower_with_a_knock();
    let expected = state_hash(&harness.state().state.sim.world);
    let path = temp_path("knock.recording.ron");
    file_menu_with_path(&mut harness, "Save recording...", &path);
    harness.get_by_label_contains("saved the recording of steps 0 to 60 (1 inputs)");
    let recording = Recording::load(&path).unwrap();
    assert_eq!(recording.steps(), 60);
    assert_eq!(recording.inputs[0].step, 20);

    // Back to the knock first, so the replay really comes from the file.
    harness.state_mut().state.reset();
    file_menu_with_path(&mut harness, "Open recording...", &path);
    run_replay(&mut harness, 400);
    let state = &harness.state().state;
    assert!(!state.replaying() && !state.sim.playing);
    assert_eq!(state.sim.world.step_count(), 60);
    assert_eq!(state_hash(&state.sim.world), expected, "the replay ends where the recording did");
    assert!(state.diag.notices.message(atoll::editor::notices::NoticePlace::ErrorWindow).is_none());
    harness.get_by_label_contains("all 60 steps match the recording");
    // The replayed steps are on the timeline: one step back goes to step 59.
    harness.key_press(egui::Key::Comma);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), 59);
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_tampered_recording_stops_at_the_step_where_it_differs() {
    let mut harness = tower_with_a_knock();
    let mut recording = harness.state().state.sim.world.recording().unwrap();
    recording.step_hashes[29] ^= 1;
    let path = temp_path("tampered.recording.ron");
    recording.save(&path).unwrap();
    file_menu_with_path(&mut harness, "Open recording...", &path);
    run_replay(&mut harness, 400);
    let state = &harness.state().state;
    assert!(!state.replaying() && !state.sim.playing);
    assert_eq!(state.sim.world.step_count(), 30, "the world is shown at the step that differs");
    let message = state.diag.notices.message(atoll::editor::notices::NoticePlace::ErrorWindow).unwrap();
    assert!(message.contains("diverges at step 30"), "{message}");
    harness.get_by_label_contains("differs from the recording at step 30");
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-recording-diverged.png")).unwrap();
    std::fs::remove_file(path).unwrap();
}

#[test]
fn a_malformed_recording_leaves_the_open_scene() {
    let mut harness = tower_with_a_knock();
    let recording = harness.state().state.sim.world.recording().unwrap();
    let text = recording.to_ron_string().replacen("start_hash: ", "start_hash: -", 1);
    let path = temp_path("broken.recording.ron");
    std::fs::write(&path, text).unwrap();
    let before = state_hash(&harness.state().state.sim.world);
    file_menu_with_path(&mut harness, "Open recording...", &path);
    let state = &harness.state().state;
    assert!(!state.replaying());
    assert_eq!(state_hash(&state.sim.world), before, "the open scene is untouched");
    assert_eq!(state.sim.world.step_count(), 60);
    let message = state.diag.notices.message(atoll::editor::notices::NoticePlace::ErrorWindow).unwrap();
    assert!(
        message.contains("line") && message.contains("column") && message.contains("start_hash"),
        "{message}"
    );
    std::fs::remove_file(path).unwrap();
}
