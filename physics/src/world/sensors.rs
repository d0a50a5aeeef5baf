//! Sensors as the world reports them: the last step's begin and end overlap events and each
//! sensor shape's current overlaps (found by `step/sensors.rs`).

use super::World;
use crate::body::BodyId;
use crate::error::AtollError;
use crate::sensor::Sensor;
use crate::shape_id::ShapeId;

impl World {
    /// Bodies that began or stopped overlapping a sensor shape in the last step: sensor by
    /// sensor (by body slot, then part), each sensor's ended overlaps before its begun ones,
    /// visitors in slot order.
    pub fn sensor_events(&self) -> &[SensorEvent] {
        &self.sensor_events
    }

    /// The bodies overlapping sensor shape `sensor` (a body's own shape, or a compound's part)
    /// after the last step, in slot order (empty before the first step after it was made).
    /// Refused when `sensor` is not a live sensor shape.
    pub fn sensor_overlaps(&self, sensor: impl Into<ShapeId>) -> Result<&[BodyId], AtollError> {
        let sensor = sensor.into();
        if self.sensor(sensor)?.is_none() {
            return Err(AtollError::invalid(
                "sensor",
                format!("shape {} of body {} is not a sensor", sensor.part, sensor.body.index()),
            ));
        }
        let found = self.sensor_overlaps.binary_search_by_key(&sensor.order(), |o| o.sensor.order());
        Ok(match found {
            Ok(k) if self.sensor_overlaps[k].sensor == sensor => &self.sensor_overlaps[k].visitors,
            _ => &[],
        })
    }

    /// Whether shape `shape` (a body's own, from a [`BodyId`], or a compound's part) is a
    /// sensor, and how. Refused when the body is gone or has no such part.
    pub fn sensor(&self, shape: impl Into<ShapeId>) -> Result<Option<Sensor>, AtollError> {
        let shape = shape.into();
        self.bodies.get(shape.body)?;
        let key = self.bodies.key_of(shape.body.index(), shape.part).ok_or_else(|| {
            AtollError::invalid("part", format!("body {} has no shape {}", shape.body.index(), shape.part))
        })?;
        Ok(self.bodies.rules_of(key).1)
    }

    /// Every live sensor shape, by body slot and then part.
    pub fn sensors(&self) -> impl Iterator<Item = ShapeId> + '_ {
        self.bodies.sensor_shapes().map(|(slot, part, _)| ShapeId::new(self.bodies.id_at(slot), part))
    }
}

/// A body began or stopped overlapping a sensor shape in the last step
/// ([`crate::World::sensor_events`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SensorEvent {
    /// The sensor shape (its body possibly destroyed since: its overlaps end with it).
    pub sensor: ShapeId,
    /// The body that entered or left (possibly destroyed since); a compound visitor is one
    /// body, whichever of its shapes overlap.
    pub visitor: BodyId,
    /// True when it began overlapping, false when it stopped.
    pub began: bool,
}
