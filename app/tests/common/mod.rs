//! The editor harness the UI tests share.

use atoll::cli::scenes_dir;
use atoll::editor::{Editor, EditorState};
use egui_kittest::Harness;
use egui_kittest::wgpu::{WgpuTestRenderer, create_render_state, default_wgpu_setup};

/// The real editor UI on a built-in scene, rendered through wgpu. Panics (fails the test) when
/// no adapter exists: rendering tests never skip.
pub fn harness<'a>(scene: &str) -> Harness<'a, Editor> {
    let render_state = create_render_state(default_wgpu_setup(), egui_wgpu::RendererOptions::PREDICTABLE);
    let state = EditorState::open(&scenes_dir().join(scene)).unwrap();
    let editor = Editor::new(state, render_state.clone());
    Harness::builder()
        .with_size([1280.0, 800.0])
        .renderer(WgpuTestRenderer::from_render_state(render_state))
        .build_ui_state(|ui, editor: &mut Editor| editor.ui(ui), editor)
}
