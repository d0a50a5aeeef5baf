//! Motors against their load: a motor reaches its target speed under a load it can carry,
//! giving exactly the load's torque or force, and stalls at its limit under one it cannot, the
//! load then winning with the acceleration theory gives.

use super::support::*;
use atoll_physics::{BodyDesc, JointKind, Motor, PrismaticJoint, RevoluteJoint, Shape, StepSettings, Vec3};

/// A 0.5 × 0.5 × 0.1 m plate on a revolute joint about world Z, its motor asking 3 rad/s with
/// at most `max_torque`, against a steady `load` torque; returns (spin, motor torque) after 2 s
/// and the plate's inertia about Z.
fn turn(settings: StepSettings, threads: usize, max_torque: f32, load: f32) -> (f64, f64, f64) {
    let mut world = world(StepSettings { gravity: Vec3::ZERO, ..settings }, threads);
    let at = Vec3::new(0.0, 1.0, 0.0);
    let plate = world
        .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::new(0.25, 0.25, 0.05)).unwrap(), at))
        .unwrap();
    let kind =
        JointKind::Revolute(RevoluteJoint { motor: Some(Motor::new(3.0, max_torque)), ..Default::default() });
    let desc = world.joint_desc_at(kind, None, plate, at, Vec3::Z).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    for _ in 0..(2.0 / settings.dt).round() as usize {
        world.apply_torque(plate, Vec3::new(0.0, 0.0, -load)).unwrap();
        world.step();
        assert_finite(&world, "revolute motor");
    }
    let spin = world.angular_velocity(plate).unwrap().z as f64;
    let inertia = world.body(plate).unwrap().inertia.z_axis.z as f64;
    (spin, world.joint(joint).unwrap().motor_load as f64, inertia)
}

#[test]
fn a_revolute_motor_reaches_its_speed_under_a_load_it_carries_and_stalls_under_one_it_cannot() {
    for (name, settings) in settings_under_test() {
        for threads in [1, 2] {
            // Carries: 20 N·m against 10.
            let (spin, torque, _) = turn(settings, threads, 20.0, 10.0);
            eprintln!(
                "figure: revolute motor, {name}, {threads} threads: {spin:.4} rad/s of 3, {torque:.3} N·m of 10"
            );
            assert!((spin - 3.0).abs() < 0.01 * 3.0, "{name}: spins at {spin} rad/s, the motor asks 3");
            assert!((torque - 10.0).abs() < 0.01 * 10.0, "{name}: gives {torque} N·m against 10");
            // Stalls: 5 N·m against 10 turns backwards at (10 − 5) / I, from 0 after 2 s.
            let (spin, torque, inertia) = turn(settings, threads, 5.0, 10.0);
            let theory = -5.0 / inertia * 2.0;
            eprintln!(
                "figure: stalled revolute motor, {name}: {spin:.4} rad/s, theory {theory:.4}, {torque:.4} N·m of 5"
            );
            assert!((torque - 5.0).abs() < 1e-3 * 5.0, "{name}: a stalled motor gives {torque} of its 5 N·m");
            assert!(
                (spin - theory).abs() < 0.01 * theory.abs(),
                "{name}: turns at {spin} rad/s, theory {theory}"
            );
        }
    }
}

/// A 0.2 m box on a vertical prismatic joint whose motor lifts it at 1 m/s with at most
/// `max_force`; returns (speed, motor force, weight) after 2 s.
fn lift(settings: StepSettings, threads: usize, max_force_per_weight: f32) -> (f64, f64, f64) {
    let mut world = world(settings, threads);
    let at = Vec3::new(0.0, 1.0, 0.0);
    let body = world.create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.1)).unwrap(), at)).unwrap();
    let weight = world.body(body).unwrap().mass * G;
    let motor = Motor::new(1.0, max_force_per_weight * weight);
    let kind = JointKind::Prismatic(PrismaticJoint { motor: Some(motor), ..Default::default() });
    let desc = world.joint_desc_at(kind, None, body, at, Vec3::Y).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    for _ in 0..(2.0 / settings.dt).round() as usize {
        world.step();
        assert_finite(&world, "prismatic motor");
    }
    let speed = world.linear_velocity(body).unwrap().y as f64;
    (speed, world.joint(joint).unwrap().motor_load as f64, weight as f64)
}

#[test]
fn a_prismatic_motor_lifts_a_weight_it_can_carry_and_gives_way_under_one_it_cannot() {
    for (name, settings) in settings_under_test() {
        for threads in [1, 2] {
            let (speed, force, weight) = lift(settings, threads, 2.0);
            eprintln!(
                "figure: lifting motor, {name}, {threads} threads: {speed:.4} m/s of 1, {force:.3} N for a {weight:.3} N weight"
            );
            assert!((speed - 1.0).abs() < 0.01, "{name}: lifts at {speed} m/s, the motor asks 1");
            assert!((force - weight).abs() < 0.01 * weight, "{name}: pushes {force} N under {weight} N");
            // Half the weight: it sinks at g / 2, from rest, for 2 s.
            let (speed, force, weight) = lift(settings, threads, 0.5);
            let theory = -G as f64 / 2.0 * 2.0;
            eprintln!(
                "figure: overloaded lifting motor, {name}: {speed:.4} m/s, theory {theory:.4}, {force:.3} N of {:.3}",
                weight / 2.0
            );
            assert!(
                (force - weight / 2.0).abs() < 1e-3 * weight,
                "{name}: gives {force} N of its {} N",
                weight / 2.0
            );
            assert!(
                (speed - theory).abs() < 0.01 * theory.abs(),
                "{name}: sinks at {speed} m/s, theory {theory}"
            );
        }
    }
}
