//! The long fuzz of random joint graphs (`tests/joint_fuzz.rs` runs a bounded one):
//! `cargo run --release -p atoll-physics --example joint_fuzz -- [SCENES] [STEPS] [THREADS]`,
//! 1000 scenes of 600 steps by default, each also on 2 to THREADS threads (4 by default) with
//! its state hash compared step by step. Prints the counts BENCHMARKS.md quotes and exits
//! non-zero on a non-finite value or a hash that differs.

#[path = "../tests/common/joint_graph.rs"]
mod joint_graph;

use joint_graph::{joint_graph, run_joint_graph};

fn main() {
    let args: Vec<usize> = std::env::args().skip(1).map(|a| a.parse().expect("a whole number")).collect();
    let scenes = args.first().copied().unwrap_or(1000) as u64;
    let steps = args.get(1).copied().unwrap_or(600);
    let threads = args.get(2).copied().unwrap_or(4);
    let (mut bodies, mut joints, mut non_finite, mut capped, mut stopped, mut differing) = (0, 0, 0, 0, 0, 0);
    let (mut stretched, mut worst_scene) = (0.0f32, 0);
    let start = std::time::Instant::now();
    for seed in 0..scenes {
        let graph = joint_graph(seed);
        (bodies, joints) = (bodies + graph.bodies.len(), joints + graph.joints);
        let (counts, hashes) = run_joint_graph(graph, steps, 1);
        non_finite += counts.non_finite;
        (capped, stopped) = (capped + counts.capped, stopped + counts.stopped);
        if counts.stretched > stretched {
            (stretched, worst_scene) = (counts.stretched, seed);
        }
        for t in 2..=threads {
            let (_, other) = run_joint_graph(joint_graph(seed), steps, t);
            if other != hashes {
                differing += 1;
                eprintln!("scene {seed}: {t} threads part from one");
            }
        }
        if (seed + 1) % 100 == 0 {
            eprintln!("{} scenes, {:.0} s", seed + 1, start.elapsed().as_secs_f64());
        }
    }
    println!(
        "scenes {scenes} x {steps} steps (1 to {threads} threads): bodies {bodies}, joints {joints}, \
         non-finite {non_finite}, capped {capped} body-steps, stopped {stopped}, differing hashes {differing}, \
         most stretched joint {stretched:.3e} m (scene {worst_scene}), {:.0} s",
        start.elapsed().as_secs_f64()
    );
    if non_finite > 0 || differing > 0 {
        std::process::exit(1);
    }
}
