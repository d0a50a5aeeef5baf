//! What woke an island: kept in the island (`Island::woke`) with the step, set when a sleeping
//! island wakes; the world reports it (`World::wake_cause`).

use crate::body::BodyId;
use crate::joint::JointId;

/// What woke an island.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WakeCause {
    /// `body`, one of its bodies, began touching `other`: an awake body of another island, or
    /// a kinematic body.
    Contact {
        /// Its body.
        body: BodyId,
        /// The body it began touching.
        other: BodyId,
    },
    /// A joint on `body` was created, enabled, disabled, changed, broken or destroyed (once
    /// destroyed, its id is refused as stale).
    Joint {
        /// Its body.
        body: BodyId,
        /// The joint.
        joint: JointId,
    },
    /// `body` was edited: moved, given a velocity, rebuilt, or woken by hand.
    Edit {
        /// The edited body.
        body: BodyId,
    },
    /// A force, torque or impulse was applied to `body`.
    Force {
        /// The pushed body.
        body: BodyId,
    },
    /// `kinematic`, a moving kinematic body, touches or is jointed to `body`.
    Kinematic {
        /// Its body.
        body: BodyId,
        /// The kinematic body.
        kinematic: BodyId,
    },
    /// The terrain changed near `body`.
    Terrain {
        /// Its body.
        body: BodyId,
    },
    /// Every island woke: the settings turned sleeping off, or the terrain was replaced.
    All,
}
