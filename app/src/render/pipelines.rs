//! The render pipelines of the viewport (background, bodies, terrain, water, grid, overlay
//! lines, selection outline) and the shared uniform layout they read.

use super::instances::Instance;
use super::lines::LineVertex;
use super::mesh::Vertex;
use super::target::{COLOUR_FORMAT, DEPTH_FORMAT, MASK_FORMAT, SAMPLES};
use super::terrain::TerrainVertex;

const COMMON_WGSL: &str = include_str!("../../../shaders/common.wgsl");
const BACKGROUND_WGSL: &str = include_str!("../../../shaders/background.wgsl");
const SHAPES_WGSL: &str = include_str!("../../../shaders/shapes.wgsl");
/// How opaque a sensor is drawn: enough to see its extent, little enough to see what is in it.
const SENSOR_ALPHA: f32 = 0.3;
const GRID_WGSL: &str = include_str!("../../../shaders/grid.wgsl");
const LINES_WGSL: &str = include_str!("../../../shaders/lines.wgsl");
const SELECTION_MASK_WGSL: &str = include_str!("../../../shaders/selection_mask.wgsl");
const OUTLINE_WGSL: &str = include_str!("../../../shaders/outline.wgsl");
const TERRAIN_WGSL: &str = include_str!("../../../shaders/terrain.wgsl");

/// The per-frame uniforms, laid out exactly as `Globals` in `shaders/common.wgsl`.
#[repr(C)]
#[derive(Clone, Copy, Debug, bytemuck::Pod, bytemuck::Zeroable)]
pub struct Globals {
    /// World to clip.
    pub view_proj: [[f32; 4]; 4],
    /// Clip to world.
    pub inverse_view_proj: [[f32; 4]; 4],
    /// Camera position (w unused).
    pub eye: [f32; 4],
    /// Unit direction towards the light (w unused).
    pub light_dir: [f32; 4],
    /// Zenith colour, linear.
    pub sky_top: [f32; 4],
    /// Horizon colour, linear; also the fog colour.
    pub sky_horizon: [f32; 4],
    /// Fog start, fog end, grid height, unused.
    pub fog: [f32; 4],
}

/// The pipelines and the bind group layout of [`Globals`].
pub struct Pipelines {
    /// Layout of group 0 (the uniform buffer).
    pub globals_layout: wgpu::BindGroupLayout,
    /// Full-screen sky gradient.
    pub background: wgpu::RenderPipeline,
    /// Instanced, lit body meshes.
    pub shapes: wgpu::RenderPipeline,
    /// The same for sensors: translucent, blended over what is behind them, depth-tested but
    /// not written (a sensor does not hide what is inside it).
    pub sensors: wgpu::RenderPipeline,
    /// Alpha-blended ground grid.
    pub grid: wgpu::RenderPipeline,
    /// Debug overlay line segments.
    pub lines: wgpu::RenderPipeline,
    /// The same lines without the depth test (the joints overlay, over the bodies).
    pub lines_on_top: wgpu::RenderPipeline,
    /// The selected body's silhouette into the selection mask.
    pub selection_mask: wgpu::RenderPipeline,
    /// The selection outline traced from the mask, over the scene.
    pub outline: wgpu::RenderPipeline,
    /// Layout of group 1 of the outline pipeline (the mask texture).
    pub mask_layout: wgpu::BindGroupLayout,
    /// Opaque terrain triangles.
    pub terrain: wgpu::RenderPipeline,
    /// Water triangles, blended over what is behind them, depth-tested but not written.
    pub water: wgpu::RenderPipeline,
}

/// How a pipeline uses the depth buffer.
struct DepthUse {
    write: bool,
    test: bool,
}

/// What a pipeline draws into: the viewport's multisampled colour and depth, or the
/// single-sample selection mask without depth.
enum Output {
    Viewport(DepthUse),
    Mask,
}

/// Triangles for surfaces, segments for the overlays.
const TRIANGLES: wgpu::PrimitiveTopology = wgpu::PrimitiveTopology::TriangleList;

impl Pipelines {
    /// Compiles the shaders and builds the pipelines.
    pub fn new(device: &wgpu::Device) -> Pipelines {
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("viewport globals"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX_FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewport"),
            bind_group_layouts: &[Some(&globals_layout)],
            immediate_size: 0,
        });
        let shape_buffers = [
            wgpu::VertexBufferLayout {
                array_stride: size_of::<Vertex>() as u64,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
            },
            wgpu::VertexBufferLayout {
                array_stride: size_of::<Instance>() as u64,
                step_mode: wgpu::VertexStepMode::Instance,
                attributes: &wgpu::vertex_attr_array![
                    2 => Float32x3, 3 => Float32x4, 4 => Float32x3, 5 => Float32x4
                ],
            },
        ];
        let terrain_buffers = [wgpu::VertexBufferLayout {
            array_stride: size_of::<TerrainVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3, 2 => Float32x4],
        }];
        let line_buffers = [wgpu::VertexBufferLayout {
            array_stride: size_of::<LineVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Unorm8x4],
        }];
        let mask_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("selection mask"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Texture {
                    sample_type: wgpu::TextureSampleType::Float { filterable: false },
                    view_dimension: wgpu::TextureViewDimension::D2,
                    multisampled: false,
                },
                count: None,
            }],
        });
        let outline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("viewport outline"),
            bind_group_layouts: &[Some(&globals_layout), Some(&mask_layout)],
            immediate_size: 0,
        });
        let build = |label,
                     source: &str,
                     layout: &wgpu::PipelineLayout,
                     buffers: &[wgpu::VertexBufferLayout],
                     topology: wgpu::PrimitiveTopology,
                     output: Output,
                     blend| {
            let (format, samples) = match output {
                Output::Viewport(_) => (COLOUR_FORMAT, SAMPLES),
                Output::Mask => (MASK_FORMAT, 1),
            };
            let depth_stencil = match output {
                Output::Viewport(depth) => Some(wgpu::DepthStencilState {
                    format: DEPTH_FORMAT,
                    depth_write_enabled: Some(depth.write),
                    // Reversed depth: nearer is greater.
                    depth_compare: Some(if depth.test {
                        wgpu::CompareFunction::GreaterEqual
                    } else {
                        wgpu::CompareFunction::Always
                    }),
                    stencil: Default::default(),
                    bias: Default::default(),
                }),
                Output::Mask => None,
            };
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: Some(label),
                source: wgpu::ShaderSource::Wgsl(format!("{COMMON_WGSL}\n{source}").into()),
            });
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_main"),
                    compilation_options: Default::default(),
                    buffers: &buffers.iter().cloned().map(Some).collect::<Vec<_>>(),
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    // Drawing both sides costs little and can never leave a hole, whatever the
                    // winding of a mesh (hull faces come from quickhull's output).
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil,
                multisample: wgpu::MultisampleState { count: samples, ..Default::default() },
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_main"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let background = build(
            "viewport background",
            BACKGROUND_WGSL,
            &layout,
            &[],
            TRIANGLES,
            Output::Viewport(DepthUse { write: false, test: false }),
            None,
        );
        let shapes = build(
            "viewport shapes",
            SHAPES_WGSL,
            &layout,
            &shape_buffers,
            TRIANGLES,
            Output::Viewport(DepthUse { write: true, test: true }),
            None,
        );
        let sensor_source = SHAPES_WGSL.replace(
            "const SURFACE_ALPHA: f32 = 1.0;",
            &format!("const SURFACE_ALPHA: f32 = {SENSOR_ALPHA:?};"),
        );
        assert_ne!(sensor_source, SHAPES_WGSL, "shapes.wgsl declares SURFACE_ALPHA");
        let sensors = build(
            "viewport sensors",
            &sensor_source,
            &layout,
            &shape_buffers,
            TRIANGLES,
            Output::Viewport(DepthUse { write: false, test: true }),
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        let grid = build(
            "viewport grid",
            GRID_WGSL,
            &layout,
            &[],
            TRIANGLES,
            Output::Viewport(DepthUse { write: false, test: true }),
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        let lines = build(
            "viewport lines",
            LINES_WGSL,
            &layout,
            &line_buffers,
            wgpu::PrimitiveTopology::LineList,
            Output::Viewport(DepthUse { write: false, test: true }),
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        let lines_on_top = build(
            "viewport lines on top",
            LINES_WGSL,
            &layout,
            &line_buffers,
            wgpu::PrimitiveTopology::LineList,
            Output::Viewport(DepthUse { write: false, test: false }),
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        let selection_mask = build(
            "viewport selection mask",
            SELECTION_MASK_WGSL,
            &layout,
            &shape_buffers,
            TRIANGLES,
            Output::Mask,
            None,
        );
        let outline = build(
            "viewport selection outline",
            OUTLINE_WGSL,
            &outline_layout,
            &[],
            TRIANGLES,
            Output::Viewport(DepthUse { write: false, test: false }),
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        let terrain = build(
            "viewport terrain",
            TERRAIN_WGSL,
            &layout,
            &terrain_buffers,
            TRIANGLES,
            Output::Viewport(DepthUse { write: true, test: true }),
            None,
        );
        let water = build(
            "viewport water",
            TERRAIN_WGSL,
            &layout,
            &terrain_buffers,
            TRIANGLES,
            Output::Viewport(DepthUse { write: false, test: true }),
            Some(wgpu::BlendState::ALPHA_BLENDING),
        );
        Pipelines {
            globals_layout,
            background,
            shapes,
            sensors,
            grid,
            lines,
            lines_on_top,
            selection_mask,
            outline,
            mask_layout,
            terrain,
            water,
        }
    }
}
