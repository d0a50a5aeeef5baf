//! The history: going back and forth reproduces the recorded steps bit for bit, edits start
//! segments (an edit in the past discards what came after), a structural edit's world comes
//! back when going back across it, and the window and budget bound what is kept.

mod common;

use atoll_physics::{BodyDesc, History, HistorySettings, Shape, Vec3, World, state_hash};
use proptest::prelude::*;

/// A history of `steps` steps of `scene`, recorded as the editor records them.
fn recorded(scene: &str, steps: usize, settings: HistorySettings) -> (World, History) {
    let (mut world, _) = common::builtin(scene);
    let mut history = History::new(settings);
    history.record(&world);
    for _ in 0..steps {
        world.step();
        history.record(&world);
    }
    (world, history)
}

#[test]
fn back_150_and_forward_150_is_the_uninterrupted_run() {
    let (mut world, mut history) = recorded("rain.ron", 300, HistorySettings::default());
    let uninterrupted = state_hash(&world);
    let report = history.seek(&mut world, 150).unwrap();
    assert!(report.restored, "going back restores a kept state");
    assert_eq!(world.step_count(), 150);
    assert_eq!(state_hash(&world), history.record_of(150).unwrap().hash);
    // Forward again by stepping, as pressing play does: the records match, nothing is added.
    for _ in 0..150 {
        world.step();
        let outcome = history.record(&world);
        assert!(!outcome.recorded && outcome.discarded == 0);
    }
    assert_eq!(state_hash(&world), uninterrupted);
    assert_eq!(history.range(), Some((0, 300)));
    // And by seeking.
    history.seek(&mut world, 150).unwrap();
    history.seek(&mut world, 300).unwrap();
    assert_eq!(state_hash(&world), uninterrupted);
}

#[test]
fn stepping_back_one_at_a_time_restores_kept_states_instead_of_replaying() {
    let (mut world, mut history) = recorded("rain.ron", 200, HistorySettings::default());
    let first = history.seek(&mut world, 199).unwrap();
    let mut replayed = first.replayed;
    for step in (150..199).rev() {
        let report = history.seek(&mut world, step).unwrap();
        assert_eq!(state_hash(&world), history.record_of(step).unwrap().hash);
        replayed += report.replayed;
    }
    // Rain's state is small: every keyframe interval is a step or two, and the back cache
    // holds the rest, so 50 steps back replay far fewer than 50 × the interval.
    assert!(replayed <= 50 + history.keyframe_interval(), "replayed {replayed}");
}

#[test]
fn an_edit_in_the_past_discards_the_steps_after_it() {
    let (mut world, mut history) = recorded("rain.ron", 120, HistorySettings::default());
    history.seek(&mut world, 80).unwrap();
    let id = world.body_ids().nth(3).unwrap();
    world.apply_impulse(id, Vec3::new(0.0, 40.0, 0.0)).unwrap();
    let outcome = history.record(&world);
    assert_eq!(outcome.discarded, 40, "steps 81..=120 are gone");
    assert_eq!(history.range(), Some((0, 80)));
    assert!(history.record_of(80).unwrap().after_edit);
    // Playing on from the edit records a new future.
    for _ in 0..20 {
        world.step();
        assert!(history.record(&world).recorded);
    }
    assert_eq!(history.range(), Some((0, 100)));
    // Both sides of the edit can be gone back to.
    let edited_100 = state_hash(&world);
    history.seek(&mut world, 40).unwrap();
    assert_eq!(state_hash(&world), history.record_of(40).unwrap().hash);
    history.seek(&mut world, 100).unwrap();
    assert_eq!(state_hash(&world), edited_100);
}

#[test]
fn going_back_across_a_new_body_brings_back_the_world_without_it() {
    let (mut world, mut history) = recorded("rain.ron", 60, HistorySettings::default());
    let count = world.body_count();
    world.create_body(&BodyDesc::dynamic(Shape::sphere(0.4).unwrap(), Vec3::new(0.0, 25.0, 0.0))).unwrap();
    history.record(&world);
    for _ in 0..60 {
        world.step();
        history.record(&world);
    }
    let end = state_hash(&world);
    let report = history.seek(&mut world, 30).unwrap();
    assert!(report.rebuilt_structure);
    assert_eq!(world.body_count(), count);
    assert_eq!(state_hash(&world), history.record_of(30).unwrap().hash);
    history.seek(&mut world, 120).unwrap();
    assert_eq!(world.body_count(), count + 1);
    assert_eq!(state_hash(&world), end);
}

#[test]
fn the_window_and_the_budget_bound_what_is_kept() {
    let settings = HistorySettings { window: 100, ..Default::default() };
    let (mut world, mut history) = recorded("rain.ron", 250, settings);
    let (first, last) = history.range().unwrap();
    assert_eq!(last, 250);
    assert!(last - first < 100 + history.keyframe_interval(), "kept {first}..={last}");
    assert!(history.seek(&mut world, first.saturating_sub(1)).is_err() || first == 0);
    assert!(history.seek(&mut world, 251).is_err());
    // A budget of a few keyframes spreads them out.
    let tight = HistorySettings { window: 10_000, budget_bytes: 4 << 20, back_cache_bytes: 1 << 20 };
    let (_, history) = recorded("rain.ron", 120, tight);
    assert!(history.keyframe_interval() > 1, "interval {}", history.keyframe_interval());
    assert!(history.bytes() < 12 << 20, "{} bytes", history.bytes());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Any sequence of seeks in the window lands on the recorded state.
    #[test]
    fn random_seeks_reproduce_the_recorded_hashes(targets in prop::collection::vec(0u64..=160, 1..8)) {
        let (mut world, mut history) = recorded("dominoes.ron", 160, HistorySettings::default());
        for target in targets {
            history.seek(&mut world, target).unwrap();
            prop_assert_eq!(world.step_count(), target);
            prop_assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash);
        }
    }
}

#[test]
fn steps_back_prepared_while_the_world_waits_restore_without_replaying() {
    let (mut world, mut history) = recorded("rain.ron", 300, HistorySettings::default());
    history.seek(&mut world, 200).unwrap();
    for target in (180..200).rev() {
        // The world waits at its step: the states before it are rebuilt on a copy, a slice of
        // time per call, and the world itself is left as it is.
        let before = state_hash(&world);
        let mut calls = 0;
        while !history.prepare_back(&world, std::time::Duration::from_millis(2)).unwrap().ready {
            calls += 1;
            assert!(calls < 10_000, "the fill never finishes");
        }
        assert_eq!(state_hash(&world), before);
        let report = history.seek(&mut world, target).unwrap();
        assert_eq!(report.replayed, 0, "step {target} was kept ahead");
        assert!(report.restored);
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash);
    }
    // Forward again from there: the records match and stay.
    for _ in 180..300 {
        world.step();
        assert!(!history.record(&world).recorded);
    }
}

#[test]
fn the_first_steps_back_from_the_live_end_replay_nothing() {
    // Keyframes far apart (a budget of a few dozen states) and room for eight states kept for
    // stepping back: half of them hold the last steps recorded.
    let (mut probe, _) = common::builtin("pyramid_3d.ron");
    for _ in 0..120 {
        probe.step();
    }
    let state = probe.capture().bytes();
    let settings =
        HistorySettings { window: 10_000, budget_bytes: 40 * state, back_cache_bytes: 8 * state + state / 2 };
    let (mut world, mut history) = recorded("pyramid_3d.ron", 240, settings);
    assert!(history.keyframe_interval() > 8, "interval {}", history.keyframe_interval());
    for target in (237..240).rev() {
        let report = history.seek(&mut world, target).unwrap();
        assert_eq!((report.replayed, report.restored), (0, true), "step {target}");
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash);
    }
    // Forward to the live end and on: the recorded steps match, then new ones are recorded.
    for _ in 237..250 {
        world.step();
        history.record(&world);
    }
    assert_eq!(history.range().unwrap().1, 250);
    assert_eq!(history.seek(&mut world, 249).unwrap().replayed, 0);
}
