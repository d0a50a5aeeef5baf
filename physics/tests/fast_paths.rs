//! The joints' fast paths held to the general scalar rows on behaviour: random chains of
//! bodies outside the built-in scenes, each run once with every joint through its fast path
//! (the four-lane revolute and spherical batches, the plain ball joints on four lanes and on
//! eight) and once through the general rows (`World::set_general_joints_only`). Over the first
//! sixth of a second both trajectories must agree within the stated tolerance, and over two
//! seconds no fast path may hold its joints or bound its speeds much worse than the general
//! rows. Bit equality between four and eight lanes (tested elsewhere) says nothing about
//! whether either is right; this does.
//!
//! The ranges: each chain's masses from 0.01 to 1000 kg and sizes from 0.02 to 5 m, with
//! neighbours within ten times of each other; anchors up to 1.5 sizes off the centre; spins up
//! to 10 rad/s. Wider (neighbours 100 times apart, anchors 30 sizes off) every path, the
//! general rows included, parts the joints by metres and some reach non-finite values: a
//! 10 g, 2 cm ball holding a 1 kg one 10 cm off its centre does. Until the step caps speeds
//! and isolates such bodies, no path is a reference there.

mod common;

use atoll_physics::world::SolverLanes;
use atoll_physics::{
    BodyDesc, BodyId, JointKind, Limits, Material, Motor, RevoluteJoint, Shape, SphericalJoint, Spring,
    StepSettings, Vec3, World,
};
use common::energy;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// One link of a random chain.
#[derive(Clone, Debug)]
struct Link {
    /// 0 a sphere, 1 a box, 2 a capsule.
    shape: u8,
    /// The shape's largest half extent, m.
    size: f32,
    /// The body's mass, kg.
    mass: f32,
    /// Where the joint above holds it, from its centre, in sizes (up to 30).
    top: Vec3,
    /// Where the joint below holds it, from its centre, in sizes.
    bottom: Vec3,
    /// Its spin at the start, rad/s.
    spin: Vec3,
    /// Which joint hangs it: 0 a plain ball joint, 1 a limited ball joint, 2 a hinge with a
    /// limit, 3 a hinge with a motor, 4 a sprung hinge.
    joint: u8,
    /// The hinge's axis.
    axis: Vec3,
}

/// A log-uniform value between `low` and `high`.
fn log_uniform(low: f32, high: f32) -> impl Strategy<Value = f32> {
    (0.0f32..=1.0).prop_map(move |t| low * (high / low).powf(t))
}

/// A direction scaled by up to `reach`, its length log-uniform from a hundredth of it.
fn offset(reach: f32) -> impl Strategy<Value = Vec3> {
    ((-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0), log_uniform(reach / 100.0, reach)).prop_map(
        |((x, y, z), length)| {
            let v = Vec3::new(x, y, z);
            if v.length() < 1e-3 { Vec3::X * length } else { v.normalize() * length }
        },
    )
}

fn link() -> impl Strategy<Value = Link> {
    (
        0u8..3,
        log_uniform(0.02, 5.0),
        log_uniform(0.01, 1000.0),
        offset(REACH),
        offset(REACH),
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
        0u8..5,
        offset(1.0),
    )
        .prop_map(|(shape, size, mass, top, bottom, (sx, sy, sz), joint, axis)| Link {
            shape,
            size,
            mass,
            top,
            bottom,
            spin: Vec3::new(sx, sy, sz) * 10.0,
            joint,
            axis: axis.normalize(),
        })
}

/// The shape of `link` and its volume.
fn shape(link: &Link) -> (Shape, f32) {
    let s = link.size;
    match link.shape {
        0 => (Shape::sphere(s).unwrap(), 4.0 / 3.0 * std::f32::consts::PI * s * s * s),
        1 => {
            let half = Vec3::new(s, s * 0.6, s * 0.3);
            (Shape::cuboid(half).unwrap(), 8.0 * half.x * half.y * half.z)
        }
        _ => {
            let (half_height, radius) = (s * 0.6, s * 0.4);
            let volume = std::f32::consts::PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius);
            (Shape::capsule(half_height, radius).unwrap(), volume)
        }
    }
}

/// The joint that hangs `link`.
fn joint_kind(link: &Link) -> JointKind {
    match link.joint {
        0 => JointKind::Spherical(SphericalJoint::default()),
        1 => JointKind::Spherical(SphericalJoint {
            swing_limit: Some(0.8),
            twist_limits: Some(Limits::new(-0.5, 0.7)),
            ..SphericalJoint::default()
        }),
        2 => JointKind::Revolute(RevoluteJoint {
            limits: Some(Limits::new(-0.6, 0.9)),
            ..RevoluteJoint::default()
        }),
        3 => JointKind::Revolute(RevoluteJoint {
            motor: Some(Motor::new(2.0, 50.0 * link.mass.max(1.0))),
            ..RevoluteJoint::default()
        }),
        _ => JointKind::Revolute(RevoluteJoint {
            spring: Some(Spring::new(4.0, 0.3)),
            ..RevoluteJoint::default()
        }),
    }
}

/// The chain of `links` hung from a world anchor at the origin: each link's top anchor where
/// the link above holds it, every joint starting at rest at its frames.
fn build(links: &[Link]) -> (World, Vec<BodyId>) {
    let settings = StepSettings { sleep_enabled: false, ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    let mut bodies = Vec::new();
    let mut anchor = Vec3::ZERO;
    let mut above = None;
    for link in links {
        let (shape, volume) = shape(link);
        let center = anchor - link.top * link.size;
        let desc = BodyDesc::dynamic(shape, center)
            .with_material(Material { density: link.mass / volume, ..Material::default() });
        let body = world.create_body(&desc).unwrap();
        world.set_angular_velocity(body, link.spin).unwrap();
        let kind = joint_kind(link);
        world.create_joint(&world.joint_desc_at(kind, above, body, anchor, link.axis).unwrap()).unwrap();
        bodies.push(body);
        above = Some(body);
        anchor = center + link.bottom * link.size;
    }
    (world, bodies)
}

/// The chain's scale: the largest distance of a body's centre from the world anchor.
fn extent(world: &World, bodies: &[BodyId]) -> f32 {
    bodies.iter().map(|&b| world.body(b).unwrap().center_of_mass.length()).fold(0.0, f32::max)
}

/// What a run did: each step's centres of mass, and the worst over the run.
struct Run {
    centres: Vec<Vec<Vec3>>,
    /// The largest distance between a joint's two anchors, m.
    worst_gap: f32,
    /// The chain's energy (kinetic, and potential above the world anchor) at the start, J.
    start_energy: f64,
    /// The most it ever rose above its start, J.
    energy_gain: f64,
    /// The energy scale the gain is measured against: the start's kinetic energy plus the
    /// weight of every body times the chain's extent, J.
    energy_scale: f64,
}

/// Runs `world` for `steps` steps.
fn run(mut world: World, bodies: &[BodyId], steps: usize) -> Run {
    let joints: Vec<_> = world.joint_ids().collect();
    let start_energy = energy(&world, bodies);
    let weight: f64 = bodies.iter().map(|&b| world.body(b).unwrap().mass as f64 * 9.81).sum();
    let kinetic = start_energy
        - bodies
            .iter()
            .map(|&b| {
                let b = world.body(b).unwrap();
                b.mass as f64 * 9.81 * b.center_of_mass.y as f64
            })
            .sum::<f64>();
    let energy_scale = kinetic + weight * extent(&world, bodies) as f64;
    let mut run = Run { centres: Vec::new(), worst_gap: 0.0, start_energy, energy_gain: 0.0, energy_scale };
    for _ in 0..steps {
        world.step();
        let mut centres = Vec::new();
        for &b in bodies {
            let b = world.body(b).unwrap();
            assert!(
                b.center_of_mass.is_finite()
                    && b.linear_velocity.is_finite()
                    && b.angular_velocity.is_finite(),
                "a non-finite body"
            );
            centres.push(b.center_of_mass);
        }
        run.energy_gain = run.energy_gain.max(energy(&world, bodies) - run.start_energy);
        for &j in &joints {
            let j = world.joint(j).unwrap();
            run.worst_gap = run.worst_gap.max((j.anchor_a - j.anchor_b).length());
        }
        run.centres.push(centres);
    }
    run
}

/// The largest mass ratio between neighbours in a chain. Past it the general rows themselves
/// can fling a chain apart (a 10 g ball holding a 200 kg one, anchors 30 sizes off), and
/// until the step caps speeds and isolates what turns non-finite, no path's behaviour there
/// is a reference.
const RATIO: f32 = 10.0;

/// How far from its centre a joint may hold a body, in the body's sizes.
const REACH: f32 = 1.5;

/// The steps each run takes: two seconds.
const STEPS: usize = 120;

/// The steps over which the two paths' trajectories are compared point by point: a sixth of
/// a second. Beyond it a chain of bodies spinning tens of radians a second is chaotic, and two
/// orders of the same sums part as any two solvers would.
const CLOSE_STEPS: usize = 10;

/// How far a fast path's body may be from the general rows' over the first `CLOSE_STEPS`, as a
/// share of the chain's extent. Both paths solve the same rows with the same exact arms; they
/// differ in the order of the joints' updates (colours and batches against joint order) and,
/// for the plain ball joints, in a point block mass kept while it is within a quarter of the
/// exact one, so they reach the same motion by different sequences: up to 0.05 of the extent
/// over 1 570 chains (`PROPTEST_CASES=1500`), where the pendulum's fault was many times it.
const POSITION_TOLERANCE: f32 = 0.1;

/// The chain is held where no joint's anchors part by more than this share of its extent
/// (a randomly built chain may ask more than a soft step can give: a 10 g ball holding a
/// 200 kg one, say, which neither path holds).
const HELD_GAP: f32 = 0.01;

/// How far apart a fast path may let a joint's anchors part over the whole run, as a share of
/// the chain's extent, where the general rows keep them within `HELD_GAP`: the order of a
/// Gauss-Seidel pass moves the error among the joints, so the worst joint of one order may be
/// a few times the other's.
const FAST_HELD_GAP: f32 = 0.03;

/// How much more energy than the general rows a fast path may gain over the whole run, as a
/// share of the chain's energy scale (its kinetic energy at the start plus its weight times
/// its extent). A path that feeds energy in is what blew up the pendulum (by ten orders of
/// magnitude); the order of the passes alone gave up to 0.073 over 1 570 chains (`PROPTEST_CASES=1500`).
const ENERGY_TOLERANCE: f64 = 0.1;

/// The largest position difference between two runs' first `CLOSE_STEPS`, and its step.
fn largest_difference(a: &Run, b: &Run) -> (f32, usize) {
    let mut worst = (0.0f32, 0usize);
    for (step, (a, b)) in a.centres.iter().zip(&b.centres).take(CLOSE_STEPS).enumerate() {
        for (pa, pb) in a.iter().zip(b) {
            let d = (*pa - *pb).length();
            if d > worst.0 {
                worst = (d, step);
            }
        }
    }
    worst
}

proptest! {
    // A fixed seed, so every run of the test command tries the same chains; `PROPTEST_CASES`
    // tries more of them.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(48),
        rng_seed: RngSeed::Fixed(63),
        // Most random chains ask more than a soft step gives (see `HELD_GAP`); the rest are
        // the cases.
        max_global_rejects: 100_000,
        ..ProptestConfig::default()
    })]

    #[test]
    fn every_fast_joint_path_moves_as_the_general_rows_do(mut links in prop::collection::vec(link(), 1..12)) {
        // Neighbours' masses and sizes at most RATIO apart (see `RATIO`), and one joint type
        // per chain: the general rows solve the joints in joint order, the fast paths by type
        // (the revolute batches, then the spherical, then the plain ball ones), and a
        // Gauss-Seidel pass holds best what it solves last. A hinge holding a 0.2 kg box under
        // a spinning 2 kg ball on a limited ball joint parted by 5 mm solved hinge first and by
        // 0.6 mm ball joint first: an order, not a fault of either path.
        for k in 1..links.len() {
            links[k].joint = links[0].joint;
            let (mass, size) = (links[k - 1].mass, links[k - 1].size);
            links[k].mass = links[k].mass.clamp(mass / RATIO, mass * RATIO);
            links[k].size = links[k].size.clamp(size / RATIO, size * RATIO);
        }
        let (world, bodies) = build(&links);
        let scale = extent(&world, &bodies).max(0.1);
        let mut general = world.clone();
        general.set_general_joints_only(true);
        let reference = run(general, &bodies, STEPS);
        // Only where the general rows hold the chain is their motion a reference.
        prop_assume!(reference.worst_gap < HELD_GAP * scale);
        for lanes in [SolverLanes::Four, SolverLanes::Avx512] {
            let mut fast = world.clone();
            fast.set_solver_lanes(lanes);
            let moved = run(fast, &bodies, STEPS);
            let (apart, step) = largest_difference(&moved, &reference);
            eprintln!(
                "figure: {} links, {lanes:?}: apart {:.5} (step {step}); gap {:.5} against {:.5} of the extent; energy gained {:.4} against {:.4} of its scale",
                links.len(),
                apart / scale,
                moved.worst_gap / scale,
                reference.worst_gap / scale,
                moved.energy_gain / moved.energy_scale,
                reference.energy_gain / reference.energy_scale,
            );
            prop_assert!(
                apart < POSITION_TOLERANCE * scale,
                "{lanes:?}: {apart} m from the general rows' at step {step}, of a chain {scale} m long"
            );
            prop_assert!(
                moved.worst_gap < FAST_HELD_GAP * scale,
                "{lanes:?}: a joint {} m apart, the general rows' at most {} m", moved.worst_gap, reference.worst_gap
            );
            prop_assert!(
                moved.energy_gain <= reference.energy_gain.max(0.0) + ENERGY_TOLERANCE * moved.energy_scale,
                "{lanes:?}: the chain gained {} J, the general rows' {} J, of a scale of {} J",
                moved.energy_gain, reference.energy_gain, moved.energy_scale
            );
        }
    }
}
