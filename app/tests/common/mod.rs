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

// Not every test binary that includes this module uses every helper below.

/// Where a world point is drawn on the screen.
#[allow(dead_code)]
pub fn on_screen(harness: &Harness<'_, Editor>, point: glam::Vec3) -> egui::Pos2 {
    let editor = harness.state();
    let rect = editor.viewport().rect();
    let size = glam::Vec2::new(rect.width(), rect.height());
    let p = editor.state.camera.project(point, size).expect("in front of the camera");
    rect.min + egui::vec2(p.x, p.y)
}

/// A left click at `pos`: the pointer hovers there for a frame, then the button goes down and
/// up within one frame (a click however long the frames take).
#[allow(dead_code)]
pub fn click(harness: &mut Harness<'_, Editor>, pos: egui::Pos2) {
    harness.hover_at(pos);
    harness.run_steps(1);
    for pressed in [true, false] {
        harness.event(egui::Event::PointerButton {
            pos,
            button: egui::PointerButton::Primary,
            pressed,
            modifiers: egui::Modifiers::NONE,
        });
    }
    harness.run_steps(2);
}
