//! The built-in joint scenes do what they show: the bridge carries its loads, the ragdolls pile
//! up and sleep, the doors open and close, the vehicle drives over the bumps, the cradle passes
//! its swing along.

mod common;

use atoll_physics::{BodyId, JointType, Vec3, World};

/// The body named `name` in built-in scene `file`'s world.
fn named(file: &str, name: &str) -> BodyId {
    let path = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(file);
    let scene = atoll_physics::Scene::load(&path).unwrap();
    let index =
        scene.bodies.iter().position(|b| b.name == name).unwrap_or_else(|| panic!("{file}: no {name}"));
    // Scene bodies get ids in scene order, from slot 0.
    let (world, ids) = scene.build_world().unwrap();
    drop(world);
    ids[index]
}

/// The largest distance between joint anchors that the joints hold together (a wheel's
/// suspension travel is free, so only its other two directions count).
fn max_joint_gap(world: &World) -> f32 {
    world
        .joints()
        .map(|j| {
            let gap = j.anchor_b - j.anchor_a;
            match j.joint_type {
                JointType::Wheel => (gap - j.normal * gap.dot(j.normal)).length(),
                _ => gap.length(),
            }
        })
        .fold(0.0, f32::max)
}

#[test]
fn the_bridge_carries_its_loads_and_comes_to_rest() {
    let (mut world, _) = common::builtin("bridge.ron");
    let mut worst = 0.0f32;
    let mut steps = 0;
    // The crates set it swaying; hinge friction stills it in about 13 s.
    while steps < 1200 && (steps < 60 || world.islands().any(|i| i.awake)) {
        world.step();
        worst = worst.max(max_joint_gap(&world));
        steps += 1;
    }
    assert!(worst < 0.02, "bridge joints opened {worst} m under the falling loads");
    for k in 0..6 {
        let load = named("bridge.ron", &format!("crate {k}"));
        let y = world.transform(load).unwrap().position.y;
        assert!(y > 2.0, "crate {k} fell off the bridge to y = {y}");
    }
    assert_eq!(world.islands().filter(|i| i.awake).count(), 0, "the loaded bridge still sways after 20 s");
}

#[test]
fn the_ragdoll_pile_settles_asleep_with_every_joint_closed() {
    let (mut world, _) = common::builtin("ragdoll_pile.ron");
    let mut worst = 0.0f32;
    let mut steps = 0;
    while steps < 900 && (steps < 60 || world.islands().any(|i| i.awake)) {
        world.step();
        worst = worst.max(max_joint_gap(&world));
        steps += 1;
    }
    assert!(worst < 0.1, "a ragdoll joint opened {worst} m");
    assert!(max_joint_gap(&world) < 0.005, "at rest a joint is {} m open", max_joint_gap(&world));
    assert!(world.islands().all(|i| !i.awake), "still awake after {steps} steps");
}

#[test]
fn the_motor_opens_its_door_to_the_limit_and_the_spring_door_swings_shut() {
    let (mut world, _) = common::builtin("door.ron");
    let joints: Vec<_> = world.joint_ids().collect();
    let mut widest = 0.0f32;
    for _ in 0..300 {
        world.step();
        widest = widest.max(world.joint(joints[1]).unwrap().position.abs());
    }
    let motor = world.joint(joints[0]).unwrap();
    assert!(
        (motor.position - 1.8).abs() < 1f32.to_radians(),
        "motor door at {} rad, limit 1.8",
        motor.position
    );
    assert!(motor.limit_active);
    assert!(widest > 0.3, "the thrown ball opened the spring door only {widest} rad");
    for _ in 0..300 {
        world.step();
    }
    let spring = world.joint(joints[1]).unwrap().position;
    assert!(spring.abs() < 0.05, "the spring door stays open at {spring} rad");
}

#[test]
fn the_vehicle_drives_over_the_bumps_without_losing_a_wheel() {
    let (mut world, _) = common::builtin("vehicle.ron");
    let chassis = named("vehicle.ron", "car chassis");
    let start = world.transform(chassis).unwrap().position;
    let mut worst = 0.0f32;
    let mut lowest_up = 1.0f32;
    for _ in 0..600 {
        world.step();
        worst = worst.max(max_joint_gap(&world));
        lowest_up = lowest_up.min((world.transform(chassis).unwrap().rotation * Vec3::Y).y);
    }
    let travelled = world.transform(chassis).unwrap().position.x - start.x;
    assert!(travelled > 20.0, "the vehicle drove {travelled} m in 10 s");
    assert!(lowest_up > 0.7, "the chassis tipped to an up-vector y of {lowest_up}");
    assert!(worst < 0.02, "a wheel joint opened {worst} m");
}

#[test]
fn newtons_cradle_passes_the_swing_to_the_far_ball() {
    let (mut world, _) = common::builtin("newtons_cradle.ron");
    let balls: Vec<_> = (0..5).map(|k| named("newtons_cradle.ron", &format!("ball {k}"))).collect();
    let rest_x = world.transform(balls[4]).unwrap().position.x;
    // The first ball falls for about a quarter period (38 steps) and strikes; the blow runs
    // down the row in four steps and the far ball swings out for another quarter period.
    let mut far_swing = 0.0f32;
    let mut middle_speed_after = 0.0f32;
    for step in 0..90 {
        world.step();
        far_swing = far_swing.max(world.transform(balls[4]).unwrap().position.x - rest_x);
        if step > 45 {
            middle_speed_after = middle_speed_after.max(world.linear_velocity(balls[2]).unwrap().length());
        }
    }
    let first_speed = world.linear_velocity(balls[0]).unwrap().length();
    assert!(far_swing > 0.5, "the far ball swung out only {far_swing} m");
    assert!(first_speed < 0.2, "the striking ball kept {first_speed} m/s");
    assert!(middle_speed_after < 0.2, "the middle ball moves at {middle_speed_after} m/s after the blow");
}

#[test]
fn the_compound_car_climbs_the_ramp_and_scatters_the_crates_in_one_piece() {
    let (mut world, _) = common::builtin("car.ron");
    let chassis = named("car.ron", "car chassis");
    // The chassis is one body of five shapes: its mass is the parts' (see `compounds.rs` for
    // the exact sums), far more than a wheel's.
    assert_eq!(world.body_shapes(chassis).unwrap().count(), 5);
    let crates: Vec<_> = (0..12).map(|k| named("car.ron", &format!("crate {k}"))).collect();
    let crate_start: Vec<Vec3> = crates.iter().map(|&c| world.transform(c).unwrap().position).collect();
    let start = world.transform(chassis).unwrap().position;
    let (mut worst, mut lowest_up, mut highest) = (0.0f32, 1.0f32, 0.0f32);
    for _ in 0..480 {
        world.step();
        worst = worst.max(max_joint_gap(&world));
        let pose = world.transform(chassis).unwrap();
        lowest_up = lowest_up.min((pose.rotation * Vec3::Y).y);
        highest = highest.max(pose.position.y);
    }
    let travelled = world.transform(chassis).unwrap().position.x - start.x;
    let scattered = crates
        .iter()
        .zip(&crate_start)
        .filter(|(c, s)| world.transform(**c).unwrap().position.distance(**s) > 0.3)
        .count();
    assert!(travelled > 14.0, "the car drove {travelled} m in 8 s");
    assert!(highest > start.y + 0.3, "the car never climbed the ramp (highest {highest} m)");
    assert!(scattered >= 6, "the car moved only {scattered} of the 12 crates");
    assert!(lowest_up > 0.5, "the chassis tipped to an up-vector y of {lowest_up}");
    assert!(worst < 0.02, "a wheel joint opened {worst} m");
}
