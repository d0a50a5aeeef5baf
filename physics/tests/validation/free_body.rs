//! A free body spinning in empty space keeps its angular momentum and its energy, and spun
//! about its middle axis it tumbles (the Dzhanibekov effect), as Euler's equations say: its
//! angular velocity precesses while its momentum stays put (`solver/gyroscopic.rs`).

use super::support::*;
use atoll_physics::{BodyDesc, Shape, StepSettings, Vec3, World};

/// The tolerance on the angular momentum over 10 s, as a share of it: the gyroscopic term is
/// taken once a step, first order in the step, so the momentum's direction wanders a little
/// (up to 5.7 % for a 1 × 2 × 3 m box at (1, 2, 3) rad/s; 74 % without the term).
const MOMENTUM_TOLERANCE: f64 = 0.08;

/// The tolerance on the kinetic energy over 10 s, as a share of it.
const ENERGY_TOLERANCE: f64 = 0.001;

#[test]
fn a_free_box_keeps_its_angular_momentum_and_energy_and_tumbles_about_its_middle_axis() {
    for (name, settings) in settings_under_test() {
        // Near the middle axis (y: the half extents 0.5, 1, 1.5 make it the middle one), near
        // the largest (x), and off every axis.
        for w0 in [Vec3::new(0.05, 5.0, 0.05), Vec3::new(3.0, 0.3, 0.2), Vec3::new(1.0, 2.0, 3.0)] {
            let mut world = world(StepSettings { gravity: Vec3::ZERO, ..settings }, 1);
            let body = world
                .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::new(0.5, 1.0, 1.5)).unwrap(), Vec3::ZERO))
                .unwrap();
            world.set_angular_velocity(body, w0).unwrap();
            let momentum = |world: &World| {
                let b = world.body(body).unwrap();
                let r = b.transform.rotation.as_dquat();
                r * (b.inertia.as_dmat3() * (r.inverse() * b.angular_velocity.as_dvec3()))
            };
            let spin_about_middle = |world: &World| {
                let b = world.body(body).unwrap();
                (b.transform.rotation.inverse() * b.angular_velocity).y
            };
            let (l0, e0) = (momentum(&world), kinetic_energy(&world, body));
            let (mut worst_l, mut worst_e, mut flipped) = (0.0f64, 0.0f64, false);
            for _ in 0..(10.0 / settings.dt) as usize {
                world.step();
                assert_finite(&world, "free box");
                worst_l = worst_l.max((momentum(&world) - l0).length() / l0.length());
                worst_e = worst_e.max((kinetic_energy(&world, body) - e0).abs() / e0);
                flipped |= spin_about_middle(&world) < -0.5 * w0.y;
            }
            eprintln!(
                "figure: free box spun at {w0:?}, {name}: angular momentum off by up to {:.3} %, energy by \
                 {:.4} %, tumbled: {flipped}",
                100.0 * worst_l,
                100.0 * worst_e
            );
            assert!(worst_l < MOMENTUM_TOLERANCE, "{name}, {w0:?}: angular momentum off by {worst_l}");
            assert!(worst_e < ENERGY_TOLERANCE, "{name}, {w0:?}: energy off by {worst_e}");
            if w0.y == 5.0 {
                assert!(flipped, "{name}: spun about its middle axis, the box never tumbled");
            }
        }
    }
}
