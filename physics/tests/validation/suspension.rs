//! A wheel joint's suspension against spring theory: a wheel hung from the world bobs at the
//! suspension's frequency about the sag g / ω², and a critically damped one settles there
//! without passing it.

use super::support::*;
use atoll_physics::{
    BodyDesc, JointDesc, JointFrame, JointKind, Shape, Spring, StepSettings, Vec3, WheelJoint,
};
use std::f32::consts::TAU;

/// Hangs a 0.3 m ball on a wheel joint with `spring` (spin about Z, suspension along Y),
/// released at the spring's rest length; the suspension's travel after each of `steps` steps.
fn bob(settings: StepSettings, threads: usize, spring: Spring, steps: usize) -> Vec<f64> {
    let mut world = world(settings, threads);
    let hub = Vec3::new(0.0, 2.0, 0.0);
    let wheel = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.3).unwrap(), hub)).unwrap();
    let kind =
        JointKind::Wheel(WheelJoint { motor: None, suspension: Some(spring), suspension_limits: None });
    let mut desc = JointDesc::new(kind, None, wheel);
    desc.frame_a = JointFrame::with_axes(hub, Vec3::Z, Vec3::Y).unwrap();
    desc.frame_b = JointFrame::with_axes(Vec3::ZERO, Vec3::Z, Vec3::Y).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    (0..steps)
        .map(|_| {
            world.step();
            assert_finite(&world, "suspension");
            world.joint(joint).unwrap().position as f64
        })
        .collect()
}

#[test]
fn a_wheel_bobs_on_its_suspension_at_the_spring_frequency_about_its_sag() {
    for (name, settings) in settings_under_test() {
        for hertz in [1.0f32, 4.0, 12.0] {
            for threads in [1, 2] {
                let steps = ((4.0f32.max(10.0 / hertz)) / settings.dt).round() as usize;
                let travel = bob(settings, threads, Spring::new(hertz, 0.0), steps);
                let sag = G as f64 / (TAU as f64 * hertz as f64).powi(2);
                let about: Vec<f64> = travel.iter().map(|y| y + sag).collect();
                let measured = 1.0 / mean(&periods(&about, settings.dt as f64));
                let rest = -mean(&travel);
                let error = (measured - hertz as f64) / hertz as f64;
                let sag_error = (rest - sag) / sag;
                eprintln!(
                    "figure: suspension {hertz} Hz, {name}, {threads} threads: {measured:.4} Hz ({:+.2} %), \
                     sags {rest:.5} m, theory {sag:.5} m ({:+.2} %)",
                    100.0 * error,
                    100.0 * sag_error
                );
                assert!(error.abs() < 0.05, "{name}: bobs at {measured} Hz on a {hertz} Hz suspension");
                assert!(sag_error.abs() < 0.05, "{name}: sags {rest} m, theory {sag} m");
            }
        }
    }
}

#[test]
fn a_critically_damped_suspension_settles_at_its_sag_without_passing_it() {
    for (name, settings) in settings_under_test() {
        let hertz = 3.0f32;
        let steps = (3.0 / settings.dt).round() as usize;
        let travel = bob(settings, 1, Spring::new(hertz, 1.0), steps);
        let sag = G as f64 / (TAU as f64 * hertz as f64).powi(2);
        let deepest = -travel.iter().cloned().fold(f64::INFINITY, f64::min);
        let last = -travel[steps - 1];
        eprintln!(
            "figure: critically damped suspension, {name}: deepest {deepest:.5} m, rests {last:.5} m, sag {sag:.5} m"
        );
        // Critical damping approaches the sag from one side: never more than 1 % past it.
        assert!(deepest < sag * 1.01, "{name}: went down to {deepest} m, the sag is {sag} m");
        assert!((last - sag).abs() < 0.01 * sag, "{name}: rests at {last} m, theory {sag} m");
    }
}
