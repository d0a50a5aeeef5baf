//! Exact round trips: a scene of random bodies and joints (every type, with their optional
//! limits, motors, springs and thresholds), random settings, terrain and odd floats (−0.0, the
//! least subnormal, thirds), caught from a world that has run, saved and loaded back, is the
//! same scene, and builds a world whose state hash matches, step by step, the world the
//! original scene builds.

mod common;

use atoll_physics::{Scene, Vec3, state_hash};
use common::joint_graph::{Random, joint_graph};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;
use std::path::PathBuf;

/// The terrain of the built-in terrain scene, for the scenes that get one.
fn terrain() -> atoll_physics::scene::SceneTerrain {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes/terrain.ron");
    Scene::load(&path).unwrap().terrain.unwrap()
}

/// `v` with its components swapped for odd floats at random.
fn odd(random: &mut Random, v: Vec3) -> Vec3 {
    let pick = |random: &mut Random, x: f32| match random.below(6) {
        0 => -0.0,
        1 => f32::from_bits(1),
        2 => x / 3.0,
        _ => x,
    };
    Vec3::new(pick(random, v.x), pick(random, v.y), pick(random, v.z))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 32, rng_seed: RngSeed::Fixed(63), ..ProptestConfig::default() })]

    #[test]
    fn a_saved_scene_loads_back_as_the_same_world(seed in 0u64..1_000_000, steps in 0usize..40) {
        let mut graph = joint_graph(seed);
        for _ in 0..steps {
            graph.world.step();
        }
        let mut scene = Scene::from_world(&graph.world, "round trip", |id| format!("body {}", id.index()));
        let mut random = Random(seed ^ 0x5eed);
        for body in &mut scene.bodies {
            body.position = odd(&mut random, body.position);
            body.linear_velocity = odd(&mut random, body.linear_velocity);
            body.angular_velocity = odd(&mut random, body.angular_velocity);
        }
        scene.settings.substeps = 1 + random.below(12) as u32;
        scene.settings.dt = 1.0 / (30.0 + random.below(200) as f32);
        scene.settings.joint_hertz = random.log_range(1.0, 500.0);
        scene.settings.max_linear_speed = random.log_range(1.0, 1000.0);
        if random.chance(0.3) {
            scene.terrain = Some(terrain());
        }
        let text = scene.to_ron_string();
        let back = Scene::from_ron_str(&text).unwrap();
        prop_assert_eq!(&back, &scene);
        prop_assert_eq!(back.to_ron_string(), text);
        // Every float bit for bit (PartialEq takes -0.0 for 0.0).
        for (a, b) in back.bodies.iter().zip(&scene.bodies) {
            for (x, y) in [(a.position, b.position), (a.linear_velocity, b.linear_velocity), (a.angular_velocity, b.angular_velocity)] {
                prop_assert_eq!(x.to_array().map(f32::to_bits), y.to_array().map(f32::to_bits));
            }
        }
        let (mut original, _) = scene.build_world().unwrap();
        let (mut loaded, _) = back.build_world().unwrap();
        for step in 0..30 {
            prop_assert_eq!(state_hash(&original), state_hash(&loaded), "step {}", step);
            original.step();
            loaded.step();
        }
        // What the loaded world says of itself is the scene it came from.
        let again = Scene::from_world(&loaded, "round trip", |id| format!("body {}", id.index()));
        prop_assert_eq!(again.joints, Scene::from_world(&original, "round trip", |id| format!("body {}", id.index())).joints);
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, rng_seed: RngSeed::Fixed(64), ..ProptestConfig::default() })]

    #[test]
    fn a_saved_recording_replays_without_diverging(seed in 0u64..1_000_000) {
        // A scene caught from a world that ran, odd floats and all, recorded with inputs.
        let mut graph = joint_graph(seed);
        for _ in 0..10 {
            graph.world.step();
        }
        let mut scene = Scene::from_world(&graph.world, "recorded", |id| format!("body {}", id.index()));
        let mut random = Random(seed ^ 0x7ec0);
        for body in &mut scene.bodies {
            body.linear_velocity = odd(&mut random, body.linear_velocity);
        }
        let (mut world, ids) = scene.build_recorded_world().unwrap();
        for step in 0..60 {
            let body = ids[1 + random.below(ids.len() - 1)];
            match random.below(8) {
                0 => drop(world.set_linear_velocity(body, odd(&mut random, Vec3::new(1.0, -0.0, 2.0)))),
                1 => drop(world.apply_impulse(body, Vec3::new(0.0, 3.0, -0.0))),
                2 if step == 30 => drop(world.destroy_body(body)),
                _ => {}
            }
            world.step();
        }
        let recording = world.recording().unwrap();
        let read = atoll_physics::Recording::from_ron_str(&recording.to_ron_string()).unwrap();
        prop_assert_eq!(&read, &recording);
        let replayed = read.replay(1).map_err(|e| TestCaseError::fail(format!("{e}")))?;
        prop_assert_eq!(state_hash(&replayed), state_hash(&world));
    }
}
