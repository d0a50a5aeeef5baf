//! `atoll-bench`: the same scenes in Atoll, Rapier and Box3D, stepped in turn in one process,
//! with step times, world memory and a plausibility check per engine; and `atoll-bench terrain`,
//! the voxel terrain's figures against parry3d (see BENCHMARKS.md).

mod alloc;
mod atoll_world;
#[cfg(feature = "box3d")]
mod box3d_world;
mod check;
mod cli;
mod engine;
mod measure;
mod rapier_world;
mod report;
mod scenes;
mod terrain;

use engine::EngineKind;
use measure::{Outcome, Repeat};
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
        "{} steps × {} repeats per engine; dt 1/60, the scene's substeps in every engine, {}, sleeping off; \
         step times pooled over every step of every repeat\n",
        options.steps,
        options.repeats,
        threads_note(options.threads),
    );
    println!("{}", report::header(options.threads));
    let mut results = Vec::new();
    for bench in chosen {
        match run_scene(bench, &options) {
            Ok(result) => {
                println!("{}", report::row(&result, options.threads));
                results.push(result);
            }
            Err(e) => {
                eprintln!("atoll-bench: {}: {e}", bench.name);
                std::process::exit(1);
            }
        }
    }

    let failed = results.iter().any(SceneResult::failed);
    if let Some(path) = &options.json {
        let report = Report {
            steps: options.steps,
            repeats: options.repeats,
            threads: options.threads,
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

/// How the run uses threads, for the line above the table.
fn threads_note(threads: usize) -> String {
    if threads == 1 {
        return "one thread".to_string();
    }
    let rapier = if EngineKind::Rapier.can_thread() {
        format!("Rapier {threads} threads (`rapier-parallel`)")
    } else {
        "Rapier one thread only (built without `rapier-parallel`: its columns are one-thread figures)"
            .to_string()
    };
    let box3d =
        if cfg!(feature = "box3d") { format!("Box3D {threads} workers") } else { "no Box3D".to_string() };
    format!("{threads} threads and, for the speed-ups, one (Atoll {threads} threads, {box3d}, {rapier})")
}

/// Runs every repeat of every engine on one scene, the engines taking turns so that a change
/// in the machine's load falls on all alike. With `--threads N` above 1, each repeat runs
/// every engine on one thread and then every engine that can on N threads, so that an
/// engine's two runs, like the engines' runs, lie close together in time.
fn run_scene(bench: &scenes::BenchScene, options: &cli::Options) -> Result<SceneResult, String> {
    let (steps, repeats, threads) = (options.steps, options.repeats, options.threads);
    let scene = bench.build();
    let thread_counts: &[usize] = if threads > 1 { &[1, threads] } else { &[1] };
    // Per engine: its repeats per thread count, and why it has no world for the scene.
    let mut runs: Vec<[Vec<Repeat>; 2]> = EngineKind::ALL.iter().map(|_| [Vec::new(), Vec::new()]).collect();
    let mut not_built: Vec<Option<String>> = vec![None; EngineKind::ALL.len()];
    for repeat in 1..=repeats {
        for (slot, &count) in thread_counts.iter().enumerate() {
            for (k, kind) in EngineKind::ALL.into_iter().enumerate() {
                if not_built[k].is_some() || (count > 1 && !kind.can_thread()) {
                    continue;
                }
                let on = if count > 1 { format!(" on {count} threads") } else { String::new() };
                eprint!("{}: {}{on} repeat {repeat}/{repeats}, {steps} steps ... ", bench.name, kind.name());
                let start = Instant::now();
                match measure::run(kind, &scene, &bench.check, steps, count)? {
                    Outcome::Measured(run) => {
                        eprintln!("{:.1} s", start.elapsed().as_secs_f64());
                        runs[k][slot].push(run);
                    }
                    Outcome::NotBuilt(why) => {
                        eprintln!("not built: {why}");
                        not_built[k] = Some(why);
                    }
                }
            }
        }
    }
    // An engine that stepped on N threads reports those figures with its speed-up over one
    // thread; one that cannot thread in this build reports its one-thread figures.
    let result = |kind: EngineKind| -> Result<EngineResult, String> {
        let k = EngineKind::ALL.iter().position(|&e| e == kind).expect("every engine is in ALL");
        let [one, many] = &runs[k];
        if let Some(why) = &not_built[k] {
            return Err(why.clone());
        }
        Ok(if many.is_empty() {
            EngineResult::from_repeats(kind, 1, one, None)
        } else {
            EngineResult::from_repeats(kind, threads, many, Some(one))
        })
    };
    let atoll = result(EngineKind::Atoll).map_err(|why| format!("Atoll did not build the scene: {why}"))?;
    let rapier =
        result(EngineKind::Rapier).map_err(|why| format!("Rapier did not build the scene: {why}"))?;
    let box3d = result(EngineKind::Box3d);
    Ok(SceneResult {
        scene: bench.name.to_string(),
        description: bench.description.to_string(),
        bodies: scene.bodies.len(),
        joints: scene.joints.len(),
        substeps: scene.settings.substeps,
        ratio: atoll.step_ms.median / rapier.step_ms.median,
        ratio_box3d: box3d.as_ref().ok().map(|b| atoll.step_ms.median / b.step_ms.median),
        box3d_not_built: box3d.as_ref().err().cloned(),
        box3d: box3d.ok(),
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
