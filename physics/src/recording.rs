//! Recordings: the scene a world was built from, every input made to it since (the calls that
//! changed it other than by stepping, each with the step it was made at) and the state hash
//! after every step. The engine is deterministic, so replaying the inputs from the scene gives
//! the same hashes bit for bit; a replay that does not (another build, another machine, a
//! changed file) says at which step it parted.
//!
//! A world built with [`Scene::build_recorded_world`] keeps its own tape (`tape.rs`) as it is
//! stepped and changed; [`World::recording`] takes the part that led to its current state. The
//! tape follows the world back in time: restoring a snapshot or a compact state of the same
//! history moves it back, so a recording saved after scrubbing a timeline ends at the step
//! on screen.

mod file;
pub(crate) mod input;
mod replay;
pub(crate) mod tape;

pub use input::Input;
pub use replay::{ReplayError, ReplayProgress, Replayer};

use crate::body::BodyId;
use crate::scene::Scene;
use crate::scene::fields::BoundedSeq;
use crate::snapshot::state_hash;
use crate::world::World;
use serde::{Deserialize, Deserializer, Serialize};

/// The recording format version this build writes and reads.
pub const RECORDING_VERSION: u32 = 1;
/// Largest recording file accepted, in bytes (a scene may take 64 MiB of it).
pub const MAX_RECORDING_BYTES: u64 = 256 << 20;

/// The most steps a recording may hold: 46 hours at 60 Hz, 80 MB of hashes. A file claiming
/// more is refused while it is read, so its list of hashes (two bytes of text, eight of
/// memory each) cannot take more memory than the file's size allows.
pub const MAX_RECORDED_STEPS: usize = 10_000_000;

/// The most inputs a recording may hold: hours of editing and dragging.
pub const MAX_RECORDED_INPUTS: usize = 1_000_000;

/// A recording: what a bug report attaches.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Recording {
    /// Format version ([`RECORDING_VERSION`]).
    pub version: u32,
    /// The engine build that made it (for the reader of a report; a replay checks hashes, not
    /// this).
    #[serde(default)]
    pub engine: String,
    /// The scene the world was built from.
    pub scene: Scene,
    /// The state hash of the world the scene built.
    pub start_hash: u64,
    /// The inputs, in the order they were made (steps never decrease).
    #[serde(default, deserialize_with = "recorded_inputs")]
    pub inputs: Vec<RecordedInput>,
    /// The state hash after each step: `step_hashes[i]` after step `i + 1`.
    #[serde(default, deserialize_with = "step_hashes")]
    pub step_hashes: Vec<u64>,
    /// The state hash at the end, after the inputs made at the last step.
    pub end_hash: u64,
}

/// An input and the step it was made at (the world's step count then: it came before that
/// step's successor was taken).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordedInput {
    /// The step count when it was made.
    pub step: u64,
    /// The call.
    pub input: Input,
}

/// A recording's inputs, at most [`MAX_RECORDED_INPUTS`].
fn recorded_inputs<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<RecordedInput>, D::Error> {
    d.deserialize_seq(BoundedSeq::<RecordedInput>::new(MAX_RECORDED_INPUTS, "inputs"))
}

/// A recording's step hashes, at most [`MAX_RECORDED_STEPS`].
fn step_hashes<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u64>, D::Error> {
    d.deserialize_seq(BoundedSeq::<u64>::new(MAX_RECORDED_STEPS, "step hashes"))
}

impl Recording {
    /// Steps it holds.
    pub fn steps(&self) -> u64 {
        self.step_hashes.len() as u64
    }

    /// The hash it holds for the world at `step` (0 is the start; the last step's is the
    /// hash before the inputs made at it).
    pub fn hash_at(&self, step: u64) -> Option<u64> {
        match step {
            0 => Some(self.start_hash),
            s => self.step_hashes.get(s as usize - 1).copied(),
        }
    }

    /// The world the recording starts from: its scene, built and recorded, checked against
    /// the start hash. Returns the bodies' ids in scene order with it.
    pub fn start(&self) -> Result<(World, Vec<BodyId>), ReplayError> {
        let (world, ids) = self.scene.build_recorded_world().map_err(ReplayError::Scene)?;
        let found = state_hash(&world);
        if found != self.start_hash {
            return Err(ReplayError::Diverged { step: 0, expected: self.start_hash, found });
        }
        Ok((world, ids))
    }

    /// Replays the whole recording on `threads` threads: the world at its end, or where and
    /// how the replay parted from it.
    pub fn replay(&self, threads: usize) -> Result<World, ReplayError> {
        let (mut world, _) = self.start()?;
        world.set_thread_count(threads).map_err(ReplayError::Scene)?;
        let mut next_input = 0;
        while replay::advance(self, &mut next_input, &mut world)? != ReplayProgress::Finished {}
        Ok(world)
    }
}
