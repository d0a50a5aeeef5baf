//! Measures a timeline with branches on the tumbler, as BENCHMARKS.md reports it:
//! `cargo run -p atoll-physics --release --example branch_figures -- 3000`
//! records the 2000-box tumbler (dt 1/60, 4 substeps, sleeping on, one thread, as the editor
//! runs it) with two branches forked from it, one at step 100 with 2 substeps and one at step
//! 200 with 15 Hz contacts, all three stepped to the given step as the editor steps them
//! (`Branches::follow` after every step of the active one). Prints the most bytes the three
//! histories and the parked worlds held against the one 256 MiB budget, each history's share
//! and keyframe interval, the time a step of all three took, the comparison at the end, and
//! the time to take all three back to the first kept step.

use atoll_physics::scene::builtin;
use atoll_physics::{Branches, History, HistorySettings, StepSettings};
use std::time::Instant;

fn main() {
    let steps: u64 = std::env::args().nth(1).map_or(3000, |s| s.parse().expect("steps"));
    let mut scene = builtin::tumbler(2000);
    scene.settings.dt = 1.0 / 60.0;
    scene.settings.substeps = 4;
    let (mut world, _) = scene.build_recorded_world().expect("scene builds");
    let total = HistorySettings::default();
    let mut history = History::new(total);
    history.record(&world);
    let mut branches = Branches::new("main", total).expect("a name");
    let (mut most, mut step_ms) = (0usize, Vec::new());
    for step in 0..steps {
        if step == 100 || step == 200 {
            let (name, change): (&str, fn(StepSettings) -> StepSettings) = if step == 100 {
                ("two substeps", |s| StepSettings { substeps: 2, ..s })
            } else {
                ("soft contacts", |s| StepSettings { contact_hertz: 15.0, ..s })
            };
            let id = branches.fork(&world, &mut history, name).expect("room for a branch");
            branches.switch(id, &mut world, &mut history).expect("parked");
            world.set_settings(change(*world.settings())).expect("valid settings");
            history.record(&world);
            let main = branches.infos().iter().find(|i| i.name == "main").map(|i| i.id).expect("main");
            branches.switch(main, &mut world, &mut history).expect("parked");
        }
        let t = Instant::now();
        history.make_recorded_inputs(&mut world).expect("recorded inputs");
        world.step();
        history.record(&world);
        branches.follow(&world, &mut history).expect("the branches follow");
        step_ms.push(t.elapsed().as_secs_f64() * 1e3);
        most = most.max(history.bytes() + branches.bytes());
    }
    step_ms.sort_by(f64::total_cmp);
    let mib = |b: usize| b as f64 / f64::from(1 << 20);
    println!(
        "tumbler, {steps} steps, main and two branches: at most {:.1} MiB held (budget {:.0} MiB); now main's history {:.1} MiB, the parked branches {:.1} MiB",
        mib(most),
        mib(total.budget_bytes),
        mib(history.bytes()),
        mib(branches.bytes()),
    );
    let share = branches.share();
    println!(
        "each history's share {:.1} MiB ({:.1} MiB of it for stepping back); keyframe interval main {}, branches {:?}",
        mib(share.budget_bytes),
        mib(share.back_cache_bytes),
        history.keyframe_interval(),
        branches
            .infos()
            .iter()
            .filter(|i| i.id != branches.active().id)
            .map(|i| branches.history(i.id).map(History::keyframe_interval).unwrap_or(0))
            .collect::<Vec<_>>()
    );
    println!(
        "a step of all three: median {:.1} ms, p95 {:.1} ms",
        step_ms[step_ms.len() / 2],
        step_ms[step_ms.len() * 95 / 100]
    );
    if let Some(sample) = branches.log().values().next_back() {
        let d = &sample.divergence;
        println!(
            "at the end, main against {:?}: at most {:.3} m apart, {:.3} m on average; first difference at step {:?}",
            branches.compared().map(|c| c.name.clone()).unwrap_or_default(),
            d.max,
            d.mean,
            branches.first_difference()
        );
    }
    let (first, _) = history.range().expect("steps kept");
    let t = Instant::now();
    history.seek(&mut world, first).expect("kept");
    branches.follow(&world, &mut history).expect("the branches follow");
    println!("back to the first kept step ({first}), all three: {:.0} ms", t.elapsed().as_secs_f64() * 1e3);
}
