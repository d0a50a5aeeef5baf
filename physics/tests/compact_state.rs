//! Compact states: restoring one and stepping on gives, bit for bit, what stepping on from the
//! capture gave, on every kind of scene (piles, sleep, kinematic bodies, terrain, water, joints);
//! a state of another structure is refused and changes nothing.

mod common;

use atoll_physics::scene::builtin;
use atoll_physics::{BodyDesc, Scene, Shape, Vec3, World, state_hash};

/// The state hash after each of `steps` steps.
fn hashes(world: &mut World, steps: usize) -> Vec<u64> {
    (0..steps)
        .map(|_| {
            world.step();
            state_hash(world)
        })
        .collect()
}

/// Steps `before`, captures, steps `after` (the reference), wanders on, restores and steps
/// `after` again: every step's hash must match the reference.
fn resumes_exactly(name: &str, mut world: World, before: usize, after: usize) {
    common::run(&mut world, before);
    let captured_at = world.step_count();
    let state = world.capture();
    let reference = hashes(&mut world, after);
    common::run(&mut world, 7);
    world.restore_compact(&state).unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(world.step_count(), captured_at, "{name}: step count");
    let again = hashes(&mut world, after);
    let first_difference = reference.iter().zip(&again).position(|(a, b)| a != b);
    assert_eq!(first_difference, None, "{name}: diverged at step {:?} after the restore", first_difference);
}

fn built(scene: Scene) -> World {
    scene.build_world().unwrap().0
}

#[test]
fn piles_rain_and_a_turning_tumbler_resume_exactly() {
    resumes_exactly("rain", common::builtin("rain.ron").0, 40, 80);
    resumes_exactly("tumbler", built(builtin::tumbler(150)), 60, 60);
    resumes_exactly("pyramid 3d", common::builtin("pyramid_3d.ron").0, 30, 60);
}

#[test]
fn sleeping_piles_resume_exactly_asleep_and_waking() {
    // Dominoes topple one another: islands sleep, wake and merge across the capture.
    resumes_exactly("dominoes", common::builtin("dominoes.ron").0, 50, 120);
    let mut world = common::builtin("tower.ron").0;
    common::run(&mut world, 200);
    assert!(world.islands().all(|i| !i.awake), "the tower should be asleep by now");
    resumes_exactly("tower asleep", world, 0, 30);
}

#[test]
fn terrain_water_and_joint_scenes_resume_exactly() {
    resumes_exactly("terrain rain", common::builtin("terrain_rain.ron").0, 40, 60);
    resumes_exactly("boats", common::builtin("boats.ron").0, 30, 60);
    resumes_exactly("ragdoll pile", common::builtin("ragdoll_pile.ron").0, 40, 60);
    resumes_exactly("vehicle", common::builtin("vehicle.ron").0, 30, 60);
    resumes_exactly("bridge", common::builtin("bridge.ron").0, 30, 60);
}

#[test]
fn a_restored_state_steps_the_same_on_any_thread_count() {
    let (mut world, _) = common::builtin("rain.ron");
    common::run(&mut world, 40);
    let state = world.capture();
    let reference = hashes(&mut world, 40);
    for threads in 2..=4 {
        world.set_thread_count(threads).unwrap();
        world.restore_compact(&state).unwrap();
        assert_eq!(hashes(&mut world, 40), reference, "{threads} threads");
    }
}

#[test]
fn edits_between_capture_and_restore_are_undone() {
    let (mut world, ids) = common::builtin("rain.ron");
    common::run(&mut world, 30);
    let state = world.capture();
    let reference = hashes(&mut world, 30);
    world.restore_compact(&state).unwrap();
    // Moving, pushing and waking are not structural: the restore puts them back.
    world.set_transform(ids[5], atoll_physics::Transform::from_position(Vec3::new(0.0, 30.0, 0.0))).unwrap();
    world.apply_impulse(ids[6], Vec3::new(0.0, 50.0, 0.0)).unwrap();
    world.apply_force(ids[7], Vec3::new(10.0, 0.0, 0.0)).unwrap();
    world.restore_compact(&state).unwrap();
    assert_eq!(hashes(&mut world, 30), reference);
}

#[test]
fn a_state_of_another_structure_is_refused_and_changes_nothing() {
    let (mut world, ids) = common::builtin("rain.ron");
    common::run(&mut world, 20);
    let state = world.capture();
    let stamp = world.structure_stamp();
    common::run(&mut world, 5);
    assert_eq!(world.structure_stamp(), stamp, "stepping keeps the structure");
    world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 20.0, 0.0))).unwrap();
    assert_ne!(world.structure_stamp(), stamp);
    let before = (state_hash(&world), world.step_count(), world.edit_count());
    assert!(world.restore_compact(&state).is_err());
    assert_eq!((state_hash(&world), world.step_count(), world.edit_count()), before);
    // Destroying it again does not bring the old structure back: a new stamp, still refused.
    let last = world.body_ids().last().unwrap();
    world.destroy_body(last).unwrap();
    assert!(world.restore_compact(&state).is_err());
    assert_ne!(world.structure_stamp(), stamp);
    let _ = ids;
}

#[test]
fn edits_are_counted_and_steps_are_not() {
    let (mut world, ids) = common::builtin("rain.ron");
    let edits = world.edit_count();
    common::run(&mut world, 10);
    assert_eq!(world.edit_count(), edits, "a step is not an edit");
    world.apply_force(ids[0], Vec3::Y).unwrap();
    assert_eq!(world.edit_count(), edits + 1);
    let stamp = world.structure_stamp();
    world.set_linear_velocity(ids[1], Vec3::X).unwrap();
    world.wake_all();
    assert_eq!(world.structure_stamp(), stamp, "motion edits keep the structure");
    assert!(world.edit_count() >= edits + 3);
    // A refused edit changes nothing.
    let count = world.edit_count();
    assert!(world.apply_force(ids[0], Vec3::NAN).is_err());
    assert_eq!(world.edit_count(), count);
}

#[test]
fn a_compact_state_is_a_small_fraction_of_a_snapshot() {
    let mut world = built(builtin::tumbler(400));
    common::run(&mut world, 120);
    let state = world.capture();
    let per_body = state.bytes() as f64 / world.body_count() as f64;
    // The measured figure is in the README; this only guards against a state that grows
    // back to a world's size (several kB a body).
    assert!(per_body < 2500.0, "{per_body:.0} bytes a body");
    assert_eq!(state.step_count(), 120);
    assert_eq!(state.structure_stamp(), world.structure_stamp());
}

#[test]
fn a_change_from_plus_zero_to_minus_zero_survives_a_delta() {
    let (mut world, floor) = common::world_with_floor();
    let body =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 3.0, 0.0))).unwrap();
    let anchor = world.capture();
    // Equal under `==`, not bit for bit: the delta must still carry it.
    world.set_linear_velocity(body, Vec3::new(-0.0, 0.0, 0.0)).unwrap();
    let state = world.capture();
    let rebuilt = state.delta_from(&anchor).expect("same structure").apply(&anchor);
    world.restore_compact(&anchor).unwrap();
    world.restore_compact(&rebuilt).unwrap();
    assert!(world.body(body).unwrap().linear_velocity.x.is_sign_negative());
    assert!(world.body(floor).is_ok());
}

#[test]
fn every_built_in_scene_and_a_direct_solve_resume_exactly() {
    // Each committed scene, captured while it is busiest (its first second), and a light box
    // under one a thousand times heavier, whose group the solve projects directly every
    // substep: whatever any stage keeps from one step to the next is in the compact state
    // (`World::small_state` names every field of the world).
    for (name, scene) in builtin::committed() {
        let steps = if scene.bodies.len() > 1000 { 10 } else { 30 };
        resumes_exactly(name, built(scene), steps, steps);
    }
    let (mut world, _) = common::world_with_floor();
    let cube = Shape::cuboid(Vec3::splat(0.1)).unwrap();
    let density = |mass: f32| atoll_physics::Material { density: mass / 0.008, ..Default::default() };
    for (y, mass) in [(0.1, 1.0), (0.3, 1000.0)] {
        world
            .create_body(
                &BodyDesc::dynamic(cube.clone(), Vec3::new(0.0, y, 0.0)).with_material(density(mass)),
            )
            .unwrap();
    }
    world.step();
    assert!(world.profile().counters.direct_groups > 0, "the stack is solved directly");
    resumes_exactly("1:1000 stack", world, 20, 40);
}
