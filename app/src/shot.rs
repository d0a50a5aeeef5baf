//! `atoll shot`: step a scene headless, render the viewport offscreen and write a PNG.

use crate::render::{OrbitCamera, Renderer, ViewOptions, headless_gpu};
use atoll_physics::Scene;
use std::path::PathBuf;

/// What `atoll shot` was asked to do.
#[derive(Debug, PartialEq)]
pub struct ShotOptions {
    /// The scene file.
    pub scene: PathBuf,
    /// Steps to simulate before rendering.
    pub steps: u32,
    /// Where to write the PNG.
    pub out: PathBuf,
    /// Image width and height in pixels.
    pub size: [u32; 2],
    /// Colouring and overlays, as the editor's View menu sets them.
    pub view: ViewOptions,
}

impl ShotOptions {
    /// Defaults: no steps, 1280×720.
    pub fn new(scene: PathBuf, out: PathBuf) -> Self {
        Self { scene, steps: 0, out, size: [1280, 720], view: ViewOptions::default() }
    }
}

/// Runs `atoll shot`.
pub fn shot(options: &ShotOptions) -> Result<(), String> {
    let scene = Scene::load(&options.scene).map_err(|e| e.to_string())?;
    let (mut world, _) = scene.build_world().map_err(|e| format!("{}: {e}", options.scene.display()))?;
    for _ in 0..options.steps {
        world.step();
    }
    let gpu = headless_gpu()?;
    let mut renderer = Renderer::new(&gpu.device, &gpu.queue, options.size);
    let time_to_sleep = world.settings().time_to_sleep;
    renderer.set_view(&ViewOptions { time_to_sleep, ..options.view.clone() });
    let camera = match &scene.view {
        Some(view) => OrbitCamera::from_view(view),
        None => {
            let mut camera = OrbitCamera::default();
            camera.frame_world(&world, options.size[0] as f32 / options.size[1] as f32);
            camera
        }
    };
    renderer.render(&world, &camera);
    renderer
        .read_back_rgba()
        .save(&options.out)
        .map_err(|e| format!("could not write {}: {e}", options.out.display()))?;
    println!(
        "{}: step {}, {} bodies, {}×{} on {} ({:?})",
        options.out.display(),
        world.step_count(),
        world.body_count(),
        options.size[0],
        options.size[1],
        gpu.adapter_info.name,
        gpu.adapter_info.backend
    );
    Ok(())
}
