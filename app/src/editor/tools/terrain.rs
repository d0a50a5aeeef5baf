//! The terrain paint tool: a sphere brush that follows the terrain under the pointer and, while
//! the primary button is held, edits it in dabs spaced along the pointer's path, so a fast drag
//! still leaves a continuous stroke.

use super::select::pick_on_click;
use super::tool::{Tool, ViewportInput};
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use atoll_physics::terrain::{
    BrushMode, ChunkCoord, Edit, MAX_BRUSH_VOXELS, SphereBrush, TerrainHit, Voxel, VoxelMaterial,
};
use atoll_physics::{BodyId, Ray, Vec3, World};
use egui::Slider;
use glam::IVec3;
use std::collections::BTreeMap;
use std::time::Instant;

/// Dabs are placed this fraction of the radius apart along a stroke.
const DAB_SPACING: f32 = 0.25;
/// Most dabs one frame applies, so a huge jump of the pointer cannot stall the editor.
const MAX_DABS_PER_FRAME: usize = 12;
/// Longest ray the brush looks along, metres.
const MAX_REACH: f32 = 2000.0;

/// The solid materials a brush can lay down, in menu order.
pub const SOLID_MATERIALS: [VoxelMaterial; 4] =
    [VoxelMaterial::Grass, VoxelMaterial::Dirt, VoxelMaterial::Sand, VoxelMaterial::Rock];

/// Every brush mode, in menu order, with its label.
pub const MODES: [(BrushMode, &str); 5] = [
    (BrushMode::Add, "add"),
    (BrushMode::Remove, "remove"),
    (BrushMode::Smooth, "smooth"),
    (BrushMode::Paint, "material"),
    (BrushMode::FillWater, "water"),
];

/// What the last dab cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct DabStats {
    /// Voxels it changed.
    pub voxels: usize,
    /// Chunks whose masks were rebuilt and meshes dropped.
    pub chunks: usize,
    /// Milliseconds of the edit itself (not the redraw).
    pub ms: f64,
}

/// The paint tool's settings and the stroke in progress.
#[derive(Clone, Debug)]
pub struct TerrainTool {
    /// The brush mode (while the tool is active; otherwise the primary button is the camera's
    /// and picking's).
    pub mode: BrushMode,
    /// Brush radius, metres.
    pub radius: f32,
    /// How far one dab moves voxels towards the brush's target, in (0, 1].
    pub strength: f32,
    /// What [`BrushMode::Add`] and [`BrushMode::Paint`] lay down.
    pub material: VoxelMaterial,
    /// The terrain under the pointer this frame.
    pub hover: Option<TerrainHit>,
    /// The last dab of the stroke in progress.
    last_dab: Option<Vec3>,
    /// Edits not yet seen by the renderer: terrain stamp before, after, chunks touched.
    pub pending: Vec<(u64, u64, Vec<ChunkCoord>)>,
    /// The last dab's cost.
    pub last_dab_stats: Option<DabStats>,
    /// Dabs in the current (or last) stroke.
    pub stroke_dabs: usize,
    /// The stroke in progress as a delta: each changed voxel's first and latest value (in
    /// coordinate order), and the bodies its dabs cut loose.
    stroke_voxels: BTreeMap<[i32; 3], (Voxel, Voxel)>,
    stroke_detached: Vec<BodyId>,
}

/// A finished stroke, ready to be one undo step.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Stroke {
    /// Dabs it applied.
    pub dabs: usize,
    /// Each voxel it changed: before the stroke, after it.
    pub voxels: Vec<(IVec3, Voxel, Voxel)>,
    /// Bodies it cut loose from the terrain.
    pub detached: Vec<BodyId>,
}

impl Default for TerrainTool {
    fn default() -> Self {
        TerrainTool {
            mode: BrushMode::Add,
            radius: 1.5,
            strength: 0.5,
            material: VoxelMaterial::Grass,
            hover: None,
            last_dab: None,
            pending: Vec::new(),
            last_dab_stats: None,
            stroke_dabs: 0,
            stroke_voxels: BTreeMap::new(),
            stroke_detached: Vec::new(),
        }
    }
}

impl TerrainTool {
    /// The same brush settings with no stroke, hover or pending edits (for a new world).
    pub fn same_brush(&self) -> TerrainTool {
        TerrainTool {
            mode: self.mode,
            radius: self.radius,
            strength: self.strength,
            material: self.material,
            ..Default::default()
        }
    }

    /// Finds the terrain under the view ray `origin + t dir`.
    pub fn aim(&mut self, world: &World, origin: Vec3, dir: Vec3) {
        self.hover = Ray::new(origin, dir, MAX_REACH).ok().and_then(|ray| world.terrain().cast_ray(&ray));
    }

    /// Continues the stroke to the hovered point: dabs from the last one (or right there, when
    /// the stroke starts) every [`DAB_SPACING`] radii. Returns how many dabs it applied.
    pub fn stroke(&mut self, world: &mut World) -> Result<usize, String> {
        let (mode, Some(hit)) = (self.mode, self.hover) else { return Ok(0) };
        let to = hit.point;
        let spacing = (self.radius * DAB_SPACING).max(world.terrain().voxel_size() * 0.5);
        let centres: Vec<Vec3> = match self.last_dab {
            None => vec![to],
            Some(from) => {
                let steps = ((to - from).length() / spacing).floor() as usize;
                (1..=steps.min(MAX_DABS_PER_FRAME))
                    .map(|k| from + (to - from) * (k as f32 / steps as f32))
                    .collect()
            }
        };
        for &centre in &centres {
            self.dab(world, mode, centre)?;
            self.last_dab = Some(centre);
        }
        Ok(centres.len())
    }

    /// Ends the stroke in progress (the button was released) and returns what it changed, to
    /// be recorded as one undo step.
    pub fn end_stroke(&mut self) -> Option<Stroke> {
        self.last_dab.take()?;
        let dabs = std::mem::take(&mut self.stroke_dabs);
        let voxels = std::mem::take(&mut self.stroke_voxels)
            .into_iter()
            .filter(|(_, (before, after))| before != after)
            .map(|(v, (before, after))| (IVec3::from_array(v), before, after))
            .collect();
        Some(Stroke { dabs, voxels, detached: std::mem::take(&mut self.stroke_detached) })
    }

    fn dab(&mut self, world: &mut World, mode: BrushMode, center: Vec3) -> Result<(), String> {
        let terrain = world.terrain();
        // A centre beyond the terrain's bounds (the brush at its edge) is simply skipped.
        if !terrain.settings().contains_voxel(terrain.voxel_at(center)) {
            return Ok(());
        }
        let brush = SphereBrush {
            center,
            radius: self.radius,
            strength: self.strength,
            mode,
            material: self.material,
        };
        let before = world.terrain_stamp();
        let start = Instant::now();
        let report = world.edit_terrain(&Edit::Sphere(brush)).map_err(|e| format!("terrain brush: {e}"))?;
        // The first value a voxel had in this stroke is its "before"; its value now, its "after".
        for &(v, old) in &report.previous {
            self.stroke_voxels.entry(v.to_array()).or_insert((old, old)).1 = world.terrain().voxel(v);
        }
        self.stroke_detached.extend_from_slice(world.detached_bodies());
        let ms = start.elapsed().as_secs_f64() * 1e3;
        self.pending.push((before, world.terrain_stamp(), report.chunks.clone()));
        self.last_dab_stats =
            Some(DabStats { voxels: report.changed_voxels, chunks: report.chunks.len(), ms });
        self.stroke_dabs += 1;
        Ok(())
    }
}

impl TerrainTool {
    /// Ends the stroke in progress, if any, and records it as one undo step.
    fn finish_stroke(&mut self, state: &mut EditorState) {
        if let Some(stroke) = self.end_stroke() {
            state.record_stroke(stroke);
        }
    }
}

impl Tool for TerrainTool {
    fn name(&self) -> &'static str {
        "Terrain brush"
    }

    /// The terrain under the pointer, brush or not: the chunk overlays and the Terrain panel
    /// show it.
    fn track_pointer(&mut self, state: &mut EditorState, input: &ViewportInput) {
        match input.pointer {
            Some(pointer) => {
                let (origin, dir) = input.ray(state, pointer);
                self.aim(&state.sim.world, origin, dir);
                state.view.options.terrain_chunk = self.hover.map(|hit| hit.chunk);
            }
            None => self.hover = None,
        }
    }

    /// Shows the brush on the terrain and, while the primary button is held on the view,
    /// strokes. Alt leaves the button to the camera (and a click to picking).
    fn viewport_input(&mut self, state: &mut EditorState, input: &ViewportInput) -> bool {
        let alt = input.ui.input(|i| i.modifiers.alt);
        if input.pointer.is_none() || alt {
            state.view.options.brush = None;
            self.finish_stroke(state);
            return pick_on_click(state, input);
        }
        state.view.options.brush = self.hover.map(|hit| (hit.point, self.radius));
        let pressed =
            input.response.is_pointer_button_down_on() && input.ui.input(|i| i.pointer.primary_down());
        if pressed {
            match self.stroke(&mut state.sim.world) {
                Ok(dabs) if dabs > 0 => state.mark_edited(),
                Ok(_) => {}
                Err(e) => state.diag.notices.report(NoticePlace::ErrorWindow, e),
            }
            // The renderer redraws the chunks the dabs touched.
            state.view.terrain_edits.append(&mut self.pending);
            input.ui.ctx().request_repaint();
        } else {
            self.finish_stroke(state);
        }
        true
    }

    /// The brush: off or a mode, radius, strength, material.
    fn palette(&mut self, ui: &mut egui::Ui, state: &mut EditorState, active: bool) -> Option<bool> {
        let mut switched = None;
        ui.horizontal_wrapped(|ui| {
            ui.label("Brush:");
            if ui.selectable_label(!active, "off").clicked() && active {
                switched = Some(false);
            }
            for (mode, label) in MODES {
                if ui.selectable_label(active && self.mode == mode, label).clicked() {
                    self.mode = mode;
                    switched = Some(true);
                }
            }
        });
        let max_radius = MAX_BRUSH_VOXELS * state.sim.world.terrain().voxel_size();
        ui.add(Slider::new(&mut self.radius, 0.25..=max_radius.min(16.0)).text("radius m"));
        ui.add(Slider::new(&mut self.strength, 0.05..=1.0).text("strength"));
        if active && matches!(self.mode, BrushMode::Add | BrushMode::Paint) {
            egui::ComboBox::from_label("material").selected_text(format!("{:?}", self.material)).show_ui(
                ui,
                |ui| {
                    for material in SOLID_MATERIALS {
                        ui.selectable_value(&mut self.material, material, format!("{material:?}"));
                    }
                },
            );
        }
        if active {
            ui.weak("Left drag paints on the terrain; Alt + left drag orbits.");
        }
        switched
    }

    fn deactivate(&mut self, state: &mut EditorState) {
        self.finish_stroke(state);
        state.view.options.brush = None;
    }

    /// The brush settings stay; the stroke and the edits not yet drawn belong to the old world.
    fn scene_replaced(&mut self) {
        *self = self.same_brush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::scene::builtin::terrain_hills;

    fn aimed_tool(world: &World, x: f32, z: f32) -> TerrainTool {
        let mut tool = TerrainTool { mode: BrushMode::Add, ..Default::default() };
        tool.aim(world, Vec3::new(x, 50.0, z), Vec3::NEG_Y);
        tool
    }

    #[test]
    fn a_stroke_dabs_along_the_path_and_records_each_edit() {
        let (mut world, _) = terrain_hills().build_world().unwrap();
        let mut tool = aimed_tool(&world, -6.0, -6.0);
        let start = tool.hover.expect("the hills are under the ray").point;
        assert_eq!(tool.stroke(&mut world).unwrap(), 1, "a press dabs once where it is");
        tool.aim(&world, Vec3::new(0.0, 50.0, -6.0), Vec3::NEG_Y);
        let dabs = tool.stroke(&mut world).unwrap();
        let end = tool.hover.unwrap().point;
        let expected = ((end - start).length() / (tool.radius * DAB_SPACING)).floor() as usize;
        assert_eq!(dabs, expected.min(MAX_DABS_PER_FRAME));
        assert!(dabs > 1);
        // Each recorded edit starts where the previous one ended, at the world's stamp.
        for pair in tool.pending.windows(2) {
            assert_eq!(pair[0].1, pair[1].0);
        }
        assert_eq!(tool.pending.last().unwrap().1, world.terrain_stamp());
        tool.end_stroke();
        assert_eq!(tool.stroke_dabs, 0);
    }

    #[test]
    fn no_terrain_under_the_pointer_edits_nothing() {
        // (The brush switched off is the tool not being active: it then gets no input at all.)
        let (mut world, _) = terrain_hills().build_world().unwrap();
        let stamp = world.terrain_stamp();
        let mut tool = aimed_tool(&world, -6.0, -6.0);
        tool.mode = BrushMode::Remove;
        tool.aim(&world, Vec3::new(0.0, 50.0, 0.0), Vec3::Y);
        assert!(tool.hover.is_none());
        assert_eq!(tool.stroke(&mut world).unwrap(), 0);
        assert_eq!(world.terrain_stamp(), stamp);
    }
}
