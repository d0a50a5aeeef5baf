//! Naming a clipped contact point after the face vertex it sits on, so that its feature id
//! (and with it the point's warm-started impulse) survives sub-millimetre jitter where two
//! faces are congruent and aligned.

use super::polytope::loop_next;
use crate::math::Vec3;
use crate::shape::MAX_HULL_VERTICES;
use wide::f32x4;

/// Points closer than this to a face vertex are named after that vertex. Where two faces are
/// congruent and aligned (identical boxes stacked), each corner of the patch is at once a vertex
/// of A, a vertex of B and an edge crossing, and which one clipping reports depends on sub-
/// millimetre jitter; naming it by the vertex it sits on keeps its id.
const SNAP_DISTANCE: f32 = 0.01;

/// The squared snap distance for these faces (their loops' vertices in the common frame):
/// [`SNAP_DISTANCE`], or less on faces with short edges so two corners of one face never snap
/// to the same vertex.
pub(super) fn snap_distance_sq(ref_points: &[Vec3], inc_points: &[Vec3]) -> f32 {
    let shortest = |pts: &[Vec3]| {
        (0..pts.len())
            .map(|k| (pts[loop_next(k, pts.len())] - pts[k]).length_squared())
            .fold(f32::MAX, f32::min)
    };
    let edge_sq = shortest(ref_points).min(shortest(inc_points));
    (SNAP_DISTANCE * SNAP_DISTANCE).min(0.0625 * edge_sq)
}

/// Smallest half extent from which a box's faces always get the whole [`SNAP_DISTANCE`]: its
/// shortest edge, twice that, then has `0.0625 × edge² ≥ 1.56 × SNAP_DISTANCE²`. A posed edge's
/// length rounds by parts in ten million of the vertices' coordinates in A's frame (not of the
/// edge), so that margin holds for boxes kilometres from A's centre: at 2 km a 5 cm edge is
/// off by under a millimetre, where the margin is a centimetre.
const FULL_SNAP_HALF_EXTENT: f32 = 0.025;

/// [`snap_distance_sq`] of two boxes' faces, known without posing their edges when neither
/// box has a half extent below [`FULL_SNAP_HALF_EXTENT`] (`None` otherwise): the same bits,
/// since the shorter edges' bound then never wins the `min`. Measuring the faces' eight edges
/// was about 2 % of a tumbling pile of boxes' instructions.
pub(super) fn boxes_snap_distance_sq(half_a: Vec3, half_b: Vec3) -> Option<f32> {
    (half_a.min_element().min(half_b.min_element()) >= FULL_SNAP_HALF_EXTENT)
        .then_some(SNAP_DISTANCE * SNAP_DISTANCE)
}

/// The vertex of loop `lp` (its positions `points` in the common frame) nearest to `p` if
/// within the snap distance (first on ties), measured across the normal `n` so the
/// penetration depth does not count. [`LoopLanes::near_vertex`] finds the same vertex four at
/// a time; this is what the tests hold it to.
#[cfg(test)]
fn near_vertex(lp: &[u16], points: &[Vec3], p: Vec3, n: Vec3, snap_sq: f32) -> Option<u16> {
    let mut best = None;
    let mut best_sq = snap_sq;
    for (&i, &vertex) in lp.iter().zip(points) {
        let off = vertex - p;
        let d = (off - n * n.dot(off)).length_squared();
        if d < best_sq {
            best_sq = d;
            best = Some(i);
        }
    }
    best
}

/// A face loop's vertices in the common frame, four to a lane group (x, y and z apart), for
/// snapping the clipped points: each of a face contact's (up to eight) points looks for a
/// vertex of both faces near it, and one scalar scan per point and face was a sixth of the
/// clipping's work.
pub(super) struct LoopLanes {
    groups: [[f32x4; 3]; LANE_GROUPS],
    len: usize,
}

impl LoopLanes {
    pub(super) const EMPTY: LoopLanes = LoopLanes { groups: [[f32x4::ZERO; 3]; LANE_GROUPS], len: 0 };

    /// Takes the loop's points, in loop order.
    pub(super) fn fill(&mut self, points: &[Vec3]) {
        self.len = points.len();
        for (group, four) in self.groups.iter_mut().zip(points.chunks(4)) {
            let at = |k: usize| four.get(k).copied().unwrap_or(Vec3::ZERO);
            let (p, q, r, s) = (at(0), at(1), at(2), at(3));
            *group = [
                f32x4::new([p.x, q.x, r.x, s.x]),
                f32x4::new([p.y, q.y, r.y, s.y]),
                f32x4::new([p.z, q.z, r.z, s.z]),
            ];
        }
    }

    /// The vertex of loop `lp` (these lanes' points) nearest to `p` if within the snap
    /// distance (first on ties), measured across the normal `n` so the penetration depth does
    /// not count. The lanes compute the scalar test's products and sums in its order (`off −
    /// n (n · off)`, dot products summed as glam does, no fused multiply-add), so the distances
    /// are the same bits; only the lanes that pass the snap distance are scanned, in order.
    #[inline]
    pub(super) fn near_vertex(&self, lp: &[u16], p: Vec3, n: Vec3, snap_sq: f32) -> Option<u16> {
        let (px, py, pz) = (f32x4::splat(p.x), f32x4::splat(p.y), f32x4::splat(p.z));
        let (nx, ny, nz) = (f32x4::splat(n.x), f32x4::splat(n.y), f32x4::splat(n.z));
        let limit = f32x4::splat(snap_sq);
        let mut best = None;
        let mut best_sq = snap_sq;
        for (g, [x, y, z]) in self.groups[..self.len.div_ceil(4)].iter().enumerate() {
            let (ox, oy, oz) = (*x - px, *y - py, *z - pz);
            let along = nx * ox + ny * oy + nz * oz;
            let (qx, qy, qz) = (ox - nx * along, oy - ny * along, oz - nz * along);
            let d = qx * qx + qy * qy + qz * qz;
            // Lanes past the loop's end hold zero vectors: masked off.
            let live = (1u32 << (self.len - 4 * g).min(4)) - 1;
            let mut close = d.simd_lt(limit).to_bitmask() & live;
            if close == 0 {
                continue;
            }
            let d = d.to_array();
            while close != 0 {
                let lane = close.trailing_zeros() as usize;
                close &= close - 1;
                if d[lane] < best_sq {
                    best_sq = d[lane];
                    best = Some(lp[4 * g + lane]);
                }
            }
        }
        best
    }
}

/// Lane groups for the longest face loop: one per four vertices.
const LANE_GROUPS: usize = MAX_HULL_VERTICES.div_ceil(4);

#[cfg(test)]
mod tests {
    use super::*;

    /// Two boxes' faces get the snap distance their posed edges give, from the smallest half
    /// extent the shortcut takes on (and the shortcut declines below it): random sizes and
    /// poses, up to 2 km apart, every pair of faces.
    #[test]
    fn two_boxes_snap_as_their_posed_faces_do() {
        use super::super::polytope::{BoxPoly, Polyhedron, Posed};
        use crate::math::{Quat, Transform};
        let mut next = super::super::uniform(5);
        let (mut taken, mut declined) = (0, 0);
        for round in 0..400 {
            let size = |next: &mut dyn FnMut() -> f32| {
                let smallest = if round % 4 == 0 { FULL_SNAP_HALF_EXTENT } else { 0.005 + 0.05 * next() };
                Vec3::new(smallest, smallest + 2.0 * next(), smallest + 0.3 * next())
            };
            let (ha, hb) = (size(&mut next), size(&mut next));
            let axis = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::X);
            // Some poses kilometres away: the posed edges round by parts of the coordinates.
            let reach = if round % 5 == 0 { 4000.0 } else { 3.0 };
            let pose = Transform {
                position: Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * reach,
                rotation: Quat::from_axis_angle(axis, 6.0 * next()),
            };
            let (a, b) = (BoxPoly::new(ha), BoxPoly::new(hb));
            let (pa, pb) = (Posed::at_identity(&a), Posed::new(&b, pose));
            let shortcut = boxes_snap_distance_sq(ha, hb);
            for (fa, fb) in (0..6).flat_map(|fa| (0..6).map(move |fb| (fa, fb))) {
                let ref_points: Vec<Vec3> = a.face_loop(fa).iter().map(|&i| pa.vertex(i as usize)).collect();
                let inc_points: Vec<Vec3> = b.face_loop(fb).iter().map(|&i| pb.vertex(i as usize)).collect();
                if let Some(snap_sq) = shortcut {
                    let posed = snap_distance_sq(&ref_points, &inc_points);
                    assert_eq!(snap_sq.to_bits(), posed.to_bits(), "{ha} {hb}, faces {fa} {fb}");
                }
            }
            if shortcut.is_some() {
                taken += 1
            } else {
                declined += 1
            }
            assert_eq!(shortcut.is_some(), ha.min_element().min(hb.min_element()) >= FULL_SNAP_HALF_EXTENT);
        }
        assert!(taken > 100 && declined > 100, "{taken} taken, {declined} declined");
    }

    /// The four-lane snapping finds the vertex the scalar scan finds, for loops of every length
    /// up to a hull's largest, points on, near and away from the vertices, and ties.
    #[test]
    fn the_lanes_snap_to_the_vertex_the_scalar_scan_finds() {
        let mut next = super::super::uniform(11);
        let (mut snapped, mut cases) = (0, 0);
        for len in 1..=MAX_HULL_VERTICES {
            let ids: Vec<u16> = (0..len as u16).map(|i| 3 * i + 1).collect();
            for round in 0..40 {
                let mut points: Vec<Vec3> =
                    (0..len).map(|_| Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 4.0).collect();
                if round % 5 == 0 && len > 1 {
                    // A repeated vertex: the first must win the tie.
                    points[len - 1] = points[0];
                }
                let mut lanes = LoopLanes::EMPTY;
                lanes.fill(&points);
                let n = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Z);
                let near = points[(next() * len as f32) as usize % len];
                let p = match round % 3 {
                    0 => near,
                    1 => near + Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 0.02,
                    _ => Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 4.0,
                };
                let snap_sq = if round % 7 == 0 { 1.0 } else { 1e-4 };
                let scalar = near_vertex(&ids, &points, p, n, snap_sq);
                assert_eq!(lanes.near_vertex(&ids, p, n, snap_sq), scalar, "loop of {len}, round {round}");
                snapped += usize::from(scalar.is_some());
                cases += 1;
            }
        }
        assert!(snapped > cases / 3 && snapped < cases, "{snapped} of {cases}");
    }
}
