//! A small read-only view of convex polyhedra, so the box and hull routines share one
//! implementation without building a heap-allocated hull for every box on every call.
//!
//! Boxes use [`BoxPoly`]: their topology (vertex numbering, face loops, edges) is the one
//! unit-cube [`ConvexHull`] built once per process has, and their geometry is that cube scaled
//! by the half extents. The corners, face normals and loops are also kept as constants
//! (`CORNER_SIGNS`, `FACE_NORMALS`, `FACE_LOOPS`, held equal to the cube's by a test), read
//! without going through the shared hull; its edges are read from it. Because the numbering is
//! the one `ConvexHull::cuboid` uses, a box and the equivalent hull produce the same contacts
//! and the same feature ids.

use crate::math::{Mat3, Transform, Vec3};
use crate::shape::{ConvexHull, HullEdge};
use std::sync::OnceLock;

/// The index after `k` in a face loop of `len` vertices, wrapping to the first: the hot loops
/// that walk a face's edges take it instead of `(k + 1) % len`, a division by a length unknown
/// at compile time, the slowest instruction of such a loop.
#[inline]
pub(crate) fn loop_next(k: usize, len: usize) -> usize {
    if k + 1 == len { 0 } else { k + 1 }
}

/// What the narrowphase needs from a convex polyhedron, in its local frame.
pub(crate) trait Polyhedron {
    /// Vertex `i`.
    fn vertex(&self, i: usize) -> Vec3;
    /// Number of vertices (at most [`crate::shape::MAX_HULL_VERTICES`]).
    fn vertex_count(&self) -> usize;
    /// The half extents when this is a box, whose closest points have a closed form.
    fn box_half_extents(&self) -> Option<Vec3> {
        None
    }
    /// Number of faces.
    fn face_count(&self) -> usize;
    /// Outward unit normal and offset of face `i` (`normal.dot(x) == offset` on the face).
    fn face_plane(&self, i: usize) -> (Vec3, f32);
    /// Vertex indices of face `i`, counter-clockwise seen from outside.
    fn face_loop(&self, i: usize) -> &[u16];
    /// Unique edges with their two adjacent faces.
    fn edges(&self) -> &[HullEdge];
    /// Index of the vertex farthest along `dir` (lowest index on ties).
    fn support_index(&self, dir: Vec3) -> usize;
    /// The face whose outward normal is most opposed to `n` (first on ties): the incident face
    /// against a reference plane of normal `n`. Each type answers what scanning its faces in
    /// order with `d < best` from `f32::MAX` would, faster (a box in closed form, a hull four
    /// faces at a time).
    fn most_opposed_face(&self, n: Vec3) -> usize;
}

impl Polyhedron for ConvexHull {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        self.vertices()[i]
    }
    #[inline]
    fn vertex_count(&self) -> usize {
        self.vertices().len()
    }
    #[inline]
    fn face_count(&self) -> usize {
        self.faces().len()
    }
    #[inline]
    fn face_plane(&self, i: usize) -> (Vec3, f32) {
        let f = &self.faces()[i];
        (f.normal, f.offset)
    }
    #[inline]
    fn face_loop(&self, i: usize) -> &[u16] {
        self.face_vertex_indices(i)
    }
    #[inline]
    fn edges(&self) -> &[HullEdge] {
        ConvexHull::edges(self)
    }
    #[inline]
    fn support_index(&self, dir: Vec3) -> usize {
        ConvexHull::support_index(self, dir)
    }
    #[inline]
    fn most_opposed_face(&self, n: Vec3) -> usize {
        ConvexHull::most_opposed_face(self, n)
    }
}

/// A box seen as a polyhedron: no allocation; its edges are a static unit cube's, its corners,
/// face normals and loops the constants above, which are that cube's.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BoxPoly {
    half: Vec3,
    topo: &'static ConvexHull,
}

impl BoxPoly {
    /// The box with these half extents.
    pub(crate) fn new(half: Vec3) -> BoxPoly {
        static UNIT_CUBE: OnceLock<ConvexHull> = OnceLock::new();
        BoxPoly { half, topo: UNIT_CUBE.get_or_init(|| ConvexHull::cuboid(Vec3::ONE)) }
    }
}

/// The unit cube's corners in [`ConvexHull::cuboid`]'s order (bit 0 of the index: `+x`, bit 1:
/// `+y`, bit 2: `+z`), kept here so that a box's vertex is one product, without reaching the
/// shared topology's vertex array through a pointer and a bounds check (about 1 % of a
/// tumbling pile's instructions).
const CORNER_SIGNS: [Vec3; 8] = {
    let mut signs = [Vec3::ZERO; 8];
    let mut i = 0;
    while i < 8 {
        signs[i] = Vec3::new(corner_sign(i, 1), corner_sign(i, 2), corner_sign(i, 4));
        i += 1;
    }
    signs
};

/// The unit cube's face normals and loops, as [`ConvexHull::cuboid`] makes them (its faces
/// `-x, +x, -y, +y, -z, +z`), for the same reason.
const FACE_NORMALS: [Vec3; 6] = [Vec3::NEG_X, Vec3::X, Vec3::NEG_Y, Vec3::Y, Vec3::NEG_Z, Vec3::Z];
/// See [`FACE_NORMALS`].
const FACE_LOOPS: [[u16; 4]; 6] =
    [[0, 4, 6, 2], [1, 3, 7, 5], [0, 1, 5, 4], [2, 6, 7, 3], [0, 2, 3, 1], [4, 5, 7, 6]];

/// `+1` where corner `i` has bit `bit` set, else `-1`.
const fn corner_sign(i: usize, bit: usize) -> f32 {
    if i & bit == 0 { -1.0 } else { 1.0 }
}

impl Polyhedron for BoxPoly {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        debug_assert!(i < 8, "box vertex {i}");
        CORNER_SIGNS[i & 7] * self.half
    }
    #[inline]
    fn vertex_count(&self) -> usize {
        8
    }
    #[inline]
    fn box_half_extents(&self) -> Option<Vec3> {
        Some(self.half)
    }
    #[inline]
    fn face_count(&self) -> usize {
        6
    }
    #[inline]
    fn face_plane(&self, i: usize) -> (Vec3, f32) {
        // The unit cube's normals are exact axis vectors, so the offset is one half extent.
        let n = FACE_NORMALS[i];
        (n, n.abs().dot(self.half))
    }
    #[inline]
    fn face_loop(&self, i: usize) -> &[u16] {
        &FACE_LOOPS[i]
    }
    #[inline]
    fn edges(&self) -> &[HullEdge] {
        self.topo.edges()
    }
    #[inline]
    fn support_index(&self, dir: Vec3) -> usize {
        // Vertex i has +x when bit 0 is set, +y for bit 1, +z for bit 2; a zero component picks
        // the negative side, which is the lower index, as the hull's tie rule does.
        (dir.x > 0.0) as usize | ((dir.y > 0.0) as usize) << 1 | ((dir.z > 0.0) as usize) << 2
    }
    #[inline]
    fn most_opposed_face(&self, n: Vec3) -> usize {
        // The faces' normals are -x, +x, -y, +y, -z, +z, exact axis vectors, so their dot
        // products with `n` are exactly these: the scan without its multiplications.
        let dots = [-n.x, n.x, -n.y, n.y, -n.z, n.z];
        let mut best = 0;
        for (f, &d) in dots.iter().enumerate().skip(1) {
            if d < dots[best] {
                best = f;
            }
        }
        best
    }
}

/// A polyhedron placed in a common frame by a rigid transform.
///
/// The rotation is kept as a matrix (and its transpose): the SAT and clipping loops rotate many
/// vertices and normals, and a matrix product is about a third of a quaternion rotation's cost.
pub(crate) struct Posed<'a, P: ?Sized> {
    pub(crate) poly: &'a P,
    rotation: Mat3,
    position: Vec3,
    inv_rotation: Mat3,
    /// Posed at the identity ([`Posed::at_identity`]): a vertex is its local self.
    identity: bool,
}

impl<'a, P: Polyhedron + ?Sized> Posed<'a, P> {
    /// `poly` with its local frame mapped into the common frame by `xf`.
    pub(crate) fn new(poly: &'a P, xf: Transform) -> Self {
        let rotation = Mat3::from_quat(xf.rotation);
        Posed { poly, rotation, position: xf.position, inv_rotation: rotation.transpose(), identity: false }
    }

    /// `poly` in its own frame: the common frame is its local one. (The identity quaternion's
    /// matrix is the identity matrix, bit for bit, so this is `new` at the identity without the
    /// products.)
    pub(crate) fn at_identity(poly: &'a P) -> Self {
        Posed {
            poly,
            rotation: Mat3::IDENTITY,
            position: Vec3::ZERO,
            inv_rotation: Mat3::IDENTITY,
            identity: true,
        }
    }

    /// The rotation into the common frame, as a matrix.
    #[inline]
    pub(crate) fn rotation(&self) -> &Mat3 {
        &self.rotation
    }

    /// Vertex `i` in the common frame.
    #[inline]
    pub(crate) fn vertex(&self, i: usize) -> Vec3 {
        let local = self.poly.vertex(i);
        if self.identity {
            // What the products below give at the identity, bit for bit, for a finite vertex:
            // each component plus zeros, which leaves it, a zero made `+0.0` by the sum.
            local + Vec3::ZERO
        } else {
            self.rotation * local + self.position
        }
    }

    /// Outward normal of face `i` in the common frame.
    #[inline]
    pub(crate) fn normal(&self, i: usize) -> Vec3 {
        self.rotation * self.poly.face_plane(i).0
    }

    /// Plane of face `i` in the common frame.
    #[inline]
    pub(crate) fn plane(&self, i: usize) -> (Vec3, f32) {
        let (n, d) = self.poly.face_plane(i);
        let n = self.rotation * n;
        (n, d + n.dot(self.position))
    }

    /// A direction of the common frame in the polyhedron's local frame.
    #[inline]
    pub(crate) fn to_local_vector(&self, v: Vec3) -> Vec3 {
        self.inv_rotation * v
    }

    /// A point of the common frame in the polyhedron's local frame.
    #[inline]
    pub(crate) fn to_local_point(&self, p: Vec3) -> Vec3 {
        self.inv_rotation * (p - self.position)
    }

    /// A point of the local frame in the common frame.
    #[inline]
    pub(crate) fn to_common_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.position
    }

    /// The face whose normal is most opposed to `n` (common frame; first on ties).
    #[inline]
    pub(crate) fn incident_face(&self, n: Vec3) -> usize {
        self.poly.most_opposed_face(self.to_local_vector(n))
    }

    /// The vertex farthest along `dir` (common frame), as index and position.
    #[inline]
    pub(crate) fn support(&self, dir: Vec3) -> (usize, Vec3) {
        let i = self.poly.support_index(self.to_local_vector(dir));
        (i, self.vertex(i))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Posing at the identity without the products gives the matrices `new` computes, bit for
    /// bit (no `-0.0` among the zeros), so the manifolds are the same.
    #[test]
    fn posing_at_the_identity_skips_only_the_products() {
        let cube = BoxPoly::new(Vec3::new(0.5, 1.0, 2.0));
        let (posed, skipped) = (Posed::new(&cube, Transform::IDENTITY), Posed::at_identity(&cube));
        let bits = |m: &Mat3| m.to_cols_array().map(f32::to_bits);
        assert_eq!(bits(&posed.rotation), bits(&skipped.rotation));
        assert_eq!(bits(&posed.inv_rotation), bits(&skipped.inv_rotation));
        assert_eq!(
            posed.position.to_array().map(f32::to_bits),
            skipped.position.to_array().map(f32::to_bits)
        );
    }

    /// A box's vertices, face normals and loops are the shared unit cube's (scaled), bit for
    /// bit.
    #[test]
    fn a_box_is_the_unit_cube_scaled() {
        let half = Vec3::new(0.5, 1.0, 2.0);
        let (cube, unit) = (BoxPoly::new(half), ConvexHull::cuboid(Vec3::ONE));
        let bits = |v: Vec3| v.to_array().map(f32::to_bits);
        for i in 0..8 {
            assert_eq!(bits(cube.vertex(i)), bits(unit.vertices()[i] * half), "vertex {i}");
        }
        for f in 0..6 {
            assert_eq!(bits(cube.face_plane(f).0), bits(unit.faces()[f].normal), "face {f}");
            assert_eq!(cube.face_loop(f), unit.face_vertex_indices(f), "face {f}");
        }
    }

    /// A vertex posed at the identity without the products is the one the products give, bit
    /// for bit, signed zeros included: the unit cube's vertices, a box's, and a hull's with
    /// `-0.0` and `+0.0` components.
    #[test]
    fn a_vertex_at_the_identity_is_the_product_at_the_identity() {
        let hull = crate::shape::ConvexHull::from_points(&[
            Vec3::new(-0.0, 1.0, 0.0),
            Vec3::new(1.0, -0.0, -0.0),
            Vec3::new(0.0, 0.0, 1.0),
            Vec3::new(-1.0, -1.0, -1.0),
            Vec3::new(0.25, 0.5, -0.75),
        ])
        .expect("a hull");
        let cube = BoxPoly::new(Vec3::new(0.5, 1.0, 2.0));
        let bits = |v: Vec3| v.to_array().map(f32::to_bits);
        let (posed, skipped) = (Posed::new(&hull, Transform::IDENTITY), Posed::at_identity(&hull));
        for i in 0..hull.vertex_count() {
            assert_eq!(bits(posed.vertex(i)), bits(skipped.vertex(i)), "hull vertex {i}");
        }
        let (posed, skipped) = (Posed::new(&cube, Transform::IDENTITY), Posed::at_identity(&cube));
        for i in 0..8 {
            assert_eq!(bits(posed.vertex(i)), bits(skipped.vertex(i)), "box vertex {i}");
        }
    }
}
