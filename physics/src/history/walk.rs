//! [`Walk`]: a copy of a world stepped through a history's kept steps one at a time, leaving
//! the history and the world alone. How a debugger fills a plot over the whole timeline for
//! something it began to watch only now (a contact pair, a joint): it walks from the first
//! kept step, a slice of steps a frame, reading the copy at each, while the live world records
//! on. Each step is the recorded one (the copy seeks: restore, then replay with the recorded
//! inputs), so what it reads is what the world was.

use super::History;
use crate::error::AtollError;
use crate::world::World;

/// A walk through a history's kept steps (see the module documentation).
#[derive(Debug)]
pub struct Walk {
    history: History,
    world: World,
    next: u64,
    last: u64,
}

impl Walk {
    /// A walk over `history`'s kept steps, from the first to the last kept now, on a copy of
    /// `world` (the world the history records); `None` when nothing is kept.
    pub fn new(history: &History, world: &World) -> Option<Walk> {
        let (first, last) = history.range()?;
        let mut copy = world.clone();
        // The copy steps on the caller's thread: a walk fills a plot while the world waits.
        copy.set_thread_count(1).expect("one thread is always allowed");
        Some(Walk { history: history.duplicate(), world: copy, next: first, last })
    }

    /// The step the next [`Walk::advance`] puts the copy at; `None` once the walk is done.
    pub fn next_step(&self) -> Option<u64> {
        (self.next <= self.last).then_some(self.next)
    }

    /// The last step the walk goes to.
    pub fn last_step(&self) -> u64 {
        self.last
    }

    /// Puts the copy at the next kept step and returns it; `None` once past the last.
    pub fn advance(&mut self) -> Result<Option<&World>, AtollError> {
        let Some(step) = self.next_step() else { return Ok(None) };
        self.history.seek(&mut self.world, step)?;
        self.next += 1;
        Ok(Some(&self.world))
    }
}
