//! A slider on a frictionless incline, on a prismatic joint: free, it slides down with the
//! acceleration g sin α; on a spring, it oscillates at the spring's frequency about the sag
//! g sin α / ω² that theory gives.

use super::support::*;
use atoll_physics::{BodyDesc, JointKind, PrismaticJoint, Shape, Spring, StepSettings, Vec3};
use std::f32::consts::TAU;

/// The incline's angle from the level, radians (30°).
const ANGLE: f32 = std::f32::consts::FRAC_PI_6;

/// Runs a 0.2 m box on a prismatic joint down a 30° incline, released at `start` m along it,
/// for `steps` steps; returns its position along the incline after each.
fn slide(
    settings: StepSettings,
    threads: usize,
    spring: Option<Spring>,
    start: f32,
    steps: usize,
) -> Vec<f64> {
    let mut world = world(settings, threads);
    // The axis points down the incline, so the position grows as it slides.
    let down = Vec3::new(ANGLE.cos(), -ANGLE.sin(), 0.0);
    let top = Vec3::new(0.0, 5.0, 0.0);
    let slider = world
        .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.1)).unwrap(), top + down * start))
        .unwrap();
    let kind = JointKind::Prismatic(PrismaticJoint { spring, ..PrismaticJoint::default() });
    let mut desc = world.joint_desc_at(kind, None, slider, top + down * start, down).unwrap();
    // Frame A at the top, where the spring rests; B on the slider.
    desc.frame_a.anchor = top;
    let joint = world.create_joint(&desc).unwrap();
    (0..steps)
        .map(|_| {
            world.step();
            assert_finite(&world, "incline");
            world.joint(joint).unwrap().position as f64
        })
        .collect()
}

#[test]
fn a_free_slider_slides_down_an_incline_at_g_sin_alpha() {
    for (name, settings) in settings_under_test() {
        for threads in [1, 2] {
            let steps = (1.0 / settings.dt).round() as usize;
            let path = slide(settings, threads, None, 0.0, steps);
            let t = steps as f64 * settings.dt as f64;
            let theory = 0.5 * G as f64 * (ANGLE as f64).sin() * t * t;
            let error = (path[steps - 1] - theory) / theory;
            eprintln!(
                "figure: incline, {name}, {threads} threads: {:.4} m after {t:.2} s, theory {theory:.4} m \
                 ({:+.3} %)",
                path[steps - 1],
                100.0 * error
            );
            // Symplectic Euler is exact for constant acceleration up to one substep's lead.
            assert!(error.abs() < 0.01, "{name}: slid {} m, theory {theory} m", path[steps - 1]);
        }
    }
}

#[test]
fn a_slider_on_a_spring_down_an_incline_oscillates_at_the_spring_frequency() {
    for (name, settings) in settings_under_test() {
        for hertz in [0.5f32, 2.0, 8.0] {
            // Undamped, released 5 cm above the spring's rest, for 3 s or 8 periods: the
            // frequency. Critically damped, released at the rest, for 4 s: the sag it settles to.
            let seconds = 3.0f32.max(8.0 / hertz);
            let steps = (seconds / settings.dt).round() as usize;
            let path = slide(settings, 1, Some(Spring::new(hertz, 0.0)), -0.05, steps);
            let sag = G as f64 * (ANGLE as f64).sin() / (TAU as f64 * hertz as f64).powi(2);
            let about: Vec<f64> = path.iter().map(|x| x - sag).collect();
            let measured = 1.0 / mean(&periods(&about, settings.dt as f64));
            let settled =
                slide(settings, 1, Some(Spring::new(hertz, 1.0)), 0.0, (4.0 / settings.dt) as usize);
            let rest = settled[settled.len() - 1];
            let error = (measured - hertz as f64) / hertz as f64;
            let sag_error = (rest - sag) / sag;
            eprintln!(
                "figure: incline spring {hertz} Hz, {name}: {measured:.4} Hz ({:+.2} %), settles at {rest:.5} m, \
                 theory {sag:.5} m ({:+.2} %)",
                100.0 * error,
                100.0 * sag_error
            );
            assert!(error.abs() < 0.05, "{name}: {measured} Hz on a {hertz} Hz spring");
            assert!(sag_error.abs() < 0.01, "{name}: settles at {rest} m, theory {sag} m");
        }
    }
}
