//! Narrowphase: contact manifolds between pairs of shapes, one file per shape pair family.
//!
//! Every function here works on two shapes and their world transforms and writes a
//! [`Manifold`] whose normal points from shape A to shape B. Points closer than the speculative
//! distance are reported even when the shapes do not touch yet (positive separation), so the
//! solver can stop an approach before it becomes a penetration.

mod capsule;
mod clip;
mod closest;
mod contacts;
mod dispatch;
mod edge_search;
mod feature;
mod gap;
mod pair_map;
mod point_distance;
mod polyhedron;
mod polytope;
mod reduce;
mod reuse;
mod snap;
mod sphere;
mod terrain;
#[cfg(test)]
mod tests;
mod triangle_gap;

pub(crate) use contacts::{
    Contact, ContactStore, ContactsDelta, ContactsState, TERRAIN, TerrainLink, carry_manifold,
    update_manifold,
};
pub use contacts::{ContactId, PointImpulse};
pub use dispatch::collide;
pub use feature::flip_feature;
pub(crate) use gap::{Gap, gap};
pub(crate) use point_distance::closest_on_shape;
pub(crate) use polyhedron::{
    BoxLanes, boxes_out_of_reach, boxes_out_of_reach_by_axes, boxes_out_of_reach_by_axes_four,
};
pub(crate) use reuse::ManifoldAnchors;
pub(crate) use terrain::collide_terrain;
pub(crate) use triangle_gap::{segment_triangle_distance, triangle_gap};

/// How far (metres) the step's bounds on a pair's distance (the full update's and the quick
/// check's) widen the bounding spheres' reach for rounding: far above what a collision's
/// single-precision world coordinates round by within kilometres of the world's origin (a few
/// parts in ten million of them, 6e-5 m a kilometre out), and far below anything that would
/// let through many more pairs. A constant, so it costs nothing.
pub(crate) const SPHERE_REACH_MARGIN: f32 = 1e-3;

use crate::math::Vec3;

/// Numbers in [0, 1) from a linear congruential generator seeded with `seed`: the same random
/// poses on every run, for the narrowphase's tests.
#[cfg(test)]
fn uniform(seed: u32) -> impl FnMut() -> f32 {
    let mut state = seed;
    move || {
        state = state.wrapping_mul(1664525).wrapping_add(1013904223);
        (state >> 8) as f32 / (1u32 << 24) as f32
    }
}

/// Most points a manifold holds.
pub const MAX_MANIFOLD_POINTS: usize = 4;

/// One contact point.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ManifoldPoint {
    /// World position, midway between the two surfaces.
    pub position: Vec3,
    /// Signed distance along the normal: negative when penetrating.
    pub separation: f32,
    /// Identifies the pair of features (faces, edges, vertices) that made this point, so the
    /// same point can be recognised next step and warm-started.
    pub feature: u32,
}

/// The contact points between two shapes, sharing one normal.
///
/// `repr(C, align(16))`, the normal first: wherever a manifold lies (a contact, a collision's
/// result on the stack) its normal starts at a 16-byte boundary, so reading it as one 16-byte
/// load (the vector and the float after it, as the compiled code does) never crosses a cache
/// line. Laid out by the compiler, the normal sat at byte 88 of an 8-byte aligned manifold, and
/// reading back the normal of the manifold a clipping had just returned took a quarter of the
/// shape-pair dispatch's time in a tumbling pile.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(16))]
pub struct Manifold {
    /// World-space unit normal from A to B.
    pub normal: Vec3,
    /// The points; only the first `count` are valid.
    pub points: [ManifoldPoint; MAX_MANIFOLD_POINTS],
    /// How many points are valid.
    pub count: usize,
}

// The normal first, at a 16-byte boundary (see `Manifold`).
const _: () = assert!(std::mem::offset_of!(Manifold, normal) == 0 && std::mem::align_of::<Manifold>() == 16);

impl Manifold {
    /// The valid points.
    pub fn points(&self) -> &[ManifoldPoint] {
        &self.points[..self.count]
    }

    /// Appends a point if there is room.
    pub fn push(&mut self, p: ManifoldPoint) {
        if self.count < MAX_MANIFOLD_POINTS {
            self.points[self.count] = p;
            self.count += 1;
        }
    }
}

/// Data a pair keeps between steps to make the next update cheaper (for example the last
/// separating axis of two polyhedra).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CollideCache {
    /// Last separating or minimum-penetration axis kind and index, implementation defined.
    pub axis: u32,
}
