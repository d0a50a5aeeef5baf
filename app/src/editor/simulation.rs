//! The simulation role of the editor state: the live world and how it moves. Play and pause,
//! the step controls, the timeline of recorded steps, a recording being replayed, and the body
//! grabbed while playing (an input to every step, so the simulation's rather than a tool's).
//!
//! The controls that also touch the document or the diagnostics are methods of the whole state
//! (`state.rs`, `playback.rs`).

use super::branching::Branching;
use super::grab::{Grab, GrabSettings};
use super::replay::ReplayRun;
use super::timeline::Timeline;
use atoll_physics::World;

/// The world and its clock.
pub struct Simulation {
    /// The simulated world.
    pub world: World,
    /// Whether the simulation advances with the frames.
    pub playing: bool,
    /// How many steps the "Step N" button takes.
    pub step_n: u32,
    /// Simulated seconds per real second while playing.
    pub time_scale: f64,
    /// Simulated seconds owed to the world while playing.
    pub(super) pending_seconds: f64,
    /// The recorded steps the timeline moves along (see `timeline.rs`).
    pub timeline: Timeline,
    /// The timeline's other branches, run beside it and compared (see `branching.rs`).
    pub branching: Branching,
    /// The recording being replayed, if any (see `replay.rs`).
    pub replay: Option<ReplayRun>,
    /// What the last replay or saved recording said, for the status bar.
    pub replay_note: Option<String>,
    /// The body being pulled towards the pointer while playing, if any.
    pub grab: Option<Grab>,
    /// How strongly a grabbed body follows the pointer.
    pub grab_settings: GrabSettings,
}
