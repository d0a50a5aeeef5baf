//! The editor harness the UI tests share.

use atoll::editor::{Editor, EditorState};
use atoll::scenes::scenes_dir;
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
    let p = editor.state.view.camera.project(point, size).expect("in front of the camera");
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

/// The pixels within `radius` of `pos` whose colour is within `tolerance` of `srgb`.
#[allow(dead_code)]
pub fn pixels_near(
    image: &image::RgbaImage,
    pos: egui::Pos2,
    radius: i32,
    srgb: [u8; 3],
    tolerance: u32,
) -> usize {
    let (cx, cy) = (pos.x.round() as i32, pos.y.round() as i32);
    let mut found = 0;
    for y in cy - radius..=cy + radius {
        for x in cx - radius..=cx + radius {
            if x < 0 || y < 0 || x >= image.width() as i32 || y >= image.height() as i32 {
                continue;
            }
            let p = image.get_pixel(x as u32, y as u32);
            let d: u32 = (0..3).map(|i| p[i].abs_diff(srgb[i]) as u32).sum();
            found += usize::from(d <= tolerance);
        }
    }
    found
}

/// Opens the side panel headed `name` as a user would: scrolls its header into view, clicks
/// it (as assistive technology does, wherever it is drawn), and scrolls again so that its first
/// rows are in view (the docks scroll when their open panels are taller than the window).
#[allow(dead_code)]
pub fn open_panel(harness: &mut Harness<'_, Editor>, name: &str) {
    use egui_kittest::kittest::Queryable;
    harness.get_by_label(name).scroll_to_me();
    harness.run_steps(2);
    harness.get_by_label(name).click_accesskit();
    harness.run_steps(2);
    harness.get_by_label(name).scroll_to_me();
    harness.run_steps(2);
}

/// The pixels of the right dock (the rightmost three tenths of the frame) whose colour is
/// within 40 (summed over the channels) of `srgb`: how much of a panel's plot line is drawn.
#[allow(dead_code)]
pub fn dock_pixels(image: &image::RgbaImage, srgb: [u8; 3]) -> usize {
    (image.enumerate_pixels())
        .filter(|(x, _, p)| {
            *x as f32 > 0.7 * image.width() as f32
                && (0..3).map(|i| u32::from(p[i].abs_diff(srgb[i]))).sum::<u32>() < 40
        })
        .count()
}

/// Every other pixel of the part of `image` between the fractions `across` of its width and
/// `down` of its height (a region of the frame, such as the viewport's middle).
#[allow(dead_code)]
pub fn frame_pixels(image: &image::RgbaImage, across: (f32, f32), down: (f32, f32)) -> Vec<[u8; 4]> {
    let (w, h) = (image.width() as f32, image.height() as f32);
    let (x0, x1) = ((across.0 * w) as u32, (across.1 * w) as u32);
    let (y0, y1) = ((down.0 * h) as u32, (down.1 * h) as u32);
    let mut out = Vec::new();
    for y in (y0..y1).step_by(2) {
        for x in (x0..x1).step_by(2) {
            out.push(image.get_pixel(x, y).0);
        }
    }
    out
}
