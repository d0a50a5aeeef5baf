//! A chain of 100 links hung from the world: settled, the top joint carries the whole chain's
//! weight within 2 % (averaged over five seconds, as the chain's slow stretching wave passes),
//! and no joint's anchors part by more than the stated gap: the soft step's joints stretch
//! under load and the hundred-link chain rings along its length for tens of seconds, 14 mm at
//! 4 substeps and 3.4 mm at the defaults when this was written; the gaps below bound them.

use super::support::*;
use atoll_physics::{BodyDesc, JointKind, Shape, SphericalJoint, Vec3};

#[test]
fn a_hanging_chain_of_a_hundred_links_carries_its_weight_at_the_top() {
    let mut failures = Vec::new();
    for (settings_name, settings) in settings_under_test() {
        for threads in [1, 2] {
            let mut world = world(settings, threads);
            let (links, half) = (100, 0.05f32);
            let top = Vec3::new(0.0, 12.0, 0.0);
            let mut above = None;
            let mut joints = Vec::new();
            let mut weight = 0.0f64;
            for k in 0..links {
                let center = top - Vec3::new(0.0, half * (2 * k + 1) as f32, 0.0);
                let link = world
                    .create_body(&BodyDesc::dynamic(Shape::capsule(half * 0.5, half * 0.5).unwrap(), center))
                    .unwrap();
                weight += world.body(link).unwrap().mass as f64 * G as f64;
                let anchor = center + Vec3::new(0.0, half, 0.0);
                let kind = JointKind::Spherical(SphericalJoint::default());
                joints.push(
                    world
                        .create_joint(&world.joint_desc_at(kind, above, link, anchor, Vec3::X).unwrap())
                        .unwrap(),
                );
                above = Some(link);
            }
            // Hung straight, left to settle (its joints stretch to carry it), then the top
            // joint's force averaged over the last five seconds.
            let (settle, average) = ((20.0 / settings.dt) as usize, (5.0 / settings.dt) as usize);
            let mut force = 0.0f64;
            for step in 0..settle + average {
                world.step();
                if step >= settle {
                    force += world.joint(joints[0]).unwrap().force.length() as f64 / average as f64;
                }
            }
            let gap = joints
                .iter()
                .map(|&j| {
                    let j = world.joint(j).unwrap();
                    (j.anchor_a - j.anchor_b).length()
                })
                .fold(0.0f32, f32::max);
            let what = format!("{settings_name}, {threads} threads");
            eprintln!(
                "figure: chain of {links}, {what}: top force {force:.3} N, weight {weight:.3} N ({:+.3} %), widest gap {:.3} mm",
                100.0 * (force - weight) / weight,
                gap * 1000.0
            );
            let allowed_gap = if settings.substeps >= 8 { 0.005 } else { 0.02 };
            if ((force - weight) / weight).abs() > 0.02 || gap > allowed_gap {
                failures.push(what);
            }
        }
    }
    assert!(failures.is_empty(), "off: {failures:#?}");
}
