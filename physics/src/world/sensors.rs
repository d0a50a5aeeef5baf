//! Sensors as the world reports them: the last step's begin and end overlap events and each
//! sensor's current overlaps (found by `step/sensors.rs`).

use super::World;
use crate::body::BodyId;
use crate::error::AtollError;
use crate::sensor::Sensor;

impl World {
    /// Bodies that began or stopped overlapping a sensor in the last step: sensor by sensor in
    /// slot order, each sensor's ended overlaps before its begun ones, visitors in slot order.
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.sensor_events
    }

    /// The bodies overlapping sensor `id` after the last step, in slot order (empty before the
    /// first step after it was made). Refused when `id` is not a live sensor.
    pub fn sensor_overlaps(&self, id: BodyId) -> Result<&[BodyId], AtollError> {
        self.bodies.get(id)?;
        if self.bodies.sensor(id.index()).is_none() {
            return Err(AtollError::invalid("sensor", format!("body {} is not a sensor", id.index())));
        }
        let found = self.sensor_overlaps.binary_search_by_key(&id.index(), |o| o.sensor.index());
        Ok(match found {
            Ok(k) if self.sensor_overlaps[k].sensor == id => &self.sensor_overlaps[k].visitors,
            _ => &[],
        })
    }

    /// Whether body `id` is a sensor, and how.
    pub fn sensor(&self, id: BodyId) -> Result<Option<Sensor>, AtollError> {
        self.bodies.get(id)?;
        Ok(self.bodies.sensor(id.index()))
    }

    /// Every live sensor, in slot order.
    pub fn sensors(&self) -> impl Iterator<Item = BodyId> + '_ {
        self.bodies.sensors().iter().map(|&slot| self.bodies.id_at(slot))
    }
}

/// A body began or stopped overlapping a sensor in the last step
/// ([`crate::World::sensor_events`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEvent {
    /// The sensor (possibly destroyed since: its overlaps end with it).
    pub sensor: BodyId,
    /// The body that entered or left (possibly destroyed since).
    pub visitor: BodyId,
    /// True when it began overlapping, false when it stopped.
    pub began: bool,
}
