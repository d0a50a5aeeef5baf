//! The world side of the shape queries: a shape cast along a path (`World::cast_shape`), the
//! bodies a shape overlaps (`World::overlap_shape`) and the nearest surface point
//! (`World::closest_point`), against the bodies and the terrain. Their checked arguments and
//! answers are in `query/`.
//!
//! A cast moves its shape by conservative advancement against each convex target in turn (a
//! body's shape, a terrain triangle): at each pose the exact distance to the target
//! (`narrowphase::gap`, `narrowphase::triangle_gap`) and how fast it closes give Newton's step,
//! which never passes the target; it stops within [`CAST_TOLERANCE`]. The first touch of any
//! target is the hit.

use super::World;
use crate::body::BodyId;
use crate::broadphase::ProxyType;
use crate::error::{AtollError, check_non_negative, check_vec3};
use crate::math::{Aabb, Transform, Vec3};
use crate::narrowphase::{Gap, closest_on_shape, gap, segment_triangle_distance, triangle_gap};
use crate::query::{CAST_TOLERANCE, ClosestPoint, PlacedShape, QueryFilter, ShapeCast, ShapeCastHit};
use crate::shape::Shape;
use crate::terrain::{CHUNK_SIZE, ChunkCoord};

/// A terrain cast near the ground asks again how far the nearest solid chunk is after this
/// many pieces of its path.
const BOUND_EVERY_PIECES: u32 = 8;

/// Terrain triangles whose doubled area squared is below this (m⁴) are left out of the
/// queries, as the terrain contacts leave them out.
const DEGENERATE_AREA_SQ: f32 = 1e-24;

/// Most advancement steps of a cast against one body's shape or one terrain triangle. Newton's
/// steps on the exact distance close on a surface in a handful (the brute-force test's casts take at most a dozen); one
/// that has not closed to the tolerance by then is taken as a miss.
const MAX_BODY_STEPS: usize = 64;

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
                    closing: -g.normal.dot(cast.translation()),
                    witness: g,
                })
            };
            // Keys come in ascending order: a tie keeps the lower one.
            if let Some((t, g)) = advance(cast.translation(), 0.0, limit, MAX_BODY_STEPS, gap)
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

    /// Where `cast` first touches the terrain, no later than `limit`: the earliest touch of
    /// any triangle, each triangle's found by Newton's steps on its exact distance
    /// (`narrowphase::triangle_gap`). The path is searched a chunk's length at a time (the
    /// triangles under a long diagonal cast's whole swept box would be a landscape's), and
    /// through open air it jumps to where the nearest solid chunk could be met.
    fn cast_into_terrain(&self, cast: &ShapeCast, limit: f32) -> Option<ShapeCastHit> {
        let shape = cast.start().shape();
        let center = cast.start().pose().transform_point(inner_point(shape));
        if self.terrain.is_inside(center).unwrap_or(false) {
            // Inside the solid, where no triangle may be near: a hit where it starts.
            let near = self.terrain.closest_point(center, 2.0 * self.terrain.voxel_size()).ok().flatten();
            return Some(ShapeCastHit {
                body: BodyId::TERRAIN,
                chunk: near.map(|n| n.chunk),
                fraction: 0.0,
                point: near.map_or(center, |n| n.point),
                normal: near.map_or(Vec3::Y, |n| n.normal),
            });
        }
        let length = cast.translation().length();
        let piece = self.terrain.voxel_size() * CHUNK_SIZE as f32;
        let mut from = 0.0f32;
        // The bound on the distance to solid scans every chunk's mask: near the ground it is
        // asked again only every few pieces (a piece's own search rules out what it crosses).
        let mut pieces_near = 0;
        loop {
            let at = shape.world_aabb(&cast.pose_at(from));
            if pieces_near == 0 {
                // No solid chunk within a piece's length: jump to where one could first be met.
                let far = self.solid_distance_bound(&at)?;
                let next = from + (far - 0.5 * CAST_TOLERANCE) / length;
                if far > piece && next > from {
                    if next > limit {
                        return None;
                    }
                    from = next;
                    continue;
                }
            }
            pieces_near = (pieces_near + 1) % BOUND_EVERY_PIECES;
            // Kilometres along a cast longer still, a piece can be below the fraction's
            // rounding: the rest of the path is searched at once.
            let to = Some(from + piece / length).filter(|&to| to > from).map_or(limit, |to| to.min(limit));
            let swept = at.swept(cast.translation() * (to - from)).grown(CAST_TOLERANCE);
            let mut best: Option<(f32, ChunkCoord, Gap)> = None;
            // A box or hull stays within its bounding sphere about its origin, whose centre
            // runs along this segment: a triangle farther from it is never touched in this
            // piece, and is ruled out at the cost of one distance (a round shape's own distance
            // costs no more: halved the box casts' time, `terrain_figures`).
            let (path_from, path_to) = (cast.pose_at(from).position, cast.pose_at(to).position);
            let sphere = shape.bounding_radius() + CAST_TOLERANCE;
            let polyhedron = matches!(shape, Shape::Cuboid { .. } | Shape::Hull(_));
            self.for_each_triangle(&swept, |chunk, tri| {
                if polyhedron && segment_triangle_distance(path_from, path_to, tri) > sphere {
                    return true;
                }
                let gap = |t: f32, reach: f32| {
                    triangle_gap(shape, &cast.pose_at(t), tri, reach).map(|g| GapAt {
                        gap: g.distance,
                        closing: -g.normal.dot(cast.translation()),
                        witness: g,
                    })
                };
                let until = best.map_or(to, |(t, _, _)| t);
                // Triangles come in chunk order and the tree's: a tie keeps the first.
                if let Some((t, g)) = advance(cast.translation(), from, until, MAX_BODY_STEPS, gap)
                    && best.is_none_or(|(first, _, _)| t < first)
                {
                    best = Some((t, chunk, g));
                }
                true
            });
            if let Some((fraction, chunk, g)) = best {
                let (point, normal) = (g.on_b, g.normal);
                return Some(ShapeCastHit {
                    body: BodyId::TERRAIN,
                    chunk: Some(chunk),
                    fraction,
                    point,
                    normal,
                });
            }
            if to >= limit {
                return None;
            }
            from = to;
        }
    }

    /// Calls `f` with each terrain triangle (world space) whose box overlaps `aabb`, and its
    /// chunk, chunk by chunk in coordinate order; `f` returns false to stop.
    fn for_each_triangle(&self, aabb: &Aabb, mut f: impl FnMut(ChunkCoord, [Vec3; 3]) -> bool) {
        let voxel = self.terrain.voxel_size();
        // A finite box never fails the query.
        let _ = self.terrain.overlap_chunks(aabb, |c, o| {
            let Some(data) = o.solid.then(|| self.terrain.chunk_collision(c)).flatten() else { return true };
            let origin = self.terrain.chunk_origin(c);
            let local = Aabb::new((aabb.min - origin) / voxel, (aabb.max - origin) / voxel);
            let mut going = true;
            data.tree.query_aabb(&data.mesh, &local, |t| {
                if going {
                    let ids = data.mesh.triangle_indices(t);
                    let tri = ids.map(|i| origin + data.mesh.position(i as usize) * voxel);
                    // A triangle of no area has no side: its neighbours bound the surface.
                    if (tri[1] - tri[0]).cross(tri[2] - tri[0]).length_squared() > DEGENERATE_AREA_SQ {
                        going = f(c, tri);
                    }
                }
            });
            going
        });
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
            let mut touches = false;
            self.for_each_triangle(&shape.aabb().grown(CAST_TOLERANCE), |_, tri| {
                touches =
                    triangle_gap(shape.shape(), shape.pose(), tri, 0.0).is_some_and(|g| g.distance <= 0.0);
                !touches
            });
            let inside = shape.pose().transform_point(inner_point(shape.shape()));
            if touches || self.terrain.is_inside(inside).unwrap_or(false) {
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
}

/// A point inside `shape`, in its own frame: where a shape that meets no terrain triangle is
/// tested for lying within the solid. A hull's box centre may lie outside it (a corner of a
/// cube cut off leaves the cut face between the box centre and the rest); its centroid never
/// does.
fn inner_point(shape: &Shape) -> Vec3 {
    match shape {
        Shape::Hull(h) => h.unit_mass().local_center,
        Shape::Sphere { .. } | Shape::Capsule { .. } | Shape::Cuboid { .. } => Vec3::ZERO,
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
    /// The exact distance, or the overlap's depth below zero.
    gap: f32,
    /// How fast the gap closes per unit of the cast's fraction: `-n · translation`, `n` the
    /// target's outward normal at the nearest points.
    closing: f32,
    /// What the caller keeps of the pose where the cast stops.
    witness: W,
}

/// The fraction of a cast along `translation`, from fraction `from` on, at which the gap to a
/// target first closes to [`CAST_TOLERANCE`], no later than `limit`, and the witness there;
/// `None` when it does not.
/// `gap(t, reach)` answers at fraction `t`, or `None` when the gap exceeds `reach`; at most
/// `max_steps` steps.
///
/// Every step stays short of the target. Moving by the gap alone would crawl where the path
/// runs nearly parallel to the surface; Newton's step on the exact distance does not: that
/// distance of two convex shapes, along a
/// translation, is a convex function of the fraction (the distance from a point moving on a
/// line to a convex set, their Minkowski difference), so its tangent lies below it and the
/// tangent's root comes before the function's; and a gap that does not close now never does.
fn advance<W>(
    translation: Vec3,
    from: f32,
    limit: f32,
    max_steps: usize,
    mut gap: impl FnMut(f32, f32) -> Option<GapAt<W>>,
) -> Option<(f32, W)> {
    let length = translation.length();
    let mut t = from;
    for _ in 0..max_steps {
        let reach = (limit - t) * length + CAST_TOLERANCE;
        let at = gap(t, reach)?;
        if at.gap <= CAST_TOLERANCE {
            return Some((t, at.witness));
        }
        // Half the tolerance short of the gap: a face met head on is reached in one step.
        let short = at.gap - 0.5 * CAST_TOLERANCE;
        if at.closing <= 0.0 {
            return None;
        }
        // Never less than the plain step (the gap along the path), which rounding could
        // otherwise undercut.
        let step = (short / at.closing).max(short / length);
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
