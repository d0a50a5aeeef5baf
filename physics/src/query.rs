//! Queries against the world, their arguments and answers: the first thing a ray hits (bodies
//! and terrain, with a filter), box overlap, and the one place ray arguments are checked
//! ([`Ray`]). Shapes cast and overlapped, and the closest point, are in `query/`. Bodies are
//! found through the broadphase trees, the terrain through its chunk walk and kD trees.

mod closest_point;
mod placed_shape;
mod shape_cast;

pub use closest_point::ClosestPoint;
pub use placed_shape::PlacedShape;
pub use shape_cast::{CAST_TOLERANCE, ShapeCast, ShapeCastHit};

use crate::body::{BodyId, BodyType};
use crate::error::{AtollError, check_non_negative, check_vec3};
use crate::filter::CollisionFilter;
use crate::math::Vec3;
use crate::terrain::ChunkCoord;

/// A checked ray `origin + t * dir`, `0 <= t <= max_t`: finite origin and direction, a
/// non-zero direction (of any length; `t` is in units of it) and a finite, non-negative
/// length. Every engine ray query takes its arguments through [`Ray::new`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Where the ray starts.
    pub origin: Vec3,
    /// Its direction; `t` is measured in units of this vector's length.
    pub dir: Vec3,
    /// The farthest `t` that counts.
    pub max_t: f32,
}

impl Ray {
    /// The ray, or an error naming the bad argument.
    pub fn new(origin: Vec3, dir: Vec3, max_t: f32) -> Result<Ray, AtollError> {
        check_vec3("ray origin", origin)?;
        check_vec3("ray direction", dir)?;
        check_non_negative("ray length", max_t)?;
        if dir.length_squared() == 0.0 {
            return Err(AtollError::invalid("ray direction", "must not be zero"));
        }
        Ok(Ray { origin, dir, max_t })
    }

    /// The point at `t`.
    pub fn at(&self, t: f32) -> Vec3 {
        self.origin + self.dir * t
    }
}

/// What a query may hit. The default hits everything.
///
/// A body counts when its type is let through, it is not `exclude`, it is a sensor only when
/// `sensors` is set, and `collision` and the body's own filter allow each other (Box2D's rule,
/// [`CollisionFilter::allows`]); the terrain counts when `terrain` is set and `collision`
/// allows the terrain's filter (category 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QueryFilter {
    /// Static bodies count.
    pub static_bodies: bool,
    /// Kinematic bodies count.
    pub kinematic_bodies: bool,
    /// Dynamic bodies count.
    pub dynamic_bodies: bool,
    /// The voxel terrain counts.
    pub terrain: bool,
    /// Sensor bodies count (the editor picks them; a game's line of sight would not).
    pub sensors: bool,
    /// The query's own filter, held against each body's as two bodies' filters are.
    pub collision: CollisionFilter,
    /// A body the query passes through (the one being dragged, or the caster itself).
    pub exclude: Option<BodyId>,
}

impl QueryFilter {
    /// Every body and the terrain.
    pub const ALL: QueryFilter = QueryFilter {
        static_bodies: true,
        kinematic_bodies: true,
        dynamic_bodies: true,
        terrain: true,
        sensors: true,
        collision: CollisionFilter::DEFAULT,
        exclude: None,
    };

    /// Every body, not the terrain (picking bodies to select them).
    pub const BODIES: QueryFilter = QueryFilter { terrain: false, ..QueryFilter::ALL };

    /// The same filter, passing through `body` as well.
    pub fn excluding(self, body: BodyId) -> QueryFilter {
        QueryFilter { exclude: Some(body), ..self }
    }

    /// The same filter, held against the bodies' filters as `collision` is.
    pub fn colliding_as(self, collision: CollisionFilter) -> QueryFilter {
        QueryFilter { collision, ..self }
    }

    /// Whether a body of this type, id, filter and sensor flag counts.
    pub(crate) fn accepts(
        &self,
        body_type: BodyType,
        id: BodyId,
        filter: &CollisionFilter,
        sensor: bool,
    ) -> bool {
        let by_type = match body_type {
            BodyType::Static => self.static_bodies,
            BodyType::Kinematic => self.kinematic_bodies,
            BodyType::Dynamic => self.dynamic_bodies,
        };
        by_type && self.exclude != Some(id) && (self.sensors || !sensor) && self.collision.allows(filter)
    }

    /// Whether the terrain counts.
    pub(crate) fn accepts_terrain(&self) -> bool {
        self.terrain && self.collision.allows(&CollisionFilter::DEFAULT)
    }
}

impl Default for QueryFilter {
    fn default() -> Self {
        QueryFilter::ALL
    }
}

/// Where a ray first hits a body or the terrain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCastHit {
    /// The body hit, or [`BodyId::TERRAIN`].
    pub body: BodyId,
    /// The chunk whose triangle was hit, when the terrain was.
    pub chunk: Option<ChunkCoord>,
    /// Distance along the ray in units of its direction's length.
    pub t: f32,
    /// The hit point, world space.
    pub point: Vec3,
    /// Outward surface normal at the hit point, world space.
    pub normal: Vec3,
}
