//! [`Stage::Continuous`]: time of impact for dynamic bodies that moved farther than half their
//! thickness this step, against static bodies and terrain, by conservative advancement. The
//! manifold's smallest separation is a lower bound of the distance (exact for round shapes, a
//! separating-axis bound for polyhedra), which is what advancement needs.

use crate::body::{Body, BodyStore, BodyType};
use crate::broadphase::{DynamicTree, ProxyType};
use crate::child_store::ChildStore;
use crate::math::{Aabb, Quat, Transform, Vec3};
use crate::narrowphase::{CollideCache, collide};
use crate::parallel::{Claims, SharedSlice, helpers_lingering, run_team};
#[cfg(doc)]
use crate::profile::Stage;
use crate::query::Ray;
use crate::shape::Shape;
use crate::shape_key::{child_key, is_child_key};
use crate::solver::SolverBody;
use crate::team_policy::{MIN_BODIES_FOR_TEAM, MIN_SWEEPS_FOR_TEAM, SWEEP_BLOCK, helpers_for};
use crate::terrain::Terrain;
use crate::world::World;

/// The continuous stage's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContinuousScratch {
    /// A claim word per block of bodies to sweep.
    claims: Claims,
    /// Per awake body, whether its move this step may have reached something static
    /// ([`may_reach_static`], worked out while finalising).
    pub(super) may_reach_static: Vec<bool>,
    /// The awake indices `may_reach_static` marks, ascending: the stage's bodies.
    sweeps: Vec<u32>,
    /// Per body of [`Self::sweeps`], the fraction of its move at which it first touched
    /// something static.
    impacts: Vec<f32>,
}

impl ContinuousScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.may_reach_static.len() + (self.sweeps.len() + self.impacts.len()) * 4
    }
}

impl World {
    /// Time of impact for dynamic bodies that moved farther than half their thickness this step,
    /// against static bodies: such a body is put back where it first touches. Its velocity is
    /// kept; next step's speculative contact stops it. Finalising marked the bodies whose move
    /// may have reached something static ([`may_reach_static`]), while it had each body at
    /// hand; their times are found in blocks the world's threads share (each reads the world
    /// and writes only its own entry), and the bodies move afterwards, in order.
    pub(super) fn clip_fast_bodies(&mut self) -> u32 {
        if self.static_bounds().is_none() {
            return 0;
        }
        let scratch = &mut self.scratch;
        let may_reach = &scratch.continuous.may_reach_static[..scratch.solve.awake.len()];
        scratch.continuous.sweeps.clear();
        scratch.continuous.sweeps.extend((0..may_reach.len()).filter(|&k| may_reach[k]).map(|k| k as u32));
        let count = scratch.continuous.sweeps.len();
        // (One thread reads no clock.)
        let lingering = self.threads.is_some() && helpers_lingering();
        let min_sweeps = if lingering { MIN_SWEEPS_FOR_TEAM } else { MIN_BODIES_FOR_TEAM };
        let helpers = helpers_for(&self.threads, count, min_sweeps);
        scratch.continuous.impacts.clear();
        scratch.continuous.impacts.resize(count, 1.0);
        scratch.continuous.claims.reset(count.div_ceil(SWEEP_BLOCK));
        let claims = scratch.continuous.claims.words();
        let impacts = SharedSlice::new(&mut scratch.continuous.impacts);
        let list = &scratch.continuous.sweeps;
        let sweeps = FastSweeps {
            awake: &scratch.solve.awake,
            solver_bodies: &scratch.solve.solver_bodies,
            centers: &scratch.solve.centers,
            bodies: &self.bodies.bodies,
            children: &self.bodies.children,
            store: &self.bodies,
            ruled: self.bodies.any_pair_rules(),
            static_tree: self.broadphase.tree(ProxyType::Static),
            terrain: &self.terrain,
            gap: self.settings.continuous_gap,
        };
        run_team(helpers, |team| {
            team.for_blocks(count, SWEEP_BLOCK, claims, |block| {
                // SAFETY: each block of the impacts is one member's in this stage.
                let out = unsafe { impacts.slice_mut(block.clone()) };
                for j in block.clone() {
                    out[j - block.start] = sweeps.first_impact(list[j] as usize);
                }
            });
        });
        let mut hits = 0;
        for j in 0..count {
            let (k, first) = (self.scratch.continuous.sweeps[j] as usize, self.scratch.continuous.impacts[j]);
            if first < 1.0 {
                let (start, end) = self.awake_sweep(k);
                let b = &mut self.bodies.bodies[self.scratch.solve.awake[k] as usize];
                b.transform = interpolate(&start, &end, b.local_center, first);
                hits += 1;
            }
        }
        hits
    }

    /// What static there is, for the continuous stage: the static bodies' bounds, or everywhere
    /// when there is terrain; none when there is neither.
    pub(super) fn static_bounds(&self) -> Option<Aabb> {
        if self.terrain.chunk_count() > 0 {
            Some(Aabb::new(Vec3::splat(f32::MIN), Vec3::splat(f32::MAX)))
        } else {
            self.broadphase.tree(ProxyType::Static).root_aabb()
        }
    }

    /// Awake body `k`'s pose at the start and at the end of this step's move.
    fn awake_sweep(&self, k: usize) -> (Transform, Transform) {
        let b = &self.bodies.bodies[self.scratch.solve.awake[k] as usize];
        sweep_ends(b, &self.scratch.solve.solver_bodies[k + 1], self.scratch.solve.centers[k + 1])
    }
}

/// The body's pose where this step's move began (its centre was `start_center`, its turn `sb.dq`)
/// and where it ended (now).
fn sweep_ends(b: &Body, sb: &SolverBody, start_center: Vec3) -> (Transform, Transform) {
    let end = b.transform;
    let start_rotation = (sb.dq.inverse() * end.rotation).normalize();
    (Transform::new(start_center - start_rotation * b.local_center, start_rotation), end)
}

/// What the continuous stage reads to find when the awake bodies first touched something static.
struct FastSweeps<'a> {
    awake: &'a [u32],
    solver_bodies: &'a [SolverBody],
    centers: &'a [Vec3],
    bodies: &'a [Body],
    children: &'a ChildStore,
    /// The filters and sensors, asked only when some shape has rules (`ruled`).
    store: &'a BodyStore,
    ruled: bool,
    static_tree: &'a DynamicTree,
    terrain: &'a Terrain,
    gap: f32,
}

/// Whether a dynamic body's move this step (`motion` of its centre and `sb.dq` of its turn,
/// from where its tight box was) needs the continuous stage's sweep: it moved at least half its
/// thickness and may have come within `gap` of something static, inside `static_bounds`.
///
/// Most fast bodies fly far from anything static: a box around the step's motion (the start
/// box moved, grown by the most a turn can move a point: the angle is at most π |dq.xyz|)
/// rules them out before the exact sweep is worked out. The impact counts within the gap, so
/// the box is grown by it too (the static bodies' fat boxes need not cover it: the margin may
/// be zero).
///
/// A compound body (`compound`: the children's store and the body's slot, while the world has
/// compounds) counts by all its solid shapes: their reach, their thinnest half extent, and the
/// box around them all. The thickness test comes first there: a resting compound fails it
/// without the walk over its children's boxes.
pub(super) fn may_reach_static(
    b: &Body,
    compound: Option<(&ChildStore, u32)>,
    sb: &SolverBody,
    motion: Vec3,
    static_bounds: &Aabb,
    gap: f32,
) -> bool {
    if b.body_type != BodyType::Dynamic {
        return false;
    }
    let angle = || 2.0 * sb.dq.xyz().length().min(1.0).asin();
    let reach_box = |tight: Aabb, radius: f32| {
        let turn_reach = std::f32::consts::PI * sb.dq.xyz().length() * (radius + b.local_center.length());
        static_bounds.overlaps(&tight.swept(motion).grown(turn_reach + gap))
    };
    if let Some((children, slot)) = compound
        && let Some(extent) = children.extent(slot)
    {
        return motion.length() + angle() * extent.radius >= 0.5 * extent.thinnest
            && reach_box(children.tight_around(slot, b.tight), extent.radius);
    }
    reach_box(b.tight, b.bounding_radius)
        && motion.length() + angle() * b.bounding_radius >= 0.5 * b.shape.min_half_extent()
}

impl FastSweeps<'_> {
    /// The fraction of its move at which awake body `k`, one [`may_reach_static`] let through,
    /// first touches something static: 1 when it never does.
    fn first_impact(&self, k: usize) -> f32 {
        let slot = self.awake[k];
        let b = &self.bodies[slot as usize];
        let sb = &self.solver_bodies[k + 1];
        let (start, end) = sweep_ends(b, sb, self.centers[k + 1]);
        let mut first = 1.0f32;
        // Each of the body's shapes, at its pose in the body's frame: a compound's children
        // are swept too.
        let children = self.children.of(slot).iter().map(|&c| {
            let child = &self.children.children[c as usize];
            (child_key(c), &child.shape, Some(child.local))
        });
        for (key, shape, local) in std::iter::once((slot, &b.shape, None)).chain(children) {
            // A sensor part stops at nothing, and a static shape its filter passes through
            // does not stop it either: what may not touch is not swept against.
            if self.ruled && self.store.rules_of(key).1.is_some() {
                continue;
            }
            let place = |pose: &Transform| local.map_or(*pose, |l| pose.mul(&l));
            let swept = shape.world_aabb(&place(&start)).union(&shape.world_aabb(&place(&end)));
            let part = SweptPart { body: b, shape, local };
            self.static_tree.query(&swept, |_, other| {
                if self.ruled && !self.store.may_touch(key, other) {
                    return true;
                }
                // The static shapes by key: a static compound's children are swept against too.
                let (other, pose) = if is_child_key(other) {
                    let child = self.children.by_key(other);
                    (&child.shape, &child.transform)
                } else {
                    (&self.bodies[other as usize].shape, &self.bodies[other as usize].transform)
                };
                if let Some(t) = time_of_impact(&part, &start, &end, other, pose, self.gap) {
                    first = first.min(t);
                }
                true
            });
        }
        first.min(terrain_time_of_impact(self.terrain, b, self.centers[k + 1]))
    }
}

/// When a fast body's centre, moving from `start_center` to where it is now, first comes
/// within its thinnest half extent of solid terrain, as a fraction of the move (1 when never):
/// its centre's path is cast as a ray, and the body stops short of the hit by that half extent,
/// so a ball dropped from high up lands on a shelf one voxel thick instead of passing through.
/// The next step's contacts take it from there.
fn terrain_time_of_impact(terrain: &Terrain, b: &Body, start_center: Vec3) -> f32 {
    if terrain.chunk_count() == 0 {
        return 1.0;
    }
    let path = b.center() - start_center;
    let length = path.length();
    if length == 0.0 {
        return 1.0;
    }
    let Ok(ray) = Ray::new(start_center, path, 1.0) else { return 1.0 };
    match terrain.cast_ray(&ray) {
        Some(hit) => (hit.t - b.shape.min_half_extent() / length).max(0.0),
        None => 1.0,
    }
}

/// Most advancement iterations; each one at least halves the remaining gap in practice.
const MAX_ITERATIONS: usize = 24;

/// The body-frame pose at fraction `t` of the motion from `start` to `end`: the centre of mass
/// moves on a line, the rotation on the shortest arc.
pub(crate) fn interpolate(start: &Transform, end: &Transform, local_center: Vec3, t: f32) -> Transform {
    let c0 = start.transform_point(local_center);
    let c1 = end.transform_point(local_center);
    let rotation: Quat = start.rotation.slerp(end.rotation, t).normalize();
    Transform::new(c0.lerp(c1, t) - rotation * local_center, rotation)
}

/// One shape of a moving body: the body's own or a compound's child.
pub(crate) struct SweptPart<'a> {
    pub body: &'a Body,
    pub shape: &'a Shape,
    /// The shape's pose in the body's frame (`None`: the body's own shape, at its frame).
    pub local: Option<Transform>,
}

/// The fraction of the motion `start → end` of `part`'s body at which the part comes within
/// `target` of `other` at `other_pose` (which does not move), or `None` when it never does or
/// already touched at the start.
pub(crate) fn time_of_impact(
    part: &SweptPart<'_>,
    start: &Transform,
    end: &Transform,
    other: &Shape,
    other_pose: &Transform,
    target: f32,
) -> Option<f32> {
    let body = part.body;
    let translation = end.transform_point(body.local_center) - start.transform_point(body.local_center);
    let angle = start.rotation.angle_between(end.rotation);
    // No point of the part moves faster than this, per unit of t: it turns about the body's
    // centre of mass, and no point is farther from that than the shape's bound about its own
    // origin, plus that origin's offset from the body's, plus the centre's offset.
    let offset = part.local.map_or(0.0, |l| l.position.length());
    let reach_about_origin = part.shape.bounding_radius() + offset;
    let speed_bound = translation.length() + angle * (reach_about_origin + body.local_center.length());
    if speed_bound <= 0.0 {
        return None;
    }
    let reach = speed_bound + target;
    let mut cache = CollideCache::default();
    let mut t = 0.0f32;
    for iteration in 0..MAX_ITERATIONS {
        let pose = interpolate(start, end, body.local_center, t);
        let pose = part.local.map_or(pose, |l| pose.mul(&l));
        let m = collide(part.shape, &pose, other, other_pose, reach, &mut cache);
        let Some(distance) = m.points().iter().map(|p| p.separation).reduce(f32::min) else {
            // Farther apart than the whole remaining motion.
            return None;
        };
        if distance <= target {
            return if iteration == 0 { None } else { Some(t) };
        }
        t += (distance - 0.5 * target) / speed_bound;
        if t >= 1.0 {
            return None;
        }
    }
    Some(t)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyDesc;
    use crate::child::ChildDesc;
    use crate::sensor::Sensor;

    /// A dynamic body whose own shape is a 2 m box, with `plate` (a 2 cm thick plate 3 m below
    /// its origin) as a child, and the store it sits in.
    fn thick_body_with_plate(plate_sensor: bool) -> (Body, ChildStore) {
        let plate = ChildDesc::new(
            Shape::cuboid(Vec3::new(1.0, 0.01, 1.0)).unwrap(),
            Transform::from_position(Vec3::new(0.0, -3.0, 0.0)),
        );
        let plate = if plate_sensor { plate.with_sensor(Sensor::default()) } else { plate };
        let desc = BodyDesc::dynamic(Shape::cuboid(Vec3::splat(1.0)).unwrap(), Vec3::ZERO).with_child(plate);
        let mut body = Body::from_desc(&desc, 0);
        body.tight = desc.shape.world_aabb(&body.transform);
        let mut children = ChildStore::default();
        children.insert(0, &desc.shape, &desc.children, &body.transform);
        (body, children)
    }

    #[test]
    fn a_compound_is_swept_by_its_thinnest_solid_shape_and_its_whole_box() {
        let (body, children) = thick_body_with_plate(false);
        let sb = SolverBody::FIXED;
        let compound = Some((&children, 0));
        assert!(children.extent(0).is_some());
        // 10 cm down in a step: nothing to the 1 m half box, five times the plate's 1 cm.
        let motion = Vec3::new(0.0, -0.1, 0.0);
        let everywhere = Aabb::new(Vec3::splat(-100.0), Vec3::splat(100.0));
        assert!(!may_reach_static(&body, None, &sb, motion, &everywhere, 0.0), "the own box alone");
        assert!(may_reach_static(&body, compound, &sb, motion, &everywhere, 0.0), "the plate counts");
        // Static shapes only under the plate, below the own box: the whole box reaches them.
        let below = Aabb::new(Vec3::new(-1.0, -3.3, -1.0), Vec3::new(1.0, -3.05, 1.0));
        assert!(!may_reach_static(&body, None, &sb, motion, &below, 0.0), "the own box alone");
        assert!(may_reach_static(&body, compound, &sb, motion, &below, 0.0), "the plate's box counts");
        // A sensor plate stops at nothing: the own box's thickness decides.
        let (body, children) = thick_body_with_plate(true);
        assert!(!may_reach_static(&body, Some((&children, 0)), &sb, motion, &everywhere, 0.0));
    }
}
