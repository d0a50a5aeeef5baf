//! Pairs with a capsule first: capsule–capsule and capsule–polyhedron (box or hull).
//!
//! A capsule is a segment swept by a radius, so both routines work on the segment ("core") and
//! subtract the radius. Lying capsules need two points to rest stably, so parallel
//! configurations emit both ends of the overlapping stretch.

use super::closest::{closest_on_segment, closest_segment_poly, closest_segments};
use super::feature;
use super::polytope::{Polyhedron, loop_next};
use super::sphere::round_point;
use super::{Manifold, ManifoldPoint};
use crate::math::{Transform, Vec3};

/// Segments whose directions differ by less than this sine (about 1.1°) count as parallel for
/// the two-point capsule–capsule contact.
const CAPSULE_PARALLEL_SIN: f32 = 0.02;
/// A capsule whose axis is within this sine (about 10°) of a reference face's plane gets two
/// points; points raised above `speculative` by the tilt are dropped anyway.
const FACE_PARALLEL_SIN: f32 = 0.17;
/// The separated-case closest direction must be this close to a face normal (cosine, about
/// 2.5°) for the face's two-point contact to be used.
const FACE_ALIGNED_COS: f32 = 0.999;
/// An edge axis must beat the best face axis by this much to be used (faces give two points).
const EDGE_TOLERANCE: f32 = 0.001;

/// The capsule's segment end points (local −Y end first) after `xf`.
fn segment(half_height: f32, xf: &Transform) -> (Vec3, Vec3) {
    (
        xf.transform_point(Vec3::new(0.0, -half_height, 0.0)),
        xf.transform_point(Vec3::new(0.0, half_height, 0.0)),
    )
}

/// Feature code for a capsule end (`0` the −Y end) bounding a two-point contact.
#[inline]
fn end_code(end: usize) -> u32 {
    1 + end as u32
}

/// Capsule against capsule; normal from A to B.
pub(crate) fn capsule_capsule(
    (ha, ra, xa): (f32, f32, &Transform),
    (hb, rb, xb): (f32, f32, &Transform),
    speculative: f32,
) -> Manifold {
    let (a0, a1) = segment(ha, xa);
    let (b0, b1) = segment(hb, xb);
    let (_, _, pa, pb) = closest_segments(a0, a1, b0, b1);
    let (ua, ub) = (a1 - a0, b1 - b0);
    // Crossing cores: the normal across both axes, then centre to centre, then +Y.
    let fallback = {
        let c = ua.cross(ub);
        let c = if c.dot(xb.position - xa.position) < 0.0 { -c } else { c };
        c.try_normalize().or((xb.position - xa.position).try_normalize()).unwrap_or(Vec3::Y)
    };
    let single = round_point(pa, ra, pb, rb, fallback, speculative, feature::round(0, 0));
    if single.count == 0 {
        return single;
    }
    // Degenerate (zero-length) cores have no direction to be parallel along.
    let has_length = ua.length_squared() > 1e-12 && ub.length_squared() > 1e-12;
    let parallel = has_length
        && ua.cross(ub).length_squared()
            <= CAPSULE_PARALLEL_SIN * CAPSULE_PARALLEL_SIN * ua.length_squared() * ub.length_squared();
    if !parallel {
        return single;
    }
    parallel_capsules((a0, a1, ra), (b0, b1, rb), single.normal, speculative).unwrap_or(single)
}

/// Two points at the ends of the stretch where parallel cores overlap along A's axis, both using
/// `normal`; `None` when they overlap over (nearly) no length.
fn parallel_capsules(
    (a0, a1, ra): (Vec3, Vec3, f32),
    (b0, b1, rb): (Vec3, Vec3, f32),
    normal: Vec3,
    speculative: f32,
) -> Option<Manifold> {
    let ua = a1 - a0;
    let len_sq = ua.length_squared();
    let tb0 = (b0 - a0).dot(ua) / len_sq;
    let tb1 = (b1 - a0).dot(ua) / len_sq;
    // Which feature bounds each end: A's own end, or one of B's ends projected onto A.
    let (lo_b, hi_b) = if tb0 <= tb1 { ((tb0, 0), (tb1, 1)) } else { ((tb1, 1), (tb0, 0)) };
    let lo = if lo_b.0 > 0.0 {
        (lo_b.0, feature::round(0, end_code(lo_b.1)))
    } else {
        (0.0, feature::round(end_code(0), 0))
    };
    let hi = if hi_b.0 < 1.0 {
        (hi_b.0, feature::round(0, end_code(hi_b.1)))
    } else {
        (1.0, feature::round(end_code(1), 0))
    };
    // Overlap shorter than a millimetre-ish fraction is a single touching point.
    if (hi.0 - lo.0) * len_sq.sqrt() <= 1e-3 {
        return None;
    }
    let mut m = Manifold { normal, ..Manifold::default() };
    for (t, id) in [lo, hi] {
        let pa = a0 + ua * t;
        let pb = closest_on_segment(b0, b1, pa);
        let separation = (pb - pa).dot(normal) - ra - rb;
        if separation <= speculative {
            let position = ((pa + normal * ra) + (pb - normal * rb)) * 0.5;
            m.push(ManifoldPoint { position, separation, feature: id });
        }
    }
    (m.count > 0).then_some(m)
}

/// The best face axis of a polyhedron against a segment.
#[derive(Clone, Copy, Debug)]
struct SegmentFace {
    separation: f32,
    face: usize,
}

/// The best edge × segment axis.
#[derive(Clone, Copy, Debug)]
struct SegmentEdge {
    separation: f32,
    edge: usize,
    axis: Vec3,
}

/// Face axes: how far the segment's lower end lies in front of each face plane.
fn segment_face_query<P: Polyhedron + ?Sized>(poly: &P, s0: Vec3, s1: Vec3) -> SegmentFace {
    let mut best = SegmentFace { separation: f32::MIN, face: 0 };
    for f in 0..poly.face_count() {
        let (n, d) = poly.face_plane(f);
        let s = n.dot(s0).min(n.dot(s1)) - d;
        if s > best.separation {
            best = SegmentFace { separation: s, face: f };
        }
    }
    best
}

/// Edge axes: the segment's Gauss map is the great circle normal to its direction, so an edge
/// builds a face of the Minkowski difference exactly when its two face normals lie on opposite
/// sides of that circle. Those edges are then the polyhedron's support along the axis.
fn segment_edge_query<P: Polyhedron + ?Sized>(poly: &P, s0: Vec3, s1: Vec3) -> Option<SegmentEdge> {
    let u = s1 - s0;
    let mut best: Option<SegmentEdge> = None;
    for (i, e) in poly.edges().iter().enumerate() {
        let (na, nb) = (poly.face_plane(e.faces[0] as usize).0, poly.face_plane(e.faces[1] as usize).0);
        if na.dot(u) * nb.dot(u) >= 0.0 {
            continue;
        }
        let v0 = poly.vertex(e.vertices[0] as usize);
        let de = poly.vertex(e.vertices[1] as usize) - v0;
        let axis = de.cross(u);
        let len_sq = axis.length_squared();
        if len_sq <= 1e-10 * de.length_squared() * u.length_squared() {
            continue;
        }
        let mut axis = axis / len_sq.sqrt();
        if axis.dot(na + nb) < 0.0 {
            axis = -axis;
        }
        let s = axis.dot(s0 - v0);
        if best.is_none_or(|b| s > b.separation) {
            best = Some(SegmentEdge { separation: s, edge: i, axis });
        }
    }
    best
}

/// Capsule (A) against a polyhedron (B); normal from A to B.
///
/// Penetration uses the separating-axis test over face normals and edge × segment axes, which
/// is exact for a segment against a polyhedron (those are all the faces of their Minkowski
/// difference) and needs no iteration. When the core is outside the polyhedron the test only
/// bounds the distance from below (it could pick a face normal where the nearest feature is an
/// edge), so the separated case computes exact closest points instead (ends against the
/// polyhedron, segment against each edge): the speculative normal is then the true one. This is
/// the same result GJK would converge to, without an iteration count to tune.
pub(crate) fn capsule_poly<P: Polyhedron + ?Sized>(
    (half_height, radius, xa): (f32, f32, &Transform),
    poly: &P,
    xb: &Transform,
    speculative: f32,
) -> Manifold {
    let (s0, s1) = segment(half_height, &xb.inverse_mul(xa));
    let face = segment_face_query(poly, s0, s1);
    if face.separation - radius > speculative {
        return Manifold::default();
    }
    let edge = segment_edge_query(poly, s0, s1);
    let edge_sep = edge.map_or(f32::MIN, |e| e.separation);
    if edge_sep - radius > speculative {
        return Manifold::default();
    }
    let local = if face.separation.max(edge_sep) > 0.0 {
        separated(poly, (s0, s1, radius), face.face, speculative)
    } else {
        match edge {
            Some(e) if e.separation > face.separation + EDGE_TOLERANCE => {
                edge_point(poly, (s0, s1, radius), &e)
            }
            _ => face_points(poly, face.face, (s0, s1, radius), speculative),
        }
    };
    // `local` has the normal from the polyhedron to the capsule in B's frame.
    let mut m = Manifold { normal: -xb.transform_vector(local.normal), ..local };
    for p in &mut m.points[..m.count] {
        p.position = xb.transform_point(p.position);
    }
    m
}

/// The core is outside the polyhedron: exact closest points, or the face's two points when the
/// capsule lies parallel above a face.
fn separated<P: Polyhedron + ?Sized>(
    poly: &P,
    (s0, s1, radius): (Vec3, Vec3, f32),
    best_face: usize,
    speculative: f32,
) -> Manifold {
    let q = closest_segment_poly(poly, s0, s1);
    if q.distance - radius > speculative {
        return Manifold::default();
    }
    let n_face = poly.face_plane(best_face).0;
    let u = (s1 - s0).normalize_or_zero();
    if q.normal.dot(n_face) >= FACE_ALIGNED_COS && u.dot(n_face).abs() < FACE_PARALLEL_SIN {
        let m = face_points(poly, best_face, (s0, s1, radius), speculative);
        if m.count > 0 {
            return m;
        }
    }
    let mut m = Manifold { normal: q.normal, ..Manifold::default() };
    let position = (q.on_poly + (q.on_query - q.normal * radius)) * 0.5;
    m.push(ManifoldPoint { position, separation: q.distance - radius, feature: feature::round(0, 0) });
    m
}

/// Edge contact: one point at the closest points of the edge and the core.
fn edge_point<P: Polyhedron + ?Sized>(
    poly: &P,
    (s0, s1, radius): (Vec3, Vec3, f32),
    e: &SegmentEdge,
) -> Manifold {
    let edge = &poly.edges()[e.edge];
    let (v0, v1) = (poly.vertex(edge.vertices[0] as usize), poly.vertex(edge.vertices[1] as usize));
    let (_, _, on_seg, on_edge) = closest_segments(s0, s1, v0, v1);
    let mut m = Manifold { normal: e.axis, ..Manifold::default() };
    let position = (on_edge + (on_seg - e.axis * radius)) * 0.5;
    m.push(ManifoldPoint { position, separation: e.separation - radius, feature: feature::round(0, 0) });
    m
}

/// Clips the core to the side planes of `face`: the parameter range `[lo, hi]` of the part of
/// the segment inside the face's prism, or `None` if it misses the prism.
fn clip_to_face<P: Polyhedron + ?Sized>(
    poly: &P,
    face: usize,
    n: Vec3,
    s0: Vec3,
    s1: Vec3,
) -> Option<(f32, f32)> {
    let lp = poly.face_loop(face);
    let (mut lo, mut hi) = (0.0f32, 1.0f32);
    for k in 0..lp.len() {
        let v0 = poly.vertex(lp[k] as usize);
        let v1 = poly.vertex(lp[loop_next(k, lp.len())] as usize);
        let side = (v1 - v0).cross(n);
        let (d0, d1) = (side.dot(s0 - v0), side.dot(s1 - v0));
        if d0 > 0.0 && d1 > 0.0 {
            return None;
        }
        // Signs differ in both branches, so the division is safe.
        if d0 > 0.0 {
            lo = lo.max(d0 / (d0 - d1));
        } else if d1 > 0.0 {
            hi = hi.min(d0 / (d0 - d1));
        }
    }
    (lo <= hi).then_some((lo, hi))
}

/// Face contact for a core against face `face`: both clipped ends when the capsule lies nearly
/// parallel to the face, else the deeper clipped end. Normal from the polyhedron to the capsule.
fn face_points<P: Polyhedron + ?Sized>(
    poly: &P,
    face: usize,
    (s0, s1, radius): (Vec3, Vec3, f32),
    speculative: f32,
) -> Manifold {
    let (n, d) = poly.face_plane(face);
    let mut m = Manifold { normal: n, ..Manifold::default() };
    let (lo, hi) = clip_to_face(poly, face, n, s0, s1).unwrap_or(if n.dot(s0) <= n.dot(s1) {
        (0.0, 0.0)
    } else {
        (1.0, 1.0)
    });
    let (p_lo, p_hi) = (s0 + (s1 - s0) * lo, s0 + (s1 - s0) * hi);
    let u = (s1 - s0).normalize_or_zero();
    let mut push = |p: Vec3, id: u32| {
        let s = n.dot(p) - d;
        let separation = s - radius;
        if separation <= speculative {
            // Midway between the capsule's surface below p and p's projection on the face.
            let position = ((p - n * radius) + (p - n * s)) * 0.5;
            m.push(ManifoldPoint { position, separation, feature: id });
        }
    };
    if u != Vec3::ZERO && u.dot(n).abs() < FACE_PARALLEL_SIN && hi > lo {
        push(p_lo, feature::round(end_code(0), 0));
        push(p_hi, feature::round(end_code(1), 0));
    } else if n.dot(p_lo) <= n.dot(p_hi) {
        push(p_lo, feature::round(0, 0));
    } else {
        push(p_hi, feature::round(0, 0));
    }
    m
}
