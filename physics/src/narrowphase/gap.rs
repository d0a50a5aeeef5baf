//! How far apart two shapes are, with the witness point on the second and its outward normal:
//! what a shape cast advances by (`World::cast_shape`). Apart, the distance and its direction
//! are exact: each shape is a core (a point, a segment, or a polyhedron) grown by a radius, and
//! the cores' closest points are found in closed form. A manifold's points are not enough: its
//! smallest separation can exceed two polyhedra's distance (a clipped face's points lie
//! farther along the normal than an edge beside the face), and its normal, a face's, is not
//! always the direction between the nearest points, which the cast's Newton step needs.

use super::closest::{closest_segment_poly, closest_segments};
use super::dispatch::collide;
use super::polyhedron::closest_pair;
use super::polytope::{BoxPoly, Polyhedron, Posed};
use super::{CollideCache, Manifold};
use crate::math::{Transform, Vec3};
use crate::shape::Shape;

/// How far apart two shapes are, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gap {
    /// The distance between them, or the deepest penetration (below zero) when they overlap.
    pub(crate) distance: f32,
    /// The nearest (or deepest) point on B's surface, world space.
    pub(crate) on_b: Vec3,
    /// B's outward unit normal there, toward A: apart, the direction from B's nearest point
    /// to A's, along which the distance grows fastest.
    pub(crate) normal: Vec3,
}

/// The gap between `a` at `xa` and `b` at `xb`, or `None` when it exceeds `reach`.
pub(crate) fn gap(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform, reach: f32) -> Option<Gap> {
    // Touching or overlapping: the manifold at reach 0 says how deep (every separating axis is
    // tried, so for polyhedra it is the exact overlap test).
    let m = collide(a, xa, b, xb, 0.0, &mut CollideCache::default());
    if let Some(g) = manifold_gap(&m) {
        return Some(g);
    }
    let (on_a, on_b, core_distance) = cores_closest(a, xa, b, xb);
    let (ra, rb) = (radius(a), radius(b));
    let distance = core_distance - ra - rb;
    if distance > reach {
        return None;
    }
    let normal = (on_a - on_b).normalize_or(Vec3::Y);
    Some(Gap { distance, on_b: on_b + normal * rb, normal })
}

/// The radius a shape's core is grown by: a sphere's or a capsule's, none for a polyhedron.
fn radius(shape: &Shape) -> f32 {
    match shape {
        Shape::Sphere { radius } | Shape::Capsule { radius, .. } => *radius,
        Shape::Cuboid { .. } | Shape::Hull(_) => 0.0,
    }
}

/// A round shape's core in world space: a sphere's centre (a segment of no length), a
/// capsule's segment; `None` for a polyhedron.
fn segment(shape: &Shape, xf: &Transform) -> Option<(Vec3, Vec3)> {
    match shape {
        Shape::Sphere { .. } => Some((xf.position, xf.position)),
        Shape::Capsule { half_height, .. } => {
            let axis = xf.transform_vector(Vec3::new(0.0, *half_height, 0.0));
            Some((xf.position - axis, xf.position + axis))
        }
        Shape::Cuboid { .. } | Shape::Hull(_) => None,
    }
}

/// The closest points of two separated shapes' cores, world space, and their distance.
fn cores_closest(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> (Vec3, Vec3, f32) {
    match (segment(a, xa), segment(b, xb)) {
        (Some((a0, a1)), Some((b0, b1))) => {
            let (_, _, on_a, on_b) = closest_segments(a0, a1, b0, b1);
            (on_a, on_b, on_a.distance(on_b))
        }
        (Some((a0, a1)), None) => {
            let (on_b, on_a, distance) = with_poly(b, |p| segment_poly(p, xb, a0, a1));
            (on_a, on_b, distance)
        }
        (None, Some((b0, b1))) => with_poly(a, |p| segment_poly(p, xa, b0, b1)),
        (None, None) => match (a, b) {
            (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
                pair(&BoxPoly::new(*ha), xa, &BoxPoly::new(*hb), xb)
            }
            (Shape::Cuboid { half_extents }, Shape::Hull(h)) => {
                pair(&BoxPoly::new(*half_extents), xa, &**h, xb)
            }
            (Shape::Hull(h), Shape::Cuboid { half_extents }) => {
                pair(&**h, xa, &BoxPoly::new(*half_extents), xb)
            }
            (Shape::Hull(p), Shape::Hull(q)) => pair(&**p, xa, &**q, xb),
            _ => unreachable!("shapes without a segment core are polyhedra"),
        },
    }
}

/// `f` of the polyhedron a box or hull is.
fn with_poly<R>(shape: &Shape, f: impl FnOnce(&dyn PolyRef) -> R) -> R {
    match shape {
        Shape::Cuboid { half_extents } => f(&BoxPoly::new(*half_extents)),
        Shape::Hull(h) => f(&**h),
        Shape::Sphere { .. } | Shape::Capsule { .. } => unreachable!("round shapes have a segment core"),
    }
}

/// The closest points of polyhedron `poly` at `xf` (first) and segment `s0 s1` (world space),
/// and their distance.
fn segment_poly(poly: &dyn PolyRef, xf: &Transform, s0: Vec3, s1: Vec3) -> (Vec3, Vec3, f32) {
    poly.closest_to_segment(xf.inverse_transform_point(s0), xf.inverse_transform_point(s1), xf)
}

/// A polyhedron behind a reference, for the one query that takes either kind.
trait PolyRef {
    /// The closest points of this polyhedron at `xf` and the local segment `s0 s1`, world
    /// space: (on the polyhedron, on the segment, distance).
    fn closest_to_segment(&self, s0: Vec3, s1: Vec3, xf: &Transform) -> (Vec3, Vec3, f32);
}

impl<P: Polyhedron> PolyRef for P {
    fn closest_to_segment(&self, s0: Vec3, s1: Vec3, xf: &Transform) -> (Vec3, Vec3, f32) {
        let c = closest_segment_poly(self, s0, s1);
        (xf.transform_point(c.on_poly), xf.transform_point(c.on_query), c.distance)
    }
}

/// The exact closest points of two separated polyhedra, world space, and their distance.
fn pair<P: Polyhedron + ?Sized, Q: Polyhedron + ?Sized>(
    p: &P,
    xp: &Transform,
    q: &Q,
    xq: &Transform,
) -> (Vec3, Vec3, f32) {
    let (on_p, on_q, distance) = closest_pair(&Posed::at_identity(p), &Posed::new(q, xp.inverse_mul(xq)));
    (xp.transform_point(on_p), xp.transform_point(on_q), distance)
}

/// A manifold's deepest point as a gap (its points lie midway between the surfaces, its
/// normal from A to B), or `None` when it has no point.
fn manifold_gap(m: &Manifold) -> Option<Gap> {
    let deepest =
        m.points().iter().reduce(|best, p| if p.separation < best.separation { p } else { best })?;
    Some(Gap {
        distance: deepest.separation,
        on_b: deepest.position + m.normal * (0.5 * deepest.separation),
        normal: -m.normal,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    /// Every pair of kinds, apart: the distance and direction agree with the nearest points
    /// found by sampling both surfaces densely.
    #[test]
    fn apart_the_gap_is_the_distance_between_the_nearest_points() {
        let shapes = super::super::tests::one_of_each_kind();
        let xa = Transform::new(
            Vec3::new(0.1, 0.2, -0.1),
            Quat::from_rotation_x(0.5) * Quat::from_rotation_y(0.3),
        );
        let xb = Transform::new(
            Vec3::new(1.9, 0.9, 0.4),
            Quat::from_rotation_z(0.8) * Quat::from_rotation_x(-0.4),
        );
        for a in &shapes {
            for b in &shapes {
                let g = gap(a, &xa, b, &xb, 10.0).expect("within reach");
                // The nearest distance by support functions along many directions.
                let mut best = f32::MIN;
                for n in super::super::tests::sphere_directions(20_000) {
                    let sa = xa.transform_point(a.support(xa.inverse_transform_vector(n)));
                    let sb = xb.transform_point(b.support(xb.inverse_transform_vector(-n)));
                    best = best.max(n.dot(sb - sa));
                }
                // The sampled gap is a lower bound (first-order low near a polyhedron's faces);
                // two surface points `distance` apart make the gap an upper bound.
                assert!(
                    g.distance >= best - 1e-4 && g.distance <= best + 3e-3,
                    "{a:?} {b:?}: {} against {best}",
                    g.distance
                );
                let on_a = g.on_b + g.normal * g.distance;
                assert!(
                    a.contains_local_point(xa.inverse_transform_point(on_a + g.normal * 1e-3)),
                    "{a:?} {b:?}"
                );
                // The normal points from B toward A, and B's point lies on B's surface.
                assert!(g.normal.dot(xa.position - xb.position) > 0.0);
                let local = xb.inverse_transform_point(g.on_b - g.normal * 1e-3);
                assert!(b.contains_local_point(local), "{a:?} {b:?}: {:?}", g.on_b);
            }
        }
    }
}
