//! Terrain in scenes and worlds: exact round trips, rejection of malformed terrain data, and
//! the built-in hills scene.

use atoll_physics::scene::builtin::{LAKE_LEVEL, hills_terrain, terrain_hills};
use atoll_physics::scene::{SceneChunk, SceneTerrain};
use atoll_physics::terrain::{BrushMode, ChunkMask, Edit, SphereBrush, VoxelMaterial};
use atoll_physics::{Ray, Scene, SceneError, Vec3, World};

#[test]
fn terrain_scene_round_trips_exactly() {
    let scene = terrain_hills();
    let text = scene.to_ron_string();
    let back = Scene::from_ron_str(&text).unwrap();
    assert_eq!(back, scene);
    assert_eq!(back.to_ron_string(), text);
    let (world, _) = back.build_world().unwrap();
    assert_eq!(*world.terrain(), hills_terrain());
    let again = Scene::from_world(&world, &scene.name, |_| String::new());
    assert_eq!(again.terrain, scene.terrain);
}

#[test]
fn edited_terrain_round_trips_through_a_world() {
    let (mut world, _) = terrain_hills().build_world().unwrap();
    let brush = SphereBrush {
        center: Vec3::new(-5.0, 3.0, 2.0),
        radius: 2.5,
        strength: 0.7,
        mode: BrushMode::Add,
        material: VoxelMaterial::Rock,
    };
    let report = world.edit_terrain(&Edit::Sphere(brush)).unwrap();
    assert!(report.changed_voxels > 0 && !report.chunks.is_empty());
    let scene = Scene::from_world(&world, "edited", |_| String::new());
    let loaded = Scene::from_ron_str(&scene.to_ron_string()).unwrap();
    let (back, _) = loaded.build_world().unwrap();
    assert_eq!(back.terrain(), world.terrain());
}

#[test]
fn scenes_without_terrain_still_load() {
    let scene = Scene::from_ron_str("(version: 1, name: \"old\")").unwrap();
    assert_eq!(scene.terrain, None);
    let (world, _) = scene.build_world().unwrap();
    assert!(!world.has_terrain());
    assert!(Scene::from_world(&world, "old", |_| String::new()).terrain.is_none());
    assert!(!Scene::new("x").to_ron_string().contains("terrain"));
}

fn with_terrain(settings: &str, chunks: &str) -> Result<Scene, SceneError> {
    Scene::from_ron_str(&format!("(version: 1, terrain: Some((settings: {settings}, chunks: [{chunks}])))"))
}

#[test]
fn malformed_terrain_is_rejected_with_a_clear_error() {
    let good = "(voxel_size: 0.5, min_chunk: (0, 0, 0), max_chunk: (2, 2, 2))";
    assert!(with_terrain(good, "(coord: (1, 0, 1), runs: \"01ff0200\")").is_ok());
    let cases = [
        (good, "(coord: (1, 0, 1), runs: \"01ff0100\")", "runs cover 256 voxels"),
        (good, "(coord: (1, 0, 1), runs: \"09ff0200\")", "unknown material 9"),
        (good, "(coord: (1, 0, 1), runs: \"00050200\")", "air must have occupancy 0"),
        (good, "(coord: (1, 0, 1), runs: \"01ff02\")", "groups of 8 hex digits"),
        (good, "(coord: (2, 0, 1), runs: \"01ff0200\")", "outside the terrain bounds"),
        (good, "(coord: (1, 0, 1), runs: \"01ff0200\"), (coord: (1, 0, 1), runs: \"02ff0200\")", "twice"),
        (good, "(coord: (1, 0, 1), runs: \"01ff0200\", extra: 1)", "extra"),
        ("(voxel_size: 0.0, min_chunk: (0, 0, 0), max_chunk: (2, 2, 2))", "", "voxel size"),
        ("(voxel_size: -1.0, min_chunk: (0, 0, 0), max_chunk: (2, 2, 2))", "", "voxel size"),
        ("(voxel_size: NaN, min_chunk: (0, 0, 0), max_chunk: (2, 2, 2))", "", "voxel size"),
        ("(voxel_size: 0.5, min_chunk: (0, 0, 0), max_chunk: (0, 2, 2))", "", "bounds"),
    ];
    for (settings, chunks, expect) in cases {
        let err = with_terrain(settings, chunks).unwrap_err();
        let message = err.to_string();
        assert!(message.contains(expect), "{settings} {chunks}: {message}");
        assert!(
            matches!(err, SceneError::Parse { ref field, .. } if field.starts_with("terrain")),
            "{err:?}"
        );
    }
    // A chunk index in the message says which one is bad.
    let err = with_terrain(good, "(coord: (0, 0, 0), runs: \"01ff0200\"), (coord: (1, 0, 0), runs: \"01\")");
    assert!(err.unwrap_err().to_string().contains("chunk 1 at [1, 0, 0]"));
}

#[test]
fn scene_terrain_rejects_bad_data_when_built_directly() {
    let mut t = SceneTerrain::from_terrain(&hills_terrain());
    t.chunks.push(SceneChunk { coord: [0, 0, 0], runs: "zz".into() });
    assert!(t.to_terrain().is_err());
}

#[test]
fn hills_have_a_cave_and_a_lake() {
    let t = hills_terrain();
    let stats = t.stats();
    assert!(stats.solid_chunks > 0 && stats.water_chunks + stats.mixed_chunks > 0, "{stats:?}");
    assert!(
        t.masks().any(|(_, m)| matches!(m, ChunkMask::Mixed { water, .. } if water.iter().any(|&w| w != 0)))
    );
    // Straight down into the lake: the ray passes the water and stops on the sandy bed.
    let hit = t.cast_ray(&Ray::new(Vec3::new(9.0, 15.0, -9.0), -Vec3::Y, 100.0).unwrap()).unwrap();
    assert!(hit.point.y < LAKE_LEVEL - 1.0, "{hit:?}");
    assert_eq!(hit.material, VoxelMaterial::Sand);
    // Along the cave's axis the ray flies free for metres inside the hill.
    let a = Vec3::new(-22.0, 1.0, 4.0);
    let b = Vec3::new(-4.0, 2.5, 12.0);
    let from = a + (b - a) * 0.3;
    let hit = t.cast_ray(&Ray::new(from, (b - a).normalize(), 100.0).unwrap());
    assert!(hit.is_none_or(|h| h.t > 5.0), "{hit:?}");
    // Up from inside the cave, the roof is solid.
    let roof = t.cast_ray(&Ray::new(from, Vec3::Y, 100.0).unwrap()).unwrap();
    assert!(roof.t < 4.0, "{roof:?}");
}

#[test]
fn editing_through_the_world_validates() {
    let mut world = World::default();
    let brush = SphereBrush {
        center: Vec3::new(f32::NAN, 0.0, 0.0),
        radius: 1.0,
        strength: 1.0,
        mode: BrushMode::Add,
        material: VoxelMaterial::Rock,
    };
    assert!(world.edit_terrain(&Edit::Sphere(brush)).is_err());
    let ok = SphereBrush { center: Vec3::new(0.0, 0.0, 0.0), ..brush };
    assert!(world.edit_terrain(&Edit::Sphere(ok)).unwrap().changed_voxels > 0);
    assert!(world.has_terrain());
}

#[test]
fn the_terrain_stamp_changes_with_every_change_and_only_then() {
    let empty = World::default();
    assert_eq!(empty.terrain_stamp(), 0);
    let (mut world, _) = terrain_hills().build_world().unwrap();
    let (other, _) = terrain_hills().build_world().unwrap();
    let loaded = world.terrain_stamp();
    assert_ne!(loaded, 0);
    assert_ne!(other.terrain_stamp(), loaded, "two worlds never share a stamp");
    world.step();
    assert_eq!(world.terrain_stamp(), loaded, "stepping does not change the terrain");
    let brush = |mode| SphereBrush {
        center: Vec3::new(-5.0, 3.0, 2.0),
        radius: 2.5,
        strength: 1.0,
        mode,
        material: VoxelMaterial::Rock,
    };
    world.edit_terrain(&Edit::Sphere(brush(BrushMode::Add))).unwrap();
    let edited = world.terrain_stamp();
    assert_ne!(edited, loaded);
    world.edit_terrain(&Edit::Sphere(brush(BrushMode::Paint))).unwrap();
    let painted = world.terrain_stamp();
    // Painting rock where it is already rock changes nothing, so the stamp stays.
    assert_eq!(world.edit_terrain(&Edit::Sphere(brush(BrushMode::Paint))).unwrap().changed_voxels, 0);
    assert_eq!(world.terrain_stamp(), painted);
    assert_eq!(world.clone().terrain_stamp(), painted, "a copy has the same content");
}

#[test]
fn terrain_edits_wake_only_nearby_bodies() {
    use atoll_physics::{BodyDesc, Shape};
    let mut world = World::default();
    let floor =
        BodyDesc::fixed(Shape::cuboid(Vec3::new(20.0, 0.5, 20.0)).unwrap(), Vec3::new(0.0, -0.5, 0.0));
    world.create_body(&floor).unwrap();
    let cube = world
        .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::new(0.0, 0.5, 0.0)))
        .unwrap();
    for _ in 0..120 {
        world.step();
    }
    assert!(!world.is_awake(cube).unwrap(), "the cube sleeps on the floor");
    let brush = |z: f32, radius: f32| {
        Edit::Sphere(SphereBrush {
            center: Vec3::new(0.0, 1.0, z),
            radius,
            strength: 1.0,
            mode: BrushMode::Add,
            material: VoxelMaterial::Dirt,
        })
    };
    assert!(world.edit_terrain(&brush(4.0, 1.0)).unwrap().changed_voxels > 0);
    assert!(!world.is_awake(cube).unwrap(), "an edit metres away leaves it asleep");
    world.edit_terrain(&brush(1.5, 0.6)).unwrap();
    assert!(world.is_awake(cube).unwrap(), "an edit beside it wakes it");
}
