//! Newton's cradle: five equal steel balls hung in a row on rods, the first pulled back and
//! released. Each impact hands the momentum on: the last ball leaves with the speed the first
//! one struck with, and the balls between are left all but still.
//!
//! The balls hang 2 cm apart, so each impact is its own. Touching balls make every impact
//! simultaneous, and a simultaneous solver (Atoll's, as Box2D's and Jolt's) spreads the
//! momentum over the row instead: measured at 60 Hz and 4 substeps with 1 mm between the
//! balls, the first one bounced back at 0.39 m/s and the other four left at 0.47–0.52 m/s
//! after a 1.62 m/s impact.

use super::support::*;
use atoll_physics::{
    BodyDesc, BodyId, DistanceJoint, JointDesc, JointFrame, JointKind, Material, Shape, Vec3,
};

const BALLS: usize = 5;
const RADIUS: f32 = 0.1;
const ARM: f32 = 1.0;

#[test]
fn a_newtons_cradle_hands_the_momentum_on_to_the_last_ball() {
    for (name, settings) in settings_under_test() {
        let mut world = world(settings, 1);
        let steel = Material { density: 7800.0, friction: 0.0, restitution: 1.0 };
        let top = 3.0;
        // 2 cm between neighbours: each impact is its own (see the module comment).
        let spacing = 2.0 * RADIUS + 0.02;
        let release = 30f32.to_radians();
        let balls: Vec<BodyId> = (0..BALLS)
            .map(|k| {
                let pivot = Vec3::new(k as f32 * spacing, top, 0.0);
                let centre = if k == 0 {
                    pivot + Vec3::new(-ARM * release.sin(), -ARM * release.cos(), 0.0)
                } else {
                    pivot - Vec3::new(0.0, ARM, 0.0)
                };
                let body = BodyDesc::dynamic(Shape::sphere(RADIUS).unwrap(), centre).with_material(steel);
                let ball = world.create_body(&body).unwrap();
                let mut rod = JointDesc::new(JointKind::Distance(DistanceJoint::rigid(ARM)), None, ball);
                rod.frame_a = JointFrame::at(pivot);
                world.create_joint(&rod).unwrap();
                ball
            })
            .collect();
        let impact_speed = (2.0 * G as f64 * ARM as f64 * (1.0 - (release as f64).cos())).sqrt();
        // The first ball's speed as it strikes, then the last one's as it leaves (its peak,
        // before its arc slows it), with the others' speeds at that moment.
        let (mut struck, mut left, mut others) = (0.0f64, 0.0f64, Vec::new());
        let mut leaving_for = 0usize;
        for _ in 0..(3.0 / settings.dt) as usize {
            world.step();
            assert_finite(&world, "cradle");
            let speeds: Vec<f64> =
                balls.iter().map(|&b| world.linear_velocity(b).unwrap().x as f64).collect();
            if speeds[BALLS - 1] <= 0.01 {
                struck = struck.max(speeds[0]);
                continue;
            }
            if speeds[BALLS - 1] > left {
                left = speeds[BALLS - 1];
                others = speeds[..BALLS - 1].to_vec();
            }
            leaving_for += 1;
            if leaving_for as f32 * settings.dt > 0.2 {
                break;
            }
        }
        eprintln!(
            "figure: Newton's cradle, {name}: struck at {struck:.4} m/s (theory {impact_speed:.4}), the last ball \
             left at {left:.4} m/s, the others then at {others:.4?}"
        );
        assert!((struck - impact_speed).abs() < 0.01 * impact_speed, "{name}: struck at {struck} m/s");
        assert!(
            (left - struck).abs() < 0.02 * struck,
            "{name}: the last ball left at {left} m/s of {struck}"
        );
        for (k, s) in others.iter().enumerate() {
            assert!(s.abs() < 0.05 * struck, "{name}: ball {k} still moves at {s} m/s");
        }
    }
}
