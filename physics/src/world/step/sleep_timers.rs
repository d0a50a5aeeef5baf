//! Sleep timers: how long each body has rested. Finalising advances every awake body's timer
//! and copies it, with the body's island, into dense arrays in awake order; the sleep stage
//! folds those into each island's smallest and largest timer ([`IslandTimers`]) instead of
//! walking each island's bodies, whose cache lines finalising left in the other threads'
//! caches. Anything that restarts a body's timer mid-step ([`World::restart_sleep_timer`])
//! keeps the copy equal to it.

use crate::solver::FIXED_SLOT;
use crate::world::World;

/// The awake bodies' sleep timers and islands as finalising left them, and the islands' folds.
#[derive(Clone, Debug, Default)]
pub(crate) struct SleepTimers {
    /// Per awake body, its sleep timer after finalising.
    pub(crate) timers: Vec<f32>,
    /// Per awake body, its island (`NONE` for a kinematic body).
    pub(crate) body_islands: Vec<u32>,
    /// Per island slot, the smallest and largest sleep timer of its bodies in the awake list
    /// (the sleep stage's, for the sleep pass each entry names).
    pub(crate) island_timers: Vec<IslandTimers>,
    /// Sleep stages run with these arrays, the number [`Self::island_timers`] entries carry.
    pub(crate) pass: u64,
}

impl SleepTimers {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        (self.timers.len() + self.body_islands.len()) * 4
            + self.island_timers.len() * std::mem::size_of::<IslandTimers>()
    }
}

/// The smallest and largest sleep timer of an island's bodies in the awake list, and how many
/// they were, as sleep stage number `pass` folded them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IslandTimers {
    pub(super) pass: u64,
    pub(super) min: f32,
    pub(super) max: f32,
    pub(super) bodies: u32,
}

impl IslandTimers {
    /// An entry no pass has written (the passes count from 1).
    pub(super) const NEVER: IslandTimers = IslandTimers { pass: 0, min: f32::MAX, max: 0.0, bodies: 0 };
}

impl World {
    /// Sets body slot `body`'s sleep timer to zero, and its copy for the sleep stage when it
    /// is in this step's awake list (a body woken since has none: its island is walked).
    pub(crate) fn restart_sleep_timer(&mut self, body: u32) {
        self.bodies.bodies[body as usize].sleep_timer = 0.0;
        let slot = self.scratch.solve.solver_index[body as usize];
        if slot != FIXED_SLOT {
            self.scratch.sleep_timers.timers[slot as usize - 1] = 0.0;
        }
    }
}
