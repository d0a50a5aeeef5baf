//! The world side of the shape queries: a shape cast along a path (`World::cast_shape`), the
//! bodies a shape overlaps (`World::overlap_shape`) and the nearest surface point
//! (`World::closest_point`), against the bodies and the terrain. Their checked arguments and
//! answers are in `query/`.
//!
//! A cast moves its shape by conservative advancement: at each pose the gap to the target is
//! bounded from below by the narrowphase's smallest separation (exact for round shapes, a
//! separating-axis bound for polyhedra, never more than the distance), and the shape moves on
//! by that gap, so it never passes through anything; it stops within [`CAST_TOLERANCE`].

use super::World;
use crate::body::BodyId;
use crate::broadphase::ProxyType;
use crate::error::{AtollError, check_non_negative, check_vec3};
use crate::math::{Aabb, Transform, Vec3};
use crate::narrowphase::{Gap, closest_on_shape, collide_terrain, gap, manifold_gap};
use crate::query::{CAST_TOLERANCE, ClosestPoint, PlacedShape, QueryFilter, ShapeCast, ShapeCastHit};
use crate::shape::Shape;
use crate::terrain::ChunkCoord;

/// Most advancement steps of a cast against one body. Newton's steps on the exact distance
/// close on a surface in a handful (the brute-force test's casts take at most a dozen); one
/// that has not closed to the tolerance by then is taken as a miss.
const MAX_BODY_STEPS: usize = 64;

/// Most advancement steps against the terrain, where each step moves by a lower bound of the
/// gap only: a cast skimming a surface a centimetre away moves a centimetre a step, so ten
/// metres of it take a thousand. One that has not closed by then is taken as a miss.
const MAX_TERRAIN_STEPS: usize = 2048;

impl World {
    /// The first body or terrain surface `cast`'s shape touches on its way that `filter` lets
    /// through, or `None`. A shape that starts touching or overlapping something hits it at
    /// fraction 0. Ties go to a body before the terrain, and to the lower body slot.
    pub fn cast_shape(&self, cast: &ShapeCast, filter: &QueryFilter) -> Option<ShapeCastHit> {
        let shape = cast.start().shape();
        let swept = cast.start().aabb().swept(cast.translation()).grown(CAST_TOLERANCE);
        let mut best: Option<(f32, u32, Gap)> = None;
        for key in self.query_candidates(&swept, filter) {
            let (other, at, _) = self.bodies.part(key);
            let limit = best.map_or(1.0, |(t, _, _)| t);
            let gap = |t: f32, reach: f32| {
                shape_gap(shape, &cast.pose_at(t), other, at, reach).map(|(d, g)| GapAt {
                    gap: d,
                    closing: Some(-g.normal.dot(cast.translation())),
                    witness: g,
                })
            };
            // Keys come in ascending order: a tie keeps the lower one.
            if let Some((t, g)) = advance(cast.translation(), limit, MAX_BODY_STEPS, gap)
                && best.is_none_or(|(first, _, _)| t < first)
            {
                best = Some((t, key, g));
            }
        }
        let mut hit = best.map(|(fraction, key, g)| ShapeCastHit {
            body: self.body_id_at(self.bodies.body_of(key)),
            chunk: None,
            fraction,
            point: g.on_b,
            normal: g.normal,
        });
        if filter.accepts_terrain() && self.has_terrain() {
            let limit = hit.map_or(1.0, |h| h.fraction);
            if let Some(t) =
                self.cast_into_terrain(cast, limit).filter(|t| hit.is_none_or(|h| t.fraction < h.fraction))
            {
                hit = Some(t);
            }
        }
        hit
    }

    /// Where `cast` first touches the terrain, no later than `limit`. Against the terrain the
    /// gap is the terrain contacts' (a face's plane where the surface is concave), asked within
    /// a voxel at a time: beyond its triangles' closest points a far triangle's plane says
    /// nothing.
    fn cast_into_terrain(&self, cast: &ShapeCast, limit: f32) -> Option<ShapeCastHit> {
        let shape = cast.start().shape();
        let center = cast.start().pose().transform_point(shape.local_aabb().center());
        let voxel = self.terrain.voxel_size();
        if self.terrain.is_inside(center).unwrap_or(false) {
            // Inside the solid, where no triangle may be near: a hit where it starts.
            let near = self.terrain.closest_point(center, 2.0 * voxel).ok().flatten();
            return Some(ShapeCastHit {
                body: BodyId::TERRAIN,
                chunk: near.map(|n| n.chunk),
                fraction: 0.0,
                point: near.map_or(center, |n| n.point),
                normal: near.map_or(Vec3::Y, |n| n.normal),
            });
        }
        let gap = |t: f32, reach: f32| {
            let capped = reach.min(voxel);
            match self.terrain_contact(shape, &cast.pose_at(t), capped) {
                Some((chunk, g)) => Some(GapAt { gap: g.distance, closing: None, witness: (Some(chunk), g) }),
                // Nothing within the capped reach: the gap is at least that, and at least the
                // distance to the nearest chunk with solid near it (in open air, a jump there
                // rather than a voxel a step: a cast a kilometre through the air took
                // thousands of steps and ran out).
                None if capped < reach => {
                    let tight = shape.world_aabb(&cast.pose_at(t));
                    let far = self.solid_distance_bound(&tight).unwrap_or(reach).min(reach);
                    let gap = capped.max(far);
                    let nothing = Gap { distance: gap, on_b: Vec3::ZERO, normal: Vec3::Y };
                    Some(GapAt { gap, closing: None, witness: (None, nothing) })
                }
                None => None,
            }
        };
        let (fraction, (chunk, g)) = advance(cast.translation(), limit, MAX_TERRAIN_STEPS, gap)?;
        Some(ShapeCastHit { body: BodyId::TERRAIN, chunk, fraction, point: g.on_b, normal: g.normal })
    }

    /// A lower bound of the distance from box `aabb` to the terrain's solid surface: the
    /// distance to the nearest chunk whose masks hold solid (a chunk's masks are dilated by a
    /// voxel, so its surface lies within its box grown by a voxel); `None` without any.
    fn solid_distance_bound(&self, aabb: &Aabb) -> Option<f32> {
        let voxel = self.terrain.voxel_size();
        (self.terrain.masks())
            .filter(|(_, m)| m.solid().iter().any(|&slice| slice != 0))
            .map(|(c, _)| {
                let b = self.terrain.chunk_aabb(c).grown(voxel);
                let apart = (b.min - aabb.max).max(aabb.min - b.max).max(Vec3::ZERO);
                apart.length()
            })
            .min_by(f32::total_cmp)
    }

    /// Every body `filter` lets through that `shape` overlaps or touches, in slot order, into
    /// `out` (cleared first; reuse it to avoid allocating), and [`BodyId::TERRAIN`] last when
    /// the shape overlaps the terrain's solid (a shape buried deep counts).
    pub fn overlap_shape(&self, shape: &PlacedShape, filter: &QueryFilter, out: &mut Vec<BodyId>) {
        out.clear();
        for key in self.query_candidates(&shape.aabb(), filter) {
            let (other, at, _) = self.bodies.part(key);
            if shape_gap(shape.shape(), shape.pose(), other, at, 0.0).is_some_and(|(d, _)| d <= 0.0) {
                out.push(self.body_id_at(self.bodies.body_of(key)));
            }
        }
        // A compound body once, however many of its shapes it overlaps.
        out.sort_unstable_by_key(|id| id.index());
        out.dedup();
        if filter.accepts_terrain() && self.has_terrain() {
            let touches = self
                .terrain_contact(shape.shape(), shape.pose(), 0.0)
                .is_some_and(|(_, g)| g.distance <= 0.0);
            let center = shape.pose().transform_point(shape.shape().local_aabb().center());
            if touches || self.terrain.is_inside(center).unwrap_or(false) {
                out.push(BodyId::TERRAIN);
            }
        }
    }

    /// The surface point of the bodies and terrain `filter` lets through nearest to `point`,
    /// no farther than `max_distance`; `point` itself, at distance 0, when it lies inside one.
    /// Ties go to a body before the terrain, and to the lower body slot. The point must be
    /// finite and the distance finite and non-negative.
    pub fn closest_point(
        &self,
        point: Vec3,
        max_distance: f32,
        filter: &QueryFilter,
    ) -> Result<Option<ClosestPoint>, AtollError> {
        check_vec3("query point", point)?;
        check_non_negative("query distance", max_distance)?;
        // A reach past f32's range around a far point would make the box infinite.
        let big = Vec3::splat(f32::MAX);
        let reach = Aabb::from_center_half_extents(point, Vec3::splat(max_distance));
        let reach = Aabb::new(reach.min.clamp(-big, big), reach.max.clamp(-big, big));
        let mut best: Option<ClosestPoint> = None;
        for key in self.query_candidates(&reach, filter) {
            let (shape, pose, _) = self.bodies.part(key);
            let (on_surface, signed) = closest_on_shape(shape, pose, point);
            let (at, distance) = if signed <= 0.0 { (point, 0.0) } else { (on_surface, signed) };
            if distance <= max_distance && best.is_none_or(|c| distance < c.distance) {
                let body = self.body_id_at(self.bodies.body_of(key));
                best = Some(ClosestPoint { body, chunk: None, point: at, distance });
            }
        }
        if filter.accepts_terrain() && self.has_terrain() {
            let near = self.terrain.closest_point(point, max_distance)?;
            let terrain = match near {
                Some(n) if n.inside => {
                    Some(ClosestPoint { body: BodyId::TERRAIN, chunk: Some(n.chunk), point, distance: 0.0 })
                }
                Some(n) => Some(ClosestPoint {
                    body: BodyId::TERRAIN,
                    chunk: Some(n.chunk),
                    point: n.point,
                    distance: n.distance,
                }),
                None if self.terrain.is_inside(point)? => {
                    Some(ClosestPoint { body: BodyId::TERRAIN, chunk: None, point, distance: 0.0 })
                }
                None => None,
            };
            if let Some(t) = terrain.filter(|t| best.is_none_or(|b| t.distance < b.distance)) {
                best = Some(t);
            }
        }
        Ok(best)
    }

    /// The shape keys (`crate::shape_key`: a body's slot for its own shape) of the shapes whose
    /// fat boxes (the broadphase's) overlap `aabb` and that `filter` lets through, ascending.
    fn query_candidates(&self, aabb: &Aabb, filter: &QueryFilter) -> Vec<u32> {
        let mut keys = Vec::new();
        for kind in [ProxyType::Static, ProxyType::Movable] {
            self.broadphase.tree(kind).query(aabb, |_, key| {
                if self.query_accepts(filter, key) {
                    keys.push(key);
                }
                true
            });
        }
        keys.sort_unstable();
        keys
    }

    /// Whether `filter` lets through the shape of key `key`: its body's type and id, the
    /// shape's own collision filter and sensor flag.
    pub(super) fn query_accepts(&self, filter: &QueryFilter, key: u32) -> bool {
        let slot = self.bodies.body_of(key);
        let b = &self.bodies.bodies[slot as usize];
        let (collision, sensor) = self.bodies.rules_of(key);
        filter.accepts(b.body_type, self.body_id_at(slot), collision, sensor.is_some())
    }

    /// The gap of `shape` at `pose` to the terrain chunk it comes nearest, by the terrain
    /// contacts' manifold keeping points within `reach`, and that chunk; `None` when no chunk's
    /// surface is that near. Ties go to the lower chunk.
    fn terrain_contact(&self, shape: &Shape, pose: &Transform, reach: f32) -> Option<(ChunkCoord, Gap)> {
        let tight = shape.world_aabb(pose);
        let center = pose.transform_point(shape.local_aabb().center());
        let (voxel, mut best): (f32, Option<(ChunkCoord, Gap)>) = (self.terrain.voxel_size(), None);
        // A finite box never fails the query.
        let _ = self.terrain.overlap_chunks(&tight.grown(reach), |c, o| {
            let Some(data) = o.solid.then(|| self.terrain.chunk_collision(c)).flatten() else { return true };
            let origin = self.terrain.chunk_origin(c);
            let m = collide_terrain(shape, pose, center, &tight, &data, origin, voxel, reach);
            if let Some(g) = manifold_gap(&m)
                && best.is_none_or(|(_, b)| g.distance < b.distance)
            {
                best = Some((c, g));
            }
            true
        });
        best
    }
}

/// The gap of `shape` at `pose` to `other` at `at`, when it is at most `reach`.
fn shape_gap(
    shape: &Shape,
    pose: &Transform,
    other: &Shape,
    at: &Transform,
    reach: f32,
) -> Option<(f32, Gap)> {
    if !shape.world_aabb(pose).grown(reach).overlaps(&other.world_aabb(at)) {
        return None;
    }
    gap(shape, pose, other, at, reach).map(|g| (g.distance, g))
}

/// What a target's gap function says at one pose of a cast.
struct GapAt<W> {
    /// The gap (a lower bound of it against the terrain), or the overlap's depth below zero.
    gap: f32,
    /// How fast the gap closes per unit of the cast's fraction, when `gap` is the exact
    /// distance between two convex shapes: `-n · translation`, `n` the target's outward normal
    /// at the nearest points.
    closing: Option<f32>,
    /// What the caller keeps of the pose where the cast stops.
    witness: W,
}

/// The fraction of a cast along `translation` at which the gap to a target first closes to
/// [`CAST_TOLERANCE`], no later than `limit`, and the witness there; `None` when it does not.
/// `gap(t, reach)` answers at fraction `t`, or `None` when the gap exceeds `reach`; at most
/// `max_steps` steps.
///
/// Every step stays short of the target. With only a lower bound of the gap the shape moves by
/// that bound, which crawls where the path runs nearly parallel to the surface. With the exact
/// distance of two convex shapes it takes Newton's step instead: that distance, along a
/// translation, is a convex function of the fraction (the distance from a point moving on a
/// line to a convex set, their Minkowski difference), so its tangent lies below it and the
/// tangent's root comes before the function's; and a gap that does not close now never does.
fn advance<W>(
    translation: Vec3,
    limit: f32,
    max_steps: usize,
    mut gap: impl FnMut(f32, f32) -> Option<GapAt<W>>,
) -> Option<(f32, W)> {
    let length = translation.length();
    let mut t = 0.0f32;
    for _ in 0..max_steps {
        let reach = (limit - t) * length + CAST_TOLERANCE;
        let at = gap(t, reach)?;
        if at.gap <= CAST_TOLERANCE {
            return Some((t, at.witness));
        }
        // Half the tolerance short of the gap: a face met head on is reached in one step.
        let short = at.gap - 0.5 * CAST_TOLERANCE;
        let step = match at.closing {
            Some(closing) if closing <= 0.0 => return None,
            // Never less than the plain step, which rounding could otherwise undercut.
            Some(closing) => (short / closing).max(short / length),
            None => short / length,
        };
        if t + step == t {
            // Far along a long cast the step falls below the fraction's rounding: the surface
            // is within one representable fraction, so the shape touches here.
            return Some((t, at.witness));
        }
        t += step;
        if t > limit {
            return None;
        }
    }
    None
}
