//! Terrain lines over the viewport: the paint brush as a wire sphere, and for the chunk under
//! the pointer its dilated solid mask and the boxes of its kD tree nodes.

use super::lines::{LineVertex, push, push_box, push_cross, rgba};
use super::palette;
use super::view::ViewOptions;
use atoll_physics::terrain::{CHUNK_SIZE, ChunkCoord, KdTree, Terrain};
use atoll_physics::{Aabb, World};
use glam::Vec3;

const BRUSH: [u8; 3] = [255, 240, 120];
const CHUNK_BOX: [u8; 3] = [255, 255, 255];
const MASK_BIT: [u8; 3] = [255, 120, 60];
/// Segments of each of the brush's three great circles.
const CIRCLE_SEGMENTS: usize = 40;
/// kD levels drawn below the root (deeper ones are a blur of boxes).
const KD_DEPTH: u32 = 7;

/// Appends the brush and the terrain overlays `view` asks for.
pub fn append(out: &mut Vec<LineVertex>, world: &World, view: &ViewOptions) {
    if let Some((centre, radius)) = view.brush {
        push_sphere(out, centre, radius, rgba(BRUSH, 1.0));
    }
    let Some(chunk) = view.terrain_chunk else { return };
    let terrain = world.terrain();
    if view.terrain_overlays.masks || view.terrain_overlays.kd_nodes {
        push_box(out, &terrain.chunk_aabb(chunk), rgba(CHUNK_BOX, 0.8));
    }
    if view.terrain_overlays.masks {
        push_mask_bits(out, terrain, chunk);
    }
    if view.terrain_overlays.kd_nodes {
        let collision = terrain.chunk_collision(chunk);
        if let Some(c) = collision {
            let (origin, s) = (terrain.chunk_origin(chunk), terrain.voxel_size());
            let to_world = |b: Aabb| Aabb::new(origin + b.min * s, origin + b.max * s);
            kd_node_boxes(&c.tree, c.mesh.triangle_count(), |depth, local| {
                let colour = rgba(palette::heat(1.0 - depth as f32 / KD_DEPTH as f32), 0.8);
                push_box(out, &to_world(local), colour);
            });
        }
    }
}

/// Three great circles, one around each axis.
fn push_sphere(out: &mut Vec<LineVertex>, centre: Vec3, radius: f32, colour: [u8; 4]) {
    let planes = [(Vec3::X, Vec3::Y), (Vec3::Y, Vec3::Z), (Vec3::Z, Vec3::X)];
    for (u, v) in planes {
        let at = |k: usize| {
            let angle = std::f32::consts::TAU * k as f32 / CIRCLE_SEGMENTS as f32;
            centre + (u * angle.cos() + v * angle.sin()) * radius
        };
        for k in 0..CIRCLE_SEGMENTS {
            push(out, at(k), at(k + 1), colour);
        }
    }
}

/// A small cross at every voxel whose solid mask bit is set (a full chunk: every voxel).
fn push_mask_bits(out: &mut Vec<LineVertex>, terrain: &Terrain, chunk: ChunkCoord) {
    let Some(mask) = terrain.mask(chunk) else { return };
    let solid = mask.solid();
    let (origin, s) = (terrain.chunk_origin(chunk), terrain.voxel_size());
    let colour = rgba(MASK_BIT, 1.0);
    for (y, slice) in solid.iter().enumerate() {
        for bit in 0..64 {
            if slice >> bit & 1 == 1 {
                let (x, z) = (bit % CHUNK_SIZE as usize, bit / CHUNK_SIZE as usize);
                let centre = origin + (Vec3::new(x as f32, y as f32, z as f32) + 0.5) * s;
                push_cross(out, centre, 0.2 * s, colour);
            }
        }
    }
}

/// Calls `f(depth, box)` for every inner node of `tree` down to [`KD_DEPTH`], with the node's
/// box in the chunk's local voxel units: the root's box is the tree's bounds, and each child's
/// is its parent's cut by that child's own plane (the left child lies below `left_max`, the
/// right above `right_min`, so the two may overlap: the tree is loose).
fn kd_node_boxes(tree: &KdTree, triangles: usize, mut f: impl FnMut(u32, Aabb)) {
    use atoll_physics::terrain::kdtree::LEAF_SIZE;
    // (node index, first triangle, end, depth, box)
    let mut stack = vec![(0usize, 0usize, triangles, 0u32, tree.bounds())];
    while let Some((node, lo, hi, depth, bounds)) = stack.pop() {
        if hi - lo <= LEAF_SIZE || depth > KD_DEPTH {
            continue;
        }
        f(depth, bounds);
        let n = tree.nodes()[node];
        let axis = n.axis();
        let (mut left, mut right) = (bounds, bounds);
        left.max[axis] = n.left_max;
        right.min[axis] = n.right_min;
        stack.push((n.right(), n.split(), hi, depth + 1, right));
        stack.push((node + 1, lo, n.split(), depth + 1, left));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::render::view::TerrainOverlays;
    use atoll_physics::Ray;
    use atoll_physics::scene::builtin::terrain_hills;

    #[test]
    fn brush_masks_and_kd_nodes_add_their_lines() {
        let (world, _) = terrain_hills().build_world().unwrap();
        let hit = world
            .terrain()
            .cast_ray(&Ray::new(Vec3::new(-6.0, 50.0, -6.0), Vec3::NEG_Y, 100.0).unwrap())
            .unwrap();
        let lines = |view: &ViewOptions| {
            let mut out = Vec::new();
            append(&mut out, &world, view);
            out.len()
        };
        let mut view = ViewOptions { brush: Some((hit.point, 1.0)), ..Default::default() };
        assert_eq!(lines(&view), 3 * CIRCLE_SEGMENTS * 2);
        view.brush = None;
        view.terrain_chunk = Some(hit.chunk);
        assert_eq!(lines(&view), 0, "no overlay asked for");
        view.terrain_overlays = TerrainOverlays { masks: true, kd_nodes: false };
        let bits: u32 = world.terrain().mask(hit.chunk).unwrap().solid().iter().map(|m| m.count_ones()).sum();
        assert_eq!(lines(&view), 24 + bits as usize * 6);
        view.terrain_overlays = TerrainOverlays { masks: false, kd_nodes: true };
        assert!(lines(&view) > 24 * 3, "the chunk's box and several node boxes");
    }

    #[test]
    fn kd_boxes_contain_their_subtrees_triangles() {
        let terrain = atoll_physics::scene::builtin::hills_terrain();
        let (chunk, _) = terrain
            .chunks()
            .find(|(c, _)| terrain.chunk_collision(*c).is_some_and(|c| c.mesh.triangle_count() > 40))
            .unwrap();
        let c = terrain.chunk_collision(chunk).unwrap();
        let mut boxes = Vec::new();
        kd_node_boxes(&c.tree, c.mesh.triangle_count(), |depth, b| boxes.push((depth, b)));
        assert_eq!(boxes[0].1, c.tree.bounds());
        assert!(boxes.iter().any(|(d, _)| *d >= 2));
        // Every triangle lies in the root box; boxes never grow from parent to child.
        for t in 0..c.mesh.triangle_count() {
            let b = c.mesh.triangle_aabb(t);
            assert!(boxes[0].1.contains(&b));
        }
    }
}
