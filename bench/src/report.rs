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
    /// Threads the figures below were measured on.
    pub threads: usize,
    /// Milliseconds per step over every step of every repeat, pooled.
    pub step_ms: Spread,
    /// Heap bytes the world held at the end of a repeat (the largest over the repeats).
    pub world_bytes: i64,
    /// The last repeat's check; FAIL if any repeat failed (on any thread count).
    pub check: Verdict,
    /// With `--threads N` above 1: the median ms per step on one thread, pooled the same way.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub one_thread_median_ms: Option<f64>,
    /// With `--threads N` above 1: the one-thread median over the N-thread median (2 means
    /// twice as fast on N threads). Absent for an engine this build runs on one thread only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub speedup: Option<f64>,
}

impl EngineResult {
    /// Pools the repeats of one engine: `repeats` ran on `threads` threads; `one_thread`, when
    /// given, are the same engine's repeats on one thread, for the speed-up.
    pub fn from_repeats(
        engine: EngineKind,
        threads: usize,
        repeats: &[Repeat],
        one_thread: Option<&[Repeat]>,
    ) -> EngineResult {
        let pooled = |repeats: &[Repeat]| {
            let samples: Vec<f64> = repeats.iter().flat_map(|r| r.step_ms.iter().copied()).collect();
            Spread::of(&samples)
        };
        let step_ms = pooled(repeats);
        let one_thread_median_ms = one_thread.map(|r| pooled(r).median);
        let mut check = repeats.last().expect("at least one repeat").verdict.clone();
        if repeats.iter().chain(one_thread.unwrap_or_default()).any(|r| r.verdict.ok == Some(false)) {
            check.ok = Some(false);
        }
        EngineResult {
            engine,
            threads,
            step_ms,
            world_bytes: repeats.iter().map(|r| r.world_bytes).max().unwrap_or(0),
            check,
            one_thread_median_ms,
            speedup: one_thread_median_ms.map(|one| one / step_ms.median),
        }
    }
}

/// Every engine's results on one scene.
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
    /// Solver substeps per step, in every engine.
    pub substeps: u32,
    /// Atoll's results.
    pub atoll: EngineResult,
    /// Rapier's results.
    pub rapier: EngineResult,
    /// Atoll's median step time over Rapier's (below 1 means Atoll is faster).
    pub ratio: f64,
    /// Box3D's results; absent when the scene was not built for Box3D (`box3d_not_built`).
    pub box3d: Option<EngineResult>,
    /// Atoll's median step time over Box3D's (below 1 means Atoll is faster).
    pub ratio_box3d: Option<f64>,
    /// Why the scene was not built for Box3D.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub box3d_not_built: Option<String>,
}

impl SceneResult {
    /// Some engine's plausibility check failed.
    pub fn failed(&self) -> bool {
        [Some(&self.atoll), Some(&self.rapier), self.box3d.as_ref()]
            .into_iter()
            .flatten()
            .any(|r| r.check.ok == Some(false))
    }
}

/// Everything one run measured, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct Report {
    /// Steps per repeat.
    pub steps: usize,
    /// Repeats per engine and scene.
    pub repeats: usize,
    /// Threads asked for (`--threads`); above 1, each engine also ran on one thread.
    pub threads: usize,
    /// Step length, s.
    pub dt: f32,
    /// How the step-time figures are formed.
    pub statistic: &'static str,
    /// One entry per scene, in run order.
    pub scenes: Vec<SceneResult>,
}

/// The header of the Markdown table [`row`] fills; with `threads` above 1 it has a speed-up
/// column per engine.
pub fn header(threads: usize) -> String {
    let speedups = if threads > 1 { " Atoll speed-up | Rapier speed-up | Box3D speed-up |" } else { "" };
    let columns = format!(
        "| scene | bodies | joints | substeps | Atoll median ms | Atoll p95 ms | Rapier median ms | Rapier p95 ms | \
         Atoll/Rapier | Box3D median ms | Box3D p95 ms | Atoll/Box3D |{speedups} Atoll MiB | Rapier MiB | Box3D MiB | \
         Atoll check | Rapier check | Box3D check | passes when |"
    );
    let rule: String = columns
        .split('|')
        .skip(1)
        .filter(|c| !c.is_empty())
        .map(|c| if is_text_column(c.trim()) { " --- |" } else { " ---: |" })
        .collect();
    format!("{columns}\n|{rule}")
}

/// Columns aligned left (the rest hold numbers).
fn is_text_column(name: &str) -> bool {
    name == "scene" || name.ends_with("check") || name == "passes when"
}

/// One scene as a row of the Markdown table of [`header`]`(threads)`.
pub fn row(r: &SceneResult, threads: usize) -> String {
    const NA: &str = "n/a";
    let mib = |bytes: i64| format!("{:.1}", bytes as f64 / (1024.0 * 1024.0));
    let ms = |v: f64| format!("{v:.2}");
    let check = |c: &Verdict| format!("{} {}", c.label(), c.measured);
    let speedup = |e: &EngineResult| e.speedup.map_or_else(|| "-".to_string(), |s| format!("{s:.2}"));
    let b = r.box3d.as_ref();
    let or_na = |cell: Option<String>| cell.unwrap_or_else(|| NA.to_string());
    let speedups = if threads > 1 {
        format!(" {} | {} | {} |", speedup(&r.atoll), speedup(&r.rapier), or_na(b.map(speedup)))
    } else {
        String::new()
    };
    let box3d_check = match (b, &r.box3d_not_built) {
        (Some(e), _) => check(&e.check),
        (None, Some(why)) => format!("{NA}: {why}"),
        (None, None) => NA.to_string(),
    };
    format!(
        "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |{speedups} {} | {} | {} | {} | {} | {} | {} |",
        r.scene,
        r.bodies,
        r.joints,
        r.substeps,
        ms(r.atoll.step_ms.median),
        ms(r.atoll.step_ms.p95),
        ms(r.rapier.step_ms.median),
        ms(r.rapier.step_ms.p95),
        ms(r.ratio),
        or_na(b.map(|e| ms(e.step_ms.median))),
        or_na(b.map(|e| ms(e.step_ms.p95))),
        or_na(r.ratio_box3d.map(ms)),
        mib(r.atoll.world_bytes),
        mib(r.rapier.world_bytes),
        or_na(b.map(|e| mib(e.world_bytes))),
        check(&r.atoll.check),
        check(&r.rapier.check),
        box3d_check,
        r.atoll.check.expected,
    )
}

/// Writes a report (a [`Report`] or the terrain mode's) as pretty JSON.
pub fn write_json(path: &Path, report: &impl Serialize) -> Result<(), String> {
    let text = serde_json::to_string_pretty(report).map_err(|e| e.to_string())?;
    std::fs::write(path, text + "\n").map_err(|e| format!("{}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn engine(kind: EngineKind, median: f64, speedup: Option<f64>) -> EngineResult {
        EngineResult {
            engine: kind,
            threads: if speedup.is_some() { 2 } else { 1 },
            step_ms: Spread { median, p95: 2.0 * median },
            world_bytes: 1 << 20,
            check: Verdict { measured: "m".into(), expected: "e".into(), ok: Some(true) },
            one_thread_median_ms: speedup.map(|s| s * median),
            speedup,
        }
    }

    fn scene(box3d: Option<EngineResult>, speedups: bool) -> SceneResult {
        let s = speedups.then_some(1.5);
        SceneResult {
            scene: "rain".into(),
            description: String::new(),
            bodies: 3,
            joints: 0,
            substeps: 4,
            atoll: engine(EngineKind::Atoll, 1.0, s),
            rapier: engine(EngineKind::Rapier, 2.0, None),
            ratio: 0.5,
            ratio_box3d: box3d.as_ref().map(|b| 1.0 / b.step_ms.median),
            box3d_not_built: box3d.is_none().then(|| "no cones that wide".to_string()),
            box3d,
        }
    }

    fn cells(line: &str) -> usize {
        line.matches('|').count() - 1
    }

    #[test]
    fn rows_fill_every_column_of_the_header() {
        for threads in [1, 2] {
            let header = header(threads);
            let (names, rule) = header.split_once('\n').unwrap();
            assert_eq!(cells(names), cells(rule));
            assert_eq!(cells(names), if threads > 1 { 22 } else { 19 });
            let with = scene(Some(engine(EngineKind::Box3d, 4.0, (threads > 1).then_some(1.2))), threads > 1);
            assert_eq!(cells(&row(&with, threads)), cells(names));
            let without = row(&scene(None, threads > 1), threads);
            assert_eq!(cells(&without), cells(names));
            assert!(without.contains("| n/a: no cones that wide |"), "{without}");
        }
    }

    #[test]
    fn a_failed_box3d_check_fails_the_scene() {
        let mut failing = engine(EngineKind::Box3d, 4.0, None);
        assert!(!scene(Some(failing.clone()), false).failed());
        failing.check.ok = Some(false);
        assert!(scene(Some(failing), false).failed());
        assert!(!scene(None, false).failed());
    }
}
