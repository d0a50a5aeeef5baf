//! The cost of a brush stroke: `Terrain::edit` with a 20-voxel sphere brush, then rebuilding
//! what the chunks it reports derive: their collision meshes and kD trees (what the physics
//! cache would rebuild) and their solid and water render meshes (what the editor redraws).

use super::data::TerrainData;
use crate::measure::Spread;
use atoll_physics::terrain::{BrushMode, Edit, MeshField, SphereBrush, VoxelMaterial};
use atoll_physics::{Ray, Vec3};
use serde::Serialize;
use std::hint::black_box;
use std::time::Instant;

/// Brush radius, voxels.
pub const RADIUS_VOXELS: f32 = 20.0;
/// Brush strength (how far one application moves voxels towards the target).
pub const STRENGTH: f32 = 0.5;

/// One brush mode's figures, ms unless named otherwise.
#[derive(Clone, Debug, Serialize)]
pub struct BrushFigures {
    /// The mode.
    pub mode: String,
    /// Voxels the edit changed.
    pub changed_voxels: usize,
    /// Chunks the edit reported.
    pub chunks: usize,
    /// `Terrain::edit` (voxels and masks, cache entries dropped).
    pub edit_ms: Spread,
    /// `build_chunk_collision` of every reported chunk.
    pub collision_ms: Spread,
    /// `render_mesh` (solid and water) of every reported chunk.
    pub render_ms: Spread,
    /// The three together, per repeat.
    pub total_ms: Spread,
}

/// Where the stroke lands: the ground under the terrain's centre, found by a ray cast as the
/// editor's brush would.
pub fn stroke_centre(data: &TerrainData) -> Vec3 {
    let b = data.terrain.settings().world_aabb();
    let top = Vec3::new(0.5 * (b.min.x + b.max.x), b.max.y - 1e-3, 0.5 * (b.min.z + b.max.z));
    let hit = data.terrain.cast_ray(&Ray::new(top, -Vec3::Y, b.max.y - b.min.y).expect("a valid ray"));
    hit.map_or(top, |h| h.point)
}

/// Applies one brush of `mode` to a fresh copy of the terrain `repeats` times.
pub fn measure(data: &TerrainData, mode: BrushMode, repeats: usize) -> BrushFigures {
    let brush = SphereBrush {
        center: stroke_centre(data),
        radius: RADIUS_VOXELS * data.terrain.voxel_size(),
        strength: STRENGTH,
        mode,
        material: VoxelMaterial::Rock,
    };
    let (mut edit, mut collision, mut render, mut total) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut changed_voxels, mut chunks) = (0, 0);
    for _ in 0..repeats {
        let mut t = data.terrain.clone();
        let start = Instant::now();
        let report = t.edit(&Edit::Sphere(brush)).expect("the brush is valid");
        let edited = Instant::now();
        for &c in &report.chunks {
            black_box(t.build_chunk_collision(c));
        }
        let collided = Instant::now();
        for &c in &report.chunks {
            black_box(t.render_mesh(c, MeshField::Solid));
            black_box(t.render_mesh(c, MeshField::Water));
        }
        let rendered = Instant::now();
        let ms = |a: Instant, b: Instant| (b - a).as_secs_f64() * 1e3;
        edit.push(ms(start, edited));
        collision.push(ms(edited, collided));
        render.push(ms(collided, rendered));
        total.push(ms(start, rendered));
        (changed_voxels, chunks) = (report.changed_voxels, report.chunks.len());
    }
    BrushFigures {
        mode: format!("{mode:?}"),
        changed_voxels,
        chunks,
        edit_ms: Spread::of(&edit),
        collision_ms: Spread::of(&collision),
        render_ms: Spread::of(&render),
        total_ms: Spread::of(&total),
    }
}
