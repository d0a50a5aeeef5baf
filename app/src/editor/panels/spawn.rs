//! The spawn palette (shape, body type, size; a click in the viewport places one, a
//! shift-drag a row) and the group generator (stacks, pyramids and walls of boxes).

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use crate::editor::tools::ToolKind;
use crate::editor::tools::spawn::surface_under;
use atoll_physics::{BodyType, SceneBody, SceneShape, Vec3};
use egui::DragValue;

/// The Spawn panel: the spawn tool's palette, and the group generator it opens.
#[derive(Default)]
pub struct SpawnPanel {
    /// The group generator's settings, while its window is open.
    pub generator: Option<Generator>,
}

impl SpawnPanel {
    /// Opens the group generator's window (the Edit menu does too).
    pub fn open_generator(&mut self) {
        self.generator.get_or_insert_with(Generator::default);
    }
}

impl Panel for SpawnPanel {
    fn name(&self) -> &'static str {
        "Spawn"
    }

    fn dock(&self) -> Dock {
        Dock::Left
    }

    fn default_open(&self) -> bool {
        true
    }

    /// The spawn palette and the button that opens the group generator.
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        cx.tools.palette(ToolKind::Spawn, ui, cx.state);
        if ui.button("Group...").on_hover_text("A stack, pyramid or wall of boxes").clicked() {
            self.open_generator();
        }
    }

    fn windows(&mut self, ctx: &egui::Context, cx: &mut PanelContext) {
        generator_window(ctx, cx.state, &mut self.generator);
    }
}

/// What the group generator builds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GroupKind {
    /// A column of boxes.
    Stack,
    /// A plane pyramid: a base row, one box fewer each row up.
    Pyramid,
    /// A wall of bricks in running bond.
    Wall,
}

/// The group generator's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct Generator {
    /// What to build.
    pub kind: GroupKind,
    /// Boxes of a stack, base of a pyramid, or bricks per row of a wall.
    pub count: u32,
    /// Rows of a wall.
    pub rows: u32,
    /// Half the edge of one box, metres.
    pub half_size: f32,
}

impl Default for Generator {
    fn default() -> Self {
        Generator { kind: GroupKind::Pyramid, count: 6, rows: 4, half_size: 0.5 }
    }
}

impl Generator {
    /// The bodies of the group, standing on `base` (its centre at floor height).
    pub fn bodies(&self, base: Vec3) -> Vec<SceneBody> {
        let h = self.half_size;
        let count = self.count.max(1);
        let mut centres = Vec::new();
        match self.kind {
            GroupKind::Stack => {
                centres.extend((0..count).map(|i| Vec3::new(0.0, h + 2.0 * h * i as f32, 0.0)))
            }
            GroupKind::Pyramid => {
                for row in 0..count {
                    let n = count - row;
                    for i in 0..n {
                        let x = (i as f32 - (n - 1) as f32 * 0.5) * 2.0 * h;
                        centres.push(Vec3::new(x, h + 2.0 * h * row as f32, 0.0));
                    }
                }
            }
            GroupKind::Wall => {
                for row in 0..self.rows.max(1) {
                    // Every other row is shifted by half a brick, like a real wall.
                    let shift = if row % 2 == 1 { h } else { 0.0 };
                    for i in 0..count {
                        let x = (i as f32 - (count - 1) as f32 * 0.5) * 2.0 * h + shift;
                        centres.push(Vec3::new(x, h + 2.0 * h * row as f32, 0.0));
                    }
                }
            }
        }
        let label = match self.kind {
            GroupKind::Stack => "stack",
            GroupKind::Pyramid => "pyramid",
            GroupKind::Wall => "wall",
        };
        centres
            .into_iter()
            .enumerate()
            .map(|(i, c)| {
                let mut body = SceneBody::new(
                    BodyType::Dynamic,
                    SceneShape::Box { half_extents: Vec3::splat(h) },
                    base + c,
                );
                body.name = format!("{label} {}", i + 1);
                body
            })
            .collect()
    }
}

/// The generator's window, while open: settings, and Create, which builds the group on the
/// surface under the view's centre (one undo step).
pub fn generator_window(ctx: &egui::Context, state: &mut EditorState, generator: &mut Option<Generator>) {
    let Some(settings) = generator else { return };
    let mut open = true;
    let mut create = false;
    egui::Window::new("Generate a group").open(&mut open).collapsible(false).resizable(false).show(
        ctx,
        |ui| {
            ui.horizontal(|ui| {
                ui.selectable_value(&mut settings.kind, GroupKind::Stack, "stack");
                ui.selectable_value(&mut settings.kind, GroupKind::Pyramid, "pyramid");
                ui.selectable_value(&mut settings.kind, GroupKind::Wall, "wall");
            });
            egui::Grid::new("generator").num_columns(2).show(ui, |ui| {
                let count_label = match settings.kind {
                    GroupKind::Stack => "boxes",
                    GroupKind::Pyramid => "base",
                    GroupKind::Wall => "per row",
                };
                ui.label(count_label);
                ui.add(DragValue::new(&mut settings.count).range(1..=100));
                ui.end_row();
                if settings.kind == GroupKind::Wall {
                    ui.label("rows");
                    ui.add(DragValue::new(&mut settings.rows).range(1..=100));
                    ui.end_row();
                }
                ui.label("box half size");
                ui.add(DragValue::new(&mut settings.half_size).range(0.05..=5.0).speed(0.01).suffix(" m"));
                ui.end_row();
            });
            let n = settings.bodies(Vec3::ZERO).len();
            ui.weak(format!("{n} boxes, placed on the surface under the view's centre"));
            create = ui.button("Create").clicked();
        },
    );
    if create {
        let target = state.view.camera.target;
        let base =
            surface_under(&state.sim.world, target + Vec3::Y * 500.0, Vec3::NEG_Y).map_or(target, |(p, _)| p);
        let label = format!("generate {}", settings.bodies(Vec3::ZERO).len());
        if let Err(e) = state.add_bodies(&label, settings.bodies(base)) {
            state.diag.notices.report(NoticePlace::ErrorWindow, e);
        }
    }
    if !open || create {
        *generator = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_have_the_right_counts_and_stand_on_the_base() {
        let mut g = Generator { kind: GroupKind::Pyramid, count: 5, rows: 3, half_size: 0.5 };
        assert_eq!(g.bodies(Vec3::ZERO).len(), 15);
        g.kind = GroupKind::Stack;
        assert_eq!(g.bodies(Vec3::ZERO).len(), 5);
        g.kind = GroupKind::Wall;
        let wall = g.bodies(Vec3::new(0.0, 2.0, 0.0));
        assert_eq!(wall.len(), 15);
        let lowest = wall.iter().map(|b| b.position.y).fold(f32::MAX, f32::min);
        assert_eq!(lowest, 2.5, "the bottom row rests on the base");
    }
}
