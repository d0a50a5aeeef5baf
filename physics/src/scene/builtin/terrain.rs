//! The terrain scene: rolling hills, a cave through the largest hill and a lake in a basin; and
//! a rain of mixed shapes onto it.

use super::rain::{Lcg, mixed_body};
use crate::body::BodyType;
use crate::math::{Quat, Vec3};
use crate::scene::{Scene, SceneBody, SceneShape, SceneTerrain};
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

/// The voxel at voxel coordinate `v`.
fn terrain_voxel(v: glam::IVec3) -> Voxel {
    let p = (v.as_vec3() + 0.5) * TERRAIN_VOXEL;
    let h = ground_height(p.x, p.z);
    let solid = fill(h - p.y, TERRAIN_VOXEL).min(255 - fill(CAVE_RADIUS - cave_distance(p), TERRAIN_VOXEL));
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
    let water = if in_lake { fill(LAKE_LEVEL - p.y, TERRAIN_VOXEL) } else { 0 };
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

/// Occupancy of a voxel whose centre lies `depth` metres under a surface (negative: above),
/// with voxels of `voxel` metres: full a half voxel under it, empty a half voxel over (water:
/// the water contact reads depths from that ramp).
fn fill(depth: f32, voxel: f32) -> u8 {
    ((0.5 + depth / voxel).clamp(0.0, 1.0) * 255.0).round() as u8
}

/// [`fill`] over a ramp two voxels wide, for solid ground that must come out flat: every
/// voxel edge the surface crosses then has both ends on the ramp, so the mesher's linear
/// interpolation puts the crossing exactly on a planar surface, where a one-voxel ramp clips
/// one end and leaves terraces a few centimetres high.
fn fill_smooth(depth: f32, voxel: f32) -> u8 {
    fill(0.5 * depth, voxel)
}

/// Height of the slide's slope at `x`: falling 0.4 m per metre from x = -20 to x = 20, flat
/// beyond, so a body slides 40 m down a smooth plane crossing ten chunk seams.
fn slide_height(x: f32) -> f32 {
    -0.4 * x.clamp(-20.0, 20.0)
}

/// The slide: a long smooth slope of 0.5 m voxels (about 22°) with a run-out at its foot, and
/// boxes of low friction at the top that slide down it across the chunk seams, next to balls
/// and capsules that roll.
pub fn slide() -> Scene {
    const VOXEL: f32 = 0.5;
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-7, -3, -2], max_chunk: [7, 3, 2] };
    let terrain = Terrain::from_fn(settings, |v| {
        let p = (v.as_vec3() + 0.5) * VOXEL;
        match fill_smooth(slide_height(p.x) - p.y, VOXEL) {
            0 => Voxel::AIR,
            occupancy => Voxel { material: VoxelMaterial::Rock, occupancy },
        }
    })
    .expect("the slide terrain is valid");
    let mut scene = Scene::new("slide: boxes down a smooth slope across chunk seams");
    scene.terrain = Some(SceneTerrain::from_terrain(&terrain));
    let slope = Quat::from_rotation_z(-(0.4f32).atan());
    for (row, z) in [-5.0f32, -2.5, 0.0, 2.5, 5.0].into_iter().enumerate() {
        let x = -18.0 + row as f32 * 0.5;
        let (kind, shape, lift) = match row {
            1 => ("ball", SceneShape::Sphere { radius: 0.4 }, 0.4),
            3 => ("capsule", SceneShape::Capsule { half_height: 0.5, radius: 0.3 }, 0.3),
            _ => ("box", SceneShape::Box { half_extents: Vec3::new(0.5, 0.3, 0.5) }, 0.3),
        };
        let mut body =
            SceneBody::new(BodyType::Dynamic, shape, Vec3::new(x, slide_height(x) + lift + 0.05, z));
        body.name = format!("{kind} {row}");
        body.rotation = if kind == "capsule" {
            slope * Quat::from_rotation_x(std::f32::consts::FRAC_PI_2)
        } else {
            slope
        };
        body.material.friction = 0.1;
        scene.bodies.push(body);
    }
    scene
}

/// Boats: a walled pond 2.5 m deep with boxes and hull boats of half water's density or less
/// floating on it, a raft of planks, and a few dense stones that sink to the bottom.
pub fn boats() -> Scene {
    const VOXEL: f32 = 0.5;
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-3, -1, -3], max_chunk: [3, 1, 3] };
    let terrain = Terrain::from_fn(settings, |v| {
        let p = (v.as_vec3() + 0.5) * VOXEL;
        // The pond's bed at -2.5 m, its banks rising to 1 m outside a 9 m radius.
        let r = (p.x * p.x + p.z * p.z).sqrt();
        let bed = if r < 9.0 { -2.5 } else { (-2.5 + (r - 9.0) * 1.5).min(1.0) };
        let solid = fill_smooth(bed - p.y, VOXEL);
        if solid >= 128 {
            return Voxel {
                material: if r < 9.5 { VoxelMaterial::Sand } else { VoxelMaterial::Grass },
                occupancy: solid,
            };
        }
        match fill(-p.y, VOXEL) {
            water if water > 0 && r < 11.0 => Voxel { material: VoxelMaterial::Water, occupancy: water },
            _ if solid > 0 => Voxel { material: VoxelMaterial::Dirt, occupancy: solid },
            _ => Voxel::AIR,
        }
    })
    .expect("the boats terrain is valid");
    let mut scene = Scene::new("boats: floating boxes and hulls on a pond");
    scene.terrain = Some(SceneTerrain::from_terrain(&terrain));
    let hull = |bow: f32| {
        // A flat-bottomed boat: a deck rectangle over a narrower keel line, pointed at the bow.
        vec![
            Vec3::new(-1.2, 0.3, -0.5),
            Vec3::new(-1.2, 0.3, 0.5),
            Vec3::new(0.8, 0.3, -0.5),
            Vec3::new(0.8, 0.3, 0.5),
            Vec3::new(0.8 + bow, 0.3, 0.0),
            Vec3::new(-1.1, -0.2, -0.25),
            Vec3::new(-1.1, -0.2, 0.25),
            Vec3::new(0.7, -0.2, -0.25),
            Vec3::new(0.7, -0.2, 0.25),
        ]
    };
    let mut add = |name: String, shape: SceneShape, density: f32, position: Vec3, yaw: f32| {
        let mut body = SceneBody::new(BodyType::Dynamic, shape, position);
        body.name = name;
        body.material.density = density;
        body.rotation = Quat::from_rotation_y(yaw);
        scene.bodies.push(body);
    };
    for k in 0..4 {
        let a = k as f32 * std::f32::consts::FRAC_PI_2 + 0.4;
        let at = Vec3::new(5.0 * a.cos(), 1.0, 5.0 * a.sin());
        add(
            format!("boat {k}"),
            SceneShape::Hull { points: hull(0.4 + 0.2 * k as f32) },
            300.0 + 60.0 * k as f32,
            at,
            a,
        );
    }
    for k in 0..6 {
        let at = Vec3::new(-2.0 + 0.8 * k as f32, 0.8 + 0.3 * k as f32, -1.0);
        add(
            format!("crate {k}"),
            SceneShape::Box { half_extents: Vec3::splat(0.3) },
            250.0 + 50.0 * k as f32,
            at,
            0.3 * k as f32,
        );
    }
    for k in 0..5 {
        let at = Vec3::new(0.0, 0.6 + 0.25 * k as f32, 2.0 + 0.05 * k as f32);
        add(
            format!("plank {k}"),
            SceneShape::Box { half_extents: Vec3::new(1.5, 0.08, 0.2) },
            450.0,
            at,
            k as f32 * 0.63,
        );
    }
    for k in 0..3 {
        let at = Vec3::new(2.5, 2.0 + k as f32, 1.5 - k as f32);
        add(format!("stone {k}"), SceneShape::Sphere { radius: 0.25 }, 2600.0, at, 0.0);
    }
    scene
}
