//! Helpers shared by the scenario tests.
#![allow(dead_code)]

pub mod joint_graph;

use atoll_physics::scene::builtin;
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

/// The scenes the benchmark runs, at its sizes (`atoll-bench`), with its settings: dt 1/60, 4
/// substeps (8 for the joint scenes), sleeping off.
pub fn benchmark_scenes() -> Vec<(&'static str, Scene)> {
    let mut scenes = vec![
        ("pyramid", builtin::plane_pyramid(40)),
        ("pyramid3d", builtin::pyramid_3d(20)),
        ("pyramids", builtin::pyramid_field(14, 14, 10)),
        ("rain", builtin::rain_boxes_balls(2000)),
        ("terrain-rain", builtin::terrain_rain(1000)),
        ("joint-grid", builtin::joint_grid(100)),
        ("chain-bridge", builtin::chain_bridge(400)),
        ("ragdoll-rain", builtin::ragdoll_rain(100)),
        ("free-fall", builtin::free_fall(5000)),
        ("tumbler", builtin::tumbler(2000)),
    ];
    for (name, scene) in &mut scenes {
        scene.settings.dt = 1.0 / 60.0;
        scene.settings.substeps =
            if name.contains("joint") || name.contains("bridge") || name.contains("ragdoll") { 8 } else { 4 };
        scene.settings.sleep_enabled = false;
    }
    scenes
}
