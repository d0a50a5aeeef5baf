//! The debug overlays as line segments: tight and fat AABBs, contact points and normals,
//! velocity vectors and the broadphase tree, built on the CPU each frame.

use super::palette;
use super::view::Overlays;
use atoll_physics::broadphase::ProxyType;
use atoll_physics::{Aabb, BodyType, World};
use glam::Vec3;

/// One end of a line segment, laid out as the line shader's vertex attributes.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, bytemuck::Pod, bytemuck::Zeroable)]
pub struct LineVertex {
    /// World position.
    pub position: [f32; 3],
    /// Linear RGBA in bytes (the shader reads it as `Unorm8x4`): 16-byte vertices instead of
    /// 28 halve the upload, which with every overlay on 2000 bodies is several megabytes.
    pub colour: [u8; 4],
}

/// Colours of the overlays (sRGB).
const TIGHT_AABB: [u8; 3] = [120, 230, 140];
const FAT_AABB: [u8; 3] = [250, 210, 90];
const CONTACT_POINT: [u8; 3] = [255, 60, 60];
const CONTACT_NORMAL: [u8; 3] = [255, 255, 255];
const VELOCITY: [u8; 3] = [80, 220, 255];
const MARKER: [u8; 3] = [255, 230, 40];
const AXES: [[u8; 3]; 3] = [[240, 70, 70], [90, 220, 90], [80, 130, 255]];

/// Length of a drawn contact normal without impulse, in metres.
const NORMAL_LENGTH: f32 = 0.15;
/// Extra normal length per newton-second of normal impulse, capped at [`MAX_IMPULSE_LENGTH`].
const METRES_PER_IMPULSE: f32 = 0.02;
const MAX_IMPULSE_LENGTH: f32 = 1.5;
/// Seconds of motion a velocity arrow spans (a 1 m/s body gets a 0.25 m arrow).
const VELOCITY_SECONDS: f32 = 0.25;

/// The overlay colours in linear RGBA, converted once per frame rather than per segment (the
/// sRGB decode costs three `powf`s, which dominated the line build with 2000 bodies).
struct Colours {
    marker: [u8; 4],
    tight: [u8; 4],
    fat: [u8; 4],
    axes: [[u8; 4]; 3],
    velocity: [u8; 4],
    contact_point: [u8; 4],
    contact_normal: [u8; 4],
}

impl Colours {
    fn new() -> Colours {
        Colours {
            marker: rgba(MARKER, 1.0),
            tight: rgba(TIGHT_AABB, 1.0),
            fat: rgba(FAT_AABB, 0.8),
            axes: AXES.map(|c| rgba(c, 1.0)),
            velocity: rgba(VELOCITY, 1.0),
            contact_point: rgba(CONTACT_POINT, 1.0),
            contact_normal: rgba(CONTACT_NORMAL, 1.0),
        }
    }
}

/// Builds the segments of every enabled overlay and the marker (two vertices per segment).
pub fn build(world: &World, overlays: &Overlays, marker: Option<(Vec3, Vec3)>) -> Vec<LineVertex> {
    let mut out = Vec::new();
    build_into(&mut out, world, overlays, marker);
    out
}

/// [`build`] into a vector the caller keeps: with every overlay on 2000 bodies the lines are
/// megabytes, and a fresh allocation each frame costs page faults that dwarf the building.
pub fn build_into(
    out: &mut Vec<LineVertex>,
    world: &World,
    overlays: &Overlays,
    marker: Option<(Vec3, Vec3)>,
) {
    out.clear();
    let colours = Colours::new();
    if let Some((point, normal)) = marker {
        push_cross(out, point, 0.15, colours.marker);
        push(out, point, point + normal * 0.6, colours.marker);
    }
    if !overlays.any() {
        return;
    }
    let per_body = 24 * (overlays.aabbs as usize + overlays.fat_aabbs as usize)
        + 6 * overlays.axes as usize
        + 2 * overlays.velocities as usize;
    out.reserve(per_body * world.body_count());
    for id in world.body_ids() {
        let Ok(body) = world.body(id) else { continue };
        if overlays.aabbs
            && let Ok(aabb) = world.aabb(id)
        {
            push_box(out, &aabb, colours.tight);
        }
        if overlays.fat_aabbs
            && body.body_type != BodyType::Static
            && let Ok(aabb) = world.fat_aabb(id)
        {
            push_box(out, &aabb, colours.fat);
        }
        if overlays.axes {
            let (position, rotation) = (body.transform.position, body.transform.rotation);
            let size = world.aabb(id).map_or(0.5, |b| (b.max - b.min).min_element() * 0.6);
            for (axis, colour) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().zip(colours.axes) {
                push(out, position, position + rotation * axis * size, colour);
            }
        }
        if overlays.velocities && body.body_type != BodyType::Static {
            let from = body.center_of_mass;
            let to = from + body.linear_velocity * VELOCITY_SECONDS;
            if from.distance_squared(to) > 1e-6 {
                push(out, from, to, colours.velocity);
            }
        }
    }
    if overlays.contacts {
        for contact in world.touching_contacts() {
            for (point, impulse) in contact.manifold.points().iter().zip(&contact.impulses) {
                push_cross(out, point.position, 0.04, colours.contact_point);
                let length =
                    NORMAL_LENGTH + (impulse.normal.max(0.0) * METRES_PER_IMPULSE).min(MAX_IMPULSE_LENGTH);
                let tip = point.position + contact.manifold.normal * length;
                push(out, point.position, tip, colours.contact_normal);
            }
        }
    }
    if overlays.tree {
        let tree = world.broadphase().tree(ProxyType::Movable);
        let root_height = tree.stats().height;
        // One colour per depth, from the root (hot) to the leaves (cold).
        let by_depth: Vec<[u8; 4]> = (0..=root_height)
            .map(|depth| rgba(palette::heat(1.0 - depth as f32 / root_height.max(1) as f32), 0.7))
            .collect();
        tree.for_each_node(|aabb, _, depth, is_leaf| {
            if !is_leaf && depth <= overlays.tree_depth {
                // The deepest node is at the root's height.
                push_box(out, aabb, by_depth[depth.min(root_height) as usize]);
            }
        });
    }
}

pub(super) fn rgba(srgb: [u8; 3], alpha: f32) -> [u8; 4] {
    let [r, g, b] = palette::linear(srgb);
    [r, g, b, alpha].map(|c| (c.clamp(0.0, 1.0) * 255.0).round() as u8)
}

pub(super) fn push(out: &mut Vec<LineVertex>, a: Vec3, b: Vec3, colour: [u8; 4]) {
    out.extend_from_slice(&[
        LineVertex { position: a.into(), colour },
        LineVertex { position: b.into(), colour },
    ]);
}

// The shapes below go in with one `extend_from_slice` each rather than a push per vertex: with
// every overlay on a busy scene there are a few hundred thousand vertices a frame, and one
// capacity check per shape instead of per vertex is measurably cheaper.

pub(super) fn push_cross(out: &mut Vec<LineVertex>, p: Vec3, half: f32, colour: [u8; 4]) {
    let vertex = |q: Vec3| LineVertex { position: q.into(), colour };
    let (x, y, z) = (Vec3::X * half, Vec3::Y * half, Vec3::Z * half);
    out.extend_from_slice(&[p - x, p + x, p - y, p + y, p - z, p + z].map(vertex));
}

/// The twelve edges of an axis-aligned box.
pub(super) fn push_box(out: &mut Vec<LineVertex>, aabb: &Aabb, colour: [u8; 4]) {
    let (lo, hi) = (aabb.min, aabb.max);
    let corner = |i: usize| LineVertex {
        position: [
            if i & 1 == 0 { lo.x } else { hi.x },
            if i & 2 == 0 { lo.y } else { hi.y },
            if i & 4 == 0 { lo.z } else { hi.z },
        ],
        colour,
    };
    // Each edge joins a corner to the one that differs in a single axis bit.
    const EDGES: [(usize, usize); 12] =
        [(0, 1), (0, 2), (0, 4), (1, 3), (1, 5), (2, 3), (2, 6), (3, 7), (4, 5), (4, 6), (5, 7), (6, 7)];
    let vertices: [LineVertex; 24] = std::array::from_fn(|k| {
        let (a, b) = EDGES[k / 2];
        corner(if k % 2 == 0 { a } else { b })
    });
    out.extend_from_slice(&vertices);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_overlay_adds_its_segments() {
        let (mut world, _) = crate::builtin::tower(3).build_world().unwrap();
        for _ in 0..30 {
            world.step();
        }
        let only = |overlays: Overlays| build(&world, &overlays, None).len();
        assert_eq!(only(Overlays::default()), 0);
        assert_eq!(only(Overlays { aabbs: true, ..Default::default() }), world.body_count() * 24);
        assert_eq!(only(Overlays { axes: true, ..Default::default() }), world.body_count() * 6);
        assert!(only(Overlays { contacts: true, ..Default::default() }) > 0);
        let shallow = only(Overlays { tree: true, tree_depth: 0, ..Default::default() });
        assert_eq!(shallow, 24, "depth 0 is the root alone");
        assert!(only(Overlays { tree: true, tree_depth: 10, ..Default::default() }) > shallow);
        assert_eq!(build(&world, &Overlays::default(), Some((Vec3::ZERO, Vec3::Y))).len(), 8);
    }

    #[test]
    fn the_tree_overlay_colours_each_box_by_its_depth() {
        // A rain spawned together, five steps on: its movable tree, grown or built by
        // spatial splits, has siblings of different heights; each box still takes its own
        // depth's colour.
        let (mut world, _) = atoll_physics::scene::builtin::rain_boxes_balls(500).build_world().unwrap();
        for _ in 0..5 {
            world.step();
        }
        let tree = world.broadphase().tree(ProxyType::Movable);
        let stats = tree.stats();
        let colour = |depth: u32| rgba(palette::heat(1.0 - depth as f32 / stats.height as f32), 0.7);
        let mut expected = Vec::new();
        tree.for_each_node(|_, _, depth, is_leaf| {
            if !is_leaf && depth <= 3 {
                expected.extend([colour(depth); 24]);
            }
        });
        let drawn: Vec<[u8; 4]> =
            build(&world, &Overlays { tree: true, tree_depth: 3, ..Default::default() }, None)
                .iter()
                .map(|v| v.colour)
                .collect();
        assert_eq!(drawn.len(), 24 * 15, "the root and 14 boxes under it down to depth 3");
        assert_eq!(drawn, expected);
        assert_eq!(drawn[0], colour(0));
        // Every internal node shows at the deepest setting.
        let all = build(&world, &Overlays { tree: true, tree_depth: 32, ..Default::default() }, None).len();
        assert_eq!(all, 24 * (stats.node_count - stats.proxy_count) as usize);
    }
}
