//! The selected body's island's energy and momentum over the steps since the body was
//! selected, for the Energy panel (the history keeps the scene's per step; an island is
//! followed live, through the body, as islands merge and split around it).

use atoll_physics::{BodyId, Energy, World};
use std::collections::VecDeque;

/// Steps of the island's energy kept.
pub const ISLAND_ENERGY_LEN: usize = 600;

/// The selected body's island's energy at each step since it was selected.
#[derive(Clone, Debug, Default)]
pub struct IslandEnergyTrace {
    body: Option<BodyId>,
    samples: VecDeque<(u64, Energy)>,
}

impl IslandEnergyTrace {
    /// Records the step the world just took for the island of `body` (the selected one, if
    /// any); another body than before starts afresh. A body in no island (static, or asleep
    /// with nothing recorded) adds nothing.
    pub fn record(&mut self, world: &World, body: Option<BodyId>) {
        if body != self.body {
            self.body = body;
            self.samples.clear();
        }
        let Some(island) = body.and_then(|b| world.body_island(b).ok().flatten()) else { return };
        let Ok(energy) = world.island_energy(island) else { return };
        let step = world.step_count();
        // A step taken again (after a move back along the timeline) replaces its sample.
        while self.samples.back().is_some_and(|(s, _)| *s >= step) {
            self.samples.pop_back();
        }
        if self.samples.len() == ISLAND_ENERGY_LEN {
            self.samples.pop_front();
        }
        self.samples.push_back((step, energy));
    }

    /// The body followed.
    pub fn body(&self) -> Option<BodyId> {
        self.body
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &(u64, Energy)> + '_ {
        self.samples.iter()
    }
}
