//! The 3D viewport renderer: draws a [`World`] seen by an [`OrbitCamera`] into an offscreen
//! target of its own. It needs no window, so the editor, `atoll shot` and the tests share it.

pub mod camera;
pub mod gpu;
pub mod instances;
pub mod joint_lines;
pub mod lines;
pub mod mesh;
pub mod palette;
pub mod pipelines;
pub mod readback;
pub mod target;
pub mod terrain;
pub mod terrain_lines;
pub mod view;
pub mod wireframe;

pub use camera::OrbitCamera;
pub use gpu::{HeadlessGpu, headless_gpu};
pub use view::{ColourMode, Overlays, ViewOptions};

use atoll_physics::{BodyId, World};
use glam::Vec3;
use instances::{Instance, MeshKey};
use lines::LineVertex;
use pipelines::{Globals, Pipelines};
use std::collections::{BTreeMap, HashMap};
use std::time::Instant;
use target::Target;
use wgpu::util::DeviceExt;

/// Zenith colour of the background (sRGB).
pub const SKY_TOP: [u8; 3] = [52, 84, 132];
/// Horizon colour of the background and of the fog (sRGB).
pub const SKY_HORIZON: [u8; 3] = [178, 192, 210];
/// Height of the ground grid plane: 2 mm above y = 0, where the built-in scenes put the top of
/// their ground box, so the lines lie on the ground instead of fighting it in the depth test.
pub const GRID_HEIGHT: f32 = 0.002;

/// A mesh uploaded to the GPU.
struct GpuMesh {
    vertices: wgpu::Buffer,
    indices: wgpu::Buffer,
    index_count: u32,
}

/// Draws worlds into its own colour + depth target (4× MSAA, resolved to one sample).
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    pipelines: Pipelines,
    target: Target,
    globals: wgpu::Buffer,
    globals_bind_group: wgpu::BindGroup,
    meshes: HashMap<MeshKey, GpuMesh>,
    instances: wgpu::Buffer,
    lines: wgpu::Buffer,
    /// The overlay line vertices, kept between frames so their memory is reused.
    line_vertices: Vec<LineVertex>,
    /// The selected body's instance, drawn alone into the selection mask.
    selection: wgpu::Buffer,
    /// Group 1 of the outline pass: the target's selection mask.
    mask_bind_group: wgpu::BindGroup,
    view: ViewOptions,
    cpu_times: RenderCpuTimes,
    /// The terrain's chunk meshes, rebuilt when the world's terrain changes.
    terrain: terrain::TerrainGpu,
}

/// Where the CPU time of the last [`Renderer::render`] went, in milliseconds. GPU time is not
/// in it: `submit_ms` is recording and handing over the commands, not executing them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct RenderCpuTimes {
    /// Building the per-body instances (pose, colour) and uploading them.
    pub instances_ms: f64,
    /// Building the overlay lines and uploading them.
    pub lines_ms: f64,
    /// Recording the render pass.
    pub record_ms: f64,
    /// `queue.submit`: a hand-over on a hardware GPU, but Mesa's lavapipe rasterises inside it,
    /// so on a software adapter this is GPU time.
    pub submit_ms: f64,
}

impl Renderer {
    /// Builds the pipelines and a target of `size` pixels on `device`.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, size: [u32; 2]) -> Renderer {
        let pipelines = Pipelines::new(device);
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("viewport globals"),
            size: size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("viewport globals"),
            layout: &pipelines.globals_layout,
            entries: &[wgpu::BindGroupEntry { binding: 0, resource: globals.as_entire_binding() }],
        });
        let target = Target::new(device, size);
        Renderer {
            device: device.clone(),
            queue: queue.clone(),
            mask_bind_group: mask_bind_group(device, &pipelines, &target),
            target,
            selection: instance_buffer(device, 1),
            line_vertices: Vec::new(),
            instances: instance_buffer(device, 256),
            lines: line_buffer(device, 1024),
            pipelines,
            globals,
            globals_bind_group,
            meshes: HashMap::new(),
            view: ViewOptions { time_to_sleep: 0.5, ..Default::default() },
            cpu_times: RenderCpuTimes::default(),
            terrain: terrain::TerrainGpu::default(),
        }
    }

    /// Size of the target in pixels.
    pub fn size(&self) -> [u32; 2] {
        self.target.size
    }

    /// Reallocates the target when `size` differs from the current one. Returns whether it did
    /// (views handed out before are then stale).
    pub fn resize(&mut self, size: [u32; 2]) -> bool {
        let size = size.map(|s| s.max(1));
        if size == self.target.size {
            return false;
        }
        self.target = Target::new(&self.device, size);
        self.mask_bind_group = mask_bind_group(&self.device, &self.pipelines, &self.target);
        true
    }

    /// Highlights and outlines these bodies in the next renders.
    pub fn set_selection(&mut self, selected: &[BodyId]) {
        self.view.selected = selected.to_vec();
    }

    /// Sets the colouring, overlays and highlights of the next renders.
    pub fn set_view(&mut self, view: &ViewOptions) {
        if *view != self.view {
            self.view.clone_from(view);
        }
    }

    /// The resolved colour texture (what [`Renderer::render`] draws into).
    pub fn colour_texture(&self) -> &wgpu::Texture {
        &self.target.resolved
    }

    /// A view of the resolved colour texture for egui (`Rgba8Unorm`: egui decodes sRGB itself).
    pub fn egui_view(&self) -> &wgpu::TextureView {
        &self.target.egui_view
    }

    /// Renders `world` from `camera` and submits the work; returns the resolved colour texture.
    pub fn render(&mut self, world: &World, camera: &OrbitCamera) -> &wgpu::Texture {
        self.render_with_ghosts(world, None, camera)
    }

    /// Renders `world` as [`Renderer::render`] does, with the bodies of `ghosts` (another
    /// branch of its timeline) that stand apart from this world's drawn over it as translucent
    /// ghosts.
    pub fn render_with_ghosts(
        &mut self,
        world: &World,
        ghosts: Option<&World>,
        camera: &OrbitCamera,
    ) -> &wgpu::Texture {
        let start = Instant::now();
        self.write_globals(camera);
        self.terrain.sync(&self.device, world);
        let mut batches = instances::collect(world, &self.view);
        if let Some(other) = ghosts {
            instances::collect_ghosts(&mut batches, world, other);
        }
        // The opaque instances first, then the sensors', then the ghosts', in one buffer.
        let all: Vec<Instance> = (batches.by_mesh.values())
            .chain(batches.sensors.values())
            .chain(batches.ghosts.values())
            .flatten()
            .copied()
            .collect();
        self.upload_instances(&all);
        for key in batches.meshes() {
            self.ensure_mesh(*key, world);
        }
        // A ghost's hull may be one this world lacks.
        if let Some(other) = ghosts {
            for key in batches.ghosts.keys() {
                self.ensure_mesh(*key, other);
            }
        }
        let instanced = Instant::now();
        let mut line_vertices = std::mem::take(&mut self.line_vertices);
        lines::build_into(&mut line_vertices, world, &self.view.overlays, self.view.marker);
        terrain_lines::append(&mut line_vertices, world, &self.view);
        // The joint lines go last in the same buffer and are drawn without the depth test.
        let depth_tested = line_vertices.len() as u32;
        joint_lines::append_view(&mut line_vertices, world, &self.view);
        self.upload_lines(&line_vertices);
        let lined = Instant::now();

        let mut encoder = self.device.create_command_encoder(&Default::default());
        let outline =
            self.draw_selection_mask(&mut encoder, world).then(|| self.outline_scissor(world, camera));
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("viewport"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &self.target.msaa_view,
                    depth_slice: None,
                    resolve_target: Some(&self.target.resolved_view),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        // Only the resolved image is read afterwards.
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &self.target.depth_view,
                    // Reversed depth: 0 is infinitely far.
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(0.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.globals_bind_group, &[]);
            pass.set_pipeline(&self.pipelines.background);
            pass.draw(0..3, 0..1);

            pass.set_pipeline(&self.pipelines.shapes);
            pass.set_vertex_buffer(1, self.instances.slice(..));
            let opaque = draw_batches(&mut pass, &self.meshes, &batches.by_mesh, 0);

            pass.set_pipeline(&self.pipelines.terrain);
            self.terrain.draw_solid(&mut pass);

            // The grid goes after the opaque surfaces: it blends over the ground and is hidden
            // by bodies and terrain in front.
            pass.set_pipeline(&self.pipelines.grid);
            pass.draw(0..6, 0..1);

            // Water last of the surfaces: blended over whatever lies under it.
            if self.terrain.has_water() {
                pass.set_pipeline(&self.pipelines.water);
                self.terrain.draw_water(&mut pass);
            }

            // Sensors over everything solid, translucent (their instances follow the opaque
            // ones in the buffer).
            if !batches.sensors.is_empty() || !batches.ghosts.is_empty() {
                pass.set_pipeline(&self.pipelines.sensors);
                pass.set_vertex_buffer(1, self.instances.slice(..));
                let sensed = draw_batches(&mut pass, &self.meshes, &batches.sensors, opaque);
                // The other branch's ghosts the same way (their instances follow the sensors').
                draw_batches(&mut pass, &self.meshes, &batches.ghosts, sensed);
            }

            // Overlays over everything, still hidden by bodies in front of them.
            if !line_vertices.is_empty() {
                pass.set_vertex_buffer(0, self.lines.slice(..));
                pass.set_pipeline(&self.pipelines.lines);
                pass.draw(0..depth_tested, 0..1);
                // Joints over the bodies: their anchors sit on or inside surfaces.
                pass.set_pipeline(&self.pipelines.lines_on_top);
                pass.draw(depth_tested..line_vertices.len() as u32, 0..1);
            }

            // The selection outline goes over everything, bodies in front included.
            if let Some([x, y, w, h]) = outline {
                // Only the pixels around the selection can be outline: the scissor keeps the
                // full-screen pass's 25 mask reads per pixel off the rest of the view.
                pass.set_scissor_rect(x, y, w, h);
                pass.set_pipeline(&self.pipelines.outline);
                pass.set_bind_group(1, &self.mask_bind_group, &[]);
                pass.draw(0..3, 0..1);
            }
        }
        self.line_vertices = line_vertices;
        let commands = encoder.finish();
        let recorded = Instant::now();
        self.queue.submit([commands]);
        let submitted = Instant::now();
        self.evict_unused_meshes(&batches);
        let ms = |from: Instant, to: Instant| (to - from).as_secs_f64() * 1e3;
        self.cpu_times = RenderCpuTimes {
            instances_ms: ms(start, instanced),
            lines_ms: ms(instanced, lined),
            record_ms: ms(lined, recorded),
            submit_ms: ms(recorded, submitted),
        };
        &self.target.resolved
    }

    /// Where the CPU time of the last render went.
    pub fn cpu_times(&self) -> RenderCpuTimes {
        self.cpu_times
    }

    /// The terrain's GPU meshes: the editor records its edits there so only the chunks an edit
    /// touched are meshed again.
    pub fn terrain_mut(&mut self) -> &mut terrain::TerrainGpu {
        &mut self.terrain
    }

    /// What the last terrain rebuild did.
    pub fn terrain_rebuild(&self) -> terrain::TerrainRebuild {
        self.terrain.last_rebuild()
    }

    /// The pixel rectangle (x, y, width, height) the selection's outline can touch: its AABB's
    /// projection grown by the outline width, clamped to the target; the whole target when a
    /// corner lies behind the camera.
    fn outline_scissor(&self, world: &World, camera: &OrbitCamera) -> [u32; 4] {
        let [w, h] = self.target.size;
        let whole = [0, 0, w, h];
        let Some(bounds) =
            self.view.selected.iter().filter_map(|id| world.aabb(*id).ok()).reduce(|a, b| a.union(&b))
        else {
            return whole;
        };
        let size = glam::Vec2::new(w as f32, h as f32);
        let mut lo = glam::Vec2::splat(f32::MAX);
        let mut hi = glam::Vec2::splat(f32::MIN);
        for i in 0..8 {
            let pick = |bit: usize, a: f32, b: f32| if i & bit == 0 { a } else { b };
            let corner = Vec3::new(
                pick(1, bounds.min.x, bounds.max.x),
                pick(2, bounds.min.y, bounds.max.y),
                pick(4, bounds.min.z, bounds.max.z),
            );
            let Some(p) = camera.project(corner, size) else { return whole };
            (lo, hi) = (lo.min(p), hi.max(p));
        }
        // The outline reaches 2 pixels out (`shaders/outline.wgsl`); a little more for rounding.
        let lo = (lo - 4.0).max(glam::Vec2::ZERO).min(size);
        let hi = (hi + 4.0).max(glam::Vec2::ZERO).min(size);
        let x = (lo.x as u32).min(w - 1);
        let y = (lo.y as u32).min(h - 1);
        let width = (hi.x.ceil() as u32).saturating_sub(x).clamp(1, w - x);
        let height = (hi.y.ceil() as u32).saturating_sub(y).clamp(1, h - y);
        [x, y, width, height]
    }

    /// Draws the selected bodies' silhouettes into the selection mask. Returns whether there
    /// was one to draw (a live selected body whose mesh is uploaded).
    fn draw_selection_mask(&mut self, encoder: &mut wgpu::CommandEncoder, world: &World) -> bool {
        let mut by_mesh: BTreeMap<MeshKey, Vec<Instance>> = BTreeMap::new();
        for id in &self.view.selected {
            let Ok(shapes) = world.body_shapes(*id) else { continue };
            for (shape, pose) in shapes {
                let (key, scale) = instances::mesh_for(shape);
                if !self.meshes.contains_key(&key) {
                    continue;
                }
                by_mesh.entry(key).or_default().push(Instance {
                    translation: pose.position.into(),
                    rotation: pose.rotation.into(),
                    scale: scale.into(),
                    colour: [1.0; 4],
                });
            }
        }
        if by_mesh.is_empty() {
            return false;
        }
        let all: Vec<Instance> = by_mesh.values().flatten().copied().collect();
        if self.selection.size() < size_of_val(all.as_slice()) as u64 {
            self.selection = instance_buffer(&self.device, all.len().next_power_of_two());
        }
        self.queue.write_buffer(&self.selection, 0, bytemuck::cast_slice(&all));
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("viewport selection mask"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &self.target.mask_view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.globals_bind_group, &[]);
        pass.set_pipeline(&self.pipelines.selection_mask);
        pass.set_vertex_buffer(1, self.selection.slice(..));
        draw_batches(&mut pass, &self.meshes, &by_mesh, 0);
        true
    }

    /// Copies the last render back to the CPU as an sRGB RGBA image (blocks until the GPU is done).
    pub fn read_back_rgba(&self) -> image::RgbaImage {
        readback::texture_to_rgba(&self.device, &self.queue, &self.target.resolved, self.target.size)
    }

    fn write_globals(&self, camera: &OrbitCamera) {
        let [w, h] = self.target.size;
        let view_proj = camera.view_projection(w as f32 / h as f32);
        let with_w = |rgb: [f32; 3]| [rgb[0], rgb[1], rgb[2], 1.0];
        // Fog scales with the camera distance so every scene size gets the same depth cue.
        let fog_start = camera.distance * 1.2;
        let globals = Globals {
            view_proj: view_proj.to_cols_array_2d(),
            inverse_view_proj: view_proj.inverse().to_cols_array_2d(),
            eye: camera.eye().extend(1.0).into(),
            light_dir: Vec3::new(-0.45, 1.0, 0.35).normalize().extend(0.0).into(),
            sky_top: with_w(palette::linear(SKY_TOP)),
            sky_horizon: with_w(palette::linear(SKY_HORIZON)),
            fog: [fog_start, fog_start + camera.distance * 5.0, GRID_HEIGHT, 0.0],
        };
        self.queue.write_buffer(&self.globals, 0, bytemuck::bytes_of(&globals));
    }

    fn upload_instances(&mut self, all: &[Instance]) {
        let needed = all.len().max(1);
        if (self.instances.size() as usize) < needed * size_of::<Instance>() {
            // Grow to the next power of two so a scene that spawns bodies reallocates rarely.
            self.instances = instance_buffer(&self.device, needed.next_power_of_two());
        }
        self.queue.write_buffer(&self.instances, 0, bytemuck::cast_slice(all));
    }

    fn upload_lines(&mut self, vertices: &[LineVertex]) {
        if vertices.is_empty() {
            return;
        }
        if (self.lines.size() as usize) < std::mem::size_of_val(vertices) {
            self.lines = line_buffer(&self.device, vertices.len().next_power_of_two());
        }
        self.queue.write_buffer(&self.lines, 0, bytemuck::cast_slice(vertices));
    }

    fn ensure_mesh(&mut self, key: MeshKey, world: &World) {
        if self.meshes.contains_key(&key) {
            return;
        }
        let data = match key {
            MeshKey::Sphere => mesh::unit_sphere(),
            MeshKey::Box => mesh::unit_box(),
            MeshKey::Capsule { half_height, radius } => {
                mesh::capsule(f32::from_bits(half_height), f32::from_bits(radius))
            }
            MeshKey::Hull(_) => {
                // Find a body with this hull; the key is a hash of its vertices.
                let hull = world
                    .body_ids()
                    .flat_map(|id| world.body_shapes(id).into_iter().flatten())
                    .find_map(|(shape, _)| match shape {
                        atoll_physics::Shape::Hull(h) if instances::mesh_for(shape).0 == key => {
                            Some(h.clone())
                        }
                        _ => None,
                    });
                match hull {
                    Some(h) => mesh::hull(&h),
                    None => return,
                }
            }
        };
        let vertices = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh vertices"),
            contents: bytemuck::cast_slice(&data.vertices),
            usage: wgpu::BufferUsages::VERTEX,
        });
        let indices = self.device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
            label: Some("mesh indices"),
            contents: bytemuck::cast_slice(&data.indices),
            usage: wgpu::BufferUsages::INDEX,
        });
        self.meshes.insert(key, GpuMesh { vertices, indices, index_count: data.indices.len() as u32 });
    }

    /// Drops meshes no body uses any more once the cache grows, so loading scene after scene with
    /// different capsules or hulls does not keep every mesh alive forever.
    fn evict_unused_meshes(&mut self, batches: &instances::Batches) {
        const KEEP_UNUSED_BELOW: usize = 64;
        if self.meshes.len() > KEEP_UNUSED_BELOW {
            self.meshes.retain(|key, _| batches.meshes().any(|k| k == key));
        }
    }
}

/// Draws each mesh's instances of `batches`, which lie in the bound instance buffer in map
/// order from index `first`; returns the index after the last.
fn draw_batches(
    pass: &mut wgpu::RenderPass<'_>,
    meshes: &HashMap<MeshKey, GpuMesh>,
    batches: &BTreeMap<MeshKey, Vec<Instance>>,
    mut first: u32,
) -> u32 {
    for (key, list) in batches {
        let mesh = &meshes[key];
        let count = list.len() as u32;
        pass.set_vertex_buffer(0, mesh.vertices.slice(..));
        pass.set_index_buffer(mesh.indices.slice(..), wgpu::IndexFormat::Uint32);
        pass.draw_indexed(0..mesh.index_count, 0, first..first + count);
        first += count;
    }
    first
}

fn mask_bind_group(device: &wgpu::Device, pipelines: &Pipelines, target: &Target) -> wgpu::BindGroup {
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some("viewport selection mask"),
        layout: &pipelines.mask_layout,
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: wgpu::BindingResource::TextureView(&target.mask_view),
        }],
    })
}

fn instance_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("viewport instances"),
        size: (capacity * size_of::<Instance>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}

fn line_buffer(device: &wgpu::Device, capacity: usize) -> wgpu::Buffer {
    device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("viewport overlay lines"),
        size: (capacity * size_of::<LineVertex>()) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    })
}
