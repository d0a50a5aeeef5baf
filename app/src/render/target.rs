//! The offscreen render target: a 4× multisampled colour and depth pair, resolved into a
//! single-sample texture that egui can sample and that can be copied out for PNGs.

/// Colour format of the resolved image: sRGB, so the shaders write linear light and egui (which
/// samples its textures as sRGB) shows the same colours a PNG of the readback has.
pub const COLOUR_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8UnormSrgb;
/// The format egui reads the resolved texture as (same bytes, no sRGB decode).
pub const EGUI_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Rgba8Unorm;
/// Depth format: 32-bit float, which with reversed depth is precise at every distance.
pub const DEPTH_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Format of the selection mask (1 where the selected body covers the pixel).
pub const MASK_FORMAT: wgpu::TextureFormat = wgpu::TextureFormat::R8Unorm;
/// Samples per pixel of the multisampled attachments.
pub const SAMPLES: u32 = 4;

/// The textures of one target size.
pub struct Target {
    /// Width and height in pixels.
    pub size: [u32; 2],
    /// Multisampled colour attachment.
    pub msaa_view: wgpu::TextureView,
    /// Multisampled depth attachment.
    pub depth_view: wgpu::TextureView,
    /// The single-sample resolve target.
    pub resolved: wgpu::Texture,
    /// A view of `resolved`, the one rendering resolves into.
    pub resolved_view: wgpu::TextureView,
    /// The selected body's silhouette, single-sample, read by the outline pass.
    pub mask_view: wgpu::TextureView,
    /// The same texels seen as plain `Rgba8Unorm`: egui samples textures as sRGB-encoded bytes
    /// and decodes them itself, so it must not get the hardware sRGB decode on top.
    pub egui_view: wgpu::TextureView,
}

impl Target {
    /// Allocates a target of `size` pixels (each side at least 1).
    pub fn new(device: &wgpu::Device, size: [u32; 2]) -> Target {
        let size = size.map(|s| s.max(1));
        let extent = wgpu::Extent3d { width: size[0], height: size[1], depth_or_array_layers: 1 };
        let texture = |label, format, samples, usage, view_formats: &[wgpu::TextureFormat]| {
            device.create_texture(&wgpu::TextureDescriptor {
                label: Some(label),
                size: extent,
                mip_level_count: 1,
                sample_count: samples,
                dimension: wgpu::TextureDimension::D2,
                format,
                usage,
                view_formats,
            })
        };
        let msaa = texture(
            "viewport msaa colour",
            COLOUR_FORMAT,
            SAMPLES,
            wgpu::TextureUsages::RENDER_ATTACHMENT,
            &[],
        );
        let depth =
            texture("viewport depth", DEPTH_FORMAT, SAMPLES, wgpu::TextureUsages::RENDER_ATTACHMENT, &[]);
        let resolved = texture(
            "viewport colour",
            COLOUR_FORMAT,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_SRC,
            &[EGUI_FORMAT],
        );
        let mask = texture(
            "viewport selection mask",
            MASK_FORMAT,
            1,
            wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            &[],
        );
        Target {
            size,
            mask_view: mask.create_view(&Default::default()),
            msaa_view: msaa.create_view(&Default::default()),
            depth_view: depth.create_view(&Default::default()),
            resolved_view: resolved.create_view(&Default::default()),
            egui_view: resolved.create_view(&wgpu::TextureViewDescriptor {
                format: Some(EGUI_FORMAT),
                ..Default::default()
            }),
            resolved,
        }
    }
}
