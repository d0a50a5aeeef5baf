//! Limits holding a stated load: a hinged arm resting on its lower limit, a slider on its
//! lower stop and a weight on a rope, each within its tolerance of the limit and carrying the
//! load statics gives.

use super::support::*;
use atoll_physics::{
    BodyDesc, DistanceJoint, JointDesc, JointFrame, JointKind, Limits, PrismaticJoint, RevoluteJoint, Shape,
    Vec3,
};
use std::f32::consts::PI;

#[test]
fn a_hinge_limit_holds_an_arm_within_a_degree_carrying_its_weight() {
    for (name, settings) in settings_under_test() {
        // A 2 m arm hinged at one end, limited to ±30°, released level: it falls onto -30°.
        let mut world = world(settings, 1);
        let arm = world
            .create_body(&BodyDesc::dynamic(
                Shape::cuboid(Vec3::new(1.0, 0.05, 0.05)).unwrap(),
                Vec3::new(1.0, 2.0, 0.0),
            ))
            .unwrap();
        let limits = Limits::new(-PI / 6.0, PI / 6.0);
        let kind = JointKind::Revolute(RevoluteJoint { limits: Some(limits), ..Default::default() });
        let desc = world.joint_desc_at(kind, None, arm, Vec3::new(0.0, 2.0, 0.0), Vec3::Z).unwrap();
        let joint = world.create_joint(&desc).unwrap();
        let mut lowest = 0.0f32;
        for _ in 0..(3.0 / settings.dt) as usize {
            world.step();
            assert_finite(&world, "hinge limit");
            lowest = lowest.min(world.joint(joint).unwrap().position);
        }
        let view = world.joint(joint).unwrap();
        let weight = world.body(arm).unwrap().mass as f64 * G as f64;
        let over = (limits.lower - lowest).to_degrees();
        eprintln!(
            "figure: hinge limit, {name}: passed by {over:.3}°, rests {:.3}° off it, carries {:.3} N of {weight:.3}",
            (view.position - limits.lower).to_degrees(),
            view.force.y
        );
        assert!(over < 1.0, "{name}: the arm went {over}° past its limit");
        assert!(view.limit_active && (view.position - limits.lower).abs().to_degrees() < 1.0, "{name}");
        assert!((view.force.y as f64 - weight).abs() < 0.01 * weight, "{name}: carries {:?}", view.force);
    }
}

#[test]
fn a_slider_stop_and_a_rope_hold_their_weights_within_a_centimetre() {
    for (name, settings) in settings_under_test() {
        let mut world = world(settings, 1);
        // A 1000 kg/m³ box dropped 0.5 m onto the lower stop of a vertical slider.
        let at = Vec3::new(0.0, 2.0, 0.0);
        let slider =
            world.create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.2)).unwrap(), at)).unwrap();
        let kind = JointKind::Prismatic(PrismaticJoint {
            limits: Some(Limits::new(-0.5, 0.5)),
            ..Default::default()
        });
        let desc = world.joint_desc_at(kind, None, slider, at, Vec3::Y).unwrap();
        let stop = world.create_joint(&desc).unwrap();
        // A ball dropped from beside its rope's anchor, caught when the 2 m rope snaps taut.
        let anchor = Vec3::new(5.0, 5.0, 0.0);
        let weight =
            world.create_body(&BodyDesc::dynamic(Shape::sphere(0.1).unwrap(), anchor + Vec3::X)).unwrap();
        let mut rope = JointDesc::new(JointKind::Distance(DistanceJoint::rope(2.0)), None, weight);
        rope.frame_a = JointFrame::at(anchor);
        let rope = world.create_joint(&rope).unwrap();
        let (mut lowest, mut longest) = (f32::MAX, 0.0f32);
        // 6 s lets the swinging rope settle enough to read its static load.
        for _ in 0..(6.0 / settings.dt) as usize {
            world.step();
            assert_finite(&world, "stops");
            lowest = lowest.min(world.joint(stop).unwrap().position);
            longest = longest.max(world.joint(rope).unwrap().position);
        }
        let slider_weight = world.body(slider).unwrap().mass * G;
        let force = world.joint(stop).unwrap().force.y;
        eprintln!(
            "figure: slider stop, {name}: reached {lowest:.4} m of -0.5, carries {force:.3} N of {slider_weight:.3}; \
             rope stretched to {longest:.4} m of 2"
        );
        assert!(lowest > -0.51, "{name}: the slider reached {lowest} m, its stop is at -0.5 m");
        assert!((force - slider_weight).abs() < 0.01 * slider_weight, "{name}: the stop carries {force} N");
        assert!(longest < 2.01, "{name}: the rope stretched to {longest} m of 2 m");
    }
}
