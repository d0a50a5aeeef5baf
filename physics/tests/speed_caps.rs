//! The step's guards: a body is never moved faster than the speed caps (`max_linear_speed`,
//! `max_angular_speed`), and one the solve drove past them is slowed and reported; a body
//! whose state turns non-finite is stopped where the step began, its joints disabled and its
//! contacts' impulses forgotten, and reported. No step leaves a non-finite number behind.

mod common;

use atoll_physics::{
    BodyDesc, BodyFaultKind, JointEventKind, JointKind, Shape, SphericalJoint, StepSettings, Vec3, World,
};

/// Every body, joint and contact the world reports is finite.
fn assert_all_finite(world: &World) {
    for id in world.body_ids() {
        let b = world.body(id).unwrap();
        assert!(
            b.transform.position.is_finite()
                && b.transform.rotation.is_finite()
                && b.linear_velocity.is_finite()
                && b.angular_velocity.is_finite(),
            "body {id:?}"
        );
    }
    for id in world.joint_ids() {
        let j = world.joint(id).unwrap();
        assert!(
            j.anchor_a.is_finite() && j.anchor_b.is_finite() && j.force.is_finite() && j.torque.is_finite(),
            "joint {id:?}"
        );
    }
    for c in world.contacts() {
        let points = &c.manifold.points[..c.manifold.count];
        assert!(
            points.iter().all(|p| p.position.is_finite() && p.separation.is_finite())
                && c.impulses.iter().all(|i| i.normal.is_finite() && i.max_normal.is_finite())
                && c.friction_impulse.is_finite()
                && c.twist_impulse.is_finite(),
            "contact {:?}",
            c.id
        );
    }
}

#[test]
fn a_body_driven_past_the_linear_cap_is_slowed_to_it_and_reported() {
    let settings = StepSettings { max_linear_speed: 5.0, gravity: Vec3::ZERO, ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    let fast = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::ZERO)).unwrap();
    let slow =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 0.0, 9.0))).unwrap();
    world.set_linear_velocity(fast, Vec3::new(50.0, 0.0, 0.0)).unwrap();
    world.set_linear_velocity(slow, Vec3::new(4.0, 0.0, 0.0)).unwrap();
    world.step();
    let moved = world.transform(fast).unwrap().position.x;
    let dt = world.settings().dt;
    // It moved at the cap, no faster, and keeps the cap's speed.
    assert!((moved - 5.0 * dt).abs() < 1e-5, "moved {moved} m in a step");
    assert!((world.linear_velocity(fast).unwrap().length() - 5.0).abs() < 1e-5);
    let faults = world.body_faults();
    assert_eq!(faults.len(), 1, "{faults:?}");
    assert_eq!((faults[0].body, faults[0].kind, faults[0].step), (fast, BodyFaultKind::Capped, 1));
    assert_eq!(world.profile().counters.capped_bodies, 1);
    assert_eq!(world.profile().counters.non_finite_bodies, 0);
    // Below the cap nothing is reported.
    world.step();
    assert!(world.body_faults().is_empty());
    assert_eq!(world.profile().counters.capped_bodies, 0);
}

#[test]
fn a_cap_of_zero_or_below_or_not_finite_is_refused() {
    for bad in [0.0, -1.0, f32::NAN, f32::INFINITY] {
        let settings = StepSettings { max_linear_speed: bad, ..StepSettings::default() };
        let error = World::new(settings).unwrap_err().to_string();
        assert!(error.contains("max linear speed"), "{bad}: {error}");
    }
}

#[test]
fn a_body_whose_state_turns_non_finite_is_stopped_isolated_and_reported() {
    let (mut world, _floor) = common::world_with_floor();
    world.set_thread_count(2).unwrap();
    let ball = |world: &mut World, at: Vec3| {
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.3).unwrap(), at)).unwrap()
    };
    let (a, b) = (ball(&mut world, Vec3::new(0.0, 0.3, 0.0)), ball(&mut world, Vec3::new(0.0, 1.0, 0.0)));
    let apart = ball(&mut world, Vec3::new(5.0, 0.3, 0.0));
    let kind = JointKind::Spherical(SphericalJoint::default());
    let joint = world
        .create_joint(&world.joint_desc_at(kind, Some(a), b, Vec3::new(0.0, 0.65, 0.0), Vec3::X).unwrap())
        .unwrap();
    for _ in 0..10 {
        world.step();
    }
    let before = world.transform(b).unwrap();
    world.set_velocities_unchecked(b, Vec3::new(f32::NAN, 0.0, 0.0), Vec3::ZERO);
    world.step();
    assert_all_finite(&world);
    // The poisoned body stays where the step began, at rest; the joint spread the NaN to its
    // other side in the same solve, which is stopped too. The body apart is untouched.
    assert_eq!(world.transform(b).unwrap(), before);
    assert_eq!(world.linear_velocity(b).unwrap(), Vec3::ZERO);
    let faulted: Vec<_> = world.body_faults().iter().map(|f| (f.body, f.kind)).collect();
    assert!(faulted.contains(&(b, BodyFaultKind::NonFinite)), "{faulted:?}");
    assert!(faulted.iter().all(|&(body, _)| body != apart), "{faulted:?}");
    assert_eq!(world.profile().counters.non_finite_bodies as usize, faulted.len());
    // The joint is disabled and reported, once.
    assert!(!world.joint(joint).unwrap().enabled);
    let isolated: Vec<_> =
        world.joint_events().iter().filter(|e| e.kind == JointEventKind::Isolated).map(|e| e.joint).collect();
    assert_eq!(isolated, vec![joint]);
    // The world goes on, finite, and the stopped bodies fall again.
    for _ in 0..60 {
        world.step();
        assert_all_finite(&world);
    }
    assert!(world.body_faults().is_empty());
}
