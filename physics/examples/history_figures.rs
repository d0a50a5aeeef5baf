//! Measures the history's figures on a benchmark scene, as BENCHMARKS.md reports them:
//! `cargo run -p atoll-physics --release --example history_figures -- tumbler 10000`
//! records that many steps of the scene (dt 1/60, 4 substeps, sleeping on, one thread, as the
//! editor runs it) and prints the compact state's bytes per body, the history's memory, the
//! time of one step back (the first, from the live end, and the mean of the following 30), of
//! a scrub from the last step to the first in 100 moves (a third argument sets the moves), and
//! of the same scrub as the editor's bar makes it (a slice of 12 ms a frame: the frames it
//! takes and the slowest frame); then, at a step in the middle of the window, 30 steps back
//! with the back cache prepared in between, as the editor prepares it while it waits
//! (`History::prepare_back`): the time of the step back itself and the preparing time it took;
//! then 30 steps back at a user's pace (five a second, twelve paused frames of preparing
//! between); last, 120 steps back at that pace with the preparing on a thread of its own, as
//! the editor runs it on a machine of several cores (`History::prepare_back_aside`), with the
//! world on one thread and on every core.

use atoll_physics::scene::builtin;
use atoll_physics::{History, HistorySettings, Scene};
use std::time::Instant;

fn scene(name: &str) -> Scene {
    match name {
        "tumbler" => builtin::tumbler(2000),
        "pyramid-field" => builtin::pyramid_field(14, 14, 10),
        "rain" => builtin::rain_boxes_balls(2000),
        other => panic!("unknown scene {other}: tumbler, pyramid-field or rain"),
    }
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let name = args.get(1).map_or("tumbler", String::as_str);
    let steps: u64 = args.get(2).map_or(10_000, |s| s.parse().expect("steps"));
    let moves: u64 = args.get(3).map_or(100, |s| s.parse().expect("scrub moves"));
    let mut scene = scene(name);
    scene.settings.dt = 1.0 / 60.0;
    scene.settings.substeps = 4;
    let (mut world, _) = scene.build_world().expect("scene builds");
    let bodies = world.body_count();
    let mut history = History::new(HistorySettings::default());
    history.record(&world);
    let (mut stepping, mut recording) = (0.0, 0.0);
    for _ in 0..steps {
        let t = Instant::now();
        world.step();
        stepping += ms(t);
        let t = Instant::now();
        history.record(&world);
        recording += ms(t);
    }
    let t = Instant::now();
    let state = world.capture();
    let capture_ms = ms(t);
    let t = Instant::now();
    world.restore_compact(&state).expect("same world");
    let restore_ms = ms(t);
    let snapshot = world.snapshot();
    let awake = world.islands().filter(|i| i.awake).map(|i| i.body_count).sum::<u32>();
    println!("{name}: {bodies} bodies ({awake} awake at the end), {steps} steps recorded");
    println!(
        "step {:.3} ms mean, recording {:.3} ms mean a step",
        stepping / steps as f64,
        recording / steps as f64
    );
    println!(
        "compact state at the last step: {} bytes, {:.0} bytes a body (the whole world: about {:.1} MiB)",
        state.bytes(),
        state.bytes() as f64 / bodies as f64,
        snapshot.world().heap_estimate() as f64 / (1 << 20) as f64
    );
    println!("capturing it {capture_ms:.2} ms, restoring it {restore_ms:.2} ms");
    let (first, last) = history.range().expect("steps recorded");
    println!(
        "history: steps {first}..={last}, keyframe every {} steps, {} keyframes, {:.1} MiB",
        history.keyframe_interval(),
        history.keyframe_count(),
        history.bytes() as f64 / (1 << 20) as f64
    );
    // One step back from the end, then 30 more.
    let t = Instant::now();
    let report = history.seek(&mut world, last - 1).expect("seek");
    let first_back = ms(t);
    let t = Instant::now();
    let mut replayed = 0;
    for step in (last - 31..last - 1).rev() {
        replayed += history.seek(&mut world, step).expect("seek").replayed;
    }
    let following = ms(t) / 30.0;
    println!(
        "one step back: first {first_back:.1} ms ({} steps replayed), the next 30: {following:.2} ms each ({replayed} steps replayed in all)",
        report.replayed
    );
    // A scrub: from the last step to the first in `moves` moves, as a drag across the bar.
    let t = Instant::now();
    let mut worst: f64 = 0.0;
    for k in (0..=moves).rev() {
        let target = first + (last - first) * k / moves;
        let move_start = Instant::now();
        history.seek(&mut world, target).expect("seek");
        worst = worst.max(ms(move_start));
    }
    println!(
        "scrub across the window in {moves} moves: {:.0} ms, {:.0} ms a move, {:.1} ms the slowest",
        ms(t),
        ms(t) / (moves + 1) as f64,
        worst
    );
    // The same scrub as the editor's bar makes it: a slice of replay per frame (12 ms, at least
    // a step) towards each move's step, the world showing the recorded steps on the way.
    let frame_budget = std::time::Duration::from_millis(12);
    let (mut frames, mut slowest_frame): (u64, f64) = (0, 0.0);
    let t = Instant::now();
    history.seek(&mut world, last).expect("seek");
    for k in (0..=moves).rev() {
        let target = first + (last - first) * k / moves;
        loop {
            let frame = Instant::now();
            let report = history.seek_for(&mut world, target, frame_budget).expect("seek");
            slowest_frame = slowest_frame.max(ms(frame));
            frames += 1;
            if report.arrived {
                break;
            }
        }
    }
    println!(
        "the same scrub a slice a frame: {:.0} ms, {frames} frames, {:.1} ms the slowest frame",
        ms(t),
        slowest_frame
    );
    // Steps back from the middle of the window, prepared while the world waits (the editor
    // prepares a few milliseconds a frame while paused).
    let middle = first + (last - first) / 2;
    history.seek(&mut world, middle).expect("seek");
    let (mut preparing, mut back, mut worst_back) = (0.0, 0.0, 0.0f64);
    for step in (middle - 30..middle).rev() {
        let t = Instant::now();
        while !history.prepare_back(&world, std::time::Duration::from_millis(5)).expect("prepare").ready {}
        preparing += ms(t);
        let t = Instant::now();
        history.seek(&mut world, step).expect("seek");
        back += ms(t);
        worst_back = worst_back.max(ms(t));
    }
    println!(
        "30 steps back from step {middle}, prepared in between: {:.2} ms a step back ({worst_back:.2} ms the slowest), after {:.0} ms of preparing each",
        back / 30.0,
        preparing / 30.0
    );
    // Steps back at a user's pace: a key press five times a second at 60 frames a second, so
    // twelve paused frames, each preparing for 5 ms (at least a step), between two steps back.
    let from = middle.saturating_sub(200).max(first + 31);
    history.seek(&mut world, from).expect("seek");
    let (mut back, mut worst_back, mut replayed) = (0.0, 0.0f64, 0);
    for step in (from - 30..from).rev() {
        for _ in 0..12 {
            history.prepare_back(&world, std::time::Duration::from_millis(5)).expect("prepare");
        }
        let t = Instant::now();
        replayed += history.seek(&mut world, step).expect("seek").replayed;
        back += ms(t);
        worst_back = worst_back.max(ms(t));
    }
    println!(
        "30 steps back from step {from} at five a second (12 frames of 5 ms preparing between): {:.2} ms a step back, {worst_back:.1} ms the slowest, {replayed} steps replayed in the steps back",
        back / 30.0
    );
    // The same pace with the fill on a thread of its own, as the editor runs it on a machine of
    // several cores, the world on one thread and on every core.
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // Two walks of 120 steps back, apart, in the window.
    let from = from.saturating_sub(150);
    if from < first + 251 {
        println!("(the window is too short for the walks with the fill on a thread of its own)");
        return;
    }
    let thread_counts = if cores > 1 { vec![1, cores] } else { vec![1] };
    for (walk, threads) in thread_counts.into_iter().enumerate() {
        world.set_thread_count(threads).expect("a thread count");
        steps_back_aside(&mut history, &mut world, from - walk as u64 * 130, 120);
    }
}

/// `presses` steps back from step `from` at five a second with the back cache prepared on a
/// thread of its own in between: twelve frames of 1/60 s between two presses, each taking what
/// the thread kept (`History::prepare_back_aside`).
fn steps_back_aside(history: &mut History, world: &mut atoll_physics::World, from: u64, presses: u64) {
    history.seek(world, from).expect("seek");
    let frame = std::time::Duration::from_secs_f64(1.0 / 60.0);
    let (mut times, mut replayed, mut prepared) = (Vec::new(), 0, 0);
    for step in (from - presses..from).rev() {
        for _ in 0..12 {
            let t = Instant::now();
            history.prepare_back_aside(world).expect("prepare");
            std::thread::sleep(frame.saturating_sub(t.elapsed()));
        }
        let t = Instant::now();
        let report = history.seek(world, step).expect("seek");
        times.push(ms(t));
        replayed += report.replayed;
        prepared += u32::from(report.replayed == 0);
    }
    let slowest_press = (0..times.len()).max_by(|&a, &b| times[a].total_cmp(&times[b])).unwrap_or(0) + 1;
    times.sort_by(f64::total_cmp);
    println!(
        "{presses} steps back from step {from} at five a second, preparing on a thread of its own, the world and its copy on {} threads: {:.2} ms the median step back, {:.2} ms the mean, {:.1} ms the slowest (press {slowest_press}), {prepared} of {presses} prepared, {replayed} steps replayed in the steps back",
        world.thread_count(),
        times[times.len() / 2],
        times.iter().sum::<f64>() / times.len() as f64,
        times[times.len() - 1]
    );
}
