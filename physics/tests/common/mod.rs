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
