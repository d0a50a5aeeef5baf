//! `atoll-bench`: the same scenes in Atoll and in Rapier, stepped in turn in one process,
//! with step times, world memory and a plausibility check per engine; and `atoll-bench terrain`,
//! the voxel terrain's figures against parry3d (see BENCHMARKS.md).

mod alloc;
mod atoll_world;
mod check;
mod cli;
mod engine;
mod measure;
mod rapier_world;
mod report;
mod scenes;
mod terrain;

use engine::EngineKind;
use report::{EngineResult, Report, SceneResult};
use std::time::Instant;

#[global_allocator]
static ALLOCATOR: alloc::CountingAlloc = alloc::CountingAlloc;

fn main() {
    let mut args = std::env::args().skip(1).peekable();
    if args.peek().is_some_and(|a| a == "terrain") {
        std::process::exit(terrain::main(args.skip(1)));
    }
    let all = scenes::all();
    let names: Vec<&str> = all.iter().map(|s| s.name).collect();
    let options = match cli::parse(args, &names) {
        Ok(Some(options)) => options,
        Ok(None) => {
            println!("{}", cli::usage(&names));
            return;
        }
        Err(e) => {
            eprintln!("atoll-bench: {e}\n{}", cli::usage(&names));
            std::process::exit(2);
        }
    };
    let chosen: Vec<&scenes::BenchScene> = all
        .iter()
        .filter(|s| options.scenes.is_empty() || options.scenes.iter().any(|n| n == s.name))
        .collect();
    if let Some(dir) = &options.write_scenes {
        write_scenes(&chosen, dir);
        return;
    }

    println!(
        "{} steps × {} repeats per engine; dt 1/60, the scene's substeps in both engines, one thread, \
         sleeping off; step times pooled over every step of every repeat\n",
        options.steps, options.repeats,
    );
    println!("{}", report::header());
    let mut results = Vec::new();
    for bench in chosen {
        match run_scene(bench, options.steps, options.repeats) {
            Ok(result) => {
                println!("{}", report::row(&result));
                results.push(result);
            }
            Err(e) => {
                eprintln!("atoll-bench: {}: {e}", bench.name);
                std::process::exit(1);
            }
        }
    }

    let failed = results.iter().any(|r| r.atoll.check.ok == Some(false) || r.rapier.check.ok == Some(false));
    if let Some(path) = &options.json {
        let report = Report {
            steps: options.steps,
            repeats: options.repeats,
            dt: scenes::DT,
            statistic: "median and p95 over every step of every repeat",
            scenes: results,
        };
        if let Err(e) = report::write_json(path, &report) {
            eprintln!("atoll-bench: {e}");
            std::process::exit(1);
        }
    }
    if failed {
        eprintln!("atoll-bench: a plausibility check failed (FAIL in the table)");
        std::process::exit(3);
    }
}

/// Runs every repeat of both engines on one scene, the engines taking turns so that a change
/// in the machine's load falls on both alike.
fn run_scene(bench: &scenes::BenchScene, steps: usize, repeats: usize) -> Result<SceneResult, String> {
    let scene = bench.build();
    let mut runs: [Vec<measure::Repeat>; 2] = [Vec::new(), Vec::new()];
    for repeat in 1..=repeats {
        for (slot, kind) in EngineKind::ALL.into_iter().enumerate() {
            eprint!("{}: {} repeat {repeat}/{repeats}, {steps} steps ... ", bench.name, kind.name());
            let start = Instant::now();
            let run = measure::run(kind, &scene, &bench.check, steps)?;
            eprintln!("{:.1} s", start.elapsed().as_secs_f64());
            runs[slot].push(run);
        }
    }
    let atoll = EngineResult::from_repeats(EngineKind::Atoll, &runs[0]);
    let rapier = EngineResult::from_repeats(EngineKind::Rapier, &runs[1]);
    Ok(SceneResult {
        scene: bench.name.to_string(),
        description: bench.description.to_string(),
        bodies: scene.bodies.len(),
        joints: scene.joints.len(),
        substeps: scene.settings.substeps,
        ratio: atoll.step_ms.median / rapier.step_ms.median,
        atoll,
        rapier,
    })
}

/// Writes each chosen scene, with the benchmark's settings, to `DIR/NAME.ron`, so that
/// `atoll run` can show its per-stage times and a profiler can run Atoll alone on it.
fn write_scenes(chosen: &[&scenes::BenchScene], dir: &std::path::Path) {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("atoll-bench: cannot create {}: {e}", dir.display());
        std::process::exit(1);
    }
    for bench in chosen {
        let path = dir.join(format!("{}.ron", bench.name));
        if let Err(e) = bench.build().save(&path) {
            eprintln!("atoll-bench: {e}");
            std::process::exit(1);
        }
        println!("wrote {}", path.display());
    }
}
