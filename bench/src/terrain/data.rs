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
