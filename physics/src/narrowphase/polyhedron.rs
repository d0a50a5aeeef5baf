//! Box and hull pairs: separating-axis test over face normals and edge–edge axes, then either a
//! clipped face contact or a single edge–edge point; a separated pair gets points only within
//! the speculative distance of its exact closest points.
//!
//! The work happens in A's local frame (B mapped in by `xa⁻¹ · xb`), so A's data is used as
//! stored and only B's is transformed; the result is mapped to world space at the end.

use super::clip::{self, ClipPolygon};
use super::closest::{closest_on_polyhedron, closest_segments};
use super::edge_search::{EdgeQuery, box_edge_query, box_edges_along, hull_edge_query};
use super::feature;
use super::polytope::{Polyhedron, Posed, loop_next};
use super::reduce;
use super::snap::{LoopLanes, boxes_snap_distance_sq, snap_distance_sq};
use super::{CollideCache, MAX_MANIFOLD_POINTS, Manifold, ManifoldPoint};
use crate::math::{Aabb, Mat3, Transform, Vec3};
use crate::shape::MAX_HULL_VERTICES;
use glam::{Mat3A, Vec3A};
use wide::f32x4;

/// B's face becomes the reference only when it separates more than A's by this much: a tie
/// (two resting boxes) must not flip the reference from step to step.
const REFERENCE_TOLERANCE: f32 = 0.0005;
/// An edge axis wins over the best face only if it separates more by this much plus
/// [`EDGE_RELATIVE_TOLERANCE`] of the face penetration: face contacts give stable multi-point
/// manifolds, edge contacts a single point, so near ties go to faces.
const EDGE_TOLERANCE: f32 = 0.001;
/// See [`EDGE_TOLERANCE`].
const EDGE_RELATIVE_TOLERANCE: f32 = 0.05;

/// Cache axis kinds (top two bits of [`CollideCache::axis`]); `0` means nothing cached.
const CACHE_FACE_A: u32 = 1;
const CACHE_FACE_B: u32 = 2;
const CACHE_EDGES: u32 = 3;

/// The best face axis of one polyhedron against the other.
#[derive(Clone, Copy, Debug)]
struct FaceQuery {
    separation: f32,
    face: usize,
}

/// Contact between two polyhedra; normal from A to B.
pub(crate) fn collide_polyhedra<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized>(
    a: &A,
    xa: &Transform,
    b: &B,
    xb: &Transform,
    speculative: f32,
    cache: &mut CollideCache,
) -> Manifold {
    let relative = xa.inverse_mul(xb);
    let pa = Posed::at_identity(a);
    let pb = Posed::new(b, relative);
    // The cached axis is only used to prove separation, which any axis can do exactly, so the
    // manifold never depends on the cache: it only skips work.
    if cached_axis_separation(&pa, &pb, cache.axis).is_some_and(|s| s > speculative) {
        return Manifold::default();
    }
    let boxes = a.box_half_extents().zip(b.box_half_extents());
    // Two boxes: both face queries in closed form from one rotation matrix.
    // B's rotation in A's frame, posed once for both closed forms and the searches.
    let rotation = boxes.map(|_| *pb.rotation());
    let box_faces =
        boxes.zip(rotation.as_ref()).map(|((ha, hb), r)| box_face_queries(ha, hb, r, relative.position));
    let fa = box_faces.map_or_else(|| face_query(&pa, &pb), |(fa, _)| fa);
    if fa.separation > speculative {
        cache.axis = CACHE_FACE_A << 30 | fa.face as u32;
        return Manifold::default();
    }
    let fb = box_faces.map_or_else(|| face_query(&pb, &pa), |(_, fb)| fb);
    if fb.separation > speculative {
        cache.axis = CACHE_FACE_B << 30 | fb.face as u32;
        return Manifold::default();
    }
    let ref_is_b = fb.separation > fa.separation + REFERENCE_TOLERANCE;
    let face_sep = if ref_is_b { fb.separation } else { fa.separation };
    // Two boxes within the speculative distance along every face axis may still be farther
    // apart than it diagonally (neighbours in a stack's layer, corner to corner): the box around
    // B in A's axes proves it in a few products. Such a pair needs no point, and past this test
    // it would cost an edge search and a clipping that finds nothing, or get a point from an
    // edge pair whose separation along its axis is far less than the edges' distance.
    if let Some(((ha, hb), r)) = boxes.zip(rotation.as_ref())
        && box_bounds_distance(ha, hb, r, relative.position) > speculative
    {
        cache.axis =
            if ref_is_b { CACHE_FACE_B << 30 | fb.face as u32 } else { CACHE_FACE_A << 30 | fa.face as u32 };
        return Manifold::default();
    }
    // An edge axis matters only if it separates the shapes or beats the best face.
    let edge_wins = face_sep + EDGE_TOLERANCE + EDGE_RELATIVE_TOLERANCE * face_sep.abs();
    let edge = match boxes {
        // Two boxes: the closed-form separation along each of the nine edge-axis directions
        // rules out the directions that can neither separate the boxes nor beat the best face;
        // only the edge pairs of the others are searched. A best edge below both thresholds is
        // never used, so leaving those out changes no manifold.
        Some((ha, hb)) => {
            let cut = speculative.min(edge_wins) - EDGE_BOUND_MARGIN * (1.0 + relative.position.length());
            let r = rotation.as_ref().expect("boxes have a rotation");
            let keep = box_edge_separations(ha, hb, r, relative.position).map(|row| row.map(|s| s >= cut));
            // Per direction of B's edges, the set of A's edges to try with it: the four along
            // each direction of A's kept with it.
            let along = box_edges_along();
            let tried: [u16; 3] =
                std::array::from_fn(|j| (0..3).filter(|&i| keep[i][j]).fold(0, |set, i| set | along[i]));
            if tried.iter().any(|&set| set != 0) { box_edge_query(&pa, &pb, tried) } else { None }
        }
        None => hull_edge_query(&pa, &pb),
    };
    if let Some(e) = edge
        && e.separation > speculative
    {
        cache.axis = CACHE_EDGES << 30 | (e.edge_b as u32 & 0x7fff) << 15 | (e.edge_a as u32 & 0x7fff);
        return Manifold::default();
    }
    let local = match edge {
        Some(e) if e.separation > edge_wins => {
            cache.axis = CACHE_EDGES << 30 | (e.edge_b as u32 & 0x7fff) << 15 | (e.edge_a as u32 & 0x7fff);
            edge_contact(&pa, &pb, &e, speculative)
        }
        _ if ref_is_b => {
            cache.axis = CACHE_FACE_B << 30 | fb.face as u32;
            face_contact(&pb, fb.face, &pa, true, speculative)
        }
        _ => {
            cache.axis = CACHE_FACE_A << 30 | fa.face as u32;
            face_contact(&pa, fa.face, &pb, false, speculative)
        }
    };
    to_world(local, xa)
}

/// [`face_query`] of two boxes both ways (A's faces against B, then B's against A), B at
/// `relative` in A's frame: for a face of normal `n` along an axis, how far the other box's
/// centre lies in front of it, less the face's half extent and the other box's half width
/// along `n`. The faces are visited in the polyhedra's own order (`-x, +x, -y, +y, -z, +z`,
/// [`BoxPoly`]) and ties go to the first, as in the search.
///
/// With `n` an axis vector the search's products pick one component each and add exact zeros,
/// so reading the component gives the same bits (the extents positive, the offsets and widths
/// finite, as every pose the world accepts makes them): the separation of face `±k` is
/// `(±offset[k] − own[k]) − other[k]`.
fn box_face_queries(ha: Vec3, hb: Vec3, r: &Mat3, t: Vec3) -> (FaceQuery, FaceQuery) {
    let columns = [r.x_axis, r.y_axis, r.z_axis];
    // |R_ij|: how much of B's axis j lies along A's axis i (column j, component i).
    let abs = columns.map(|c| c.abs());
    let width_b_along_a = abs[0] * hb.x + abs[1] * hb.y + abs[2] * hb.z;
    let width_a_along_b = Vec3::new(abs[0].dot(ha), abs[1].dot(ha), abs[2].dot(ha));
    // A's centre seen from B, in B's axes.
    let a_from_b = -Vec3::new(columns[0].dot(t), columns[1].dot(t), columns[2].dot(t));
    let best = |offset: Vec3, own: Vec3, other: Vec3| {
        let mut best = FaceQuery { separation: f32::MIN, face: 0 };
        for k in 0..3 {
            for (side, along) in [-offset[k], offset[k]].into_iter().enumerate() {
                let s = along - own[k] - other[k];
                if s > best.separation {
                    best = FaceQuery { separation: s, face: 2 * k + side };
                }
            }
        }
        best
    };
    (best(t, ha, width_b_along_a), best(a_from_b, hb, width_a_along_b))
}

/// The distance between box A (half extents `ha`, in its own frame) and the axis-aligned box
/// around box B (half extents `hb`, rotation `r` and centre `t` in A's frame): a lower bound on
/// the boxes' distance, in closed form.
fn box_bounds_distance(ha: Vec3, hb: Vec3, r: &Mat3, t: Vec3) -> f32 {
    let width_b = r.x_axis.abs() * hb.x + r.y_axis.abs() * hb.y + r.z_axis.abs() * hb.z;
    (t.abs() - ha - width_b).max(Vec3::ZERO).length()
}

/// Whether box B (half extents `hb`, at `xb`) lies farther than `speculative` from box A (`ha`
/// at `xa`) by [`box_bounds_distance`], the closed form [`collide_polyhedra`] rules diagonal
/// neighbours out with: a lower bound on the boxes' distance from their poses alone, so the
/// narrowphase can apply it before it reads the pair's contact. Beyond the bound by a rounding
/// margin only, so that it never rules out a pair the collision would give a point.
#[inline(never)]
pub(crate) fn boxes_out_of_reach(
    ha: Vec3,
    xa: &Transform,
    hb: Vec3,
    xb: &Transform,
    speculative: f32,
) -> bool {
    let relative = xa.inverse_mul(xb);
    let gap = box_bounds_distance(ha, hb, &Mat3::from_quat(relative.rotation), relative.position);
    gap > speculative + BOX_REACH_ROUNDING * (1.0 + relative.position.length())
}

/// [`boxes_out_of_reach`] from the boxes' axes in the world (`axes_a`, `axes_b`) and centres
/// (`pa`, `pb`), as the quick check's records keep them, and both ways round: box A against
/// the box around B in A's axes, and B against the box around A in B's. B's axes and centre in
/// A's frame are four products of a matrix by a vector in four lanes (from the rotations they
/// cost a product of quaternions and a matrix made from it), and B's side is six dot products
/// more of the same matrix. The second way rules out the pairs apart along one of B's faces:
/// in the tables, most of those that reached the full update only to end there on the cached
/// separating axis.
#[inline(always)]
pub(crate) fn boxes_out_of_reach_by_axes(
    ha: Vec3A,
    axes_a: &Mat3A,
    pa: Vec3A,
    hb: Vec3A,
    axes_b: &Mat3A,
    pb: Vec3A,
    speculative: f32,
) -> bool {
    // A's transpose takes world vectors into A's frame: `box_bounds_distance` a column at a time.
    let into_a = axes_a.transpose();
    let offset = pb - pa;
    let t = into_a * offset;
    // B's axes in A's frame (the columns of the relative rotation), and their components' sizes.
    let columns = [into_a * axes_b.x_axis, into_a * axes_b.y_axis, into_a * axes_b.z_axis];
    let abs = columns.map(Vec3A::abs);
    let width_b = abs[0] * hb.x + abs[1] * hb.y + abs[2] * hb.z;
    let gap_in_a = (t.abs() - ha - width_b).max(Vec3A::ZERO);
    // In B's frame: A's centre is the offset turned back (its sign does not matter), A's half
    // width along B's axis j the column's sizes against A's half extents.
    let t_in_b = Vec3A::new(columns[0].dot(t), columns[1].dot(t), columns[2].dot(t));
    let width_a = Vec3A::new(abs[0].dot(ha), abs[1].dot(ha), abs[2].dot(ha));
    let gap_in_b = (t_in_b.abs() - hb - width_a).max(Vec3A::ZERO);
    let reach = speculative + BOX_REACH_ROUNDING * (1.0 + offset.length());
    gap_in_a.length_squared().max(gap_in_b.length_squared()) > reach * reach
}

/// One side of four pairs of boxes in lanes, for [`boxes_out_of_reach_by_axes_four`]: lane `k`
/// of each value is pair `k`'s box.
#[derive(Clone, Copy)]
pub(crate) struct BoxLanes {
    /// Half extents, by axis.
    pub half_extents: [f32x4; 3],
    /// The axes in the world: `axes[c][i]` is component `i` of column `c`.
    pub axes: [[f32x4; 3]; 3],
    /// The centre in the world.
    pub centre: [f32x4; 3],
}

/// [`boxes_out_of_reach_by_axes`] of four pairs of boxes at once, a lane each: bit `k` of the
/// result is pair `k`'s verdict. Each lane takes the same IEEE operations in the same order as
/// the one-pair form (glam's products of a matrix and a vector, its dot products and lengths
/// sum left to right; no fused operations), so the verdicts are the same bit for bit (the test
/// below compares them). The quick check of the table pile's quiet pairs ends here for three
/// in five of them.
#[inline(always)]
pub(crate) fn boxes_out_of_reach_by_axes_four(a: &BoxLanes, b: &BoxLanes, speculative: f32x4) -> u32 {
    let dot = |u: [f32x4; 3], v: [f32x4; 3]| u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    let offset: [f32x4; 3] = std::array::from_fn(|i| b.centre[i] - a.centre[i]);
    // `into_a * v`: component `i` is A's axis `i` dotted with `v`.
    let into_a = |v: [f32x4; 3]| -> [f32x4; 3] { std::array::from_fn(|i| dot(a.axes[i], v)) };
    let t = into_a(offset);
    let columns = b.axes.map(into_a);
    let abs = columns.map(|c| c.map(f32x4::abs));
    let width_b: [f32x4; 3] = std::array::from_fn(|i| {
        abs[0][i] * b.half_extents[0] + abs[1][i] * b.half_extents[1] + abs[2][i] * b.half_extents[2]
    });
    let gap_in_a: [f32x4; 3] =
        std::array::from_fn(|i| (t[i].abs() - a.half_extents[i] - width_b[i]).fast_max(f32x4::ZERO));
    let t_in_b = columns.map(|c| dot(c, t));
    let width_a = abs.map(|c| dot(c, a.half_extents));
    let gap_in_b: [f32x4; 3] =
        std::array::from_fn(|j| (t_in_b[j].abs() - b.half_extents[j] - width_a[j]).fast_max(f32x4::ZERO));
    let reach = speculative + f32x4::splat(BOX_REACH_ROUNDING) * (f32x4::ONE + dot(offset, offset).sqrt());
    let (in_a, in_b) = (dot(gap_in_a, gap_in_a), dot(gap_in_b, gap_in_b));
    // `f32::max` of the two: the larger (they are never NaN: the world's poses are finite).
    let larger = in_b.simd_gt(in_a).select(in_b, in_a);
    larger.simd_gt(reach * reach).to_bitmask()
}

/// The rounding margin of [`boxes_out_of_reach`], per metre between the box centres (plus one
/// metre): single-precision rounding of the relative pose and the bound is a few parts in ten
/// million per metre.
const BOX_REACH_ROUNDING: f32 = 1e-5;

/// How far [`box_edge_separations`] must stay below a threshold, per metre of distance between
/// the box centres (plus one metre), before edge pairs are left out of the search: well above
/// the rounding difference between the two computations (at most 1e-5 per metre over 4000
/// random poses in the test below; the division by `|L| ≥ 0.1` magnifies it at most tenfold).
const EDGE_BOUND_MARGIN: f32 = 1e-4;
/// Below this squared length of `e_i × f_j` (unit axes, about 5.7°) two edge directions count
/// as parallel, and the bound takes the form that needs no division by it.
const PARALLEL_SQ: f32 = 1e-2;

/// Upper bounds on the separation along the edge–edge axes of two boxes, B at `relative` in
/// A's frame (half extents `ha`, `hb`), one per pair of edge directions: entry `[i][j]` is at
/// least what [`edge_query`] can find for an edge of A along axis `i` and one of B along its
/// axis `j`.
///
/// The axis is `L = e_i × f_j`, and the separation along it (the better orientation) is
/// `(|L·t| − r_A(L) − r_B(L)) / |L|` with `r(L)` a box's projected half width. When the edges
/// are nearly parallel the division is unstable, so the bound uses what holds for every unit
/// axis perpendicular to `e_i`: at most the offset of the centres across `e_i`, less A's
/// smaller half width across it and B's smallest half extent.
///
/// With `R` the rotation (column `j` is B's axis `f_j`, `R[i][j]` its component along A's axis
/// `i`) and `i1, i2`, `j1, j2` the other two indices in cyclic order, `L = e_i × f_j` has
/// components `L[i1] = -R[i2][j]`, `L[i2] = R[i1][j]`, so `r_A(L) = ha[i1] |R[i2][j]| +
/// ha[i2] |R[i1][j]|`, and `L · f_k = e_i · (f_j × f_k)` gives `r_B(L) = hb[j1] |R[i][j2]| +
/// hb[j2] |R[i][j1]|` (the classic box–box terms, a few products each instead of three dot
/// products per entry).
fn box_edge_separations(ha: Vec3, hb: Vec3, r: &Mat3, t: Vec3) -> [[f32; 3]; 3] {
    // Row `i` of R on lanes 0–2 (lane `j` is `R[i][j]`), and the same rotated so that lane `j`
    // holds entry `j + 1` or `j + 2` (mod 3). Lane 3 is zero: its `L` is parallel, and it is
    // dropped.
    let cols = [r.x_axis, r.y_axis, r.z_axis];
    let row = |i: usize, shift: usize| {
        f32x4::new([cols[shift % 3][i], cols[(1 + shift) % 3][i], cols[(2 + shift) % 3][i], 0.0])
    };
    let lanes =
        |v: Vec3, shift: usize| f32x4::new([v[shift % 3], v[(1 + shift) % 3], v[(2 + shift) % 3], 0.0]);
    let (hb1, hb2) = (lanes(hb, 1), lanes(hb, 2));
    let parallel_sq = f32x4::splat(PARALLEL_SQ);
    std::array::from_fn(|i| {
        let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
        let across = (t[i1] * t[i1] + t[i2] * t[i2]).sqrt();
        let parallel_bound = across - ha[i1].min(ha[i2]) - hb.min_element();
        // Every lane computes the scalar form's operations in its order (see the test).
        let (l1, l2) = (-row(i2, 0), row(i1, 0));
        let len_sq = l1 * l1 + l2 * l2;
        let ra = f32x4::splat(ha[i1]) * l1.abs() + f32x4::splat(ha[i2]) * l2.abs();
        let rb = hb1 * row(i, 2).abs() + hb2 * row(i, 1).abs();
        let offset = (l1 * f32x4::splat(t[i1]) + l2 * f32x4::splat(t[i2])).abs();
        let s = (offset - ra - rb) / len_sq.sqrt();
        let s = len_sq.simd_lt(parallel_sq).bitselect(f32x4::splat(parallel_bound), s).to_array();
        [s[0], s[1], s[2]]
    })
}

/// Maps a manifold computed in A's local frame to world space.
fn to_world(mut m: Manifold, xa: &Transform) -> Manifold {
    m.normal = xa.transform_vector(m.normal);
    for p in &mut m.points[..m.count] {
        p.position = xa.transform_point(p.position);
    }
    m
}

/// Separation of the shapes along `axis` (from A to B): a lower bound on their distance.
fn axis_separation<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized>(
    pa: &Posed<A>,
    pb: &Posed<B>,
    axis: Vec3,
) -> f32 {
    axis.dot(pb.support(-axis).1) - axis.dot(pa.support(axis).1)
}

/// Re-evaluates last step's axis, if it still names valid features.
fn cached_axis_separation<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized>(
    pa: &Posed<A>,
    pb: &Posed<B>,
    code: u32,
) -> Option<f32> {
    let index = (code & 0x3fff_ffff) as usize;
    match code >> 30 {
        CACHE_FACE_A if index < pa.poly.face_count() => Some(axis_separation(pa, pb, pa.normal(index))),
        CACHE_FACE_B if index < pb.poly.face_count() => Some(axis_separation(pa, pb, -pb.normal(index))),
        CACHE_EDGES => {
            let (ea, eb) = (index & 0x7fff, index >> 15);
            let (ea, eb) = (pa.poly.edges().get(ea)?, pb.poly.edges().get(eb)?);
            let da = pa.vertex(ea.vertices[1] as usize) - pa.vertex(ea.vertices[0] as usize);
            let db = pb.vertex(eb.vertices[1] as usize) - pb.vertex(eb.vertices[0] as usize);
            let axis = da.cross(db).try_normalize()?;
            // Either orientation is a valid axis; the larger separation is the better bound.
            Some(axis_separation(pa, pb, axis).max(axis_separation(pa, pb, -axis)))
        }
        _ => None,
    }
}

/// For each face of `p`, how far `q` lies in front of it (its deepest vertex against the plane);
/// the face with the largest value, first on ties.
fn face_query<P: Polyhedron + ?Sized, Q: Polyhedron + ?Sized>(p: &Posed<P>, q: &Posed<Q>) -> FaceQuery {
    let mut best = FaceQuery { separation: f32::MIN, face: 0 };
    for f in 0..p.poly.face_count() {
        let (n, d) = p.plane(f);
        let s = n.dot(q.support(-n).1) - d;
        if s > best.separation {
            best = FaceQuery { separation: s, face: f };
        }
    }
    best
}

/// One point midway between the closest points of the two edges, at the separation along the
/// edge axis; for a separated pair whose two edges end beyond `speculative`, the
/// [`closest_contact`] of the two shapes instead.
fn edge_contact<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized>(
    pa: &Posed<A>,
    pb: &Posed<B>,
    e: &EdgeQuery,
    speculative: f32,
) -> Manifold {
    let ea = &pa.poly.edges()[e.edge_a];
    let eb = &pb.poly.edges()[e.edge_b];
    let (_, _, ca, cb) = closest_segments(
        pa.vertex(ea.vertices[0] as usize),
        pa.vertex(ea.vertices[1] as usize),
        pb.vertex(eb.vertices[0] as usize),
        pb.vertex(eb.vertices[1] as usize),
    );
    let feature = feature::edges(
        feature::vertex_pair(ea.vertices[0], ea.vertices[1]),
        feature::vertex_pair(eb.vertices[0], eb.vertices[1]),
    );
    // Apart, the separation along the axis is only a lower bound on the edges' distance: two
    // edges whose lines pass close may end far from each other (a corner beside a corner), and
    // a point at the axis separation would be a speculative contact that is not there, which
    // carrying then keeps. When the edges themselves lie beyond reach, the exact closest
    // points decide.
    if e.separation > 0.0 && (cb - ca).length_squared() > speculative * speculative {
        return closest_contact(pa, pb, feature, speculative);
    }
    let mut m = Manifold { normal: e.axis, ..Manifold::default() };
    m.push(ManifoldPoint { position: (ca + cb) * 0.5, separation: e.separation, feature });
    m
}

/// Two separated polyhedra: one point (id `feature`) midway between their exact closest
/// points, normal from `p` to `q`, or none when they are farther apart than `speculative` (or
/// closer than 1e-7 m, where the direction between the points is lost to rounding).
/// The gap between the boxes around them bounds their distance from below and usually rules
/// the pair out without the exhaustive closest-pair search.
fn closest_contact<P: Polyhedron + ?Sized, Q: Polyhedron + ?Sized>(
    p: &Posed<P>,
    q: &Posed<Q>,
    feature: u32,
    speculative: f32,
) -> Manifold {
    let mut m = Manifold::default();
    if common_frame_bounds(p).distance(&common_frame_bounds(q)) > speculative {
        return m;
    }
    let (on_p, on_q, dist) = closest_pair(p, q);
    if dist <= speculative && dist > 1e-7 {
        m.normal = (on_q - on_p) / dist;
        m.push(ManifoldPoint { position: (on_p + on_q) * 0.5, separation: dist, feature });
    }
    m
}

/// Face contact: clip the incident face against the side planes of reference face `ref_face`,
/// keep points below the reference plane plus `speculative`, reduce to four.
fn face_contact<R: Polyhedron + ?Sized, I: Polyhedron + ?Sized>(
    r: &Posed<R>,
    ref_face: usize,
    inc: &Posed<I>,
    ref_is_b: bool,
    speculative: f32,
) -> Manifold {
    let (n, d) = r.plane(ref_face);
    let clipped = CLIP_SCRATCH
        .with_borrow_mut(|scratch| clip_face(r, ref_face, (n, d), inc, ref_is_b, speculative, scratch));
    clipped.unwrap_or_else(|| face_fallback(r, inc, n, d, ref_is_b, speculative))
}

/// The buffers of [`face_contact`], one set per thread: a clip polygon has room for any hull
/// face (about 2 KB), too much to clear, copy and swap on every call of a busy narrowphase.
struct ClipScratch {
    polygons: [ClipPolygon; 2],
    candidates: [ManifoldPoint; clip::CLIP_CAPACITY],
    /// The reference and incident face loops' vertices in the common frame, posed once per
    /// call: the side planes, the snap distance and the snapping of every clipped point read
    /// them, and posing a vertex again for each read was a few percent of a landing pile.
    ref_points: [Vec3; MAX_HULL_VERTICES],
    inc_points: [Vec3; MAX_HULL_VERTICES],
    /// The same points four to a lane group, for snapping each clipped point.
    ref_lanes: LoopLanes,
    inc_lanes: LoopLanes,
}

thread_local! {
    static CLIP_SCRATCH: std::cell::RefCell<ClipScratch> = std::cell::RefCell::new(ClipScratch {
        polygons: [ClipPolygon::default(); 2],
        candidates: [ManifoldPoint::default(); clip::CLIP_CAPACITY],
        ref_points: [Vec3::ZERO; MAX_HULL_VERTICES],
        inc_points: [Vec3::ZERO; MAX_HULL_VERTICES],
        ref_lanes: LoopLanes::EMPTY,
        inc_lanes: LoopLanes::EMPTY,
    });
}

/// The clipping of [`face_contact`]; `None` when no clipped point is within `speculative` of
/// the reference plane `(n, d)`.
fn clip_face<R: Polyhedron + ?Sized, I: Polyhedron + ?Sized>(
    r: &Posed<R>,
    ref_face: usize,
    (n, d): (Vec3, f32),
    inc: &Posed<I>,
    ref_is_b: bool,
    speculative: f32,
    scratch: &mut ClipScratch,
) -> Option<Manifold> {
    let ClipScratch { polygons: [first, second], candidates, ref_points, inc_points, ref_lanes, inc_lanes } =
        scratch;
    let inc_face = inc.incident_face(n);
    let inc_loop = inc.poly.face_loop(inc_face);
    let inc_points = &mut inc_points[..inc_loop.len()];
    inc_points.iter_mut().zip(inc_loop).for_each(|(p, &i)| *p = inc.vertex(i as usize));
    let ref_loop = r.poly.face_loop(ref_face);
    let ref_points = &mut ref_points[..ref_loop.len()];
    ref_points.iter_mut().zip(ref_loop).for_each(|(p, &i)| *p = r.vertex(i as usize));
    ref_lanes.fill(ref_points);
    inc_lanes.fill(inc_points);
    first.set_face_loop(inc_loop, |k, _| inc_points[k]);
    // Clip back and forth between the two buffers.
    let (mut poly, mut next) = (first, second);
    for k in 0..ref_loop.len() {
        let k1 = loop_next(k, ref_loop.len());
        let (i0, i1) = (ref_loop[k], ref_loop[k1]);
        let (v0, v1) = (ref_points[k], ref_points[k1]);
        // Outward side normal of a counter-clockwise loop.
        let side = (v1 - v0).cross(n);
        clip::clip_polygon(poly, side, side.dot(v0), clip::side_code(i0, i1), next);
        std::mem::swap(&mut poly, &mut next);
    }
    let boxes = r.poly.box_half_extents().zip(inc.poly.box_half_extents());
    let snap_sq = boxes
        .and_then(|(hr, hi)| boxes_snap_distance_sq(hr, hi))
        .unwrap_or_else(|| snap_distance_sq(ref_points, inc_points));
    let mut count = 0;
    for v in poly.vertices() {
        let s = n.dot(v.p) - d;
        if s <= speculative {
            // A's or B's vertex when the point sits on one (congruent faces), else the clip id.
            let near_ref = ref_lanes.near_vertex(ref_loop, v.p, n, snap_sq);
            let near_inc = inc_lanes.near_vertex(inc_loop, v.p, n, snap_sq);
            let (near_a, near_b) = if ref_is_b { (near_inc, near_ref) } else { (near_ref, near_inc) };
            let mut feature = match (near_a, near_b) {
                (Some(i), _) => feature::vertex(false, i),
                (None, Some(i)) => feature::vertex(true, i),
                (None, None) => clip::clip_vertex_id(v, ref_is_b),
            };
            // Two points near one vertex (a slightly twisted congruent face): the later one
            // keeps its clip id so ids within a manifold stay distinct.
            if candidates[..count].iter().any(|c| c.feature == feature) {
                feature = clip::clip_vertex_id(v, ref_is_b);
            }
            // Midway between the incident point and its projection on the reference plane.
            candidates[count] = ManifoldPoint { position: v.p - n * (0.5 * s), separation: s, feature };
            count += 1;
        }
    }
    if count == 0 {
        return None;
    }
    let normal = if ref_is_b { -n } else { n };
    let mut m = Manifold { normal, ..Manifold::default() };
    let mut out = [ManifoldPoint::default(); MAX_MANIFOLD_POINTS];
    m.count = reduce::reduce(&candidates[..count], n, &mut out);
    m.points = out;
    Some(m)
}

/// The SAT found the reference face within reach but clipping left nothing: the shapes only
/// meet (or approach) outside the face's prism. Apart, the exact closest points give one honest
/// speculative point with its own normal; overlapping (rare, numerical grazing), the incident
/// support point against the reference plane keeps the promised contact.
fn face_fallback<R: Polyhedron + ?Sized, I: Polyhedron + ?Sized>(
    r: &Posed<R>,
    inc: &Posed<I>,
    n: Vec3,
    d: f32,
    ref_is_b: bool,
    speculative: f32,
) -> Manifold {
    let (vi, p) = inc.support(-n);
    let s = n.dot(p) - d;
    let id = feature::vertex(!ref_is_b, vi as u16);
    if s > 0.0 {
        // Near but not facing (say, diagonal neighbours).
        let mut m = closest_contact(r, inc, id, speculative);
        if ref_is_b && m.count > 0 {
            m.normal = -m.normal;
        }
        return m;
    }
    let mut m = Manifold { normal: if ref_is_b { -n } else { n }, ..Manifold::default() };
    m.push(ManifoldPoint { position: p - n * (0.5 * s), separation: s, feature: id });
    m
}

/// The axis-aligned box, in the common frame, around a posed polyhedron's vertices.
fn common_frame_bounds<P: Polyhedron + ?Sized>(p: &Posed<P>) -> Aabb {
    let mut bounds = Aabb::new(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for v in 0..p.poly.vertex_count() {
        let x = p.vertex(v);
        bounds.min = bounds.min.min(x);
        bounds.max = bounds.max.max(x);
    }
    bounds
}

/// Exact closest points `(on_p, on_q, distance)` of two separated polyhedra, by brute force:
/// the closest pair is a vertex against the other shape, or an edge against an edge. It runs on
/// the fallback path, which is not rare in a tumbling pile (neighbours near but not facing), so
/// boxes take the closed-form closest point and edge pairs whose boxes are already farther
/// apart than the best pair are skipped.
pub(super) fn closest_pair<P: Polyhedron + ?Sized, Q: Polyhedron + ?Sized>(
    p: &Posed<P>,
    q: &Posed<Q>,
) -> (Vec3, Vec3, f32) {
    // Both shapes' vertices in the common frame, once (hulls have at most 64).
    let mut pv = [Vec3::ZERO; MAX_HULL_VERTICES];
    let mut qv = [Vec3::ZERO; MAX_HULL_VERTICES];
    let (np, nq) = (p.poly.vertex_count(), q.poly.vertex_count());
    (0..np).for_each(|i| pv[i] = p.vertex(i));
    (0..nq).for_each(|i| qv[i] = q.vertex(i));
    let mut best = (Vec3::ZERO, Vec3::ZERO, f32::MAX);
    let consider = |best: &mut (Vec3, Vec3, f32), a: Vec3, b: Vec3| {
        let dist = (b - a).length();
        if dist < best.2 {
            *best = (a, b, dist);
        }
    };
    for &v in &pv[..np] {
        let c = closest_on_polyhedron(q.poly, q.to_local_point(v));
        consider(&mut best, v, q.to_common_point(c.on_poly));
    }
    for &v in &qv[..nq] {
        let c = closest_on_polyhedron(p.poly, p.to_local_point(v));
        consider(&mut best, p.to_common_point(c.on_poly), v);
    }
    // Q's box in the common frame: an edge of P farther from it than the best pair is from
    // every edge of Q too (each of their boxes lies inside it, and the gaps round the same way
    // as the exact ones do, monotonically), so its edges are skipped as the test below would
    // skip each of them: the same pairs are measured, and the same pair wins.
    let q_bounds = qv[..nq].iter().fold(Aabb::new(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |b, &v| {
        Aabb::new(b.min.min(v), b.max.max(v))
    });
    for ep in p.poly.edges() {
        let (a0, a1) = (pv[ep.vertices[0] as usize], pv[ep.vertices[1] as usize]);
        let (lo, hi) = (a0.min(a1), a0.max(a1));
        let gap_to_q = (q_bounds.min - hi).max(lo - q_bounds.max).max(Vec3::ZERO);
        if gap_to_q.length_squared() >= best.2 * best.2 {
            continue;
        }
        for eq in q.poly.edges() {
            let (b0, b1) = (qv[eq.vertices[0] as usize], qv[eq.vertices[1] as usize]);
            // The gap between the two edges' boxes bounds their distance from below.
            let gap = (b0.min(b1) - hi).max(lo - b0.max(b1)).max(Vec3::ZERO);
            if gap.length_squared() >= best.2 * best.2 {
                continue;
            }
            let (_, _, a, b) = closest_segments(a0, a1, b0, b1);
            consider(&mut best, a, b);
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::super::edge_search::{EdgeSet, box_edge_axis, edge_query};
    use super::*;
    use crate::shape::HullEdge;

    /// [`box_edge_separations`] one pair of directions at a time: the form the lanes are held
    /// to, bit for bit.
    fn box_edge_separations_one_by_one(ha: Vec3, hb: Vec3, r: &Mat3, t: Vec3) -> [[f32; 3]; 3] {
        // m[i][j] = R[i][j], and its absolute values.
        let cols = [r.x_axis, r.y_axis, r.z_axis];
        let m = |i: usize, j: usize| cols[j][i];
        let mut out = [[0.0; 3]; 3];
        for (i, row) in out.iter_mut().enumerate() {
            let (i1, i2) = ((i + 1) % 3, (i + 2) % 3);
            let across = (t[i1] * t[i1] + t[i2] * t[i2]).sqrt();
            let parallel_bound = across - ha[i1].min(ha[i2]) - hb.min_element();
            for (j, s) in row.iter_mut().enumerate() {
                let (j1, j2) = ((j + 1) % 3, (j + 2) % 3);
                let (l1, l2) = (-m(i2, j), m(i1, j));
                let len_sq = l1 * l1 + l2 * l2;
                *s = if len_sq < PARALLEL_SQ {
                    parallel_bound
                } else {
                    let ra = ha[i1] * l1.abs() + ha[i2] * l2.abs();
                    let rb = hb[j1] * m(i, j2).abs() + hb[j2] * m(i, j1).abs();
                    ((l1 * t[i1] + l2 * t[i2]).abs() - ra - rb) / len_sq.sqrt()
                };
            }
        }
        out
    }

    /// The four-lane edge bounds are the one-by-one form's bits, for random sizes and poses,
    /// parallel and nearly parallel edges included.
    #[test]
    fn the_lanes_bound_the_edges_as_one_by_one() {
        let mut next = super::super::uniform(17);
        for round in 0..2000 {
            let ha = Vec3::new(0.05 + next(), 0.05 + next(), 0.05 + next());
            let hb = Vec3::new(0.05 + next(), 0.05 + next(), 0.05 + next());
            let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
            // A third of the poses turn about an axis of A by a small angle or none.
            let angle = if round % 3 == 0 { 0.01 * next() * (round % 2) as f32 } else { 6.0 * next() };
            let axis = if round % 3 == 0 { [Vec3::X, Vec3::Y, Vec3::Z][round % 9 / 3] } else { axis };
            let r = Mat3::from_quat(crate::math::Quat::from_axis_angle(axis, angle));
            let t = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 4.0;
            let bits = |m: [[f32; 3]; 3]| m.map(|row| row.map(f32::to_bits));
            assert_eq!(
                bits(box_edge_separations(ha, hb, &r, t)),
                bits(box_edge_separations_one_by_one(ha, hb, &r, t)),
                "round {round}"
            );
        }
    }

    /// The manifold of two copies of `shape`, one at the origin and one at `xb`.
    fn same_shapes<P: Polyhedron + ?Sized>(shape: &P, xb: &Transform, speculative: f32) -> Manifold {
        collide_polyhedra(shape, &Transform::IDENTITY, shape, xb, speculative, &mut CollideCache::default())
    }

    /// A box's incident face in closed form is the one the scan over its faces finds, ties
    /// included: directions along the axes, on the diagonals between them, and at random.
    #[test]
    fn a_box_finds_the_face_the_scan_finds() {
        use super::super::polytope::BoxPoly;
        let half = Vec3::new(0.3, 0.5, 0.7);
        let (cube, hull) = (BoxPoly::new(half), crate::shape::ConvexHull::cuboid(half));
        let mut next = super::super::uniform(7);
        let mut directions: Vec<Vec3> = Vec::new();
        for x in -1..=1 {
            for y in -1..=1 {
                for z in -1..=1 {
                    directions.push(Vec3::new(x as f32, y as f32, z as f32));
                }
            }
        }
        directions.extend((0..2000).map(|_| Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5)));
        for n in directions.into_iter().filter(|n| *n != Vec3::ZERO) {
            // The one-by-one scan, over the hull with the box's numbering.
            let scan = (0..6).fold((0, f32::MAX), |best, f| {
                let d = hull.faces()[f].normal.dot(n);
                if d < best.1 { (f, d) } else { best }
            });
            assert_eq!(cube.most_opposed_face(n), scan.0, "{n}");
            assert_eq!(hull.most_opposed_face(n), scan.0, "{n}");
        }
    }

    /// Two boxes within the speculative distance along each face axis but farther apart than it
    /// corner to corner get no manifold, even where an edge pair's separation along its axis is
    /// within reach; nearer, they get one at their distance, along the line between them. And
    /// the box bound behind that never exceeds the exact distance.
    #[test]
    fn boxes_apart_diagonally_have_no_manifold() {
        use super::super::polytope::BoxPoly;
        use crate::math::Quat;
        let (cube, speculative) = (BoxPoly::new(Vec3::splat(0.5)), 0.02);
        let collide = |position: Vec3, rotation: Quat| {
            let xb = Transform::new(position, rotation);
            same_shapes(&cube, &xb, speculative)
        };
        // Corner to corner, gaps of 10 to 16 mm along the three axes, slightly turned: 24.6 mm
        // apart, while the edge pair along the diagonal is 18.9 mm apart along its axis.
        let turned = Quat::from_xyzw(0.000_118_2, -0.000_165_2, 0.000_024_6, 1.0).normalize();
        let m = collide(Vec3::new(1.009_87, -1.016_23, 1.016_24), turned);
        assert_eq!(m.count, 0, "{m:?}");
        // Edge to edge, gaps of 16 mm along x and z: 22.6 mm apart.
        assert_eq!(collide(Vec3::new(1.016, 0.0, 1.016), Quat::IDENTITY).count, 0);
        // 16 mm and 4 mm: 16.5 mm apart, within reach.
        let m = collide(Vec3::new(1.016, 0.0, 1.004), Quat::IDENTITY);
        assert!(m.count > 0);
        assert!(m.points().iter().all(|p| (p.separation - 0.0165).abs() < 1e-3), "{m:?}");
        let between = Vec3::new(0.016, 0.0, 0.004).normalize();
        assert!(m.normal.dot(between) > 0.99, "normal {} from A to B", m.normal);

        let mut next = super::super::uniform(11);
        let mut separated = 0;
        for case in 0..2000 {
            let ha = Vec3::new(0.2 + next(), 0.2 + next(), 0.2 + next());
            let hb = Vec3::new(0.2 + next(), 0.2 + next(), 0.2 + next());
            let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
            let relative = Transform::new(
                Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 6.0,
                Quat::from_axis_angle(axis, next() * 6.3),
            );
            let (a, b) = (BoxPoly::new(ha), BoxPoly::new(hb));
            let (pa, pb) = (Posed::new(&a, Transform::IDENTITY), Posed::new(&b, relative));
            if face_query(&pa, &pb).separation <= 0.0 && face_query(&pb, &pa).separation <= 0.0 {
                continue;
            }
            // Separated along a face axis: the exact distance is the closest pair's.
            separated += 1;
            let bound = box_bounds_distance(ha, hb, &Mat3::from_quat(relative.rotation), relative.position);
            let (.., exact) = closest_pair(&pa, &pb);
            assert!(bound <= exact + 1e-4, "case {case}: bound {bound} over the distance {exact}");
        }
        assert!(separated > 500, "only {separated} separated poses");
    }

    /// The box bound from the boxes' world axes (the quick check's records) rules out every
    /// pair the one from their poses does, but for pairs within the rounding margin of the
    /// reach, and more (those apart along one of B's faces); and a pair it rules out gets no
    /// point from the collision: random boxes of 2 cm to 2.4 m at random poses, a third of them
    /// a kilometre from the world's origin.
    #[test]
    fn box_bound_from_axes_agrees_with_the_poses() {
        use super::super::polytope::BoxPoly;
        use crate::math::Quat;
        let mut next = super::super::uniform(29);
        let (mut ruled_out, mut near_reach, mut only_by_axes) = (0, 0, 0);
        for case in 0..6000 {
            let mut half = || Vec3::new(0.01 + 1.2 * next(), 0.01 + 1.2 * next(), 0.01 + 1.2 * next());
            let (ha, hb) = (half(), half());
            let far = if case % 3 == 0 { Vec3::new(900.0, -300.0, 450.0) } else { Vec3::ZERO };
            let mut pose = || {
                let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
                let position = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 3.0 + far;
                Transform::new(position, Quat::from_axis_angle(axis, next() * 6.3))
            };
            let (xa, xb) = (pose(), pose());
            let speculative = 0.02 + 0.1 * next();
            let by_poses = boxes_out_of_reach(ha, &xa, hb, &xb, speculative);
            let by_axes = boxes_out_of_reach_by_axes(
                ha.into(),
                &Mat3A::from_quat(xa.rotation),
                xa.position.into(),
                hb.into(),
                &Mat3A::from_quat(xb.rotation),
                xb.position.into(),
                speculative,
            );
            if by_axes {
                ruled_out += 1;
                let m = collide_polyhedra(
                    &BoxPoly::new(ha),
                    &xa,
                    &BoxPoly::new(hb),
                    &xb,
                    speculative,
                    &mut CollideCache::default(),
                );
                assert_eq!(m.count, 0, "case {case}: ruled out, yet {m:?}");
            }
            only_by_axes += usize::from(by_axes && !by_poses);
            if by_poses && !by_axes {
                // Only where the bound lies within the rounding margin of the reach.
                let relative = xa.inverse_mul(&xb);
                let gap = box_bounds_distance(ha, hb, &Mat3::from_quat(relative.rotation), relative.position);
                let margin = BOX_REACH_ROUNDING * (1.0 + relative.position.length());
                assert!(
                    (gap - speculative).abs() <= 2.0 * margin,
                    "case {case}: {gap} against {speculative}"
                );
                near_reach += 1;
            }
        }
        assert!(ruled_out > 1500, "only {ruled_out} pairs ruled out");
        assert!(near_reach < 10, "{near_reach} verdicts differ");
        assert!(only_by_axes > 100, "only {only_by_axes} pairs ruled out by B's side alone");
    }

    /// The box bound of four pairs in lanes gives each lane the verdict of the one-pair form:
    /// over 8000 random pairs of boxes from 1 cm to 2.4 m, some a kilometre out, each at a
    /// speculative distance drawn round the bound's own gap (so the verdicts go both ways, and
    /// some lie within rounding of the reach), lanes filled in every order.
    #[test]
    fn the_lanes_bound_boxes_as_one_by_one() {
        use crate::math::Quat;
        let mut next = super::super::uniform(31);
        let mut apart = 0;
        for group in 0..2000 {
            let far = if group % 3 == 0 { Vec3::new(-700.0, 250.0, 900.0) } else { Vec3::ZERO };
            let mut pairs = Vec::new();
            for _ in 0..4 {
                let mut half = || Vec3::new(0.01 + 1.2 * next(), 0.01 + 1.2 * next(), 0.01 + 1.2 * next());
                let (ha, hb) = (half(), half());
                let mut pose = || {
                    let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
                    let position = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 4.0 + far;
                    (Mat3A::from_quat(Quat::from_axis_angle(axis, next() * 6.3)), Vec3A::from(position))
                };
                let ((axes_a, pa), (axes_b, pb)) = (pose(), pose());
                // The gap the bound finds, then a speculative distance about it.
                let gap = |speculative: f32| {
                    boxes_out_of_reach_by_axes(ha.into(), &axes_a, pa, hb.into(), &axes_b, pb, speculative)
                };
                let (mut low, mut high) = (0.0f32, 10.0f32);
                for _ in 0..30 {
                    let mid = 0.5 * (low + high);
                    if gap(mid) { low = mid } else { high = mid }
                }
                let speculative = match group % 4 {
                    0 => low,
                    1 => high,
                    _ => (low + (next() - 0.5) * 0.2).max(0.0),
                };
                pairs.push((ha, axes_a, pa, hb, axes_b, pb, speculative));
            }
            let lanes = |side: usize| {
                let pick = |k: usize| {
                    let p = pairs[k];
                    if side == 0 { (p.0, p.1, p.2) } else { (p.3, p.4, p.5) }
                };
                let lane = |get: &dyn Fn(usize) -> f32| f32x4::new([get(0), get(1), get(2), get(3)]);
                BoxLanes {
                    half_extents: std::array::from_fn(|i| lane(&|k| pick(k).0[i])),
                    axes: std::array::from_fn(|c| std::array::from_fn(|i| lane(&|k| pick(k).1.col(c)[i]))),
                    centre: std::array::from_fn(|i| lane(&|k| pick(k).2[i])),
                }
            };
            let speculative = f32x4::new(std::array::from_fn(|k| pairs[k].6));
            let verdicts = boxes_out_of_reach_by_axes_four(&lanes(0), &lanes(1), speculative);
            for (k, &(ha, axes_a, pa, hb, axes_b, pb, s)) in pairs.iter().enumerate() {
                let one = boxes_out_of_reach_by_axes(ha.into(), &axes_a, pa, hb.into(), &axes_b, pb, s);
                assert_eq!(verdicts >> k & 1 != 0, one, "group {group}, lane {k}");
                apart += usize::from(one);
            }
        }
        assert!(apart > 2000 && apart < 6000, "{apart} of 8000 pairs ruled out");
    }

    /// Cubes as hulls (no box shortcut) corner to corner and edge to edge, slightly turned,
    /// a few centimetres apart: a pair farther apart than the speculative distance, by its
    /// exact closest points, gets no manifold, even where an edge pair's lines pass within reach
    /// while the edges end farther apart; a pair within reach gets points, the nearest within a
    /// few millimetres of its distance, with the normal from A to B.
    #[test]
    fn hulls_beyond_reach_have_no_manifold() {
        use crate::math::Quat;
        use crate::shape::ConvexHull;
        let cube = ConvexHull::cuboid(Vec3::splat(0.5));
        assert!(cube.box_half_extents().is_none(), "a hull takes the general path");
        let speculative = 0.02;
        let mut next = super::super::uniform(5);
        let (mut beyond, mut near) = (0, 0);
        for case in 0..20000 {
            // Gaps up to 2 cm along each axis, one axis overlapping in half the cases.
            let gaps = Vec3::new(next(), next(), next()) * 0.02;
            let mut offset = Vec3::ONE + gaps;
            let axis = (next() * 3.0) as usize % 3;
            if next() < 0.5 {
                offset[axis] = next();
            }
            let signs = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).signum();
            let turn_axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
            let xb = Transform::new(offset * signs, Quat::from_axis_angle(turn_axis, (next() - 0.5) * 0.01));
            let m = same_shapes(&cube, &xb, speculative);
            let (pa, pb) = (Posed::new(&cube, Transform::IDENTITY), Posed::new(&cube, xb));
            let separated = face_query(&pa, &pb).separation > 0.0
                || face_query(&pb, &pa).separation > 0.0
                || edge_query(&pa, &pb, |_| 0..cube.edges().len()).is_some_and(|e| e.separation > 0.0);
            if !separated {
                continue;
            }
            let (.., distance) = closest_pair(&pa, &pb);
            if distance > speculative + 1e-4 {
                beyond += 1;
                assert_eq!(m.count, 0, "case {case}: {distance} apart, {m:?}");
            } else if distance < speculative - 1e-4 {
                near += 1;
                assert!(m.count > 0, "case {case}: {distance} apart, no points");
                let nearest = m.points().iter().map(|p| p.separation).fold(f32::MAX, f32::min);
                // A face contact's points sit on the reference face's prism, a few millimetres
                // farther than the closest points when the faces are slightly turned.
                assert!(nearest <= distance + 5e-3, "case {case}: {distance} apart, {m:?}");
                assert!(m.normal.dot(xb.position) > 0.0, "case {case}: {m:?}");
            }
        }
        assert!(beyond > 1000 && near > 1000, "{beyond} beyond reach, {near} near with points");
    }

    #[test]
    fn box_closed_forms_agree_with_the_searches() {
        use super::super::polytope::BoxPoly;
        use crate::math::Quat;
        let mut next = super::super::uniform(7);
        let (mut checked, mut sets_compared) = (0, 0);
        for case in 0..4000 {
            let ha = Vec3::new(0.2 + next(), 0.2 + next(), 0.2 + next());
            let hb = Vec3::new(0.2 + next(), 0.2 + next(), 0.2 + next());
            let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
            // Every fourth pose is nearly aligned (the resting case), the rest arbitrary.
            let angle = if case % 4 == 0 { (next() - 0.5) * 0.02 } else { next() * 6.3 };
            let position = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 5.0;
            let relative = Transform::new(position, Quat::from_axis_angle(axis, angle));
            let (a, b) = (BoxPoly::new(ha), BoxPoly::new(hb));
            let pa = Posed::new(&a, Transform::IDENTITY);
            let pb = Posed::new(&b, relative);
            // The closed-form face queries agree with the search (a different face only in a
            // tie, where both faces separate the same).
            let r = Mat3::from_quat(relative.rotation);
            let (fa, fb) = box_face_queries(ha, hb, &r, relative.position);
            // Bit for bit what the same formula gives with the faces' normals multiplied out.
            let columns = [r.x_axis, r.y_axis, r.z_axis];
            let width_b = columns[0].abs() * hb.x + columns[1].abs() * hb.y + columns[2].abs() * hb.z;
            let width_a =
                Vec3::new(columns[0].abs().dot(ha), columns[1].abs().dot(ha), columns[2].abs().dot(ha));
            let a_from_b = -Vec3::new(
                columns[0].dot(relative.position),
                columns[1].dot(relative.position),
                columns[2].dot(relative.position),
            );
            for (closed, poly, offset, own, other) in
                [(fa, &a, relative.position, ha, width_b), (fb, &b, a_from_b, hb, width_a)]
            {
                let mut multiplied = (f32::MIN, 0);
                for f in 0..poly.face_count() {
                    let n = poly.face_plane(f).0;
                    let s = n.dot(offset) - n.abs().dot(own) - n.abs().dot(other);
                    if s > multiplied.0 {
                        multiplied = (s, f);
                    }
                }
                assert_eq!(
                    (closed.separation.to_bits(), closed.face),
                    (multiplied.0.to_bits(), multiplied.1)
                );
            }
            for (closed, searched, own) in [(fa, face_query(&pa, &pb), &pa), (fb, face_query(&pb, &pa), &pb)]
            {
                assert!((closed.separation - searched.separation).abs() < 1e-4, "case {case}");
                if closed.face != searched.face {
                    let (n, d) = own.plane(closed.face);
                    let other = if std::ptr::eq(own, &pa) { &pb } else { &pa };
                    let s = n.dot(other.support(-n).1) - d;
                    assert!(
                        (s - searched.separation).abs() < 1e-4,
                        "case {case}: face {} vs {}",
                        closed.face,
                        searched.face
                    );
                }
            }
            // Trying each edge of B against A's edges along the kept directions only finds the
            // very edge pair the search over all pairs, skipping the others, found: the same
            // order, so the same pair on ties.
            let bounds = box_edge_separations(ha, hb, &r, relative.position);
            let keep = bounds.map(|row| row.map(|s| s >= next() - 0.5));
            let along = box_edges_along();
            let tried: [u16; 3] =
                std::array::from_fn(|j| (0..3).filter(|&i| keep[i][j]).fold(0, |set, i| set | along[i]));
            let by_sets = edge_query(&pa, &pb, |eb| EdgeSet(tried[box_edge_axis(eb)]));
            let filtered = edge_query(&pa, &pb, |eb| {
                let j = box_edge_axis(eb);
                (0..a.edges().len()).filter(move |&ia| keep[box_edge_axis(&a.edges()[ia])][j])
            });
            let key = |e: Option<EdgeQuery>| {
                e.map(|e| (e.edge_a, e.edge_b, e.separation.to_bits(), e.axis.to_array().map(f32::to_bits)))
            };
            assert_eq!(key(by_sets), key(filtered), "case {case}");
            // The box search finds it too, bit for bit.
            assert_eq!(key(box_edge_query(&pa, &pb, tried)), key(by_sets), "case {case}");
            sets_compared += usize::from(by_sets.is_some());
            // Every edge pair's separation is within its directions' bound.
            for (ia, ea) in a.edges().iter().enumerate() {
                for eb in b.edges() {
                    let only = |y: &HullEdge| std::ptr::eq(y, eb).then_some(ia).into_iter();
                    if let Some(e) = edge_query(&pa, &pb, only) {
                        let bound = bounds[box_edge_axis(ea)][box_edge_axis(eb)];
                        let margin = EDGE_BOUND_MARGIN * (1.0 + position.length()) * 0.2;
                        assert!(
                            bound >= e.separation - margin,
                            "case {case}: bound {bound} < {}",
                            e.separation
                        );
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 10_000);
        assert!(sets_compared > 1_000, "{sets_compared}");
    }
}
