//! [`Stage::Sensors`]: at the end of the step, each sensor shape's overlapping bodies (a body's
//! own shape or a compound's part), found by their exact shapes at their final poses, compared
//! with the step before: begin and end events.
//!
//! A sensor has no contacts (the pair finding drops its pairs), so this stage is the only place
//! it is looked at; it reads the trees and poses and changes no body, so it joins no island,
//! wakes nothing and changes no other result. Events come sensor by sensor (by body slot, then
//! part), each sensor's ended overlaps before its begun ones, visitors in slot order: the same
//! on any number of threads.

use crate::body::{BodyId, BodyType};
use crate::broadphase::ProxyType;
use crate::math::{Aabb, Transform};
use crate::narrowphase::{CollideCache, collide};
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape::Shape;
use crate::shape_id::ShapeId;
use crate::shape_key::{child_key, is_child_key};
use crate::world::{SensorEvent, World, tight_aabb};

/// One sensor shape's overlapping bodies after a step, by slot.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct SensorOverlaps {
    /// The sensor shape.
    pub sensor: ShapeId,
    /// The bodies overlapping it, in slot order.
    pub visitors: Vec<BodyId>,
}

/// The sensors stage's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct SensorsScratch {
    /// Candidate slots from the trees.
    found: Vec<u32>,
    /// Moving bodies whose shape left its fat box in this step, with their boxes now.
    escaped: Vec<(u32, Aabb)>,
    /// The overlaps being built, swapped with the world's at the end.
    next: Vec<SensorOverlaps>,
}

impl SensorsScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.found.len() * 4
            + self.escaped.len() * size_of::<(u32, Aabb)>()
            + (self.next.iter()).map(|o| size_of::<SensorOverlaps>() + o.visitors.len() * 8).sum::<usize>()
    }
}

impl World {
    /// [`Stage::Sensors`]: every sensor's overlaps found again and compared with the last step's.
    pub(super) fn update_sensors(&mut self) {
        if !self.bodies.any_sensor() && self.sensor_overlaps.is_empty() {
            return;
        }
        let mut next = std::mem::take(&mut self.scratch.sensors.next);
        let mut found = std::mem::take(&mut self.scratch.sensors.found);
        let mut escaped = std::mem::take(&mut self.scratch.sensors.escaped);
        // The trees hold the fat boxes of the step's start, which a body pushed off its
        // predicted path may have left by now (the next step's broadphase moves it): those
        // bodies are every sensor's candidates too. (A walk of the awake bodies, taken only
        // while there are sensors.)
        escaped.clear();
        let mut awake = self.awake_bodies.next_from(0);
        while let Some(i) = awake {
            awake = self.awake_bodies.next_from(i + 1);
            let b = &self.bodies.bodies[i];
            let now = tight_aabb(b);
            if !b.fat.contains(&now) {
                escaped.push((i as u32, now));
            }
            // A compound's children by where its body is now (their poses are the step's start).
            for &c in self.bodies.children.of(i as u32) {
                let child = &self.bodies.children.children[c as usize];
                let now = child.shape.world_aabb(&b.transform.mul(&child.local));
                if !child.fat.contains(&now) {
                    escaped.push((child_key(c), now));
                }
            }
        }
        // Reuse the visitor lists of the last build (their capacity).
        let mut spare: Vec<Vec<BodyId>> = next.drain(..).map(|o| o.visitors).collect();
        let store = &self.bodies;
        for (slot, part, sensor_key) in store.sensor_shapes() {
            let sensor = &store.bodies[slot as usize];
            let (sensor_filter, spec) = store.rules_of(sensor_key);
            let spec = spec.expect("a listed sensor");
            // Where the shape is now: the body's own by its pose, a part by the body's pose
            // and its place in the body (a child's own pose is the step's start).
            let (sensor_shape, sensor_pose) = if part == 0 {
                (&sensor.shape, sensor.transform)
            } else {
                let child = store.children.by_key(sensor_key);
                (&child.shape, sensor.transform.mul(&child.local))
            };
            let reach = if part == 0 { tight_aabb(sensor) } else { sensor_shape.world_aabb(&sensor_pose) };
            found.clear();
            let kinds: &[ProxyType] = if spec.detect_static {
                &[ProxyType::Movable, ProxyType::Static]
            } else {
                &[ProxyType::Movable]
            };
            for &kind in kinds {
                self.broadphase.tree(kind).query(&reach, |_, other| {
                    found.push(other);
                    true
                });
            }
            found.extend(escaped.iter().filter(|(_, now)| now.overlaps(&reach)).map(|&(other, _)| other));
            found.sort_unstable();
            found.dedup();
            let mut visitors = spare.pop().unwrap_or_default();
            visitors.clear();
            // The found are shape keys: a compound visitor's shapes each count for it.
            for &key in &found {
                let other = store.body_of(key);
                let visitor = &store.bodies[other as usize];
                let (filter, visitor_sensor) = store.rules_of(key);
                let (shape, _, _) = store.part(key);
                let pose = if is_child_key(key) {
                    visitor.transform.mul(&store.children.by_key(key).local)
                } else {
                    visitor.transform
                };
                let reported = other != slot
                    && visitor_sensor.is_none()
                    && (spec.detect_static || visitor.body_type != BodyType::Static)
                    && sensor_filter.allows(filter)
                    && shape.world_aabb(&pose).overlaps(&reach);
                if reported && overlapping(sensor_shape, &sensor_pose, shape, &pose) {
                    visitors.push(store.id_at(other));
                }
            }
            visitors.sort_unstable_by_key(|id| id.index());
            visitors.dedup();
            next.push(SensorOverlaps { sensor: ShapeId::new(store.id_at(slot), part), visitors });
        }
        // Compare with the last step's, sensor by sensor in (slot, part) order (a sensor gone
        // since ends all its overlaps; one made since begins them).
        let old = &self.sensor_overlaps;
        let (mut i, mut j) = (0, 0);
        while i < old.len() || j < next.len() {
            let none: &[BodyId] = &[];
            // The same slot and part with another body (its slot reused) is another sensor:
            // the old one's overlaps end first.
            let (sensor, before, after) = match (old.get(i), next.get(j)) {
                (Some(o), Some(n)) if o.sensor == n.sensor => {
                    (i, j) = (i + 1, j + 1);
                    (o.sensor, o.visitors.as_slice(), n.visitors.as_slice())
                }
                (Some(o), Some(n)) if o.sensor.order() <= n.sensor.order() => {
                    i += 1;
                    (o.sensor, o.visitors.as_slice(), none)
                }
                (Some(o), None) => {
                    i += 1;
                    (o.sensor, o.visitors.as_slice(), none)
                }
                (_, Some(n)) => {
                    j += 1;
                    (n.sensor, none, n.visitors.as_slice())
                }
                (None, None) => unreachable!("the loop runs while one is left"),
            };
            for (from, to, began) in [(before, after, false), (after, before, true)] {
                for &visitor in from.iter().filter(|&&v| !holds(to, v)) {
                    self.sensor_events.push(SensorEvent { sensor, visitor, began });
                }
            }
        }
        std::mem::swap(&mut self.sensor_overlaps, &mut next);
        self.scratch.sensors.next = next;
        self.scratch.sensors.found = found;
        self.scratch.sensors.escaped = escaped;
    }
}

/// Whether `list` (by slot, one id a slot) holds `id`.
fn holds(list: &[BodyId], id: BodyId) -> bool {
    list.binary_search_by_key(&id.index(), |v| v.index()).is_ok_and(|k| list[k] == id)
}

/// Whether two shapes overlap at their poses (touching counts).
fn overlapping(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> bool {
    let manifold = collide(a, xa, b, xb, 0.0, &mut CollideCache::default());
    manifold.points().iter().any(|p| p.separation <= 0.0)
}
