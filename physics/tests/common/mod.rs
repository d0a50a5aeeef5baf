//! Helpers shared by the scenario tests.
#![allow(dead_code)]

pub mod joint_graph;

use atoll_physics::{BodyDesc, BodyId, Scene, Shape, StepSettings, Vec3, World};
use std::path::PathBuf;

/// Loads a built-in scene from the workspace's `scenes/` folder.
pub fn builtin(file: &str) -> (World, Vec<BodyId>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(file);
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    scene.build_world().unwrap()
}

/// A built-in scene's world that keeps a recording of its inputs and steps.
pub fn builtin_recorded(file: &str) -> (World, Vec<BodyId>) {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(file);
    let scene = Scene::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    scene.build_recorded_world().unwrap()
}

/// A world with default settings and a large static floor whose top is at y = 0.
pub fn world_with_floor() -> (World, BodyId) {
    let mut world = World::new(StepSettings::default()).unwrap();
    let floor = world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(50.0, 0.5, 50.0)).unwrap(),
            Vec3::new(0.0, -0.5, 0.0),
        ))
        .unwrap();
    (world, floor)
}

/// Steps `n` times.
pub fn run(world: &mut World, n: usize) {
    for _ in 0..n {
        world.step();
    }
}

/// The energy of `bodies`: kinetic (translation and rotation) and potential in a gravity of
/// 9.81 m/s² down -y, above y = 0, J.
pub fn energy(world: &World, bodies: &[BodyId]) -> f64 {
    bodies
        .iter()
        .map(|&b| {
            let b = world.body(b).unwrap();
            let v = b.linear_velocity.as_dvec3();
            let w = (b.transform.rotation.inverse() * b.angular_velocity).as_dvec3();
            let m = b.mass as f64;
            0.5 * m * v.length_squared()
                + 0.5 * w.dot(b.inertia.as_dmat3() * w)
                + m * 9.81 * b.center_of_mass.y as f64
        })
        .sum()
}
