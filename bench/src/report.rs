//! Summarises the repeats of each scene and prints them as a Markdown table or JSON.

use crate::check::Verdict;
use crate::engine::EngineKind;
use crate::measure::{Repeat, Spread};
use serde::Serialize;
use std::path::Path;

/// One engine's results on one scene.
#[derive(Clone, Debug, Serialize)]
pub struct EngineResult {
    /// Which engine.
    pub engine: EngineKind,
    /// Milliseconds per step over every step of every repeat, pooled.
    pub step_ms: Spread,
    /// Heap bytes the world held at the end of a repeat (the largest over the repeats).
    pub world_bytes: i64,
    /// The last repeat's check; FAIL if any repeat failed.
    pub check: Verdict,
}

impl EngineResult {
    /// Pools the repeats of one engine.
    pub fn from_repeats(engine: EngineKind, repeats: &[Repeat]) -> EngineResult {
        let samples: Vec<f64> = repeats.iter().flat_map(|r| r.step_ms.iter().copied()).collect();
        let mut check = repeats.last().expect("at least one repeat").verdict.clone();
        if repeats.iter().any(|r| r.verdict.ok == Some(false)) {
            check.ok = Some(false);
        }
        EngineResult {
            engine,
            step_ms: Spread::of(&samples),
            world_bytes: repeats.iter().map(|r| r.world_bytes).max().unwrap_or(0),
            check,
        }
    }
}

/// Both engines' results on one scene.
#[derive(Clone, Debug, Serialize)]
pub struct SceneResult {
    /// Command-line name.
    pub scene: String,
    /// What it holds.
    pub description: String,
    /// Bodies in the scene, static and kinematic ones included.
    pub bodies: usize,
    /// Joints in the scene.
    pub joints: usize,
    /// Solver substeps per step, in both engines.
    pub substeps: u32,
    /// Atoll's results.
    pub atoll: EngineResult,
    /// Rapier's results.
    pub rapier: EngineResult,
    /// Atoll's median step time over Rapier's (below 1 means Atoll is faster).
    pub ratio: f64,
}

/// Everything one run measured, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Steps per repeat.
    pub steps: usize,
    /// Repeats per engine and scene.
    pub repeats: usize,
    /// Step length, s.
    pub dt: f32,
    /// How the step-time figures are formed.
    pub statistic: &'static str,
    /// One entry per scene, in run order.
    pub scenes: Vec<SceneResult>,
}

/// The header of the Markdown table [`row`] fills.
pub fn header() -> String {
    "| scene | bodies | joints | substeps | Atoll median ms | Atoll p95 ms | Rapier median ms | Rapier p95 ms | Atoll/Rapier | \
     Atoll MiB | Rapier MiB | Atoll check | Rapier check | passes when |\n\
     | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |"
        .to_string()
}

/// One scene as a row of the Markdown table.
pub fn row(r: &SceneResult) -> String {
    let mib = |bytes: i64| bytes as f64 / (1024.0 * 1024.0);
    let check = |c: &Verdict| format!("{} {}", c.label(), c.measured);
    format!(
        "| {} | {} | {} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.1} | {:.1} | {} | {} | {} |",
        r.scene,
        r.bodies,
        r.joints,
        r.substeps,
        r.atoll.step_ms.median,
        r.atoll.step_ms.p95,
        r.rapier.step_ms.median,
        r.rapier.step_ms.p95,
        r.ratio,
        mib(r.atoll.world_bytes),
        mib(r.rapier.world_bytes),
        check(&r.atoll.check),
        check(&r.rapier.check),
        r.atoll.check.expected,
    )
}

/// Writes a report (a [`Report`] or the terrain mode's) as pretty JSON.
pub fn write_json(path: &Path, report: &impl Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}
