//! [`Stage::Split`]: at most one island that may have split is rebuilt.

#[cfg(doc)]
use crate::profile::Stage;
use crate::world::World;

impl World {
    /// [`Stage::Split`]: rebuild at most one island that may have split (see
    /// [`crate::island::IslandStore::split_candidate`]): one with a body that has rested for
    /// four steps, long enough to tell resting from the top of a bounce. With sleeping off
    /// nothing is split: splitting only serves sleep, and on a busy pile it is a graph walk of
    /// the whole island every step (1.4 ms on the 2000-body rain).
    pub(super) fn split_one_island(&mut self) -> usize {
        if !self.settings.sleep_enabled {
            return 0;
        }
        match self.islands.split_candidate(4.0 * self.settings.dt) {
            Some(id) => self.islands.split(&mut crate::world::body_graph!(self), id),
            None => 0,
        }
    }
}
