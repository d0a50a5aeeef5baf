//! Memory figures: chunk classes and mask bytes per voxel, and bytes per triangle of Atoll's
//! mesh + kD tree against parry3d's `TriMesh` on the same triangles.

use super::data::TerrainData;
use crate::alloc::live_bytes;
use atoll_physics::terrain::{CHUNK_VOXELS, ChunkCollision};
use rapier3d::parry::shape::TriMesh;
use serde::Serialize;

/// Chunk counts and memory.
#[derive(Clone, Debug, Serialize)]
pub struct Storage {
    /// Chunks storing voxels (at least one non-air voxel).
    pub stored_chunks: usize,
    /// Chunks with a mask entry: tagged all-solid, tagged all-water or mixed (stored chunks and
    /// their neighbours within one voxel of something solid or water).
    pub mask_entries: usize,
    /// Mask entries tagged all solid (no mask bits kept).
    pub solid_chunks: usize,
    /// Mask entries tagged all water.
    pub water_chunks: usize,
    /// Mask entries keeping both masks (128 bytes).
    pub mixed_chunks: usize,
    /// Chunks whose solid mesh has triangles.
    pub chunks_with_triangles: usize,
    /// Triangles over every chunk.
    pub triangles: usize,
    /// Mask payload bytes.
    pub mask_bytes: usize,
    /// Mask bytes per voxel of the chunks with a mask entry.
    pub mask_bytes_per_voxel_masked: f64,
    /// Mask bytes per voxel of the stored chunks.
    pub mask_bytes_per_voxel_stored: f64,
    /// Atoll mesh bytes per triangle (`ChunkMesh::bytes`: lengths, not capacities).
    pub atoll_mesh_bytes_per_triangle: f64,
    /// Atoll kD tree bytes per triangle (`KdTree::bytes`).
    pub atoll_tree_bytes_per_triangle: f64,
    /// Atoll mesh + tree, the design figure.
    pub atoll_bytes_per_triangle: f64,
    /// Heap bytes per triangle that `build_chunk_collision`'s results hold (counting allocator,
    /// so spare capacity counts).
    pub atoll_heap_bytes_per_triangle: f64,
    /// Heap bytes per triangle of one parry `TriMesh` per chunk (counting allocator).
    pub parry_chunk_heap_bytes_per_triangle: f64,
    /// Heap bytes per triangle of one parry `TriMesh` over the whole terrain.
    pub parry_merged_heap_bytes_per_triangle: f64,
}

/// Counts the chunks and measures the bytes.
pub fn measure(data: &TerrainData) -> Storage {
    let t = &data.terrain;
    let stats = t.stats();
    let triangles = data.triangle_count();
    let per_tri = |bytes: i64| bytes as f64 / triangles.max(1) as f64;
    let mesh_bytes: usize = data.chunks.iter().map(|c| c.collision.mesh.bytes()).sum();
    let tree_bytes: usize = data.chunks.iter().map(|c| c.collision.tree.bytes()).sum();

    // The result vectors are allocated before each count starts, so only the meshes count.
    let mut atoll: Vec<ChunkCollision> = Vec::with_capacity(data.chunks.len());
    let before = live_bytes() as i64;
    atoll.extend(data.chunks.iter().map(|c| t.build_chunk_collision(c.coord)));
    let atoll_heap = live_bytes() as i64 - before;
    drop(atoll);

    // Clones have exactly the capacity they need, as a caller building a TriMesh would pass.
    let inputs: Vec<_> = data.chunks.iter().map(|c| c.triangles.clone()).collect();
    let mut parry: Vec<TriMesh> = Vec::with_capacity(inputs.len());
    let before = live_bytes() as i64;
    parry.extend(inputs.into_iter().map(|t| t.into_trimesh()));
    let parry_chunk_heap = live_bytes() as i64 - before;
    drop(parry);

    let merged_input = data.all_triangles().clone();
    let before = live_bytes() as i64;
    let merged = merged_input.into_trimesh();
    let parry_merged_heap = live_bytes() as i64 - before;
    drop(merged);

    Storage {
        stored_chunks: stats.stored_chunks,
        mask_entries: stats.solid_chunks + stats.water_chunks + stats.mixed_chunks,
        solid_chunks: stats.solid_chunks,
        water_chunks: stats.water_chunks,
        mixed_chunks: stats.mixed_chunks,
        chunks_with_triangles: data.chunks.len(),
        triangles,
        mask_bytes: stats.mask_bytes,
        mask_bytes_per_voxel_masked: stats.mask_bytes_per_voxel,
        mask_bytes_per_voxel_stored: stats.mask_bytes as f64
            / (stats.stored_chunks.max(1) * CHUNK_VOXELS) as f64,
        atoll_mesh_bytes_per_triangle: per_tri(mesh_bytes as i64),
        atoll_tree_bytes_per_triangle: per_tri(tree_bytes as i64),
        atoll_bytes_per_triangle: per_tri((mesh_bytes + tree_bytes) as i64),
        atoll_heap_bytes_per_triangle: per_tri(atoll_heap),
        parry_chunk_heap_bytes_per_triangle: per_tri(parry_chunk_heap),
        parry_merged_heap_bytes_per_triangle: per_tri(parry_merged_heap),
    }
}
