//! `atoll bench`: the CPU cost of one editor frame on a live scene, without a window.
//!
//! Each frame runs the real editor UI ([`Editor::ui`]) in an egui context, tessellates it and
//! hands it to egui's wgpu renderer, exactly as eframe does. The world is stepped between
//! frames, outside the timed region, so bodies move (instances and lines change every frame)
//! but the simulation step is not counted. The GPU is waited on between frames, also outside the
//! timed region, so GPU time (lavapipe's rasterising on this machine) is not counted either.

use crate::editor::{Editor, EditorState};
use crate::render::{Overlays, RenderCpuTimes};
use atoll_physics::StepSettings;
use std::path::PathBuf;
use std::time::Instant;

/// What to measure.
#[derive(Clone, Debug, PartialEq)]
pub struct FrameBenchOptions {
    /// The scene file.
    pub scene: PathBuf,
    /// Timed frames.
    pub frames: u32,
    /// Untimed frames first (pipelines, fonts and buffers warm up).
    pub warmup: u32,
    /// Window size in points (one pixel per point).
    pub size: [u32; 2],
    /// Overlays drawn during the run.
    pub overlays: Overlays,
    /// Print JSON instead of a table.
    pub json: bool,
}

impl FrameBenchOptions {
    /// 300 frames after 30 warm-up frames, in a 1280×800 window, no overlays.
    pub fn new(scene: PathBuf) -> FrameBenchOptions {
        FrameBenchOptions {
            scene,
            frames: 300,
            warmup: 30,
            size: [1280, 800],
            overlays: Overlays::default(),
            json: false,
        }
    }
}

/// The time of one frame, split by where it went (milliseconds).
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct FrameSample {
    /// The CPU side of the frame: everything below except the two `queue.submit` calls.
    pub cpu_ms: f64,
    /// The UI layout outside the viewport render (panels, plots, tables, bars).
    pub ui_ms: f64,
    /// Building and uploading the body instances.
    pub instances_ms: f64,
    /// Building and uploading the overlay lines.
    pub lines_ms: f64,
    /// Recording the viewport's render pass.
    pub viewport_record_ms: f64,
    /// Turning egui's shapes into triangles.
    pub tessellate_ms: f64,
    /// Uploading egui's textures and buffers and recording its pass.
    pub egui_record_ms: f64,
    /// The viewport's and egui's `queue.submit`. Lavapipe rasterises inside it, so on a
    /// software adapter this is GPU time; a hardware driver only hands the commands over.
    pub submit_ms: f64,
}

/// Summary of a run.
#[derive(Clone, Debug, serde::Serialize)]
pub struct FrameReport {
    /// Scene name.
    pub scene: String,
    /// Bodies in the world.
    pub bodies: usize,
    /// Awake bodies, smallest over the timed frames.
    pub min_awake: usize,
    /// The adapter that drew (name and backend).
    pub adapter: String,
    /// Timed frames.
    pub frames: u32,
    /// Median of each field over the timed frames.
    pub median: FrameSample,
    /// 95th percentile of each field.
    pub p95: FrameSample,
    /// Largest CPU side of a frame.
    pub max_cpu_ms: f64,
}

/// Runs the benchmark and prints its report.
pub fn run(options: &FrameBenchOptions) -> Result<(), String> {
    let report = measure(options)?;
    if options.json {
        println!("{}", serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?);
    } else {
        print_table(&report);
    }
    Ok(())
}

/// Runs the editor for the warm-up and timed frames and summarises the timed ones.
pub fn measure(options: &FrameBenchOptions) -> Result<FrameReport, String> {
    let render_state = headless_render_state()?;
    let adapter = render_state.adapter.get_info();
    let mut state = EditorState::open(&options.scene)?;
    // Every body stays awake: the point is the cost of drawing a moving scene.
    let settings = StepSettings { sleep_enabled: false, ..*state.sim.world.settings() };
    state.apply_settings(settings)?;
    state.view.options.overlays = options.overlays;
    let mut editor = Editor::new(state, render_state.clone());
    let ctx = egui::Context::default();
    let mut egui_frame = EguiFrame::new(render_state, options.size);

    let mut samples = Vec::with_capacity(options.frames as usize);
    let mut min_awake = usize::MAX;
    for frame in 0..options.warmup + options.frames {
        editor.state.step_once();
        let sample = egui_frame.run(&ctx, &mut editor);
        egui_frame.wait_for_gpu()?;
        if frame >= options.warmup {
            samples.push(sample);
            min_awake = min_awake.min(awake_bodies(&editor.state));
        }
    }
    let pick = |quantile: f64| summarise(&samples, quantile);
    Ok(FrameReport {
        scene: editor.state.doc.scene_name.clone(),
        bodies: editor.state.sim.world.body_count(),
        min_awake,
        adapter: format!("{} ({:?})", adapter.name, adapter.backend),
        frames: options.frames,
        median: pick(0.5),
        p95: pick(0.95),
        max_cpu_ms: samples.iter().map(|s| s.cpu_ms).fold(0.0, f64::max),
    })
}

fn awake_bodies(state: &EditorState) -> usize {
    let world = &state.sim.world;
    world.body_ids().filter(|&id| world.is_awake(id).unwrap_or(false)).count()
}

/// A wgpu device for egui without a window or surface; any adapter, software ones included.
fn headless_render_state() -> Result<egui_wgpu::RenderState, String> {
    let setup = egui_wgpu::WgpuSetup::CreateNew(egui_wgpu::WgpuSetupCreateNew::without_display_handle());
    let instance = pollster::block_on(setup.new_instance());
    let config = egui_wgpu::WgpuConfiguration { wgpu_setup: setup, ..Default::default() };
    pollster::block_on(egui_wgpu::RenderState::create(
        &config,
        &instance,
        None,
        egui_wgpu::RendererOptions::default(),
    ))
    .map_err(|e| crate::render::gpu::no_adapter(&e))
}

/// What eframe does each frame, minus the window: run the UI, tessellate, upload, submit into
/// an offscreen texture of the window's size.
struct EguiFrame {
    render_state: egui_wgpu::RenderState,
    size: [u32; 2],
    target: wgpu::TextureView,
}

impl EguiFrame {
    fn new(render_state: egui_wgpu::RenderState, size: [u32; 2]) -> EguiFrame {
        let texture = render_state.device.create_texture(&wgpu::TextureDescriptor {
            label: Some("bench window"),
            size: wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: render_state.target_format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT,
            view_formats: &[],
        });
        let target = texture.create_view(&wgpu::TextureViewDescriptor::default());
        EguiFrame { render_state, size, target }
    }

    fn run(&mut self, ctx: &egui::Context, editor: &mut Editor) -> FrameSample {
        let screen_rect =
            egui::Rect::from_min_size(egui::Pos2::ZERO, egui::vec2(self.size[0] as f32, self.size[1] as f32));
        let input = egui::RawInput { screen_rect: Some(screen_rect), ..Default::default() };
        let start = Instant::now();
        let output = ctx.run_ui(input, |ui| editor.ui(ui));
        let laid_out = Instant::now();
        let primitives = ctx.tessellate(output.shapes, output.pixels_per_point);
        let tessellated = Instant::now();
        let egui_submit_ms = self.submit(&primitives, output.textures_delta, output.pixels_per_point);
        let done = Instant::now();

        let ms = |from: Instant, to: Instant| (to - from).as_secs_f64() * 1e3;
        let viewport: RenderCpuTimes = editor.viewport().render_cpu_times();
        let viewport_ms = viewport.instances_ms + viewport.lines_ms + viewport.record_ms + viewport.submit_ms;
        let submit_ms = viewport.submit_ms + egui_submit_ms;
        FrameSample {
            cpu_ms: ms(start, done) - submit_ms,
            ui_ms: (ms(start, laid_out) - viewport_ms).max(0.0),
            instances_ms: viewport.instances_ms,
            lines_ms: viewport.lines_ms,
            viewport_record_ms: viewport.record_ms,
            tessellate_ms: ms(laid_out, tessellated),
            egui_record_ms: ms(tessellated, done) - egui_submit_ms,
            submit_ms,
        }
    }

    fn submit(
        &mut self,
        primitives: &[egui::ClippedPrimitive],
        mut textures: egui::TexturesDelta,
        pixels_per_point: f32,
    ) -> f64 {
        let (device, queue) = (&self.render_state.device, &self.render_state.queue);
        let mut renderer = self.render_state.renderer.write();
        // Drained, not borrowed: epaint checks in debug builds that every delta was applied.
        for (id, deltas) in textures.set.drain() {
            for delta in &deltas {
                renderer.update_texture(device, queue, id, delta);
            }
        }
        let screen = egui_wgpu::ScreenDescriptor { size_in_pixels: self.size, pixels_per_point };
        let mut encoder = device.create_command_encoder(&Default::default());
        let user_buffers = renderer.update_buffers(device, queue, &mut encoder, primitives, &screen);
        {
            let mut pass = encoder
                .begin_render_pass(&wgpu::RenderPassDescriptor {
                    label: Some("bench egui"),
                    color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                        view: &self.target,
                        resolve_target: None,
                        ops: wgpu::Operations {
                            load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                            store: wgpu::StoreOp::Store,
                        },
                        depth_slice: None,
                    })],
                    ..Default::default()
                })
                .forget_lifetime();
            renderer.render(&mut pass, primitives, &screen);
        }
        let commands = encoder.finish();
        let recorded = Instant::now();
        queue.submit(user_buffers.into_iter().chain([commands]));
        let submit_ms = recorded.elapsed().as_secs_f64() * 1e3;
        for id in textures.free.drain() {
            renderer.free_texture(&id);
        }
        submit_ms
    }

    /// Blocks until the GPU has drawn everything submitted, like a swap chain's wait.
    fn wait_for_gpu(&self) -> Result<(), String> {
        self.render_state
            .device
            .poll(wgpu::PollType::Wait { submission_index: None, timeout: None })
            .map(|_| ())
            .map_err(|e| format!("waiting for the GPU failed: {e}"))
    }
}

/// The `quantile` of every field, each taken on its own.
fn summarise(samples: &[FrameSample], quantile: f64) -> FrameSample {
    let field = |get: fn(&FrameSample) -> f64| {
        let mut values: Vec<f64> = samples.iter().map(get).collect();
        values.sort_by(f64::total_cmp);
        let index = ((values.len().max(1) - 1) as f64 * quantile).round() as usize;
        values.get(index).copied().unwrap_or(0.0)
    };
    FrameSample {
        cpu_ms: field(|s| s.cpu_ms),
        ui_ms: field(|s| s.ui_ms),
        instances_ms: field(|s| s.instances_ms),
        lines_ms: field(|s| s.lines_ms),
        viewport_record_ms: field(|s| s.viewport_record_ms),
        tessellate_ms: field(|s| s.tessellate_ms),
        egui_record_ms: field(|s| s.egui_record_ms),
        submit_ms: field(|s| s.submit_ms),
    }
}

fn print_table(report: &FrameReport) {
    println!(
        "{}: {} bodies, at least {} awake; {} timed frames on {}",
        report.scene, report.bodies, report.min_awake, report.frames, report.adapter
    );
    println!("{:<38} {:>9} {:>9}", "per frame (ms)", "median", "p95");
    type Field = fn(&FrameSample) -> f64;
    let rows: [(&str, Field); 8] = [
        ("UI layout (panels, plots, bars)", |s| s.ui_ms),
        ("instances: build + upload", |s| s.instances_ms),
        ("overlay lines: build + upload", |s| s.lines_ms),
        ("viewport pass: record", |s| s.viewport_record_ms),
        ("egui tessellation", |s| s.tessellate_ms),
        ("egui upload + record", |s| s.egui_record_ms),
        ("CPU side of the frame (sum of above)", |s| s.cpu_ms),
        ("queue.submit (GPU work on lavapipe)", |s| s.submit_ms),
    ];
    for (name, get) in rows {
        println!("{name:<38} {:>9.3} {:>9.3}", get(&report.median), get(&report.p95));
    }
    println!("largest CPU side of a frame: {:.3} ms", report.max_cpu_ms);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantiles_pick_from_the_sorted_values() {
        let samples: Vec<FrameSample> =
            (1..=21).rev().map(|i| FrameSample { cpu_ms: i as f64, ..Default::default() }).collect();
        assert_eq!(summarise(&samples, 0.5).cpu_ms, 11.0);
        assert_eq!(summarise(&samples, 0.95).cpu_ms, 20.0);
        assert_eq!(summarise(&[], 0.5).cpu_ms, 0.0);
    }
}
