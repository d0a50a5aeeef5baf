//! A double pendulum released level: chaotic, but its energy can only fall (the soft step's
//! damping takes a little, nothing may add any). Over 60 s it never rises above its start by
//! more than 1 % of `m g L`, on every joint that hangs one.

use super::support::*;
use atoll_physics::{
    BodyDesc, DistanceJoint, JointFrame, JointKind, RevoluteJoint, Shape, SphericalJoint, Vec3,
};

/// Each arm, m.
const ARM: f32 = 1.0;

#[test]
fn a_double_pendulum_gains_no_energy_over_a_minute() {
    let mut failures = Vec::new();
    for (settings_name, settings) in settings_under_test() {
        for (joint_name, kind) in [
            ("plain ball joints", JointKind::Spherical(SphericalJoint::default())),
            ("hinges", JointKind::Revolute(RevoluteJoint::default())),
            ("distance rods", JointKind::Distance(DistanceJoint::rigid(ARM))),
        ] {
            let mut world = world(settings, 1);
            let pivot = Vec3::new(0.0, 3.0, 0.0);
            let ball = |world: &mut atoll_physics::World, at: Vec3| {
                world.create_body(&BodyDesc::dynamic(Shape::sphere(0.1).unwrap(), at)).unwrap()
            };
            let first = ball(&mut world, pivot + Vec3::new(ARM, 0.0, 0.0));
            // The second arm points up and out, so the motion is chaotic at once.
            let second_at = pivot + Vec3::new(ARM + ARM * 0.6, ARM * 0.8, 0.0);
            let second = ball(&mut world, second_at);
            let rod = matches!(kind, JointKind::Distance(_));
            let mut join = |a: Option<atoll_physics::BodyId>, b, anchor: Vec3, length: f32| {
                let kind = if rod { JointKind::Distance(DistanceJoint::rigid(length)) } else { kind };
                let mut desc = world.joint_desc_at(kind, a, b, anchor, Vec3::Z).unwrap();
                if rod {
                    desc.frame_b = JointFrame::at(Vec3::ZERO);
                }
                world.create_joint(&desc).unwrap();
            };
            join(None, first, pivot, ARM);
            join(Some(first), second, pivot + Vec3::new(ARM, 0.0, 0.0), ARM);
            let bodies = [first, second];
            let mass = world.body(first).unwrap().mass as f64;
            let scale = 2.0 * mass * G as f64 * ARM as f64;
            let start = energy(&world, &bodies);
            let (mut highest, mut lowest) = (start, start);
            for _ in 0..(60.0 / settings.dt) as usize {
                world.step();
                let e = energy(&world, &bodies);
                (highest, lowest) = (highest.max(e), lowest.min(e));
            }
            let (gain, loss) = ((highest - start) / scale, (start - lowest) / scale);
            let what = format!("{joint_name}, {settings_name}");
            eprintln!(
                "figure: double pendulum, {what}: energy rose at most {gain:.4} and fell at most {loss:.4} of 2 m g L over 60 s"
            );
            if gain > 0.01 {
                failures.push(what);
            }
        }
    }
    assert!(failures.is_empty(), "energy gained: {failures:#?}");
}
