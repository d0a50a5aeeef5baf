//! Why an island is awake: what woke it last and at which step (kept in the island, set when a
//! sleeping island wakes), and, while it stays awake, which of its bodies keeps it from sleeping
//! and by how much that body exceeds the sleep thresholds.

use super::World;
use crate::body::{BodyId, NONE};
use crate::error::AtollError;
use crate::island::id::IslandId;
use crate::island::wake_cause::WakeCause;

/// The body that keeps an awake island from sleeping: the one whose sleep timer is the
/// island's smallest, with its speeds against the thresholds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Restless {
    /// The body.
    pub body: BodyId,
    /// Its speed, m/s, and the linear sleep threshold.
    pub speed: f32,
    /// The world's linear sleep threshold, m/s.
    pub linear_threshold: f32,
    /// Its angular speed, rad/s.
    pub angular_speed: f32,
    /// The world's angular sleep threshold, rad/s.
    pub angular_threshold: f32,
    /// False when the body may never sleep (it keeps its island awake whatever its speed).
    pub can_sleep: bool,
    /// Seconds it has been slow enough, and the seconds the island needs.
    pub sleep_timer: f32,
    /// The world's time to sleep, s.
    pub time_to_sleep: f32,
}

impl Restless {
    /// How many times the linear and angular thresholds its speeds are (below 1: slow enough).
    pub fn excess(&self) -> (f32, f32) {
        let ratio = |v: f32, t: f32| if t > 0.0 { v / t } else { f32::INFINITY };
        (ratio(self.speed, self.linear_threshold), ratio(self.angular_speed, self.angular_threshold))
    }
}

impl World {
    /// What last woke island `id`, and the first step count at which it was awake (the step
    /// whose stepping woke it, or the step count an edit woke it at); `None` when it has not
    /// slept since it was made. A stale id is refused.
    pub fn wake_cause(&self, id: IslandId) -> Result<Option<(WakeCause, u64)>, AtollError> {
        let island = self.islands.get(id.index(), id.generation()).ok_or(AtollError::StaleIslandId)?;
        Ok(island.woke)
    }

    /// For an awake island, the body that keeps it from sleeping (see [`Restless`]); `None` for
    /// a sleeping island. A stale id is refused.
    pub fn restless_body(&self, id: IslandId) -> Result<Option<Restless>, AtollError> {
        let island = self.islands.get(id.index(), id.generation()).ok_or(AtollError::StaleIslandId)?;
        if !island.awake {
            return Ok(None);
        }
        let s = &self.settings;
        // The smallest timer; a body that may never sleep first.
        let slot = island.bodies.iter(&self.bodies.bodies).min_by(|&a, &b| {
            let key = |slot: u32| {
                let body = &self.bodies.bodies[slot as usize];
                (body.can_sleep, body.sleep_timer)
            };
            key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal)
        });
        Ok(slot.map(|slot| {
            let b = &self.bodies.bodies[slot as usize];
            Restless {
                body: self.bodies.id_at(slot),
                speed: b.linear_velocity.length(),
                linear_threshold: s.sleep_linear_threshold,
                angular_speed: b.angular_velocity.length(),
                angular_threshold: s.sleep_angular_threshold,
                can_sleep: b.can_sleep,
                sleep_timer: b.sleep_timer,
                time_to_sleep: s.time_to_sleep,
            }
        }))
    }

    /// The id of live body slot `slot` for a wake cause.
    pub(crate) fn cause_body(&self, slot: u32) -> BodyId {
        debug_assert_ne!(slot, NONE);
        self.bodies.id_at(slot)
    }
}
