//! The history: going back and forth reproduces the recorded steps bit for bit, edits start
//! segments (an edit in the past discards what came after), a structural edit's world comes
//! back when going back across it, and the window and budget bound what is kept.

mod common;

use atoll_physics::{
    BodyDesc, History, HistorySettings, PrepareReport, RecordOutcome, Shape, Vec3, World, state_hash,
};
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
    both_sides_of_an_edit(&mut world, &mut history, 40);
    assert_eq!(history.range(), Some((0, 100)));
}

/// Steps 20 times on from an edit, each step recorded as a new one, then goes back to step
/// `before` (before the edit) and forward to the last step: both are the recorded states.
fn both_sides_of_an_edit(world: &mut World, history: &mut History, before: u64) {
    for _ in 0..20 {
        world.step();
        assert!(history.record(world).recorded);
    }
    let (edited, last) = (state_hash(world), world.step_count());
    history.seek(world, before).unwrap();
    assert_eq!(state_hash(world), history.record_of(before).unwrap().hash);
    history.seek(world, last).unwrap();
    assert_eq!(state_hash(world), edited);
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

    /// Any sequence of seeks in a window whose steps were made with inputs lands on the
    /// recorded state.
    #[test]
    fn random_seeks_through_recorded_inputs_reproduce_the_hashes(targets in prop::collection::vec(0u64..=120, 1..6)) {
        let (mut world, mut history) = pushed_rain(120);
        for target in targets {
            history.seek(&mut world, target).unwrap();
            prop_assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash);
        }
    }

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

/// A recorded world of the rain, pushed sideways at one body for steps 20..60 (as a grab pulls
/// a body every step) and struck once at step 70, recorded for `steps` steps.
fn pushed_rain(steps: u64) -> (World, History) {
    let (mut world, ids) = common::builtin_recorded("rain.ron");
    let pushed = ids[5];
    let mut history = History::new(HistorySettings::default());
    history.record(&world);
    for step in 0..steps {
        if (20..60).contains(&step) {
            world.apply_force(pushed, Vec3::new(30.0, 0.0, 0.0)).unwrap();
        }
        if step == 70 {
            world.apply_impulse(pushed, Vec3::new(0.0, 20.0, 0.0)).unwrap();
            // The editor records after an edit made while paused: nothing is discarded.
            assert_eq!(history.record(&world), RecordOutcome::default());
        }
        world.step();
        history.record(&world);
    }
    (world, history)
}

#[test]
fn steps_back_prepared_on_a_thread_of_its_own_restore_without_replaying() {
    // A back cache with room for five of the pile's states: a tail of one and two levels of
    // checkpoints. Each step back finds its state kept by the fill that ran on its own thread
    // while the world waited, all the way back across a keyframe.
    let state_bytes = recorded("rain.ron", 240, HistorySettings::default()).0.capture().bytes();
    let back_cache_bytes = 5 * state_bytes + state_bytes / 2;
    let settings = HistorySettings {
        window: 10_000,
        budget_bytes: back_cache_bytes + 40 * state_bytes,
        back_cache_bytes,
    };
    let (mut world, mut history) = recorded("rain.ron", 240, settings);
    history.seek(&mut world, 230).unwrap();
    for target in (150..230).rev() {
        let before = state_hash(&world);
        let started = std::time::Instant::now();
        while !history.prepare_back_aside(&world).unwrap().ready {
            assert!(started.elapsed().as_secs() < 60, "the fill never finishes");
            std::thread::sleep(std::time::Duration::from_millis(1));
        }
        assert_eq!(state_hash(&world), before, "the world itself is left as it is");
        let report = history.seek(&mut world, target).unwrap();
        assert_eq!(report.replayed, 0, "step {target} was kept ahead");
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash);
    }
    // Steps back taken while a fill runs: what the stopped threads reached is taken up, and
    // every step is still the recorded one.
    for target in (100..150).rev() {
        history.prepare_back_aside(&world).unwrap();
        history.seek(&mut world, target).unwrap();
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash, "step {target}");
    }
    // Forward again from there: the records match and stay.
    for _ in 100..240 {
        world.step();
        assert!(!history.record(&world).recorded);
    }
}

#[test]
fn a_back_cache_too_small_for_a_state_gives_up_instead_of_rebuilding_forever() {
    // Room for half a state: the fill rebuilds the step before the cursor once, the cache
    // cannot hold it, and the paused frames after that replay nothing.
    let state_bytes = recorded("rain.ron", 60, HistorySettings::default()).0.capture().bytes();
    let settings = HistorySettings { back_cache_bytes: state_bytes / 2, ..Default::default() };
    let (mut world, mut history) = recorded("rain.ron", 60, settings);
    history.seek(&mut world, 40).unwrap();
    let mut calls = 0;
    while !history.prepare_back(&world, std::time::Duration::from_millis(2)).unwrap().ready {
        calls += 1;
        assert!(calls < 1000, "the fill never finishes");
    }
    for _ in 0..3 {
        let report = history.prepare_back(&world, std::time::Duration::from_millis(2)).unwrap();
        assert_eq!(report, PrepareReport { replayed: 0, ready: true });
    }
    // Still a recorded step: one step back replays from the keyframe and matches.
    history.seek(&mut world, 39).unwrap();
    assert_eq!(state_hash(&world), history.record_of(39).unwrap().hash);
}

#[test]
fn inputs_of_a_recorded_world_are_replayed_instead_of_starting_segments() {
    let (mut world, mut history) = pushed_rain(120);
    let end = state_hash(&world);
    // One segment: the pushes are inputs of the steps after them, not new keyframes.
    assert!(history.steps().all(|r| r.segment == history.record_of(0).unwrap().segment));
    assert_eq!(history.steps().filter(|r| r.inputs > 0).count(), 41);
    assert_eq!(history.record_of(21).unwrap().inputs, 1);
    assert_eq!(history.inputs_at(70).len(), 1);
    for target in [45, 10, 71, 70, 59, 120, 21] {
        history.seek(&mut world, target).unwrap();
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash, "step {target}");
    }
    // Steps back prepared while the world waits make the inputs on the copy too.
    history.seek(&mut world, 55).unwrap();
    while !history.prepare_back(&world, std::time::Duration::from_millis(2)).unwrap().ready {}
    for target in (50..55).rev() {
        assert_eq!(history.seek(&mut world, target).unwrap().replayed, 0);
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash, "step {target}");
    }
    // Playing on from a step in the past makes the recorded inputs again: every step matches
    // its record, and the end is the uninterrupted run's.
    history.seek(&mut world, 30).unwrap();
    while world.step_count() < 120 {
        history.make_recorded_inputs(&mut world).unwrap();
        world.step();
        assert_eq!(history.record(&world), RecordOutcome::default(), "step {}", world.step_count());
    }
    assert_eq!(state_hash(&world), end);
    // The recording the world keeps still replays to the same hashes.
    let recording = world.recording().unwrap();
    assert_eq!(recording.inputs.len(), 41);
}

#[test]
fn another_input_at_a_step_in_the_past_discards_the_steps_after_it_at_once() {
    let (mut world, mut history) = pushed_rain(120);
    history.seek(&mut world, 40).unwrap();
    let id = world.body_ids().nth(9).unwrap();
    world.apply_impulse(id, Vec3::new(0.0, 40.0, 0.0)).unwrap();
    let outcome = history.record(&world);
    assert_eq!(outcome, RecordOutcome { discarded: 80, recorded: false });
    assert_eq!(history.range(), Some((0, 40)));
    // The same push as recorded, made again at a step in the past, keeps the future.
    let (mut again, mut kept) = pushed_rain(120);
    kept.seek(&mut again, 40).unwrap();
    let pushed = again.body_ids().nth(5).unwrap();
    again.apply_force(pushed, Vec3::new(30.0, 0.0, 0.0)).unwrap();
    assert_eq!(kept.record(&again), RecordOutcome::default());
    again.step();
    assert_eq!(kept.record(&again), RecordOutcome::default());
    assert_eq!(kept.range(), Some((0, 120)));
    // Stepping on from the edit records a new future in the same segment.
    both_sides_of_an_edit(&mut world, &mut history, 30);
}

#[test]
fn a_seek_with_a_time_budget_stops_at_recorded_steps_on_the_way_and_goes_on_from_there() {
    let settings = HistorySettings { window: 10_000, budget_bytes: 8 << 20, back_cache_bytes: 2 << 20 };
    let (mut world, mut history) = recorded("rain.ron", 200, settings);
    assert!(history.keyframe_interval() > 4, "interval {}", history.keyframe_interval());
    let target = 200 - history.keyframe_interval().min(150) / 2;
    // No time at all: each call replays one step and stops at a recorded step.
    let mut calls = 0;
    loop {
        let report = history.seek_for(&mut world, target, std::time::Duration::ZERO).unwrap();
        calls += 1;
        let at = world.step_count();
        assert!(at <= target);
        assert_eq!(state_hash(&world), history.record_of(at).unwrap().hash, "step {at}");
        if report.arrived {
            break;
        }
        assert!(report.replayed <= 1 && calls < 1000);
    }
    assert_eq!(world.step_count(), target);
    assert!(calls > 1, "the replay came in slices");
    // Time enough: one call gets there, as a plain seek does.
    assert!(history.seek_for(&mut world, 20, std::time::Duration::from_secs(60)).unwrap().arrived);
    assert_eq!(state_hash(&world), history.record_of(20).unwrap().hash);
}

#[test]
fn a_world_stepped_twice_without_a_record_leaves_no_stale_record_behind() {
    for recorded_world in [false, true] {
        let (mut world, mut history) = if recorded_world {
            pushed_rain(80)
        } else {
            recorded("rain.ron", 80, HistorySettings::default())
        };
        history.seek(&mut world, 30).unwrap();
        world.step();
        world.step();
        history.record(&world);
        // Step 31 was never recorded on this path: nothing before the world's step can stand.
        assert_eq!(history.range(), Some((32, 32)), "recorded world: {recorded_world}");
        assert!(history.record_of(31).is_none());
        for _ in 0..10 {
            world.step();
            history.record(&world);
        }
        history.seek(&mut world, 35).unwrap();
        assert_eq!(state_hash(&world), history.record_of(35).unwrap().hash);
    }
}

#[test]
fn a_world_whose_tape_broke_is_still_recorded_step_after_step() {
    let (mut world, mut history) = pushed_rain(40);
    // A state of another history (a copy stepped on its own) breaks the world's tape.
    let mut other = world.clone();
    other.step();
    world.restore_compact(&other.capture()).unwrap();
    assert!(world.recording().is_err(), "the tape no longer leads to the world");
    history.record(&world);
    for _ in 0..20 {
        world.step();
        assert!(history.record(&world).recorded);
    }
    let last = history.range().unwrap().1;
    let segment = history.record_of(last).unwrap().segment;
    assert!(((last - 19)..=last).all(|s| history.record_of(s).unwrap().segment == segment));
    assert!(((last - 19)..=last).all(|s| !history.record_of(s).unwrap().after_edit), "no segment a step");
    history.seek(&mut world, last - 5).unwrap();
    assert_eq!(state_hash(&world), history.record_of(last - 5).unwrap().hash);
}

#[test]
fn steps_back_taken_while_a_fill_is_under_way_keep_what_it_rebuilt() {
    let settings = HistorySettings { window: 10_000, budget_bytes: 8 << 20, back_cache_bytes: 2 << 20 };
    let (mut world, mut history) = recorded("rain.ron", 200, settings);
    history.seek(&mut world, 150).unwrap();
    for target in (120..150).rev() {
        // A frame or two of preparing (a step each), then the next step back, fill or not.
        for _ in 0..2 {
            history.prepare_back(&world, std::time::Duration::ZERO).unwrap();
        }
        history.seek(&mut world, target).unwrap();
        assert_eq!(state_hash(&world), history.record_of(target).unwrap().hash, "step {target}");
    }
    // Forward again: the records stand.
    for _ in 120..200 {
        world.step();
        assert!(!history.record(&world).recorded);
    }
}

#[test]
fn the_bodies_held_back_are_kept_by_step_and_cut_with_the_steps() {
    use atoll_physics::{BodyFaultKind, FaultRun, HeldBack, StepSettings};
    let settings = StepSettings { max_linear_speed: 5.0, gravity: Vec3::ZERO, ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    let sphere = || Shape::sphere(0.5).unwrap();
    let fast = world.create_body(&BodyDesc::dynamic(sphere(), Vec3::ZERO)).unwrap();
    let mut drifting = BodyDesc::dynamic(sphere(), Vec3::new(0.0, 0.0, 9.0));
    drifting.linear_velocity = Vec3::new(0.0, 0.0, 1.0);
    let other = world.create_body(&drifting).unwrap();
    let mut history = History::new(HistorySettings { window: 40, ..HistorySettings::default() });
    history.record(&world);
    let over_the_cap = Vec3::new(50.0, 0.0, 0.0);
    for step in 1..=20 {
        // Pushed past the cap before steps 4 and 11 to 13, poisoned before step 16.
        if step == 4 || (11..=13).contains(&step) {
            world.set_linear_velocity(fast, over_the_cap).unwrap();
        }
        if step == 16 {
            world.set_velocities_unchecked(other, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO);
        }
        world.step();
        history.record(&world);
    }
    let events = |step: u64| history.record_of(step).unwrap().events;
    assert_eq!((events(4).bodies_capped, events(4).bodies_stopped), (1, 0));
    assert_eq!((events(5).bodies_capped, events(5).bodies_stopped), (0, 0));
    assert_eq!((events(16).bodies_capped, events(16).bodies_stopped), (0, 1));
    let runs: Vec<FaultRun> = history.fault_runs_of(fast).copied().collect();
    let spans: Vec<(u64, u64)> = runs.iter().map(|r| (r.first, r.last)).collect();
    assert_eq!(spans, vec![(4, 4), (11, 13)], "{runs:?}");
    assert!(runs.iter().all(|r| r.kind == BodyFaultKind::Capped));
    assert_eq!(history.held_back(fast, BodyFaultKind::Capped), Some(HeldBack { first: 4, steps: 4 }));
    assert_eq!(history.held_back(fast, BodyFaultKind::NonFinite), None);
    assert_eq!(history.held_back(other, BodyFaultKind::NonFinite), Some(HeldBack { first: 16, steps: 1 }));
    assert_eq!(history.held_back(other, BodyFaultKind::Capped), None);
    // An edit at step 12 discards the steps after it and the faults in them; the world put back
    // there holds its step's fault again, and the run goes on from it.
    history.seek(&mut world, 12).unwrap();
    world.set_linear_velocity(fast, Vec3::ZERO).unwrap();
    let outcome = history.record(&world);
    assert_eq!(outcome.discarded, 8);
    assert_eq!(history.held_back(fast, BodyFaultKind::Capped), Some(HeldBack { first: 4, steps: 3 }));
    assert_eq!(history.held_back(other, BodyFaultKind::NonFinite), None);
    // Steps beyond the window take the faults in them with them.
    for _ in 0..100 {
        world.step();
        history.record(&world);
    }
    assert!(history.range().unwrap().0 > 13);
    assert_eq!(history.fault_runs().count(), 0);
}

#[test]
fn find_blow_up_lands_on_the_step_an_injected_velocity_first_shows() {
    // The tower standing: nothing adds energy, so nothing is found.
    let (_, history) = recorded("tower.ron", 120, HistorySettings::default());
    assert_eq!(history.find_blow_up(0.1), None, "a standing tower gains no energy");
    // At step 10 the tower is still awake.
    let (mut world, mut history) = recorded("tower.ron", 10, HistorySettings::default());
    // The top box flung sideways behind the tape's back, as a solver fault would.
    let top = world.body_ids().max_by(|a, b| {
        let y = |id| world.transform(id).unwrap().position.y;
        y(*a).total_cmp(&y(*b))
    });
    world.inject_velocity_for_test(top.unwrap(), Vec3::new(30.0, 0.0, 0.0));
    for _ in 0..40 {
        world.step();
        history.record(&world);
    }
    assert_eq!(history.find_blow_up(0.1), Some(11));
    let (before, after) = (history.record_of(10).unwrap().energy, history.record_of(11).unwrap().energy);
    // The box flies: it left the tower.
    assert!(world.transform(top.unwrap()).unwrap().position.x > 5.0);
    assert!(after.kinetic > before.kinetic + 1000.0, "{before:?} -> {after:?}");
    // A velocity set through the API is an input, which explains the rise.
    let (mut world, mut history) = recorded("tower.ron", 10, HistorySettings::default());
    world.set_linear_velocity(top.unwrap(), Vec3::new(30.0, 0.0, 0.0)).unwrap();
    for _ in 0..40 {
        world.step();
        history.record(&world);
    }
    assert_eq!(history.find_blow_up(0.1), None);
}

/// The rain, recorded, with a ball-joint from the world to body 7 added at step 100 (and, with
/// `history`, recorded as the editor records: after every step and after the edit).
fn rain_joined_at_100(steps: u64, mut history: Option<&mut History>) -> (World, Vec<u64>) {
    let (mut world, ids) = common::builtin_recorded("rain.ron");
    let mut hashes = vec![state_hash(&world)];
    if let Some(h) = history.as_deref_mut() {
        h.record(&world);
    }
    for step in 0..steps {
        if step == 100 {
            let at = world.transform(ids[7]).unwrap().position + Vec3::new(0.0, 0.5, 0.0);
            let kind = atoll_physics::JointKind::Spherical(Default::default());
            let desc = world.joint_desc_at(kind, None, ids[7], at, Vec3::Z).unwrap();
            world.create_joint(&desc).unwrap();
            if let Some(h) = history.as_deref_mut() {
                assert_eq!(h.record(&world), RecordOutcome::default(), "an edit at the live end");
            }
        }
        world.step();
        if let Some(h) = history.as_deref_mut() {
            h.record(&world);
        }
        hashes.push(state_hash(&world));
    }
    (world, hashes)
}

#[test]
fn a_joint_added_at_step_100_is_an_input_the_timeline_goes_on_across() {
    // The same run twice: once alone, once recorded in a history.
    let (_, uninterrupted) = rain_joined_at_100(300, None);
    let mut history = History::new(HistorySettings::default());
    let (mut world, recorded) = rain_joined_at_100(300, Some(&mut history));
    assert_eq!(recorded, uninterrupted);
    assert_eq!(history.range(), Some((0, 300)), "the timeline goes on across the edit");
    assert_eq!(history.inputs_at(100).len(), 1, "the joint is an input of step 101");
    let joints = world.joint_count();
    // Back before the joint: the world as it was, without it; forward after: with it.
    for target in [50, 200, 100, 101, 99, 300] {
        history.seek(&mut world, target).unwrap();
        assert_eq!(state_hash(&world), uninterrupted[target as usize], "step {target}");
        let expected = if target > 100 { joints } else { joints - 1 };
        assert_eq!(world.joint_count(), expected, "step {target}");
    }
    // Playing on from step 50 makes the joint again at step 100: every step is the recorded
    // one (nothing discarded), and the end is the uninterrupted run's.
    history.seek(&mut world, 50).unwrap();
    while world.step_count() < 300 {
        history.make_recorded_inputs(&mut world).unwrap();
        world.step();
        let step = world.step_count();
        assert_eq!(history.record(&world), RecordOutcome::default(), "step {step}");
        assert_eq!(state_hash(&world), uninterrupted[step as usize], "step {step}");
    }
    assert_eq!(history.range(), Some((0, 300)));
    // The segments: one make-up before the joint, another from the step after it.
    let segment = |s: u64| history.record_of(s).unwrap().segment;
    assert_eq!(segment(0), segment(100));
    assert_ne!(segment(100), segment(101));
    assert_eq!(segment(101), segment(300));
}

#[test]
fn a_body_added_at_the_live_end_stays_after_a_seek_away_and_back() {
    let (mut world, mut history) = pushed_rain(40);
    let count = world.body_count();
    world.create_body(&BodyDesc::dynamic(Shape::sphere(0.4).unwrap(), Vec3::new(0.0, 25.0, 0.0))).unwrap();
    assert_eq!(history.record(&world), RecordOutcome::default());
    history.seek(&mut world, 20).unwrap();
    assert_eq!(world.body_count(), count);
    history.seek(&mut world, 40).unwrap();
    assert_eq!(world.body_count(), count + 1, "the new body is back at the live end");
    // Stepping on keeps it, once: the step after is recorded with it.
    assert_eq!(history.make_recorded_inputs(&mut world).unwrap(), 0, "already made");
    world.step();
    assert!(history.record(&world).recorded);
    assert_eq!(world.body_count(), count + 1);
    assert_eq!(history.record_of(41).unwrap().inputs, 1);
}

#[test]
fn steps_back_are_prepared_after_playing_across_a_joint_made_again() {
    // A budget that spaces the keyframes out, so the steps back are rebuilt by replay.
    let settings =
        HistorySettings { budget_bytes: 24 << 20, back_cache_bytes: 8 << 20, ..Default::default() };
    let mut history = History::new(settings);
    let (mut world, recorded) = rain_joined_at_100(200, Some(&mut history));
    assert!(history.keyframe_interval() >= 4, "interval {}", history.keyframe_interval());
    history.seek(&mut world, 90).unwrap();
    while world.step_count() < 160 {
        history.make_recorded_inputs(&mut world).unwrap();
        world.step();
        history.record(&world);
    }
    // The joint made again is the same joint, but the world's make-up is a new one: the steps
    // back are rebuilt from the kept world of the recorded make-up.
    while !history.prepare_back(&world, std::time::Duration::from_millis(5)).unwrap().ready {}
    for target in (150..160).rev() {
        history.seek(&mut world, target).unwrap();
        assert_eq!(state_hash(&world), recorded[target as usize], "step {target}");
    }
    history.seek(&mut world, 95).unwrap();
    assert_eq!(state_hash(&world), recorded[95]);
}

#[test]
fn a_walk_goes_through_every_kept_step_leaving_the_world_and_history_alone() {
    use atoll_physics::Walk;
    let settings = HistorySettings { window: 10_000, budget_bytes: 8 << 20, back_cache_bytes: 2 << 20 };
    let (world, history) = recorded("rain.ron", 150, settings);
    let (hash, cursor) = (state_hash(&world), history.cursor());
    // A touching pair at the end, followed back by its shapes.
    let pair = world.touching_contacts().next().expect("the rain has landed");
    let key = pair.pair_key();
    assert_eq!(world.contact_of_pair(&key), Some(pair.id));
    let swapped = atoll_physics::PairKey { a: key.b, b: key.a, chunk: None };
    assert_eq!(world.contact_of_pair(&swapped), Some(pair.id), "either order");
    let mut walk = Walk::new(&history, &world).unwrap();
    let (mut steps, mut found) = (0, 0);
    while let Some(step) = walk.next_step() {
        let copy = walk.advance().unwrap().unwrap();
        assert_eq!(copy.step_count(), step);
        assert_eq!(state_hash(copy), history.record_of(step).unwrap().hash, "step {step}");
        if let Some(id) = copy.contact_of_pair(&key) {
            assert_eq!(copy.contact(id).unwrap().pair_key(), key);
            found += 1;
        }
        steps += 1;
    }
    assert_eq!(steps, 151);
    assert!(found > 0 && found < 151, "the pair met on the way: {found} steps");
    assert!(walk.advance().unwrap().is_none());
    assert_eq!((state_hash(&world), history.cursor()), (hash, cursor));
}

/// A replay from before a structural input makes it again under a new structure stamp; the
/// steps taken past the recorded end then belong to the segment it crossed into (no keyframe
/// nor kept world more than a run without the move back).
#[test]
fn stepping_on_past_the_end_after_a_replay_across_a_joint_adds_no_segment() {
    let mut history = History::new(HistorySettings::default());
    let (mut world, _) = rain_joined_at_100(200, Some(&mut history));
    let segment_at_end = history.record_of(200).unwrap().segment;
    // Played on from step 90 as the editor plays: the recorded inputs made before each step.
    history.seek(&mut world, 90).unwrap();
    for _ in 90..220 {
        history.make_recorded_inputs(&mut world).unwrap();
        world.step();
        history.record(&world);
    }
    assert_eq!(history.record_of(220).unwrap().segment, segment_at_end, "the same segment on");
    let segments: std::collections::BTreeSet<u32> = history.steps().map(|r| r.segment).collect();
    assert_eq!(segments.len(), 2, "before and after the joint: {segments:?}");
}
