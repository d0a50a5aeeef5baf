//! Breaking: every joint type pulled by a force that grows 1 N a step breaks within 5 % of its
//! stated threshold, and never on a reading below it.

use super::support::*;
use atoll_physics::{
    BodyDesc, DistanceJoint, FixedJoint, JointEventKind, JointFrame, JointKind, PrismaticJoint,
    RevoluteJoint, Shape, SphericalJoint, Vec3, WheelJoint,
};

#[test]
fn every_joint_type_breaks_within_five_percent_of_its_threshold() {
    let threshold = 200.0f32;
    let kinds = [
        ("fixed", JointKind::Fixed(FixedJoint::default())),
        ("hinge", JointKind::Revolute(RevoluteJoint::default())),
        ("ball", JointKind::Spherical(SphericalJoint::default())),
        ("slider", JointKind::Prismatic(PrismaticJoint::default())),
        ("wheel", JointKind::Wheel(WheelJoint::default())),
        ("rod", JointKind::Distance(DistanceJoint::rigid(0.5))),
    ];
    for (name, settings) in settings_under_test() {
        for (joint_name, kind) in kinds {
            let mut world = world(settings, 1);
            let at = Vec3::new(0.0, 1.0, 0.0);
            let body =
                world.create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.2)).unwrap(), at)).unwrap();
            // Slider and wheel axes along Y, so a pull along X is across them; the rod reaches
            // from 0.5 m to the left, so the pull is along it.
            let mut desc = world.joint_desc_at(kind, None, body, at, Vec3::Y).unwrap();
            if matches!(kind, JointKind::Distance(_)) {
                desc.frame_a = JointFrame::at(at - Vec3::new(0.5, 0.0, 0.0));
                desc.frame_b = JointFrame::at(Vec3::ZERO);
            }
            desc.break_force = Some(threshold);
            let joint = world.create_joint(&desc).unwrap();
            let mut pull = 0.0f32;
            let mut broke_at = None;
            // Gravity is held off, so the joint carries the pull alone.
            while pull < 2.0 * threshold {
                pull += 1.0;
                world.apply_force(body, Vec3::new(pull, world.body(body).unwrap().mass * G, 0.0)).unwrap();
                world.step();
                assert_finite(&world, "breaking");
                if let Some(e) = world.joint_events().first() {
                    assert_eq!(e.joint, joint);
                    let JointEventKind::Broke { force, .. } = e.kind else { panic!("{e:?}") };
                    broke_at = Some((pull, force));
                    break;
                }
            }
            let (broke_at, force) = broke_at.unwrap_or_else(|| panic!("{joint_name}, {name}: never broke"));
            eprintln!(
                "figure: {joint_name}, {name}: broke at a pull of {broke_at} N, reading {force} N, threshold \
                 {threshold} N"
            );
            // It breaks on its own reading, which must pass the threshold; the pull then is
            // within 5 % above it (1 % below allows the soft rows' lag as the pull grows).
            assert!(force > threshold, "{joint_name}, {name}: broke reading {force} N");
            assert!(
                broke_at >= threshold * 0.99 && broke_at <= threshold * 1.05,
                "{joint_name}, {name}: broke at a pull of {broke_at} N, threshold {threshold} N"
            );
            assert!(!world.joint(joint).unwrap().enabled, "a broken joint is disabled");
        }
    }
}
