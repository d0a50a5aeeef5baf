//! Queries against the bodies: ray casts (for picking and probes) and box overlap, both
//! accelerated by the broadphase trees.

use crate::body::BodyId;
use crate::broadphase::ProxyType;
use crate::error::{AtollError, check_non_negative, check_vec3};
use crate::math::{Aabb, Vec3};
use crate::world::World;

/// Where a ray first hits a body.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RayCastHit {
    /// The body hit.
    pub body: BodyId,
    /// Distance along the ray in units of its direction's length.
    pub t: f32,
    /// The hit point, world space.
    pub point: Vec3,
    /// Outward surface normal at the hit point, world space.
    pub normal: Vec3,
}

impl World {
    /// The first body along the ray `origin + t * dir`, `0 <= t <= max_t`. A ray that starts
    /// inside a body hits it at `t = 0`. Ties go to the lower body slot, so the answer does not
    /// depend on tree shape.
    pub fn cast_ray(&self, origin: Vec3, dir: Vec3, max_t: f32) -> Result<Option<RayCastHit>, AtollError> {
        check_vec3("ray origin", origin)?;
        check_vec3("ray direction", dir)?;
        check_non_negative("ray length", max_t)?;
        if dir.length_squared() == 0.0 {
            return Err(AtollError::invalid("ray direction", "must not be zero"));
        }
        let mut best: Option<(f32, u32, Vec3)> = None;
        for kind in [ProxyType::Static, ProxyType::Movable] {
            // The best hit so far clips the search of the next tree.
            let reach = best.map_or(max_t, |(t, _, _)| t);
            self.broadphase().tree(kind).ray_cast(origin, dir, reach, |_, body, limit| {
                let b = self.body(self.body_id_at(body)).expect("proxies name live bodies");
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
        Ok(best.map(|(t, body, normal)| RayCastHit {
            body: self.body_id_at(body),
            t,
            point: origin + dir * t,
            normal,
        }))
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
}
