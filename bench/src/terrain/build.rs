//! Build-time figures: the mesher and the kD tree per chunk, and parry3d's `TriMesh` (its BVH)
//! over the same triangles, per chunk and over the whole terrain.

use super::data::TerrainData;
use crate::measure::Spread;
use atoll_physics::terrain::{KdTree, MeshField, mesher};
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

/// Build times, ms.
#[derive(Clone, Debug, Serialize)]
pub struct BuildTimes {
    /// Reading a chunk's 10³ neighbourhood and meshing it, per chunk with triangles, pooled
    /// over every repeat.
    pub mesh_ms: Spread,
    /// `KdTree::build` on the mesher's output, per chunk.
    pub kd_ms: Spread,
    /// Mesh and tree of one chunk together (each sample one chunk in one repeat).
    pub mesh_kd_ms: Spread,
    /// parry's `TriMesh::new` on the chunk's triangles (world space), per chunk.
    pub parry_ms: Spread,
    /// Every chunk's kD tree built in one loop, per repeat (median and p95 over the repeats).
    pub kd_all_ms: Spread,
    /// One parry `TriMesh` over every triangle, per repeat.
    pub parry_merged_ms: Spread,
}

fn ms(since: Instant) -> f64 {
    since.elapsed().as_secs_f64() * 1e3
}

/// Times every build `repeats` times. Atoll and parry take turns per chunk, so a change in the
/// machine's load falls on both alike; inputs are copied before each timer starts.
pub fn measure(data: &TerrainData, repeats: usize) -> BuildTimes {
    let t = &data.terrain;
    let (mut mesh, mut kd, mut both, mut parry) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut kd_all, mut parry_merged) = (Vec::new(), Vec::new());
    let merged = data.all_triangles();
    for _ in 0..repeats {
        let mut fresh = Vec::with_capacity(data.chunks.len());
        for c in &data.chunks {
            let start = Instant::now();
            let mut m = mesher::mesh(&t.neighbourhood(c.coord), MeshField::Solid, None);
            let mesh_ms = ms(start);
            black_box(&m);

            // The mesher's fresh output is the tree's input, exactly as the cache builds it.
            fresh.push(m.clone());
            let start = Instant::now();
            let tree = KdTree::build(&mut m);
            let kd_ms = ms(start);
            black_box((&tree, &m));

            let input = c.triangles.clone();
            let start = Instant::now();
            let trimesh = input.into_trimesh();
            let parry_ms = ms(start);
            black_box(&trimesh);

            mesh.push(mesh_ms);
            kd.push(kd_ms);
            both.push(mesh_ms + kd_ms);
            parry.push(parry_ms);
        }
        // The whole terrain's trees in one loop, like parry's one build below.
        let start = Instant::now();
        for m in &mut fresh {
            black_box(KdTree::build(m));
        }
        kd_all.push(ms(start));
        let input = merged.clone();
        let start = Instant::now();
        let trimesh = input.into_trimesh();
        parry_merged.push(ms(start));
        black_box(&trimesh);
    }
    BuildTimes {
        mesh_ms: Spread::of(&mesh),
        kd_ms: Spread::of(&kd),
        mesh_kd_ms: Spread::of(&both),
        parry_ms: Spread::of(&parry),
        kd_all_ms: Spread::of(&kd_all),
        parry_merged_ms: Spread::of(&parry_merged),
    }
}
