//! The world side of queries: ray casts and overlap tests against the bodies and the terrain
//! ([`Ray`], [`QueryFilter`] and [`RayCastHit`] are in `query.rs`).

use super::World;
use crate::body::BodyId;
use crate::broadphase::ProxyType;
use crate::error::{AtollError, check_vec3};
use crate::math::{Aabb, Vec3};
use crate::query::{QueryFilter, Ray, RayCastHit};
use crate::shape_key::child_key;

impl World {
    /// The shape keys of the body in slot `slot`: its own shape's, then its children's.
    pub(crate) fn shape_keys(&self, slot: u32) -> impl Iterator<Item = u32> + '_ {
        std::iter::once(slot).chain(self.bodies.children.of(slot).iter().map(|&c| child_key(c)))
    }

    /// The first body or terrain triangle along `ray` that `filter` lets through. A ray that
    /// starts inside a body hits it at `t = 0`. Ties go to a body before the terrain, and to
    /// the lower body slot, so the answer depends on neither tree shape nor the mesh cache.
    pub fn cast_ray(&self, ray: &Ray, filter: &QueryFilter) -> Option<RayCastHit> {
        let (origin, dir) = (ray.origin, ray.dir);
        let mut best: Option<(f32, u32, Vec3)> = None;
        for kind in [ProxyType::Static, ProxyType::Movable] {
            // The best hit so far clips the search of the next tree.
            let reach = best.map_or(ray.max_t, |(t, _, _)| t);
            self.broadphase().tree(kind).ray_cast(origin, dir, reach, |_, key, limit| {
                if !self.query_accepts(filter, key) {
                    return limit;
                }
                let (shape, pose, _) = self.bodies.part(key);
                match shape.cast_ray_world(pose, origin, dir, limit) {
                    Some(hit) => {
                        let better =
                            best.is_none_or(|(t, first, _)| hit.t < t || (hit.t == t && key < first));
                        if better {
                            best = Some((hit.t, key, hit.normal));
                        }
                        hit.t
                    }
                    None => limit,
                }
            });
        }
        let body_hit = best.map(|(t, key, normal)| RayCastHit {
            body: self.body_id_at(self.bodies.body_of(key)),
            chunk: None,
            t,
            point: ray.at(t),
            normal,
        });
        if !filter.accepts_terrain() || !self.has_terrain() {
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
            self.broadphase().tree(kind).query(aabb, |_, key| {
                let (shape, pose, _) = self.bodies.part(key);
                if shape.world_aabb(pose).overlaps(aabb) {
                    out.push(self.body_id_at(self.bodies.body_of(key)));
                }
                true
            });
        }
        // A compound body once, however many of its shapes overlap.
        out.sort_unstable_by_key(|id| id.index());
        out.dedup();
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
            self.shape_keys(id.index()).any(|key| {
                let (shape, pose, _) = self.bodies.part(key);
                self.query_accepts(filter, key) && shape.contains_point(pose, point)
            })
        });
        Ok(())
    }
}
