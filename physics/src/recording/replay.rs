//! Replaying a recording one step at a time, checking every step's hash, so a caller (the
//! editor) can show the replay as it goes and stop where it parts from the recording.

use super::Recording;
use super::input::Input;
use crate::error::AtollError;
use crate::math::Transform;
use crate::world::World;
use std::fmt;

/// A replay under way: the recording and how far it got.
#[derive(Clone, Debug)]
pub struct Replayer {
    recording: Recording,
    /// The next input to make.
    next_input: usize,
}

/// What one [`Replayer::advance`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReplayProgress {
    /// Made the inputs of the step the world was at and took the next step, whose hash
    /// matched; the world is at this step now.
    Stepped(u64),
    /// Made the last step's inputs; the end matched. Nothing is left to replay.
    Finished,
}

/// Why a replay stopped before the end.
#[derive(Clone, Debug, PartialEq)]
pub enum ReplayError {
    /// The recording's scene could not be built.
    Scene(AtollError),
    /// The world refused an input (a changed file, or a build that behaves otherwise).
    Refused {
        /// The step it was made at.
        step: u64,
        /// Its index in the recording's inputs.
        input: usize,
        /// What it was.
        what: String,
        /// Why it was refused.
        message: String,
    },
    /// The world's state hash differs from the recorded one: the first step where it does.
    /// Step 0 is the world the scene built; at the last step, the hash after its inputs.
    Diverged {
        /// The step.
        step: u64,
        /// The recorded hash.
        expected: u64,
        /// This replay's hash.
        found: u64,
    },
    /// The world is not where the replay left it (stepped or changed in between).
    OffCourse {
        /// The step the replay expected the world at.
        expected: u64,
        /// The step it is at.
        found: u64,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Scene(e) => write!(f, "the recording's scene cannot be built: {e}"),
            ReplayError::Refused { step, input, what, message } => {
                write!(f, "at step {step}, input {input} ({what}) was refused: {message}")
            }
            ReplayError::Diverged { step, expected, found } => write!(
                f,
                "the replay diverges at step {step}: the recording has state hash {expected:016x}, \
                 this build computed {found:016x}"
            ),
            ReplayError::OffCourse { expected, found } => {
                write!(f, "the replay expected the world at step {expected}, but it is at step {found}")
            }
        }
    }
}

impl std::error::Error for ReplayError {}

impl Replayer {
    /// A replay of `recording` from its start (the world of [`Recording::start`]).
    pub fn new(recording: Recording) -> Replayer {
        Replayer { recording, next_input: 0 }
    }

    /// The recording replayed.
    pub fn recording(&self) -> &Recording {
        &self.recording
    }

    /// Makes the inputs recorded at the world's step, then takes the next step and checks its
    /// hash; at the recording's last step, checks the end instead and finishes. An error
    /// names the first step where the replay parts from the recording; the world is left
    /// there, for a look at what happened.
    pub fn advance(&mut self, world: &mut World) -> Result<ReplayProgress, ReplayError> {
        advance(&self.recording, &mut self.next_input, world)
    }

    /// Makes only the inputs recorded at the world's step (a caller that shows the world after
    /// them, before the step, calls this first; [`Replayer::advance`] then takes the step).
    /// Returns how many it made.
    pub fn make_inputs(&mut self, world: &mut World) -> Result<usize, ReplayError> {
        make_inputs(&self.recording, &mut self.next_input, world)
    }
}

/// The inputs recorded at the world's step not made yet, made in order.
fn make_inputs(
    recording: &Recording,
    next_input: &mut usize,
    world: &mut World,
) -> Result<usize, ReplayError> {
    let step = world.step_count();
    let inputs = &recording.inputs;
    let expected_step = inputs[..*next_input].last().map_or(0, |i| i.step);
    if step < expected_step || step > recording.steps() {
        return Err(ReplayError::OffCourse { expected: expected_step, found: step });
    }
    let first = *next_input;
    while let Some(recorded) = inputs.get(*next_input).filter(|i| i.step == step) {
        recorded.input.apply(world).map_err(|e| ReplayError::Refused {
            step,
            input: *next_input,
            what: recorded.input.describe(),
            message: e.to_string(),
        })?;
        *next_input += 1;
    }
    Ok(*next_input - first)
}

/// [`Replayer::advance`] on a borrowed recording, with the index of its next input.
pub(super) fn advance(
    recording: &Recording,
    next_input: &mut usize,
    world: &mut World,
) -> Result<ReplayProgress, ReplayError> {
    make_inputs(recording, next_input, world)?;
    let step = world.step_count();
    let last = recording.steps();
    if step == last {
        let found = world.current_hash();
        if found != recording.end_hash {
            return Err(ReplayError::Diverged { step, expected: recording.end_hash, found });
        }
        return Ok(ReplayProgress::Finished);
    }
    world.step();
    let found = world.current_hash();
    let expected = recording.step_hashes[step as usize];
    if found != expected {
        return Err(ReplayError::Diverged { step: step + 1, expected, found });
    }
    Ok(ReplayProgress::Stepped(step + 1))
}

impl Input {
    /// Makes the call on `world`. The world checks it as it checks every call: an input that
    /// names a body that is not there, or a value out of range, is refused and changes nothing.
    pub fn apply(&self, world: &mut World) -> Result<(), AtollError> {
        match self {
            Input::CreateBody(body) => world.create_body(&body.to_desc()?).map(drop),
            Input::ReplaceBody { body, desc } => world.replace_body(*body, &desc.to_desc()?),
            Input::DestroyBody(body) => world.destroy_body(*body).map(drop),
            Input::SetTransform { body, position, rotation } => {
                world.set_transform(*body, Transform::new(*position, *rotation))
            }
            Input::SetLinearVelocity { body, velocity } => world.set_linear_velocity(*body, *velocity),
            Input::SetAngularVelocity { body, velocity } => world.set_angular_velocity(*body, *velocity),
            Input::ApplyForce { body, force } => world.apply_force(*body, *force),
            Input::ApplyForceAtPoint { body, force, point } => {
                world.apply_force_at_point(*body, *force, *point)
            }
            Input::ApplyTorque { body, torque } => world.apply_torque(*body, *torque),
            Input::ApplyImpulse { body, impulse } => world.apply_impulse(*body, *impulse),
            Input::ApplyImpulseAtPoint { body, impulse, point } => {
                world.apply_impulse_at_point(*body, *impulse, *point)
            }
            Input::WakeBody(body) => world.wake_body(*body),
            Input::WakeAll => {
                world.wake_all();
                Ok(())
            }
            Input::SetSettings(settings) => world.set_settings(*settings),
            Input::SetGravity(gravity) => world.set_gravity(*gravity),
            Input::SetFilter { body, filter } => world.set_filter(*body, *filter),
            Input::CreateJoint(desc) => world.create_joint(desc).map(drop),
            Input::SetJointDesc { joint, desc } => world.set_joint_desc(*joint, desc),
            Input::DestroyJoint(joint) => world.destroy_joint(*joint),
            Input::SetJointEnabled { joint, enabled } => world.set_joint_enabled(*joint, *enabled),
            Input::SetTerrain(terrain) => {
                world.set_terrain(terrain.to_terrain()?);
                Ok(())
            }
            Input::EditTerrain(edit) => world.edit_terrain(edit).map(drop),
            Input::SetTerrainVoxels(voxels) => world.set_terrain_voxels(voxels).map(drop),
        }
    }
}
