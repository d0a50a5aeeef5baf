//! Ray casts and box queries against bodies.

mod common;
#[path = "query/shape_queries.rs"]
mod shape_queries;

use atoll_physics::terrain::{Voxel, VoxelMaterial};
use atoll_physics::{
    Aabb, AtollError, BodyDesc, QueryFilter, Ray, Shape, StepSettings, Terrain, TerrainSettings, Vec3, World,
};

#[test]
fn ray_hits_the_nearest_body_with_its_normal() {
    let (mut world, floor) = common::world_with_floor();
    let boxes: Vec<_> = (0..5)
        .map(|i| {
            let p = Vec3::new(i as f32 * 2.0, 0.5, 0.0);
            world.create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), p)).unwrap()
        })
        .collect();
    // Along +X at box height: the first box's -X face at x = -0.5.
    let hit = world
        .cast_ray(&Ray::new(Vec3::new(-10.0, 0.5, 0.0), Vec3::X, 100.0).unwrap(), &QueryFilter::ALL)
        .unwrap();
    assert_eq!(hit.body, boxes[0]);
    assert!((hit.t - 9.5).abs() < 1e-4 && (hit.normal - Vec3::NEG_X).length() < 1e-4);
    assert!((hit.point - Vec3::new(-0.5, 0.5, 0.0)).length() < 1e-4);
    // Straight down between the boxes: the floor.
    let hit = world
        .cast_ray(&Ray::new(Vec3::new(1.0, 10.0, 0.0), Vec3::NEG_Y, 100.0).unwrap(), &QueryFilter::ALL)
        .unwrap();
    assert_eq!(hit.body, floor);
    assert!((hit.t - 10.0).abs() < 1e-4 && (hit.normal - Vec3::Y).length() < 1e-4);
    // Down onto the third box, and a ray too short to reach anything.
    assert_eq!(
        world
            .cast_ray(&Ray::new(Vec3::new(4.0, 10.0, 0.0), Vec3::NEG_Y, 100.0).unwrap(), &QueryFilter::ALL)
            .unwrap()
            .body,
        boxes[2]
    );
    assert_eq!(
        world.cast_ray(&Ray::new(Vec3::new(4.0, 10.0, 0.0), Vec3::NEG_Y, 5.0).unwrap(), &QueryFilter::ALL),
        None
    );
    // Up into the sky.
    assert_eq!(
        world.cast_ray(&Ray::new(Vec3::new(0.0, 3.0, 0.0), Vec3::Y, 1e6).unwrap(), &QueryFilter::ALL),
        None
    );
}

#[test]
fn ray_agrees_with_brute_force_in_a_pile() {
    let (mut world, _) = common::builtin("rain.ron");
    common::run(&mut world, 90);
    let ids: Vec<_> = world.body_ids().collect();
    for k in 0..60 {
        let angle = k as f32 * 0.37;
        let origin = Vec3::new(angle.cos() * 15.0, 3.0 + (k % 5) as f32, angle.sin() * 15.0);
        let dir = (Vec3::new(0.0, 1.0, 0.0) - origin).normalize();
        let fast = world.cast_ray(&Ray::new(origin, dir, 40.0).unwrap(), &QueryFilter::ALL);
        let brute = ids
            .iter()
            .filter_map(|id| {
                let b = world.body(*id).unwrap();
                b.shape.cast_ray_world(&b.transform, origin, dir, 40.0).map(|h| (h.t, *id))
            })
            .min_by(|a, b| a.0.total_cmp(&b.0).then(a.1.index().cmp(&b.1.index())));
        assert_eq!(fast.map(|h| (h.t, h.body)), brute, "ray {k}");
    }
}

#[test]
fn bad_rays_are_refused() {
    assert!(matches!(Ray::new(Vec3::NAN, Vec3::X, 1.0), Err(AtollError::InvalidInput { .. })));
    assert!(matches!(Ray::new(Vec3::ZERO, Vec3::ZERO, 1.0), Err(AtollError::InvalidInput { .. })));
    assert!(matches!(Ray::new(Vec3::ZERO, Vec3::X, -1.0), Err(AtollError::InvalidInput { .. })));
}

#[test]
fn box_query_finds_exactly_the_overlapping_bodies() {
    let (mut world, floor) = common::world_with_floor();
    let a =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 0.5, 0.0))).unwrap();
    let b =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(5.0, 0.5, 0.0))).unwrap();
    let mut out = Vec::new();
    world.query_aabb(&Aabb::new(Vec3::new(-1.0, 0.2, -1.0), Vec3::new(1.0, 2.0, 1.0)), &mut out).unwrap();
    assert_eq!(out, vec![a]);
    world.query_aabb(&Aabb::new(Vec3::new(-1.0, -1.0, -1.0), Vec3::new(6.0, 2.0, 1.0)), &mut out).unwrap();
    assert_eq!(out, vec![floor, a, b]);
}

/// Flat rock ground whose surface is at y = 1, over 16 × 16 m, in a world with no bodies.
fn world_on_flat_terrain() -> World {
    flat_ground_world([-2, -1, -2], [2, 2, 2])
}

/// A world whose terrain is flat ground at y = 1 over chunks `min_chunk..=max_chunk` (half-metre
/// voxels).
fn flat_ground_world(min_chunk: [i32; 3], max_chunk: [i32; 3]) -> World {
    let settings = TerrainSettings { voxel_size: 0.5, min_chunk, max_chunk };
    let terrain = Terrain::from_fn(settings, |v| {
        let y = (v.y as f32 + 0.5) * 0.5;
        let fill = ((0.5 + (1.0 - y) / 0.5).clamp(0.0, 1.0) * 255.0).round() as u8;
        if fill == 0 { Voxel::AIR } else { Voxel { material: VoxelMaterial::Rock, occupancy: fill } }
    })
    .unwrap();
    let mut world = World::new(StepSettings::default()).unwrap();
    world.set_terrain(terrain);
    world
}

#[test]
fn one_ray_query_answers_body_or_terrain_under_a_filter() {
    let mut world = world_on_flat_terrain();
    let ball =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 3.0, 0.0))).unwrap();
    let down = Ray::new(Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y, 100.0).unwrap();
    // Everything: the ball is above the ground, so it is hit first.
    let hit = world.cast_ray(&down, &QueryFilter::ALL).unwrap();
    assert_eq!((hit.body, hit.chunk), (ball, None));
    assert!((hit.point.y - 3.5).abs() < 1e-4, "{hit:?}");
    // Passing through the ball, or ignoring dynamic bodies, finds the ground at y = 1.
    for filter in
        [QueryFilter::ALL.excluding(ball), QueryFilter { dynamic_bodies: false, ..QueryFilter::ALL }]
    {
        let hit = world.cast_ray(&down, &filter).unwrap();
        assert!(hit.body.is_terrain() && hit.chunk.is_some(), "{filter:?}: {hit:?}");
        assert!((hit.point.y - 1.0).abs() < 0.02 && hit.normal.y > 0.99, "{hit:?}");
    }
    // Bodies only: beside the ball there is nothing but the terrain, which does not count.
    let beside = Ray::new(Vec3::new(3.0, 10.0, 0.0), Vec3::NEG_Y, 100.0).unwrap();
    assert_eq!(world.cast_ray(&beside, &QueryFilter::BODIES), None);
    assert!(world.cast_ray(&beside, &QueryFilter::ALL).unwrap().body.is_terrain());
    // A ray too short to reach anything hits nothing.
    let short = Ray::new(Vec3::new(3.0, 10.0, 0.0), Vec3::NEG_Y, 5.0).unwrap();
    assert_eq!(world.cast_ray(&short, &QueryFilter::ALL), None);
    // Bodies under the ground still lose to the terrain above them.
    let buried =
        world.create_body(&BodyDesc::fixed(Shape::sphere(0.3).unwrap(), Vec3::new(3.0, -1.0, 0.0))).unwrap();
    assert!(world.cast_ray(&beside, &QueryFilter::ALL).unwrap().body.is_terrain());
    assert_eq!(world.cast_ray(&beside, &QueryFilter::BODIES).unwrap().body, buried);
}

#[test]
fn a_point_query_finds_the_bodies_whose_shapes_hold_the_point() {
    let (mut world, floor) = common::world_with_floor();
    let ball =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(1.0).unwrap(), Vec3::new(0.0, 1.0, 0.0))).unwrap();
    let mut out = Vec::new();
    world.query_point(Vec3::new(0.0, 1.5, 0.0), &QueryFilter::ALL, &mut out).unwrap();
    assert_eq!(out, vec![ball]);
    // Inside the ball's box but outside the sphere.
    world.query_point(Vec3::new(0.9, 1.9, 0.0), &QueryFilter::ALL, &mut out).unwrap();
    assert!(out.is_empty());
    // On the floor's top face: both.
    world.query_point(Vec3::new(0.0, 0.0, 0.0), &QueryFilter::ALL, &mut out).unwrap();
    assert_eq!(out, vec![floor, ball]);
    world.query_point(Vec3::new(0.0, 0.0, 0.0), &QueryFilter::ALL.excluding(floor), &mut out).unwrap();
    assert_eq!(out, vec![ball]);
    assert!(world.query_point(Vec3::NAN, &QueryFilter::ALL, &mut out).is_err());
}
