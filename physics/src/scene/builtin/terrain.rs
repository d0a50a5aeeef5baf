//! The terrain scene: rolling hills, a cave through the largest hill and a lake in a basin; and
//! a rain of mixed shapes onto it.

use super::rain::{Lcg, mixed_body};
use crate::math::Vec3;
use crate::scene::{Scene, SceneTerrain};
use crate::terrain::{Terrain, TerrainSettings, Voxel, VoxelMaterial};

/// Voxel size of the terrain scene, metres.
pub const TERRAIN_VOXEL: f32 = 0.5;
/// Height of the lake's surface, metres.
pub const LAKE_LEVEL: f32 = 0.0;
/// Centre of the lake (x, z), metres.
const LAKE: (f32, f32) = (9.0, -9.0);
/// The cave's axis runs between these points.
const CAVE: (Vec3, Vec3) = (Vec3::new(-22.0, 1.0, 4.0), Vec3::new(-4.0, 2.5, 12.0));
/// The cave's radius, metres.
const CAVE_RADIUS: f32 = 2.2;

/// Ground height at (x, z): a few long sines for the hills, a smooth bowl for the lake.
fn ground_height(x: f32, z: f32) -> f32 {
    let hills = 2.0 + 2.5 * (x * 0.16).sin() * (z * 0.13).cos() + 1.5 * (0.07 * (x + z) + 1.0).sin();
    // A tall hill over the cave.
    let hill = 6.0 * (-((x + 13.0).powi(2) + (z - 8.0).powi(2)) / 80.0).exp();
    let d = ((x - LAKE.0).powi(2) + (z - LAKE.1).powi(2)).sqrt();
    let t = (1.0 - d / 11.0).clamp(0.0, 1.0);
    let bowl = 6.0 * t * t * (3.0 - 2.0 * t);
    hills + hill - bowl
}

/// Distance from `p` to the cave's axis.
fn cave_distance(p: Vec3) -> f32 {
    let (a, b) = CAVE;
    let ab = b - a;
    let t = ((p - a).dot(ab) / ab.length_squared()).clamp(0.0, 1.0);
    (p - (a + ab * t)).length()
}

/// Occupancy (0..=255) of a ramp that is full below `surface` and empty above, half a voxel
/// either side, so the mesher's surface lands on it.
fn ramp(depth: f32) -> u8 {
    ((0.5 + depth / TERRAIN_VOXEL).clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The voxel at voxel coordinate `v`.
fn terrain_voxel(v: glam::IVec3) -> Voxel {
    let p = (v.as_vec3() + 0.5) * TERRAIN_VOXEL;
    let h = ground_height(p.x, p.z);
    let solid = ramp(h - p.y).min(255 - ramp(CAVE_RADIUS - cave_distance(p)));
    if solid >= 128 || (solid > 0 && p.y > LAKE_LEVEL) {
        let depth = h - p.y;
        let material = if depth > 3.0 {
            VoxelMaterial::Rock
        } else if h < LAKE_LEVEL + 0.8 {
            VoxelMaterial::Sand
        } else if depth > 0.8 {
            VoxelMaterial::Dirt
        } else {
            VoxelMaterial::Grass
        };
        return Voxel { material, occupancy: solid };
    }
    let in_lake = ((p.x - LAKE.0).powi(2) + (p.z - LAKE.1).powi(2)).sqrt() < 12.0;
    let water = if in_lake { ramp(LAKE_LEVEL - p.y) } else { 0 };
    if water > 0 {
        Voxel { material: VoxelMaterial::Water, occupancy: water }
    } else if solid > 0 {
        Voxel { material: VoxelMaterial::Dirt, occupancy: solid }
    } else {
        Voxel::AIR
    }
}

/// The terrain of the terrain scene: 48 × 20 × 48 m of 0.5 m voxels.
pub fn hills_terrain() -> Terrain {
    let settings =
        TerrainSettings { voxel_size: TERRAIN_VOXEL, min_chunk: [-6, -2, -6], max_chunk: [6, 3, 6] };
    Terrain::from_fn(settings, terrain_voxel).expect("the built-in terrain is valid")
}

/// The terrain scene: hills, a cave and a lake, no bodies.
pub fn terrain_hills() -> Scene {
    let mut scene = Scene::new("terrain: hills, a cave and a lake");
    scene.terrain = Some(SceneTerrain::from_terrain(&hills_terrain()));
    scene
}

/// `count` mixed shapes (spheres, capsules, boxes, rock hulls) dropped onto the terrain scene's
/// hills and lake from a grid 30 m across, in layers from 3 m above the ground. A static slab
/// at the terrain's floor (8 m below the lake) catches whatever rolls off its edges.
pub fn terrain_rain(count: u32) -> Scene {
    let mut scene = terrain_hills();
    scene.name = format!("terrain rain ({count} mixed shapes)");
    scene.bodies.push(super::static_wall(
        "catch floor",
        Vec3::new(40.0, 0.5, 40.0),
        Vec3::new(0.0, -8.5, 0.0),
    ));
    let mut rng = Lcg(0x007e_44a1_4a17);
    let per_side = 20;
    for i in 0..count {
        let (x, z, layer) = (i % per_side, (i / per_side) % per_side, i / (per_side * per_side));
        let (x, z) = (
            (x as f32 - 9.5) * 1.5 + rng.range(-0.25, 0.25),
            (z as f32 - 9.5) * 1.5 + rng.range(-0.25, 0.25),
        );
        let y = ground_height(x, z).max(LAKE_LEVEL) + 3.0 + layer as f32 * 1.6;
        scene.bodies.push(mixed_body(i, Vec3::new(x, y, z), &mut rng));
    }
    scene
}
