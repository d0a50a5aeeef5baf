//! The contacts' fast paths held to what they stand in for, on behaviour: random piles of
//! bodies outside the built-in scenes dropped onto the ground and onto terrain, run four ways:
//! carrying a barely moving pair's manifold along (the default) or colliding every touching
//! pair afresh each step (`World::set_manifold_carrying`), each on the widest contact lanes
//! the CPU has (eight AVX lanes, two batches at a time) and on four lanes one batch at a time
//! (`World::set_solver_lanes`). The quick checks that skip a quiet pair's update decide only
//! what its full update would (the same bounds), so the afresh runs take them too.
//!
//! The four lanes and the eight must agree bit for bit (the same sums in the same order,
//! tested in `determinism.rs` too); the carry, an approximation by design (a carried point's
//! lever arm drifts by up to 1 cm before the pair is collided again), must keep the pile's
//! motion within the stated tolerance of the collision's and never hold a body worse.
//!
//! The ranges: masses 0.01 to 1000 kg with neighbours in the pile within ten times of each
//! other, sizes 0.02 to 5 m, spins up to 10 rad/s. Wider mass ratios are a matter of the
//! solver's convergence (a light box under one a thousand times heavier sinks through it on
//! every path), not of a fast path.

mod common;

use atoll_physics::terrain::{Voxel, VoxelMaterial};
use atoll_physics::world::SolverLanes;
use atoll_physics::{BodyDesc, BodyId, Material, Shape, StepSettings, Terrain, TerrainSettings, Vec3, World};
use common::energy;
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// One body of a random pile.
#[derive(Clone, Debug)]
struct Piece {
    /// 0 a sphere, 1 a box, 2 a capsule.
    shape: u8,
    /// Its largest half extent, m.
    size: f32,
    /// Its mass, kg.
    mass: f32,
    /// Where it starts across the pile's footprint, as shares of the footprint's half width.
    across: (f32, f32),
    /// Its spin at the start, rad/s.
    spin: Vec3,
}

/// A log-uniform value between `low` and `high`.
fn log_uniform(low: f32, high: f32) -> impl Strategy<Value = f32> {
    (0.0f32..=1.0).prop_map(move |t| low * (high / low).powf(t))
}

fn piece() -> impl Strategy<Value = Piece> {
    (
        0u8..3,
        log_uniform(0.02, 5.0),
        log_uniform(0.01, 1000.0),
        (-1.0f32..1.0, -1.0f32..1.0),
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0),
    )
        .prop_map(|(shape, size, mass, across, (x, y, z))| Piece {
            shape,
            size,
            mass,
            across,
            spin: Vec3::new(x, y, z) * 10.0,
        })
}

/// `piece`'s shape and volume.
fn shape(piece: &Piece) -> (Shape, f32) {
    let s = piece.size;
    match piece.shape {
        0 => (Shape::sphere(s).unwrap(), 4.0 / 3.0 * std::f32::consts::PI * s * s * s),
        1 => {
            let half = Vec3::new(s, s * 0.6, s * 0.4);
            (Shape::cuboid(half).unwrap(), 8.0 * half.x * half.y * half.z)
        }
        _ => {
            let (half_height, radius) = (s * 0.6, s * 0.4);
            let volume = std::f32::consts::PI * radius * radius * (2.0 * half_height + 4.0 / 3.0 * radius);
            (Shape::capsule(half_height, radius).unwrap(), volume)
        }
    }
}

/// How the contacts run.
#[derive(Clone, Copy, Debug)]
struct Path {
    carry: bool,
    lanes: SolverLanes,
}

/// The pile of `pieces` stacked over a footprint as wide as its largest piece, each a little
/// above the one before, on a ground box (`on_terrain` false) or a floor of voxels.
fn build(pieces: &[Piece], on_terrain: bool, path: Path) -> (World, Vec<BodyId>) {
    let settings = StepSettings { sleep_enabled: false, ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    world.set_manifold_carrying(path.carry);
    world.set_solver_lanes(path.lanes);
    // The carry is held to the collision on the passes alone. Solved directly
    // (`solver/direct.rs`), a heavy piece rests on a light round one instead of sinking
    // through it: a balance the least difference tips one way or the other within the sixth
    // of a second compared (a 36 kg box on a 0.01 kg capsule parted by 1.7 of its size). The
    // direct solve is held to theory in `validation/mass_ratio.rs`.
    world.set_direct_mass_ratio(f32::INFINITY);
    let widest = pieces.iter().map(|p| p.size).fold(0.0, f32::max);
    if on_terrain {
        // A voxel floor 64 m across, its surface at y = 0.
        let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [-4, -2, -4], max_chunk: [4, 2, 4] };
        let rock = Voxel { material: VoxelMaterial::Rock, occupancy: 255 };
        let terrain = Terrain::from_fn(settings, |v| if v.y < 0 { rock } else { Voxel::AIR }).unwrap();
        world.set_terrain(terrain);
    } else {
        let half = Vec3::new(4.0 * widest + 1.0, 0.5, 4.0 * widest + 1.0);
        world.create_body(&BodyDesc::fixed(Shape::cuboid(half).unwrap(), Vec3::new(0.0, -0.5, 0.0))).unwrap();
    }
    let mut bodies = Vec::new();
    let mut height = 0.0f32;
    for piece in pieces {
        let (shape, volume) = shape(piece);
        height += piece.size * 1.05;
        let at = Vec3::new(piece.across.0 * widest, height, piece.across.1 * widest);
        height += piece.size * 1.05;
        let desc = BodyDesc::dynamic(shape, at)
            .with_material(Material { density: piece.mass / volume, ..Material::default() });
        let body = world.create_body(&desc).unwrap();
        world.set_angular_velocity(body, piece.spin).unwrap();
        bodies.push(body);
    }
    (world, bodies)
}

/// What a run did: each step's centres and state hash, and its energy.
struct Run {
    centres: Vec<Vec<Vec3>>,
    hashes: Vec<u64>,
    /// The most the pile's energy (kinetic, and potential above y = 0) rose above its start, J.
    energy_gain: f64,
    /// The scale that gain is weighed against: the start's energy above the floor, J.
    energy_scale: f64,
}

fn run(mut world: World, bodies: &[BodyId], steps: usize) -> Run {
    let start = energy(&world, bodies);
    let mut run =
        Run { centres: Vec::new(), hashes: Vec::new(), energy_gain: 0.0, energy_scale: start.abs() };
    for _ in 0..steps {
        world.step();
        run.energy_gain = run.energy_gain.max(energy(&world, bodies) - start);
        let centres: Vec<Vec3> = bodies.iter().map(|&b| world.body(b).unwrap().center_of_mass).collect();
        assert!(centres.iter().all(|c| c.is_finite()), "a non-finite body");
        run.centres.push(centres);
        run.hashes.push(atoll_physics::state_hash(&world));
    }
    run
}

/// The steps each run takes: three seconds, in which the pile falls, lands, tumbles and
/// mostly comes to rest, where the carry does most of its work.
const STEPS: usize = 180;

/// The steps over which the carry's trajectory is compared with the collision's point by
/// point, from the first step the two differ: a sixth of a second. Over longer a tumbling
/// pile is chaotic, and any two sequences of the same sums part as far as the pile is wide.
/// Over 300 piles (`PROPTEST_CASES=300`) the carry first changed the state in 219, and no
/// body went further than 0.015 of its size past 1 cm from the collision's within this; no
/// pile gained energy beyond what the collision's gained.
const CLOSE_STEPS: usize = 10;

/// How far a body may be from where the collision puts it over `CLOSE_STEPS`, as a share of
/// its own size (its largest half extent), past 1 cm, the most the carry lets a lever arm
/// drift before colliding the pair again.
const POSITION_TOLERANCE: f32 = 0.1;

/// How much more energy than the collision's the carry may gain over the whole run, as a
/// share of the pile's energy at the start: a contact that feeds energy in shows here.
const ENERGY_TOLERANCE: f64 = 0.02;

proptest! {
    // A fixed seed, so every run of the test command tries the same piles; `PROPTEST_CASES`
    // tries more of them.
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|c| c.parse().ok()).unwrap_or(32),
        rng_seed: RngSeed::Fixed(63),
        ..ProptestConfig::default()
    })]

    #[test]
    fn carried_manifolds_and_every_lane_width_move_a_pile_as_fresh_collisions_do(
        mut pieces in prop::collection::vec(piece(), 1..8),
        on_terrain in any::<bool>(),
    ) {
        // Neighbours within ten times of each other's mass (see the module comment).
        for k in 1..pieces.len() {
            let previous = pieces[k - 1].mass;
            pieces[k].mass = pieces[k].mass.clamp(previous / 10.0, previous * 10.0);
        }
        let runs: Vec<(Path, Run)> = [
            Path { carry: false, lanes: SolverLanes::Four },
            Path { carry: false, lanes: SolverLanes::Avx512 },
            Path { carry: true, lanes: SolverLanes::Four },
            Path { carry: true, lanes: SolverLanes::Avx512 },
        ]
        .into_iter()
        .map(|path| {
            let (world, bodies) = build(&pieces, on_terrain, path);
            (path, run(world, &bodies, STEPS))
        })
        .collect();
        // Lane widths: the same sums, bit for bit, carried or not.
        prop_assert_eq!(&runs[0].1.hashes, &runs[1].1.hashes, "four and eight lanes, collided afresh");
        prop_assert_eq!(&runs[2].1.hashes, &runs[3].1.hashes, "four and eight lanes, carried");
        // The carry against fresh collisions.
        let (fresh, carried) = (&runs[0].1, &runs[2].1);
        let first_differing = fresh.hashes.iter().zip(&carried.hashes).position(|(a, b)| a != b);
        let from = first_differing.unwrap_or(STEPS);
        let mut worst = (0.0f32, 0usize, 0usize);
        let pairs = fresh.centres.iter().zip(&carried.centres).enumerate().skip(from).take(CLOSE_STEPS);
        for (step, (a, b)) in pairs {
            for (k, (pa, pb)) in a.iter().zip(b).enumerate() {
                let share = ((*pa - *pb).length() - 0.01).max(0.0) / pieces[k].size;
                if share > worst.0 {
                    worst = (share, step, k);
                }
            }
        }
        let extra_gain = (carried.energy_gain - fresh.energy_gain) / fresh.energy_scale.max(1e-9);
        eprintln!(
            "figure: carried against fresh, {} bodies, first differing at step {first_differing:?}: {:.4} of a \
             size off, energy gained beyond the collision's {extra_gain:.5} of the start",
            pieces.len(),
            worst.0
        );
        prop_assert!(
            worst.0 <= POSITION_TOLERANCE,
            "body {} is {} of its size from the collision's at step {}",
            worst.2, worst.0, worst.1
        );
        prop_assert!(extra_gain <= ENERGY_TOLERANCE, "the carry gained {} of the start's energy more", extra_gain);
    }
}
