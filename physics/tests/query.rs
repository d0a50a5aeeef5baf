//! Ray casts and box queries against bodies.

mod common;

use atoll_physics::{Aabb, AtollError, BodyDesc, Shape, Vec3};

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
    let hit = world.cast_ray(Vec3::new(-10.0, 0.5, 0.0), Vec3::X, 100.0).unwrap().unwrap();
    assert_eq!(hit.body, boxes[0]);
    assert!((hit.t - 9.5).abs() < 1e-4 && (hit.normal - Vec3::NEG_X).length() < 1e-4);
    assert!((hit.point - Vec3::new(-0.5, 0.5, 0.0)).length() < 1e-4);
    // Straight down between the boxes: the floor.
    let hit = world.cast_ray(Vec3::new(1.0, 10.0, 0.0), Vec3::NEG_Y, 100.0).unwrap().unwrap();
    assert_eq!(hit.body, floor);
    assert!((hit.t - 10.0).abs() < 1e-4 && (hit.normal - Vec3::Y).length() < 1e-4);
    // Down onto the third box, and a ray too short to reach anything.
    assert_eq!(
        world.cast_ray(Vec3::new(4.0, 10.0, 0.0), Vec3::NEG_Y, 100.0).unwrap().unwrap().body,
        boxes[2]
    );
    assert_eq!(world.cast_ray(Vec3::new(4.0, 10.0, 0.0), Vec3::NEG_Y, 5.0).unwrap(), None);
    // Up into the sky.
    assert_eq!(world.cast_ray(Vec3::new(0.0, 3.0, 0.0), Vec3::Y, 1e6).unwrap(), None);
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
        let fast = world.cast_ray(origin, dir, 40.0).unwrap();
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
    let (world, _) = common::world_with_floor();
    assert!(matches!(world.cast_ray(Vec3::NAN, Vec3::X, 1.0), Err(AtollError::InvalidInput { .. })));
    assert!(matches!(world.cast_ray(Vec3::ZERO, Vec3::ZERO, 1.0), Err(AtollError::InvalidInput { .. })));
    assert!(matches!(world.cast_ray(Vec3::ZERO, Vec3::X, -1.0), Err(AtollError::InvalidInput { .. })));
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
