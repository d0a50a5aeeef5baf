//! Same scene, same settings, same result, bit for bit; snapshots resume exactly.

mod common;

use atoll_physics::body::{BodyDesc, BodyId, BodyType};
use atoll_physics::math::Vec3;
use atoll_physics::scene::builtin;
use atoll_physics::world::{SolverLanes, TouchEvent};
use atoll_physics::{Scene, Shape, StepSettings, WakeCause, World, state_hash};

const SCENES: [&str; 6] =
    ["plane_pyramid.ron", "pyramid_3d.ron", "tower.ron", "rain.ron", "dominoes.ron", "ramp.ron"];

#[test]
fn every_builtin_scene_runs_the_same_twice() {
    for scene in SCENES {
        let hashes: Vec<u64> = (0..2)
            .map(|_| {
                let (mut world, _) = common::builtin(scene);
                common::run(&mut world, 120);
                state_hash(&world)
            })
            .collect();
        assert_eq!(hashes[0], hashes[1], "{scene} diverged");
    }
}

#[test]
fn restoring_a_snapshot_resumes_bit_for_bit() {
    for scene in ["rain.ron", "dominoes.ron", "pyramid_3d.ron"] {
        let (mut world, _) = common::builtin(scene);
        common::run(&mut world, 45);
        let snapshot = world.snapshot();
        common::run(&mut world, 60);
        let uninterrupted = state_hash(&world);
        // Wander off, then come back.
        common::run(&mut world, 17);
        world.restore(&snapshot);
        assert_eq!(world.step_count(), 45);
        common::run(&mut world, 60);
        assert_eq!(state_hash(&world), uninterrupted, "{scene}: restore changed the result");
    }
}

#[test]
fn hash_sees_every_change() {
    let (mut world, ids) = common::builtin("tower.ron");
    let before = state_hash(&world);
    let mut xf = world.transform(ids[5]).unwrap();
    xf.position.x += 1e-6;
    world.set_transform(ids[5], xf).unwrap();
    assert_ne!(state_hash(&world), before);
}

/// The state hash after each of `steps` steps of `scene`, its world set up by `configure`,
/// with the step's touch events in the order the world gives them.
fn hashes_and_events_of(
    scene: &Scene,
    steps: usize,
    configure: impl FnOnce(&mut World),
) -> Vec<(u64, Vec<TouchEvent>)> {
    let (mut world, _) = scene.build_world().unwrap();
    configure(&mut world);
    (0..steps)
        .map(|_| {
            world.step();
            (state_hash(&world), world.touch_events().to_vec())
        })
        .collect()
}

/// The state hash and touch events after each of `steps` steps of `scene` on `threads` threads.
fn hashes_and_events_on(scene: &Scene, threads: usize, steps: usize) -> Vec<(u64, Vec<TouchEvent>)> {
    hashes_and_events_of(scene, steps, |world| {
        world.set_thread_count(threads).unwrap();
        assert_eq!(world.thread_count(), threads);
    })
}

#[test]
fn thread_count_never_changes_the_result() {
    // Every built-in scene and every benchmark scene, at the start of their action (the rains
    // in the air, the piles settling, the joints pulled taut), where the most contacts begin
    // and the solver's work is shared across the threads; every step's hash is compared, and
    // its touch events, which the narrowphase's blocks make, in order.
    let mut scenes: Vec<(&str, Scene)> = builtin::committed();
    scenes.extend(common::benchmark_scenes());
    let mut events = 0;
    let mut pinned = Pinned::new(PINNED_START);
    for (name, scene) in &scenes {
        let steps = if scene.bodies.len() > 3000 { 12 } else { 40 };
        let reference = hashes_and_events_on(scene, 1, steps);
        events += reference.iter().map(|(_, e)| e.len()).sum::<usize>();
        pinned.check(name, 1, reference.last().unwrap().0);
        for threads in 2..=4 {
            let hashes = hashes_and_events_on(scene, threads, steps);
            let first = hashes.iter().zip(&reference).position(|(a, b)| a != b);
            assert_eq!(first, None, "{name}: {threads} threads differ from one from step {first:?} on");
            pinned.check(name, threads, hashes.last().unwrap().0);
        }
    }
    pinned.finish();
    assert!(events > 1000, "the scenes begin and end touches: {events} events");
}

/// Final state hashes held to a table written down in this file, so a change that means to
/// keep the engine's behaviour (moving code between files, a new layout of the step) is shown
/// to keep it bit for bit, on every scene and thread count. A change that means to alter the
/// result prints the new table with `ATOLL_PRINT_PINNED=1 cargo test -p atoll-physics --test
/// determinism -- --nocapture` and replaces the old one, saying why in its commit.
struct Pinned {
    table: &'static [(&'static str, u64)],
    printing: bool,
    seen: Vec<(String, u64)>,
}

impl Pinned {
    fn new(table: &'static [(&'static str, u64)]) -> Self {
        Pinned { table, printing: std::env::var_os("ATOLL_PRINT_PINNED").is_some(), seen: Vec::new() }
    }

    /// Holds scene `name`'s final hash on `threads` threads to the table.
    fn check(&mut self, name: &str, threads: usize, hash: u64) {
        if threads == 1 {
            self.seen.push((name.to_string(), hash));
        }
        if self.printing {
            return;
        }
        let pinned = self.table.iter().find(|(n, _)| *n == name).map(|&(_, h)| h);
        assert_eq!(
            pinned,
            Some(hash),
            "{name} on {threads} threads: final hash {hash:#018x} is not the pinned one (see `Pinned`)"
        );
    }

    /// Prints the table when asked, and checks that it names no scene that is gone.
    fn finish(self) {
        if self.printing {
            println!("pinned hashes:");
            for (name, hash) in &self.seen {
                println!("    (\"{name}\", {hash:#018x}),");
            }
            return;
        }
        for (name, _) in self.table {
            assert!(
                self.seen.iter().any(|(n, _)| n == name),
                "the pinned table names {name}, which no longer runs"
            );
        }
    }
}

/// The final hashes of [`thread_count_never_changes_the_result`]'s scenes.
const PINNED_START: &[(&str, u64)] = &[
    ("plane_pyramid.ron", 0xbdc087511b001e55),
    ("pyramid_3d.ron", 0x4e7b501783a21cc8),
    ("tower.ron", 0x40780ea8b6c0431c),
    ("rain.ron", 0x68f8485690e04897),
    ("dominoes.ron", 0x5a1bcf4ad78ceab9),
    ("ramp.ron", 0x180818854ef04736),
    ("pyramids_182.ron", 0x49c46677b7cf51ad),
    ("stacks_500.ron", 0x73b031b5d312a475),
    ("tumbler.ron", 0x9a87ac428a88cbf2),
    ("terrain.ron", 0xcbf29ce484222325),
    ("terrain_rain.ron", 0x9a31cea6a6a55f67),
    ("slide.ron", 0x3b6f35b0bcc8a68a),
    ("boats.ron", 0x601da6eb0ad761a5),
    ("bridge.ron", 0xa0012dc13431d16c),
    ("ragdoll_pile.ron", 0x76ac551fad95169f),
    ("door.ron", 0x58e2bdddccadfb1f),
    ("vehicle.ron", 0xfa3deab87252dbfe),
    ("newtons_cradle.ron", 0x205d13fa62a82347),
    ("sorting.ron", 0xe188031c8b63715e),
    ("furniture.ron", 0x144f107913de277c),
    ("car.ron", 0xab806b74b200881e),
    ("pyramid", 0x7d744ba1f3a8e45a),
    ("pyramid3d", 0x26dc47193c79b7bf),
    ("pyramids", 0xd33b17ec1ea4ba95),
    ("rain", 0x5330f6b30104a9b0),
    ("terrain-rain", 0x03828f42794ad716),
    ("joint-grid", 0x0c963e933bd5e7da),
    ("chain-bridge", 0xb7a2082f3639719e),
    ("ragdoll-rain", 0xe290ab881557888c),
    ("free-fall", 0x5d47eeb731964f2e),
    ("tumbler", 0xb9bc8d5ed70394ef),
];

/// The final hashes of [`a_long_run_is_the_same_on_one_to_four_threads`]'s scenes.
const PINNED_LONG: &[(&str, u64)] = &[
    ("rain.ron", 0xf8369e68627f37a3),
    ("pyramid_3d.ron", 0x4e7b501783a21cc8),
    ("dominoes.ron", 0x6feed198dcaef8b0),
];

#[test]
fn two_batches_on_eight_lanes_compute_what_one_on_four_computes() {
    // Where the CPU has AVX the contact passes and the plain ball joints' passes solve two
    // batches at a time (in AVX-512VL's 32 registers where it has those); each half of the
    // register must do exactly what four lanes do, so every step's hash is the same every way.
    let mut scenes: Vec<(&str, Scene)> = builtin::committed();
    scenes.extend(common::benchmark_scenes());
    for (name, scene) in &scenes {
        let steps = if scene.bodies.len() > 3000 { 12 } else { 40 };
        let hashes = |widest: SolverLanes| {
            let mut used = widest;
            let hashes = hashes_and_events_of(scene, steps, |world| {
                world.set_solver_lanes(widest);
                used = world.solver_lanes();
            });
            (hashes, used)
        };
        let (four, _) = hashes(SolverLanes::Four);
        let (avx, used) = hashes(SolverLanes::Avx);
        #[cfg(target_arch = "x86_64")]
        assert_eq!(used, SolverLanes::Avx, "this test runs on x86-64 CPUs with AVX");
        let first = four.iter().zip(&avx).position(|(a, b)| a != b);
        assert_eq!(first, None, "{name}: eight lanes differ from four from step {first:?} on ({used:?})");
        // The widest way this CPU has (the same as above without AVX-512).
        let (widest, used) = hashes(SolverLanes::Avx512);
        eprintln!("{name}: the widest solver lanes here: {used:?}");
        let first = four.iter().zip(&widest).position(|(a, b)| a != b);
        assert_eq!(first, None, "{name}: eight lanes differ from four from step {first:?} on ({used:?})");
    }
}

#[test]
fn a_long_run_is_the_same_on_one_to_four_threads() {
    // Longer, on three scenes whose piles settle and sleep, so islands fall asleep and wake.
    let mut pinned = Pinned::new(PINNED_LONG);
    for scene in ["rain.ron", "pyramid_3d.ron", "dominoes.ron"] {
        let hashes: Vec<u64> = [1usize, 2, 3, 4]
            .iter()
            .map(|&threads| {
                let (mut world, _) = common::builtin(scene);
                world.set_thread_count(threads).unwrap();
                common::run(&mut world, 150);
                let hash = state_hash(&world);
                pinned.check(scene, threads, hash);
                hash
            })
            .collect();
        assert!(hashes.iter().all(|h| *h == hashes[0]), "{scene}: {hashes:x?}");
    }
    pinned.finish();
}

/// A plank on the ground between two resting kinematic paddles that touch its ends, and 1100
/// balls falling far off, spread most along x (so the solve runs on a team, which cuts its parts
/// across x: on two threads the -x paddle is in the first part, the plank and the +x paddle in
/// the second). The paddle created first is on the +x side.
fn paddles_and_a_plank(threads: usize) -> (World, [BodyId; 3]) {
    let mut world = World::new(StepSettings::default()).unwrap();
    world.set_thread_count(threads).unwrap();
    let cuboid = |x: f32, y: f32, z: f32| Shape::cuboid(Vec3::new(x, y, z)).unwrap();
    world.create_body(&BodyDesc::fixed(cuboid(10.0, 0.5, 10.0), Vec3::new(0.0, -0.5, 0.0))).unwrap();
    let plank =
        world.create_body(&BodyDesc::dynamic(cuboid(1.0, 0.25, 0.5), Vec3::new(0.0, 0.25, 0.0))).unwrap();
    let paddle = |x: f32| BodyDesc::new(BodyType::Kinematic, cuboid(0.2, 0.5, 0.5), Vec3::new(x, 0.6, 0.0));
    let first = world.create_body(&paddle(1.2)).unwrap();
    let second = world.create_body(&paddle(-1.2)).unwrap();
    for i in 0..55 {
        for j in 0..20 {
            let at = Vec3::new(2.2 * i as f32 - 60.0, 100.0, 50.0 + 2.2 * j as f32);
            world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), at)).unwrap();
        }
    }
    (world, [plank, first, second])
}

#[test]
fn kinematic_bodies_wake_what_they_touch_in_body_order_on_any_thread_count() {
    // The plank falls asleep touching both resting paddles; then both start to rise at once, and
    // each, moving, wakes what it touches: the one created first wakes the plank (what walks
    // first records the cause), whichever part of the solve each paddle is in.
    let causes: Vec<(u64, Option<(WakeCause, u64)>)> = (1..=4)
        .map(|threads| {
            let (mut world, [plank, first, second]) = paddles_and_a_plank(threads);
            common::run(&mut world, 90);
            assert!(!world.is_awake(plank).unwrap(), "the plank fell asleep between the paddles");
            for paddle in [first, second] {
                world.set_linear_velocity(paddle, Vec3::new(0.0, 0.5, 0.0)).unwrap();
            }
            world.step();
            assert!(world.is_awake(plank).unwrap(), "the rising paddles woke the plank");
            let island = world.body_island(plank).unwrap().unwrap();
            let cause = world.wake_cause(island).unwrap();
            assert!(
                matches!(cause, Some((WakeCause::Kinematic { body, kinematic }, _)) if body == plank && kinematic == first),
                "{threads} threads: {cause:?}"
            );
            (state_hash(&world), cause)
        })
        .collect();
    assert!(causes.iter().all(|c| *c == causes[0]), "{causes:?}");
}

#[test]
fn a_solve_of_contacts_on_a_team_runs_as_a_pipeline_of_its_parts() {
    // The 3D pyramid settling: contacts alone, on a team of two and of four, run as a pipeline
    // of as many parts (whose result the test above compares with one thread's); alone, or
    // with joints (the joint grid), colour by colour.
    let scenes = common::benchmark_scenes();
    let scene = |wanted: &str| &scenes.iter().find(|(name, _)| *name == wanted).expect("a benchmark scene").1;
    for (name, threads, parts) in
        [("pyramid3d", 1, 0), ("pyramid3d", 2, 2), ("pyramid3d", 4, 4), ("joint-grid", 2, 0)]
    {
        let (mut world, _) = scene(name).build_world().unwrap();
        world.set_thread_count(threads).unwrap();
        for _ in 0..3 {
            world.step();
        }
        assert_eq!(world.pipelined_parts(), parts, "{name} on {threads} threads");
    }
}
