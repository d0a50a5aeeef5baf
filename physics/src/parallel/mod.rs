//! The world's threads at work within a step: a [`Team`](team::Team) of the caller's thread and
//! the world's helper threads runs a stage (the narrowphase, the solver's substeps) as blocks
//! that each member claims, and a [`SharedSlice`](shared_slice::SharedSlice) lets the members
//! write their blocks of one array at once. Every block is computed the same way whoever
//! claims it, so the result does not depend on the number of threads.

pub(crate) mod chaos;
pub(crate) mod door;
#[cfg(all(test, loom))]
mod loom_models;
pub(crate) mod prefetch;
pub(crate) mod shared_slice;
pub(crate) mod sync;
pub(crate) mod team;

pub(crate) use prefetch::prefetch_at;
pub(crate) use shared_slice::SharedSlice;
pub(crate) use team::{Claims, MOST_PARTS, Pipeline, Team, Unit, helpers_lingering, run_team};
