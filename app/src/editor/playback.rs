//! The simulation's controls that need the whole editor state: play, pause and step (a step
//! also records the timeline and the diagnostics, and keeps the document's edited state),
//! moving along the timeline (see `timeline.rs`) and saving, opening and running recordings
//! (see `replay.rs`).
//!
//! They live apart from the types they drive so that `state.rs` can hold a timeline and a
//! replay without importing the code that works on the state: the modules stay layered (see
//! `tests/import_cycles.rs`).

use super::branching::Branching;
use super::notices::NoticePlace;
use super::replay::ReplayRun;
use super::state::EditorState;
use super::timeline::SCRUB_PER_FRAME;
use atoll_physics::{RecordOutcome, Recording, ReplayError, ReplayProgress, Replayer, state_hash};
use std::path::Path;
use std::time::{Duration, Instant};

/// Most steps taken in one frame while playing, so a slow frame does not snowball into slower
/// frames (the simulation then runs slower than real time instead).
const MAX_STEPS_PER_FRAME: u32 = 4;

/// The longest a frame spends replaying, so the editor stays responsive while a long
/// recording replays faster than real time.
const REPLAY_FRAME_BUDGET: Duration = Duration::from_millis(25);

impl EditorState {
    /// Starts or stops the simulation.
    pub fn toggle_play(&mut self) {
        self.sim.playing = !self.sim.playing;
        self.sim.pending_seconds = 0.0;
    }

    /// Advances exactly one step (pausing first, since a single step only makes sense paused).
    pub fn step_once(&mut self) {
        self.sim.playing = false;
        if self.replaying() {
            self.replay_step();
        } else {
            self.step_world();
        }
    }

    /// Takes `n` steps at once (pausing first).
    pub fn step_many(&mut self, n: u32) {
        self.sim.playing = false;
        for _ in 0..n {
            self.step_world();
        }
    }

    /// Returns to the edited state (the scene as loaded or last edited); the camera and
    /// selection stay.
    pub fn reset(&mut self) {
        self.end_replay("Reset");
        if !self.doc.edited_stale {
            self.sim.world.restore(&self.doc.edited);
        }
        self.sim.timeline.restart(&self.sim.world);
        self.sim.pending_seconds = 0.0;
        // The branches were of the timeline that ended: they go with it.
        if !self.sim.branching.branches.is_empty() {
            self.sim.branching = Branching::new(self.sim.timeline.history.settings());
            self.sim.branching.note = Some("Reset dropped the branches".to_string());
        }
    }

    /// Called once per frame with the frame's duration: while playing, steps the world at its
    /// fixed rate (at most [`MAX_STEPS_PER_FRAME`] steps). Returns the steps taken.
    pub fn advance(&mut self, frame_seconds: f64) -> u32 {
        if !self.sim.playing {
            if self.sim.timeline.scrub_target.is_some() {
                self.continue_scrub();
            } else {
                self.sim.timeline.prepare_back(&self.sim.world);
            }
            return 0;
        }
        if self.replaying() {
            return self.advance_replay();
        }
        let dt = self.sim.world.settings().dt as f64;
        self.sim.pending_seconds += frame_seconds.max(0.0) * self.sim.time_scale.max(0.0);
        let mut steps = 0;
        // Always at least one step per played frame, so playing shows motion even when frames
        // come faster than the step rate or the clock does not advance (tests).
        while steps == 0 || (self.sim.pending_seconds >= dt && steps < MAX_STEPS_PER_FRAME) {
            self.step_world();
            self.sim.pending_seconds = (self.sim.pending_seconds - dt).max(0.0);
            steps += 1;
        }
        if steps == MAX_STEPS_PER_FRAME {
            self.sim.pending_seconds = 0.0;
        }
        steps
    }

    pub(super) fn step_world(&mut self) {
        self.keep_edited_state();
        // Stepping goes on from the step shown: a scrub under way ends there.
        self.sim.timeline.scrub_target = None;
        // From a step in the past, the inputs made there the first time come first, so the
        // step is the recorded one (a grab made now differs, and the records after it go).
        if let Err(e) = self.sim.timeline.history.make_recorded_inputs(&mut self.sim.world) {
            self.diag.notices.report(super::notices::NoticePlace::ErrorWindow, e.to_string());
        }
        if let Some(grab) = self.sim.grab
            && !grab.apply(&mut self.sim.world, &self.sim.grab_settings)
        {
            // The grabbed body is gone (deleted, or undone away).
            self.sim.grab = None;
        }
        let start = Instant::now();
        self.sim.world.step();
        self.diag.last_step_ms = start.elapsed().as_secs_f64() * 1e3;
        self.diag.history.record(&self.sim.world);
        self.record_timeline();
        self.follow_branches();
        // Playing on from the past may have made an edit again (a body added there).
        self.doc.entities.follow(&self.sim.world);
        self.diag.joint_trace.record(&self.sim.world, self.doc.selection.joint());
        self.diag.contact_watch.record(&mut self.sim.world);
        self.diag.island_energy.record(&self.sim.world, self.doc.selection.primary());
    }
}

/// Saves the recording of how the world came to its current step. Returns what to tell the
/// user.
pub fn save_recording(state: &mut EditorState, path: &Path) -> Result<String, String> {
    let recording = state.sim.world.recording().map_err(|e| format!("no recording to save: {e}"))?;
    recording.save(path).map_err(|e| format!("could not save the recording {}: {e}", path.display()))?;
    let note = format!(
        "saved the recording of steps 0 to {} ({} inputs) to {}",
        recording.steps(),
        recording.inputs.len(),
        path.display()
    );
    state.sim.replay_note = Some(note.clone());
    Ok(note)
}

/// Opens the recording at `path`: its scene replaces the open one and the replay starts
/// playing. A file that cannot be read leaves the open scene as it was and says why; a
/// scene this build makes differently opens, stopped at step 0, with the difference named.
pub fn open_recording(state: &mut EditorState, path: &Path) {
    let name =
        path.file_name().map_or_else(|| path.display().to_string(), |n| n.to_string_lossy().into_owned());
    let recording = match Recording::load(path) {
        Ok(recording) => recording,
        Err(e) => {
            state.diag.notices.report(NoticePlace::ErrorWindow, format!("{}: {e}", path.display()));
            return;
        }
    };
    let mut fresh = match EditorState::from_scene(&recording.scene, None) {
        Ok(fresh) => fresh,
        Err(e) => {
            state.diag.notices.report(NoticePlace::ErrorWindow, format!("{name}: {e}"));
            return;
        }
    };
    let found = state_hash(&fresh.sim.world);
    let start = if found == recording.start_hash {
        fresh.sim.replay_note = Some(format!("replaying {name}: step 0 of {}", recording.steps()));
        fresh.sim.replay = Some(ReplayRun { replayer: Replayer::new(recording), name: name.clone() });
        fresh.sim.playing = true;
        None
    } else {
        Some(ReplayError::Diverged { step: 0, expected: recording.start_hash, found })
    };
    state.replace_with(fresh);
    if let Some(error) = start {
        state.replay_stopped(&name, &error);
    }
}

impl EditorState {
    /// Whether a recording is being replayed.
    pub fn replaying(&self) -> bool {
        self.sim.replay.is_some()
    }

    /// Replays for at most a frame's budget (at least one step). Returns the steps taken.
    pub(super) fn advance_replay(&mut self) -> u32 {
        let start = Instant::now();
        let mut steps = 0;
        while self.sim.replay.is_some() && (steps == 0 || start.elapsed() < REPLAY_FRAME_BUDGET) {
            self.replay_step();
            steps += 1;
        }
        steps
    }

    /// Makes the recorded inputs of the world's step and takes the next recorded step, as
    /// stepping does (the timeline and the panels' histories record it); at the end, or where
    /// the replay parts from the recording, stops and says so.
    pub(super) fn replay_step(&mut self) {
        let Some(mut run) = self.sim.replay.take() else { return };
        self.keep_edited_state();
        let made = run.replayer.make_inputs(&mut self.sim.world);
        if made.as_ref().is_ok_and(|&n| n > 0) {
            // The world after the inputs is a step of its own on the timeline, as an edit is.
            self.record_timeline();
        }
        let start = Instant::now();
        let progress = made.and_then(|_| run.replayer.advance(&mut self.sim.world));
        self.diag.last_step_ms = start.elapsed().as_secs_f64() * 1e3;
        match progress {
            Ok(ReplayProgress::Stepped(step)) => {
                self.diag.history.record(&self.sim.world);
                self.record_timeline();
                self.follow_branches();
                self.diag.joint_trace.record(&self.sim.world, self.doc.selection.joint());
                self.diag.contact_watch.record(&mut self.sim.world);
                self.diag.island_energy.record(&self.sim.world, self.doc.selection.primary());
                self.sim.replay_note = Some(run.progress(step));
                self.sim.replay = Some(run);
            }
            Ok(ReplayProgress::Finished) => {
                self.sim.playing = false;
                self.sim.replay_note =
                    Some(format!("replayed {}: all {} steps match the recording", run.name, run.steps()));
            }
            Err(error) => {
                self.record_timeline();
                self.replay_stopped(&run.name, &error);
            }
        }
    }

    /// Stops where the replay parted from the recording, paused there, and says where.
    fn replay_stopped(&mut self, name: &str, error: &ReplayError) {
        self.sim.playing = false;
        self.sim.replay = None;
        let step = match error {
            ReplayError::Diverged { step, .. } | ReplayError::Refused { step, .. } => Some(*step),
            ReplayError::Scene(_) | ReplayError::OffCourse { .. } => None,
        };
        self.sim.replay_note = Some(match step {
            Some(step) => format!("the replay of {name} differs from the recording at step {step}"),
            None => format!("the replay of {name} stopped"),
        });
        self.diag.notices.report(NoticePlace::ErrorWindow, format!("{name}: {error}"));
    }

    /// Ends a replay because the user moved the world some other way.
    pub(super) fn end_replay(&mut self, why: &str) {
        if let Some(run) = self.sim.replay.take() {
            self.sim.replay_note = Some(format!(
                "the replay of {} ended at step {}: {why}",
                run.name,
                self.sim.world.step_count()
            ));
        }
    }
}

impl EditorState {
    /// [`EditorState::go_to_step`] to `step` brought within the kept steps: where a click on a
    /// plot over them lands.
    pub fn go_to_kept_step(&mut self, step: u64) -> Result<(), String> {
        let (first, last) = self.sim.timeline.range();
        self.go_to_step(step.clamp(first, last))
    }

    /// Puts the world at recorded step `step` (pausing first). The edited state Reset returns
    /// to is kept.
    pub fn go_to_step(&mut self, step: u64) -> Result<(), String> {
        self.sim.playing = false;
        self.sim.grab = None;
        self.sim.timeline.scrub_target = None;
        if step == self.sim.world.step_count() && self.sim.timeline.history.cursor() == Some(step) {
            return Ok(());
        }
        self.end_replay("moved along the timeline");
        self.keep_edited_state();
        self.sim.timeline.history.seek(&mut self.sim.world, step).map_err(|e| e.to_string())?;
        self.doc.entities.follow(&self.sim.world);
        self.diag.contact_watch.follow(&mut self.sim.world);
        self.follow_branches();
        Ok(())
    }

    /// Starts moving the world to recorded step `step` the way a drag on the bar does (pausing
    /// first): the following frames each replay for [`SCRUB_PER_FRAME`] towards it
    /// ([`EditorState::continue_scrub`], from [`EditorState::advance`]), the world showing each
    /// recorded step it passes, so the editor stays responsive however far the step is from a
    /// kept state.
    pub fn scrub_to(&mut self, step: u64) {
        self.sim.playing = false;
        self.sim.grab = None;
        if self.sim.timeline.scrub_target.is_none() {
            if step == self.sim.world.step_count() && self.sim.timeline.history.cursor() == Some(step) {
                return;
            }
            self.end_replay("moved along the timeline");
            self.keep_edited_state();
        }
        self.sim.timeline.scrub_target = Some(step);
    }

    /// One frame's slice of the scrub under way, if any.
    pub fn continue_scrub(&mut self) {
        let Some(target) = self.sim.timeline.scrub_target else { return };
        // Nothing edited may be lost to the move (an edit also ends the scrub).
        self.keep_edited_state();
        let sought = self.sim.timeline.history.seek_for(&mut self.sim.world, target, SCRUB_PER_FRAME);
        self.doc.entities.follow(&self.sim.world);
        self.diag.contact_watch.follow(&mut self.sim.world);
        self.follow_branches();
        match sought {
            Ok(report) if !report.arrived => {}
            Ok(_) => self.sim.timeline.scrub_target = None,
            Err(e) => {
                self.sim.timeline.scrub_target = None;
                self.diag.notices.report(NoticePlace::ErrorWindow, e.to_string());
            }
        }
    }

    /// Records the world on the timeline; when that discarded recorded steps, the panels'
    /// histories drop them too (and their walks through the old timeline stop).
    pub(super) fn record_timeline(&mut self) -> RecordOutcome {
        let outcome = self.sim.timeline.record(&self.sim.world);
        if outcome.discarded > 0 {
            let step = self.sim.world.step_count();
            self.diag.contact_watch.discarded_after(step);
            self.diag.joint_trace.discarded_after(step);
        }
        outcome
    }

    /// Takes the step shown again from the one before, as the recorded step (its inputs made
    /// again), so the engine traces the watched contact through it substep by substep: a
    /// step the world was put at was restored or replayed without the trace.
    pub fn trace_step_shown(&mut self) -> Result<(), String> {
        let step = self.sim.world.step_count();
        let (first, _) = self.sim.timeline.range();
        if step <= first {
            return Err(format!("step {step} is the first kept: there is no step before it to take it from"));
        }
        self.go_to_step(step - 1)?;
        self.step_world();
        // At the live end, inputs made at the step since it was taken (a body added while
        // paused) are made again, as a move along the timeline to it would.
        let history = &mut self.sim.timeline.history;
        if history.record_of(step + 1).is_none() && !history.inputs_at(step).is_empty() {
            history.seek(&mut self.sim.world, step).map_err(|e| e.to_string())?;
            self.doc.entities.follow(&self.sim.world);
        }
        Ok(())
    }

    /// Goes `n` steps back along the timeline (as far as the first kept step).
    pub fn step_back(&mut self, n: u64) {
        let (first, _) = self.sim.timeline.range();
        let target = self.sim.world.step_count().saturating_sub(n).max(first);
        if let Err(e) = self.go_to_step(target) {
            self.diag.notices.report(NoticePlace::ErrorWindow, e);
        }
    }
}
