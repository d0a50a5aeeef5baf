//! Runs one repeat of one engine on one scene: builds a fresh world, steps it, times every
//! step, counts the bytes the world holds and checks the end state.

use crate::alloc::live_bytes;
use crate::atoll_world::AtollWorld;
use crate::check::{Check, Verdict};
use crate::engine::{BuildError, Engine, EngineKind};
use crate::rapier_world::RapierWorld;
use atoll_physics::Scene;
use std::time::Instant;

/// What one repeat measured.
pub struct Repeat {
    /// Wall-clock time of each step, ms.
    pub step_ms: Vec<f64>,
    /// Heap bytes the world holds after building and stepping (live bytes then, minus before;
    /// for Box3D plus what its C allocator holds then, minus before).
    pub world_bytes: i64,
    /// The end state's check.
    pub verdict: Verdict,
}

/// The outcome of one repeat.
pub enum Outcome {
    /// The world was built, stepped and checked.
    Measured(Repeat),
    /// The engine has no equivalent for something in the scene, or is not in this build: why.
    NotBuilt(String),
}

/// Builds `scene` in `kind`'s engine on `threads` threads and steps it `steps` times; an
/// error stops the run.
pub fn run(
    kind: EngineKind,
    scene: &Scene,
    check: &Check,
    steps: usize,
    threads: usize,
) -> Result<Outcome, String> {
    // Allocated before the count starts, so only the world's memory is counted.
    let mut step_ms = Vec::with_capacity(steps);
    let before = live_bytes() as i64 + native_bytes(kind);
    let mut engine = match build(kind, scene, threads) {
        Ok(engine) => engine,
        Err(BuildError::Unsupported(why)) => return Ok(Outcome::NotBuilt(why)),
        Err(BuildError::Failed(e)) => return Err(e),
    };
    for _ in 0..steps {
        let start = Instant::now();
        engine.step();
        step_ms.push(start.elapsed().as_secs_f64() * 1e3);
    }
    let world_bytes = live_bytes() as i64 + native_bytes(kind) - before;
    let verdict = check.evaluate(scene, engine.as_ref(), steps);
    Ok(Outcome::Measured(Repeat { step_ms, world_bytes, verdict }))
}

/// A world of `kind`'s engine holding `scene`.
fn build(kind: EngineKind, scene: &Scene, threads: usize) -> Result<Box<dyn Engine>, BuildError> {
    Ok(match kind {
        EngineKind::Atoll => Box::new(AtollWorld::build(scene, threads).map_err(BuildError::Failed)?),
        EngineKind::Rapier => Box::new(RapierWorld::build(scene, threads).map_err(BuildError::Failed)?),
        #[cfg(feature = "box3d")]
        EngineKind::Box3d => Box::new(crate::box3d_world::Box3dWorld::build(scene, threads)?),
        #[cfg(not(feature = "box3d"))]
        EngineKind::Box3d => {
            return Err(BuildError::Unsupported("atoll-bench built without the `box3d` feature".into()));
        }
    })
}

/// Bytes `kind`'s engine holds outside Rust's allocator, which the counting allocator cannot
/// see: Box3D's C allocations (its own byte count); none for the Rust engines.
fn native_bytes(kind: EngineKind) -> i64 {
    match kind {
        #[cfg(feature = "box3d")]
        EngineKind::Box3d => crate::box3d_world::native_bytes(),
        _ => 0,
    }
}

/// Median and 95th percentile of a set of samples.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Spread {
    /// The middle sample (the mean of the two middle ones for an even count).
    pub median: f64,
    /// The sample 95 % of the way up (nearest rank).
    pub p95: f64,
}

impl Spread {
    /// The spread of `samples` (zeros when there are none).
    pub fn of(samples: &[f64]) -> Spread {
        if samples.is_empty() {
            return Spread::default();
        }
        let mut sorted = samples.to_vec();
        sorted.sort_by(f64::total_cmp);
        let n = sorted.len();
        let median = if n % 2 == 1 { sorted[n / 2] } else { 0.5 * (sorted[n / 2 - 1] + sorted[n / 2]) };
        let rank = ((0.95 * n as f64).ceil() as usize).clamp(1, n);
        Spread { median, p95: sorted[rank - 1] }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_p95() {
        let samples: Vec<f64> = (1..=100).rev().map(f64::from).collect();
        assert_eq!(Spread::of(&samples), Spread { median: 50.5, p95: 95.0 });
        assert_eq!(Spread::of(&[3.0, 1.0, 2.0]), Spread { median: 2.0, p95: 3.0 });
        assert_eq!(Spread::of(&[]), Spread::default());
    }
}
