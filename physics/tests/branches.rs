//! Branches of a timeline: a fork runs beside the active world without disturbing it, a branch
//! with fewer substeps diverges from its fork's next step on and the comparison says so,
//! switching swaps the worlds and their histories, moving along the timeline moves every
//! branch, and the histories of all branches keep within one budget.

mod common;

use atoll_physics::{Branches, History, HistorySettings, StepSettings, World, state_hash};

/// A recorded world of `scene` with `substeps` that never sleeps (a sleeping pile would hide
/// any difference), and its history at step 0.
fn start(scene: &str, substeps: u32, settings: HistorySettings) -> (World, History) {
    let (mut world, _) = common::builtin_recorded(scene);
    let step = StepSettings { substeps, sleep_enabled: false, ..*world.settings() };
    world.set_settings(step).unwrap();
    let mut history = History::new(settings);
    history.record(&world);
    (world, history)
}

/// Steps the active world as the editor does: inputs recorded at a past step made again, the
/// step recorded, the branches brought along.
fn step(world: &mut World, history: &mut History, branches: &mut Branches) {
    history.make_recorded_inputs(world).unwrap();
    world.step();
    history.record(world);
    branches.follow(world, history).unwrap();
}

/// Every step's hash of an uninterrupted run of `steps` steps from `world`'s state.
fn hashes(mut world: World, steps: usize) -> Vec<u64> {
    (0..steps)
        .map(|_| {
            world.step();
            state_hash(&world)
        })
        .collect()
}

#[test]
fn a_branch_with_half_the_substeps_diverges_from_the_fork_on_and_leaves_the_main_run_alone() {
    let (mut world, mut history) = start("pyramid_3d.ron", 4, HistorySettings::default());
    let mut branches = Branches::new("main", HistorySettings::default()).unwrap();
    for _ in 0..40 {
        step(&mut world, &mut history, &mut branches);
    }
    let main_after_fork = hashes(world.clone(), 60);
    let id = branches.fork(&world, &mut history, "two substeps").unwrap();
    assert_eq!(branches.compared().map(|c| c.id), Some(id), "the first fork is compared");
    // Change the setting in the branch: switch to it, set, switch back.
    branches.switch(id, &mut world, &mut history).unwrap();
    assert_eq!(branches.active().name, "two substeps");
    let two = StepSettings { substeps: 2, ..*world.settings() };
    world.set_settings(two).unwrap();
    history.record(&world);
    let branch_after_fork = hashes(world.clone(), 60);
    let main = branches.compared().unwrap().id;
    branches.switch(main, &mut world, &mut history).unwrap();
    assert_eq!(branches.active().name, "main");
    assert_eq!(world.settings().substeps, 4);

    branches.follow(&world, &mut history).unwrap();
    for i in 0..60 {
        step(&mut world, &mut history, &mut branches);
        assert_eq!(state_hash(&world), main_after_fork[i], "the main run is undisturbed at step {}", 41 + i);
        let other = branches.compared_world().unwrap();
        assert_eq!(other.step_count(), world.step_count());
        assert_eq!(
            state_hash(other),
            branch_after_fork[i],
            "the branch runs as on its own at step {}",
            41 + i
        );
    }
    // At the fork both are the same world; from the branch's first step on they differ.
    assert!(!branches.log()[&40].divergence.differs());
    assert_eq!(branches.first_difference(), Some(41));
    let end = &branches.log()[&100].divergence;
    assert!(end.max > 0.0 && end.mean > 0.0 && end.mean <= end.max, "{end:?}");
    assert_eq!(end.unmatched, 0);
    assert!(end.farthest.is_some() && !end.islands.is_empty());
    let island_max = end.islands.iter().map(|i| i.max).fold(0.0f32, f32::max);
    assert_eq!(island_max, end.max, "the farthest island holds the farthest body");
}

#[test]
fn moving_along_the_timeline_moves_every_branch_and_switching_swaps_worlds() {
    let (mut world, mut history) = start("rain.ron", 4, HistorySettings::default());
    let mut branches = Branches::new("main", HistorySettings::default()).unwrap();
    for _ in 0..30 {
        step(&mut world, &mut history, &mut branches);
    }
    let id = branches.fork(&world, &mut history, "soft").unwrap();
    branches.switch(id, &mut world, &mut history).unwrap();
    let soft = StepSettings { contact_hertz: 10.0, ..*world.settings() };
    world.set_settings(soft).unwrap();
    history.record(&world);
    let main = branches.compared().unwrap().id;
    branches.switch(main, &mut world, &mut history).unwrap();
    branches.follow(&world, &mut history).unwrap();
    for _ in 0..60 {
        step(&mut world, &mut history, &mut branches);
    }
    let at_70 = branches.log()[&70].clone();
    let branch_hash_at_70 = branches.history(id).unwrap().record_of(70).unwrap().hash;

    // Back to 70: the branch goes back too, and the comparison there is the same.
    history.seek(&mut world, 70).unwrap();
    branches.follow(&world, &mut history).unwrap();
    assert_eq!(state_hash(branches.compared_world().unwrap()), branch_hash_at_70);
    assert_eq!(branches.log()[&70], at_70);
    // Before the fork the branch waits at the first step it has.
    history.seek(&mut world, 10).unwrap();
    branches.follow(&world, &mut history).unwrap();
    assert!(branches.compared_world().unwrap().step_count() >= 30);

    // Switching makes the branch's world the caller's, with its setting and history.
    history.seek(&mut world, 90).unwrap();
    branches.follow(&world, &mut history).unwrap();
    let main_hash = state_hash(&world);
    branches.switch(id, &mut world, &mut history).unwrap();
    assert_eq!(world.settings().contact_hertz, 10.0);
    assert_eq!(world.step_count(), 90);
    assert_eq!(history.range(), Some((30, 90)));
    assert_eq!(state_hash(branches.compared_world().unwrap()), main_hash);
    // The same pair from the other side: the distances stand.
    assert_eq!(branches.log()[&70].divergence.max, at_70.divergence.max);
    // And the branch steps on from where it is, the old active one following it.
    step(&mut world, &mut history, &mut branches);
    assert_eq!(branches.compared_world().unwrap().step_count(), 91);
}

#[test]
fn forks_names_and_drops_are_checked() {
    let (mut world, mut history) = start("rain.ron", 4, HistorySettings::default());
    let mut branches = Branches::new("main", HistorySettings::default()).unwrap();
    assert!(branches.fork(&world, &mut history, "main").is_err(), "names are unique");
    assert!(branches.fork(&world, &mut history, "   ").is_err(), "a name is needed");
    assert!(branches.fork(&world, &mut history, &"x".repeat(65)).is_err(), "names are short");
    let a = branches.fork(&world, &mut history, "a").unwrap();
    let b = branches.fork(&world, &mut history, "b").unwrap();
    assert_eq!(branches.compared().map(|c| c.id), Some(a), "a later fork leaves the comparison");
    assert!(branches.rename(b, "a").is_err());
    branches.rename(b, "friction 0.2").unwrap();
    let names: Vec<_> = branches.infos().iter().map(|i| i.name.clone()).collect();
    assert_eq!(names, ["main", "a", "friction 0.2"]);
    let active = branches.active().id;
    assert!(branches.drop_branch(active, &mut history).is_err(), "the active branch stays");
    branches.drop_branch(a, &mut history).unwrap();
    assert!(branches.compared().is_none(), "dropping the compared branch ends the comparison");
    assert!(branches.drop_branch(a, &mut history).is_err(), "a dropped branch is gone");
    assert!(branches.switch(a, &mut world, &mut history).is_err());
    for i in 0..6 {
        branches.fork(&world, &mut history, &format!("f{i}")).unwrap();
    }
    assert_eq!(branches.len(), 8);
    assert!(branches.fork(&world, &mut history, "one too many").is_err());
    step(&mut world, &mut history, &mut branches);
}

/// The 2000-box tumbler with two branches: the three histories and the parked worlds keep
/// within the one 256 MiB budget, and a tight budget is shared the same way.
#[test]
fn two_branches_of_the_tumbler_keep_within_the_history_budget() {
    for total in [
        HistorySettings::default(),
        HistorySettings { window: 10_000, budget_bytes: 80 << 20, back_cache_bytes: 20 << 20 },
    ] {
        let (mut world, mut history) = start("tumbler.ron", 4, total);
        let mut branches = Branches::new("main", total).unwrap();
        for _ in 0..20 {
            step(&mut world, &mut history, &mut branches);
        }
        let two = branches.fork(&world, &mut history, "two substeps").unwrap();
        for _ in 0..20 {
            step(&mut world, &mut history, &mut branches);
        }
        let soft = branches.fork(&world, &mut history, "soft contacts").unwrap();
        branches.switch(soft, &mut world, &mut history).unwrap();
        world.set_settings(StepSettings { contact_hertz: 15.0, ..*world.settings() }).unwrap();
        history.record(&world);
        branches.switch(two, &mut world, &mut history).unwrap();
        world.set_settings(StepSettings { substeps: 2, ..*world.settings() }).unwrap();
        history.record(&world);
        let mut most = 0;
        for _ in 0..160 {
            step(&mut world, &mut history, &mut branches);
            most = most.max(history.bytes() + branches.bytes());
        }
        assert!(most <= total.budget_bytes, "{most} bytes held, budget {}", total.budget_bytes);
        // Each history has a third of what is left beside the parked worlds.
        assert!(history.settings().budget_bytes <= total.budget_bytes / 3);
        // Every step since the last switch compared, with the soft branch.
        assert_eq!(branches.compared().map(|c| c.id), Some(soft));
        assert_eq!(branches.log().keys().copied().collect::<Vec<_>>(), (41..=200).collect::<Vec<_>>());
        assert_eq!(branches.first_difference(), Some(41));
        // Everything kept can still be reached.
        let (first, _) = history.range().unwrap();
        history.seek(&mut world, first).unwrap();
        branches.follow(&world, &mut history).unwrap();
        eprintln!(
            "budget {} MiB: at most {:.1} MiB held",
            total.budget_bytes >> 20,
            most as f64 / f64::from(1 << 20)
        );
    }
}

#[test]
fn divergence_measures_each_body_against_its_counterpart() {
    let (world, bodies) = common::builtin("rain.ron");
    let dynamic: Vec<_> = bodies.iter().copied().filter(|&b| world.body(b).unwrap().mass > 0.0).collect();
    let mut other = world.clone();
    assert_eq!(world.divergence_from(&other).max, 0.0);
    assert!(!world.divergence_from(&other).differs());
    let moved = dynamic[7];
    let mut pose = other.transform(moved).unwrap();
    pose.position.x += 0.5;
    other.set_transform(moved, pose).unwrap();
    let d = world.divergence_from(&other);
    assert_eq!(d.compared as usize, dynamic.len());
    assert_eq!((d.max, d.farthest, d.unmatched), (0.5, Some(moved), 0));
    assert!((d.mean - 0.5 / dynamic.len() as f32).abs() < 1e-7, "{}", d.mean);
    // A body only one world holds.
    other.destroy_body(dynamic[3]).unwrap();
    let d = world.divergence_from(&other);
    assert_eq!((d.unmatched, d.compared as usize), (1, dynamic.len() - 1));
    assert!(d.differs());
}

#[test]
fn an_edit_in_the_past_can_keep_the_recorded_future_as_a_branch() {
    let (mut world, mut history) = start("rain.ron", 4, HistorySettings::default());
    let mut branches = Branches::new("main", HistorySettings::default()).unwrap();
    for _ in 0..100 {
        step(&mut world, &mut history, &mut branches);
    }
    let recorded: Vec<u64> = (0..=100).map(|s| history.record_of(s).unwrap().hash).collect();
    history.seek(&mut world, 50).unwrap();
    branches.follow(&world, &mut history).unwrap();
    // Nothing recorded after the last step: nothing to keep.
    let id = branches.keep_future(&world, &history, "before the push at 50").unwrap();
    assert_eq!(branches.compared().map(|c| c.id), Some(id));
    // The edit: a push, which discards the active branch's steps after 50.
    let body = world.body_ids().find(|&b| world.body(b).unwrap().mass > 0.0).unwrap();
    world.apply_impulse(body, atoll_physics::Vec3::new(0.0, 50.0, 0.0)).unwrap();
    assert!(history.record(&world).discarded > 0);
    branches.follow(&world, &mut history).unwrap();
    for _ in 0..30 {
        step(&mut world, &mut history, &mut branches);
        let kept = branches.compared_world().unwrap();
        assert_eq!(
            state_hash(kept),
            recorded[world.step_count() as usize],
            "the recorded future, step {}",
            world.step_count()
        );
    }
    assert_ne!(state_hash(&world), recorded[80]);
    assert_eq!(branches.first_difference(), Some(51), "the push moves the body from the next step on");
    // The kept branch reaches its last recorded step and steps on from there.
    for _ in 0..30 {
        step(&mut world, &mut history, &mut branches);
    }
    assert_eq!(branches.compared_world().unwrap().step_count(), 110);
    // At the live end there is nothing after to keep.
    assert!(branches.keep_future(&world, &history, "nothing").is_err());
}

#[test]
fn comparisons_are_kept_per_pair_of_branches() {
    let (mut world, mut history) = start("rain.ron", 4, HistorySettings::default());
    let mut branches = Branches::new("main", HistorySettings::default()).unwrap();
    let a = branches.fork(&world, &mut history, "a").unwrap();
    let b = branches.fork(&world, &mut history, "b").unwrap();
    for _ in 0..10 {
        step(&mut world, &mut history, &mut branches);
    }
    branches.compare_with(Some(b)).unwrap();
    assert!(branches.log().is_empty(), "main and b were not compared yet");
    for _ in 0..10 {
        step(&mut world, &mut history, &mut branches);
    }
    // Back to a: its ten steps are still there, and it went on beside main meanwhile.
    branches.compare_with(Some(a)).unwrap();
    assert_eq!(branches.log().keys().copied().collect::<Vec<_>>(), (1..=10).collect::<Vec<_>>());
    step(&mut world, &mut history, &mut branches);
    assert_eq!(branches.log().len(), 11);
    // Switching to b and back to main keeps the pair main and a.
    branches.switch(b, &mut world, &mut history).unwrap();
    let main = branches.infos().iter().find(|i| i.name == "main").unwrap().id;
    branches.switch(main, &mut world, &mut history).unwrap();
    assert_eq!(branches.compared().map(|c| c.id), Some(a));
    assert_eq!(branches.log().len(), 11);
    // Dropping a forgets its comparisons.
    branches.drop_branch(a, &mut history).unwrap();
    branches.compare_with(Some(b)).unwrap();
    assert_eq!(branches.log().len(), 10, "main and b's");
}

#[test]
fn comparisons_are_kept_only_for_the_steps_the_history_keeps() {
    let small = HistorySettings { window: 50, ..HistorySettings::default() };
    let (mut world, mut history) = start("rain.ron", 4, small);
    let mut branches = Branches::new("main", small).unwrap();
    branches.fork(&world, &mut history, "copy").unwrap();
    for _ in 0..200 {
        step(&mut world, &mut history, &mut branches);
    }
    let (first, last) = history.range().unwrap();
    let kept: Vec<u64> = branches.log().keys().copied().collect();
    assert_eq!((kept.first().copied(), kept.last().copied()), (Some(first), Some(last)));
    assert!(kept.len() <= 100, "{} comparisons for a window of 50", kept.len());
}
