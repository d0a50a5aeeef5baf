//! How far a shape is from one triangle, exactly: what a shape cast against the terrain
//! advances by, triangle by triangle (`World::cast_shape`), and what decides whether a shape
//! overlaps the terrain (`World::overlap_shape`).
//!
//! The terrain contacts' gap is not enough for a cast: it clips a box's face to each
//! triangle's footprint and measures along the triangle's normal, which over a convex ridge is
//! not a lower bound of the distance (a box edge crossing the ridge line outside every
//! footprint is nearer than any clipped point), so a cast moving by it could step through the
//! ridge. A triangle is convex, so the distance to it is exact and, along a straight path, a
//! convex function of the path's fraction: the cast takes Newton's steps on it.
//!
//! Apart, a shape's core (a point, a segment or a polyhedron) comes nearest a triangle at a
//! vertex of one against the other or at an edge of each; a segment or a polyhedron that
//! crosses the triangle is found first (the segment through the face, the polyhedron by the
//! separating axes: the triangle's normal, the polyhedron's faces, and their edges' crossings).

use super::Gap;
use super::closest::{closest_on_polyhedron, closest_segments};
use super::polytope::{BoxPoly, Polyhedron};
use crate::math::{Transform, Vec3};
use crate::shape::{MAX_HULL_VERTICES, Shape};
use crate::terrain::closest_on_triangle;

/// The gap between `shape` at `xf` and the triangle `tri` (world space, either side counts),
/// with the witness on the triangle and the direction from it toward the shape; `None` when
/// it exceeds `reach`. Apart it is the exact distance; overlapping it is at most zero (a round
/// shape's depth past its core's distance, a polyhedron's least separating-axis overlap), and
/// the direction the triangle's normal by its winding (the terrain's outward side: where the
/// shape's origin lies says nothing beside a ridge). The triangle must have an area.
pub(crate) fn triangle_gap(shape: &Shape, xf: &Transform, tri: [Vec3; 3], reach: f32) -> Option<Gap> {
    let face_normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
    let (on_tri, on_shape, distance) = match shape {
        Shape::Sphere { radius } => {
            let (q, _) = closest_on_triangle(xf.position, tri);
            (q, xf.position, q.distance(xf.position) - radius)
        }
        Shape::Capsule { half_height, radius } => {
            let axis = xf.transform_vector(Vec3::new(0.0, *half_height, 0.0));
            let (on_tri, on_seg, d) =
                segment_triangle(xf.position - axis, xf.position + axis, tri, face_normal);
            (on_tri, on_seg, d - radius)
        }
        Shape::Cuboid { half_extents } => {
            poly_triangle(&BoxPoly::new(*half_extents), xf, tri, face_normal, reach)?
        }
        Shape::Hull(h) => poly_triangle(&**h, xf, tri, face_normal, reach)?,
    };
    if distance > reach {
        return None;
    }
    let apart = on_shape - on_tri;
    let length = apart.length();
    // Touching or crossing: the face's own normal.
    let normal = if length > 1e-7 { apart / length } else { face_normal };
    Some(Gap { distance, on_b: on_tri, normal })
}

/// The distance between segment `s0 s1` and the triangle `tri`: zero where the segment crosses
/// it. A cast rules out the triangles its shape's bounding sphere never comes near this way.
pub(crate) fn segment_triangle_distance(s0: Vec3, s1: Vec3, tri: [Vec3; 3]) -> f32 {
    let normal = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize_or_zero();
    segment_triangle(s0, s1, tri, normal).2
}

/// The nearest points of segment `s0 s1` and the triangle (on the triangle, on the segment)
/// and their distance; zero where the segment crosses the face.
fn segment_triangle(s0: Vec3, s1: Vec3, tri: [Vec3; 3], normal: Vec3) -> (Vec3, Vec3, f32) {
    let (h0, h1) = (normal.dot(s0 - tri[0]), normal.dot(s1 - tri[0]));
    if h0 * h1 < 0.0 {
        // The segment crosses the triangle's plane: where, and whether inside the triangle.
        let x = s0 + (s1 - s0) * (h0 / (h0 - h1));
        let (q, _) = closest_on_triangle(x, tri);
        if q.distance_squared(x) <= 1e-12 * (1.0 + x.length_squared()) {
            return (x, x, 0.0);
        }
    }
    let mut best = (Vec3::ZERO, Vec3::ZERO, f32::MAX);
    for s in [s0, s1] {
        let (q, _) = closest_on_triangle(s, tri);
        let d = q.distance(s);
        if d < best.2 {
            best = (q, s, d);
        }
    }
    for k in 0..3 {
        let (_, _, on_seg, on_edge) = closest_segments(s0, s1, tri[k], tri[(k + 1) % 3]);
        let d = on_seg.distance(on_edge);
        if d < best.2 {
            best = (on_edge, on_seg, d);
        }
    }
    best
}

/// The gap of polyhedron `poly` at `xf` and the triangle (world space normal `normal`):
/// `(on the triangle, on the polyhedron, distance)`, all world space, or `None` when the
/// separating axes already put it beyond `reach`. Worked in the polyhedron's frame.
fn poly_triangle<P: Polyhedron + ?Sized>(
    poly: &P,
    xf: &Transform,
    tri: [Vec3; 3],
    normal: Vec3,
    reach: f32,
) -> Option<(Vec3, Vec3, f32)> {
    let t = tri.map(|v| xf.inverse_transform_point(v));
    let n = xf.inverse_transform_vector(normal);
    let mut pv = [Vec3::ZERO; MAX_HULL_VERTICES];
    let count = poly.vertex_count();
    (0..count).for_each(|i| pv[i] = poly.vertex(i));
    let pv = &pv[..count];
    // The separating axes: a lower bound of the distance apart, the least overlap when not.
    let separation = |axis: Vec3| -> f32 {
        let length = axis.length();
        if length < 1e-6 {
            return f32::MIN;
        }
        let a = axis / length;
        let (mut p_lo, mut p_hi) = (f32::MAX, f32::MIN);
        for v in pv {
            let d = a.dot(*v);
            p_lo = p_lo.min(d);
            p_hi = p_hi.max(d);
        }
        let (t_lo, t_hi) =
            t.iter().fold((f32::MAX, f32::MIN), |(lo, hi), v| (lo.min(a.dot(*v)), hi.max(a.dot(*v))));
        (t_lo - p_hi).max(p_lo - t_hi)
    };
    let mut best_axis = separation(n);
    for f in 0..poly.face_count() {
        best_axis = best_axis.max(separation(poly.face_plane(f).0));
    }
    // A box's twelve edges run along three directions: those three are enough.
    let mut edge_axes = |d: Vec3| {
        for k in 0..3 {
            best_axis = best_axis.max(separation(d.cross(t[(k + 1) % 3] - t[k])));
        }
    };
    if poly.box_half_extents().is_some() {
        [Vec3::X, Vec3::Y, Vec3::Z].into_iter().for_each(&mut edge_axes);
    } else {
        (poly.edges().iter())
            .for_each(|e| edge_axes(pv[e.vertices[1] as usize] - pv[e.vertices[0] as usize]));
    }
    if best_axis > reach {
        return None;
    }
    if best_axis <= 0.0 {
        // Overlapping: report the overlap at the triangle's point nearest the body's origin.
        let (q, _) = closest_on_triangle(xf.position, tri);
        return Some((q, q, best_axis));
    }
    // Apart: a vertex of one against the other, or an edge of each.
    let mut best = (Vec3::ZERO, Vec3::ZERO, f32::MAX);
    let mut consider = |on_tri: Vec3, on_poly: Vec3| {
        let d = on_tri.distance(on_poly);
        if d < best.2 {
            best = (on_tri, on_poly, d);
        }
    };
    for &v in pv {
        consider(closest_on_triangle(v, t).0, v);
    }
    for &v in &t {
        consider(v, closest_on_polyhedron(poly, v).on_poly);
    }
    for e in poly.edges() {
        let (a0, a1) = (pv[e.vertices[0] as usize], pv[e.vertices[1] as usize]);
        for k in 0..3 {
            let (_, _, on_edge, on_side) = closest_segments(a0, a1, t[k], t[(k + 1) % 3]);
            consider(on_side, on_edge);
        }
    }
    let (on_tri, on_poly, distance) = best;
    Some((xf.transform_point(on_tri), xf.transform_point(on_poly), distance))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;
    use crate::narrowphase::closest_on_shape;

    /// Bounds of the distance by sampling: from below by the shape's support function along
    /// many directions (each a separating plane), from above by the triangle's points on a
    /// fine grid, each one's exact distance to the shape (`closest_on_shape`).
    fn sampled_bounds(shape: &Shape, xf: &Transform, tri: [Vec3; 3]) -> (f32, f32) {
        let mut lower = f32::MIN;
        for dir in super::super::tests::sphere_directions(20_000) {
            let s = xf.transform_point(shape.support(xf.inverse_transform_vector(-dir)));
            let t = tri.iter().map(|v| dir.dot(*v)).fold(f32::MIN, f32::max);
            lower = lower.max(dir.dot(s) - t);
        }
        let mut upper = f32::MAX;
        const N: usize = 160;
        for i in 0..=N {
            for j in 0..=N - i {
                let (u, v) = (i as f32 / N as f32, j as f32 / N as f32);
                let q = tri[0] + (tri[1] - tri[0]) * u + (tri[2] - tri[0]) * v;
                upper = upper.min(closest_on_shape(shape, xf, q).1);
            }
        }
        (lower, upper)
    }

    #[test]
    fn apart_the_gap_is_the_distance_and_crossing_it_is_not_positive() {
        let shapes = super::super::tests::one_of_each_kind();
        let tri = [Vec3::new(-1.0, 0.0, -1.0), Vec3::new(1.5, 0.2, -0.5), Vec3::new(0.0, -0.3, 1.2)];
        let mut rng = 0x2545_f491_u32;
        let mut next = || {
            rng ^= rng << 13;
            rng ^= rng >> 17;
            rng ^= rng << 5;
            rng as f32 / u32::MAX as f32
        };
        let (mut apart, mut crossing) = (0, 0);
        for shape in &shapes {
            for _ in 0..30 {
                let at = Vec3::new(next() * 4.0 - 2.0, next() * 2.0 - 1.0, next() * 4.0 - 2.0);
                let turn = Quat::from_rotation_x(next() * 6.0) * Quat::from_rotation_y(next() * 6.0);
                let xf = Transform::new(at, turn);
                let g = triangle_gap(shape, &xf, tri, 100.0).expect("within reach");
                let (lower, upper) = sampled_bounds(shape, &xf, tri);
                if lower > 1e-3 {
                    apart += 1;
                    assert!(
                        g.distance >= lower - 1e-4 && g.distance <= upper + 1e-4,
                        "{shape:?} {xf:?}: {g:?} {lower} {upper}"
                    );
                    // The witnesses: a point of the triangle, and the shape's surface the
                    // distance away along the normal.
                    assert!(closest_on_triangle(g.on_b, tri).0.distance(g.on_b) < 1e-5, "{g:?}");
                    let on_shape = g.on_b + g.normal * g.distance;
                    assert!(closest_on_shape(shape, &xf, on_shape).1.abs() < 1e-4, "{shape:?} {xf:?}: {g:?}");
                } else if upper < -1e-3 {
                    crossing += 1;
                    assert!(g.distance <= 0.0, "{shape:?} {xf:?}: {g:?} {lower} {upper}");
                }
            }
        }
        assert!(apart > 40 && crossing > 10, "{apart} apart, {crossing} crossing");
        // Beyond reach: nothing.
        let far = Transform::from_position(Vec3::new(0.0, 5.0, 0.0));
        assert!(shapes.iter().all(|s| triangle_gap(s, &far, tri, 1.0).is_none()));
    }
}
