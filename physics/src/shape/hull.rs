//! Convex hull storage: vertices, polygonal faces with planes, and unique edges with their two
//! adjacent faces (what the separating-axis tests and face clipping need).

use super::mass::{MassProperties, polyhedron_unit_mass};
use super::scan_rows::ScanRows;
use crate::error::AtollError;
use crate::math::{Aabb, Vec3};

/// Hulls are capped at this many vertices: more adds cost to every support query and contact
/// test while changing the shape by less than a collision margin.
pub const MAX_HULL_VERTICES: usize = 64;

/// A planar face of a hull. Its vertex loop is counter-clockwise seen from outside.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HullFace {
    /// Outward unit normal.
    pub normal: Vec3,
    /// Plane offset: points `x` on the face satisfy `normal.dot(x) == offset`.
    pub offset: f32,
    /// Index of the face's first vertex index in the hull's face-vertex list.
    pub first: u16,
    /// Number of vertices in the loop.
    pub count: u16,
}

/// An edge shared by two faces, stored once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HullEdge {
    /// The edge's end points (vertex indices). Walking from `vertices[0]` to `vertices[1]` keeps
    /// `faces[0]` on the left seen from outside.
    pub vertices: [u16; 2],
    /// The two faces meeting at this edge.
    pub faces: [u16; 2],
}

/// A convex polyhedron in local space.
#[derive(Clone, Debug, PartialEq)]
pub struct ConvexHull {
    vertices: Vec<Vec3>,
    faces: Vec<HullFace>,
    face_vertices: Vec<u16>,
    edges: Vec<HullEdge>,
    local_aabb: Aabb,
    inner_radius: f32,
    unit_mass: MassProperties,
    /// The vertices four to a row, for the support scan.
    vertex_rows: ScanRows,
    /// The face normals four to a row, for the most-opposed-face scan.
    normal_rows: ScanRows,
}

impl ConvexHull {
    /// Builds a hull from vertices and face loops (counter-clockwise seen from outside). The
    /// input must already be convex and closed; quickhull and the box constructor produce it.
    pub(crate) fn from_faces(vertices: Vec<Vec3>, loops: &[Vec<u16>]) -> Result<ConvexHull, AtollError> {
        if vertices.len() < 4 || loops.len() < 4 {
            return Err(AtollError::invalid("convex hull", "needs at least 4 vertices and 4 faces"));
        }
        let mut faces = Vec::with_capacity(loops.len());
        let mut face_vertices = Vec::new();
        for l in loops {
            if l.len() < 3 {
                return Err(AtollError::invalid("convex hull", "a face has fewer than 3 vertices"));
            }
            // Newell's method, on coordinates relative to the face centroid so a long thin face
            // far from the origin keeps an accurate plane.
            let centroid = l.iter().map(|&a| vertices[a as usize]).sum::<Vec3>() / l.len() as f32;
            let mut n = Vec3::ZERO;
            for (i, &a) in l.iter().enumerate() {
                let p = vertices[a as usize] - centroid;
                let q = vertices[l[(i + 1) % l.len()] as usize] - centroid;
                n += Vec3::new(
                    (p.y - q.y) * (p.z + q.z),
                    (p.z - q.z) * (p.x + q.x),
                    (p.x - q.x) * (p.y + q.y),
                );
            }
            let normal = n
                .try_normalize()
                .ok_or_else(|| AtollError::invalid("convex hull", "a face has zero area"))?;
            faces.push(HullFace {
                normal,
                offset: normal.dot(centroid),
                first: face_vertices.len() as u16,
                count: l.len() as u16,
            });
            face_vertices.extend_from_slice(l);
        }
        // Pair directed half-edges into unique edges. Hulls are tiny, so a sort is plenty.
        let mut half_edges: Vec<(u16, u16, u16)> = Vec::new();
        for (f, l) in loops.iter().enumerate() {
            for (i, &a) in l.iter().enumerate() {
                half_edges.push((a, l[(i + 1) % l.len()], f as u16));
            }
        }
        let mut sorted = half_edges.clone();
        sorted.sort_unstable();
        let mut edges = Vec::new();
        for &(a, b, f) in &half_edges {
            if a < b {
                let twin =
                    sorted.binary_search_by(|probe| (probe.0, probe.1).cmp(&(b, a))).map_err(|_| {
                        AtollError::invalid("convex hull", "the faces do not form a closed surface")
                    })?;
                edges.push(HullEdge { vertices: [a, b], faces: [f, sorted[twin].2] });
            }
        }
        let local_aabb = vertices
            .iter()
            .fold(Aabb::new(Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |b, &v| b.union(&Aabb::new(v, v)));
        let unit_mass = polyhedron_unit_mass(&vertices, loops.iter().map(|l| l.as_slice()));
        if unit_mass.mass.is_nan() || unit_mass.mass <= 0.0 || !unit_mass.local_center.is_finite() {
            return Err(AtollError::invalid("convex hull", "has no volume"));
        }
        let inner_radius = faces
            .iter()
            .map(|f| f.offset - f.normal.dot(unit_mass.local_center))
            .fold(f32::MAX, f32::min)
            .max(0.0);
        let vertex_rows = ScanRows::new(&vertices);
        let normal_rows = ScanRows::new(&faces.iter().map(|f| f.normal).collect::<Vec<_>>());
        Ok(ConvexHull {
            vertices,
            faces,
            face_vertices,
            edges,
            local_aabb,
            inner_radius,
            unit_mass,
            vertex_rows,
            normal_rows,
        })
    }

    /// The box with the given half extents as a hull (8 vertices, 6 faces, 12 edges).
    pub fn cuboid(h: Vec3) -> ConvexHull {
        let vertices: Vec<Vec3> = (0..8)
            .map(|i| {
                Vec3::new(
                    if i & 1 == 0 { -h.x } else { h.x },
                    if i & 2 == 0 { -h.y } else { h.y },
                    if i & 4 == 0 { -h.z } else { h.z },
                )
            })
            .collect();
        let loops = vec![
            vec![0, 4, 6, 2], // -x
            vec![1, 3, 7, 5], // +x
            vec![0, 1, 5, 4], // -y
            vec![2, 6, 7, 3], // +y
            vec![0, 2, 3, 1], // -z
            vec![4, 5, 7, 6], // +z
        ];
        ConvexHull::from_faces(vertices, &loops).expect("a box is a valid hull")
    }

    /// Vertices in local space.
    pub fn vertices(&self) -> &[Vec3] {
        &self.vertices
    }

    /// Faces with their planes.
    pub fn faces(&self) -> &[HullFace] {
        &self.faces
    }

    /// The vertex indices of face `face`, counter-clockwise seen from outside.
    pub fn face_vertex_indices(&self, face: usize) -> &[u16] {
        let f = &self.faces[face];
        &self.face_vertices[f.first as usize..(f.first + f.count) as usize]
    }

    /// Unique edges with their adjacent faces.
    pub fn edges(&self) -> &[HullEdge] {
        &self.edges
    }

    /// Local bounds.
    pub fn local_aabb(&self) -> Aabb {
        self.local_aabb
    }

    /// Distance from the centroid to the nearest face plane.
    pub fn inner_radius(&self) -> f32 {
        self.inner_radius
    }

    /// Mass properties at density 1.
    pub fn unit_mass(&self) -> &MassProperties {
        &self.unit_mass
    }

    /// Index of the vertex farthest along `dir` (lowest index on ties, for determinism).
    /// Four vertices at a time, from rows kept beside the vertices: the answer of scanning them
    /// one by one with `d > best` from `f32::MIN`, for any direction.
    #[inline]
    pub fn support_index(&self, dir: Vec3) -> usize {
        self.vertex_rows.first_max(dir)
    }

    /// The face whose outward normal is most opposed to `n` (first on ties), four faces at a
    /// time: the answer of scanning them in order with `d < best` from `f32::MAX`.
    #[inline]
    pub fn most_opposed_face(&self, n: Vec3) -> usize {
        self.normal_rows.first_min(n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cuboid_topology() {
        let hull = ConvexHull::cuboid(Vec3::new(1.0, 2.0, 3.0));
        assert_eq!(hull.vertices().len(), 8);
        assert_eq!(hull.faces().len(), 6);
        assert_eq!(hull.edges().len(), 12);
        // Every vertex lies on or behind every face plane: the loops wind outward.
        for f in hull.faces() {
            for v in hull.vertices() {
                assert!(f.normal.dot(*v) - f.offset <= 1e-5);
            }
        }
        assert!((hull.faces()[3].normal - Vec3::Y).length() < 1e-6);
        assert!((hull.inner_radius() - 1.0).abs() < 1e-6);
    }
}
