//! The thread team under chaos: every member of every team pauses at random at each
//! synchronisation point (`parallel/chaos.rs`: yields, spins, sleeps), and every built-in and
//! benchmark scene must still give, step by step, one thread's state hashes and touch events
//! on two, three and four threads. A longer run: `scripts/chaos.sh`, or `ATOLL_CHAOS_STEPS`.

mod common;

use atoll_physics::scene::builtin;
use atoll_physics::world::TouchEvent;
use atoll_physics::{Scene, chaos_pauses, set_chaos, state_hash};

/// The state hash and touch events after each of `steps` steps of `scene` on `threads` threads.
fn run(scene: &Scene, threads: usize, steps: usize) -> Vec<(u64, Vec<TouchEvent>)> {
    let (mut world, _) = scene.build_world().unwrap();
    world.set_thread_count(threads).unwrap();
    (0..steps)
        .map(|_| {
            world.step();
            (state_hash(&world), world.touch_events().to_vec())
        })
        .collect()
}

#[test]
fn every_scene_steps_as_on_one_thread_whatever_the_members_timing() {
    let steps: usize = std::env::var("ATOLL_CHAOS_STEPS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let seed = std::env::var("ATOLL_CHAOS_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or(0x5eed);
    let mut scenes: Vec<(&str, Scene)> = builtin::committed();
    scenes.extend(common::benchmark_scenes());
    let mut stepped = 0;
    for (name, scene) in &scenes {
        // The largest scenes (5000 bodies) for a third as long.
        let steps = if scene.bodies.len() > 3000 { steps.div_ceil(3) } else { steps };
        set_chaos(None);
        let reference = run(scene, 1, steps);
        set_chaos(Some(seed));
        for threads in 2..=4 {
            let hashes = run(scene, threads, steps);
            let first = hashes.iter().zip(&reference).position(|(a, b)| a != b);
            assert_eq!(
                first, None,
                "{name}: {threads} threads under chaos differ from one from step {first:?}"
            );
            stepped += steps;
        }
    }
    set_chaos(None);
    let [sleeps, spins, yields] = chaos_pauses();
    eprintln!(
        "figure: chaos: {} scenes on 2, 3 and 4 threads, {stepped} steps under chaos, the same hashes \
         and events as one thread; pauses taken: {sleeps} sleeps, {spins} spins, {yields} yields",
        scenes.len()
    );
    assert!(sleeps > 0 && spins > 0 && yields > 0, "chaos was at work");
}
