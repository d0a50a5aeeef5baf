//! Collision filters: categories and masks keep bodies apart, the group rule overrides them,
//! the terrain is one more category-1 body, a filter changed at run time takes effect in the
//! next step with end-touch events, and filters survive scene files, recordings and any
//! thread count.

use atoll_physics::scene::{SCENE_VERSION, Scene};
use atoll_physics::terrain::{Voxel, VoxelMaterial};
use atoll_physics::{
    BodyDesc, BodyId, CollisionFilter, SceneBody, Shape, StepSettings, Terrain, TerrainSettings, Vec3, World,
    state_hash,
};

fn filter(category: u64, mask: u64, group: i32) -> CollisionFilter {
    CollisionFilter { category, mask, group }
}

fn floor_world() -> World {
    let mut world = World::new(StepSettings::default()).unwrap();
    world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap(),
            Vec3::new(0.0, -0.5, 0.0),
        ))
        .unwrap();
    world
}

fn ball(world: &mut World, at: Vec3, filter: CollisionFilter) -> BodyId {
    world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), at).with_filter(filter)).unwrap()
}

fn touching(world: &World, a: BodyId, b: BodyId) -> bool {
    world.touching_contacts().any(|c| (c.body_a, c.body_b) == (a, b) || (c.body_a, c.body_b) == (b, a))
}

fn run(world: &mut World, steps: usize) {
    for _ in 0..steps {
        world.step();
    }
}

#[test]
fn categories_the_masks_refuse_pass_through_each_other_and_rest_on_the_floor() {
    // Two balls dropped one above the other: category 2 and 4, each accepting only the floor's
    // category 1. They never touch; both come to rest on the floor where they overlap.
    let mut world = floor_world();
    let low = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), filter(2, 1, 0));
    let high = ball(&mut world, Vec3::new(0.0, 2.5, 0.0), filter(4, 1, 0));
    for _ in 0..240 {
        world.step();
        assert!(
            world
                .contacts()
                .all(|c| !((c.body_a, c.body_b) == (low, high) || (c.body_a, c.body_b) == (high, low)))
        );
    }
    for id in [low, high] {
        let y = world.transform(id).unwrap().position.y;
        assert!((y - 0.5).abs() < 0.01, "ball rests on the floor at 0.5, is at {y}");
    }
    // With masks that accept each other, the second lands on the first.
    let mut world = floor_world();
    let low = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), filter(2, 1 | 4, 0));
    let high = ball(&mut world, Vec3::new(0.0, 2.5, 0.0), filter(4, 1 | 2, 0));
    run(&mut world, 60);
    assert!(touching(&world, low, high));
    assert!(world.transform(high).unwrap().position.y > 1.4);
}

#[test]
fn a_shared_group_overrides_categories_and_masks() {
    // Same negative group: never collide, though their bits accept each other.
    let mut world = floor_world();
    let low = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), filter(1, u64::MAX, -7));
    let high = ball(&mut world, Vec3::new(0.0, 2.5, 0.0), filter(1, u64::MAX, -7));
    run(&mut world, 120);
    assert!(!touching(&world, low, high));
    assert!(world.transform(high).unwrap().position.y < 0.6, "fell through its group mate");
    // Same positive group: always collide, though their masks refuse each other (the floor
    // still takes them, category 1).
    let mut world = floor_world();
    let low = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), filter(2, 1, 7));
    let high = ball(&mut world, Vec3::new(0.0, 2.5, 0.0), filter(4, 1, 7));
    run(&mut world, 60);
    assert!(touching(&world, low, high));
    // Different groups fall back to the bits: negative groups -7 and -8 with accepting bits.
    let mut world = floor_world();
    let low = ball(&mut world, Vec3::new(0.0, 1.0, 0.0), filter(1, u64::MAX, -7));
    let high = ball(&mut world, Vec3::new(0.0, 2.5, 0.0), filter(1, u64::MAX, -8));
    run(&mut world, 60);
    assert!(touching(&world, low, high));
}

#[test]
fn a_filter_changed_between_steps_takes_effect_in_the_next_with_an_end_touch() {
    // A ball rests on a box (category 2). Its mask is changed to refuse category 2: the next
    // step drops the pair with an end-touch event, and the ball falls through to the floor.
    let mut world = floor_world();
    let stand = world
        .create_body(
            &BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::new(0.0, 0.5, 0.0))
                .with_filter(filter(2, u64::MAX, 0)),
        )
        .unwrap();
    let top = ball(&mut world, Vec3::new(0.0, 1.5, 0.0), CollisionFilter::DEFAULT);
    run(&mut world, 120);
    assert!(touching(&world, stand, top));
    let refusing = filter(1, !2, 0);
    world.set_filter(top, refusing).unwrap();
    assert_eq!(world.filter(top).unwrap(), refusing);
    // Nothing changes until the step.
    assert!(touching(&world, stand, top));
    world.step();
    let ends: Vec<_> = (world.touch_events().iter())
        .filter(|e| !e.began && [(stand, top), (top, stand)].contains(&(e.body_a, e.body_b)))
        .collect();
    assert_eq!(ends.len(), 1, "one end-touch event in the step after the change: {:?}", world.touch_events());
    assert!(world.contacts().all(|c| ![(stand, top), (top, stand)].contains(&(c.body_a, c.body_b))));
    run(&mut world, 120);
    let y = world.transform(top).unwrap().position.y;
    assert!((y - 0.5).abs() < 0.02, "the ball fell through the box to the floor: {y}");
    // Accepting category 2 again finds the pair again at the next step (they overlap now).
    world.set_filter(top, CollisionFilter::DEFAULT).unwrap();
    world.step();
    assert!(world.contacts().any(|c| [(stand, top), (top, stand)].contains(&(c.body_a, c.body_b))));
    // A stale id is refused; the same filter again changes nothing.
    let edits = world.edit_count();
    world.set_filter(top, CollisionFilter::DEFAULT).unwrap();
    assert_eq!(world.edit_count(), edits);
    world.destroy_body(top).unwrap();
    assert!(world.set_filter(top, refusing).is_err());
}

#[test]
fn the_terrain_is_category_one() {
    let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [-2, -2, -2], max_chunk: [2, 1, 2] };
    let ground = |v: glam::IVec3| {
        if v.y < 0 { Voxel { material: VoxelMaterial::Rock, occupancy: 255 } } else { Voxel::AIR }
    };
    let mut world = World::new(StepSettings::default()).unwrap();
    world.set_terrain(Terrain::from_fn(settings, ground).unwrap());
    let lands = ball(&mut world, Vec3::new(-2.0, 2.0, 0.0), filter(2, 1, 0));
    let falls = ball(&mut world, Vec3::new(2.0, 2.0, 0.0), filter(2, !1, 0));
    run(&mut world, 180);
    assert!((world.transform(lands).unwrap().position.y - 0.5).abs() < 0.05);
    assert!(world.transform(falls).unwrap().position.y < -2.0, "a body refusing category 1 falls through");
    assert!(world.contacts().all(|c| c.body_a != falls && c.body_b != falls));
}

/// A pile of balls of three categories on the floor: each accepts the floor and one other.
fn mixed_pile() -> Scene {
    let mut scene = Scene::new("filters");
    scene.bodies.push(SceneBody::new(
        atoll_physics::BodyType::Static,
        atoll_physics::SceneShape::Box { half_extents: Vec3::new(6.0, 0.5, 6.0) },
        Vec3::new(0.0, -0.5, 0.0),
    ));
    for i in 0..90u32 {
        let at = Vec3::new((i % 5) as f32 - 2.0, 1.0 + (i / 25) as f32 * 1.1, ((i / 5) % 5) as f32 - 2.0);
        let category = 2u64 << (i % 3);
        let group = if i % 7 == 0 { -1 } else { 0 };
        let mut body = SceneBody::new(
            atoll_physics::BodyType::Dynamic,
            atoll_physics::SceneShape::Sphere { radius: 0.45 },
            at,
        );
        body.filter = filter(category, 1 | category | (2 << ((i + 1) % 3)), group);
        scene.bodies.push(body);
    }
    scene
}

#[test]
fn filters_round_trip_through_scene_files_and_older_files_load() {
    let scene = mixed_pile();
    let text = scene.to_ron_string();
    assert!(
        text.contains(&format!("version: {SCENE_VERSION}")) && text.contains("filter: (category: 4"),
        "{text}"
    );
    let back = Scene::from_ron_str(&text).unwrap();
    assert_eq!(back, scene);
    let (world, ids) = back.build_world().unwrap();
    for (id, body) in ids.iter().zip(&scene.bodies) {
        assert_eq!(world.filter(*id).unwrap(), body.filter);
    }
    // Saved from the world, loaded again: the same world bit for bit after stepping.
    let saved = Scene::from_world(&world, "again", |_| String::new()).to_ron_string();
    let (mut a, _) = Scene::from_ron_str(&saved).unwrap().build_world().unwrap();
    let (mut b, _) = scene.build_world().unwrap();
    run(&mut a, 60);
    run(&mut b, 60);
    assert_eq!(state_hash(&a), state_hash(&b));
    // A version 2 file (before filters) loads with default filters.
    let old = "(version: 2, name: \"old\", bodies: [(body_type: Dynamic, shape: Sphere(radius: 0.5), position: (0.0, 1.0, 0.0))])";
    let (world, ids) = Scene::from_ron_str(old).unwrap().build_world().unwrap();
    assert_eq!(world.filter(ids[0]).unwrap(), CollisionFilter::DEFAULT);
    // A malformed filter names its field, line and column.
    let bad = text.replacen("filter: (category: 4", "filter: (category: -4", 1);
    let message = Scene::from_ron_str(&bad).unwrap_err().to_string();
    assert!(message.contains("category") && message.contains("line"), "{message}");
}

#[test]
fn filtered_piles_step_the_same_on_one_to_four_threads() {
    let mut hashes = Vec::new();
    for threads in 1..=4 {
        let (mut world, ids) = mixed_pile().build_world().unwrap();
        world.set_thread_count(threads).unwrap();
        let mut trace = Vec::new();
        for step in 0..200 {
            if step == 50 {
                // A change at run time too.
                world.set_filter(ids[3], filter(1, 1, 0)).unwrap();
            }
            world.step();
            trace.push((state_hash(&world), world.touch_events().len()));
        }
        hashes.push(trace);
    }
    assert!(hashes.iter().all(|h| *h == hashes[0]), "a thread count stepped differently");
}
