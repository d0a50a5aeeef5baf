//! A wgpu device without a window, for `atoll shot` and the rendering tests.

/// A headless device, its queue and a description of the adapter behind it.
pub struct HeadlessGpu {
    /// The device.
    pub device: wgpu::Device,
    /// Its queue.
    pub queue: wgpu::Queue,
    /// Which adapter was chosen (name, backend), for messages.
    pub adapter_info: wgpu::AdapterInfo,
}

/// The message for a machine without any GPU adapter: what failed and what to install.
pub fn no_adapter(error: &dyn std::fmt::Display) -> String {
    format!(
        "no GPU adapter found ({error}); on Debian install software Vulkan with `apt-get install mesa-vulkan-drivers`"
    )
}

/// Requests any adapter (no surface needed) and a device on it. Fails with a message that says
/// what to install when the machine offers no adapter at all.
pub fn headless_gpu() -> Result<HeadlessGpu, String> {
    let instance = wgpu::Instance::new(wgpu::InstanceDescriptor::new_without_display_handle());
    let adapter = pollster::block_on(instance.request_adapter(&wgpu::RequestAdapterOptions {
        power_preference: wgpu::PowerPreference::HighPerformance,
        ..Default::default()
    }))
    .map_err(|e| no_adapter(&e))?;
    let adapter_info = adapter.get_info();
    let (device, queue) = pollster::block_on(
        adapter
            .request_device(&wgpu::DeviceDescriptor { label: Some("atoll headless"), ..Default::default() }),
    )
    .map_err(|e| format!("could not open a device on {}: {e}", adapter_info.name))?;
    Ok(HeadlessGpu { device, queue, adapter_info })
}
