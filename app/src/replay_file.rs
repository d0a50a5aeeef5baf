//! `atoll replay`: replays a recording file step by step, checking each step's state hash
//! against the recorded one, and fails naming the first step that differs (a tampered file, or
//! a build that steps otherwise).

use crate::progress::steps_bar;
use atoll_physics::{Recording, ReplayError, ReplayProgress, Replayer, state_hash};
use std::path::PathBuf;

/// What `atoll replay` was asked to do.
#[derive(Debug, PartialEq)]
pub struct ReplayOptions {
    /// The recording file.
    pub recording: PathBuf,
    /// Threads for the parallel stages.
    pub threads: u32,
    /// Print JSON instead of a line.
    pub json: bool,
}

/// How a replay went, for the JSON output.
#[derive(Debug, PartialEq, serde::Serialize)]
pub struct ReplayReport {
    /// The recording replayed.
    pub recording: String,
    /// Steps it holds.
    pub steps: u64,
    /// Whether every step matched.
    pub matched: bool,
    /// The first step that did not, when one did not.
    pub diverged_at: Option<u64>,
    /// Why it stopped, when it did.
    pub error: Option<String>,
    /// The state hash where the replay ended, 16 hex digits.
    pub state_hash: String,
}

/// Replays the file; `Err` when it cannot be read, its scene not built or the thread count
/// not set, a report otherwise (matched or not).
pub fn check(options: &ReplayOptions) -> Result<ReplayReport, String> {
    let recording =
        Recording::load(&options.recording).map_err(|e| format!("{}: {e}", options.recording.display()))?;
    let steps = recording.steps();
    let report = |world: Option<&atoll_physics::World>, error: Option<ReplayError>| ReplayReport {
        recording: options.recording.display().to_string(),
        steps,
        matched: error.is_none(),
        diverged_at: error.as_ref().map(first_step),
        error: error.map(|e| e.to_string()),
        state_hash: world.map_or_else(String::new, |w| format!("{:016x}", state_hash(w))),
    };
    let (mut world, _) = match recording.start() {
        Ok(start) => start,
        Err(e @ ReplayError::Diverged { .. }) => return Ok(report(None, Some(e))),
        Err(e) => return Err(format!("{}: {e}", options.recording.display())),
    };
    world.set_thread_count(options.threads as usize).map_err(|e| e.to_string())?;
    let mut replayer = Replayer::new(recording);
    let bar = steps_bar(steps, "replaying");
    let outcome = loop {
        match replayer.advance(&mut world) {
            Ok(ReplayProgress::Stepped(_)) => bar.inc(1),
            Ok(ReplayProgress::Finished) => break None,
            Err(e) => break Some(e),
        }
    };
    bar.finish_and_clear();
    Ok(report(Some(&world), outcome))
}

/// The step a replay error names.
fn first_step(e: &ReplayError) -> u64 {
    match e {
        ReplayError::Scene(_) => 0,
        ReplayError::Refused { step, .. } | ReplayError::Diverged { step, .. } => *step,
        ReplayError::OffCourse { found, .. } => *found,
    }
}

/// `atoll replay`: prints how it went; a replay that parts from the recording is an error
/// (a failing exit) naming the step.
pub fn replay(options: &ReplayOptions) -> Result<(), String> {
    let report = check(options)?;
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report).expect("the report serialises"));
    } else if report.matched {
        println!(
            "replayed {} steps of {}: every state hash matched; {}",
            report.steps, report.recording, report.state_hash
        );
    }
    match (&report.error, report.diverged_at) {
        (Some(error), Some(step)) => Err(format!("{}: step {step}: {error}", report.recording)),
        _ => Ok(()),
    }
}
