//! The parry3d side: the terrain's triangles as parry `TriMesh`es and ray casts against them.
//! parry3d is the version rapier3d 0.36 depends on (reached through `rapier3d::parry`, so
//! nothing is compiled twice); its math is glam 0.33, Atoll's 0.34, so vectors cross as arrays.

use super::rays::Ray;
use atoll_physics::Vec3;
use atoll_physics::terrain::ChunkMesh;
use rapier3d::parry::math::Vector as PVec;
use rapier3d::parry::query::{Ray as PRay, RayCast};
use rapier3d::parry::shape::TriMesh;

/// Triangles in the form `TriMesh::new` takes: world-space vertices and index triples.
#[derive(Clone, Debug, Default)]
pub struct Triangles {
    /// Vertex positions, world space.
    pub vertices: Vec<PVec>,
    /// Vertex indices per triangle.
    pub indices: Vec<[u32; 3]>,
}

impl Triangles {
    /// Appends a chunk mesh's triangles at their world positions (`origin` is the chunk's first
    /// corner, `voxel_size` the metres per local unit), the way `Terrain::render_mesh` places
    /// them.
    pub fn append_chunk(&mut self, mesh: &ChunkMesh, origin: Vec3, voxel_size: f32) {
        let base = self.vertices.len() as u32;
        self.vertices
            .extend((0..mesh.vertex_count()).map(|i| to_parry(origin + mesh.position(i) * voxel_size)));
        self.indices.extend(
            (0..mesh.triangle_count()).map(|t| mesh.triangle_indices(t).map(|i| base + u32::from(i))),
        );
    }

    /// Builds parry's mesh (its BVH) over these triangles; consumes a copy made by the caller,
    /// so the copy stays outside any timing.
    pub fn into_trimesh(self) -> TriMesh {
        TriMesh::new(self.vertices, self.indices).expect("a non-empty chunk mesh is a valid TriMesh")
    }
}

/// An Atoll vector as a parry one.
pub fn to_parry(v: Vec3) -> PVec {
    PVec::from_array(v.to_array())
}

/// parry's closest hit along `ray` (solid, as the task compares; a triangle has no inside, so
/// `solid` changes nothing here), in metres.
#[inline]
pub fn cast(mesh: &TriMesh, ray: &Ray) -> Option<f32> {
    mesh.cast_local_ray(&PRay::new(to_parry(ray.origin), to_parry(ray.dir)), ray.max_t, true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn casts_through_the_conversion() {
        let t = Triangles {
            vertices: vec![to_parry(Vec3::new(0.0, 0.0, 0.0)), to_parry(Vec3::X), to_parry(Vec3::Z)],
            indices: vec![[0, 1, 2]],
        };
        let mesh = t.into_trimesh();
        let down = Ray { origin: Vec3::new(0.2, 2.0, 0.2), dir: -Vec3::Y, max_t: 5.0 };
        assert!((cast(&mesh, &down).unwrap() - 2.0).abs() < 1e-6);
        assert_eq!(cast(&mesh, &Ray { max_t: 1.0, ..down }), None);
        // From below: a triangle has two sides for a ray cast.
        let up = Ray { origin: Vec3::new(0.2, -1.0, 0.2), dir: Vec3::Y, max_t: 5.0 };
        assert!((cast(&mesh, &up).unwrap() - 1.0).abs() < 1e-6);
    }
}
