//! The benchmarked terrain and what every figure reads from it: each chunk that has triangles,
//! with its mesh and kD tree and its triangles in world space for parry3d.

use super::parry::Triangles;
use atoll_physics::Terrain;
use atoll_physics::terrain::{ChunkCollision, ChunkCoord};

/// One chunk with triangles.
pub struct ChunkData {
    /// Its coordinate.
    pub coord: ChunkCoord,
    /// Mesh (in tree order) and kD tree, as the terrain's cache holds them.
    pub collision: ChunkCollision,
    /// The same triangles at their world positions.
    pub triangles: Triangles,
}

/// The terrain and its chunks with triangles, in coordinate order.
pub struct TerrainData {
    /// The terrain.
    pub terrain: Terrain,
    /// Chunks whose solid mesh has at least one triangle.
    pub chunks: Vec<ChunkData>,
}

impl TerrainData {
    /// Meshes every stored chunk of `terrain` once.
    pub fn new(terrain: Terrain) -> TerrainData {
        let s = terrain.voxel_size();
        let chunks = terrain
            .chunks()
            .filter_map(|(coord, _)| {
                let collision = terrain.build_chunk_collision(coord);
                if collision.mesh.is_empty() {
                    return None;
                }
                let mut triangles = Triangles::default();
                triangles.append_chunk(&collision.mesh, terrain.chunk_origin(coord), s);
                Some(ChunkData { coord, collision, triangles })
            })
            .collect();
        TerrainData { terrain, chunks }
    }

    /// Every chunk's triangles in one set (vertices on a seam appear once per chunk).
    pub fn all_triangles(&self) -> Triangles {
        let s = self.terrain.voxel_size();
        let mut all = Triangles::default();
        for c in &self.chunks {
            all.append_chunk(&c.collision.mesh, self.terrain.chunk_origin(c.coord), s);
        }
        all
    }

    /// Triangles over every chunk.
    pub fn triangle_count(&self) -> usize {
        self.chunks.iter().map(|c| c.collision.mesh.triangle_count()).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::TerrainSettings;
    use atoll_physics::terrain::{Voxel, VoxelMaterial};

    #[test]
    fn merged_triangles_keep_each_chunks_vertices() {
        // Solid below y = 3 voxels: a flat floor across four chunks.
        let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [0, 0, 0], max_chunk: [2, 1, 2] };
        let terrain = Terrain::from_fn(settings, |v| {
            if v.y < 3 { Voxel { material: VoxelMaterial::Rock, occupancy: 255 } } else { Voxel::AIR }
        })
        .unwrap();
        let data = TerrainData::new(terrain);
        assert_eq!(data.chunks.len(), 4);
        let all = data.all_triangles();
        assert_eq!(all.indices.len(), data.triangle_count());
        let vertices: usize = data.chunks.iter().map(|c| c.triangles.vertices.len()).sum();
        assert_eq!(all.vertices.len(), vertices);
        // Indices point into their own chunk's vertices, which sit at world positions.
        assert!(all.indices.iter().flatten().all(|&i| (i as usize) < vertices));
        let last = data.chunks.last().unwrap();
        let first_of_last = all.vertices.len() - last.triangles.vertices.len();
        assert_eq!(all.vertices[first_of_last], last.triangles.vertices[0]);
        // The top of the solid: samples at y = 2.5 inside, 3.5 outside, the surface midway.
        assert!(all.vertices.iter().any(|v| (v.y - 1.5).abs() < 1e-3), "{:?}", &all.vertices[..4]);
        assert!(all.vertices.iter().all(|v| v.x >= -0.5 && v.x <= 8.5 && v.z >= -0.5 && v.z <= 8.5));
    }
}
