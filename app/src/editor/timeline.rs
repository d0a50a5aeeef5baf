//! The timeline: the engine's history of the world's recent steps (`atoll_physics::History`),
//! recorded after every step and every edit, and the editor's moves along it. Going to a step
//! puts the world itself at that step, so every panel shows the step under the cursor; playing
//! or stepping from there replays the recorded steps (they match bit for bit), and an edit
//! there discards the steps after it.
//!
//! Pushes, grabs and moves made while the simulation runs are inputs the history keeps with
//! the step after them and makes again on the way through (`History::make_recorded_inputs`
//! before each step from the past), so a grab costs no keyframe per step and playing on from
//! the past goes through the same pushes.
//!
//! Edits that change what the world is made of (bodies and joints added, removed or rebuilt,
//! terrain painted) are inputs on the tape too: the timeline goes on across them, a move to a
//! step before one puts back the world as it was then (with the bodies it had, under the names
//! they had: `Entities` keeps every id a key ever named), and playing on from there makes the
//! edit again at its step.
//!
//! The moves along the timeline, which need the whole editor state, are in `playback.rs`.

use super::body_history::BodyHistory;
use atoll_physics::{History, HistorySettings, RecordOutcome, World};
use std::time::Duration;

/// The time a paused frame spends preparing steps back: a third of a 60 Hz frame.
pub const PREPARE_BACK_PER_FRAME: Duration = Duration::from_millis(5);

/// The time a frame spends replaying towards the step a scrub on the bar points at (at least a
/// step is replayed): in a large world a step far from any kept state takes seconds to
/// rebuild, and the bar must follow the pointer meanwhile.
pub const SCRUB_PER_FRAME: Duration = Duration::from_millis(12);

/// The history of the world's steps and what its last recording said.
pub struct Timeline {
    /// The recorded steps.
    pub history: History,
    /// Every body's samples over the window, for the Inspector's plots.
    pub bodies: BodyHistory,
    /// What the last recording changed that the user should hear of (steps discarded, the
    /// timeline started again), for the status bar.
    pub note: Option<String>,
    /// The step a scrub is on its way to, a slice of replay per frame
    /// ([`EditorState::scrub_to`](crate::editor::EditorState::scrub_to)).
    pub scrub_target: Option<u64>,
}

impl Timeline {
    /// A timeline whose first step is the world as it is.
    pub fn new(world: &World) -> Timeline {
        let settings = HistorySettings::default();
        let mut history = History::new(settings);
        history.record(world);
        let mut bodies = BodyHistory::default();
        bodies.record(world, settings.window);
        Timeline { history, bodies, note: None, scrub_target: None }
    }

    /// Records the world after a step or an edit; returns what the history did.
    pub fn record(&mut self, world: &World) -> RecordOutcome {
        let outcome = self.history.record(world);
        if outcome.recorded {
            // The step is new (or replaces a discarded one): so are its samples.
            self.bodies.drop_from(world.step_count());
            self.bodies.record(world, self.history.settings().window);
        }
        if outcome.discarded > 0 {
            // Inputs made at a step in the past discard the steps after it before any is
            // recorded: their samples go with them.
            self.bodies.drop_from(world.step_count() + 1);
            // A step recorded after inputs made at the step before it (as a grab's) follows
            // the edit; a segment's first step is the edit's own.
            let step = world.step_count();
            let edit_at = match self.history.record_of(step) {
                Some(r) if outcome.recorded && !r.after_edit => step - 1,
                _ => step,
            };
            self.note = Some(format!(
                "the edit at step {edit_at} discarded the {} steps after it",
                outcome.discarded
            ));
        }
        outcome
    }

    /// While the simulation is paused: prepares the steps back from the world's step, so that
    /// the steps back the user takes next restore a kept state instead of replaying. On a
    /// machine of several cores it runs on a thread of its own (the world does not step while
    /// paused, so a core is idle); on one core, in a slice of each frame
    /// ([`PREPARE_BACK_PER_FRAME`]). Returns whether the states the history plans to keep there
    /// are all kept (or as many as its room holds).
    pub fn prepare_back(&mut self, world: &World) -> bool {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        let report = match cores {
            1 => self.history.prepare_back(world, PREPARE_BACK_PER_FRAME),
            _ => self.history.prepare_back_aside(world),
        };
        match report {
            Ok(report) => report.ready,
            Err(e) => {
                self.note = Some(format!("preparing the steps back failed: {e}"));
                false
            }
        }
    }

    /// Starts again from the world as it is (a reset, a new scene).
    pub fn restart(&mut self, world: &World) {
        *self = Timeline::new(world);
    }

    /// The kept steps, first and last.
    pub fn range(&self) -> (u64, u64) {
        self.history.range().unwrap_or((0, 0))
    }
}
