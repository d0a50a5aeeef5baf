//! Queries against the world: the first thing a ray hits (bodies and terrain, with a filter),
//! box overlap, and the one place ray arguments are checked ([`Ray`]). Bodies are found through
//! the broadphase trees, the terrain through its chunk walk and kD trees.

use crate::body::{BodyId, BodyType};
use crate::broadphase::ProxyType;
use crate::error::{AtollError, check_non_negative, check_vec3};
use crate::math::{Aabb, Vec3};
use crate::terrain::ChunkCoord;
use crate::world::World;

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
        exclude: None,
    };

    /// Every body, not the terrain (picking bodies to select them).
    pub const BODIES: QueryFilter = QueryFilter { terrain: false, ..QueryFilter::ALL };

    /// The same filter, passing through `body` as well.
    pub fn excluding(self, body: BodyId) -> QueryFilter {
        QueryFilter { exclude: Some(body), ..self }
    }

    /// Whether a body of this type and id counts.
    fn accepts(&self, body_type: BodyType, id: BodyId) -> bool {
        let by_type = match body_type {
            BodyType::Static => self.static_bodies,
            BodyType::Kinematic => self.kinematic_bodies,
            BodyType::Dynamic => self.dynamic_bodies,
        };
        by_type && self.exclude != Some(id)
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

impl World {
    /// The first body or terrain triangle along `ray` that `filter` lets through. A ray that
    /// starts inside a body hits it at `t = 0`. Ties go to a body before the terrain, and to
    /// the lower body slot, so the answer depends on neither tree shape nor the mesh cache.
    pub fn cast_ray(&self, ray: &Ray, filter: &QueryFilter) -> Option<RayCastHit> {
        let (origin, dir) = (ray.origin, ray.dir);
        let mut best: Option<(f32, u32, Vec3)> = None;
        for kind in [ProxyType::Static, ProxyType::Movable] {
            // The best hit so far clips the search of the next tree.
            let reach = best.map_or(ray.max_t, |(t, _, _)| t);
            self.broadphase().tree(kind).ray_cast(origin, dir, reach, |_, body, limit| {
                let id = self.body_id_at(body);
                let b = self.body(id).expect("proxies name live bodies");
                if !filter.accepts(b.body_type, id) {
                    return limit;
                }
                match b.shape.cast_ray_world(&b.transform, origin, dir, limit) {
                    Some(hit) => {
                        let better = best.is_none_or(|(t, slot, _)| hit.t < t || (hit.t == t && body < slot));
                        if better {
                            best = Some((hit.t, body, hit.normal));
                        }
                        hit.t
                    }
                    None => limit,
                }
            });
        }
        let body_hit = best.map(|(t, body, normal)| RayCastHit {
            body: self.body_id_at(body),
            chunk: None,
            t,
            point: ray.at(t),
            normal,
        });
        if !filter.terrain || !self.has_terrain() {
            return body_hit;
        }
        let reach = body_hit.map_or(ray.max_t, |hit| hit.t);
        let terrain_hit = self.terrain().cast_ray(&Ray { max_t: reach, ..*ray });
        match terrain_hit {
            Some(hit) if body_hit.is_none_or(|b| hit.t < b.t) => Some(RayCastHit {
                body: BodyId::TERRAIN,
                chunk: Some(hit.chunk),
                t: hit.t,
                point: hit.point,
                normal: hit.normal,
            }),
            _ => body_hit,
        }
    }

    /// Every body whose tight bounding box overlaps `aabb`, in slot order, into `out` (cleared
    /// first; reuse it to avoid allocating).
    pub fn query_aabb(&self, aabb: &Aabb, out: &mut Vec<BodyId>) -> Result<(), AtollError> {
        check_vec3("box min", aabb.min)?;
        check_vec3("box max", aabb.max)?;
        out.clear();
        for kind in [ProxyType::Static, ProxyType::Movable] {
            self.broadphase().tree(kind).query(aabb, |_, body| {
                let id = self.body_id_at(body);
                if self.aabb(id).is_ok_and(|b| b.overlaps(aabb)) {
                    out.push(id);
                }
                true
            });
        }
        out.sort_unstable_by_key(|id| id.index());
        Ok(())
    }

    /// Every body `filter` lets through whose shape holds world point `point`, in slot order,
    /// into `out` (cleared first).
    pub fn query_point(
        &self,
        point: Vec3,
        filter: &QueryFilter,
        out: &mut Vec<BodyId>,
    ) -> Result<(), AtollError> {
        self.query_aabb(&Aabb { min: point, max: point }, out)?;
        out.retain(|&id| {
            let b = self.body(id).expect("listed bodies are live");
            filter.accepts(b.body_type, id) && b.shape.contains_point(&b.transform, point)
        });
        Ok(())
    }
}
