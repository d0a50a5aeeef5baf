//! A body against one terrain chunk's triangles: one manifold of at most four points.
//!
//! The chunk's kD tree gives the triangles under the body's box. Each triangle contributes
//! candidate points, each with the normal it pushes along:
//!
//! * a box or hull: its face most opposed to the triangle's normal, clipped to the triangle's
//!   footprint (the prism its three edges sweep along the normal), pushing along the face
//!   normal only;
//! * a capsule: its segment clipped to the footprint, pushing along the face normal; a segment
//!   wholly outside the footprint comes closest to an edge of the triangle and pushes away from
//!   it;
//! * a sphere: the triangle's closest point to its centre, pushing away from it.
//!
//! Why no ghost bumps on a floor made of many triangles: a point inside a triangle's footprint
//! only ever pushes along that triangle's face normal, so a box sliding over the edge between
//! two coplanar triangles sees the same normal on both sides; it never meets the side of the
//! next triangle, which is what makes a separating-axis test against each triangle alone catch
//! on internal edges. Round shapes use the closest point, and over a flat or concave edge the
//! face of the neighbouring triangle is always at least as close as the edge, so the deepest
//! candidate (which sets the normal, below) is a face point there too. Only over a convex
//! edge, a real ridge, does the edge's own direction win.
//!
//! The manifold takes the normal of the deepest candidate and keeps the candidates whose
//! normals lie within [`MERGE_COS`] of it (the same smooth surface), their separations
//! measured along the shared normal; then the same four-point reduction as between bodies.
//! A sphere keeps only its deepest point: it touches a smooth surface once.
//!
//! Triangles the body's centre of mass lies behind (by more than a quarter voxel) are skipped: those face away from it (the far side
//! of a thin shelf, the back of a bump under a wide box), and pushing along them would pull the
//! body through the surface.
//!
//! Feature ids name a body vertex alone where a box corner rests inside a triangle, so a box
//! sliding across the floor keeps warm-starting as its corners pass from triangle to triangle;
//! points made by clipping at a triangle's edges name the triangle too.

use super::clip::{self, ClipPolygon, ClipVertex};
use super::closest::{closest_segments_x4, lane, to_lanes};
use super::feature;
use super::polytope::{BoxPoly, Polyhedron, Posed as PosedPoly};
use super::reduce;
use super::{Manifold, ManifoldPoint};
use crate::math::{Aabb, Transform, Vec3};
use crate::shape::{MAX_HULL_VERTICES, Shape};
use crate::terrain::{ChunkCollision, Region, closest_on_triangle};
use std::cell::RefCell;

/// Candidates whose normals lie within this cosine (about 25°) of the deepest one's join its
/// manifold.
const MERGE_COS: f32 = 0.9;
/// Triangles with a doubled area below this (m²) have no usable normal.
const DEGENERATE_AREA: f32 = 1e-12;

/// One candidate point: where on the body, how far from the triangle along `normal` (the
/// terrain's outward direction there), and its feature id.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    normal: Vec3,
    on_body: Vec3,
    separation: f32,
    feature: u32,
}

/// A triangle in world space with its unit outward normal.
#[derive(Clone, Copy, Debug)]
struct Triangle {
    v: [Vec3; 3],
    normal: Vec3,
    index: u32,
    /// The mesh's vertex indices, which neighbouring triangles share.
    ids: [u16; 3],
    /// The body's centre lies behind it: no candidates, but it still tells its neighbours
    /// whether their shared edge is convex.
    facing_away: bool,
}

impl Triangle {
    /// Inward normal of the footprint's side through edge `k` (from vertex `k` to `k + 1`).
    #[inline]
    fn side_inward(&self, k: usize) -> Vec3 {
        self.normal.cross(self.v[(k + 1) % 3] - self.v[k])
    }

    /// True when `p` projects into the triangle (edges included).
    #[inline]
    fn covers(&self, p: Vec3) -> bool {
        (0..3).all(|k| self.side_inward(k).dot(p - self.v[k]) >= 0.0)
    }
}

/// A box's or hull's vertices in world space, each transformed when a triangle of the chunk
/// first needs it: most triangles under a body need only its lowest vertex and one face.
struct WorldVertices {
    points: [Vec3; MAX_HULL_VERTICES],
    /// Bit `i` set: `points[i]` holds vertex `i`.
    known: u64,
}

impl Default for WorldVertices {
    fn default() -> Self {
        WorldVertices { points: [Vec3::ZERO; MAX_HULL_VERTICES], known: 0 }
    }
}

// One bit per vertex.
const _: () = assert!(MAX_HULL_VERTICES <= 64);

impl WorldVertices {
    /// Forgets every vertex, for another body or pose.
    fn clear(&mut self) {
        self.known = 0;
    }

    /// Vertex `i` of `poly` in world space. The cache knows vertices by index alone: every
    /// call between two clears must pass the same posed body.
    #[inline]
    fn get<P: Polyhedron + ?Sized>(&mut self, poly: &PosedPoly<P>, i: usize) -> Vec3 {
        if self.known & 1 << i == 0 {
            self.points[i] = poly.vertex(i);
            self.known |= 1 << i;
        }
        self.points[i]
    }
}

/// The body's incident face polygon in world space, made for the first triangle that needs
/// that face and clipped from again for the next ones: the triangles under a body almost
/// always pick the same face, and making its polygon for each (four corners placed, eight
/// edge codes) was 2 % of the terrain rain's instructions (callgrind, `step_count terrain-rain
/// 100 30`).
#[derive(Default)]
struct IncidentFace {
    /// The face the polygon holds, if any.
    face: Option<usize>,
    polygon: ClipPolygon,
}

impl IncidentFace {
    /// Forgets the polygon, for another body or pose.
    fn clear(&mut self) {
        self.face = None;
    }

    /// Face `face` of `posed` as a clip polygon, its corners from `world`.
    #[inline]
    fn polygon<P: Polyhedron + ?Sized>(
        &mut self,
        posed: &PosedPoly<P>,
        world: &mut WorldVertices,
        face: usize,
    ) -> &ClipPolygon {
        if self.face != Some(face) {
            let lp = posed.poly.face_loop(face);
            self.polygon.set_face_loop(lp, |_, vertex| world.get(posed, vertex as usize));
            self.face = Some(face);
        }
        &self.polygon
    }
}

#[derive(Default)]
struct Scratch {
    triangles: Vec<u32>,
    near: Vec<Triangle>,
    world: WorldVertices,
    face: IncidentFace,
    candidates: Vec<Candidate>,
    points: Vec<ManifoldPoint>,
    polygons: [ClipPolygon; 2],
}

thread_local! {
    static SCRATCH: RefCell<Scratch> = RefCell::new(Scratch::default());
}

/// How far (voxels) a body's centre of mass may lie behind a triangle's plane before the
/// triangle counts as facing away from it: a body resting on a slope with its centre of mass
/// close to its surface (a wedge on its long face) may dip its centre behind the odd
/// triangle, while the underside of a shelf one voxel thick stays far behind.
const BEHIND_TOLERANCE: f32 = 0.25;

/// The manifold between a body (`shape` at `xf`, world box `tight`, centre of mass `center`)
/// and one chunk's triangles (`origin`: the chunk's first corner, `voxel`: the voxel size),
/// keeping points whose separation is at most `speculative`. The normal points from the body
/// into the terrain.
#[allow(clippy::too_many_arguments)]
pub(crate) fn collide_terrain(
    shape: &Shape,
    xf: &Transform,
    center: Vec3,
    tight: &Aabb,
    chunk: &ChunkCollision,
    origin: Vec3,
    voxel: f32,
    speculative: f32,
) -> Manifold {
    SCRATCH.with(|s| {
        let mut s = s.borrow_mut();
        let s = &mut *s;
        let reach = tight.grown(speculative);
        let local = Aabb::new((reach.min - origin) / voxel, (reach.max - origin) / voxel);
        s.triangles.clear();
        let triangles = &mut s.triangles;
        chunk.tree.query_aabb(&chunk.mesh, &local, |t| triangles.push(t as u32));
        s.candidates.clear();
        s.near.clear();
        let behind = -BEHIND_TOLERANCE * voxel;
        for &t in &s.triangles {
            // The corners' indices once, for the corners and for the neighbour search.
            let ids = chunk.mesh.triangle_indices(t as usize);
            let v = ids.map(|i| origin + chunk.mesh.position(i as usize) * voxel);
            let n = (v[1] - v[0]).cross(v[2] - v[0]);
            let area = n.length();
            if area < DEGENERATE_AREA {
                continue;
            }
            let normal = n / area;
            let facing_away = normal.dot(center - v[0]) < behind;
            s.near.push(Triangle { v, normal, index: t, ids, facing_away });
        }
        s.world.clear();
        s.face.clear();
        // A sphere around the body's box: triangles whose planes it stays clear of are out of
        // reach without looking at the body's shape.
        let (middle, reach) = (tight.center(), tight.half_extents().length() + speculative);
        let in_reach = |t: &&Triangle| !t.facing_away && t.normal.dot(middle - t.v[0]) <= reach;
        let (near, out) = (&s.near[..], &mut s.candidates);
        // The body is posed once for all its triangles.
        match shape {
            Shape::Sphere { radius } => {
                for tri in near.iter().filter(in_reach) {
                    sphere_triangle(center, *radius, tri, near, speculative, out);
                }
            }
            Shape::Capsule { half_height, radius } => {
                let axis = xf.transform_vector(Vec3::new(0.0, *half_height, 0.0));
                for tri in near.iter().filter(in_reach) {
                    capsule_triangle([center - axis, center + axis], *radius, tri, near, speculative, out);
                }
            }
            Shape::Cuboid { half_extents } => {
                let cube = BoxPoly::new(*half_extents);
                let posed = PosedPoly::new(&cube, *xf);
                for tri in near.iter().filter(in_reach) {
                    poly_triangle(&posed, &mut s.world, &mut s.face, tri, speculative, &mut s.polygons, out);
                }
            }
            Shape::Hull(h) => {
                let posed = PosedPoly::new(&**h, *xf);
                for tri in near.iter().filter(in_reach) {
                    poly_triangle(&posed, &mut s.world, &mut s.face, tri, speculative, &mut s.polygons, out);
                }
            }
        }
        let round = matches!(shape, Shape::Sphere { .. });
        merge(&s.candidates, round, &mut s.points)
    })
}

/// The manifold of the candidates: the deepest one's normal, the candidates on the same
/// surface, one point per feature, reduced to four.
fn merge(candidates: &[Candidate], deepest_only: bool, points: &mut Vec<ManifoldPoint>) -> Manifold {
    let Some(deepest) = candidates
        .iter()
        .enumerate()
        .min_by(|(i, a), (j, b)| a.separation.total_cmp(&b.separation).then(i.cmp(j)))
    else {
        return Manifold::default();
    };
    let n = deepest.1.normal;
    points.clear();
    let chosen = if deepest_only { std::slice::from_ref(deepest.1) } else { candidates };
    for c in chosen {
        let cos = c.normal.dot(n);
        if cos < MERGE_COS {
            continue;
        }
        // Closing the gap along the candidate's own normal takes separation / cos along n.
        let separation = c.separation / cos;
        let position = c.on_body - n * (0.5 * separation);
        match points.iter_mut().find(|p| p.feature == c.feature) {
            Some(p) if p.separation <= separation => {}
            Some(p) => *p = ManifoldPoint { position, separation, feature: c.feature },
            None => points.push(ManifoldPoint { position, separation, feature: c.feature }),
        }
    }
    let mut m = Manifold { normal: -n, ..Manifold::default() };
    let mut out = [ManifoldPoint::default(); super::MAX_MANIFOLD_POINTS];
    m.count = reduce::reduce(points, n, &mut out);
    m.points = out;
    m
}

/// Feature id of a point made at a triangle: `code` (14 bits) names the body's feature, the
/// triangle index and `k` (0..=3) the triangle's.
fn triangle_feature(code: u32, tri: &Triangle, k: u32) -> u32 {
    feature::edges(code, (tri.index << 2 | k) & 0x3fff)
}

/// Is edge `k` of `tri` convex, a ridge a body can rest against from beyond the triangle?
/// Decided by the neighbour across it among `near` (the triangles of this chunk under the
/// body); an edge without one there (it lies on the chunk's border) counts as not convex,
/// which at worst lets a round body roll a few millimetres past a ridge on a chunk seam.
fn convex_edge(tri: &Triangle, k: usize, near: &[Triangle]) -> bool {
    let (i, j) = (tri.ids[k], tri.ids[(k + 1) % 3]);
    let Some(other) = near.iter().find(|o| o.index != tri.index && o.ids.contains(&i) && o.ids.contains(&j))
    else {
        return false;
    };
    let Some(w) = (0..3).find(|&m| other.ids[m] != i && other.ids[m] != j) else { return false };
    let scale = (tri.v[1] - tri.v[0]).length();
    tri.normal.dot(other.v[w] - tri.v[k]) < -1e-3 * scale
}

/// Is the closest point in `region` on a convex edge or corner?
fn convex_region(tri: &Triangle, region: Region, near: &[Triangle]) -> bool {
    match region {
        Region::Face => false,
        Region::Edge(k) => convex_edge(tri, k, near),
        Region::Vertex(v) => convex_edge(tri, v, near) || convex_edge(tri, (v + 2) % 3, near),
    }
}

/// The candidate of a round core point `core` (radius `radius`) whose closest point on `tri`
/// is `q` in `region`. Inside the face, or beside a flat or concave edge, it pushes along the
/// face normal by the core's height over the face's plane: over such an edge the neighbouring
/// face is at least as close, so a sideways push there would be a ghost bump. Beside a convex
/// edge or corner it pushes straight away from it, rolling the body around the ridge.
#[allow(clippy::too_many_arguments)]
fn round_candidate(
    core: Vec3,
    radius: f32,
    q: Vec3,
    region: Region,
    tri: &Triangle,
    near: &[Triangle],
    speculative: f32,
    feature: u32,
    out: &mut Vec<Candidate>,
) {
    let d = core - q;
    let distance = d.length();
    if distance - radius > speculative {
        return;
    }
    let (normal, separation) =
        if region != Region::Face && distance > 1e-7 && convex_region(tri, region, near) {
            (d / distance, distance - radius)
        } else {
            (tri.normal, tri.normal.dot(core - tri.v[0]) - radius)
        };
    if separation <= speculative {
        out.push(Candidate { normal, on_body: core - normal * radius, separation, feature });
    }
}

/// A sphere: one candidate at the triangle's closest point.
fn sphere_triangle(
    center: Vec3,
    radius: f32,
    tri: &Triangle,
    near: &[Triangle],
    speculative: f32,
    out: &mut Vec<Candidate>,
) {
    let (q, region) = closest_on_triangle(center, tri.v);
    round_candidate(center, radius, q, region, tri, near, speculative, feature::round(0, 0), out);
}

/// A capsule (segment `seg`, `radius`): the part of its segment over the triangle pushes
/// along the face normal; a segment beside the triangle comes closest to one of its edges.
fn capsule_triangle(
    seg: [Vec3; 2],
    radius: f32,
    tri: &Triangle,
    near: &[Triangle],
    speculative: f32,
    out: &mut Vec<Candidate>,
) {
    let n = tri.normal;
    let height = |p: Vec3| n.dot(p - tri.v[0]) - radius;
    if height(seg[0]).min(height(seg[1])) > speculative {
        return;
    }
    // Clip the segment's parameter range to the footprint, remembering which side cut each end.
    let (mut t0, mut t1) = (0.0f32, 1.0f32);
    let (mut cut0, mut cut1) = (None, None);
    let d = seg[1] - seg[0];
    for k in 0..3 {
        let m = tri.side_inward(k);
        let (h0, dh) = (m.dot(seg[0] - tri.v[k]), m.dot(d));
        // Inside where h0 + t dh >= 0.
        if dh == 0.0 {
            if h0 < 0.0 {
                t0 = 1.0;
                t1 = 0.0;
            }
            continue;
        }
        let t = -h0 / dh;
        if dh > 0.0 {
            if t > t0 {
                t0 = t;
                cut0 = Some(k as u32);
            }
        } else if t < t1 {
            t1 = t;
            cut1 = Some(k as u32);
        }
    }
    if t0 <= t1 {
        for (t, cut, end) in [(t0, cut0, 1), (t1, cut1, 2)] {
            let p = seg[0] + d * t;
            let separation = height(p);
            if separation > speculative {
                continue;
            }
            let feature = match cut {
                None => feature::round(end, 0),
                Some(k) => triangle_feature(end, tri, k),
            };
            out.push(Candidate { normal: n, on_body: p - n * radius, separation, feature });
            if t1 - t0 <= 1e-6 {
                break;
            }
        }
        return;
    }
    // Beside the footprint: the closest approach is to an edge, the first of the closest
    // (the three edges measured at once, one per lane; the fourth lane repeats the third).
    let [a, b, c] = tri.v;
    let (on_seg, on_edge) =
        closest_segments_x4(seg[0], seg[1], to_lanes([a, b, c, c]), to_lanes([b, c, a, a]));
    let mut best: Option<(f32, Vec3, Vec3, usize)> = None;
    for k in 0..3 {
        let (on_seg, on_edge) = (lane(&on_seg, k), lane(&on_edge, k));
        let dist = (on_seg - on_edge).length_squared();
        if best.is_none_or(|(b, ..)| dist < b) {
            best = Some((dist, on_seg, on_edge, k));
        }
    }
    if let Some((_, on_seg, on_edge, k)) = best {
        let feature = triangle_feature(3, tri, k as u32);
        round_candidate(on_seg, radius, on_edge, Region::Edge(k), tri, near, speculative, feature, out);
    }
}

/// A box or hull: its face most opposed to the triangle's normal, clipped to the footprint.
/// The lowest vertex and that face are found in the body's own frame (a box's without a dot
/// product), and only their vertices are placed in the world.
fn poly_triangle<P: Polyhedron + ?Sized>(
    posed: &PosedPoly<P>,
    world: &mut WorldVertices,
    incident: &mut IncidentFace,
    tri: &Triangle,
    speculative: f32,
    [first, second]: &mut [ClipPolygon; 2],
    out: &mut Vec<Candidate>,
) {
    let n = tri.normal;
    let n_local = posed.to_local_vector(n);
    let lowest_index = posed.poly.support_index(-n_local);
    let lowest = world.get(posed, lowest_index);
    if n.dot(lowest - tri.v[0]) > speculative {
        return;
    }
    let face = incident.polygon(posed, world, posed.poly.most_opposed_face(n_local));
    // clip_polygon keeps `normal · x <= offset`: the outward side normal of each of the
    // triangle's sides in turn, from the face into `first`, then `second`, then `first`.
    let side = |k: usize| {
        let outward = -tri.side_inward(k);
        (outward, outward.dot(tri.v[k]), clip::side_code(k as u16, (k as u16 + 1) % 3))
    };
    let ((n0, o0, c0), (n1, o1, c1), (n2, o2, c2)) = (side(0), side(1), side(2));
    clip::clip_polygon(face, n0, o0, c0, first);
    clip::clip_polygon(first, n1, o1, c1, second);
    clip::clip_polygon(second, n2, o2, c2, first);
    let poly_in = &*first;
    for v in poly_in.vertices() {
        let separation = n.dot(v.p - tri.v[0]);
        if separation > speculative {
            continue;
        }
        out.push(Candidate { normal: n, on_body: v.p, separation, feature: clipped_feature(v, tri) });
    }
    // The deepest vertex belongs to the incident face of a box; on an unusual hull it may not,
    // and must not be missed when it lies over the triangle.
    if tri.covers(lowest) && !poly_in.vertices().iter().any(|v| v.p == lowest) {
        let separation = n.dot(lowest - tri.v[0]);
        out.push(Candidate {
            normal: n,
            on_body: lowest,
            separation,
            feature: feature::vertex(false, lowest_index as u16),
        });
    }
}

/// A clipped vertex's id: the body's vertex alone when clipping left it where it was (so it
/// keeps its id from triangle to triangle), else the triangle's corner or side it lies on, with
/// the body edge that crosses that side.
fn clipped_feature(v: &ClipVertex, tri: &Triangle) -> u32 {
    const NO_BODY_FEATURE: u32 = 0x3fff;
    let id = clip::clip_vertex_id(v, true);
    match (id >> 30, id & (1 << 29) != 0) {
        // A vertex of A, the body: the incident polygon's own corner.
        (0, false) => id,
        // A vertex of B: the triangle's corner, where two sides cut.
        (0, true) => triangle_feature(NO_BODY_FEATURE, tri, id & 3),
        // A body edge crossing side (k, k + 1) of the triangle; the pair names the side.
        _ => {
            let side = match (id >> 14) & 0x3fff {
                1 => 0,    // corners 0 and 1
                0x82 => 1, // corners 1 and 2
                _ => 2,    // corners 0 and 2
            };
            triangle_feature(id & 0x3fff, tri, side)
        }
    }
}
