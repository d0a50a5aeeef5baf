//! Ray casts against shapes in local space.
//!
//! Conventions shared by every shape:
//! - `dir` need not be unit length; `t` is measured in units of `dir`, so the hit point is
//!   `origin + dir * t`, and only hits with `0 <= t <= max_t` count.
//! - A ray that starts inside the solid (or on its surface) hits at `t = 0` with the normal
//!   `-dir` normalised: there is no entry face, and pushing back against the ray is the useful
//!   answer for picking and sweeps that begin in contact.
//! - A zero or non-finite `dir`, a non-finite `origin` or a negative / NaN `max_t` never hits.

use super::{ConvexHull, Shape};
use crate::math::{Transform, Vec3};

/// Where a ray first hits a shape.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayHit {
    /// Distance along the ray direction (in units of the direction's length).
    pub t: f32,
    /// Outward surface normal at the hit point (local space).
    pub normal: Vec3,
}

impl Shape {
    /// The first hit of the ray `origin + dir * t`, `0 <= t <= max_t`, in the shape's local
    /// space (see the module docs for the conventions, including rays starting inside).
    pub fn cast_ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Option<RayHit> {
        // Comparisons with NaN are false, so this also rejects a NaN `max_t`; a positive squared
        // length keeps `normalize` finite.
        let valid = origin.is_finite() && dir.is_finite() && dir.length_squared() > 0.0 && max_t >= 0.0;
        if !valid {
            return None;
        }
        let hit = match self {
            Shape::Sphere { radius } => ray_sphere(Vec3::ZERO, *radius, origin, dir),
            Shape::Capsule { half_height, radius } => ray_capsule(*half_height, *radius, origin, dir),
            Shape::Cuboid { half_extents } => ray_cuboid(*half_extents, origin, dir),
            Shape::Hull(hull) => ray_hull(hull, origin, dir),
        }?;
        (hit.t <= max_t).then_some(hit)
    }

    /// [`Shape::cast_ray`] for a shape placed at `xf`, with the ray and the returned normal in
    /// world space. `t` is unchanged by the rigid transform.
    pub fn cast_ray_world(&self, xf: &Transform, origin: Vec3, dir: Vec3, max_t: f32) -> Option<RayHit> {
        let local = xf.inverse_transform_point(origin);
        let hit = self.cast_ray(local, xf.inverse_transform_vector(dir), max_t)?;
        Some(RayHit { t: hit.t, normal: xf.transform_vector(hit.normal) })
    }
}

/// The answer for a ray that starts inside the solid.
fn inside(dir: Vec3) -> Option<RayHit> {
    Some(RayHit { t: 0.0, normal: -dir.normalize() })
}

/// Ray against a sphere; starting inside gives the inside answer.
fn ray_sphere(center: Vec3, radius: f32, origin: Vec3, dir: Vec3) -> Option<RayHit> {
    let m = origin - center;
    let c = m.length_squared() - radius * radius;
    if c <= 0.0 {
        return inside(dir);
    }
    let b = m.dot(dir);
    if b >= 0.0 {
        return None; // outside and moving away
    }
    let disc = b * b - dir.length_squared() * c;
    if disc < 0.0 {
        return None;
    }
    // The near root written as c / (far root * a): no cancellation between -b and sqrt(disc).
    let t = c / (-b + disc.sqrt());
    Some(RayHit { t, normal: (m + dir * t).normalize_or(-dir.normalize()) })
}

/// Ray against a capsule along Y. The capsule is the union of the side of a cylinder and two
/// end spheres; from outside, the first hit of the union is the earliest hit of the parts.
fn ray_capsule(half_height: f32, radius: f32, origin: Vec3, dir: Vec3) -> Option<RayHit> {
    let axis_point = Vec3::new(0.0, origin.y.clamp(-half_height, half_height), 0.0);
    if origin.distance_squared(axis_point) <= radius * radius {
        return inside(dir);
    }
    let side = ray_cylinder_side(half_height, radius, origin, dir);
    let top = ray_sphere(Vec3::Y * half_height, radius, origin, dir);
    let bottom = ray_sphere(Vec3::NEG_Y * half_height, radius, origin, dir);
    // `min_by` keeps the first of equal hits, so ties resolve the same way every time.
    [side, top, bottom].into_iter().flatten().min_by(|a, b| a.t.total_cmp(&b.t))
}

/// Entry through the side of the cylinder of `radius` about Y, between the end caps' centres.
fn ray_cylinder_side(half_height: f32, radius: f32, origin: Vec3, dir: Vec3) -> Option<RayHit> {
    let a = dir.x * dir.x + dir.z * dir.z;
    let b = origin.x * dir.x + origin.z * dir.z;
    let c = origin.x * origin.x + origin.z * origin.z - radius * radius;
    // Already within the infinite cylinder (beyond an end: the spheres handle it), or leaving.
    if c <= 0.0 || b >= 0.0 {
        return None;
    }
    let disc = b * b - a * c;
    if disc < 0.0 {
        return None;
    }
    let t = c / (-b + disc.sqrt());
    let p = origin + dir * t;
    if p.y.abs() > half_height {
        return None;
    }
    Some(RayHit { t, normal: Vec3::new(p.x, 0.0, p.z).normalize_or(-dir.normalize()) })
}

/// Ray against a box by slabs: the ray is inside the box between the latest slab entry and the
/// earliest slab exit; the entry's axis gives the normal (lowest axis on ties, at edges).
fn ray_cuboid(half: Vec3, origin: Vec3, dir: Vec3) -> Option<RayHit> {
    if origin.abs().cmple(half).all() {
        return inside(dir);
    }
    let (mut t_enter, mut t_exit, mut axis) = (f32::NEG_INFINITY, f32::INFINITY, 0);
    for i in 0..3 {
        if dir[i] == 0.0 {
            if origin[i].abs() > half[i] {
                return None; // parallel to this slab and outside it
            }
            continue;
        }
        let t0 = (-half[i] - origin[i]) / dir[i];
        let t1 = (half[i] - origin[i]) / dir[i];
        if t0.min(t1) > t_enter {
            (t_enter, axis) = (t0.min(t1), i);
        }
        t_exit = t_exit.min(t0.max(t1));
    }
    if t_enter > t_exit || t_exit < 0.0 {
        return None;
    }
    let mut normal = Vec3::ZERO;
    normal[axis] = -dir[axis].signum();
    Some(RayHit { t: t_enter, normal })
}

/// Ray against a hull by clipping it to each face's half-space, like the slabs of a box.
fn ray_hull(hull: &ConvexHull, origin: Vec3, dir: Vec3) -> Option<RayHit> {
    let faces = hull.faces();
    if faces.iter().all(|f| f.normal.dot(origin) <= f.offset) {
        return inside(dir);
    }
    let (mut t_enter, mut t_exit, mut normal) = (f32::NEG_INFINITY, f32::INFINITY, Vec3::ZERO);
    for f in faces {
        let dist = f.normal.dot(origin) - f.offset;
        let denom = f.normal.dot(dir);
        if denom == 0.0 {
            if dist > 0.0 {
                return None; // parallel to this face and outside it
            }
            continue;
        }
        let t = -dist / denom;
        if denom < 0.0 {
            if t > t_enter {
                (t_enter, normal) = (t, f.normal);
            }
        } else {
            t_exit = t_exit.min(t);
        }
    }
    // From outside, some face has the origin in front of it, so a hit always enters at t > 0.
    if t_enter > t_exit || t_exit < 0.0 {
        return None;
    }
    Some(RayHit { t: t_enter, normal })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn assert_hit(hit: Option<RayHit>, t: f32, normal: Vec3) {
        let hit = hit.expect("expected a hit");
        assert!((hit.t - t).abs() < 1e-5, "t {} vs {t}", hit.t);
        assert!((hit.normal - normal).length() < 1e-5, "normal {} vs {normal}", hit.normal);
    }

    #[test]
    fn sphere_hit_uses_direction_units() {
        let s = Shape::Sphere { radius: 1.0 };
        assert_hit(s.cast_ray(Vec3::new(-3.0, 0.0, 0.0), Vec3::X * 2.0, 10.0), 1.0, -Vec3::X);
        assert!(s.cast_ray(Vec3::new(-3.0, 0.0, 0.0), Vec3::X * 2.0, 0.99).is_none());
        assert!(s.cast_ray(Vec3::new(-3.0, 1.01, 0.0), Vec3::X, 10.0).is_none());
    }

    #[test]
    fn capsule_side_and_cap() {
        let c = Shape::Capsule { half_height: 1.0, radius: 0.5 };
        assert_hit(c.cast_ray(Vec3::new(2.0, 0.5, 0.0), -Vec3::X, 10.0), 1.5, Vec3::X);
        assert_hit(c.cast_ray(Vec3::new(0.0, 5.0, 0.0), -Vec3::Y, 10.0), 3.5, Vec3::Y);
        assert_hit(c.cast_ray(Vec3::new(0.0, 1.5, 0.0), Vec3::Z, 10.0), 0.0, -Vec3::Z);
    }

    #[test]
    fn cuboid_slabs() {
        let b = Shape::Cuboid { half_extents: Vec3::new(1.0, 2.0, 3.0) };
        assert_hit(b.cast_ray(Vec3::new(0.5, 5.0, 0.0), -Vec3::Y, 10.0), 3.0, Vec3::Y);
        assert!(b.cast_ray(Vec3::new(1.5, 5.0, 0.0), -Vec3::Y, 10.0).is_none());
        assert!(b.cast_ray(Vec3::new(0.5, 5.0, 0.0), Vec3::Y, 10.0).is_none());
    }

    #[test]
    fn world_normal_is_rotated() {
        let b = Shape::Cuboid { half_extents: Vec3::ONE };
        let xf =
            Transform::new(Vec3::new(10.0, 0.0, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_4));
        let hit = b.cast_ray_world(&xf, Vec3::new(10.0, 5.0, 0.0), -Vec3::Y, 10.0);
        let sqrt2 = std::f32::consts::SQRT_2;
        // The rotated box's top is an edge at height sqrt(2); the +x face of the box wins the tie.
        let hit = hit.unwrap();
        assert!((hit.t - (5.0 - sqrt2)).abs() < 1e-4);
        assert!(hit.normal.y > 0.7 && hit.normal.z.abs() < 1e-6);
    }
}
