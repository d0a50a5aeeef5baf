//! How a recorded world keeps its tape: every changing call logs itself once it succeeded,
//! every step logs its state hash, restoring a state moves the tape's head, and the
//! recording is read off the tape (see `recording.rs`).

use super::World;
use crate::error::AtollError;
use crate::recording::input::Input;
use crate::recording::tape::{Logged, Tape, TapeMark};
use crate::recording::{RECORDING_VERSION, RecordedInput, Recording};
use crate::snapshot::state_hash;

impl World {
    /// Whether the world keeps a tape (it was built by [`Scene::build_recorded_world`]).
    pub fn is_recorded(&self) -> bool {
        self.tape.is_some()
    }

    /// Stops keeping the tape (a world that need not be recorded steps a little faster: it
    /// hashes its state after every step while recorded).
    pub fn stop_recording(&mut self) {
        self.tape = None;
    }

    /// Bytes the tape holds (its scene not counted).
    pub fn recording_bytes(&self) -> usize {
        self.tape.as_ref().map_or(0, Tape::bytes)
    }

    /// The recording of how the world came to its current state: its scene, every input
    /// since and every step's hash. Refused for a world that keeps no tape, and for one put
    /// at a state its tape does not lead to (a state of another world's history restored).
    pub fn recording(&self) -> Result<Recording, AtollError> {
        let tape = self.tape.as_ref().ok_or_else(|| {
            AtollError::invalid(
                "recording",
                "this world keeps no recording (it was not built to be recorded)",
            )
        })?;
        if let Some(why) = tape.broken {
            return Err(AtollError::invalid("recording", why));
        }
        let mut inputs = Vec::new();
        let mut step_hashes = Vec::new();
        for entry in tape.lineage() {
            match &entry.what {
                Logged::Input(input) => {
                    inputs.push(RecordedInput { step: entry.step, input: (**input).clone() })
                }
                Logged::Step { hash } => step_hashes.push(*hash),
            }
        }
        Ok(Recording {
            version: RECORDING_VERSION,
            engine: format!("atoll-physics {}", env!("CARGO_PKG_VERSION")),
            scene: tape.origin.scene.clone(),
            start_hash: tape.origin.hash,
            inputs,
            step_hashes,
            end_hash: self.current_hash(),
        })
    }

    /// The world's state hash ([`state_hash`]), taken from the tape when it holds it (a
    /// recorded world hashes itself after every step, so a history or a replay that wants the
    /// hash after a step need not hash again).
    pub fn current_hash(&self) -> u64 {
        match &self.tape {
            Some(tape) if tape.broken.is_none() => tape.hash_at_head().unwrap_or_else(|| state_hash(self)),
            _ => state_hash(self),
        }
    }

    /// Writes an input on the tape, if the world keeps one and the call is not part of a step
    /// or of another logged call. Called by every changing call once it succeeded.
    pub(crate) fn log_input(&mut self, input: impl FnOnce() -> Input) {
        if let Some(tape) = &mut self.tape
            && !tape.muted
            && !self.stepping
        {
            tape.write(self.step_count, Logged::Input(Box::new(input())));
        }
    }

    /// Writes the step just taken on the tape, with the state hash after it.
    pub(crate) fn log_step(&mut self) {
        if self.tape.is_some() {
            let hash = state_hash(self);
            let step = self.step_count;
            if let Some(tape) = &mut self.tape {
                tape.write(step, Logged::Step { hash });
            }
        }
    }

    /// Runs `call` (a changing call made by another one) without logging it: the outer call
    /// is the input.
    pub(crate) fn unlogged<T>(&mut self, call: impl FnOnce(&mut World) -> T) -> T {
        let was = self.tape.as_mut().map(|t| std::mem::replace(&mut t.muted, true));
        let out = call(self);
        if let (Some(tape), Some(was)) = (self.tape.as_mut(), was) {
            tape.muted = was;
        }
        out
    }

    /// After a state was put back: the tape moves to the state's place on it, or, when it
    /// does not hold the history that led there, can no longer say how the world came to be.
    pub(crate) fn seek_tape(&mut self, mark: Option<TapeMark>) {
        if let Some(tape) = &mut self.tape
            && !mark.is_some_and(|m| tape.seek(m))
        {
            tape.broken = Some(
                "the world was put at a state from outside its own history, so its recording no \
                 longer leads to it",
            );
        }
    }

    /// The entries written on the tape since `mark`, when the world keeps a whole tape that
    /// still holds the history through `mark`.
    pub(crate) fn tape_since(&self, mark: TapeMark) -> Option<&[crate::recording::tape::Entry]> {
        self.tape.as_ref()?.since(mark)
    }

    /// Where the world's state is on its tape.
    pub(crate) fn tape_mark(&self) -> Option<TapeMark> {
        self.tape.as_ref().map(Tape::mark)
    }

    /// Where the world's state is on its tape, when the tape still leads there (not after a
    /// state from another history was restored).
    pub(crate) fn whole_tape_mark(&self) -> Option<TapeMark> {
        self.tape.as_ref().filter(|t| t.broken.is_none()).map(Tape::mark)
    }
}
