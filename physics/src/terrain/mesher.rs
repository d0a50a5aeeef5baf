//! Surface nets over a chunk's occupancy field: one vertex per cell (eight samples) that the
//! surface crosses, one quad per sample edge with one end inside and one outside.
//!
//! Ownership: the quad of an edge is emitted by the chunk holding the edge's inside sample.
//! Inside samples are stored voxels, so every quad of the world surface is emitted exactly once
//! (even at the world bounds), and a chunk reads voxels -1..=8 of its local range. A cell's
//! vertex is computed from its eight samples alone and quantised to integer steps, so two chunks
//! that share a cell put its vertex at exactly the same place: the seams are watertight.

use super::voxel::{CHUNK_SIZE, ChunkCoord, SURFACE_LEVEL, Voxel, VoxelMaterial};
use super::{KdTree, Terrain};
use crate::math::{Aabb, Vec3};
use glam::IVec3;
use wide::{f32x4, i32x4};

/// Quantisation steps per voxel of mesh positions. A power of two, so decoding is exact.
pub const POSITION_STEPS: f32 = 4096.0;
/// Voxels of the neighbourhood a chunk's mesh reads along each axis (local -1..=8).
pub(crate) const NEIGHBOURHOOD: i32 = CHUNK_SIZE + 2;

/// Which field to mesh.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MeshField {
    /// Solid materials: what bodies collide with and rays hit.
    Solid,
    /// Water, drawn translucent.
    Water,
}

impl MeshField {
    #[inline]
    fn density(self, v: Voxel) -> u8 {
        match self {
            MeshField::Solid => v.solid_density(),
            MeshField::Water => v.water_density(),
        }
    }
}

/// A chunk's triangles, compact: positions are u16 steps of 1/[`POSITION_STEPS`] voxel from one
/// voxel below the chunk's first corner, a triangle's three vertex indices are packed 10 bits
/// each into a u32 (a chunk has at most 9³ = 729 vertices), and each triangle has a one-byte
/// material: 6 bytes per vertex and 5 per triangle. Local coordinates are in voxels from the
/// chunk's first corner.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChunkMesh {
    positions: Vec<[u16; 3]>,
    triangles: Vec<u32>,
    materials: Vec<VoxelMaterial>,
}

/// A box in local voxel units as the quantised positions it holds: a position's step `q` on
/// axis `a` lies in the box exactly when `min[a] <= q <= max[a]`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct QuantizedBox {
    min: [i32; 3],
    max: [i32; 3],
}

impl QuantizedBox {
    /// The steps within `b`. A position decodes exactly to `q / POSITION_STEPS - 1`, so `q`
    /// lies at or above `b.min` when `q >= ceil(b.min * POSITION_STEPS) + POSITION_STEPS`: the
    /// product is exact (a power of two), and the whole number is added after rounding, where
    /// adding it first could round the sum across a step.
    pub(crate) fn new(b: &Aabb) -> QuantizedBox {
        const OFFSET: i32 = POSITION_STEPS as i32;
        // `as` saturates: an infinite bound keeps every step on its side.
        let min = b.min.to_array().map(|x| ceil_to_i32(x * POSITION_STEPS).saturating_add(OFFSET));
        let max = b.max.to_array().map(|x| floor_to_i32(x * POSITION_STEPS).saturating_add(OFFSET));
        QuantizedBox { min, max }
    }
}

/// `x.floor() as i32` without a call: on plain x86-64 (no `roundss` before SSE4.1) `floor`
/// compiles to a call to `floorf`. The truncation, one lower when it rounded up; saturating,
/// and NaN to 0, as `as` is.
#[inline]
fn floor_to_i32(x: f32) -> i32 {
    let t = x as i32;
    if (t as f32) > x { t.saturating_sub(1) } else { t }
}

/// `x.ceil() as i32`, as [`floor_to_i32`]: the truncation, one higher when it rounded down.
#[inline]
fn ceil_to_i32(x: f32) -> i32 {
    let t = x as i32;
    if (t as f32) < x { t.saturating_add(1) } else { t }
}

/// Bits per packed vertex index.
const INDEX_BITS: u32 = 10;

fn pack([a, b, c]: [u16; 3]) -> u32 {
    a as u32 | (b as u32) << INDEX_BITS | (c as u32) << (2 * INDEX_BITS)
}

impl ChunkMesh {
    /// Number of triangles.
    pub fn triangle_count(&self) -> usize {
        self.triangles.len()
    }

    /// Number of vertices.
    pub fn vertex_count(&self) -> usize {
        self.positions.len()
    }

    /// True when there are no triangles.
    pub fn is_empty(&self) -> bool {
        self.triangles.is_empty()
    }

    /// Quantised vertex positions.
    pub fn quantized_positions(&self) -> &[[u16; 3]] {
        &self.positions
    }

    /// Vertex indices of triangle `t`, counter-clockwise seen from outside.
    #[inline]
    pub fn triangle_indices(&self, t: usize) -> [u16; 3] {
        let p = self.triangles[t];
        let mask = (1 << INDEX_BITS) - 1;
        [(p & mask) as u16, (p >> INDEX_BITS & mask) as u16, (p >> (2 * INDEX_BITS)) as u16]
    }

    /// Material of each triangle.
    pub fn materials(&self) -> &[VoxelMaterial] {
        &self.materials
    }

    /// Vertex `i` in local voxel units.
    #[inline]
    pub fn position(&self, i: usize) -> Vec3 {
        let q = self.positions[i];
        Vec3::new(q[0] as f32, q[1] as f32, q[2] as f32) / POSITION_STEPS - Vec3::ONE
    }

    /// Does triangle `t`'s box overlap `b` (edges touching count)? The same answer as
    /// comparing [`ChunkMesh::triangle_aabb`] with the box `b` was made from (a box without
    /// NaN: the kD query refuses those first), in integer steps without decoding a position.
    #[inline]
    pub(crate) fn triangle_overlaps(&self, t: usize, b: &QuantizedBox) -> bool {
        let [i, j, k] = self.triangle_indices(t);
        let (p, q, r) = (self.positions[i as usize], self.positions[j as usize], self.positions[k as usize]);
        // All six comparisons, joined without a branch: whether a triangle of a body's
        // neighbourhood lies beyond the box follows no pattern a branch predictor finds.
        let mut overlaps = true;
        for a in 0..3 {
            let (lo, hi) = (p[a].min(q[a]).min(r[a]) as i32, p[a].max(q[a]).max(r[a]) as i32);
            overlaps &= (lo <= b.max[a]) & (hi >= b.min[a]);
        }
        overlaps
    }

    /// The corners of triangle `t` in local voxel units.
    #[inline]
    pub fn triangle(&self, t: usize) -> [Vec3; 3] {
        let [a, b, c] = self.triangle_indices(t);
        [self.position(a as usize), self.position(b as usize), self.position(c as usize)]
    }

    /// The corners of triangles `lo..lo + n` (`n` 1 to 4), one triangle per lane: `[a, b, c]`,
    /// each as x, y and z lanes in local voxel units. Lanes from `n` on repeat triangle `lo`
    /// (the caller ignores them). The positions are converted four at a time; the scale is a
    /// power of two, so each lane equals [`ChunkMesh::triangle`]'s corner exactly.
    #[inline]
    pub(crate) fn corners4(&self, lo: usize, n: usize) -> [[f32x4; 3]; 3] {
        let mask = (1 << INDEX_BITS) - 1;
        let mut q = [[[0i32; 4]; 3]; 3];
        for k in 0..4 {
            let p = self.triangles[if k < n { lo + k } else { lo }];
            for (corner, lanes) in q.iter_mut().enumerate() {
                let v = self.positions[(p >> (corner as u32 * INDEX_BITS) & mask) as usize];
                for axis in 0..3 {
                    lanes[axis][k] = i32::from(v[axis]);
                }
            }
        }
        let (scale, one) = (f32x4::splat(1.0 / POSITION_STEPS), f32x4::splat(1.0));
        q.map(|corner| corner.map(|lanes| i32x4::from(lanes).round_float() * scale - one))
    }

    /// The box around triangle `t`, local voxel units.
    #[inline]
    pub fn triangle_aabb(&self, t: usize) -> Aabb {
        let [a, b, c] = self.triangle(t);
        Aabb::new(a.min(b).min(c), a.max(b).max(c))
    }

    /// Heap bytes of the mesh data.
    pub fn bytes(&self) -> usize {
        self.positions.len() * 6 + self.triangles.len() * 4 + self.materials.len()
    }

    /// Puts the triangles in the order `order` (the kD tree's leaf order).
    pub(crate) fn reorder(&mut self, order: &[u16]) {
        self.triangles = order.iter().map(|&t| self.triangles[t as usize]).collect();
        self.materials = order.iter().map(|&t| self.materials[t as usize]).collect();
    }
}

/// A chunk's collision data: the mesh and its kD tree (the mesh's triangles in tree order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ChunkCollision {
    /// The triangles.
    pub mesh: ChunkMesh,
    /// The tree over them.
    pub tree: KdTree,
}

impl ChunkCollision {
    /// Heap bytes of mesh and tree.
    pub fn bytes(&self) -> usize {
        self.mesh.bytes() + self.tree.bytes()
    }
}

/// A chunk's triangles for drawing: world positions and smooth normals.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderMesh {
    /// Vertex positions, world space.
    pub positions: Vec<Vec3>,
    /// Unit normals from the field's gradient, identical on both sides of a seam.
    pub normals: Vec<Vec3>,
    /// Vertex indices per triangle.
    pub triangles: Vec<[u16; 3]>,
    /// Material per triangle.
    pub materials: Vec<VoxelMaterial>,
}

/// Cell corners, bit 0 = +x, bit 1 = +y, bit 2 = +z.
const CORNERS: [IVec3; 8] = {
    let mut c = [IVec3::ZERO; 8];
    let mut i = 0;
    while i < 8 {
        c[i] = IVec3::new((i & 1) as i32, ((i >> 1) & 1) as i32, ((i >> 2) & 1) as i32);
        i += 1;
    }
    c
};

/// The 12 cell edges as pairs of corners.
const EDGES: [(usize, usize); 12] =
    [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7)];

/// Cells of a chunk's mesh along each axis (local -1..=7).
const CELLS: i32 = CHUNK_SIZE + 1;
// Every vertex index fits the packed triangle's 10 bits.
const _: () = assert!(CELLS * CELLS * CELLS <= 1 << INDEX_BITS);

/// Meshes one chunk from its neighbourhood: `n` holds local voxels -1..=8 per axis, x fastest,
/// then z, then y. With `normals`, also writes one normal per vertex.
pub fn mesh(n: &[Voxel], field: MeshField, mut normals: Option<&mut Vec<Vec3>>) -> ChunkMesh {
    assert_eq!(n.len(), (NEIGHBOURHOOD * NEIGHBOURHOOD * NEIGHBOURHOOD) as usize);
    let at = |p: IVec3| {
        let l = p + IVec3::ONE;
        n[(l.x + NEIGHBOURHOOD * (l.z + NEIGHBOURHOOD * l.y)) as usize]
    };
    let density = |p: IVec3| field.density(at(p));
    let inside = |p: IVec3| density(p) >= SURFACE_LEVEL;
    let mut mesh = ChunkMesh::default();
    let mut cell_vertex = vec![u16::MAX; (CELLS * CELLS * CELLS) as usize];
    let mut vertex = |c: IVec3, mesh: &mut ChunkMesh, normals: &mut Option<&mut Vec<Vec3>>| -> u16 {
        let l = c + IVec3::ONE;
        let slot = &mut cell_vertex[(l.x + CELLS * (l.z + CELLS * l.y)) as usize];
        if *slot == u16::MAX {
            let d: [f32; 8] = std::array::from_fn(|k| density(c + CORNERS[k]) as f32);
            let off = cell_offset(&d);
            let q = |axis: usize| {
                let base = (c[axis] + 1) as f32 * POSITION_STEPS + POSITION_STEPS * 0.5;
                (base + (off[axis] * POSITION_STEPS).round()) as u16
            };
            *slot = mesh.positions.len() as u16;
            mesh.positions.push([q(0), q(1), q(2)]);
            if let Some(out) = normals.as_deref_mut() {
                out.push(gradient_normal(&d, off));
            }
        }
        *slot
    };
    for y in 0..CHUNK_SIZE {
        for z in 0..CHUNK_SIZE {
            for x in 0..CHUNK_SIZE {
                let s = IVec3::new(x, y, z);
                if !inside(s) {
                    continue;
                }
                let material = match field {
                    MeshField::Solid => at(s).material,
                    MeshField::Water => VoxelMaterial::Water,
                };
                for k in 0..3 {
                    let (e, eu, ev) = (IVec3::AXES[k], IVec3::AXES[(k + 1) % 3], IVec3::AXES[(k + 2) % 3]);
                    for up in [false, true] {
                        let other = if up { s + e } else { s - e };
                        if inside(other) {
                            continue;
                        }
                        let a = if up { s } else { other };
                        let quad =
                            [a - eu - ev, a - ev, a, a - eu].map(|c| vertex(c, &mut mesh, &mut normals));
                        // Counter-clockwise about +k when the inside end is the lower one.
                        let [q0, q1, q2, q3] = if up { quad } else { [quad[0], quad[3], quad[2], quad[1]] };
                        mesh.triangles.push(pack([q0, q1, q2]));
                        mesh.triangles.push(pack([q0, q2, q3]));
                        mesh.materials.push(material);
                        mesh.materials.push(material);
                    }
                }
            }
        }
    }
    mesh
}

/// Where a cell's vertex sits inside the cell's sample cube (0..1 per axis): the mean of the
/// points where the surface crosses its edges.
fn cell_offset(d: &[f32; 8]) -> Vec3 {
    let level = SURFACE_LEVEL as f32 - 0.5;
    let mut sum = Vec3::ZERO;
    let mut count = 0.0;
    for &(i, j) in &EDGES {
        if (d[i] > level) != (d[j] > level) {
            let t = (level - d[i]) / (d[j] - d[i]);
            sum += CORNERS[i].as_vec3().lerp(CORNERS[j].as_vec3(), t);
            count += 1.0;
        }
    }
    if count == 0.0 { Vec3::splat(0.5) } else { sum / count }
}

/// Minus the trilinear gradient of the density at `off`, normalised: the outward normal.
fn gradient_normal(d: &[f32; 8], off: Vec3) -> Vec3 {
    let w = |bit: i32, t: f32| if bit == 1 { t } else { 1.0 - t };
    let mut g = Vec3::ZERO;
    for (k, c) in CORNERS.iter().enumerate() {
        let sign = c.as_vec3() * 2.0 - Vec3::ONE;
        g += d[k]
            * Vec3::new(
                sign.x * w(c.y, off.y) * w(c.z, off.z),
                sign.y * w(c.x, off.x) * w(c.z, off.z),
                sign.z * w(c.x, off.x) * w(c.y, off.y),
            );
    }
    (-g).try_normalize().unwrap_or(Vec3::Y)
}

impl Terrain {
    /// Local voxels -1..=8 of chunk `c` (x fastest, then z, then y), the input of its mesh.
    pub fn neighbourhood(&self, c: ChunkCoord) -> Vec<Voxel> {
        let o = c.origin_voxel();
        self.read_box(o - IVec3::ONE, o + IVec3::splat(CHUNK_SIZE))
    }

    /// Builds chunk `c`'s mesh and kD tree without the cache (what the cache stores).
    pub fn build_chunk_collision(&self, c: ChunkCoord) -> ChunkCollision {
        let mut mesh = mesh(&self.neighbourhood(c), MeshField::Solid, None);
        let tree = KdTree::build(&mut mesh);
        ChunkCollision { mesh, tree }
    }

    /// Chunk `c`'s triangles of `field` for drawing, in world space with smooth normals.
    pub fn render_mesh(&self, c: ChunkCoord, field: MeshField) -> RenderMesh {
        let mut normals = Vec::new();
        let m = mesh(&self.neighbourhood(c), field, Some(&mut normals));
        let origin = self.chunk_origin(c);
        let s = self.voxel_size();
        RenderMesh {
            positions: (0..m.vertex_count()).map(|i| origin + m.position(i) * s).collect(),
            normals,
            triangles: (0..m.triangle_count()).map(|t| m.triangle_indices(t)).collect(),
            materials: m.materials,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The roundings without the library call give what `floor` and `ceil` then `as` give, on
    /// whole and fractional values of both signs and the floats on either side of each, the
    /// ends of `i32`, infinities, NaN of both signs and random bit patterns; and a box of
    /// infinite bounds keeps every step inside it.
    #[test]
    fn the_roundings_to_whole_steps_are_floor_and_ceil() {
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            1e-40,
            -1e-40,
            4095.999,
            -4095.999,
            8_388_607.5,
            -8_388_607.5,
            16_777_216.0,
            2_147_483_520.0,
            2_147_483_648.0,
            -2_147_483_520.0,
            -2_147_483_648.0,
            -2_147_483_904.0,
            f32::from_bits(1),
            -f32::from_bits(1),
            1e30,
            -1e30,
            f32::MAX,
            f32::MIN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            -f32::NAN,
        ];
        let neighbours: Vec<f32> = values.iter().flat_map(|v| [v.next_up(), v.next_down()]).collect();
        values.extend(neighbours);
        let mut seed = 0x9e37_79b9_u32;
        for _ in 0..100_000 {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            values.push(f32::from_bits(seed));
            values.push((seed as i32 >> 8) as f32 / 64.0);
        }
        for x in values {
            assert_eq!(floor_to_i32(x), x.floor() as i32, "floor of {x:e}");
            assert_eq!(ceil_to_i32(x), x.ceil() as i32, "ceil of {x:e}");
        }
        let everything = QuantizedBox::new(&Aabb::new(Vec3::NEG_INFINITY, Vec3::INFINITY));
        assert_eq!(
            everything,
            QuantizedBox { min: [i32::MIN + POSITION_STEPS as i32; 3], max: [i32::MAX; 3] }
        );
    }
}
