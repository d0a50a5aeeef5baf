//! The world's API: ids, getters and setters, and refusal of bad input.

mod common;

use atoll_physics::{AtollError, BodyDesc, Material, Quat, Shape, StepSettings, Transform, Vec3, World};

fn invalid_what(r: Result<impl std::fmt::Debug, AtollError>) -> &'static str {
    match r {
        Err(AtollError::InvalidInput { what, .. }) => what,
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn degenerate_shapes_are_refused_with_reasons() {
    assert_eq!(invalid_what(Shape::sphere(0.0)), "sphere radius");
    assert_eq!(invalid_what(Shape::sphere(-1.0)), "sphere radius");
    assert_eq!(invalid_what(Shape::sphere(f32::NAN)), "sphere radius");
    assert_eq!(invalid_what(Shape::capsule(1.0, f32::INFINITY)), "capsule radius");
    assert_eq!(invalid_what(Shape::cuboid(Vec3::new(1.0, 0.0, 1.0))), "box half extent y");
    let coplanar = [Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::new(1.0, 0.0, 1.0), Vec3::new(0.3, 0.0, 0.7)];
    match Shape::hull(&coplanar) {
        Err(AtollError::InvalidInput { what, reason }) => {
            assert_eq!(what, "convex hull");
            assert!(reason.contains("coplanar"), "{reason}");
        }
        other => panic!("expected InvalidInput, got {other:?}"),
    }
    let err = Shape::sphere(-1.0).unwrap_err().to_string();
    assert!(err.contains("sphere radius") && err.contains("-1"), "{err}");
}

#[test]
fn bad_body_descriptions_leave_the_world_unchanged() {
    let (mut world, _) = common::world_with_floor();
    let ball = Shape::sphere(0.5).unwrap();
    let nan_position = BodyDesc::dynamic(ball.clone(), Vec3::new(0.0, f32::NAN, 0.0));
    assert_eq!(invalid_what(world.create_body(&nan_position)), "position");
    let bad_rotation =
        BodyDesc::dynamic(ball.clone(), Vec3::ZERO).with_rotation(Quat::from_xyzw(0.0, 0.0, 0.0, 2.0));
    assert_eq!(invalid_what(world.create_body(&bad_rotation)), "rotation");
    let heavy_nothing = BodyDesc::dynamic(ball.clone(), Vec3::ZERO)
        .with_material(Material { density: -1.0, ..Material::default() });
    assert_eq!(invalid_what(world.create_body(&heavy_nothing)), "density");
    let mut sneaky = BodyDesc::dynamic(ball, Vec3::ZERO);
    sneaky.shape = Shape::Sphere { radius: -3.0 };
    assert_eq!(invalid_what(world.create_body(&sneaky)), "sphere radius");
    assert_eq!(world.body_count(), 1);
}

#[test]
fn bad_values_never_reach_a_body() {
    let (mut world, _) = common::world_with_floor();
    let id = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::Y)).unwrap();
    assert_eq!(invalid_what(world.set_linear_velocity(id, Vec3::new(f32::NAN, 0.0, 0.0))), "linear velocity");
    assert_eq!(invalid_what(world.set_angular_velocity(id, Vec3::splat(f32::INFINITY))), "angular velocity");
    assert_eq!(invalid_what(world.apply_force(id, Vec3::new(0.0, f32::NAN, 0.0))), "force");
    assert_eq!(invalid_what(world.apply_impulse(id, Vec3::new(0.0, f32::NEG_INFINITY, 0.0))), "impulse");
    assert_eq!(invalid_what(world.apply_torque(id, Vec3::new(0.0, 0.0, f32::NAN))), "torque");
    let bad = Transform::new(Vec3::new(f32::NAN, 0.0, 0.0), Quat::IDENTITY);
    assert_eq!(invalid_what(world.set_transform(id, bad)), "position");
    assert_eq!(invalid_what(world.set_gravity(Vec3::new(0.0, f32::NAN, 0.0))), "gravity");
    let settings = StepSettings { dt: 0.0, ..StepSettings::default() };
    assert_eq!(invalid_what(world.set_settings(settings)), "dt");
    assert_eq!(invalid_what(World::new(StepSettings { substeps: 0, ..StepSettings::default() })), "substeps");
    common::run(&mut world, 10);
    let b = world.body(id).unwrap();
    assert!(b.transform.is_finite() && b.linear_velocity.is_finite() && b.angular_velocity.is_finite());
}

#[test]
fn ids_are_generational() {
    let (mut world, _) = common::world_with_floor();
    let a = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::Y)).unwrap();
    world.destroy_body(a).unwrap();
    let b = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::Y * 3.0)).unwrap();
    assert_eq!(a.index(), b.index(), "the slot is reused");
    assert_ne!(a, b);
    assert_eq!(world.transform(a), Err(AtollError::StaleBodyId));
    assert_eq!(world.destroy_body(a), Err(AtollError::StaleBodyId));
    assert_eq!(world.transform(b).unwrap().position, Vec3::Y * 3.0);
}

#[test]
fn getters_and_setters_round_trip() {
    let (mut world, _) = common::world_with_floor();
    let id = world
        .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::Y * 5.0))
        .unwrap();
    let xf = Transform::new(Vec3::new(1.0, 4.0, -2.0), Quat::from_rotation_y(0.5));
    world.set_transform(id, xf).unwrap();
    world.set_linear_velocity(id, Vec3::X).unwrap();
    world.set_angular_velocity(id, Vec3::Z).unwrap();
    assert_eq!(world.transform(id).unwrap(), xf);
    assert_eq!(world.linear_velocity(id).unwrap(), Vec3::X);
    assert_eq!(world.angular_velocity(id).unwrap(), Vec3::Z);
    let body = world.body(id).unwrap();
    assert!((body.mass - 1000.0).abs() < 1e-3, "a 1 m³ box of density 1000 weighs 1000 kg");
    world.apply_impulse(id, Vec3::new(0.0, 1000.0, 0.0)).unwrap();
    assert!((world.linear_velocity(id).unwrap() - Vec3::new(1.0, 1.0, 0.0)).length() < 1e-5);
}

#[test]
fn gravity_and_forces_integrate() {
    let mut world = World::new(StepSettings::default()).unwrap();
    let id = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::ZERO)).unwrap();
    common::run(&mut world, 60);
    let v = world.linear_velocity(id).unwrap();
    assert!((v.y + 9.81).abs() < 1e-3, "free fall for 1 s gives -9.81 m/s, got {v}");
    let mass = world.body(id).unwrap().mass;
    world.set_gravity(Vec3::ZERO).unwrap();
    world.set_linear_velocity(id, Vec3::ZERO).unwrap();
    for _ in 0..60 {
        world.apply_force(id, Vec3::X * mass).unwrap();
        world.step();
    }
    let v = world.linear_velocity(id).unwrap();
    assert!((v.x - 1.0).abs() < 1e-3, "1 m/s² for 1 s, got {v}");
}

#[test]
fn a_scripted_kinematic_rotation_stays_on_its_circle() {
    use atoll_physics::{BodyType, KinematicMotion};
    let mut world = World::new(StepSettings::default()).unwrap();
    let mut desc = BodyDesc::new(
        BodyType::Kinematic,
        Shape::cuboid(Vec3::splat(0.5)).unwrap(),
        Vec3::new(3.0, 1.0, 0.0),
    );
    let omega = Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_2); // a quarter turn per second
    desc.motion = Some(KinematicMotion::Rotate { pivot: Vec3::new(0.0, 1.0, 0.0), angular_velocity: omega });
    let id = world.create_body(&desc).unwrap();
    common::run(&mut world, 60);
    let xf = world.transform(id).unwrap();
    assert!((xf.position - Vec3::new(0.0, 4.0, 0.0)).length() < 1e-3, "at {}", xf.position);
    assert!((xf.rotation * Vec3::X - Vec3::Y).length() < 1e-3, "turned with the motion");
    // Only kinematic bodies take a scripted motion.
    let mut dynamic = BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::ZERO);
    dynamic.motion = desc.motion;
    assert_eq!(invalid_what(world.create_body(&dynamic)), "motion");
}

#[test]
fn scripted_motions_follow_their_bodies_through_removal_and_replacement() {
    use atoll_physics::{BodyType, KinematicMotion};
    let mut world = World::new(StepSettings::default()).unwrap();
    // A kinematic box turning a quarter a second about a pivot 3 m from it, `z` apart.
    let turning = |z: f32| {
        let mut desc = BodyDesc::new(
            BodyType::Kinematic,
            Shape::cuboid(Vec3::splat(0.5)).unwrap(),
            Vec3::new(3.0, 1.0, z),
        );
        let omega = Vec3::new(0.0, 0.0, std::f32::consts::FRAC_PI_2);
        desc.motion =
            Some(KinematicMotion::Rotate { pivot: Vec3::new(0.0, 1.0, z), angular_velocity: omega });
        desc
    };
    let still = BodyDesc::new(
        BodyType::Kinematic,
        Shape::cuboid(Vec3::splat(0.5)).unwrap(),
        Vec3::new(3.0, 1.0, -10.0),
    );
    let plain = world.create_body(&still).unwrap();
    let removed = world.create_body(&turning(20.0)).unwrap();
    let kept = world.create_body(&turning(10.0)).unwrap();
    world.destroy_body(removed).unwrap();
    // A body without a motion replaced by one with a motion, and one made in the freed slot.
    world.replace_body(plain, &turning(-10.0)).unwrap();
    let reused = world.create_body(&turning(30.0)).unwrap();
    assert_eq!(reused.index(), removed.index(), "the freed slot is reused");
    common::run(&mut world, 60);
    for (id, z) in [(plain, -10.0), (kept, 10.0), (reused, 30.0)] {
        let at = world.transform(id).unwrap().position;
        assert!((at - Vec3::new(0.0, 4.0, z)).length() < 1e-3, "body at z {z} ended at {at}");
    }
    // Replaced by a body without a motion, it stays where it is.
    world
        .replace_body(
            kept,
            &BodyDesc::new(BodyType::Kinematic, Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 4.0, 10.0)),
        )
        .unwrap();
    common::run(&mut world, 30);
    assert_eq!(world.transform(kept).unwrap().position, Vec3::new(0.0, 4.0, 10.0));
}

#[test]
fn replacing_a_body_keeps_its_id_and_slot_and_refuses_bad_descriptions() {
    let (mut world, floor) = common::world_with_floor();
    let ball =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 0.5, 0.0))).unwrap();
    let other =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(3.0, 0.5, 0.0))).unwrap();
    for _ in 0..5 {
        world.step();
    }
    assert!(world.touching_contacts().any(|c| c.body_a == ball || c.body_b == ball));
    let order: Vec<_> = world.body_ids().collect();

    let boxed =
        BodyDesc::dynamic(Shape::cuboid(Vec3::new(0.5, 0.25, 0.5)).unwrap(), Vec3::new(0.0, 1.0, 0.0))
            .with_material(Material { density: 500.0, ..Material::default() });
    world.replace_body(ball, &boxed).unwrap();
    assert_eq!(world.body_ids().collect::<Vec<_>>(), order, "ids and slots stay");
    assert_eq!(world.body_desc(ball).unwrap(), boxed);
    assert!((world.body(ball).unwrap().mass - 500.0 * 0.5).abs() < 1e-3);
    assert!(!world.contacts().any(|c| c.body_a == ball || c.body_b == ball), "old contacts dropped");
    assert!(world.body(other).is_ok() && world.body(floor).is_ok());

    // The replaced box falls onto the floor and rests there like any new body.
    for _ in 0..120 {
        world.step();
    }
    let y = world.transform(ball).unwrap().position.y;
    assert!((y - 0.25).abs() < 0.02, "box rests at {y}");

    // A bad description changes nothing.
    let before = world.body_desc(ball).unwrap();
    let nan = BodyDesc::dynamic(Shape::sphere(1.0).unwrap(), Vec3::new(f32::NAN, 0.0, 0.0));
    assert_eq!(invalid_what(world.replace_body(ball, &nan)), "position");
    assert_eq!(world.body_desc(ball).unwrap(), before);

    // A static body can become dynamic and back.
    let floor_desc = world.body_desc(floor).unwrap();
    world
        .replace_body(
            floor,
            &BodyDesc { body_type: atoll_physics::BodyType::Kinematic, ..floor_desc.clone() },
        )
        .unwrap();
    assert_eq!(world.body(floor).unwrap().body_type, atoll_physics::BodyType::Kinematic);
    world.replace_body(floor, &floor_desc).unwrap();
    world.step();
    assert!(world.body_desc(floor).unwrap() == floor_desc);
}
