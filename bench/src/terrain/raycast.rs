//! Ray-cast figures: the same seeded rays against Atoll and parry3d, timed in turn, with every
//! closest hit compared.
//!
//! Like is compared with like: chunk-local rays go to one chunk's kD tree and to a parry
//! `TriMesh` of that chunk's triangles; world rays go to `Terrain::cast_ray` (the chunk walk
//! over the masks, then the kD trees of the chunks it reaches, from a warm cache) and to one
//! parry `TriMesh` of every triangle of the terrain.

use super::data::{ChunkData, TerrainData};
use super::hits::{self, HitCheck};
use super::parry;
use super::rays::{self, Ray, Rng};
use crate::measure::Spread;
use atoll_physics::Vec3;
use rapier3d::parry::shape::TriMesh;
use serde::Serialize;
use std::time::Instant;

/// Seed of every ray set, so each run casts the same rays.
pub const SEED: u64 = 0x5eed_7e44_a1b0_0006;
/// Length of a random world ray, metres (a long editor pick, and a third of the terrain).
pub const WORLD_RAY_LENGTH: f32 = 16.0;

/// One ray set's figures.
#[derive(Clone, Debug, Serialize)]
pub struct RayFigures {
    /// What the rays are.
    pub set: &'static str,
    /// What Atoll casts against.
    pub atoll_side: &'static str,
    /// What parry3d casts against.
    pub parry_side: &'static str,
    /// Rays per repeat.
    pub rays: usize,
    /// Atoll's rays per second, median over the repeats.
    pub atoll_per_s: f64,
    /// parry3d's rays per second, median over the repeats.
    pub parry_per_s: f64,
    /// Atoll's rate over parry's (above 1 means Atoll is faster).
    pub speedup: f64,
    /// The hits compared ray by ray.
    pub check: HitCheck,
}

/// How many rays of each kind.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCounts {
    /// Rays per chunk with triangles, half from above it and half from inside it.
    pub per_chunk: usize,
    /// Rays of each world set.
    pub world: usize,
}

/// Times `cast` over `rays` and returns the rate (rays per second) and every hit distance.
fn timed<T>(items: &[T], mut cast: impl FnMut(&T) -> Option<f32>) -> (f64, Vec<Option<f32>>) {
    let mut out = Vec::with_capacity(items.len());
    let start = Instant::now();
    for item in items {
        out.push(cast(item));
    }
    (items.len() as f64 / start.elapsed().as_secs_f64(), out)
}

/// Casts both sides `repeats` times in turn; the hits of the last repeat are compared (every
/// repeat casts the same rays at the same data, so they are equal).
fn duel<T>(
    items: &[T],
    repeats: usize,
    mut atoll: impl FnMut(&T) -> Option<f32>,
    mut parry: impl FnMut(&T) -> Option<f32>,
) -> (f64, f64, HitCheck) {
    let (mut a_rates, mut p_rates) = (Vec::new(), Vec::new());
    let (mut a_hits, mut p_hits) = (Vec::new(), Vec::new());
    for _ in 0..repeats {
        let (rate, hits) = timed(items, &mut atoll);
        a_rates.push(rate);
        a_hits = hits;
        let (rate, hits) = timed(items, &mut parry);
        p_rates.push(rate);
        p_hits = hits;
    }
    let (a, p) = (Spread::of(&a_rates).median, Spread::of(&p_rates).median);
    (a, p, hits::compare(&a_hits, &p_hits))
}

/// Atoll's closest hit in one chunk: the ray moved into the chunk's local voxel units, where a
/// hit's parameter `t` is unchanged (origin shifted, origin and direction scaled alike).
fn cast_chunk(c: &ChunkData, base: Vec3, voxel_size: f32, ray: &Ray) -> Option<f32> {
    let (origin, dir) = ((ray.origin - base) / voxel_size, ray.dir / voxel_size);
    c.collision.tree.cast_ray(&c.collision.mesh, origin, dir, ray.max_t).map(|(t, _)| t)
}

/// Chunk-local rays: per chunk with triangles, rays from above its box aimed down and rays from
/// random points of its box grown by one voxel in random directions, two chunk edges long.
pub fn chunk_rays(data: &TerrainData, counts: RayCounts, repeats: usize) -> RayFigures {
    let t = &data.terrain;
    let s = t.voxel_size();
    let mut rng = Rng::new(SEED);
    // (chunk index, ray), chunk by chunk.
    let mut items: Vec<(usize, Ray)> = Vec::new();
    for (i, c) in data.chunks.iter().enumerate() {
        let b = t.chunk_aabb(c.coord).grown(s);
        let edge = b.max.x - b.min.x;
        let down = rays::down_rays(&mut rng, &b, counts.per_chunk / 2);
        let random = rays::random_rays(&mut rng, &b, counts.per_chunk - down.len(), 2.0 * edge);
        items.extend(down.into_iter().chain(random).map(|r| (i, r)));
    }
    let bases: Vec<Vec3> = data.chunks.iter().map(|c| t.chunk_origin(c.coord)).collect();
    let meshes: Vec<TriMesh> = data.chunks.iter().map(|c| c.triangles.clone().into_trimesh()).collect();
    let (a, p, check) = duel(
        &items,
        repeats,
        |(i, r)| cast_chunk(&data.chunks[*i], bases[*i], s, r),
        |(i, r)| parry::cast(&meshes[*i], r),
    );
    RayFigures {
        set: "chunk-local: per chunk, half from above aimed down, half from inside in random directions",
        atoll_side: "that chunk's kD tree",
        parry_side: "a TriMesh of that chunk's triangles",
        rays: items.len(),
        atoll_per_s: a,
        parry_per_s: p,
        speedup: a / p,
        check,
    }
}

/// World rays against the whole terrain: `down` from the top of the bounds aimed down, or
/// random points and directions [`WORLD_RAY_LENGTH`] long.
pub fn world_rays(
    data: &TerrainData,
    merged: &TriMesh,
    down: bool,
    count: usize,
    repeats: usize,
) -> RayFigures {
    let t = &data.terrain;
    let bounds = t.settings().world_aabb();
    let mut rng = Rng::new(SEED ^ if down { 1 } else { 2 });
    let rays = if down {
        rays::down_rays(&mut rng, &bounds, count)
    } else {
        rays::random_rays(&mut rng, &bounds, count, WORLD_RAY_LENGTH)
    };
    let atoll = |r: &Ray| {
        t.cast_ray(&atoll_physics::Ray::new(r.origin, r.dir, r.max_t).expect("a valid ray")).map(|h| h.t)
    };
    // Warm the cache, so the figure is the query and not the lazy mesh builds.
    for r in &rays {
        atoll(r);
    }
    let (a, p, check) = duel(&rays, repeats, atoll, |r| parry::cast(merged, r));
    RayFigures {
        set: if down {
            "world, from the top of the bounds aimed down (up to 27° off vertical)"
        } else {
            "world, random points in the bounds, random directions, 16 m"
        },
        atoll_side: "Terrain::cast_ray (chunk walk + kD trees, warm cache)",
        parry_side: "one TriMesh of every triangle",
        rays: rays.len(),
        atoll_per_s: a,
        parry_per_s: p,
        speedup: a / p,
        check,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::scene::builtin::hills_terrain;

    #[test]
    fn atoll_and_parry_agree_on_the_hills() {
        let data = TerrainData::new(hills_terrain());
        let counts = RayCounts { per_chunk: 2, world: 200 };
        let chunk = chunk_rays(&data, counts, 1);
        assert_eq!(chunk.rays, 2 * data.chunks.len());
        assert!(chunk.check.ok(), "{:?}", chunk.check);
        assert!(chunk.check.atoll_hits > 0);
        let merged = data.all_triangles().into_trimesh();
        for down in [true, false] {
            let world = world_rays(&data, &merged, down, counts.world, 1);
            assert!(world.check.ok(), "{:?}", world.check);
            // Most rays from the top reach the ground; the check is not vacuous.
            assert!(world.check.atoll_hits > if down { 150 } else { 20 }, "{:?}", world.check);
        }
    }

    #[test]
    fn chunk_rays_are_the_same_every_run() {
        let data = TerrainData::new(hills_terrain());
        let counts = RayCounts { per_chunk: 4, world: 10 };
        let (a, b) = (chunk_rays(&data, counts, 1), chunk_rays(&data, counts, 1));
        assert_eq!(a.check, b.check);
    }
}
