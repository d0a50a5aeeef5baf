//! Closest-point queries shared by the round-shape routines: point–segment, segment–segment,
//! point–polyhedron and segment–polyhedron. All of them are exact (no iteration), so results do
//! not depend on iteration counts or tolerances of a GJK loop.

use super::polytope::{Polyhedron, loop_next};
use crate::math::Vec3;
use wide::f32x4;

/// Squared lengths below this are treated as zero (a degenerate segment or parallel pair).
const TINY_SQ: f32 = 1e-12;

/// Parameter in [0, 1] of the point of segment `a + t (b - a)` closest to `p`.
#[inline]
pub(crate) fn segment_param(a: Vec3, b: Vec3, p: Vec3) -> f32 {
    let d = b - a;
    let len_sq = d.length_squared();
    if len_sq <= TINY_SQ { 0.0 } else { ((p - a).dot(d) / len_sq).clamp(0.0, 1.0) }
}

/// The point of segment `ab` closest to `p`.
#[inline]
pub(crate) fn closest_on_segment(a: Vec3, b: Vec3, p: Vec3) -> Vec3 {
    a + (b - a) * segment_param(a, b, p)
}

/// Closest points between segments `p0 p1` and `q0 q1`: `(s, t, point_on_p, point_on_q)`.
///
/// Minimises |p(s) - q(t)|² over the unit square: first the unconstrained optimum in `s` (with
/// `t` eliminated), clamped, then the best `t` for it, and if that `t` had to be clamped, `s` is
/// re-solved for the clamped `t`. Parallel segments have no unique answer; `s = 0` is taken so
/// the result is deterministic (callers that care about parallel overlap handle it themselves).
pub(crate) fn closest_segments(p0: Vec3, p1: Vec3, q0: Vec3, q1: Vec3) -> (f32, f32, Vec3, Vec3) {
    let d1 = p1 - p0;
    let d2 = q1 - q0;
    let r = p0 - q0;
    let a = d1.length_squared();
    let e = d2.length_squared();
    let f = d2.dot(r);
    let (s, t) = if a <= TINY_SQ && e <= TINY_SQ {
        (0.0, 0.0)
    } else if a <= TINY_SQ {
        (0.0, (f / e).clamp(0.0, 1.0))
    } else {
        let c = d1.dot(r);
        if e <= TINY_SQ {
            ((-c / a).clamp(0.0, 1.0), 0.0)
        } else {
            let b = d1.dot(d2);
            let denom = a * e - b * b;
            // The relative test keeps nearly parallel pairs out of the ill-conditioned division.
            let s = if denom > 1e-10 * a * e { ((b * f - c * e) / denom).clamp(0.0, 1.0) } else { 0.0 };
            let t = (b * s + f) / e;
            if t < 0.0 {
                ((-c / a).clamp(0.0, 1.0), 0.0)
            } else if t > 1.0 {
                (((b - c) / a).clamp(0.0, 1.0), 1.0)
            } else {
                (s, t)
            }
        }
    };
    (s, t, p0 + d1 * s, q0 + d2 * t)
}

/// Four 3-vectors, one per lane, x, y and z apart.
pub(crate) type Vec3Lanes = [f32x4; 3];

/// `v[k]` in lane `k`.
#[inline(always)]
pub(crate) fn to_lanes(v: [Vec3; 4]) -> Vec3Lanes {
    [0, 1, 2].map(|c| f32x4::new(v.map(|p| p[c])))
}

/// The vector in lane `k`.
#[inline(always)]
pub(crate) fn lane(v: &Vec3Lanes, k: usize) -> Vec3 {
    Vec3::new(v[0].as_array()[k], v[1].as_array()[k], v[2].as_array()[k])
}

/// `v` in every lane.
#[inline(always)]
fn splat3(v: Vec3) -> Vec3Lanes {
    [f32x4::splat(v.x), f32x4::splat(v.y), f32x4::splat(v.z)]
}

/// Lane-wise `v - w`.
#[inline(always)]
fn sub3(v: Vec3Lanes, w: Vec3Lanes) -> Vec3Lanes {
    [v[0] - w[0], v[1] - w[1], v[2] - w[2]]
}

/// Lane-wise `v · w`, summed as glam sums it: (x x' + y y') + z z'.
#[inline(always)]
fn dot3(v: Vec3Lanes, w: Vec3Lanes) -> f32x4 {
    v[0] * w[0] + v[1] * w[1] + v[2] * w[2]
}

/// Lane-wise `x.clamp(0.0, 1.0)`, NaN kept as `f32::clamp` keeps it.
#[inline(always)]
fn clamp_unit(x: f32x4) -> f32x4 {
    let x = x.simd_lt(f32x4::ZERO).bitselect(f32x4::ZERO, x);
    x.simd_gt(f32x4::ONE).bitselect(f32x4::ONE, x)
}

/// [`closest_segments`] of segment `p0 p1` against four segments `q0 q1` at once, one per
/// lane: the points on `p` and on each `q`, bit for bit what the scalar routine gives each
/// lane (the same operations in the same order; every branch taken as a choice between
/// lanes, so a lane's discarded division by zero changes nothing).
///
/// A capsule beside a terrain triangle measures its segment against the three edges: one
/// call where three scalar ones were 3 % of the terrain rain's instructions, with branches
/// on each edge's case.
pub(crate) fn closest_segments_x4(
    p0: Vec3,
    p1: Vec3,
    q0: Vec3Lanes,
    q1: Vec3Lanes,
) -> (Vec3Lanes, Vec3Lanes) {
    let d1 = p1 - p0;
    let d2 = sub3(q1, q0);
    let r = sub3(splat3(p0), q0);
    let a = d1.length_squared();
    let e = dot3(d2, d2);
    let f = dot3(d2, r);
    let edge_tiny = e.simd_le(f32x4::splat(TINY_SQ));
    let (s, t) = if a <= TINY_SQ {
        (f32x4::ZERO, edge_tiny.bitselect(f32x4::ZERO, clamp_unit(f / e)))
    } else {
        let (d1, av) = (splat3(d1), f32x4::splat(a));
        let c = dot3(d1, r);
        let b = dot3(d1, d2);
        let denom = av * e - b * b;
        let parted = denom.simd_gt(f32x4::splat(1e-10) * av * e);
        let s_free = parted.bitselect(clamp_unit((b * f - c * e) / denom), f32x4::ZERO);
        let t_free = (b * s_free + f) / e;
        let s_low = clamp_unit(-c / av);
        let s_high = clamp_unit((b - c) / av);
        let (below, above) = (t_free.simd_lt(f32x4::ZERO), t_free.simd_gt(f32x4::ONE));
        let s = above.bitselect(s_high, s_free);
        let t = above.bitselect(f32x4::ONE, t_free);
        let (s, t) = (below.bitselect(s_low, s), below.bitselect(f32x4::ZERO, t));
        (edge_tiny.bitselect(s_low, s), edge_tiny.bitselect(f32x4::ZERO, t))
    };
    (along(splat3(p0), splat3(d1), s), along(q0, d2, t))
}

/// Lane-wise `start + direction * t`.
#[inline(always)]
fn along(start: Vec3Lanes, direction: Vec3Lanes, t: f32x4) -> Vec3Lanes {
    [0, 1, 2].map(|c| start[c] + direction[c] * t)
}

/// The result of a closest-point query against a polyhedron.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PolyClosest {
    /// Closest point on the polyhedron's surface.
    pub(crate) on_poly: Vec3,
    /// The closest point of the query object (the query point itself for point queries).
    pub(crate) on_query: Vec3,
    /// Unit direction from the polyhedron to the query, outward.
    pub(crate) normal: Vec3,
    /// Signed distance: negative when the query point is inside.
    pub(crate) distance: f32,
}

/// Closest point on (the surface of) a polyhedron to `c`, all in the polyhedron's local frame.
///
/// Inside, the answer is the face of least penetration (what a contact needs to push the point
/// out the shortest way). Outside, if the projection onto a face the point is in front of lands
/// inside that face, it is the closest point (the offset is along that face's normal cone);
/// otherwise the closest point lies on an edge, so every edge is tried. No iteration, exact.
pub(crate) fn closest_on_poly<P: Polyhedron + ?Sized>(poly: &P, c: Vec3) -> PolyClosest {
    let (best_face, best_sep) = deepest_face(poly, c);
    let (n, _) = poly.face_plane(best_face);
    if best_sep <= 0.0 {
        return PolyClosest { on_poly: c - n * best_sep, on_query: c, normal: n, distance: best_sep };
    }
    for f in 0..poly.face_count() {
        let (fn_, fd) = poly.face_plane(f);
        let s = fn_.dot(c) - fd;
        if s > 0.0 {
            let q = c - fn_ * s;
            if inside_face(poly, f, fn_, q) {
                return PolyClosest { on_poly: q, on_query: c, normal: fn_, distance: s };
            }
        }
    }
    let mut best = (f32::MAX, c);
    for e in poly.edges() {
        let q =
            closest_on_segment(poly.vertex(e.vertices[0] as usize), poly.vertex(e.vertices[1] as usize), c);
        let d = (c - q).length_squared();
        if d < best.0 {
            best = (d, q);
        }
    }
    let distance = best.0.sqrt();
    // A point this close to an edge but in front of a face: that face's normal is a sane normal.
    let normal = if distance > 1e-7 { (c - best.1) / distance } else { n };
    PolyClosest { on_poly: best.1, on_query: c, normal, distance }
}

/// [`closest_on_poly`], by clamping when `poly` is a box.
pub(crate) fn closest_on_polyhedron<P: Polyhedron + ?Sized>(poly: &P, c: Vec3) -> PolyClosest {
    match poly.box_half_extents() {
        Some(half) => closest_on_box(poly, half, c),
        None => closest_on_poly(poly, c),
    }
}

/// [`closest_on_poly`] for a box of half extents `half` (as [`BoxPoly`] numbers its faces): the
/// closest outside point is the query clamped to the box, with no face or edge search.
///
/// [`BoxPoly`]: super::polytope::BoxPoly
pub(crate) fn closest_on_box<P: Polyhedron + ?Sized>(poly: &P, half: Vec3, c: Vec3) -> PolyClosest {
    let q = c.clamp(-half, half);
    if q == c {
        // Inside (or on the surface): the face of least penetration, as for any polyhedron.
        let (face, depth) = deepest_face(poly, c);
        let n = poly.face_plane(face).0;
        return PolyClosest { on_poly: c - n * depth, on_query: c, normal: n, distance: depth };
    }
    let distance = (c - q).length();
    let normal =
        if distance > 1e-7 { (c - q) / distance } else { poly.face_plane(deepest_face(poly, c).0).0 };
    PolyClosest { on_poly: q, on_query: c, normal, distance }
}

/// The face whose plane `c` is farthest in front of (least behind): `(face, signed distance)`.
pub(crate) fn deepest_face<P: Polyhedron + ?Sized>(poly: &P, c: Vec3) -> (usize, f32) {
    let mut best = (0, f32::MIN);
    for f in 0..poly.face_count() {
        let (n, d) = poly.face_plane(f);
        let s = n.dot(c) - d;
        if s > best.1 {
            best = (f, s);
        }
    }
    best
}

/// True when `q` (on the plane of face `f`) lies within the face polygon.
fn inside_face<P: Polyhedron + ?Sized>(poly: &P, f: usize, n: Vec3, q: Vec3) -> bool {
    let lp = poly.face_loop(f);
    (0..lp.len()).all(|k| {
        let a = poly.vertex(lp[k] as usize);
        let b = poly.vertex(lp[loop_next(k, lp.len())] as usize);
        // (b - a) x n points out of a counter-clockwise loop.
        (b - a).cross(n).dot(q - a) <= 0.0
    })
}

/// Closest points between segment `s0 s1` and a polyhedron it does not intersect.
///
/// When they are apart, the closest pair either involves an end of the segment (a point query)
/// or an interior segment point against an edge of the polyhedron (an interior point against a
/// face interior would make the segment parallel to the face, where an end does as well).
pub(crate) fn closest_segment_poly<P: Polyhedron + ?Sized>(poly: &P, s0: Vec3, s1: Vec3) -> PolyClosest {
    let mut best = closest_on_poly(poly, s0);
    let other = closest_on_poly(poly, s1);
    if other.distance < best.distance {
        best = other;
    }
    for e in poly.edges() {
        let a = poly.vertex(e.vertices[0] as usize);
        let b = poly.vertex(e.vertices[1] as usize);
        let (_, _, on_seg, on_edge) = closest_segments(s0, s1, a, b);
        let d = (on_seg - on_edge).length();
        if d < best.distance && d > 1e-7 {
            best = PolyClosest {
                on_poly: on_edge,
                on_query: on_seg,
                normal: (on_seg - on_edge) / d,
                distance: d,
            };
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrowphase::polytope::BoxPoly;

    #[test]
    fn crossing_segments_meet_at_the_crossing() {
        let (s, t, p, q) = closest_segments(
            Vec3::new(-1.0, 0.0, 0.0),
            Vec3::X,
            Vec3::new(0.0, 1.0, -1.0),
            Vec3::new(0.0, 1.0, 1.0),
        );
        assert!((s - 0.5).abs() < 1e-6 && (t - 0.5).abs() < 1e-6);
        assert!((p - Vec3::ZERO).length() < 1e-6 && (q - Vec3::Y).length() < 1e-6);
    }

    /// The four-lane routine gives each lane the scalar routine's points bit for bit: for
    /// random segments, and for the cases the scalar routine branches on (a segment or an
    /// edge of zero length or of a length under the threshold, parallel and nearly parallel
    /// pairs, either end of the free optimum clamped), with zeros of both signs, very large
    /// and very small coordinates, infinities and NaN.
    #[test]
    fn four_lanes_find_the_scalar_points() {
        let mut next = crate::narrowphase::uniform(29);
        let special = [0.0, -0.0, 1e-7, -1e-7, 1e-20, 1e30, -1e30, f32::INFINITY, f32::NAN, 0.5, -0.5];
        let pick = move |next: &mut dyn FnMut() -> f32| -> Vec3 {
            let mut c = || {
                let r = next();
                if r < 0.06 {
                    special[(next() * special.len() as f32) as usize % special.len()]
                } else {
                    4.0 * next() - 2.0
                }
            };
            Vec3::new(c(), c(), c())
        };
        // Bit for bit, but any NaN as any other: which NaN an operation on NaN returns (its
        // sign) differs between the scalar and the vector instructions, and a NaN stays NaN.
        let bits = |v: Vec3| v.to_array().map(|x| if x.is_nan() { f32::NAN.to_bits() } else { x.to_bits() });
        let mut compared = 0;
        for case in 0..20_000 {
            let p0 = pick(&mut next);
            // A segment of zero length, one just under the threshold, or a random one.
            let p1 = match case % 4 {
                0 => p0,
                1 => p0 + Vec3::new(5e-7, 0.0, 0.0),
                _ => pick(&mut next),
            };
            let q: [(Vec3, Vec3); 4] = std::array::from_fn(|k| {
                let q0 = pick(&mut next);
                let q1 = match (case + k) % 5 {
                    0 => q0,
                    1 => q0 + Vec3::new(0.0, 5e-7, 0.0),
                    // Parallel to p, and nearly so.
                    2 => q0 + (p1 - p0) * (1.0 + next()),
                    3 => q0 + (p1 - p0) + Vec3::splat(1e-6 * next()),
                    _ => pick(&mut next),
                };
                (q0, q1)
            });
            let (on_p, on_q) =
                closest_segments_x4(p0, p1, to_lanes(q.map(|q| q.0)), to_lanes(q.map(|q| q.1)));
            for (k, (q0, q1)) in q.iter().enumerate() {
                let (_, _, sp, sq) = closest_segments(p0, p1, *q0, *q1);
                assert_eq!(bits(lane(&on_p, k)), bits(sp), "case {case} lane {k}: {p0} {p1} {q0} {q1}");
                assert_eq!(bits(lane(&on_q, k)), bits(sq), "case {case} lane {k}: {p0} {p1} {q0} {q1}");
                compared += usize::from(sp.is_finite() && sq.is_finite());
            }
        }
        assert!(compared > 40_000, "{compared} lanes of finite points");
        // Directed cases: a free optimum of -0.0 (kept by the clamp, and by `-c` where `0 - c`
        // would give +0.0) against an edge beside it, a parallel pair, and segments clamped at
        // either end.
        let cases = [
            (Vec3::splat(-0.0), Vec3::X, [Vec3::new(-0.0, 1.0, 0.0), Vec3::new(0.0, 2.0, 0.0)]),
            (Vec3::ZERO, Vec3::X, [Vec3::Y, Vec3::new(1.0, 1.0, 0.0)]),
            (Vec3::ZERO, Vec3::X, [Vec3::new(-2.0, 1.0, 0.0), Vec3::new(-1.0, 1.0, 1.0)]),
            (Vec3::ZERO, Vec3::X, [Vec3::new(3.0, -1.0, 0.0), Vec3::new(4.0, 1.0, 0.0)]),
        ];
        for (p0, p1, [q0, q1]) in cases {
            let (on_p, on_q) = closest_segments_x4(p0, p1, to_lanes([q0; 4]), to_lanes([q1; 4]));
            let (_, _, sp, sq) = closest_segments(p0, p1, q0, q1);
            assert_eq!(bits(lane(&on_p, 0)), bits(sp), "{p0} {p1} {q0} {q1}");
            assert_eq!(bits(lane(&on_q, 0)), bits(sq), "{p0} {p1} {q0} {q1}");
        }
        let (_, _, sp, _) = closest_segments(cases[0].0, cases[0].1, cases[0].2[0], cases[0].2[1]);
        assert_eq!(sp.x.to_bits(), (-0.0f32).to_bits(), "the directed case keeps -0.0");
    }

    #[test]
    fn parallel_segments_are_deterministic() {
        let (s, _, p, q) = closest_segments(Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::new(1.0, 1.0, 0.0));
        assert_eq!(s, 0.0);
        assert!(((q - p).length() - 1.0).abs() < 1e-6);
    }

    #[test]
    fn box_clamp_agrees_with_the_polyhedron_search() {
        let half = Vec3::new(0.5, 0.3, 0.8);
        let b = BoxPoly::new(half);
        let mut state = 12345u32;
        let mut next = || {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            (state >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        };
        for _ in 0..2000 {
            let c = Vec3::new(next(), next(), next());
            let (fast, slow) = (closest_on_box(&b, half, c), closest_on_poly(&b, c));
            assert!(
                (fast.distance - slow.distance).abs() < 1e-5,
                "{c}: {} vs {}",
                fast.distance,
                slow.distance
            );
            assert!((fast.on_poly - slow.on_poly).length() < 1e-5, "{c}");
            assert!((fast.normal - slow.normal).length() < 1e-4, "{c}");
        }
    }

    #[test]
    fn point_near_box_corner_edge_and_face() {
        let b = BoxPoly::new(Vec3::ONE);
        let c = closest_on_poly(&b, Vec3::new(2.0, 2.0, 2.0));
        assert!((c.on_poly - Vec3::ONE).length() < 1e-6);
        assert!((c.distance - 3f32.sqrt()).abs() < 1e-5);
        let e = closest_on_poly(&b, Vec3::new(2.0, 2.0, 0.5));
        assert!((e.on_poly - Vec3::new(1.0, 1.0, 0.5)).length() < 1e-6);
        let f = closest_on_poly(&b, Vec3::new(0.2, 3.0, 0.1));
        assert!((f.normal - Vec3::Y).length() < 1e-6 && (f.distance - 2.0).abs() < 1e-6);
        let inside = closest_on_poly(&b, Vec3::new(0.1, 0.0, 0.8));
        assert!((inside.normal - Vec3::Z).length() < 1e-6 && (inside.distance + 0.2).abs() < 1e-6);
    }
}
