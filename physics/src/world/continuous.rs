//! Continuous collision: time of impact of a fast body against a static one by conservative
//! advancement. The manifold's smallest separation is a lower bound of the distance (exact for
//! round shapes, a separating-axis bound for polyhedra), which is what advancement needs.

use crate::body::Body;
use crate::math::{Quat, Transform, Vec3};
use crate::narrowphase::{CollideCache, collide};

/// Most advancement iterations; each one at least halves the remaining gap in practice.
const MAX_ITERATIONS: usize = 24;

/// The body-frame pose at fraction `t` of the motion from `start` to `end`: the centre of mass
/// moves on a line, the rotation on the shortest arc.
pub(crate) fn interpolate(start: &Transform, end: &Transform, local_center: Vec3, t: f32) -> Transform {
    let c0 = start.transform_point(local_center);
    let c1 = end.transform_point(local_center);
    let rotation: Quat = start.rotation.slerp(end.rotation, t).normalize();
    Transform::new(c0.lerp(c1, t) - rotation * local_center, rotation)
}

/// The fraction of the motion `start → end` of `body` at which it comes within `target` of
/// `other` (which does not move), or `None` when it never does or already touched at the start.
pub(crate) fn time_of_impact(
    body: &Body,
    start: &Transform,
    end: &Transform,
    other: &Body,
    target: f32,
) -> Option<f32> {
    let translation = end.transform_point(body.local_center) - start.transform_point(body.local_center);
    let angle = start.rotation.angle_between(end.rotation);
    // No point of the body moves faster than this, per unit of t: it turns about its centre of
    // mass, and no point is farther from that than the shape's bound about the body origin
    // plus the centre's offset.
    let speed_bound =
        translation.length() + angle * (body.shape.bounding_radius() + body.local_center.length());
    if speed_bound <= 0.0 {
        return None;
    }
    let reach = speed_bound + target;
    let mut cache = CollideCache::default();
    let mut t = 0.0f32;
    for iteration in 0..MAX_ITERATIONS {
        let pose = interpolate(start, end, body.local_center, t);
        let m = collide(&body.shape, &pose, &other.shape, &other.transform, reach, &mut cache);
        let Some(distance) = m.points().iter().map(|p| p.separation).reduce(f32::min) else {
            // Farther apart than the whole remaining motion.
            return None;
        };
        if distance <= target {
            return if iteration == 0 { None } else { Some(t) };
        }
        t += (distance - 0.5 * target) / speed_bound;
        if t >= 1.0 {
            return None;
        }
    }
    Some(t)
}
