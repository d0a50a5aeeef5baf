//! What the narrowphase's quick check of a quiet pair reads of each shape of a compound body,
//! laid out for it: one record per shape of an awake compound, written once its boxes are
//! final in [`Stage::Broadphase`], and stamped with the step that wrote it, so a pair reads
//! records only while both are this step's (others take the path through the bodies).
//!
//! The quick check decides for most of a settled pile's pairs that nothing changed (in the
//! table pile, 20 000 of 28 800 contacts a step). Through the bodies and children it chased
//! each side's body, turned both rotations into a matrix for the box bound and took two
//! square roots for the turning speeds; from the records, fetched a few pairs ahead, the
//! narrowphase of the tables takes 8 % less time (BENCHMARKS.md). Bodies of one shape keep no
//! record: for them the records cost more than they saved.

use crate::body::Body;
use crate::child_store::Child;
use crate::math::{Aabb, Transform, Vec3};
use crate::narrowphase::{SPHERE_REACH_MARGIN, boxes_out_of_reach_by_axes};
use crate::parallel::prefetch::prefetch_line_at;
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape::Shape;
use crate::shape_key::{child_key, child_slot, is_child_key};
use crate::world::StepSettings;
use glam::Mat3A;

/// One shape's record: its boxes, pose and speed as the quick check reads them.
///
/// Three cache lines: the boxes first, then the pose and speed (every check reads both), then a
/// box's axes, which only a pair of boxes the other bounds let through reads. The axes are
/// kept as a matrix: kept as the rotation, two lines, the matrices made per pair cost 6 % more
/// instructions on the tables for the same narrowphase time.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct ShapeReach {
    fat: Aabb,
    tight: Aabb,
    /// The shape's bounding radius about its own origin.
    radius: f32,
    /// How fast its body's turn moves its points at most: the angular speed times the shape's
    /// reach from the body's origin.
    spin: f32,
    /// [`ShapeReaches::stamp`] when it was written.
    stamp: u32,
    /// Whether the shape is a box.
    boxed: bool,
    /// The shape's origin in the world.
    position: Vec3,
    /// Its body's linear velocity.
    velocity: Vec3,
    /// A box's half extents; zero for any other shape.
    half_extents: Vec3,
    /// The key of the shape it describes (`crate::shape_key`): a body's own record is found
    /// through an index kept per body slot, which may still name a place another compound
    /// took since.
    key: u32,
    /// Fills the second line.
    _pad: [u32; 6],
    /// The shape's axes in the world (a box's; identity for any other shape), on a line of
    /// their own: only a pair of boxes the other bounds let through reads them.
    axes: Mat3A,
}

// Three cache lines, the first the boxes'.
const _: () = assert!(std::mem::size_of::<ShapeReach>() == 192);
const _: () = assert!(std::mem::offset_of!(ShapeReach, axes) == 128);

impl ShapeReach {
    /// The record of a shape at pose `transform` of a body moving as `body`: `radius` its
    /// bounding radius about its own origin, `speed_radius` about its body's origin.
    #[allow(clippy::too_many_arguments)]
    fn new(
        shape: &Shape,
        transform: &Transform,
        tight: &Aabb,
        fat: &Aabb,
        radius: f32,
        speed_radius: f32,
        body: &Body,
        key: u32,
        stamp: u32,
    ) -> ShapeReach {
        let half_extents = match shape {
            Shape::Cuboid { half_extents } => *half_extents,
            _ => Vec3::ZERO,
        };
        ShapeReach {
            fat: *fat,
            tight: *tight,
            radius,
            spin: body.angular_velocity.length() * speed_radius,
            stamp,
            boxed: matches!(shape, Shape::Cuboid { .. }),
            axes: if matches!(shape, Shape::Cuboid { .. }) {
                Mat3A::from_quat(transform.rotation)
            } else {
                Mat3A::IDENTITY
            },
            position: transform.position,
            velocity: body.linear_velocity,
            half_extents,
            key,
            _pad: [0; 6],
        }
    }

    /// The record of the own shape of body `body`, in slot `slot`.
    pub(crate) fn of_body(body: &Body, slot: u32, stamp: u32) -> ShapeReach {
        let r = body.bounding_radius;
        ShapeReach::new(&body.shape, &body.transform, &body.tight, &body.fat, r, r, body, slot, stamp)
    }

    /// The record of child `child`, in child slot `slot`, of body `body`.
    pub(crate) fn of_child(child: &Child, slot: u32, body: &Body, stamp: u32) -> ShapeReach {
        ShapeReach::new(
            &child.shape,
            &child.transform,
            &child.tight,
            &child.fat,
            child.bounding_radius,
            child.body_radius,
            body,
            child_key(slot),
            stamp,
        )
    }
}

/// Whether the pair of shapes `a` and `b`, quiet last step, stays so: its fat boxes overlap
/// (the pair lives) and a bound on the shapes' distance lies beyond the speculative distance
/// (a collision would give no point). The same bounds, in the same arithmetic, as the full
/// update of a pair with a compound's shape (`parts_within_reach`): the tight boxes, the
/// bounding spheres, and for two boxes each against the box around the other in its axes.
#[inline(always)]
pub(crate) fn reach_stays_quiet(a: &ShapeReach, b: &ShapeReach, settings: &StepSettings) -> bool {
    if !a.fat.overlaps(&b.fat) {
        return false;
    }
    let speed = (a.velocity - b.velocity).length() + a.spin + b.spin;
    records_out_of_reach(a, b, settings.speculative_distance + settings.dt * speed)
}

/// Whether the records' bounds put shapes `a` and `b` farther apart than `speculative`: what
/// `parts_within_reach` says of them, from their records.
#[inline(always)]
pub(crate) fn records_out_of_reach(a: &ShapeReach, b: &ShapeReach, speculative: f32) -> bool {
    if !a.tight.grown(speculative).overlaps(&b.tight) {
        return true;
    }
    let reach = a.radius + b.radius + speculative + SPHERE_REACH_MARGIN;
    if a.position.distance_squared(b.position) > reach * reach {
        return true;
    }
    a.boxed
        && b.boxed
        && boxes_out_of_reach_by_axes(
            a.half_extents.into(),
            &a.axes,
            a.position.into(),
            b.half_extents.into(),
            &b.axes,
            b.position.into(),
            speculative,
        )
}

/// The records of the awake compounds' shapes, the stamp of this step's, and where a body's
/// own record is.
///
/// Every record's stamp is at most [`ShapeReaches::stamp`], and [`ShapeReaches::begin`] counts
/// it up in each step's broadphase stage before the narrowphase reads any: a record with the
/// current stamp was written this step. Restoring a world's state brings back the stamp with
/// the records it wrote; zero is no step's (when the count wraps every record is marked so).
#[derive(Clone, Debug, Default)]
pub(crate) struct ShapeReaches {
    stamp: u32,
    /// Per body slot, the place of its own shape's record in [`ShapeReaches::own`]: a world's
    /// compounds may be few among many bodies, so the records are by compound and the index
    /// (four bytes a slot, up to the last compound's) by slot.
    own_index: Vec<u32>,
    /// The compounds' own shapes' records, in the order of `ChildStore::compounds`.
    own: Vec<ShapeReach>,
    /// The children's records, by child slot.
    children: Vec<ShapeReach>,
}

impl ShapeReaches {
    /// Bytes of the arrays.
    pub(crate) fn bytes(&self) -> usize {
        (self.own.len() + self.children.len()) * size_of::<ShapeReach>() + self.own_index.len() * 4
    }

    /// Starts a step's records: `compounds` compound bodies in body slots below `body_slots`,
    /// `children` child slots. Returns the stamp they carry.
    pub(crate) fn begin(&mut self, body_slots: usize, compounds: usize, children: usize) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.own.iter_mut().chain(&mut self.children).for_each(|r| r.stamp = 0);
            self.stamp = 1;
        }
        self.own_index.resize(body_slots, u32::MAX);
        self.own.resize(compounds, ShapeReach::default());
        self.children.resize(children, ShapeReach::default());
        self.stamp
    }

    /// Writes the record of the own shape of the body in slot `slot`, the `place`-th compound.
    pub(crate) fn set_body(&mut self, slot: usize, place: usize, reach: ShapeReach) {
        self.own_index[slot] = place as u32;
        self.own[place] = reach;
    }

    /// Writes child slot `slot`'s record.
    pub(crate) fn set_child(&mut self, slot: usize, reach: ShapeReach) {
        self.children[slot] = reach;
    }

    /// Where the record of the shape of key `key` would be (any key; the index may be past
    /// the records).
    #[inline(always)]
    fn place(&self, key: u32) -> (&[ShapeReach], usize) {
        if is_child_key(key) {
            (&self.children, child_slot(key))
        } else {
            (&self.own, self.own_index.get(key as usize).map_or(usize::MAX, |&i| i as usize))
        }
    }

    /// Asks the cache for the record of the shape of key `key` (any key: a prefetch of a key
    /// with no record, the terrain's, reads nothing).
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u32) {
        let (records, place) = self.place(key);
        let address = (records.as_ptr() as usize).wrapping_add(place.wrapping_mul(size_of::<ShapeReach>()));
        // A record starts a line (its alignment): its three lines, without working them out.
        for line in 0..3 {
            prefetch_line_at(address.wrapping_add(line * 64));
        }
    }

    /// The record of the shape of key `key` (not the terrain's), if this step wrote it.
    #[inline(always)]
    pub(crate) fn current(&self, key: u32) -> Option<&ShapeReach> {
        let (records, place) = self.place(key);
        records.get(place).filter(|r| r.stamp == self.stamp && r.key == key)
    }
}
