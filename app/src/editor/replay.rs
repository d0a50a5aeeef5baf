//! Recordings in the editor: File > Save recording writes how the world came to the step on
//! screen (the scene as opened, every input since, every step's hash; see
//! `atoll_physics::recording`); File > Open recording opens its scene and replays it as the
//! simulation plays, checking every step, and stops where a replay parts from the recording,
//! with the world shown at that step and the step named.
//!
//! A replay is the simulation playing: pause stops it, play and step go on with it. Anything
//! else that moves the world (an edit, a move along the timeline, Reset, another scene) ends
//! it, since the recording's inputs no longer apply to the world that follows.

//!
//! This file holds the replay's own state; the code that runs it on the editor state is in
//! `playback.rs`, so that the state can hold a replay without importing that code.

use atoll_physics::Replayer;

/// A replay under way.
pub struct ReplayRun {
    /// The recording and how far it got.
    pub(super) replayer: Replayer,
    /// The file it came from, for messages.
    pub(super) name: String,
}

impl ReplayRun {
    /// Steps the recording holds.
    pub fn steps(&self) -> u64 {
        self.replayer.recording().steps()
    }

    /// "replaying crash.ron: step 120 of 600", for the status bar.
    pub fn progress(&self, step: u64) -> String {
        format!("replaying {}: step {step} of {}", self.name, self.steps())
    }
}
