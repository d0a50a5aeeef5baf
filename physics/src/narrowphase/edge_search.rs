//! The edge–edge axes of the separating-axis test between polyhedra: which pairs of edges can
//! hold the axis of least penetration (a Gauss-map test on their faces' normals), and the
//! search for the pair that separates the shapes most along its axis.
//!
//! Two searches give the same pair, separation and axis, bit for bit, as the plain scan over
//! every pair (`edge_query`, kept for the tests): [`box_edge_query`] for two boxes, which tries
//! only the edge directions a closed-form bound keeps, and [`hull_edge_query`] for the rest.
//! Both work in A's frame (A posed at the identity), so A's data is read as stored.

use super::polytope::{BoxPoly, Polyhedron, Posed};
use crate::math::Vec3;
use crate::shape::HullEdge;
use std::sync::OnceLock;
use wide::f32x4;

/// The best edge–edge axis.
#[derive(Clone, Copy, Debug)]
pub(super) struct EdgeQuery {
    pub(super) separation: f32,
    pub(super) edge_a: usize,
    pub(super) edge_b: usize,
    pub(super) axis: Vec3,
}

/// The axis (0 = x, 1 = y, 2 = z) a box edge runs along: its end vertices differ in that bit of
/// their index (see [`super::polytope::BoxPoly`]).
pub(super) fn box_edge_axis(edge: &HullEdge) -> usize {
    (edge.vertices[0] ^ edge.vertices[1]).trailing_zeros() as usize
}

/// Per axis, the set of a box's edges (bit `k` for edge `k` of [`BoxPoly`]) that run along it.
pub(super) fn box_edges_along() -> [u16; 3] {
    BoxArcs::get().along
}

/// A set of at most 16 edge indices, visited in ascending order.
pub(super) struct EdgeSet(pub(super) u16);

impl Iterator for EdgeSet {
    type Item = usize;

    fn next(&mut self) -> Option<usize> {
        (self.0 != 0).then(|| {
            let k = self.0.trailing_zeros() as usize;
            self.0 &= self.0 - 1;
            k
        })
    }
}

/// Four of A's arcs, one per lane (x, y and z of each vector apart), for the first two signs of
/// [`GaussArc::crosses`] on four pairs at once. The lanes compute what the scalar test does
/// (the same products and sums in the same order, no fused multiply-add). A group of fewer
/// than four fills its missing lanes with zero vectors and masks them off (`live`): against
/// a NaN arc their products would pass as a real lane's do.
#[derive(Clone, Copy, Debug)]
struct ArcLanes {
    from: [f32x4; 3],
    to: [f32x4; 3],
    plane: [f32x4; 3],
    /// Bit `k` set: lane `k` holds an arc.
    live: u32,
}

impl ArcLanes {
    fn new(arcs: &[GaussArc]) -> ArcLanes {
        let lanes = |v: fn(&GaussArc) -> Vec3| {
            let at = |k: usize| arcs.get(k).map_or(Vec3::ZERO, v);
            let (p, q, r, s) = (at(0), at(1), at(2), at(3));
            [
                f32x4::new([p.x, q.x, r.x, s.x]),
                f32x4::new([p.y, q.y, r.y, s.y]),
                f32x4::new([p.z, q.z, r.z, s.z]),
            ]
        };
        let live = (1u32 << arcs.len().min(4)) - 1;
        ArcLanes { from: lanes(|a| a.from), to: lanes(|a| a.to), plane: lanes(|a| a.plane), live }
    }

    /// Bit `k` set: arc `k` passes the first two signs of the crossing test with `other`
    /// (each arc's ends on opposite sides of the other's plane).
    #[inline]
    fn may_cross(&self, other: &GaussArc) -> u32 {
        // `v · w` as glam sums it: (x x' + y y') + z z'.
        let dot = |v: &[f32x4; 3], w: Vec3| v[0] * w.x + v[1] * w.y + v[2] * w.z;
        let ends_of_other = dot(&self.plane, other.from) * dot(&self.plane, other.to);
        let own_ends = dot(&self.from, other.plane) * dot(&self.to, other.plane);
        // The scalar test rejects on `>= 0.0`: a NaN passes it, as here.
        let zero = f32x4::ZERO;
        !(ends_of_other.simd_ge(zero) | own_ends.simd_ge(zero)).to_bitmask() & self.live
    }
}

/// An edge's arc on the Gauss map: from one adjacent face's normal to the other's, with the
/// normal of its great circle's plane.
#[derive(Clone, Copy, Debug)]
struct GaussArc {
    from: Vec3,
    to: Vec3,
    plane: Vec3,
}

impl GaussArc {
    /// The arc of edge `e` of `p` (in `p`'s frame): between its two faces' normals.
    #[inline(always)]
    fn of_edge<P: Polyhedron + ?Sized>(p: &P, e: &HullEdge) -> GaussArc {
        GaussArc::new(p.face_plane(e.faces[0] as usize).0, p.face_plane(e.faces[1] as usize).0)
    }

    #[inline(always)]
    fn new(from: Vec3, to: Vec3) -> GaussArc {
        GaussArc { from, to, plane: from.cross(to) }
    }

    /// True when this arc and `other` cross.
    ///
    /// Each arc's end points must lie on opposite sides of the other arc's great-circle plane;
    /// then the two arcs meet the line where those planes intersect, each at one of its two
    /// antipodal points, and they cross when it is the same one: the point on an arc has a
    /// positive dot product with the sum of its ends (arcs shorter than a half circle), so both
    /// dot products must agree.
    #[inline]
    fn crosses(&self, other: &GaussArc) -> bool {
        let (nab, ncd) = (self.plane, other.plane);
        if nab.dot(other.from) * nab.dot(other.to) >= 0.0 || ncd.dot(self.from) * ncd.dot(self.to) >= 0.0 {
            return false;
        }
        let x = nab.cross(ncd);
        x.dot(self.from + self.to) * x.dot(other.from + other.to) > 0.0
    }
}

/// The edge pair with the largest separation among those whose edges build a face of the
/// Minkowski difference A − B (Gauss-map test on the edges' adjacent face normals). Other pairs
/// cannot be the minimum-penetration axis, and skipping them also removes parallel duplicates.
///
/// A is posed at the identity (the common frame is A's), so its normals and vertices are read
/// straight from the polyhedron: the same values without a matrix product in the inner loop.
/// Each edge of B is tried against the edges of A that `tried` lists for it, which must be in
/// ascending order (ties go to the first pair found, as over all pairs).
///
/// The plain search, which the tests hold the faster searches to: [`box_edge_query`] for two
/// boxes and [`hull_edge_query`] for the rest.
#[cfg(test)]
pub(super) fn edge_query<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized, I: Iterator<Item = usize>>(
    pa: &Posed<A>,
    pb: &Posed<B>,
    tried: impl Fn(&HullEdge) -> I,
) -> Option<EdgeQuery> {
    let a = pa.poly;
    let mut best: Option<EdgeQuery> = None;
    for (ib, eb) in pb.poly.edges().iter().enumerate() {
        let mut edges_a = tried(eb).peekable();
        if edges_a.peek().is_none() {
            continue;
        }
        let edge_b = PosedEdge::new(pb, eb);
        for ia in edges_a {
            try_edge_pair(a, ia, &GaussArc::of_edge(a, &a.edges()[ia]), ib, &edge_b, &mut best);
        }
    }
    best
}

/// The plain search (`edge_query`) for two boxes, each edge of B tried against the edges of A
/// that `tried` lists for its direction (bit `k` of `tried[j]`: A's edge `k` against B's edges
/// along axis `j`). The same pairs in the same order, so the same result, at a fraction of the
/// work, which was a fifth of a tumbling pile's instructions:
/// - B's eight vertices and six normals are posed once, not twice for each of its edges;
/// - A's arcs come from [`BoxArcs`], the same for every box;
/// - the crossing test's first two signs are taken for A's four edges along an axis at once,
///   and only the pairs that pass them take the whole scalar test.
pub(super) fn box_edge_query<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized>(
    pa: &Posed<A>,
    pb: &Posed<B>,
    tried: [u16; 3],
) -> Option<EdgeQuery> {
    let (a, b) = (pa.poly, pb.poly);
    // Boxes share the unit cube's topology (eight vertices, six faces, its edge numbering),
    // which `BoxArcs` and the arrays below assume.
    debug_assert!(a.box_half_extents().is_some() && b.box_half_extents().is_some());
    debug_assert!(a.edges().len() == 12 && b.vertex_count() == 8 && b.face_count() == 6);
    let box_arcs = BoxArcs::get();
    let vertices: [Vec3; 8] = std::array::from_fn(|i| pb.vertex(i));
    let normals: [Vec3; 6] = std::array::from_fn(|f| pb.normal(f));
    let mut best: Option<EdgeQuery> = None;
    for (ib, eb) in b.edges().iter().enumerate() {
        let set = tried[box_edge_axis(eb)];
        if set == 0 {
            continue;
        }
        let start = vertices[eb.vertices[0] as usize];
        let edge_b = PosedEdge {
            start,
            direction: vertices[eb.vertices[1] as usize] - start,
            arc: GaussArc::new(-normals[eb.faces[0] as usize], -normals[eb.faces[1] as usize]),
        };
        let mut open = 0u16;
        for axis in 0..3 {
            if set & box_arcs.along[axis] == 0 {
                continue;
            }
            let mut lanes = box_arcs.lanes[axis].may_cross(&edge_b.arc);
            while lanes != 0 {
                open |= 1 << box_arcs.lane_edges[axis][lanes.trailing_zeros() as usize];
                lanes &= lanes - 1;
            }
        }
        for ia in EdgeSet(open & set) {
            try_edge_pair(a, ia, &box_arcs.arcs[ia], ib, &edge_b, &mut best);
        }
    }
    best
}

/// A box's edges' arcs on the Gauss map, the same for every box (its face normals are the axes
/// whatever its half extents), and which edges run along each axis, for [`box_edge_query`].
struct BoxArcs {
    /// Per edge.
    arcs: [GaussArc; 12],
    /// Per axis, the set of edges along it (bit `k` for edge `k`).
    along: [u16; 3],
    /// Per axis, the arcs of the four edges along it, in ascending edge order.
    lanes: [ArcLanes; 3],
    /// Per axis, the edge in each lane.
    lane_edges: [[u8; 4]; 3],
}

impl BoxArcs {
    fn get() -> &'static BoxArcs {
        static ARCS: OnceLock<BoxArcs> = OnceLock::new();
        ARCS.get_or_init(|| {
            let unit = BoxPoly::new(Vec3::ONE);
            let arcs: [GaussArc; 12] = std::array::from_fn(|k| GaussArc::of_edge(&unit, &unit.edges()[k]));
            let mut along = [0u16; 3];
            for (k, edge) in unit.edges().iter().enumerate() {
                along[box_edge_axis(edge)] |= 1 << k;
            }
            let lane_edges: [[u8; 4]; 3] = along.map(|set| {
                let mut edges = EdgeSet(set).map(|k| k as u8);
                std::array::from_fn(|_| edges.next().expect("a box has four edges along each axis"))
            });
            let lanes = lane_edges.map(|edges| ArcLanes::new(&edges.map(|k| arcs[k as usize])));
            BoxArcs { arcs, along, lanes, lane_edges }
        })
    }
}

/// The plain search (`edge_query`) over every pair of edges, for two polyhedra that are not
/// both boxes. Most
/// pairs fail the Gauss-map test at its first two signs, which are tried four edges of A at
/// a time ([`ArcLanes`]); the pairs that pass take the scalar test from the start, so the
/// result is the one the scalar search finds (two hulls of 30-odd edges try a thousand pairs).
pub(super) fn hull_edge_query<A: Polyhedron + ?Sized, B: Polyhedron + ?Sized>(
    pa: &Posed<A>,
    pb: &Posed<B>,
) -> Option<EdgeQuery> {
    let a = pa.poly;
    ARC_SCRATCH.with_borrow_mut(|EdgeScratch { arcs, lanes, vertices_b, normals_b }| {
        arcs.clear();
        arcs.extend(a.edges().iter().map(|e| GaussArc::of_edge(a, e)));
        lanes.clear();
        lanes.extend(arcs.chunks(4).map(ArcLanes::new));
        // B's vertices and (negated) face normals posed once each: every vertex ends about
        // five edges of a rock and every face borders three, and posing them edge by edge
        // was 1 % of the terrain rain's instructions.
        vertices_b.clear();
        vertices_b.extend((0..pb.poly.vertex_count()).map(|i| pb.vertex(i)));
        normals_b.clear();
        normals_b.extend((0..pb.poly.face_count()).map(|f| -pb.normal(f)));
        let mut best: Option<EdgeQuery> = None;
        for (ib, eb) in pb.poly.edges().iter().enumerate() {
            let edge_b = PosedEdge::of(vertices_b, normals_b, eb);
            for (group, four) in lanes.iter().enumerate() {
                let mut open = four.may_cross(&edge_b.arc);
                while open != 0 {
                    let ia = 4 * group + open.trailing_zeros() as usize;
                    open &= open - 1;
                    try_edge_pair(a, ia, &arcs[ia], ib, &edge_b, &mut best);
                }
            }
        }
        best
    })
}

/// An edge of B in A's frame, as the edge search reads it.
struct PosedEdge {
    start: Vec3,
    direction: Vec3,
    /// Its arc on the Gauss map of the Minkowski difference A − B (B's normals negated).
    arc: GaussArc,
}

impl PosedEdge {
    /// Edge `e` of B from B's vertices and negated normals already posed in A's frame: the
    /// same values as [`PosedEdge::new`].
    #[inline(always)]
    fn of(vertices: &[Vec3], negated_normals: &[Vec3], e: &HullEdge) -> PosedEdge {
        let start = vertices[e.vertices[0] as usize];
        PosedEdge {
            start,
            direction: vertices[e.vertices[1] as usize] - start,
            arc: GaussArc::new(negated_normals[e.faces[0] as usize], negated_normals[e.faces[1] as usize]),
        }
    }

    /// Edge `e` of `pb` posed on its own (the plain search's way, which the tests hold the
    /// query to).
    #[cfg(test)]
    fn new<B: Polyhedron + ?Sized>(pb: &Posed<B>, e: &HullEdge) -> PosedEdge {
        let start = pb.vertex(e.vertices[0] as usize);
        PosedEdge {
            start,
            direction: pb.vertex(e.vertices[1] as usize) - start,
            arc: GaussArc::new(-pb.normal(e.faces[0] as usize), -pb.normal(e.faces[1] as usize)),
        }
    }
}

/// Edge `ia` of A (its arc `arc_a`) against edge `ib` of B: when the two build a face of the
/// Minkowski difference, their separation along the axis across both, kept in `best` if it is
/// the largest so far (the first pair on ties).
#[inline(always)]
fn try_edge_pair<A: Polyhedron + ?Sized>(
    a: &A,
    ia: usize,
    arc_a: &GaussArc,
    ib: usize,
    edge_b: &PosedEdge,
    best: &mut Option<EdgeQuery>,
) {
    if !arc_a.crosses(&edge_b.arc) {
        return;
    }
    let ea = &a.edges()[ia];
    let a0 = a.vertex(ea.vertices[0] as usize);
    let da = a.vertex(ea.vertices[1] as usize) - a0;
    let db = edge_b.direction;
    let axis = da.cross(db);
    let len_sq = axis.length_squared();
    if len_sq <= 1e-10 * da.length_squared() * db.length_squared() {
        return;
    }
    let mut axis = axis / len_sq.sqrt();
    // Point the axis out of A: along the sum of the edge's two face normals.
    if axis.dot(arc_a.from + arc_a.to) < 0.0 {
        axis = -axis;
    }
    let s = axis.dot(edge_b.start - a0);
    if best.is_none_or(|e| s > e.separation) {
        *best = Some(EdgeQuery { separation: s, edge_a: ia, edge_b: ib, axis });
    }
}

/// What a [`hull_edge_query`] fills before its search.
struct EdgeScratch {
    /// A's Gauss-map arcs, one by one.
    arcs: Vec<GaussArc>,
    /// The same four to a group.
    lanes: Vec<ArcLanes>,
    /// B's vertices in A's frame.
    vertices_b: Vec<Vec3>,
    /// B's face normals in A's frame, negated (the Gauss map of A − B).
    normals_b: Vec<Vec3>,
}

thread_local! {
    static ARC_SCRATCH: std::cell::RefCell<EdgeScratch> = const {
        std::cell::RefCell::new(EdgeScratch {
            arcs: Vec::new(),
            lanes: Vec::new(),
            vertices_b: Vec::new(),
            normals_b: Vec::new(),
        })
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Transform;

    /// The four-lane search finds what the scalar search over every pair finds, bit for bit,
    /// between rocks (hulls of 14 random points) and between a box and a rock, in random poses
    /// from apart to deep; and the lanes' first signs pass every pair the scalar test passes.
    #[test]
    fn the_lanes_find_the_edge_pair_the_scalar_search_finds() {
        use super::super::polytope::BoxPoly;
        use crate::math::Quat;
        use crate::shape::ConvexHull;
        let mut next = super::super::uniform(11);
        let rock = |next: &mut dyn FnMut() -> f32| {
            let points: Vec<Vec3> = (0..14)
                .map(|_| {
                    Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::X)
                        * (0.3 + 0.15 * next())
                })
                .collect();
            ConvexHull::from_points(&points).expect("a rock")
        };
        let cube = BoxPoly::new(Vec3::new(0.3, 0.4, 0.5));
        let mut found = 0;
        for case in 0..400 {
            let (a, b) = (rock(&mut next), rock(&mut next));
            let offset = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5) * 1.6;
            let turn = Vec3::new(next() - 0.5, next() - 0.5, next() - 0.5).normalize_or(Vec3::Y);
            let xb = Transform::new(offset, Quat::from_axis_angle(turn, next() * 6.0));
            let same = |x: Option<EdgeQuery>, y: Option<EdgeQuery>| match (x, y) {
                (None, None) => true,
                (Some(x), Some(y)) => {
                    x.separation.to_bits() == y.separation.to_bits()
                        && (x.edge_a, x.edge_b) == (y.edge_a, y.edge_b)
                        && x.axis == y.axis
                }
                _ => false,
            };
            let (pa, pb) = (Posed::new(&a, Transform::IDENTITY), Posed::new(&b, xb));
            let scalar = edge_query(&pa, &pb, |_| 0..a.edges().len());
            assert!(same(hull_edge_query(&pa, &pb), scalar), "case {case}: rocks");
            found += usize::from(scalar.is_some());
            let pc = Posed::new(&cube, Transform::IDENTITY);
            let scalar = edge_query(&pc, &pb, |_| 0..cube.edges().len());
            assert!(same(hull_edge_query(&pc, &pb), scalar), "case {case}: box and rock");
            // The lanes' signs against the scalar test's, pair by pair.
            for eb in b.edges() {
                let arc_b = PosedEdge::new(&pb, eb).arc;
                let arcs: Vec<GaussArc> = a
                    .edges()
                    .iter()
                    .map(|e| {
                        GaussArc::new(
                            a.faces()[e.faces[0] as usize].normal,
                            a.faces()[e.faces[1] as usize].normal,
                        )
                    })
                    .collect();
                for (group, four) in arcs.chunks(4).enumerate() {
                    let open = ArcLanes::new(four).may_cross(&arc_b);
                    for (k, arc) in four.iter().enumerate() {
                        let (nab, ncd) = (arc.plane, arc_b.plane);
                        let signs = nab.dot(arc_b.from) * nab.dot(arc_b.to) < 0.0
                            && ncd.dot(arc.from) * ncd.dot(arc.to) < 0.0;
                        assert_eq!(open >> k & 1 == 1, signs, "case {case}: group {group} lane {k}");
                    }
                    assert_eq!(open >> four.len(), 0, "missing lanes never pass");
                }
            }
        }
        assert!(found > 300, "{found}");
        // A pose gone to NaN (after a blow-up) reaches the search, since no face query can
        // separate along NaN: the lanes pass what the scalar test passes, and never a lane
        // past the last of A's edges.
        let a =
            std::iter::repeat_with(|| rock(&mut next)).find(|r| r.edges().len() % 4 != 0).expect("a rock");
        let b = rock(&mut next);
        let nan = Transform::new(Vec3::splat(f32::NAN), Quat::from_xyzw(f32::NAN, 0.0, 0.0, 1.0));
        for (p, q) in [(&a, &b), (&b, &a)] {
            let (pa, pb) = (Posed::new(p, Transform::IDENTITY), Posed::new(q, nan));
            let scalar = edge_query(&pa, &pb, |_| 0..p.edges().len());
            let lanes = hull_edge_query(&pa, &pb);
            assert_eq!(lanes.map(|e| (e.edge_a, e.edge_b)), scalar.map(|e| (e.edge_a, e.edge_b)));
        }
    }

    #[test]
    fn arcs_cross_basic() {
        let arcs_cross =
            |a: Vec3, b: Vec3, c: Vec3, d: Vec3| GaussArc::new(a, b).crosses(&GaussArc::new(c, d));
        // Arc from +X to +Y and arc from (1,1,-1) to (1,1,1): they cross near (1,1,0).
        let c = Vec3::new(1.0, 1.0, -1.0).normalize();
        let d = Vec3::new(1.0, 1.0, 1.0).normalize();
        assert!(arcs_cross(Vec3::X, Vec3::Y, c, d));
        // The antipodal arc does not.
        assert!(!arcs_cross(Vec3::X, Vec3::Y, -c, -d));
        // Arcs apart.
        assert!(!arcs_cross(Vec3::X, Vec3::Y, Vec3::Z, Vec3::new(0.0, -1.0, 1.0).normalize()));
    }
}
