//! Simple pendulums on every joint type that can hang one, released level (90° from the
//! bottom) with bobs of 0.05, 0.2 and 1 m radius on a 1.5 m arm: the period against the exact
//! large-amplitude theory within 1 %, the lowest speed within 1 % of energy's, and the energy
//! neither gained nor lost past a stated share.

use super::support::*;
use atoll_physics::{
    BodyDesc, DistanceJoint, JointFrame, JointKind, RevoluteJoint, Shape, SphericalJoint, StepSettings, Vec3,
    World,
};
use std::f64::consts::FRAC_PI_2;

/// The pendulum's arm, m: the pivot to the bob's centre.
const ARM: f32 = 1.5;

/// The joints that hang a pendulum. The limited ball joint's swing limit (3.1 rad) never binds.
fn pendulum_joints() -> [(&'static str, JointKind); 4] {
    let swing = SphericalJoint { swing_limit: Some(3.1), ..SphericalJoint::default() };
    [
        ("plain ball joint", JointKind::Spherical(SphericalJoint::default())),
        ("limited ball joint", JointKind::Spherical(swing)),
        ("hinge", JointKind::Revolute(RevoluteJoint::default())),
        ("distance rod", JointKind::Distance(DistanceJoint::rigid(ARM))),
    ]
}

/// What one pendulum run measured.
struct Swing {
    period: f64,
    theory: f64,
    lowest_speed_max: f64,
    speed_theory: f64,
    /// The lowest and highest energy over the run, as shares of `m g L` above the bottom of
    /// the swing (1 at the release).
    energy_min: f64,
    energy_max: f64,
}

/// Hangs a ball of `radius` on `kind` `ARM` from a world pivot, level with it, and lets it
/// swing for `seconds`.
fn swing(kind: JointKind, radius: f32, settings: StepSettings, threads: usize, seconds: f32) -> Swing {
    let mut world: World = world(settings, threads);
    let pivot = Vec3::new(0.0, 3.0, 0.0);
    let bob = world
        .create_body(&BodyDesc::dynamic(Shape::sphere(radius).unwrap(), pivot + Vec3::new(ARM, 0.0, 0.0)))
        .unwrap();
    let mut desc = world.joint_desc_at(kind, None, bob, pivot, Vec3::Z).unwrap();
    // A distance rod holds the bob's centre; the others hold the bob at the pivot.
    let rod = matches!(kind, JointKind::Distance(_));
    if rod {
        desc.frame_b = JointFrame::at(Vec3::ZERO);
    }
    world.create_joint(&desc).unwrap();

    let b = world.body(bob).unwrap();
    let mass = b.mass as f64;
    let own = b.inertia.x_axis.x as f64;
    // A rod leaves the bob free to turn, so only its centre swings; the others turn it with
    // the arm, a physical pendulum whose inertia about the pivot adds the ball's own.
    let inertia_about_pivot = mass * (ARM as f64).powi(2) + if rod { 0.0 } else { own };
    let theory = pendulum_period(inertia_about_pivot, mass, ARM as f64, FRAC_PI_2);
    // Energy's speed at the bottom: m g L = ½ (I_pivot / L²) v².
    let speed_theory =
        (2.0 * mass * G as f64 * ARM as f64 * (ARM as f64).powi(2) / inertia_about_pivot).sqrt();

    let dt = settings.dt as f64;
    let steps = (seconds / settings.dt) as usize;
    let mut xs = Vec::with_capacity(steps);
    // Energy as a share of the swing's: m g L above the bottom of the swing.
    let bottom = (pivot.y - ARM) as f64;
    let swing_energy =
        |world: &World| (energy(world, &[bob]) - mass * G as f64 * bottom) / (mass * G as f64 * ARM as f64);
    let (mut energy_min, mut energy_max) = (swing_energy(&world), swing_energy(&world));
    let mut lowest_speed_max = 0.0f64;
    for _ in 0..steps {
        world.step();
        assert_finite(&world, "pendulum");
        let b = world.body(bob).unwrap();
        let offset = b.center_of_mass - pivot;
        xs.push(offset.x as f64);
        // Within 2° of the bottom, the speed's largest.
        if offset.x.abs() < ARM * 0.035 {
            lowest_speed_max = lowest_speed_max.max(b.linear_velocity.length() as f64);
        }
        let e = swing_energy(&world);
        energy_min = energy_min.min(e);
        energy_max = energy_max.max(e);
    }
    Swing { period: mean(&periods(&xs, dt)), theory, lowest_speed_max, speed_theory, energy_min, energy_max }
}

#[test]
fn a_pendulum_released_level_swings_as_theory_says_on_every_joint_type() {
    let mut failures = Vec::new();
    for (settings_name, settings) in settings_under_test() {
        for (joint_name, kind) in pendulum_joints() {
            for radius in [0.05f32, 0.2, 1.0] {
                for threads in [1, 2, 4] {
                    let s = swing(kind, radius, settings, threads, 12.0);
                    let what =
                        format!("{joint_name}, bob radius {radius} m, {settings_name}, {threads} threads");
                    let period_error = (s.period - s.theory).abs() / s.theory;
                    let speed_error = (s.lowest_speed_max - s.speed_theory).abs() / s.speed_theory;
                    eprintln!(
                        "figure: {what}: period {:.4} s, theory {:.4} s ({:+.3} %), lowest speed {:.3} m/s, \
                         theory {:.3} m/s, energy {:.4}..{:.4} of m g L",
                        s.period,
                        s.theory,
                        100.0 * (s.period - s.theory) / s.theory,
                        s.lowest_speed_max,
                        s.speed_theory,
                        s.energy_min,
                        s.energy_max,
                    );
                    // The soft step's damping takes a little energy and the integrator's phase
                    // error moves it within a swing: never more than 1 % gained or 3 % lost.
                    let energy_kept = s.energy_max < 1.01 && s.energy_min > 0.97;
                    if period_error >= 0.01 || speed_error >= 0.01 || !energy_kept {
                        failures.push(what);
                    }
                }
            }
        }
    }
    assert!(failures.is_empty(), "off theory: {failures:#?}");
}
