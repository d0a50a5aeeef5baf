//! Same scene, same settings, same result, bit for bit; snapshots resume exactly.

mod common;

use atoll_physics::state_hash;

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

#[test]
fn thread_count_never_changes_the_result() {
    for scene in ["rain.ron", "pyramid_3d.ron", "dominoes.ron"] {
        let hashes: Vec<u64> = [1usize, 2, 3, 4]
            .iter()
            .map(|&threads| {
                let (mut world, _) = common::builtin(scene);
                world.set_thread_count(threads).unwrap();
                assert_eq!(world.thread_count(), threads);
                common::run(&mut world, 150);
                state_hash(&world)
            })
            .collect();
        assert!(hashes.iter().all(|h| *h == hashes[0]), "{scene}: {hashes:x?}");
    }
}
