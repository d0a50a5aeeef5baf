//! Terrain: the paint brush (mode, radius, strength, material), the terrain's figures (chunks by
//! class, mask bytes, the mesh cache, bytes per triangle, rebuild and edit times) and the
//! overlays of the chunk under the pointer.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use crate::editor::tools::terrain::TerrainTool;
use crate::editor::tools::{ToolKind, Tools};
use egui::Grid;

/// Draws the brush controls, the figures and the overlay toggles.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, tools: &mut Tools) {
    if !state.sim.world.has_terrain() {
        ui.weak("This scene has no terrain (open scenes/terrain.ron for one).");
        return;
    }
    tools.palette(ToolKind::Terrain, ui, state);
    ui.separator();
    figures(ui, state, &tools.terrain);
    ui.separator();
    let overlays = &mut state.view.options.terrain_overlays;
    ui.label("Overlays of the chunk under the pointer:");
    ui.checkbox(&mut overlays.masks, "solid mask bits").on_hover_text(
        "A cross on every voxel whose dilated solid bit is set (what the bit broadphase sees).",
    );
    ui.checkbox(&mut overlays.kd_nodes, "kD tree nodes")
        .on_hover_text("The boxes of the chunk's loose kD tree, root hot, deeper levels cooler.");
}

fn figures(ui: &mut egui::Ui, state: &EditorState, brush: &TerrainTool) {
    let terrain = state.sim.world.terrain();
    let stats = terrain.stats();
    let cache = stats.cache;
    Grid::new("terrain figures").num_columns(2).striped(true).spacing([16.0, 2.0]).show(ui, |ui| {
        let mut row = |name: &str, value: String| {
            ui.label(name);
            ui.monospace(value);
            ui.end_row();
        };
        row(
            "chunks",
            format!(
                "{} stored: {} solid, {} water, {} mixed",
                stats.stored_chunks, stats.solid_chunks, stats.water_chunks, stats.mixed_chunks
            ),
        );
        row("voxel size", format!("{} m", terrain.voxel_size()));
        row("mask bytes", format!("{} ({:.3} per voxel)", stats.mask_bytes, stats.mask_bytes_per_voxel));
        row(
            "mesh cache",
            format!("{} chunks, {:.1} of {:.0} KiB", cache.entries, kib(cache.bytes), kib(cache.capacity)),
        );
        row(
            "cache hits / misses",
            format!("{} / {} ({} evicted)", cache.hits, cache.misses, cache.evictions),
        );
        let per_triangle =
            if cache.triangles > 0 { cache.bytes as f64 / cache.triangles as f64 } else { 0.0 };
        row(
            "bytes per triangle",
            format!("{per_triangle:.1} (mesh + kD tree, {} triangles)", cache.triangles),
        );
        row("last chunk build", format!("{:.3} ms", cache.last_build.as_secs_f64() * 1e3));
        let drawn = state.diag.terrain_rebuild;
        row("drawn", format!("{} triangles", drawn.triangles));
        row("last redraw", format!("{} chunks in {:.2} ms", drawn.chunks, drawn.ms));
        if let Some(dab) = brush.last_dab_stats {
            row("last dab", format!("{} voxels, {} chunks, {:.2} ms", dab.voxels, dab.chunks, dab.ms));
        }
        if let Some(hit) = brush.hover {
            let c = hit.chunk;
            row("under the pointer", format!("chunk ({}, {}, {}), {:?}", c.x, c.y, c.z, hit.material));
        }
    });
}

fn kib(bytes: usize) -> f64 {
    bytes as f64 / 1024.0
}

/// The Terrain panel.
#[derive(Default)]
pub struct TerrainPanel;

impl Panel for TerrainPanel {
    fn name(&self) -> &'static str {
        "Terrain"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state, cx.tools);
    }
}
