//! Sensors: bodies that push nothing and report what overlaps them. A sensor has no contacts
//! (so it joins no island and keeps nothing awake); at the end of every step
//! (`world/step/sensors.rs`) each sensor's overlapping bodies are found by their exact shapes
//! and compared with the step before, giving begin and end events in a fixed order.

/// Makes a body a sensor ([`crate::BodyDesc::sensor`]).
///
/// A sensor reports dynamic and kinematic bodies its shape overlaps, awake or asleep, that its
/// collision filter and theirs allow; static bodies only with `detect_static`. Other sensors
/// and the terrain are never reported.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Sensor {
    /// Report static bodies too.
    #[serde(default)]
    pub detect_static: bool,
}
