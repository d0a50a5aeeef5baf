//! Joints against theory: periods, frequencies, motors, limits, ropes and breaking, each
//! compared with the closed-form answer; and the refusals of bad joint input.

mod common;

use atoll_physics::{
    AtollError, BodyDesc, BodyId, DistanceJoint, FixedJoint, JointDesc, JointEventKind, JointFrame,
    JointKind, Limits, Motor, PrismaticJoint, Quat, RevoluteJoint, Shape, SphericalJoint, Spring,
    StepSettings, Vec3, WheelJoint, World,
};
use std::f32::consts::{PI, TAU};

/// A world without gravity's sleep shortcuts getting in the way: sleeping off.
fn awake_world(gravity: Vec3) -> World {
    let settings = StepSettings { gravity, sleep_enabled: false, ..StepSettings::default() };
    World::new(settings).unwrap()
}

fn ball(world: &mut World, radius: f32, position: Vec3) -> BodyId {
    world.create_body(&BodyDesc::dynamic(Shape::sphere(radius).unwrap(), position)).unwrap()
}

fn cuboid(world: &mut World, half: Vec3, position: Vec3) -> BodyId {
    world.create_body(&BodyDesc::dynamic(Shape::cuboid(half).unwrap(), position)).unwrap()
}

/// Times between successive upward zero crossings of `signal` sampled every `dt`, linearly
/// interpolated.
fn periods(signal: &[f32], dt: f32) -> Vec<f32> {
    let mut crossings = Vec::new();
    for k in 1..signal.len() {
        let (a, b) = (signal[k - 1], signal[k]);
        if a < 0.0 && b >= 0.0 {
            crossings.push((k - 1) as f32 * dt + dt * a / (a - b));
        }
    }
    crossings.windows(2).map(|w| w[1] - w[0]).collect()
}

fn mean(v: &[f32]) -> f32 {
    v.iter().sum::<f32>() / v.len() as f32
}

#[test]
fn a_small_pendulum_swings_with_the_period_of_theory() {
    let (length, g, amplitude) = (1.0f32, 9.81f32, 0.1f32);
    for kind in [
        JointKind::Revolute(RevoluteJoint::default()),
        JointKind::Spherical(SphericalJoint::default()),
        JointKind::Distance(DistanceJoint::rigid(length)),
    ] {
        let mut world = awake_world(Vec3::new(0.0, -g, 0.0));
        let pivot = Vec3::new(0.0, 3.0, 0.0);
        let bob_at = pivot + Vec3::new(length * amplitude.sin(), -length * amplitude.cos(), 0.0);
        let bob = ball(&mut world, 0.02, bob_at);
        let mut desc = world.joint_desc_at(kind, None, bob, pivot, Vec3::Z).unwrap();
        if let JointKind::Distance(_) = kind {
            // A rod from the pivot to the bob's centre.
            desc.frame_b = JointFrame::at(Vec3::ZERO);
        }
        world.create_joint(&desc).unwrap();
        let dt = world.settings().dt;
        let xs: Vec<f32> = (0..900)
            .map(|_| {
                world.step();
                world.transform(bob).unwrap().position.x
            })
            .collect();
        let measured = mean(&periods(&xs, dt));
        // The bob's own inertia and the finite amplitude lengthen the period by well under 0.1 %.
        let theory = TAU * (length / g).sqrt();
        let error = (measured - theory).abs() / theory;
        // The figures in docs/engine-notes.md: `cargo test --test joints -- --nocapture`.
        eprintln!(
            "figure: {} pendulum period {measured:.4} s, theory {theory:.4} s",
            kind.joint_type().name()
        );
        assert!(error < 0.01, "{kind:?}: period {measured} s, theory {theory} s ({:.3} %)", error * 100.0);
    }
}

#[test]
fn a_prismatic_spring_oscillates_at_its_frequency() {
    let hertz = 2.0;
    let mut world = awake_world(Vec3::ZERO);
    let slider = cuboid(&mut world, Vec3::splat(0.1), Vec3::new(0.3, 1.0, 0.0));
    let kind =
        JointKind::Prismatic(PrismaticJoint { spring: Some(Spring::new(hertz, 0.0)), ..Default::default() });
    // Frames meet at the origin with the slider displaced 0.3 m along the axis.
    let mut desc = world.joint_desc_at(kind, None, slider, Vec3::new(0.0, 1.0, 0.0), Vec3::X).unwrap();
    desc.frame_b.anchor = Vec3::ZERO;
    world.create_joint(&desc).unwrap();
    let dt = world.settings().dt;
    let xs: Vec<f32> = (0..600)
        .map(|_| {
            world.step();
            world.transform(slider).unwrap().position.x
        })
        .collect();
    let measured = 1.0 / mean(&periods(&xs, dt));
    let error = (measured - hertz).abs() / hertz;
    assert!(error < 0.02, "frequency {measured} Hz, spring {hertz} Hz ({:.2} %)", error * 100.0);
    // Locked rotation and lateral rows hold the slider on the axis.
    let t = world.transform(slider).unwrap();
    assert!((t.position.y - 1.0).abs() < 1e-3 && t.position.z.abs() < 1e-3, "{:?}", t.position);
    assert!(t.rotation.angle_between(Quat::IDENTITY) < 1e-3);
}

/// A flat plate on a revolute joint about the world Z axis, its motor asking 3 rad/s with at
/// most `max_torque`.
fn motor_world(max_torque: f32) -> (World, BodyId, atoll_physics::JointId) {
    let mut world = awake_world(Vec3::ZERO);
    let wheel = cuboid(&mut world, Vec3::new(0.25, 0.25, 0.05), Vec3::new(0.0, 1.0, 0.0));
    let kind =
        JointKind::Revolute(RevoluteJoint { motor: Some(Motor::new(3.0, max_torque)), ..Default::default() });
    let desc = world.joint_desc_at(kind, None, wheel, Vec3::new(0.0, 1.0, 0.0), Vec3::Z).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    (world, wheel, joint)
}

#[test]
fn a_revolute_motor_reaches_its_speed_against_a_load_it_can_carry_and_stalls_against_one_it_cannot() {
    // Carries: 20 N·m of motor against 10 N·m of load.
    let (mut world, wheel, joint) = motor_world(20.0);
    for _ in 0..120 {
        world.apply_torque(wheel, Vec3::new(0.0, 0.0, -10.0)).unwrap();
        world.step();
    }
    let spin = world.angular_velocity(wheel).unwrap().z;
    assert!((spin - 3.0).abs() < 0.01, "spins at {spin} rad/s, motor asks 3");
    let load = world.joint(joint).unwrap().motor_load;
    assert!((load - 10.0).abs() < 0.2, "motor torque {load} N·m against a 10 N·m load");
    // Stalls: 5 N·m of motor against 10 N·m turns backwards, the motor at its limit.
    let (mut world, wheel, joint) = motor_world(5.0);
    for _ in 0..120 {
        world.apply_torque(wheel, Vec3::new(0.0, 0.0, -10.0)).unwrap();
        world.step();
    }
    let spin = world.angular_velocity(wheel).unwrap().z;
    assert!(spin < 0.0, "a motor weaker than its load still turns forwards at {spin} rad/s");
    let load = world.joint(joint).unwrap().motor_load;
    assert!((load - 5.0).abs() < 1e-3, "a stalled motor gives its whole {load} of 5 N·m");
}

#[test]
fn revolute_limits_hold_a_loaded_arm_within_a_degree() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    // A 2 m arm hinged at one end, with a 20 kg ball on the end, limited to ±30°.
    let arm = cuboid(&mut world, Vec3::new(1.0, 0.05, 0.05), Vec3::new(1.0, 2.0, 0.0));
    let weight = ball(&mut world, 0.2, Vec3::new(2.0, 2.0, 0.0));
    let limits = Limits::new(-PI / 6.0, PI / 6.0);
    let hinge = JointKind::Revolute(RevoluteJoint { limits: Some(limits), ..Default::default() });
    let desc = world.joint_desc_at(hinge, None, arm, Vec3::new(0.0, 2.0, 0.0), Vec3::Z).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    let weld = world
        .joint_desc_at(
            JointKind::Fixed(FixedJoint::default()),
            Some(arm),
            weight,
            Vec3::new(2.0, 2.0, 0.0),
            Vec3::X,
        )
        .unwrap();
    world.create_joint(&weld).unwrap();
    let mut lowest = 0.0f32;
    for _ in 0..300 {
        world.step();
        lowest = lowest.min(world.joint(joint).unwrap().position);
    }
    let over = (limits.lower - lowest).to_degrees();
    eprintln!("figure: revolute limit passed by {over:.2}°");
    assert!(over < 1.0, "the arm went {over}° past its limit");
    let view = world.joint(joint).unwrap();
    assert!(view.limit_active, "the resting arm leans on its limit");
    assert!((view.position - limits.lower).abs().to_degrees() < 1.0);
}

#[test]
fn prismatic_limits_hold_a_falling_slider_within_a_centimetre() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    let slider = cuboid(&mut world, Vec3::splat(0.2), Vec3::new(0.0, 2.0, 0.0));
    let kind =
        JointKind::Prismatic(PrismaticJoint { limits: Some(Limits::new(-0.5, 0.5)), ..Default::default() });
    // The axis points up: the slider falls to its lower limit, 0.5 m down, and stops.
    let desc = world.joint_desc_at(kind, None, slider, Vec3::new(0.0, 2.0, 0.0), Vec3::Y).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    let mut lowest = f32::MAX;
    for _ in 0..240 {
        world.step();
        lowest = lowest.min(world.joint(joint).unwrap().position);
    }
    assert!(lowest > -0.51, "the slider reached {lowest} m, its limit is -0.5 m");
    let force = world.joint(joint).unwrap().force;
    let weight = world.body(slider).unwrap().mass * 9.81;
    assert!(
        (force.y - weight).abs() < 0.01 * weight,
        "the limit carries {force:?}, the weight is {weight} N"
    );
}

#[test]
fn a_spherical_cone_and_twist_range_hold_a_kicked_rod_within_a_degree() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    // A 1 m rod hanging from a ball joint whose axis points down along it.
    let rod = world
        .create_body(&BodyDesc::dynamic(Shape::capsule(0.4, 0.05).unwrap(), Vec3::new(0.0, 1.5, 0.0)))
        .unwrap();
    let (cone, twist) = (30f32.to_radians(), 20f32.to_radians());
    let kind = JointKind::Spherical(SphericalJoint {
        swing_limit: Some(cone),
        twist_limits: Some(Limits::new(-twist, twist)),
        ..Default::default()
    });
    let desc = world.joint_desc_at(kind, None, rod, Vec3::new(0.0, 2.0, 0.0), -Vec3::Y).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    // A hard sideways kick at the bottom and a spin about the rod.
    world.apply_impulse_at_point(rod, Vec3::new(20.0, 0.0, 5.0), Vec3::new(0.0, 1.0, 0.0)).unwrap();
    let (mut widest, mut most_twist) = (0.0f32, 0.0f32);
    for _ in 0..240 {
        world.apply_torque(rod, Vec3::new(0.0, 30.0, 0.0)).unwrap();
        world.step();
        let view = world.joint(joint).unwrap();
        widest = widest.max(view.swing);
        most_twist = most_twist.max(view.position.abs());
    }
    eprintln!(
        "figure: swing {:.2}° in a {:.0}° cone, twist {:.2}° in ±{:.0}°",
        widest.to_degrees(),
        cone.to_degrees(),
        most_twist.to_degrees(),
        twist.to_degrees()
    );
    assert!(widest > cone - 0.05, "the kick should reach the cone: swing {}°", widest.to_degrees());
    assert!(
        widest < cone + 1f32.to_radians(),
        "swung to {}° in a {}° cone",
        widest.to_degrees(),
        cone.to_degrees()
    );
    assert!(
        most_twist < twist + 1f32.to_radians(),
        "twisted {}° in a ±{}° range",
        most_twist.to_degrees(),
        twist.to_degrees()
    );
    let gap = (world.joint(joint).unwrap().anchor_b - world.joint(joint).unwrap().anchor_a).length();
    assert!(gap < 0.01, "the ball joint opened {gap} m");
}

#[test]
fn wheel_suspension_and_distance_limits_hold_within_a_centimetre() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    // A heavy wheel on a soft suspension bottoms out on its lower limit.
    let wheel = world
        .create_body(
            &BodyDesc::dynamic(Shape::sphere(0.3).unwrap(), Vec3::new(0.0, 1.0, 0.0))
                .with_material(atoll_physics::Material { density: 8000.0, ..Default::default() }),
        )
        .unwrap();
    let kind = JointKind::Wheel(WheelJoint {
        motor: None,
        suspension: Some(Spring::new(0.5, 0.2)),
        suspension_limits: Some(Limits::new(-0.1, 0.1)),
    });
    let mut desc = JointDesc::new(kind, None, wheel);
    desc.frame_a = JointFrame::with_axes(Vec3::new(0.0, 1.0, 0.0), Vec3::Z, Vec3::Y).unwrap();
    desc.frame_b = JointFrame::with_axes(Vec3::ZERO, Vec3::Z, Vec3::Y).unwrap();
    let suspension = world.create_joint(&desc).unwrap();
    // A ball on a distance joint with a minimum: thrown at its anchor, it stops 0.5 m short.
    let ball = ball(&mut world, 0.1, Vec3::new(3.0, 5.0, 0.0));
    world.set_linear_velocity(ball, Vec3::new(-8.0, 0.0, 0.0)).unwrap();
    let mut rod = JointDesc::new(
        JointKind::Distance(DistanceJoint { length: 1.0, spring: None, limits: Some(Limits::new(0.5, 2.0)) }),
        None,
        ball,
    );
    rod.frame_a = JointFrame::at(Vec3::new(2.0, 5.0, 0.0));
    let distance = world.create_joint(&rod).unwrap();
    let (mut lowest, mut shortest, mut longest) = (0.0f32, f32::MAX, 0.0f32);
    for _ in 0..240 {
        world.step();
        lowest = lowest.min(world.joint(suspension).unwrap().position);
        let d = world.joint(distance).unwrap().position;
        shortest = shortest.min(d);
        longest = longest.max(d);
    }
    assert!(lowest > -0.11, "the suspension travelled to {lowest} m, its limit is -0.1 m");
    assert!(world.joint(suspension).unwrap().limit_active, "the heavy wheel rests on its limit");
    assert!(shortest > 0.49, "the rod shortened to {shortest} m, its minimum is 0.5 m");
    assert!(longest < 2.01, "the rod lengthened to {longest} m, its maximum is 2 m");
}

#[test]
fn a_rope_never_stretches_past_its_length_by_more_than_a_percent() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    let length = 2.0;
    // Dropped from beside the anchor: it falls freely until the rope snaps taut.
    let weight = ball(&mut world, 0.1, Vec3::new(1.0, 5.0, 0.0));
    let mut desc = JointDesc::new(JointKind::Distance(DistanceJoint::rope(length)), None, weight);
    desc.frame_a = JointFrame::at(Vec3::new(0.0, 5.0, 0.0));
    world.create_joint(&desc).unwrap();
    let mut longest = 0.0f32;
    let mut shortest = f32::MAX;
    for _ in 0..300 {
        world.step();
        let d = (world.transform(weight).unwrap().position - Vec3::new(0.0, 5.0, 0.0)).length();
        longest = longest.max(d);
        shortest = shortest.min(d);
    }
    assert!(longest < length * 1.01, "the rope stretched to {longest} m of {length} m");
    assert!(shortest < 1.2, "a slack rope lets the weight fall: it stayed {shortest} m away");
}

#[test]
fn a_breakable_joint_breaks_within_five_percent_of_its_threshold_and_not_below() {
    let threshold = 200.0;
    let mut world = awake_world(Vec3::ZERO);
    let body = cuboid(&mut world, Vec3::splat(0.2), Vec3::new(0.0, 1.0, 0.0));
    let mut desc = world
        .joint_desc_at(JointKind::Fixed(FixedJoint::default()), None, body, Vec3::new(0.0, 1.0, 0.0), Vec3::X)
        .unwrap();
    desc.break_force = Some(threshold);
    let joint = world.create_joint(&desc).unwrap();
    // A pull that grows by 1 N a step.
    let mut pull = 0.0;
    let mut broke_at = None;
    for _ in 0..400 {
        pull += 1.0;
        world.apply_force(body, Vec3::new(pull, 0.0, 0.0)).unwrap();
        world.step();
        if let Some(e) = world.joint_events().first() {
            assert_eq!(e.joint, joint);
            let JointEventKind::Broke { force, .. } = e.kind else { panic!("{e:?}") };
            assert!(force > threshold);
            broke_at = Some(pull);
            break;
        }
        assert!(pull <= threshold, "still whole at a pull of {pull} N over its {threshold} N threshold");
    }
    let broke_at = broke_at.expect("the joint never broke");
    assert!(broke_at > threshold && broke_at < threshold * 1.05, "broke at a pull of {broke_at} N");
    assert!(!world.joint(joint).unwrap().enabled, "a broken joint is disabled");
}

#[test]
fn a_wheel_joint_rides_its_suspension_and_spins() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    let chassis_at = Vec3::new(0.0, 1.0, 0.0);
    let wheel = ball(&mut world, 0.3, chassis_at + Vec3::new(0.0, -0.5, 0.0));
    let kind = JointKind::Wheel(WheelJoint {
        motor: Some(Motor::new(5.0, 100.0)),
        suspension: Some(Spring::new(3.0, 1.0)),
        suspension_limits: Some(Limits::new(-0.5, 0.5)),
    });
    // A wheel hung from the world: spin about Z, suspension along Y.
    let mut desc = JointDesc::new(kind, None, wheel);
    desc.frame_a = JointFrame::with_axes(chassis_at + Vec3::new(0.0, -0.5, 0.0), Vec3::Z, Vec3::Y).unwrap();
    desc.frame_b = JointFrame::with_axes(Vec3::ZERO, Vec3::Z, Vec3::Y).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    for _ in 0..600 {
        world.step();
    }
    let view = world.joint(joint).unwrap();
    // The spring sags by g / ω² under the wheel's weight.
    let sag = 9.81 / (TAU * 3.0).powi(2);
    assert!((view.position + sag).abs() < 0.01, "suspension at {} m, theory -{sag} m", view.position);
    let spin = world.angular_velocity(wheel).unwrap();
    assert!((spin.z - 5.0).abs() < 0.05 && spin.x.abs() < 1e-3 && spin.y.abs() < 1e-3, "{spin:?}");
    let p = world.transform(wheel).unwrap().position;
    assert!(p.x.abs() < 1e-3 && (p.z).abs() < 1e-3, "the wheel left its suspension line: {p:?}");
}

#[test]
fn bad_joint_input_is_refused_and_changes_nothing() {
    let mut world = awake_world(Vec3::ZERO);
    let a = ball(&mut world, 0.5, Vec3::ZERO);
    let b = ball(&mut world, 0.5, Vec3::new(2.0, 0.0, 0.0));
    let floor =
        world.create_body(&BodyDesc::fixed(Shape::sphere(1.0).unwrap(), Vec3::new(0.0, -5.0, 0.0))).unwrap();
    let spherical = JointKind::Spherical(SphericalJoint::default());
    let refused = |world: &mut World, desc: JointDesc, what: &str| {
        let err = world.create_joint(&desc).expect_err(what);
        assert_eq!(world.joint_count(), 0, "{what}: {err}");
    };
    refused(&mut world, JointDesc::new(spherical, Some(a), a), "a body to itself");
    refused(&mut world, JointDesc::new(spherical, None, floor), "no dynamic body");
    let mut stale = world.clone();
    let gone = stale.create_body(&BodyDesc::dynamic(Shape::sphere(0.1).unwrap(), Vec3::Y)).unwrap();
    assert_eq!(world.create_joint(&JointDesc::new(spherical, Some(a), gone)), Err(AtollError::StaleBodyId));
    let mut nan = JointDesc::new(spherical, Some(a), b);
    nan.frame_a.anchor.x = f32::NAN;
    refused(&mut world, nan, "a non-finite anchor");
    let mut skewed = JointDesc::new(spherical, Some(a), b);
    skewed.frame_b.rotation = Quat::from_xyzw(0.0, 0.0, 0.0, 2.0);
    refused(&mut world, skewed, "a non-unit rotation");
    assert!(JointFrame::with_axis(Vec3::ZERO, Vec3::ZERO).is_err(), "a zero axis");
    assert!(JointFrame::with_axis(Vec3::ZERO, Vec3::new(f32::INFINITY, 0.0, 0.0)).is_err());
    assert!(world.joint_desc_at(spherical, Some(a), b, Vec3::ZERO, Vec3::ZERO).is_err());
    let reversed =
        JointKind::Revolute(RevoluteJoint { limits: Some(Limits::new(0.5, -0.5)), ..Default::default() });
    refused(&mut world, JointDesc::new(reversed, Some(a), b), "a lower limit above the upper");
    let negative_spring =
        JointKind::Prismatic(PrismaticJoint { spring: Some(Spring::new(-1.0, 0.5)), ..Default::default() });
    refused(&mut world, JointDesc::new(negative_spring, Some(a), b), "a negative hertz");
    let negative_motor =
        JointKind::Wheel(WheelJoint { motor: Some(Motor::new(1.0, -2.0)), ..Default::default() });
    refused(&mut world, JointDesc::new(negative_motor, Some(a), b), "a negative motor force");
    let mut negative_break = JointDesc::new(spherical, Some(a), b);
    negative_break.break_force = Some(-1.0);
    refused(&mut world, negative_break, "a negative break force");
    refused(
        &mut world,
        JointDesc::new(JointKind::Distance(DistanceJoint::rigid(f32::NAN)), Some(a), b),
        "a NaN length",
    );
    let wide_cone = JointKind::Spherical(SphericalJoint { swing_limit: Some(4.0), ..Default::default() });
    refused(&mut world, JointDesc::new(wide_cone, Some(a), b), "a cone wider than π");
    // A stale joint id.
    let joint = world.create_joint(&JointDesc::new(spherical, Some(a), b)).unwrap();
    world.destroy_joint(joint).unwrap();
    assert_eq!(world.joint(joint), Err(AtollError::StaleJointId));
    assert_eq!(world.destroy_joint(joint), Err(AtollError::StaleJointId));
    assert_eq!(world.set_joint_enabled(joint, false), Err(AtollError::StaleJointId));
}

#[test]
fn destroying_a_body_destroys_its_joints_and_says_which() {
    let mut world = awake_world(Vec3::ZERO);
    let a = ball(&mut world, 0.5, Vec3::ZERO);
    let b = ball(&mut world, 0.5, Vec3::new(2.0, 0.0, 0.0));
    let c = ball(&mut world, 0.5, Vec3::new(4.0, 0.0, 0.0));
    let spherical = JointKind::Spherical(SphericalJoint::default());
    let ab = world.create_joint(&JointDesc::new(spherical, Some(a), b)).unwrap();
    let bc = world.create_joint(&JointDesc::new(spherical, Some(b), c)).unwrap();
    let ca = world.create_joint(&JointDesc::new(spherical, Some(c), a)).unwrap();
    let mut destroyed = world.destroy_body(b).unwrap();
    destroyed.sort();
    assert_eq!(destroyed, vec![ab, bc]);
    assert_eq!(world.joint_events().len(), 2);
    assert!(world.joint_events().iter().all(|e| e.kind == JointEventKind::Destroyed));
    assert_eq!(world.joint_ids().collect::<Vec<_>>(), vec![ca]);
    assert_eq!(world.body_joints(a).unwrap(), vec![ca]);
    world.step();
    assert!(world.joint_events().is_empty(), "events last one step");
}

#[test]
fn jointed_bodies_do_not_collide_unless_asked() {
    for collide_connected in [false, true] {
        let mut world = awake_world(Vec3::ZERO);
        let a = ball(&mut world, 0.5, Vec3::ZERO);
        let b = ball(&mut world, 0.5, Vec3::new(0.8, 0.0, 0.0));
        world.step();
        assert_eq!(world.touching_contacts().count(), 1, "the overlapping balls touch");
        let mut desc = JointDesc::new(JointKind::Distance(DistanceJoint::rigid(0.8)), Some(a), b);
        desc.collide_connected = collide_connected;
        let joint = world.create_joint(&desc).unwrap();
        world.step();
        let touching = world.touching_contacts().count();
        assert_eq!(touching, collide_connected as usize, "collide_connected {collide_connected}");
        // Disabled, the joint no longer keeps them apart: the pair is found again.
        world.set_joint_enabled(joint, false).unwrap();
        world.step();
        assert_eq!(world.touching_contacts().count(), 1, "collide_connected {collide_connected}, disabled");
    }
}

#[test]
fn a_joint_changed_in_place_keeps_its_id_and_its_warm_start() {
    let mut world = awake_world(Vec3::new(0.0, -9.81, 0.0));
    let bob = ball(&mut world, 0.2, Vec3::new(1.0, 0.0, 0.0));
    let hinge = JointKind::Revolute(RevoluteJoint::default());
    let desc = world.joint_desc_at(hinge, None, bob, Vec3::ZERO, Vec3::Z).unwrap();
    let id = world.create_joint(&desc).unwrap();
    for _ in 0..30 {
        world.step();
    }
    let carried = world.joint(id).unwrap().force;
    assert!(carried.length() > 0.1, "the hinge carries the bob: {carried}");
    let before = world.clone();

    // A limit added while it swings: same id, and the next step starts from the same impulses
    // (the same force as a world that was not edited, to the last bit, since the limit is far).
    let mut limited = world.joint_desc(id).unwrap();
    limited.kind =
        JointKind::Revolute(RevoluteJoint { limits: Some(Limits::new(-3.0, 3.0)), ..Default::default() });
    world.set_joint_desc(id, &limited).unwrap();
    assert_eq!(world.joint_desc(id).unwrap(), limited);
    let mut unedited = before.clone();
    world.step();
    unedited.step();
    assert_eq!(world.joint(id).unwrap().force, unedited.joint(id).unwrap().force);

    // Refused changes leave the joint as it was.
    let mut reversed = limited;
    reversed.kind =
        JointKind::Revolute(RevoluteJoint { limits: Some(Limits::new(1.0, -1.0)), ..Default::default() });
    assert!(world.set_joint_desc(id, &reversed).is_err());
    let other = ball(&mut world, 0.2, Vec3::new(-1.0, 0.0, 0.0));
    let moved = JointDesc { body_b: other, ..limited };
    assert!(world.set_joint_desc(id, &moved).is_err());
    assert_eq!(world.joint_desc(id).unwrap(), limited);

    // A new type starts from rest; disabling through the description leaves the island.
    let mut welded = limited;
    welded.kind = JointKind::Fixed(FixedJoint::default());
    welded.enabled = false;
    world.set_joint_desc(id, &welded).unwrap();
    let view = world.joint(id).unwrap();
    assert!(!view.enabled && view.force == Vec3::ZERO && view.island.is_none());
}

/// Kinetic plus potential energy of the dynamic bodies.
fn energy(world: &World, g: f32) -> f32 {
    world
        .body_ids()
        .map(|id| {
            let b = world.body(id).unwrap();
            let v = b.linear_velocity;
            let w = b.angular_velocity;
            // Rotational energy about the centre, with the inertia turned into world axes.
            let r = b.transform.rotation;
            let w_local = r.inverse() * w;
            let spin = 0.5 * w_local.dot(b.inertia * w_local);
            0.5 * b.mass * v.length_squared() + spin + b.mass * g * b.center_of_mass.y
        })
        .sum()
}

#[test]
fn a_fast_spinning_body_on_a_ball_joint_holds_without_gaining_energy() {
    // A long box hung by one end from the world and spun hard about a tilted axis: its arm
    // turns by about 30° a step, the case where a joint's arms and mass must follow the turn.
    let g = 9.81;
    let mut world = awake_world(Vec3::new(0.0, -g, 0.0));
    let pivot = Vec3::new(0.0, 5.0, 0.0);
    let bar = cuboid(&mut world, Vec3::new(0.1, 0.6, 0.1), pivot - Vec3::new(0.0, 0.6, 0.0));
    let desc = world
        .joint_desc_at(JointKind::Spherical(SphericalJoint::default()), None, bar, pivot, Vec3::Y)
        .unwrap();
    world.create_joint(&desc).unwrap();
    world.set_angular_velocity(bar, Vec3::new(20.0, 25.0, 5.0)).unwrap();
    world.step();
    let start = energy(&world, g);
    let mut worst_gap = 0.0f32;
    for _ in 0..600 {
        world.step();
        let anchor = world.transform(bar).unwrap().transform_point(Vec3::new(0.0, 0.6, 0.0));
        worst_gap = worst_gap.max((anchor - pivot).length());
        assert!(energy(&world, g) <= start * 1.01, "energy grew: {} from {start}", energy(&world, g));
    }
    assert!(worst_gap < 0.01, "the joint opened by {worst_gap} m");
}
