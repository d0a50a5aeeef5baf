//! Triangle meshes for the body shapes, built once on the CPU and cached on the GPU by the
//! renderer. Unit meshes (sphere, box) are scaled per instance; capsules and hulls are built at
//! their real size because their proportions cannot be expressed by a per-axis scale.

use atoll_physics::ConvexHull;
use glam::Vec3;

/// One mesh vertex: position and outward normal in the shape's local frame.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Vertex {
    /// Local position.
    pub position: [f32; 3],
    /// Unit outward normal.
    pub normal: [f32; 3],
}

/// An indexed triangle list with counter-clockwise outward faces.
#[derive(Clone, Debug, Default)]
pub struct MeshData {
    /// Vertices.
    pub vertices: Vec<Vertex>,
    /// Three indices per triangle.
    pub indices: Vec<u32>,
}

impl MeshData {
    fn push(&mut self, position: Vec3, normal: Vec3) -> u32 {
        self.vertices.push(Vertex { position: position.into(), normal: normal.into() });
        (self.vertices.len() - 1) as u32
    }
}

/// Longitude segments of spheres and capsules: smooth at editor sizes without many triangles.
const SEGMENTS: u32 = 32;
/// Latitude rings of a whole sphere (capsule caps get half each).
const RINGS: u32 = 16;

/// A sphere of radius 1 centred on the origin.
pub fn unit_sphere() -> MeshData {
    // A capsule with no cylinder is a sphere.
    capsule(0.0, 1.0)
}

/// A capsule along local Y: hemispheres of `radius` centred at `±half_height`, joined by a
/// cylinder. Rings run from the top pole to the bottom pole; the upper half of the rings sits on
/// the upper cap, so the cylinder is the band between the two equator rings.
pub fn capsule(half_height: f32, radius: f32) -> MeshData {
    let mut mesh = MeshData::default();
    let half_rings = RINGS / 2;
    // Ring i for i in 0..=half_rings belongs to the top cap, the rest to the bottom cap; the two
    // equators are duplicated so the cylinder band gets its own quad strip.
    let mut ring_rows = Vec::new();
    for cap in [1.0f32, -1.0] {
        for i in 0..=half_rings {
            // Angle from this cap's pole (top cap) or from the equator (bottom cap).
            let angle = std::f32::consts::FRAC_PI_2 * i as f32 / half_rings as f32;
            let (y_unit, r_unit) =
                if cap > 0.0 { (angle.cos(), angle.sin()) } else { (-angle.sin(), angle.cos()) };
            let centre_y = cap * half_height;
            let mut row = Vec::with_capacity(SEGMENTS as usize + 1);
            for s in 0..=SEGMENTS {
                let phi = std::f32::consts::TAU * s as f32 / SEGMENTS as f32;
                let normal = Vec3::new(r_unit * phi.cos(), y_unit, r_unit * phi.sin());
                let position = Vec3::new(0.0, centre_y, 0.0) + normal * radius;
                row.push(mesh.push(position, normal));
            }
            ring_rows.push(row);
        }
    }
    // Consecutive rows, from the top pole down, are joined by quads (the cylinder band included).
    for pair in ring_rows.windows(2) {
        let (upper, lower) = (&pair[0], &pair[1]);
        for s in 0..SEGMENTS as usize {
            let (a, b, c, d) = (upper[s], upper[s + 1], lower[s], lower[s + 1]);
            // Counter-clockwise seen from outside: phi grows from +X towards +Z.
            mesh.indices.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
    mesh
}

/// A cube with half extent 1 and flat faces.
pub fn unit_box() -> MeshData {
    let mut mesh = MeshData::default();
    for axis in 0..3 {
        for sign in [1.0f32, -1.0] {
            let mut normal = Vec3::ZERO;
            normal[axis] = sign;
            // Two tangents such that u × v = normal, which makes (0,1,2) counter-clockwise.
            let u = Vec3::from_array(std::array::from_fn(|i| if i == (axis + 1) % 3 { 1.0 } else { 0.0 }));
            let v = normal.cross(u);
            let corners = [-u - v, u - v, u + v, -u + v].map(|c| normal + c);
            let first = mesh.vertices.len() as u32;
            for corner in corners {
                mesh.push(corner, normal);
            }
            mesh.indices.extend_from_slice(&[first, first + 1, first + 2, first, first + 2, first + 3]);
        }
    }
    mesh
}

/// A convex hull with flat faces, each face fanned from its first vertex.
pub fn hull(hull: &ConvexHull) -> MeshData {
    let mut mesh = MeshData::default();
    let points = hull.vertices();
    let centroid = points.iter().copied().sum::<Vec3>() / points.len().max(1) as f32;
    for face in 0..hull.faces().len() {
        let ring: Vec<Vec3> = hull.face_vertex_indices(face).iter().map(|&i| points[i as usize]).collect();
        if ring.len() < 3 {
            continue;
        }
        let (normal, outward_order) = outward_normal(&ring, centroid);
        let first = mesh.vertices.len() as u32;
        for &p in &ring {
            mesh.push(p, normal);
        }
        for k in 1..ring.len() as u32 - 1 {
            let tri = [first, first + k, first + k + 1];
            if outward_order {
                mesh.indices.extend_from_slice(&tri);
            } else {
                mesh.indices.extend_from_slice(&[tri[0], tri[2], tri[1]]);
            }
        }
    }
    mesh
}

/// The face normal (twice the vector area, Σ aᵢ × aᵢ₊₁, robust for any planar polygon) pointed
/// away from the hull centroid, and whether the ring's own order is counter-clockwise around it.
fn outward_normal(ring: &[Vec3], centroid: Vec3) -> (Vec3, bool) {
    let mut n = Vec3::ZERO;
    for (i, &a) in ring.iter().enumerate() {
        let b = ring[(i + 1) % ring.len()];
        n += a.cross(b);
    }
    let n = n.normalize_or_zero();
    let face_centre = ring.iter().copied().sum::<Vec3>() / ring.len() as f32;
    if n.dot(face_centre - centroid) >= 0.0 { (n, true) } else { (-n, false) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every triangle faces away from the origin (all these meshes are convex around it).
    fn assert_outward(mesh: &MeshData) {
        assert!(!mesh.indices.is_empty());
        for tri in mesh.indices.chunks(3) {
            let [a, b, c] = [0, 1, 2].map(|k| Vec3::from(mesh.vertices[tri[k] as usize].position));
            let face_normal = (b - a).cross(c - a);
            if face_normal.length() < 1e-6 {
                // Degenerate: pole triangles, and the empty cylinder band of a sphere.
                continue;
            }
            assert!(face_normal.dot(a + b + c) > 0.0, "inward triangle {tri:?}");
        }
    }

    #[test]
    fn meshes_wind_outward() {
        assert_outward(&unit_sphere());
        assert_outward(&unit_box());
        assert_outward(&capsule(0.5, 0.3));
        let tetra = ConvexHull::from_points(&[
            Vec3::new(1.0, 0.0, 0.0),
            Vec3::new(-1.0, 0.0, 0.3),
            Vec3::new(0.0, 1.0, 0.0),
            Vec3::new(0.0, -0.2, 1.0),
            Vec3::new(0.0, -0.2, -1.0),
        ])
        .unwrap();
        assert_outward(&hull(&tetra));
    }

    #[test]
    fn capsule_spans_its_height() {
        let mesh = capsule(0.75, 0.25);
        let top = mesh.vertices.iter().map(|v| v.position[1]).fold(f32::MIN, f32::max);
        let bottom = mesh.vertices.iter().map(|v| v.position[1]).fold(f32::MAX, f32::min);
        assert!((top - 1.0).abs() < 1e-5 && (bottom + 1.0).abs() < 1e-5);
    }
}
