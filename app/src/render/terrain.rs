//! The voxel terrain on the GPU: the mesher's own triangles (what bodies hit is what is drawn),
//! one vertex buffer per chunk and field, rebuilt only for the chunks that changed.
//!
//! The world's terrain stamp says whether anything changed at all. The editor records each edit
//! it makes ([`TerrainGpu::note_edit`]: stamp before, stamp after, chunks touched); when the
//! stamps chain from what was drawn to what the world holds, only those chunks are rebuilt,
//! otherwise (a scene loaded, a reset) every chunk is.

use super::palette;
use atoll_physics::World;
use atoll_physics::terrain::{ChunkCoord, MeshField, RenderMesh, VoxelMaterial};
use std::collections::BTreeMap;
use std::time::Instant;
use wgpu::util::DeviceExt;

/// One terrain vertex: world position, smooth normal and the triangle's material colour
/// (linear RGB, alpha < 1 for water).
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct TerrainVertex {
    /// World position.
    pub position: [f32; 3],
    /// Unit normal.
    pub normal: [f32; 3],
    /// Linear RGB and opacity.
    pub colour: [f32; 4],
}

/// Opacity of water.
pub const WATER_ALPHA: f32 = 0.55;

/// The sRGB colour a material is drawn in.
pub fn material_colour(material: VoxelMaterial) -> [u8; 3] {
    match material {
        VoxelMaterial::Air => [255, 0, 255],
        VoxelMaterial::Rock => [128, 126, 122],
        VoxelMaterial::Dirt => [134, 96, 67],
        VoxelMaterial::Sand => [214, 196, 148],
        VoxelMaterial::Grass => [98, 146, 72],
        VoxelMaterial::Water => [52, 120, 190],
    }
}

/// A chunk field's triangles on the GPU.
struct FieldBuffer {
    vertices: wgpu::Buffer,
    count: u32,
}

/// What was drawn last and the buffers of every chunk with triangles.
#[derive(Default)]
pub struct TerrainGpu {
    /// The terrain stamp the buffers show.
    stamp: u64,
    solid: BTreeMap<ChunkCoord, FieldBuffer>,
    water: BTreeMap<ChunkCoord, FieldBuffer>,
    /// Edits since `stamp`, as the editor made them: (stamp before, stamp after, chunks).
    edits: Vec<(u64, u64, Vec<ChunkCoord>)>,
    /// Counters of the last rebuild.
    last_rebuild: TerrainRebuild,
}

/// What the last terrain rebuild did.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TerrainRebuild {
    /// Chunks meshed again (both fields).
    pub chunks: usize,
    /// Milliseconds spent meshing and uploading them.
    pub ms: f64,
    /// Triangles drawn now, solid and water.
    pub triangles: usize,
}

impl TerrainGpu {
    /// Records that an edit took the terrain from stamp `before` to `after` and touched only
    /// `chunks`, so the next sync rebuilds just those.
    pub fn note_edit(&mut self, before: u64, after: u64, chunks: &[ChunkCoord]) {
        if before != after {
            self.edits.push((before, after, chunks.to_vec()));
        }
    }

    /// What the last rebuild did.
    pub fn last_rebuild(&self) -> TerrainRebuild {
        self.last_rebuild
    }

    /// Brings the buffers up to `world`'s terrain.
    pub fn sync(&mut self, device: &wgpu::Device, world: &World) {
        let target = world.terrain_stamp();
        let edits = std::mem::take(&mut self.edits);
        if target == self.stamp {
            return;
        }
        let start = Instant::now();
        let chunks: Vec<ChunkCoord> = match chained(&edits, self.stamp, target) {
            Some(touched) => touched,
            None => {
                self.solid.clear();
                self.water.clear();
                world.terrain().masks().map(|(c, _)| c).collect()
            }
        };
        for &c in &chunks {
            for (field, map) in [(MeshField::Solid, &mut self.solid), (MeshField::Water, &mut self.water)] {
                match upload(device, &world.terrain().render_mesh(c, field), field) {
                    Some(buffer) => map.insert(c, buffer),
                    None => map.remove(&c),
                };
            }
        }
        self.stamp = target;
        let triangles = self.solid.values().chain(self.water.values()).map(|b| b.count as usize / 3).sum();
        self.last_rebuild =
            TerrainRebuild { chunks: chunks.len(), ms: start.elapsed().as_secs_f64() * 1e3, triangles };
    }

    /// Draws the solid triangles (with the terrain pipeline set).
    pub fn draw_solid<'a>(&'a self, pass: &mut wgpu::RenderPass<'a>) {
        draw(&self.solid, pass);
    }

    /// Draws the water triangles (with the water pipeline set).
    pub fn draw_water<'a>(&'a self, pass: &mut wgpu::RenderPass<'a>) {
        draw(&self.water, pass);
    }

    /// True when there is water to draw.
    pub fn has_water(&self) -> bool {
        !self.water.is_empty()
    }
}

/// The chunks the recorded edits touched, if they lead from stamp `from` to `to` one after
/// another (sorted, without repeats); `None` when they do not (then everything is rebuilt).
fn chained(edits: &[(u64, u64, Vec<ChunkCoord>)], from: u64, to: u64) -> Option<Vec<ChunkCoord>> {
    let mut at = from;
    let mut touched = Vec::new();
    for (before, after, chunks) in edits {
        if *before != at {
            return None;
        }
        at = *after;
        touched.extend_from_slice(chunks);
    }
    touched.sort();
    touched.dedup();
    (at == to).then_some(touched)
}

fn draw<'a>(buffers: &'a BTreeMap<ChunkCoord, FieldBuffer>, pass: &mut wgpu::RenderPass<'a>) {
    for buffer in buffers.values() {
        pass.set_vertex_buffer(0, buffer.vertices.slice(..));
        pass.draw(0..buffer.count, 0..1);
    }
}

/// The mesh as unindexed vertices (each triangle has its own material colour), or `None` when
/// it has no triangles.
fn upload(device: &wgpu::Device, mesh: &RenderMesh, field: MeshField) -> Option<FieldBuffer> {
    if mesh.triangles.is_empty() {
        return None;
    }
    let alpha = if field == MeshField::Water { WATER_ALPHA } else { 1.0 };
    let mut vertices = Vec::with_capacity(mesh.triangles.len() * 3);
    for (triangle, &material) in mesh.triangles.iter().zip(&mesh.materials) {
        let [r, g, b] = palette::linear(material_colour(material));
        for &i in triangle {
            vertices.push(TerrainVertex {
                position: mesh.positions[i as usize].into(),
                normal: mesh.normals[i as usize].into(),
                colour: [r, g, b, alpha],
            });
        }
    }
    let buffer = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: Some("terrain chunk"),
        contents: bytemuck::cast_slice(&vertices),
        usage: wgpu::BufferUsages::VERTEX,
    });
    Some(FieldBuffer { vertices: buffer, count: vertices.len() as u32 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn c(x: i32) -> ChunkCoord {
        ChunkCoord::new(x, 0, 0)
    }

    #[test]
    fn edits_chain_from_the_drawn_stamp_to_the_world_stamp() {
        let edits = vec![(3, 5, vec![c(2), c(1)]), (5, 9, vec![c(1), c(4)])];
        assert_eq!(chained(&edits, 3, 9), Some(vec![c(1), c(2), c(4)]));
        assert_eq!(chained(&edits, 4, 9), None, "an edit the buffers never saw");
        assert_eq!(chained(&edits, 3, 10), None, "a change that was not recorded");
        assert_eq!(chained(&[], 7, 7), Some(vec![]));
    }
}
