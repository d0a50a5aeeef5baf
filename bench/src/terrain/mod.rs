//! `atoll-bench terrain`: figures of Atoll's voxel terrain on the built-in hills, cave and lake
//! (issue 6), against parry3d's `TriMesh` on the same triangles where there is a counterpart.

mod brush;
mod build;
mod cli;
pub(crate) mod data;
mod hits;
pub(crate) mod parry;
mod raycast;
mod rays;
mod storage;
mod table;

use atoll_physics::scene::builtin::hills_terrain;
use atoll_physics::terrain::BrushMode;
use std::time::Instant;

/// Runs the terrain mode with the arguments after `terrain`; returns the process exit status.
pub fn main(args: impl IntoIterator<Item = String>) -> i32 {
    let options = match cli::parse(args) {
        Ok(Some(o)) => o,
        Ok(None) => {
            println!("{}", cli::usage());
            return 0;
        }
        Err(e) => {
            eprintln!("atoll-bench: {e}\n{}", cli::usage());
            return 2;
        }
    };
    let (repeats, counts) = (options.repeats, options.rays);
    let step =
        |what: &str, start: Instant| eprintln!("terrain: {what} {:.1} s", start.elapsed().as_secs_f64());

    let start = Instant::now();
    let data = data::TerrainData::new(hills_terrain());
    // Room for every chunk, so world rays measure queries and never evictions.
    data.terrain.set_cache_capacity(usize::MAX / 2);
    step("generate and mesh", start);
    let start = Instant::now();
    let storage = storage::measure(&data);
    step("storage", start);
    let start = Instant::now();
    let build = build::measure(&data, repeats);
    step("builds", start);
    let start = Instant::now();
    let merged = data.all_triangles().into_trimesh();
    let rays = vec![
        raycast::chunk_rays(&data, counts, repeats),
        raycast::world_rays(&data, &merged, true, counts.world, repeats),
        raycast::world_rays(&data, &merged, false, counts.world, repeats),
    ];
    step("rays", start);
    let start = Instant::now();
    let brushes = [BrushMode::Add, BrushMode::Remove, BrushMode::Smooth]
        .into_iter()
        .map(|mode| brush::measure(&data, mode, repeats))
        .collect();
    step("brushes", start);

    let report = table::TerrainReport::new(repeats, counts, storage, build, rays, brushes);
    println!(
        "terrain figures: {}; {repeats} repeats, {} world rays per set, {} rays per chunk; one thread\n",
        report.scene, counts.world, counts.per_chunk
    );
    println!("{}", table::markdown(&report));
    if let Some(path) = &options.json
        && let Err(e) = crate::report::write_json(path, &report)
    {
        eprintln!("atoll-bench: {e}");
        return 1;
    }
    if !report.hits_agree() {
        for r in report.rays.iter().filter(|r| !r.check.ok()) {
            eprintln!(
                "atoll-bench: {}: {} rays differ, e.g. {:?}",
                r.set, r.check.mismatches, r.check.examples
            );
        }
        eprintln!("atoll-bench: Atoll and parry3d disagree on some closest hits");
        return 3;
    }
    0
}
