//! Filling a plot in from a walk through the history (`atoll_physics::Walk`): a slice of time
//! a frame, each kept step's copy of the world handed to the plot's reader. What the watched
//! contact (`contact_watch.rs`) and the selected joint (`joint_trace.rs`) share.

use atoll_physics::{Walk, World};
use std::time::{Duration, Instant};

/// Walks `walk` on for at most `budget` (at least one step), handing each step's world to
/// `visit`; the walk is dropped when done, or when the timeline changed under it (what it
/// filled stays). Returns whether steps are left.
pub fn fill_for(walk: &mut Option<Walk>, budget: Duration, mut visit: impl FnMut(&World)) -> bool {
    let Some(w) = walk.as_mut() else { return false };
    let start = Instant::now();
    loop {
        match w.advance() {
            Ok(Some(copy)) => visit(copy),
            Ok(None) | Err(_) => {
                *walk = None;
                return false;
            }
        }
        if start.elapsed() >= budget {
            return true;
        }
    }
}

/// A walk's progress: the next step it fills and the last, while it runs.
pub fn progress(walk: &Option<Walk>) -> Option<(u64, u64)> {
    let w = walk.as_ref()?;
    Some((w.next_step()?, w.last_step()))
}
