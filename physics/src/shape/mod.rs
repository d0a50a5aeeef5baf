//! Collision shapes: sphere, capsule, box and convex hull; their mass properties, support
//! functions, bounds and ray casts. Every shape is defined in its body's local frame.

mod contains;
mod hull;
mod mass;
mod quickhull;
mod raycast;
mod scan_rows;

pub use hull::{ConvexHull, HullEdge, HullFace, MAX_HULL_VERTICES};
pub use mass::MassProperties;
pub use raycast::RayHit;

use crate::error::{AtollError, check_positive};
use crate::math::{Aabb, Transform, Vec3};
use std::sync::Arc;

/// A convex collision shape in its body's local frame.
///
/// Hulls are shared immutable geometry behind an `Arc`, so cloning a shape (and snapshotting a
/// world) never copies vertex data.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A ball centred on the origin.
    Sphere {
        /// Radius in metres.
        radius: f32,
    },
    /// A segment along local Y from `-half_height` to `+half_height`, swept by `radius`.
    Capsule {
        /// Half the length of the inner segment.
        half_height: f32,
        /// Radius in metres.
        radius: f32,
    },
    /// A box centred on the origin.
    Cuboid {
        /// Half the size along each local axis.
        half_extents: Vec3,
    },
    /// A convex polyhedron.
    Hull(Arc<ConvexHull>),
}

/// Which kind of shape, without its data (for counters, colours and dispatch tables).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum ShapeKind {
    /// [`Shape::Sphere`]
    Sphere,
    /// [`Shape::Capsule`]
    Capsule,
    /// [`Shape::Cuboid`]
    Cuboid,
    /// [`Shape::Hull`]
    Hull,
}

impl Shape {
    /// A sphere; the radius must be finite and positive.
    pub fn sphere(radius: f32) -> Result<Shape, AtollError> {
        Ok(Shape::Sphere { radius: check_positive("sphere radius", radius)? })
    }

    /// A capsule along local Y; both sizes must be finite and positive.
    pub fn capsule(half_height: f32, radius: f32) -> Result<Shape, AtollError> {
        Ok(Shape::Capsule {
            half_height: check_positive("capsule half height", half_height)?,
            radius: check_positive("capsule radius", radius)?,
        })
    }

    /// A box from its half extents; each must be finite and positive.
    pub fn cuboid(half_extents: Vec3) -> Result<Shape, AtollError> {
        check_positive("box half extent x", half_extents.x)?;
        check_positive("box half extent y", half_extents.y)?;
        check_positive("box half extent z", half_extents.z)?;
        Ok(Shape::Cuboid { half_extents })
    }

    /// The convex hull of a point cloud (see [`ConvexHull::from_points`]).
    pub fn hull(points: &[Vec3]) -> Result<Shape, AtollError> {
        Ok(Shape::Hull(Arc::new(ConvexHull::from_points(points)?)))
    }

    /// Which kind of shape this is.
    pub fn kind(&self) -> ShapeKind {
        match self {
            Shape::Sphere { .. } => ShapeKind::Sphere,
            Shape::Capsule { .. } => ShapeKind::Capsule,
            Shape::Cuboid { .. } => ShapeKind::Cuboid,
            Shape::Hull(_) => ShapeKind::Hull,
        }
    }

    /// The local-space bounding box.
    pub fn local_aabb(&self) -> Aabb {
        match self {
            Shape::Sphere { radius } => Aabb::from_center_half_extents(Vec3::ZERO, Vec3::splat(*radius)),
            Shape::Capsule { half_height, radius } => {
                Aabb::from_center_half_extents(Vec3::ZERO, Vec3::new(*radius, half_height + radius, *radius))
            }
            Shape::Cuboid { half_extents } => Aabb::from_center_half_extents(Vec3::ZERO, *half_extents),
            Shape::Hull(h) => h.local_aabb(),
        }
    }

    /// The box around the shape placed at `xf`. Spheres and capsules get their exact box: the
    /// rotated local box (what boxes and hulls get) is up to √3 times wider for a turned ball,
    /// and on a rain of balls those wider boxes made about a third more broadphase pairs.
    pub fn world_aabb(&self, xf: &Transform) -> Aabb {
        match self {
            Shape::Sphere { radius } => Aabb::from_center_half_extents(xf.position, Vec3::splat(*radius)),
            Shape::Capsule { half_height, radius } => {
                // The segment's half extent along each world axis, plus the radius.
                let axis = xf.rotation * Vec3::new(0.0, *half_height, 0.0);
                Aabb::from_center_half_extents(xf.position, axis.abs() + Vec3::splat(*radius))
            }
            Shape::Cuboid { .. } | Shape::Hull(_) => Aabb::transformed(&self.local_aabb(), xf),
        }
    }

    /// The point of the shape farthest along `dir` (local space; `dir` need not be unit).
    pub fn support(&self, dir: Vec3) -> Vec3 {
        match self {
            Shape::Sphere { radius } => dir.normalize_or(Vec3::Y) * *radius,
            Shape::Capsule { half_height, radius } => {
                let tip = Vec3::new(0.0, if dir.y >= 0.0 { *half_height } else { -*half_height }, 0.0);
                tip + dir.normalize_or(Vec3::Y) * *radius
            }
            Shape::Cuboid { half_extents } => Vec3::new(
                half_extents.x.copysign(dir.x),
                half_extents.y.copysign(dir.y),
                half_extents.z.copysign(dir.z),
            ),
            Shape::Hull(h) => h.vertices()[h.support_index(dir)],
        }
    }

    /// The radius of the smallest sphere about the local origin that holds the shape; used to
    /// bound how far a rotation can move a surface point.
    pub fn bounding_radius(&self) -> f32 {
        match self {
            Shape::Sphere { radius } => *radius,
            Shape::Capsule { half_height, radius } => half_height + radius,
            Shape::Cuboid { half_extents } => half_extents.length(),
            Shape::Hull(h) => h.vertices().iter().map(|v| v.length()).fold(0.0, f32::max),
        }
    }

    /// The smallest half-thickness of the shape: below this much motion per step a body cannot
    /// tunnel, so continuous collision only needs to look at faster bodies.
    pub fn min_half_extent(&self) -> f32 {
        match self {
            Shape::Sphere { radius } | Shape::Capsule { radius, .. } => *radius,
            Shape::Cuboid { half_extents } => half_extents.min_element(),
            Shape::Hull(h) => h.inner_radius(),
        }
    }
}

/// Re-checks a shape built by hand (the enum's fields are public).
pub(crate) fn validate_shape(shape: &Shape) -> Result<(), AtollError> {
    match shape {
        Shape::Sphere { radius } => Shape::sphere(*radius).map(|_| ()),
        Shape::Capsule { half_height, radius } => Shape::capsule(*half_height, *radius).map(|_| ()),
        Shape::Cuboid { half_extents } => Shape::cuboid(*half_extents).map(|_| ()),
        Shape::Hull(_) => Ok(()),
    }
}
