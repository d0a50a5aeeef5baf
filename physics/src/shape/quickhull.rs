//! Quickhull: the convex hull of a point cloud.
//!
//! The hull is built in `f64`, relative to the centre of the cloud's bounding box, so that the
//! orientation tests on thin triangles stay far more precise than the tolerance below. The steps:
//!
//! 1. validate (count, finiteness, coincident / collinear / coplanar clouds);
//! 2. an initial tetrahedron from extreme points; every other point goes into the *outside set*
//!    of the face it is farthest above;
//! 3. repeatedly take the farthest point of some outside set (the *eye*), find the faces it sees
//!    (it is above their plane at all: exact convexity, no tolerance), walk their boundary (the
//!    *horizon*), replace them by a cone of triangles from the horizon to the eye, and hand their
//!    outside points to the new faces (points above none by more than `tol` are inside);
//! 4. merge adjacent coplanar triangles into convex polygons and drop vertices left in the middle
//!    of a straight edge;
//! 5. if more than [`MAX_HULL_VERTICES`] remain, keep well-spread extreme points and hull again.
//!
//! # Tolerance
//!
//! `tol = 1e-5 * d + 4 * f32::EPSILON * m`, where `d` is the diagonal of the cloud's bounding box
//! and `m` its largest absolute coordinate. The first term is "flat relative to the shape's size";
//! the second covers the rounding of `f32` coordinates far from the origin (a transformed box is
//! only coplanar to within that). A point closer than `tol` to a face plane counts as on it: it
//! never becomes a vertex, so (unless step 5 applies) every input point ends up inside the hull
//! or within about `tol` of it.
//! The same `tol` decides collinear and coplanar clouds and which triangles merge into one face.
//! The cloud counts as one point when `d <= max(1e-6, 1e-5 * m)`: less than a micrometre, or no
//! more than rounding noise at that distance from the origin.
//!
//! Everything is index-ordered (vectors and sorts with index tie-breaks, no hash maps), so the
//! same input always gives the same hull.

use super::{ConvexHull, MAX_HULL_VERTICES};
use crate::error::AtollError;
use crate::math::Vec3;
use glam::DVec3;

const WHAT: &str = "convex hull";
/// Flatness tolerance relative to the cloud's bounding-box diagonal.
const REL_TOL: f64 = 1e-5;
/// Extra tolerance per unit of coordinate magnitude, for `f32` rounding far from the origin.
const ROUNDING_TOL: f64 = 4.0 * f32::EPSILON as f64;
/// Clouds spanning less than this (metres) are treated as a single point.
const MIN_SPREAD: f64 = 1e-6;

impl ConvexHull {
    /// The convex hull of `points`, at most [`MAX_HULL_VERTICES`] vertices.
    ///
    /// Duplicates and interior points are fine. Coplanar triangles are merged into polygon faces
    /// (a box cloud gives 6 quads). The hull's vertices are input points. When the exact hull
    /// has more than [`MAX_HULL_VERTICES`] vertices, it is replaced by the hull of a well-spread
    /// subset of them (see [`simplify`]), which lies inside the exact hull.
    ///
    /// # Errors
    ///
    /// [`AtollError::InvalidInput`] for fewer than 4 points, a non-finite coordinate, or points
    /// that are (nearly) coincident, collinear or coplanar; see the module docs for the tolerance.
    pub fn from_points(points: &[Vec3]) -> Result<ConvexHull, AtollError> {
        let cloud = Cloud::new(points)?;
        let simplex = cloud.initial_simplex()?;
        let mut builder = Builder::new(&cloud, simplex);
        builder.run();
        let mesh = builder.into_mesh();
        let loops = remove_edge_vertices(merge_coplanar(&cloud, &mesh));
        let used = used_vertices(&loops);
        if used.len() > MAX_HULL_VERTICES {
            let subset: Vec<Vec3> = simplify(&cloud, &used, simplex).iter().map(|&i| points[i]).collect();
            return ConvexHull::from_points(&subset);
        }
        let (vertices, loops) = renumber(points, &used, &loops);
        ConvexHull::from_faces(vertices, &loops)
    }
}

/// The validated input in `f64`, centred, with its tolerance.
struct Cloud {
    /// Points relative to the centre of their bounding box (keeps products well scaled).
    pts: Vec<DVec3>,
    /// Distance below which a point counts as on a plane or line.
    tol: f64,
}

impl Cloud {
    fn new(points: &[Vec3]) -> Result<Cloud, AtollError> {
        if points.len() < 4 {
            return Err(AtollError::invalid(WHAT, format!("needs at least 4 points, got {}", points.len())));
        }
        if let Some(i) = points.iter().position(|p| !p.is_finite()) {
            let reason = format!("point {i} ({}) has a non-finite coordinate", points[i]);
            return Err(AtollError::invalid(WHAT, reason));
        }
        let (mut lo, mut hi) = (DVec3::splat(f64::MAX), DVec3::splat(f64::MIN));
        for p in points {
            lo = lo.min(p.as_dvec3());
            hi = hi.max(p.as_dvec3());
        }
        let spread = (hi - lo).length();
        let max_abs = lo.abs().max(hi.abs()).max_element();
        if spread <= MIN_SPREAD.max(REL_TOL * max_abs) {
            let reason = format!("the points are (nearly) coincident (they span only {spread:.3e})");
            return Err(AtollError::invalid(WHAT, reason));
        }
        let center = (lo + hi) * 0.5;
        Ok(Cloud {
            pts: points.iter().map(|p| p.as_dvec3() - center).collect(),
            tol: REL_TOL * spread + ROUNDING_TOL * max_abs,
        })
    }

    /// Four points spanning a tetrahedron, ordered so that the first three are counter-clockwise
    /// seen from outside (the fourth lies below their plane).
    fn initial_simplex(&self) -> Result<[usize; 4], AtollError> {
        let p = &self.pts;
        // The lexicographically smallest point is always a hull vertex, whatever the ties.
        let mut a = 0;
        for i in 1..p.len() {
            if (p[i].x, p[i].y, p[i].z) < (p[a].x, p[a].y, p[a].z) {
                a = i;
            }
        }
        let (b, _) = argmax(p.len(), |i| p[i].distance_squared(p[a]));
        let axis = (p[b] - p[a]).normalize();
        let (c, line_dist) = argmax(p.len(), |i| (p[i] - p[a]).cross(axis).length());
        if line_dist <= self.tol {
            let reason = format!("the points are collinear (all within {:.3e} of one line)", self.tol);
            return Err(AtollError::invalid(WHAT, reason));
        }
        let normal = (p[b] - p[a]).cross(p[c] - p[a]).normalize();
        let (d, plane_dist) = argmax(p.len(), |i| normal.dot(p[i] - p[a]).abs());
        if plane_dist <= self.tol {
            let reason = format!("the points are coplanar (all within {:.3e} of one plane)", self.tol);
            return Err(AtollError::invalid(WHAT, reason));
        }
        Ok(if normal.dot(p[d] - p[a]) > 0.0 { [a, c, b, d] } else { [a, b, c, d] })
    }
}

/// The index in `0..n` maximising `f`, with the lowest index on ties, and the maximum.
fn argmax(n: usize, f: impl Fn(usize) -> f64) -> (usize, f64) {
    let mut best = (0, f64::NEG_INFINITY);
    for i in 0..n {
        let v = f(i);
        if v > best.1 {
            best = (i, v);
        }
    }
    best
}

/// A triangle of the hull under construction, counter-clockwise seen from outside.
struct Face {
    v: [usize; 3],
    normal: DVec3,
    offset: f64,
    /// `nbr[i]` is the face across the edge `v[i] -> v[(i + 1) % 3]`.
    nbr: [usize; 3],
    /// Points farther than the tolerance above this face, with that distance.
    outside: Vec<(usize, f64)>,
    alive: bool,
    /// Visibility from the current eye is valid when `stamp` equals the builder's stamp.
    stamp: u32,
    visible: bool,
}

/// An edge between a face the eye sees and one it does not, oriented as in the visible face.
#[derive(Clone, Copy)]
struct HorizonEdge {
    a: usize,
    b: usize,
    outer: usize,
}

/// The incremental quickhull state.
struct Builder<'a> {
    pts: &'a [DVec3],
    tol: f64,
    faces: Vec<Face>,
    /// Faces that may have outside points (a stack: the order only has to be deterministic).
    pending: Vec<usize>,
    stamp: u32,
}

impl<'a> Builder<'a> {
    fn new(cloud: &'a Cloud, s: [usize; 4]) -> Builder<'a> {
        let mut b =
            Builder { pts: &cloud.pts, tol: cloud.tol, faces: Vec::new(), pending: Vec::new(), stamp: 0 };
        for v in [[s[0], s[1], s[2]], [s[0], s[3], s[1]], [s[1], s[3], s[2]], [s[2], s[3], s[0]]] {
            b.push_face(v);
        }
        for f in 0..4 {
            for i in 0..3 {
                let (x, y) = (b.faces[f].v[i], b.faces[f].v[(i + 1) % 3]);
                b.faces[f].nbr[i] = (0..4).find(|&g| b.edge_slot(g, y, x).is_some()).unwrap_or(f);
            }
        }
        let rest: Vec<usize> = (0..cloud.pts.len()).filter(|i| !s.contains(i)).collect();
        b.assign(&rest, &[0, 1, 2, 3]);
        b
    }

    fn push_face(&mut self, v: [usize; 3]) -> usize {
        let [a, b, c] = v.map(|i| self.pts[i]);
        // The eye is strictly above the seen face holding the base edge, so the area is not 0.
        let normal = (b - a).cross(c - a).normalize_or_zero();
        let offset = normal.dot((a + b + c) / 3.0);
        let nbr = [usize::MAX; 3];
        self.faces.push(Face {
            v,
            normal,
            offset,
            nbr,
            outside: Vec::new(),
            alive: true,
            stamp: 0,
            visible: false,
        });
        self.faces.len() - 1
    }

    fn distance(&self, f: usize, p: usize) -> f64 {
        self.faces[f].normal.dot(self.pts[p]) - self.faces[f].offset
    }

    /// Which edge slot of face `f` runs from `a` to `b`.
    fn edge_slot(&self, f: usize, a: usize, b: usize) -> Option<usize> {
        let v = self.faces[f].v;
        (0..3).find(|&i| v[i] == a && v[(i + 1) % 3] == b)
    }

    /// Puts each point into the outside set of the candidate face it is farthest above; points
    /// above none (within the tolerance) are inside and dropped for good.
    fn assign(&mut self, points: &[usize], candidates: &[usize]) {
        for &p in points {
            let mut best = None;
            let mut best_dist = self.tol;
            for &f in candidates {
                let d = self.distance(f, p);
                if d > best_dist {
                    (best, best_dist) = (Some(f), d);
                }
            }
            if let Some(f) = best {
                self.faces[f].outside.push((p, best_dist));
            }
        }
        self.pending.extend(candidates.iter().filter(|&&f| !self.faces[f].outside.is_empty()));
    }

    fn run(&mut self) {
        while let Some(f) = self.pending.pop() {
            if !self.faces[f].alive || self.faces[f].outside.is_empty() {
                continue;
            }
            let outside = &self.faces[f].outside;
            let (slot, _) = argmax(outside.len(), |k| outside[k].1);
            let eye = outside[slot].0;
            match self.horizon(f, eye) {
                Some((visible, horizon)) => self.add_vertex(eye, &visible, &horizon),
                None => {
                    // The visible region is not a disc (only possible through rounding on a
                    // nearly flat patch): leave this point out rather than break the surface.
                    self.faces[f].outside.remove(slot);
                    self.pending.push(f);
                }
            }
        }
    }

    /// The faces `eye` sees (connected to `start`) and the horizon as one ordered loop, or `None`
    /// if the horizon is not one simple loop.
    ///
    /// A face is seen when the eye is above its plane at all, not by the tolerance: with `f64`
    /// arithmetic on `f32` input the hull then stays convex to far below the tolerance, and a
    /// point found inside all new faces is truly inside. (Seeing only faces the eye is more than `tol`
    /// above would leave folds up to `tol` deep that later faces can tilt further.) Faces the
    /// eye is coplanar with may go either way; the thin triangles that leaves are merged later.
    fn horizon(&mut self, start: usize, eye: usize) -> Option<(Vec<usize>, Vec<HorizonEdge>)> {
        let (visible, edges) = self.visible_region(start, eye);
        let pairs: Vec<(usize, usize)> = edges.iter().map(|e| (e.a, e.b)).collect();
        let horizon = chain(&pairs)?.iter().map(|&k| edges[k]).collect();
        Some((visible, horizon))
    }

    /// Flood-fills the faces `eye` sees from `start`, collecting the edges to unseen faces.
    fn visible_region(&mut self, start: usize, eye: usize) -> (Vec<usize>, Vec<HorizonEdge>) {
        self.stamp += 1;
        let stamp = self.stamp;
        (self.faces[start].stamp, self.faces[start].visible) = (stamp, true);
        let mut visible = vec![start];
        let mut edges = Vec::new();
        let mut next = 0;
        while next < visible.len() {
            let f = visible[next];
            next += 1;
            for i in 0..3 {
                let g = self.faces[f].nbr[i];
                if self.faces[g].stamp != stamp {
                    let sees = self.distance(g, eye) > 0.0;
                    (self.faces[g].stamp, self.faces[g].visible) = (stamp, sees);
                    if sees {
                        visible.push(g);
                    }
                }
                if !self.faces[g].visible {
                    let v = self.faces[f].v;
                    edges.push(HorizonEdge { a: v[i], b: v[(i + 1) % 3], outer: g });
                }
            }
        }
        (visible, edges)
    }

    /// Replaces the visible faces by a cone from the horizon to `eye`.
    fn add_vertex(&mut self, eye: usize, visible: &[usize], horizon: &[HorizonEdge]) {
        let first = self.faces.len();
        let k = horizon.len();
        for (j, e) in horizon.iter().enumerate() {
            let f = self.push_face([e.a, e.b, eye]);
            self.faces[f].nbr = [e.outer, first + (j + 1) % k, first + (j + k - 1) % k];
            let slot = self.edge_slot(e.outer, e.b, e.a);
            debug_assert!(slot.is_some(), "a horizon edge always has its twin in the outer face");
            if let Some(slot) = slot {
                self.faces[e.outer].nbr[slot] = f;
            }
        }
        let mut orphans = Vec::new();
        for &f in visible {
            self.faces[f].alive = false;
            let outside = std::mem::take(&mut self.faces[f].outside);
            orphans.extend(outside.into_iter().map(|(p, _)| p).filter(|&p| p != eye));
        }
        let cone: Vec<usize> = (first..first + k).collect();
        self.assign(&orphans, &cone);
    }

    /// The finished triangles, renumbered densely, with their neighbours.
    fn into_mesh(self) -> Mesh {
        let mut index = vec![usize::MAX; self.faces.len()];
        let mut tris = Vec::new();
        for (f, face) in self.faces.iter().enumerate().filter(|(_, face)| face.alive) {
            index[f] = tris.len();
            tris.push(face.v);
        }
        let nbrs = self.faces.iter().filter(|f| f.alive).map(|f| f.nbr.map(|g| index[g])).collect();
        Mesh { tris, nbrs }
    }
}

/// Orders directed edges `(from, to)` into one closed loop starting with edge 0, returning edge
/// indices; `None` unless they form exactly one simple loop.
fn chain(edges: &[(usize, usize)]) -> Option<Vec<usize>> {
    let mut by_start: Vec<(usize, usize)> = edges.iter().enumerate().map(|(k, e)| (e.0, k)).collect();
    by_start.sort_unstable();
    if edges.is_empty() || by_start.windows(2).any(|w| w[0].0 == w[1].0) {
        return None;
    }
    let mut order = Vec::with_capacity(edges.len());
    let mut cur = 0;
    for step in 0..edges.len() {
        order.push(cur);
        let next = by_start[by_start.binary_search_by_key(&edges[cur].1, |s| s.0).ok()?].1;
        // Back at the first edge exactly when every edge has been used: one loop, no sub-loops.
        if (next == 0) != (step + 1 == edges.len()) {
            return None;
        }
        cur = next;
    }
    Some(order)
}

/// A closed triangle mesh: `nbrs[t][i]` is across the edge `tris[t][i] -> tris[t][(i + 1) % 3]`.
struct Mesh {
    tris: Vec<[usize; 3]>,
    nbrs: Vec<[usize; 3]>,
}

/// Groups coplanar neighbouring triangles into polygons (vertex loops of point indices,
/// counter-clockwise seen from outside). Seeds go largest triangle first, since big triangles
/// have the most trustworthy planes; a group whose outline is not one simple loop (possible
/// only through rounding) stays as separate triangles.
fn merge_coplanar(cloud: &Cloud, mesh: &Mesh) -> Vec<Vec<usize>> {
    let p = &cloud.pts;
    let planes: Vec<(DVec3, f64)> = mesh
        .tris
        .iter()
        .map(|&[a, b, c]| {
            let n = (p[b] - p[a]).cross(p[c] - p[a]);
            (n.normalize_or_zero(), n.length())
        })
        .collect();
    let mut order: Vec<usize> = (0..mesh.tris.len()).collect();
    order.sort_by(|&i, &j| planes[j].1.total_cmp(&planes[i].1).then(i.cmp(&j)));
    let mut group = vec![usize::MAX; mesh.tris.len()];
    let mut loops = Vec::new();
    for seed in order {
        if group[seed] != usize::MAX {
            continue;
        }
        let members = grow_group(cloud, mesh, &planes, &mut group, seed);
        match group_outline(mesh, &group, &members, seed) {
            Some(outline) => loops.push(outline),
            None => loops.extend(members.iter().map(|&t| mesh.tris[t].to_vec())),
        }
    }
    loops
}

/// Flood-fills from `seed` over neighbours whose vertices all lie within the tolerance of the
/// seed's plane. There is no separate angle test: a triangle of size `s` that passes is tilted
/// by at most about `2 tol / s`, and thin triangles (three nearly collinear points on an edge),
/// whose normals are mere rounding, must merge: alone they would be faces with meaningless
/// planes.
fn grow_group(
    cloud: &Cloud,
    mesh: &Mesh,
    planes: &[(DVec3, f64)],
    group: &mut [usize],
    seed: usize,
) -> Vec<usize> {
    let normal = planes[seed].0;
    let offset = normal.dot(cloud.pts[mesh.tris[seed][0]]);
    let fits =
        |t: usize| mesh.tris[t].iter().all(|&v| (normal.dot(cloud.pts[v]) - offset).abs() <= cloud.tol);
    group[seed] = seed;
    let mut members = vec![seed];
    let mut next = 0;
    while next < members.len() {
        let t = members[next];
        next += 1;
        for u in mesh.nbrs[t] {
            if group[u] == usize::MAX && fits(u) {
                group[u] = seed;
                members.push(u);
            }
        }
    }
    members
}

/// The outline of a group of triangles as one vertex loop, or `None` if it is not one loop.
fn group_outline(mesh: &Mesh, group: &[usize], members: &[usize], id: usize) -> Option<Vec<usize>> {
    if members.len() == 1 {
        return Some(mesh.tris[members[0]].to_vec());
    }
    let mut edges = Vec::new();
    for &t in members {
        for i in 0..3 {
            if group[mesh.nbrs[t][i]] != id {
                edges.push((mesh.tris[t][i], mesh.tris[t][(i + 1) % 3]));
            }
        }
    }
    Some(chain(&edges)?.iter().map(|&k| edges[k].0).collect())
}

/// Drops vertices that belong to only two faces: such a vertex sits in the middle of the straight
/// edge between them (for example an edge midpoint picked up by the initial tetrahedron).
fn remove_edge_vertices(loops: Vec<Vec<usize>>) -> Vec<Vec<usize>> {
    let mut face_count: Vec<(usize, usize)> = Vec::new();
    let mut all: Vec<usize> = loops.iter().flatten().copied().collect();
    all.sort_unstable();
    for v in all {
        match face_count.last_mut() {
            Some((last, n)) if *last == v => *n += 1,
            _ => face_count.push((v, 1)),
        }
    }
    let on_edge = |v: usize| face_count.binary_search_by_key(&v, |c| c.0).is_ok_and(|k| face_count[k].1 == 2);
    let trimmed: Vec<Vec<usize>> =
        loops.iter().map(|l| l.iter().copied().filter(|&v| !on_edge(v)).collect()).collect();
    // Removing from one face but not its partner would open the surface; keep all or nothing.
    if trimmed.iter().all(|l: &Vec<usize>| l.len() >= 3) { trimmed } else { loops }
}

/// The point indices the loops use, ascending.
fn used_vertices(loops: &[Vec<usize>]) -> Vec<usize> {
    let mut used: Vec<usize> = loops.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    used
}

/// The hull's own vertex list and the loops renumbered into it.
fn renumber(points: &[Vec3], used: &[usize], loops: &[Vec<usize>]) -> (Vec<Vec3>, Vec<Vec<u16>>) {
    let vertices = used.iter().map(|&i| points[i]).collect();
    let index = |v: usize| used.binary_search(&v).map_or(0, |k| k as u16);
    (vertices, loops.iter().map(|l| l.iter().map(|&v| index(v)).collect()).collect())
}

/// Picks at most [`MAX_HULL_VERTICES`] input points to approximate a hull with too many vertices.
///
/// First the initial tetrahedron (so the subset is never flat), then the extreme vertex along each
/// of 26 fixed directions (the axes, the 12 edge and 8 corner diagonals of a cube: this keeps the
/// bounding box and the main extents), then farthest-point sampling: repeatedly the hull vertex
/// farthest from everything chosen so far, which spreads the rest evenly over the surface and
/// bounds how far any dropped vertex is from a kept one. All ties go to the lowest index.
fn simplify(cloud: &Cloud, used: &[usize], simplex: [usize; 4]) -> Vec<usize> {
    let p = &cloud.pts;
    let mut chosen: Vec<usize> = simplex.to_vec();
    for x in -1..=1 {
        for y in -1..=1 {
            for z in -1..=1 {
                let dir = DVec3::new(x as f64, y as f64, z as f64);
                let (k, _) = argmax(used.len(), |k| p[used[k]].dot(dir));
                if dir != DVec3::ZERO && !chosen.contains(&used[k]) {
                    chosen.push(used[k]);
                }
            }
        }
    }
    let gap_to = |v: usize, chosen: &[usize]| {
        chosen.iter().map(|&c| p[v].distance_squared(p[c])).fold(f64::MAX, f64::min)
    };
    let mut gap: Vec<f64> = used.iter().map(|&v| gap_to(v, &chosen)).collect();
    while chosen.len() < MAX_HULL_VERTICES {
        let (k, g) = argmax(used.len(), |k| gap[k]);
        if g <= 0.0 {
            break;
        }
        chosen.push(used[k]);
        for (j, &v) in used.iter().enumerate() {
            gap[j] = gap[j].min(p[v].distance_squared(p[used[k]]));
        }
    }
    chosen
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A small deterministic generator (64-bit LCG, top bits) so tests need no dependency.
    struct Lcg(u64);

    impl Lcg {
        fn unit(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (self.0 >> 40) as f32 / (1u64 << 24) as f32
        }

        fn on_sphere(&mut self) -> Vec3 {
            loop {
                let v = Vec3::new(self.unit(), self.unit(), self.unit()) * 2.0 - Vec3::ONE;
                if v.length_squared() > 0.01 && v.length_squared() <= 1.0 {
                    return v.normalize();
                }
            }
        }
    }

    fn triangle_hull(points: &[Vec3]) -> (Cloud, Mesh) {
        let cloud = Cloud::new(points).unwrap();
        let mut b = Builder::new(&cloud, cloud.initial_simplex().unwrap());
        b.run();
        let mesh = b.into_mesh();
        (cloud, mesh)
    }

    #[test]
    fn unsimplified_sphere_hull_contains_every_point() {
        let mut rng = Lcg(7);
        let points: Vec<Vec3> = (0..2000).map(|_| rng.on_sphere()).collect();
        let (cloud, mesh) = triangle_hull(&points);
        // Closed triangle mesh: each neighbour link is mutual.
        for (t, nb) in mesh.nbrs.iter().enumerate() {
            for &u in nb {
                assert!(mesh.nbrs[u].contains(&t));
            }
        }
        let v = used_vertices(&mesh.tris.iter().map(|t| t.to_vec()).collect::<Vec<_>>()).len();
        assert_eq!(v as i64 - (mesh.tris.len() * 3 / 2) as i64 + mesh.tris.len() as i64, 2);
        assert!(v > 1900, "points on a sphere are nearly all hull vertices, got {v}");
        for &[a, b, c] in &mesh.tris {
            let n = (cloud.pts[b] - cloud.pts[a]).cross(cloud.pts[c] - cloud.pts[a]).normalize();
            for (k, q) in cloud.pts.iter().enumerate() {
                let d = n.dot(*q - cloud.pts[a]);
                assert!(d <= cloud.tol, "point {k} is {d} above a face (tol {})", cloud.tol);
            }
        }
    }

    #[test]
    fn shuffled_grids_give_boxes() {
        // Many exactly collinear and coplanar points, in many orders: the sliver and merge paths.
        for seed in 0..20 {
            let mut rng = Lcg(seed);
            let mut points: Vec<Vec3> =
                (0..125).map(|i| Vec3::new((i % 5) as f32, (i / 5 % 5) as f32, (i / 25) as f32)).collect();
            for i in (1..points.len()).rev() {
                let j = ((rng.unit() * (i + 1) as f32) as usize).min(i);
                points.swap(i, j);
            }
            let hull = ConvexHull::from_points(&points).unwrap();
            assert_eq!((hull.vertices().len(), hull.faces().len(), hull.edges().len()), (8, 6, 12));
            assert!((hull.unit_mass().mass - 64.0).abs() < 1e-3);
        }
    }

    #[test]
    fn chain_rejects_two_loops() {
        assert_eq!(chain(&[(0, 1), (1, 2), (2, 0)]), Some(vec![0, 1, 2]));
        assert_eq!(chain(&[(0, 1), (1, 0), (2, 3), (3, 2)]), None);
        assert_eq!(chain(&[(0, 1), (1, 2), (0, 2)]), None);
    }

    #[test]
    fn box_with_edge_and_face_points_merges_to_quads() {
        let mut points = Vec::new();
        for i in 0..27 {
            points.push(Vec3::new((i % 3) as f32 - 1.0, (i / 3 % 3) as f32 - 1.0, (i / 9) as f32 - 1.0));
        }
        let hull = ConvexHull::from_points(&points).unwrap();
        assert_eq!((hull.vertices().len(), hull.faces().len(), hull.edges().len()), (8, 6, 12));
    }

    #[test]
    fn simplified_hull_is_deterministic() {
        let mut rng = Lcg(3);
        let points: Vec<Vec3> = (0..500).map(|_| rng.on_sphere() * Vec3::new(1.0, 2.0, 0.5)).collect();
        let a = ConvexHull::from_points(&points).unwrap();
        let b = ConvexHull::from_points(&points).unwrap();
        assert_eq!(a, b);
        assert!(a.vertices().len() <= MAX_HULL_VERTICES);
    }
}
