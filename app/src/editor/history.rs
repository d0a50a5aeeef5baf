//! The last steps' timings and broadphase figures, kept for the Timing and Broadphase plots.

use atoll_physics::{Stage, World};
use std::collections::VecDeque;

/// Steps the plots look back over.
pub const HISTORY_LEN: usize = 600;

/// What one step measured.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepSample {
    /// The step number after the step.
    pub step: u64,
    /// Milliseconds per stage, indexed like [`Stage::ALL`].
    pub stage_ms: [f64; Stage::ALL.len()],
    /// Milliseconds of the whole step.
    pub total_ms: f64,
    /// Height of the movable tree.
    pub tree_height: u32,
    /// Proxies re-inserted during the step.
    pub reinsertions: u32,
    /// Simulated (awake) bodies.
    pub awake_bodies: u32,
}

/// A ring of the last [`HISTORY_LEN`] samples, oldest first.
#[derive(Clone, Debug, Default)]
pub struct History {
    samples: VecDeque<StepSample>,
}

impl History {
    /// Records the step `world` just took, dropping the oldest sample when full.
    pub fn record(&mut self, world: &World) {
        let profile = world.profile();
        let stats = world.broadphase_stats();
        if self.samples.len() == HISTORY_LEN {
            self.samples.pop_front();
        }
        self.samples.push_back(StepSample {
            step: world.step_count(),
            stage_ms: profile.stage_ms,
            total_ms: profile.total_ms,
            tree_height: stats.movable_tree.height,
            reinsertions: stats.reinsertions_last_step,
            awake_bodies: profile.counters.awake_bodies,
        });
    }

    /// Forgets every sample (a new scene was opened).
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &StepSample> + Clone {
        self.samples.iter()
    }

    /// Number of samples held.
    pub fn len(&self) -> usize {
        self.samples.len()
    }

    /// Whether no step was recorded yet.
    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// Median and maximum of `value` over the samples (zeros when empty).
    pub fn median_max(&self, value: impl Fn(&StepSample) -> f64) -> (f64, f64) {
        let mut values: Vec<f64> = self.samples.iter().map(value).collect();
        if values.is_empty() {
            return (0.0, 0.0);
        }
        values.sort_by(f64::total_cmp);
        (values[values.len() / 2], values[values.len() - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_the_last_samples_and_their_median() {
        let (mut world, _) = crate::builtin::tower(3).build_world().unwrap();
        let mut history = History::default();
        for _ in 0..HISTORY_LEN + 5 {
            world.step();
            history.record(&world);
        }
        assert_eq!(history.len(), HISTORY_LEN);
        assert_eq!(history.samples().next().unwrap().step, 6);
        let (median, max) = history.median_max(|s| s.total_ms);
        assert!(median <= max && max > 0.0);
    }
}
