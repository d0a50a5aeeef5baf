//! The terrain figures as one Markdown table (and as JSON), each goal of issue 6 judged.

use super::brush::{BrushFigures, RADIUS_VOXELS};
use super::build::BuildTimes;
use super::raycast::{RayCounts, RayFigures};
use super::storage::Storage;
use serde::Serialize;

/// Largest mask bytes per voxel: the worst case of 2 bits.
pub const MASK_GOAL: f64 = 0.25;
/// Largest mesh + kD bytes per triangle.
pub const BYTES_GOAL: f64 = 16.0;
/// Largest mesh + kD build time of one chunk, ms (median).
pub const CHUNK_BUILD_GOAL_MS: f64 = 0.2;
/// Smallest ratio of parry's build time to Atoll's.
pub const BUILD_SPEEDUP_GOAL: f64 = 3.0;
/// Smallest ratio of Atoll's ray rate to parry's.
pub const RAY_SPEEDUP_GOAL: f64 = 1.5;
/// Largest brush stroke (edit and every rebuild), ms: one frame at 60 Hz.
pub const BRUSH_GOAL_MS: f64 = 1000.0 / 60.0;

/// Everything the terrain mode measured, as written by `--json`.
#[derive(Clone, Debug, Serialize)]
pub struct TerrainReport {
    /// The scene.
    pub scene: &'static str,
    /// Repeats of every timed figure.
    pub repeats: usize,
    /// Rays of each world set.
    pub world_rays: usize,
    /// Rays per chunk with triangles.
    pub chunk_rays: usize,
    /// Counts and bytes.
    pub storage: Storage,
    /// Build times.
    pub build: BuildTimes,
    /// One entry per ray set.
    pub rays: Vec<RayFigures>,
    /// One entry per brush mode.
    pub brushes: Vec<BrushFigures>,
}

impl TerrainReport {
    /// Collects the figures.
    pub fn new(
        repeats: usize,
        counts: RayCounts,
        storage: Storage,
        build: BuildTimes,
        rays: Vec<RayFigures>,
        brushes: Vec<BrushFigures>,
    ) -> TerrainReport {
        TerrainReport {
            scene: "built-in terrain: hills, a cave and a lake (scene::builtin::hills_terrain)",
            repeats,
            world_rays: counts.world,
            chunk_rays: counts.per_chunk,
            storage,
            build,
            rays,
            brushes,
        }
    }

    /// True when every ray set agrees hit for hit.
    pub fn hits_agree(&self) -> bool {
        self.rays.iter().all(|r| r.check.ok())
    }
}

fn verdict(met: bool) -> &'static str {
    if met { "yes" } else { "**no**" }
}

/// A table row.
fn row(cells: [&str; 6]) -> String {
    format!("| {} |", cells.join(" | "))
}

/// The Markdown table.
pub fn markdown(r: &TerrainReport) -> String {
    let s = &r.storage;
    let b = &r.build;
    let mut rows = vec![
        "| figure | Atoll | parry3d | Atoll advantage | goal | met |".to_string(),
        "| --- | --- | --- | ---: | --- | --- |".to_string(),
    ];
    rows.push(row([
        "chunks",
        &format!(
            "{} stored; {} mask entries ({} solid, {} water, {} mixed); {} with triangles; {} triangles",
            s.stored_chunks,
            s.mask_entries,
            s.solid_chunks,
            s.water_chunks,
            s.mixed_chunks,
            s.chunks_with_triangles,
            s.triangles
        ),
        "",
        "",
        "",
        "",
    ]));
    rows.push(row([
        "mask bytes per voxel, chunks with a mask entry",
        &format!("{:.4}", s.mask_bytes_per_voxel_masked),
        "",
        "",
        &format!("≤ {MASK_GOAL} (2 bits)"),
        verdict(s.mask_bytes_per_voxel_masked <= MASK_GOAL),
    ]));
    rows.push(row([
        "mask bytes per voxel, stored chunks",
        &format!("{:.4} ({} B)", s.mask_bytes_per_voxel_stored, s.mask_bytes),
        "",
        "",
        "",
        "",
    ]));
    rows.push(row([
        "mesh + kD bytes per triangle",
        &format!(
            "{:.2} (mesh {:.2} + kD {:.2})",
            s.atoll_bytes_per_triangle, s.atoll_mesh_bytes_per_triangle, s.atoll_tree_bytes_per_triangle
        ),
        "",
        "",
        &format!("≤ {BYTES_GOAL}"),
        verdict(s.atoll_bytes_per_triangle <= BYTES_GOAL),
    ]));
    rows.push(row([
        "heap bytes per triangle (counting allocator, spare capacity included)",
        &format!("{:.2} (chunk meshes + kD trees)", s.atoll_heap_bytes_per_triangle),
        &format!(
            "{:.2} per-chunk TriMesh; {:.2} one TriMesh",
            s.parry_chunk_heap_bytes_per_triangle, s.parry_merged_heap_bytes_per_triangle
        ),
        &format!("{:.1}×", s.parry_chunk_heap_bytes_per_triangle / s.atoll_heap_bytes_per_triangle),
        "",
        "",
    ]));
    let spread = |x: &crate::measure::Spread| format!("{:.4} / {:.4}", x.median, x.p95);
    rows.push(row(["mesher ms per chunk (median / p95)", &spread(&b.mesh_ms), "", "", "", ""]));
    rows.push(row([
        "mesh + kD ms per chunk (median / p95)",
        &spread(&b.mesh_kd_ms),
        "",
        "",
        &format!("≤ {CHUNK_BUILD_GOAL_MS} ms"),
        verdict(b.mesh_kd_ms.median <= CHUNK_BUILD_GOAL_MS),
    ]));
    let kd_speedup = b.parry_ms.median / b.kd_ms.median;
    rows.push(row([
        "tree build ms per chunk (median / p95): KdTree::build vs TriMesh::new",
        &spread(&b.kd_ms),
        &spread(&b.parry_ms),
        &format!("{kd_speedup:.1}×"),
        &format!("≥ {BUILD_SPEEDUP_GOAL}×"),
        verdict(kd_speedup >= BUILD_SPEEDUP_GOAL),
    ]));
    let all_speedup = b.parry_merged_ms.median / b.kd_all_ms.median;
    rows.push(row([
        "tree build ms, whole terrain: every chunk's KdTree::build vs one TriMesh::new",
        &format!("{:.2}", b.kd_all_ms.median),
        &format!("{:.2}", b.parry_merged_ms.median),
        &format!("{all_speedup:.1}×"),
        &format!("≥ {BUILD_SPEEDUP_GOAL}×"),
        verdict(all_speedup >= BUILD_SPEEDUP_GOAL),
    ]));
    for f in &r.rays {
        let c = &f.check;
        rows.push(row([
            &format!(
                "rays/s, {} ({} rays; hits {} / {}; {} differ, worst {:.1e} m)",
                f.set, f.rays, c.atoll_hits, c.parry_hits, c.mismatches, c.worst_difference
            ),
            &format!("{:.0} ({})", f.atoll_per_s, f.atoll_side),
            &format!("{:.0} ({})", f.parry_per_s, f.parry_side),
            &format!("{:.2}×", f.speedup),
            &format!("≥ {RAY_SPEEDUP_GOAL}×, every hit within 1e-3 m"),
            verdict(f.speedup >= RAY_SPEEDUP_GOAL && c.ok()),
        ]));
    }
    for f in &r.brushes {
        rows.push(row([
            &format!(
                "brush {} r = {RADIUS_VOXELS} voxels, ms median: edit + collision rebuild + render meshes ({} voxels, {} chunks)",
                f.mode, f.changed_voxels, f.chunks
            ),
            &format!(
                "{:.2} + {:.2} + {:.2} = {:.2} (p95 {:.2})",
                f.edit_ms.median, f.collision_ms.median, f.render_ms.median, f.total_ms.median, f.total_ms.p95
            ),
            "",
            "",
            &format!("≤ {BRUSH_GOAL_MS:.1} ms (a 60 Hz frame)"),
            verdict(f.total_ms.median <= BRUSH_GOAL_MS),
        ]));
    }
    rows.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::{brush, build, data::TerrainData, raycast, storage};
    use super::*;
    use crate::terrain::hits::Mismatch;
    use atoll_physics::scene::builtin::hills_terrain;
    use atoll_physics::terrain::BrushMode;

    fn quick_report() -> TerrainReport {
        let data = TerrainData::new(hills_terrain());
        let counts = RayCounts { per_chunk: 2, world: 20 };
        let merged = data.all_triangles().into_trimesh();
        TerrainReport::new(
            1,
            counts,
            storage::measure(&data),
            build::measure(&data, 1),
            vec![raycast::chunk_rays(&data, counts, 1), raycast::world_rays(&data, &merged, true, 20, 1)],
            vec![brush::measure(&data, BrushMode::Add, 1)],
        )
    }

    #[test]
    fn a_ray_mismatch_fails_its_row_and_the_run() {
        let mut r = quick_report();
        assert!(r.hits_agree());
        let s = &r.storage;
        // The figures the goals rest on hold on the hills whatever the machine's speed.
        assert!(s.mask_bytes_per_voxel_masked <= MASK_GOAL && s.atoll_bytes_per_triangle <= BYTES_GOAL);
        assert_eq!(s.mask_entries, s.solid_chunks + s.water_chunks + s.mixed_chunks);
        let table = markdown(&r);
        // Header, rule, chunks, 2 mask, 2 bytes, 2 build, 2 tree build, 2 ray sets, 1 brush.
        assert_eq!(table.lines().count(), 14, "{table}");
        // A ray row passes only when fast enough and every hit agrees; make it fast enough.
        r.rays[1].speedup = 10.0;
        let ray_row = |t: &str| t.lines().find(|l| l.contains("world, from the top")).unwrap().to_string();
        assert!(ray_row(&markdown(&r)).ends_with("| yes |"), "{}", ray_row(&markdown(&r)));
        r.rays[1].check.mismatches = 1;
        r.rays[1].check.examples.push(Mismatch { ray: 3, atoll: Some(1.0), parry: None });
        assert!(!r.hits_agree());
        assert!(ray_row(&markdown(&r)).ends_with("| **no** |"));
    }
}
