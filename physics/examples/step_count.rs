//! Steps one of the Rapier benchmark's scenes in Atoll alone, with the benchmark's settings
//! (dt 1/60, 4 substeps or 8 for the joint scenes, sleeping off; one thread unless told), for
//! instruction counting under callgrind:
//! `cargo run -p atoll-physics --release --example step_count -- rain 120 60`
//! warms up 120 steps, then steps 60 inside `measured_steps` (so
//! `valgrind --tool=callgrind --toggle-collect=step_count::measured_steps ...` counts only
//! those) and prints the state hash and the live and touching contacts at the end. `--trace`
//! after the counts prints the profile of every 20th warm-up step (`--every N`: every Nth),
//! `--stages` each stage's median and tenth percentile, `--pairs` how many pairs of bodies the
//! contacts' pairs of shapes come from; `--threads N` steps on N threads (the
//! hash is the same). A scene named `name:N` is built at size `N` (`pyramid3d:14`, 14 layers).

use atoll_physics::scene::builtin;
use atoll_physics::{Scene, World};

/// `println!` that ends the program quietly once its reader is gone (`step_count ... | head`),
/// where `println!` panics on the closed pipe.
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        if writeln!(std::io::stdout(), $($arg)*).is_err() {
            std::process::exit(0);
        }
    }};
}

/// The scene `name`, as the benchmark builds it; `name:N` sets its size (bodies, layers,
/// pyramids a side or grid side, as its generator counts) in place of the benchmark's.
fn scene(name: &str) -> Scene {
    let (name, given_size) = match name.split_once(':') {
        Some((name, size)) => {
            let parsed = size.parse::<u32>().unwrap_or_else(|e| panic!("scene size {size:?}: {e}"));
            (name, Some(parsed))
        }
        None => (name, None),
    };
    let size = |default: u32| given_size.unwrap_or(default);
    let mut scene = match name {
        "rain" => builtin::rain_boxes_balls(size(2000)),
        "tumbler" => builtin::tumbler(size(2000)),
        "pyramid3d" => builtin::pyramid_3d(size(20)),
        "pyramid" => builtin::plane_pyramid(size(40)),
        "pyramids" => builtin::pyramid_field(size(14), size(14), 10),
        "joint-grid" => builtin::joint_grid(size(100) as usize),
        "chain-bridge" => builtin::chain_bridge(size(400) as usize),
        "ragdoll-rain" => builtin::ragdoll_rain(size(100) as usize),
        "free-fall" => builtin::free_fall(size(5000)),
        "tables" => builtin::table_pile(size(1000)),
        "furniture" => builtin::furniture_room(),
        "terrain-rain" => {
            // As the benchmark has it: the lake emptied (the other engines have no water).
            let mut scene = builtin::terrain_rain(size(1000));
            scene.settings.water_density = 0.0;
            scene.settings.water_linear_drag = 0.0;
            scene.settings.water_angular_drag = 0.0;
            scene
        }
        other => panic!(
            "unknown scene {other}: rain, tumbler, pyramid3d, pyramid, pyramids, joint-grid, chain-bridge, ragdoll-rain, \
             free-fall, tables, furniture or terrain-rain"
        ),
    };
    scene.settings.dt = 1.0 / 60.0;
    // The benchmark's substeps: 8 for the joint scenes, 4 for the contact scenes.
    scene.settings.substeps =
        if name.starts_with("joint") || name.contains("bridge") || name.contains("ragdoll") { 8 } else { 4 };
    scene.settings.sleep_enabled = false;
    scene
}

/// The measured steps, a function of their own so callgrind can collect inside it only.
/// Returns each step's time and its stages' (in [`atoll_physics::Stage::ALL`] order), in
/// milliseconds.
#[inline(never)]
fn measured_steps(world: &mut World, steps: u32) -> Vec<(f64, Vec<f64>)> {
    (0..steps)
        .map(|_| {
            world.step();
            let p = world.profile();
            (p.total_ms, atoll_physics::Stage::ALL.iter().map(|s| p.stage(*s)).collect())
        })
        .collect()
}

/// Stage `stage`'s time in a measured step.
fn stage_of(step: &(f64, Vec<f64>), stage: atoll_physics::Stage) -> f64 {
    let index = atoll_physics::Stage::ALL.iter().position(|&s| s == stage).expect("a stage");
    step.1[index]
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

/// The tenth percentile of `values`: a measure of the fast steps.
fn tenth_percentile(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values.get(values.len() / 10).copied().unwrap_or(0.0)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map(String::as_str).unwrap_or("rain");
    let warm: u32 = args.get(2).map_or(120, |s| s.parse().expect("warm-up steps"));
    let steps: u32 = args.get(3).map_or(60, |s| s.parse().expect("measured steps"));
    let (mut world, _ids) = scene(name).build_world().expect("scene builds");
    let threads = args
        .iter()
        .position(|a| a == "--threads")
        .map_or(1, |i| args.get(i + 1).and_then(|n| n.parse().ok()).expect("--threads N"));
    world.set_thread_count(threads).expect("thread count");
    let trace = args.iter().any(|a| a == "--trace");
    let every: u32 = args
        .iter()
        .position(|a| a == "--every")
        .map_or(20, |i| args.get(i + 1).and_then(|n| n.parse().ok()).expect("--every N"));
    for i in 0..warm {
        world.step();
        if trace && i % every == 0 {
            let p = world.profile();
            let stages: Vec<String> = atoll_physics::Stage::ALL
                .iter()
                .map(|s| format!("{} {:.2}", s.name(), p.stage(*s)))
                .collect();
            out!(
                "step {i}: {:.2} ms, {} pairs, {} touching in {} colours, {} reinserted, {} groups of {} rows solved directly; {}",
                p.total_ms,
                p.counters.contact_pairs,
                p.counters.touching_contacts,
                p.counters.colours,
                p.counters.reinsertions,
                p.counters.direct_groups,
                p.counters.direct_rows,
                stages.join(", ")
            );
        }
    }
    let start = std::time::Instant::now();
    let times = measured_steps(&mut world, steps);
    let ms = start.elapsed().as_secs_f64() * 1e3 / f64::from(steps.max(1));
    out!(
        "{name}: {warm} + {steps} steps on {threads} thread(s), {ms:.3} ms a step (median {:.3}, solve median {:.3}), state hash {:016x}",
        median(times.iter().map(|t| t.0).collect()),
        median(times.iter().map(|t| stage_of(t, atoll_physics::Stage::Solve)).collect()),
        atoll_physics::snapshot::state_hash(&world)
    );
    out!(
        "contacts at the end: {} live, {} touching",
        world.contact_count(),
        world.touching_contacts().count()
    );
    if args.iter().any(|a| a == "--pairs") {
        // The pairs of bodies the pairs of shapes belong to: what one proxy per body (and a
        // small tree of its shapes) would check in place of the shapes' pairs.
        let mut bodies: Vec<(u32, u32)> =
            world.contacts().map(|c| (c.body_a.index(), c.body_b.index())).collect();
        let shape_pairs = bodies.len();
        bodies.sort_unstable();
        bodies.dedup();
        out!("pairs: {shape_pairs} of shapes between {} pairs of bodies", bodies.len());
    }
    if args.iter().any(|a| a == "--times") {
        let line: Vec<String> = times
            .iter()
            .map(|t| format!("{:.1}/{:.1}", t.0, stage_of(t, atoll_physics::Stage::Solve)))
            .collect();
        out!("step/solve ms: {}", line.join(" "));
    }
    if args.iter().any(|a| a == "--stages") {
        let line: Vec<String> = atoll_physics::Stage::ALL
            .iter()
            .map(|&s| format!("{} {:.3}", s.name(), median(times.iter().map(|t| stage_of(t, s)).collect())))
            .collect();
        out!("stage medians ms: {}", line.join(", "));
        // The fastest tenth of the steps: what the code costs when nothing else takes the
        // machine's cores (the medians move with the other loads of a shared machine).
        let line: Vec<String> = atoll_physics::Stage::ALL
            .iter()
            .map(|&s| {
                format!(
                    "{} {:.3}",
                    s.name(),
                    tenth_percentile(times.iter().map(|t| stage_of(t, s)).collect())
                )
            })
            .collect();
        out!("stage tenths ms: {}", line.join(", "));
    }
}
