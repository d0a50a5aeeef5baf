//! A small read-only view of convex polyhedra, so the box and hull routines share one
//! implementation without building a heap-allocated hull for every box on every call.
//!
//! Boxes use [`BoxPoly`]: their topology (vertex numbering, face loops, edges) is borrowed from
//! one unit-cube [`ConvexHull`] built once per process, and their geometry is that cube scaled by
//! the half extents. Because the numbering is the one `ConvexHull::cuboid` uses, a box and the
//! equivalent hull produce the same contacts and the same feature ids.

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

/// The index before `k` in a face loop of `len` vertices, wrapping to the last.
#[inline]
pub(crate) fn loop_prev(k: usize, len: usize) -> usize {
    if k == 0 { len - 1 } else { k - 1 }
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
    /// against a reference plane of normal `n`.
    fn most_opposed_face(&self, n: Vec3) -> usize {
        let mut best = (0, f32::MAX);
        for f in 0..self.face_count() {
            let d = self.face_plane(f).0.dot(n);
            if d < best.1 {
                best = (f, d);
            }
        }
        best.0
    }
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
}

/// A box seen as a polyhedron: no allocation, topology shared with a static unit cube.
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

impl Polyhedron for BoxPoly {
    #[inline]
    fn vertex(&self, i: usize) -> Vec3 {
        self.topo.vertices()[i] * self.half
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
        let n = self.topo.faces()[i].normal;
        (n, n.abs().dot(self.half))
    }
    #[inline]
    fn face_loop(&self, i: usize) -> &[u16] {
        self.topo.face_vertex_indices(i)
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
}

impl<'a, P: Polyhedron + ?Sized> Posed<'a, P> {
    /// `poly` with its local frame mapped into the common frame by `xf`.
    pub(crate) fn new(poly: &'a P, xf: Transform) -> Self {
        let rotation = Mat3::from_quat(xf.rotation);
        Posed { poly, rotation, position: xf.position, inv_rotation: rotation.transpose() }
    }

    /// `poly` in its own frame: the common frame is its local one. (The identity quaternion's
    /// matrix is the identity matrix, bit for bit, so this is `new` at the identity without the
    /// products.)
    pub(crate) fn at_identity(poly: &'a P) -> Self {
        Posed { poly, rotation: Mat3::IDENTITY, position: Vec3::ZERO, inv_rotation: Mat3::IDENTITY }
    }

    /// The rotation into the common frame, as a matrix.
    #[inline]
    pub(crate) fn rotation(&self) -> &Mat3 {
        &self.rotation
    }

    /// Vertex `i` in the common frame.
    #[inline]
    pub(crate) fn vertex(&self, i: usize) -> Vec3 {
        self.rotation * self.poly.vertex(i) + self.position
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
}
