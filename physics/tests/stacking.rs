//! Scenario tests of the solver: stacks stand, balls bounce and roll as physics says.

mod common;

use atoll_physics::{BodyDesc, Material, Quat, Shape, ShapeKind, StepSettings, Vec3, World};

#[test]
fn tower_of_20_boxes_stands_for_60_seconds() {
    let (mut world, ids) = common::builtin("tower.ron");
    let top = *ids.last().unwrap();
    let start = world.transform(top).unwrap().position;
    for second in 0..60 {
        common::run(&mut world, 60);
        let p = world.transform(top).unwrap().position;
        assert!(
            (p - start).length() < 0.05,
            "top box moved {} m after {} s",
            (p - start).length(),
            second + 1
        );
    }
}

#[test]
fn plane_pyramid_of_base_20_stands_for_30_seconds() {
    let (mut world, ids) = common::builtin("plane_pyramid.ron");
    let starts: Vec<Vec3> = ids.iter().map(|id| world.transform(*id).unwrap().position).collect();
    common::run(&mut world, 30 * 60);
    let worst = ids
        .iter()
        .zip(&starts)
        .map(|(id, s)| (world.transform(*id).unwrap().position - *s).length())
        .fold(0.0f32, f32::max);
    assert!(worst < 0.05, "a box moved {worst} m");
}

#[test]
fn elastic_ball_returns_to_its_drop_height() {
    let (mut world, floor) = common::world_with_floor();
    let _ = floor;
    let bouncy = Material { restitution: 1.0, ..Material::default() };
    let radius = 0.5;
    let drop_height = 5.0;
    let ball = world
        .create_body(
            &BodyDesc::dynamic(Shape::sphere(radius).unwrap(), Vec3::Y * (drop_height + radius))
                .with_material(bouncy),
        )
        .unwrap();
    let mut bounced = false;
    let mut apex = 0.0f32;
    for _ in 0..240 {
        world.step();
        let v = world.linear_velocity(ball).unwrap();
        let y = world.transform(ball).unwrap().position.y - radius;
        if v.y > 0.0 {
            bounced = true;
        }
        if bounced {
            apex = apex.max(y);
        }
    }
    assert!(bounced);
    assert!(apex >= 0.95 * drop_height, "rebound apex {apex} m of {drop_height} m");
}

fn incline(angle: f32, friction: f32) -> (World, atoll_physics::BodyId, Vec3) {
    let mut world = World::new(StepSettings::default()).unwrap();
    let rotation = Quat::from_rotation_z(angle);
    let surface = Material { friction, ..Material::default() };
    world
        .create_body(
            &BodyDesc::fixed(Shape::cuboid(Vec3::new(40.0, 0.5, 5.0)).unwrap(), Vec3::ZERO)
                .with_rotation(rotation)
                .with_material(surface),
        )
        .unwrap();
    let normal = rotation * Vec3::Y;
    let downhill = rotation * Vec3::NEG_X;
    let radius = 0.5;
    let ball = world
        .create_body(
            &BodyDesc::dynamic(Shape::sphere(radius).unwrap(), normal * (0.5 + radius) - downhill * 20.0)
                .with_material(surface),
        )
        .unwrap();
    (world, ball, downhill)
}

/// The ball's acceleration down a 20° incline of the given friction, measured over one second
/// after half a second of settling onto the surface, against `theory` times g sin θ.
fn assert_incline_acceleration(friction: f32, theory: f32) {
    let angle = 20f32.to_radians();
    let (mut world, ball, downhill) = incline(angle, friction);
    common::run(&mut world, 30);
    let v0 = world.linear_velocity(ball).unwrap().dot(downhill);
    common::run(&mut world, 60);
    let v1 = world.linear_velocity(ball).unwrap().dot(downhill);
    let expected = theory * 9.81 * angle.sin();
    assert!(
        ((v1 - v0) - expected).abs() < 0.05 * expected,
        "accelerated {} m/s², theory {expected}",
        v1 - v0
    );
}

#[test]
fn frictionless_ball_slides_at_g_sin_theta() {
    assert_incline_acceleration(0.0, 1.0);
}

#[test]
fn rolling_ball_accelerates_at_five_sevenths_g_sin_theta() {
    assert_incline_acceleration(0.8, 5.0 / 7.0);
}

/// A unit box resting on the floor (friction 0.6 against it), after a second of settling.
fn box_on_floor() -> (World, atoll_physics::BodyId) {
    let (mut world, _) = common::world_with_floor();
    let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let id = world.create_body(&BodyDesc::dynamic(cube, Vec3::new(0.0, 0.5, 0.0))).unwrap();
    common::run(&mut world, 60);
    (world, id)
}

#[test]
fn sliding_box_decelerates_at_mu_g() {
    let (mut world, id) = box_on_floor();
    world.set_linear_velocity(id, Vec3::new(5.0, 0.0, 0.0)).unwrap();
    common::run(&mut world, 30);
    let v = world.linear_velocity(id).unwrap();
    let expected = 5.0 - 0.6 * 9.81 * 0.5;
    assert!((v.x - expected).abs() < 0.05 * expected, "{} m/s after 0.5 s, theory {expected}", v.x);
    assert!(
        v.z.abs() < 1e-3 && world.angular_velocity(id).unwrap().length() < 0.05,
        "the box veered or tipped"
    );
}

#[test]
fn spinning_box_is_stopped_by_twist_friction() {
    // Friction acts as if the weight rested on the four corners, a·√2 from the centre, so the
    // spin about the normal decays at μ m g a√2 / I = 1.5 √2 μ g / a with I = m (2a)² / 6.
    let (mut world, id) = box_on_floor();
    world.set_angular_velocity(id, Vec3::new(0.0, 5.0, 0.0)).unwrap();
    common::run(&mut world, 6);
    let w = world.angular_velocity(id).unwrap().y;
    let expected = 5.0 - 1.5 * 2f32.sqrt() * 0.6 * 9.81 / 0.5 * 0.1;
    assert!((w - expected).abs() < 0.1 * expected, "{w} rad/s after 0.1 s, theory {expected}");
    common::run(&mut world, 30);
    assert!(world.angular_velocity(id).unwrap().length() < 1e-3, "still spinning");
    assert!(world.linear_velocity(id).unwrap().length() < 1e-3, "drifting");
}

/// No gravity, and a static wall 0.2 m thick across x = 0.
fn world_with_thin_wall() -> World {
    let settings = StepSettings { gravity: Vec3::ZERO, ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    world
        .create_body(&BodyDesc::fixed(Shape::cuboid(Vec3::new(0.1, 5.0, 5.0)).unwrap(), Vec3::ZERO))
        .unwrap();
    world
}

#[test]
fn fast_sphere_never_passes_a_thin_wall() {
    for offset in [0.0f32, 0.37, 1.21, 2.9] {
        let mut world = world_with_thin_wall();
        let bullet = world
            .create_body(
                &BodyDesc::dynamic(Shape::sphere(0.1).unwrap(), Vec3::new(-20.0 - offset, 0.3, 0.0))
                    .with_linear_velocity(Vec3::new(200.0, 0.0, 0.0)),
            )
            .unwrap();
        for _ in 0..120 {
            world.step();
            let x = world.transform(bullet).unwrap().position.x;
            assert!(x < 0.0, "offset {offset}: the bullet passed the wall (x = {x})");
        }
    }
}

#[test]
fn fast_box_never_passes_a_thin_wall() {
    let mut world = world_with_thin_wall();
    let bullet = world
        .create_body(
            &BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.1)).unwrap(), Vec3::new(-10.0, 0.0, 0.0))
                .with_rotation(Quat::from_rotation_y(0.4))
                .with_linear_velocity(Vec3::new(200.0, 0.0, 0.0)),
        )
        .unwrap();
    world.set_angular_velocity(bullet, Vec3::new(0.0, 20.0, 5.0)).unwrap();
    for _ in 0..120 {
        world.step();
        assert!(world.transform(bullet).unwrap().position.x < 0.0, "the box passed the wall");
    }
}

#[test]
fn a_volley_of_fast_balls_stops_at_a_thin_wall_alike_on_any_thread_count() {
    // 1200 balls across the wall's face at 150-198 m/s, spread along x: enough bodies for
    // finalising to run on a team, and hundreds swept to the wall in a step, so the continuous
    // stage runs on one too whenever the helpers still linger from it (a matter of the clock,
    // which changes who sweeps, never the result). Boxes would not do: they glance off the
    // wall into their neighbours, which can press a ball through it (a crowd's contacts are
    // soft).
    let run = |threads: usize| {
        let mut world = world_with_thin_wall();
        world.set_thread_count(threads).unwrap();
        let bullets: Vec<_> = (0..1200)
            .map(|i| {
                // One to a lane, the lanes too far apart for neighbours to touch in flight.
                let (row, column) = ((i / 30) as f32, (i % 30) as f32);
                let at = Vec3::new(-8.0 - 0.37 * (i % 7) as f32, -4.8 + 0.24 * row, -4.5 + 0.3 * column);
                let desc = BodyDesc::dynamic(Shape::sphere(0.1).unwrap(), at)
                    .with_linear_velocity(Vec3::new(150.0 + 0.04 * i as f32, 0.0, 0.0));
                world.create_body(&desc).unwrap()
            })
            .collect();
        let mut most_hits = 0;
        for _ in 0..30 {
            world.step();
            most_hits = most_hits.max(world.profile().counters.continuous_hits);
            for &b in &bullets {
                let x = world.transform(b).unwrap().position.x;
                assert!(x < 0.0, "{threads} threads: a ball passed the wall (x = {x})");
            }
        }
        assert!(
            most_hits >= 100,
            "{threads} threads: at most {most_hits} bodies swept to the wall in a step"
        );
        atoll_physics::state_hash(&world)
    };
    let one = run(1);
    for threads in 2..=4 {
        assert_eq!(run(threads), one, "{threads} threads differ from one");
    }
}

#[test]
fn rain_of_mixed_shapes_comes_to_rest_in_its_bin() {
    let (mut world, ids) = common::builtin("rain.ron");
    common::run(&mut world, 12 * 60);
    // A box riding on balls or capsules is carried by their rolling, so only boxes and rocks
    // that rest on flat things (the floor, boxes, rocks) must have come to rest.
    let round = |id| matches!(world.body(id).unwrap().shape.kind(), ShapeKind::Sphere | ShapeKind::Capsule);
    let on_round: Vec<_> = (world.touching_contacts())
        .flat_map(|c| [(c.body_a, c.body_b), (c.body_b, c.body_a)])
        .filter(|&(_, other)| round(other))
        .map(|(body, _)| body)
        .collect();
    let mut fastest_angular = 0.0f32;
    for id in &ids[5..] {
        let b = world.body(*id).unwrap();
        // The lowest point of the shape itself (its AABB is looser for rotated hulls).
        let down = b.transform.inverse_transform_vector(Vec3::NEG_Y);
        let lowest = b.transform.transform_point(b.shape.support(down)).y;
        assert!(lowest > -0.05, "a {:?} sank to {lowest}", b.shape.kind());
        let p = b.transform.position;
        assert!(p.x.abs() < 12.0 && p.z.abs() < 12.0, "a {:?} left the bin: {p}", b.shape.kind());
        // Balls may roll on (nothing damps rolling); boxes and rocks must have settled.
        if matches!(b.shape.kind(), ShapeKind::Cuboid | ShapeKind::Hull) && !on_round.contains(id) {
            fastest_angular = fastest_angular.max(b.angular_velocity.length());
            assert!(
                b.linear_velocity.length() < 0.2,
                "a {:?} still moves at {}",
                b.shape.kind(),
                b.linear_velocity
            );
        }
    }
    assert!(fastest_angular < 0.5, "a box or rock still spins at {fastest_angular} rad/s");
}

#[test]
fn dominoes_all_fall() {
    let (mut world, ids) = common::builtin("dominoes.ron");
    common::run(&mut world, 20 * 60);
    for id in &ids[1..] {
        let up = world.transform(*id).unwrap().rotation * Vec3::Y;
        assert!(up.y < 0.9, "a domino is still standing (up = {up})");
    }
}
