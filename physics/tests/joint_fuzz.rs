//! The fuzz of random joint graphs, bounded for the test command: every joint type with random
//! limits, motors, springs and breaking thresholds between bodies of every shape over the
//! whole mass and size range, a body destroyed partway. No step panics or leaves a non-finite
//! number in a body, joint or contact, and the state hash of every step is the same on 1 to 4
//! threads. `cargo run --release -p atoll-physics --example joint_fuzz` runs the long one.

mod common;

use common::joint_graph::{joint_graph, run_joint_graph};

/// Scenes and steps of the bounded run (a few seconds).
const SCENES: u64 = 24;
const STEPS: usize = 300;

#[test]
fn random_joint_graphs_stay_finite_and_the_same_on_every_thread_count() {
    let (mut capped, mut stopped) = (0, 0);
    for seed in 0..SCENES {
        let (counts, hashes) = run_joint_graph(joint_graph(seed), STEPS, 1);
        assert_eq!(counts.non_finite, 0, "scene {seed}: {counts:?}");
        (capped, stopped) = (capped + counts.capped, stopped + counts.stopped);
        // A third of the scenes on more threads.
        if seed % 3 == 0 {
            for threads in 2..=4 {
                let (_, other) = run_joint_graph(joint_graph(seed), STEPS, threads);
                let first = hashes.iter().zip(&other).position(|(a, b)| a != b);
                assert_eq!(first, None, "scene {seed}: {threads} threads part from one at that step");
            }
        }
    }
    eprintln!("figure: {SCENES} scenes x {STEPS} steps: 0 non-finite, {capped} capped, {stopped} stopped");
}
