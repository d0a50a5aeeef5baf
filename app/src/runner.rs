//! `atoll run`: step a scene headless and report stage times, counters and the state hash.

use crate::progress::steps_bar;
use atoll_physics::profile::Counters;
use atoll_physics::{Scene, Stage, StepSettings, World, state_hash};
use std::path::PathBuf;
use std::time::Instant;

/// What `atoll run` was asked to do.
#[derive(Debug, PartialEq)]
pub struct RunOptions {
    /// The scene file.
    pub scene: PathBuf,
    /// Steps to time.
    pub steps: u32,
    /// Steps run before timing starts.
    pub warmup: u32,
    /// Print JSON instead of a table.
    pub json: bool,
    /// Let islands sleep (the scene's setting); `--no-sleep` turns it off.
    pub sleep: bool,
    /// Threads for the parallel stages (results are identical for any count).
    pub threads: u32,
}

impl RunOptions {
    /// Defaults: 600 timed steps, no warm-up, a table.
    pub fn new(scene: PathBuf) -> Self {
        Self { scene, steps: 600, warmup: 0, json: false, sleep: true, threads: 1 }
    }
}

/// What a run measured.
#[derive(Debug, serde::Serialize)]
pub struct RunReport {
    /// Scene file.
    pub scene: String,
    /// Bodies in the scene.
    pub bodies: usize,
    /// Timed steps.
    pub steps: u32,
    /// Median milliseconds per stage, in pipeline order.
    pub median_stage_ms: Vec<(String, f64)>,
    /// Median and maximum milliseconds of a whole step.
    pub median_step_ms: f64,
    /// Slowest step.
    pub max_step_ms: f64,
    /// Median milliseconds of island management per step (link, sleep and split stages).
    pub island_ms: f64,
    /// Median milliseconds the reference builder takes to find the islands from scratch.
    pub reference_island_ms: f64,
    /// Whether islands could sleep.
    pub sleep: bool,
    /// Threads used.
    pub threads: usize,
    /// Counters of the last step.
    pub counters: CounterReport,
    /// `state_hash` after the last step, as 16 hex digits.
    pub state_hash: String,
}

/// Counters of the last step, for JSON.
#[derive(Debug, serde::Serialize)]
pub struct CounterReport {
    bodies: u32,
    awake_bodies: u32,
    islands: u32,
    awake_islands: u32,
    proxies: u32,
    contact_pairs: u32,
    touching_contacts: u32,
    manifold_points: u32,
    reinsertions: u32,
}

impl From<Counters> for CounterReport {
    fn from(c: Counters) -> Self {
        Self {
            bodies: c.bodies,
            awake_bodies: c.awake_bodies,
            islands: c.islands,
            awake_islands: c.awake_islands,
            proxies: c.proxies,
            contact_pairs: c.contact_pairs,
            touching_contacts: c.touching_contacts,
            manifold_points: c.manifold_points,
            reinsertions: c.reinsertions,
        }
    }
}

/// Loads the scene, steps it and prints the report.
pub fn run(options: &RunOptions) -> Result<(), String> {
    let scene = Scene::load(&options.scene).map_err(|e| e.to_string())?;
    let (mut world, _) = scene.build_world().map_err(|e| format!("{}: {e}", options.scene.display()))?;
    world.set_thread_count(options.threads as usize).map_err(|e| e.to_string())?;
    if !options.sleep {
        let settings = StepSettings { sleep_enabled: false, ..*world.settings() };
        world.set_settings(settings).map_err(|e| e.to_string())?;
    }
    let report = measure(&mut world, options);
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report).expect("report serialises"));
    } else {
        print_table(&report, world.settings().dt);
    }
    Ok(())
}

/// Steps `world` and collects the report.
pub fn measure(world: &mut World, options: &RunOptions) -> RunReport {
    // The stage times come from the world's own profile, so the bar costs them nothing.
    let bar = steps_bar(u64::from(options.warmup) + u64::from(options.steps), "running");
    for _ in 0..options.warmup {
        world.step();
        bar.inc(1);
    }
    let mut per_stage: Vec<Vec<f64>> = vec![Vec::with_capacity(options.steps as usize); Stage::ALL.len()];
    let mut totals = Vec::with_capacity(options.steps as usize);
    let mut islands = Vec::with_capacity(options.steps as usize);
    let mut reference = Vec::with_capacity(options.steps as usize);
    let mut work = Vec::new();
    for _ in 0..options.steps {
        world.step();
        let p = world.profile();
        for (samples, ms) in per_stage.iter_mut().zip(p.stage_ms) {
            samples.push(ms);
        }
        totals.push(p.total_ms);
        islands.push(p.stage(Stage::Islands) + p.stage(Stage::Sleep) + p.stage(Stage::Split));
        // The from-scratch builder on the same state, timed apart from the step.
        let start = Instant::now();
        std::hint::black_box(world.reference_partition(&mut work));
        reference.push(start.elapsed().as_secs_f64() * 1e3);
        bar.inc(1);
    }
    bar.finish_and_clear();
    RunReport {
        scene: options.scene.display().to_string(),
        bodies: world.body_count(),
        steps: options.steps,
        median_stage_ms: Stage::ALL
            .iter()
            .zip(per_stage)
            .map(|(s, v)| (s.name().to_string(), median(v)))
            .collect(),
        median_step_ms: median(totals.clone()),
        max_step_ms: totals.iter().copied().fold(0.0, f64::max),
        island_ms: median(islands),
        reference_island_ms: median(reference),
        sleep: world.settings().sleep_enabled,
        threads: world.thread_count(),
        counters: world.profile().counters.into(),
        state_hash: format!("{:016x}", state_hash(world)),
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    if v.is_empty() {
        return 0.0;
    }
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 { v[n / 2] } else { 0.5 * (v[n / 2 - 1] + v[n / 2]) }
}

fn print_table(r: &RunReport, dt: f32) {
    println!(
        "scene {}: {} bodies, {} steps of {:.2} ms, {} thread(s)",
        r.scene,
        r.bodies,
        r.steps,
        dt * 1e3,
        r.threads
    );
    println!("{:<14}{:>12}", "stage", "median ms");
    for (name, ms) in &r.median_stage_ms {
        println!("{name:<14}{ms:>12.4}");
    }
    println!("{:<14}{:>12.4}   (max {:.4})", "step", r.median_step_ms, r.max_step_ms);
    println!(
        "islands: {:.4} ms per step persistent (link + sleep + split), {:.4} ms reference DFS; sleeping {}",
        r.island_ms,
        r.reference_island_ms,
        if r.sleep { "on" } else { "off" }
    );
    let c = &r.counters;
    println!(
        "last step: bodies {}, awake {}, islands {} ({} awake), proxies {}, contact pairs {}, touching {}, \
         manifold points {}, re-insertions {}",
        c.bodies,
        c.awake_bodies,
        c.islands,
        c.awake_islands,
        c.proxies,
        c.contact_pairs,
        c.touching_contacts,
        c.manifold_points,
        c.reinsertions
    );
    println!("state hash {}", r.state_hash);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn report_has_every_stage_counters_and_hash() {
        let path = crate::scenes::scenes_dir().join("tower.ron");
        let (mut world, _) = Scene::load(&path).unwrap().build_world().unwrap();
        let options = RunOptions { steps: 5, warmup: 2, ..RunOptions::new(path) };
        let report = measure(&mut world, &options);
        assert_eq!(world.step_count(), 7);
        assert_eq!(report.median_stage_ms.len(), Stage::ALL.len());
        assert_eq!(report.counters.bodies, 21);
        assert_eq!(report.state_hash, format!("{:016x}", state_hash(&world)));
        let json = serde_json::to_value(&report).unwrap();
        assert_eq!(json["median_stage_ms"][2][0], "narrowphase");
        assert_eq!(json["counters"]["manifold_points"], 80);
    }

    #[test]
    fn missing_scene_is_a_clear_error() {
        let err = run(&RunOptions::new(PathBuf::from("no/such/scene.ron"))).unwrap_err();
        assert!(err.contains("no/such/scene.ron"), "{err}");
    }

    #[test]
    fn median_of_odd_and_even() {
        assert_eq!(median(vec![3.0, 1.0, 2.0]), 2.0);
        assert_eq!(median(vec![4.0, 1.0, 2.0, 3.0]), 2.5);
        assert_eq!(median(vec![]), 0.0);
    }
}
