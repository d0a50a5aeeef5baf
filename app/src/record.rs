//! `atoll record`: steps a scene and saves its recording (the scene, every input, every step's
//! state hash), which `atoll replay` checks, on any machine and any thread count.

use crate::progress::steps_bar;
use atoll_physics::{Scene, state_hash};
use std::path::PathBuf;

/// What `atoll record` was asked to do.
#[derive(Debug, PartialEq)]
pub struct RecordOptions {
    /// The scene file.
    pub scene: PathBuf,
    /// Steps to record.
    pub steps: u32,
    /// The recording to write.
    pub out: PathBuf,
    /// Threads for the parallel stages.
    pub threads: u32,
    /// Print JSON instead of a line.
    pub json: bool,
}

/// What a recording run did, for the JSON output.
#[derive(Debug, serde::Serialize)]
pub struct RecordReport {
    /// The recording written.
    pub recording: String,
    /// Steps recorded.
    pub steps: u64,
    /// The state hash after the last step, 16 hex digits.
    pub state_hash: String,
}

/// Steps the scene, saves the recording (through a temporary file, so a failure leaves any
/// older file whole) and reports it.
pub fn record(options: &RecordOptions) -> Result<RecordReport, String> {
    let scene = Scene::load(&options.scene).map_err(|e| e.to_string())?;
    let (mut world, _) =
        scene.build_recorded_world().map_err(|e| format!("{}: {e}", options.scene.display()))?;
    world.set_thread_count(options.threads as usize).map_err(|e| e.to_string())?;
    let bar = steps_bar(options.steps.into(), "recording");
    for _ in 0..options.steps {
        world.step();
        bar.inc(1);
    }
    bar.finish_and_clear();
    let recording = world.recording().map_err(|e| e.to_string())?;
    recording.save(&options.out).map_err(|e| format!("{}: {e}", options.out.display()))?;
    Ok(RecordReport {
        recording: options.out.display().to_string(),
        steps: recording.steps(),
        state_hash: format!("{:016x}", state_hash(&world)),
    })
}

/// `atoll record`: records and prints what it wrote.
pub fn run(options: &RecordOptions) -> Result<(), String> {
    let report = record(options)?;
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report).expect("the report serialises"));
    } else {
        println!(
            "recorded {} steps into {}; state hash {}",
            report.steps, report.recording, report.state_hash
        );
    }
    Ok(())
}
