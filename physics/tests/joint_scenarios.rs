//! Joints in whole scenes: a heavy chain, a loaded bridge, ragdolls on stairs, sleeping and
//! waking jointed islands, the islands against the reference search under random joint and
//! contact changes, and determinism on any thread count.

mod common;

use atoll_physics::scene::builtin::{add_bridge, add_ragdoll};
use atoll_physics::{
    BodyDesc, BodyId, DistanceJoint, JointDesc, JointFrame, JointId, JointKind, Material, Scene, Shape,
    SphericalJoint, StepSettings, Vec3, World, state_hash,
};
use proptest::prelude::*;
use std::f32::consts::PI;

fn spherical() -> JointKind {
    JointKind::Spherical(SphericalJoint::default())
}

/// A chain of `links` capsules hanging straight down from a world anchor at `top`, linked end
/// to end by spherical joints. Returns the links and the length of one.
fn hanging_chain(world: &mut World, top: Vec3, links: usize) -> (Vec<BodyId>, f32) {
    let (half_height, radius) = (0.1, 0.04);
    let link_length = 2.0 * (half_height + radius);
    let shape = Shape::capsule(half_height, radius).unwrap();
    let mut bodies = Vec::new();
    for k in 0..links {
        let center = top - Vec3::Y * (link_length * (k as f32 + 0.5));
        let body = world.create_body(&BodyDesc::dynamic(shape.clone(), center)).unwrap();
        let upper = top - Vec3::Y * (link_length * k as f32);
        let above = bodies.last().copied();
        let desc = world.joint_desc_at(spherical(), above, body, upper, Vec3::Y).unwrap();
        world.create_joint(&desc).unwrap();
        bodies.push(body);
    }
    (bodies, link_length)
}

/// The world anchors of every live joint are within `tolerance` of each other.
fn max_joint_gap(world: &World) -> f32 {
    world.joints().map(|j| (j.anchor_b - j.anchor_a).length()).fold(0.0, f32::max)
}

#[test]
fn a_thirty_link_chain_holding_ten_times_a_link_stretches_under_a_percent() {
    let settings = StepSettings { sleep_enabled: false, ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    let top = Vec3::new(0.0, 12.0, 0.0);
    let (links, link_length) = hanging_chain(&mut world, top, 30);
    let link_mass = world.body(links[0]).unwrap().mass;
    // A ball of ten links' mass hangs from the last link's lower end.
    let end = top - Vec3::Y * (link_length * 30.0);
    let radius = 0.15;
    let density = 10.0 * link_mass / (4.0 / 3.0 * PI * radius * radius * radius);
    let weight = world
        .create_body(
            &BodyDesc::dynamic(Shape::sphere(radius).unwrap(), end - Vec3::Y * radius)
                .with_material(Material { density, ..Material::default() }),
        )
        .unwrap();
    assert!((world.body(weight).unwrap().mass / link_mass - 10.0).abs() < 1e-3);
    let desc = world.joint_desc_at(spherical(), Some(*links.last().unwrap()), weight, end, Vec3::Y).unwrap();
    world.create_joint(&desc).unwrap();
    // A sideways shove sets it swinging: the stretch must hold while it moves too.
    world.apply_impulse(weight, Vec3::new(10.0 * link_mass, 0.0, 0.0)).unwrap();
    let length = link_length * 30.0 + radius;
    let mut worst = 0.0f32;
    for _ in 0..180 {
        world.step();
        let stretch = (top - world.transform(weight).unwrap().position).length() / length - 1.0;
        worst = worst.max(stretch);
    }
    eprintln!("figure: 30-link chain stretched {:.3} % at most", worst * 100.0);
    assert!(worst < 0.01, "the chain stretched {:.3} %", worst * 100.0);
}

/// Adds the bodies and joints of `scene` to `world`; returns the bodies' ids in scene order.
fn add_scene(world: &mut World, scene: &Scene) -> Vec<BodyId> {
    let ids: Vec<BodyId> =
        scene.bodies.iter().map(|b| world.create_body(&b.to_desc().unwrap()).unwrap()).collect();
    let names: Vec<&str> = scene.bodies.iter().map(|b| b.name.as_str()).collect();
    for joint in &scene.joints {
        world.create_joint(&joint.to_desc(&ids, &names).unwrap()).unwrap();
    }
    ids
}

/// The built-in bridge of `planks` boards (hinges with friction, hung in a sagging arc between
/// two world hinges at 3 m), added to `world`; returns the boards.
fn bridge(world: &mut World, planks: usize) -> Vec<BodyId> {
    let mut scene = Scene::new("bridge");
    let boards = add_bridge(&mut scene, planks, 3.0, 0.35);
    let ids = add_scene(world, &scene);
    boards.iter().map(|&i| ids[i]).collect()
}

#[test]
fn a_twenty_plank_bridge_carries_a_load_and_comes_to_rest() {
    let (mut world, _) = common::world_with_floor();
    let boards = bridge(&mut world, 20);
    // A crate of five boards' mass dropped on the middle.
    let board_mass = world.body(boards[0]).unwrap().mass;
    let half = 0.4;
    let density = 5.0 * board_mass / (8.0 * half * half * half);
    let load = world
        .create_body(
            &BodyDesc::dynamic(Shape::cuboid(Vec3::splat(half)).unwrap(), Vec3::new(0.0, 4.0, 0.0))
                .with_material(Material { density, ..Material::default() }),
        )
        .unwrap();
    let mut worst_gap = 0.0f32;
    for _ in 0..480 {
        world.step();
        worst_gap = worst_gap.max(max_joint_gap(&world));
    }
    assert!(worst_gap < 0.01, "bridge joints opened {worst_gap} m");
    let y = world.transform(load).unwrap().position.y;
    assert!(y > 1.5, "the load fell through the bridge to {y}");
    assert!(!world.is_awake(load).unwrap(), "the loaded bridge comes to rest and sleeps");
    // The bridge and its load are one island: the world anchors do not join it to anything.
    let island = world.body_island(load).unwrap().unwrap();
    assert_eq!(world.island(island).unwrap().body_count, 21);
    assert_eq!(world.island(island).unwrap().joint_count, 19);
}

/// The built-in ragdoll standing at `root` (spherical joints with cones at the neck,
/// shoulders and hips, revolute joints with limits at the elbows and knees), added to `world`;
/// returns its bodies.
fn ragdoll(world: &mut World, root: Vec3) -> Vec<BodyId> {
    let mut scene = Scene::new("ragdoll");
    let (bodies, _) = add_ragdoll(&mut scene, root, "ragdoll");
    let ids = add_scene(world, &scene);
    bodies.iter().map(|&i| ids[i]).collect()
}

#[test]
fn ragdolls_dropped_on_stairs_stay_together_and_fall_asleep() {
    let (mut world, _) = common::world_with_floor();
    for step in 0..8 {
        let (w, h) = (0.5, 0.25);
        let center = Vec3::new(step as f32 * w, h * (step as f32 + 0.5), 0.0);
        let desc =
            BodyDesc::fixed(Shape::cuboid(Vec3::new(w / 2.0, h * (step as f32 + 0.5), 2.0)).unwrap(), center);
        world.create_body(&desc).unwrap();
    }
    let mut all = Vec::new();
    for k in 0..3 {
        let bodies =
            ragdoll(&mut world, Vec3::new(1.0 + 0.7 * k as f32, 3.0 + 1.5 * k as f32, -0.8 + 0.8 * k as f32));
        all.extend(bodies);
    }
    assert_eq!(world.joint_count(), 27);
    let mut worst_gap = 0.0f32;
    for _ in 0..600 {
        world.step();
        worst_gap = worst_gap.max(max_joint_gap(&world));
        if all.iter().all(|&b| !world.is_awake(b).unwrap()) {
            break;
        }
    }
    // Landing at up to 9 m/s, a light forearm stopped dead by a stair edge while the torso
    // pulls on it opens its joints for a step or two (a few centimetres on 30 cm limbs);
    // at rest every joint is closed.
    assert!(worst_gap < 0.1, "a ragdoll's joints opened {worst_gap} m");
    let resting_gap = max_joint_gap(&world);
    assert!(resting_gap < 0.005, "at rest a ragdoll joint is {resting_gap} m open");
    let awake: Vec<_> = all.iter().filter(|&&b| world.is_awake(b).unwrap()).collect();
    assert!(awake.is_empty(), "{} ragdoll bodies still awake after 10 s", awake.len());
}

#[test]
fn a_chain_sleeps_as_one_island_and_a_touch_wakes_all_of_it() {
    let mut world = World::new(StepSettings::default()).unwrap();
    let (links, _) = hanging_chain(&mut world, Vec3::new(0.0, 5.0, 0.0), 12);
    let island = world.body_island(links[0]).unwrap().unwrap();
    assert!(links.iter().all(|&b| world.body_island(b).unwrap() == Some(island)), "one island");
    // The joint to the world is not an edge.
    assert_eq!(world.island(island).unwrap().joint_count, 11);
    let mut slept = false;
    for _ in 0..240 {
        world.step();
        if links.iter().all(|&b| !world.is_awake(b).unwrap()) {
            slept = true;
            break;
        }
    }
    assert!(slept, "the hanging chain never slept");
    assert_eq!(world.islands().filter(|i| !i.awake).count(), 1);
    // A ball thrown at the bottom link wakes every link in the step it touches.
    let bottom = world.transform(*links.last().unwrap()).unwrap().position;
    let ball = world
        .create_body(
            &BodyDesc::dynamic(Shape::sphere(0.1).unwrap(), bottom + Vec3::new(-0.5, 0.0, 0.0))
                .with_linear_velocity(Vec3::new(5.0, 0.0, 0.0)),
        )
        .unwrap();
    for _ in 0..30 {
        world.step();
        if world.touch_events().iter().any(|e| e.began && (e.body_a == ball || e.body_b == ball)) {
            break;
        }
    }
    assert!(links.iter().all(|&b| world.is_awake(b).unwrap()), "one touch wakes the whole chain");
    world.validate_islands().unwrap();
}

#[test]
fn jointed_scenes_give_the_same_bits_on_one_to_four_threads_and_snapshots_resume() {
    let build = || {
        let (mut world, _) = common::world_with_floor();
        bridge(&mut world, 12);
        hanging_chain(&mut world, Vec3::new(4.0, 6.0, 0.0), 10);
        ragdoll(&mut world, Vec3::new(0.0, 4.0, 0.0));
        world
    };
    let mut hashes = Vec::new();
    for threads in 1..=4 {
        let mut world = build();
        world.set_thread_count(threads).unwrap();
        common::run(&mut world, 150);
        hashes.push(state_hash(&world));
    }
    assert!(hashes.iter().all(|&h| h == hashes[0]), "thread counts disagree: {hashes:x?}");
    let mut world = build();
    common::run(&mut world, 60);
    let snapshot = world.snapshot();
    common::run(&mut world, 90);
    let straight = state_hash(&world);
    world.restore(&snapshot);
    common::run(&mut world, 90);
    assert_eq!(state_hash(&world), straight, "restoring a snapshot changed the result");
    // The hash sees the joints: disabling one changes it even before the bodies move.
    let before = state_hash(&world);
    let joint = world.joint_ids().next().unwrap();
    world.set_joint_enabled(joint, false).unwrap();
    assert_ne!(state_hash(&world), before);
}

/// One random edit of the proptest below.
#[derive(Clone, Debug)]
enum Edit {
    Join { a: usize, b: usize, distance: bool },
    Remove { joint: usize },
    Toggle { joint: usize },
    Push { body: usize },
    DestroyBody { body: usize },
    Steps { count: usize },
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        3 => (0..16usize, 0..16usize, any::<bool>()).prop_map(|(a, b, distance)| Edit::Join { a, b, distance }),
        1 => (0..64usize).prop_map(|joint| Edit::Remove { joint }),
        1 => (0..64usize).prop_map(|joint| Edit::Toggle { joint }),
        1 => (0..16usize).prop_map(|body| Edit::Push { body }),
        1 => (0..16usize).prop_map(|body| Edit::DestroyBody { body }),
        3 => (1..40usize).prop_map(|count| Edit::Steps { count }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn islands_match_the_reference_search_under_random_joint_and_contact_changes(edits in prop::collection::vec(edit(), 1..30)) {
        let (mut world, _) = common::world_with_floor();
        let mut bodies: Vec<Option<BodyId>> = (0..16)
            .map(|k| {
                let p = Vec3::new((k % 4) as f32 * 0.9 - 1.4, 0.5 + (k / 4) as f32 * 0.9, 0.0);
                Some(world.create_body(&BodyDesc::dynamic(Shape::sphere(0.4).unwrap(), p)).unwrap())
            })
            .collect();
        let mut joints: Vec<JointId> = Vec::new();
        for edit in edits {
            match edit {
                Edit::Join { a, b, distance } => {
                    if let (Some(a), Some(b)) = (bodies[a], bodies[b]) && a != b {
                        let kind = if distance {
                            JointKind::Distance(DistanceJoint::rope(2.0))
                        } else {
                            spherical()
                        };
                        let mut desc = JointDesc::new(kind, Some(a), b);
                        desc.frame_b = JointFrame::at(Vec3::new(0.0, 0.5, 0.0));
                        joints.push(world.create_joint(&desc).unwrap());
                    }
                }
                Edit::Remove { joint } if !joints.is_empty() => {
                    let id = joints.swap_remove(joint % joints.len());
                    let _ = world.destroy_joint(id);
                }
                Edit::Toggle { joint } if !joints.is_empty() => {
                    let id = joints[joint % joints.len()];
                    if let Ok(view) = world.joint(id) {
                        world.set_joint_enabled(id, !view.enabled).unwrap();
                    }
                }
                Edit::Push { body } => {
                    if let Some(id) = bodies[body] {
                        world.apply_impulse(id, Vec3::new(0.0, 3.0, 1.0)).unwrap();
                    }
                }
                Edit::DestroyBody { body } => {
                    if let Some(id) = bodies[body].take() {
                        for gone in world.destroy_body(id).unwrap() {
                            joints.retain(|&j| j != gone);
                        }
                    }
                }
                Edit::Steps { count } => common::run(&mut world, count),
                _ => {}
            }
            world.validate_islands().map_err(TestCaseError::fail)?;
            let mut settled = world.clone();
            settled.split_all_islands();
            let mut work = Vec::new();
            prop_assert_eq!(settled.island_partition(), settled.reference_partition(&mut work));
        }
    }
}

#[test]
fn three_ball_joints_pulling_spheres_across_a_pile_stay_finite() {
    // A case the island proptest found: spheres joined far from their anchors, then a rope.
    let (mut world, _) = common::world_with_floor();
    let bodies: Vec<BodyId> = (0..16)
        .map(|k| {
            let p = Vec3::new((k % 4) as f32 * 0.9 - 1.4, 0.5 + (k / 4) as f32 * 0.9, 0.0);
            world.create_body(&BodyDesc::dynamic(Shape::sphere(0.4).unwrap(), p)).unwrap()
        })
        .collect();
    let join = |world: &mut World, a: usize, b: usize, kind: JointKind| {
        let mut desc = JointDesc::new(kind, Some(bodies[a]), bodies[b]);
        desc.frame_b = JointFrame::at(Vec3::new(0.0, 0.5, 0.0));
        world.create_joint(&desc).unwrap();
    };
    join(&mut world, 10, 0, spherical());
    join(&mut world, 4, 5, spherical());
    common::run(&mut world, 3);
    join(&mut world, 10, 3, spherical());
    common::run(&mut world, 3);
    join(&mut world, 13, 12, JointKind::Distance(DistanceJoint::rope(2.0)));
    for step in 0..24 {
        world.step();
        for &b in &bodies {
            let p = world.transform(b).unwrap().position;
            let v = world.linear_velocity(b).unwrap();
            assert!(p.is_finite(), "body {b:?} at {p} after step {step}");
            // Pulled 2.5 m by a rigid joint, a sphere moves fast, but not blown up.
            assert!(v.length() < 100.0, "body {b:?} at {v} m/s after step {step}");
        }
    }
}
