//! What the narrowphase's quick check of a quiet pair reads of each shape of a compound body,
//! laid out for it: one record per shape of an awake compound, written once its boxes are
//! final in [`Stage::Broadphase`], and stamped with the step that wrote it, so a pair reads
//! records only while both are this step's (others take the path through the bodies).
//!
//! The quick check decides for most of a settled pile's pairs that nothing changed (in the
//! table pile, 24 000 of 28 700 contacts a step). Through the bodies and children it chased
//! each side's body, turned both rotations into a matrix for the box bound and took two
//! square roots for the turning speeds; from the records, fetched a few pairs ahead, the
//! narrowphase of the tables took 11 % less time, and with every record in one array and four
//! pairs checked at once in lanes ([`reach_stays_quiet_four`]) a further 20 % (BENCHMARKS.md).
//! Bodies of one shape keep no record: for them the records cost more than they saved.

use crate::body::Body;
use crate::child_store::Child;
use crate::math::{Aabb, Transform, Vec3};
use crate::narrowphase::{
    BoxLanes, SPHERE_REACH_MARGIN, boxes_out_of_reach_by_axes, boxes_out_of_reach_by_axes_four,
};
use crate::parallel::prefetch::prefetch_line_at;
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape::Shape;
use crate::shape_key::{child_key, child_slot, is_child_key};
use crate::world::StepSettings;
use glam::{Mat3A, Vec3A, Vec4};
use wide::f32x4;

/// One shape's record: its boxes, pose and speed as the quick check reads them.
///
/// Three cache lines: the boxes, the position and the bounding radius first, then the speeds,
/// a box's half extents and what says whose record it is (every check reads both lines), then a
/// box's axes, which only a pair the other bounds let through reads (three in five of the
/// table pile's). The axes are kept as a matrix: kept as the rotation, two lines, the matrices
/// made per pair cost 6 % more instructions on the tables for the same narrowphase time.
///
/// Every line is kept as groups of four floats, so that the check of four pairs at once loads
/// a group of four records and turns it into four lanes by one transposition; loading each of
/// the twenty floats it reads into its lane one at a time took twice the instructions.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C, align(64))]
pub(crate) struct ShapeReach {
    /// The first two lines, group by group:
    ///
    /// | group | floats |
    /// | --- | --- |
    /// | 0 | fat box: min x, y, z; max x |
    /// | 1 | fat box: max y, z; tight box: min x, y |
    /// | 2 | tight box: min z; max x, y, z |
    /// | 3 | position x, y, z; bounding radius about the shape's own origin |
    /// | 4 | its body's velocity x, y, z; spin (how fast the body's turn moves the shape's points at most: the angular speed times the shape's reach from the body's origin) |
    /// | 5 | a box's half extents x, y, z (zero for any other shape); key (bits) |
    /// | 6 | stamp (bits); whether a box (bits); zero; zero |
    /// | 7 | zeros |
    ///
    /// The key names the shape it describes (`crate::shape_key`): a body's own record is found
    /// through an index kept per body slot, which may still name a place another compound took
    /// since. The stamp is [`ShapeReaches::stamp`] when it was written.
    groups: [[f32; 4]; 8],
    /// The shape's axes in the world (a box's; identity for any other shape) as three columns
    /// of four floats (the fourth zero), and a fourth group of zeros, on a line of their own:
    /// only a pair the other bounds let through reads them.
    axes: [[f32; 4]; 4],
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
        let (boxed, half_extents) = match shape {
            Shape::Cuboid { half_extents } => (true, *half_extents),
            _ => (false, Vec3::ZERO),
        };
        let (f, t, p, v, h) = (fat, tight, transform.position, body.linear_velocity, half_extents);
        let spin = body.angular_velocity.length() * speed_radius;
        ShapeReach {
            groups: [
                [f.min.x, f.min.y, f.min.z, f.max.x],
                [f.max.y, f.max.z, t.min.x, t.min.y],
                [t.min.z, t.max.x, t.max.y, t.max.z],
                [p.x, p.y, p.z, radius],
                [v.x, v.y, v.z, spin],
                [h.x, h.y, h.z, f32::from_bits(key)],
                [f32::from_bits(stamp), f32::from_bits(u32::from(boxed)), 0.0, 0.0],
                [0.0; 4],
            ],
            axes: {
                let m = if boxed { Mat3A::from_quat(transform.rotation) } else { Mat3A::IDENTITY };
                let column = |c: Vec3A| Vec4::from((c, 0.0)).to_array();
                [column(m.x_axis), column(m.y_axis), column(m.z_axis), [0.0; 4]]
            },
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

    /// The fat box.
    #[cfg(test)]
    fn fat(&self) -> Aabb {
        let [g0, g1] = [self.groups[0], self.groups[1]];
        Aabb { min: Vec3::new(g0[0], g0[1], g0[2]), max: Vec3::new(g0[3], g1[0], g1[1]) }
    }

    /// The tight box.
    #[inline(always)]
    fn tight(&self) -> Aabb {
        let [g1, g2] = [self.groups[1], self.groups[2]];
        Aabb { min: Vec3::new(g1[2], g1[3], g2[0]), max: Vec3::new(g2[1], g2[2], g2[3]) }
    }

    /// The first three floats of group `g`, as a vector.
    #[inline(always)]
    fn vector(&self, g: usize) -> Vec3 {
        let [x, y, z, _] = self.groups[g];
        Vec3::new(x, y, z)
    }

    /// The shape's origin in the world.
    #[inline(always)]
    fn position(&self) -> Vec3 {
        self.vector(3)
    }

    /// The shape's bounding radius about its own origin.
    #[inline(always)]
    fn radius(&self) -> f32 {
        self.groups[3][3]
    }

    /// Its body's linear velocity.
    #[cfg(test)]
    fn velocity(&self) -> Vec3 {
        self.vector(4)
    }

    /// How fast its body's turn moves its points at most.
    #[cfg(test)]
    fn spin(&self) -> f32 {
        self.groups[4][3]
    }

    /// A box's half extents; zero for any other shape.
    #[inline(always)]
    fn half_extents(&self) -> Vec3 {
        self.vector(5)
    }

    /// The key of the shape it describes.
    #[inline(always)]
    fn key(&self) -> u32 {
        self.groups[5][3].to_bits()
    }

    /// The stamp of the step that wrote it.
    #[inline(always)]
    fn stamp(&self) -> u32 {
        self.groups[6][0].to_bits()
    }

    /// Marks it as written by no step.
    fn clear_stamp(&mut self) {
        self.groups[6][0] = f32::from_bits(0);
    }

    /// Whether the shape is a box.
    #[inline(always)]
    fn boxed(&self) -> bool {
        self.groups[6][1].to_bits() != 0
    }

    /// The shape's axes in the world.
    #[inline(always)]
    fn axes(&self) -> Mat3A {
        let column = |c: [f32; 4]| Vec3A::from_vec4(Vec4::from_array(c));
        Mat3A::from_cols(column(self.axes[0]), column(self.axes[1]), column(self.axes[2]))
    }
}

/// Whether the pair of shapes `a` and `b`, quiet last step, stays so: its fat boxes overlap
/// (the pair lives) and a bound on the shapes' distance lies beyond the speculative distance
/// (a collision would give no point). The same bounds, in the same arithmetic, as the full
/// update of a pair with a compound's shape (`parts_within_reach`): the tight boxes, the
/// bounding spheres, and for two boxes each against the box around the other in its axes.
///
/// The step checks four pairs at once ([`reach_stays_quiet_four`]); this one-pair form is what
/// the tests hold those lanes to.
#[cfg(test)]
pub(crate) fn reach_stays_quiet(a: &ShapeReach, b: &ShapeReach, settings: &StepSettings) -> bool {
    if !a.fat().overlaps(&b.fat()) {
        return false;
    }
    let speed = (a.velocity() - b.velocity()).length() + a.spin() + b.spin();
    records_out_of_reach(a, b, settings.speculative_distance + settings.dt * speed)
}

/// [`reach_stays_quiet`] of four pairs at once, a lane each: the fat boxes, the speed, the
/// tight boxes and the spheres in lanes, then the two boxes' bound in lanes too where a lane is
/// left undecided (three in five of the table pile's quiet pairs reach it). Each lane takes
/// the same IEEE operations in the same order as [`reach_stays_quiet`] (no fused
/// operations; the square root is correctly rounded either way), so the verdicts are the same
/// bit for bit (the tests and the step's debug checks compare them). Bit `k` of the result is
/// lane `k`'s verdict: quiet.
///
/// The table pile checks 24 000 quiet pairs a step; one at a time they were a third of its
/// settled step, mostly in arithmetic and branches whose outcome follows no pattern.
#[inline(always)]
pub(crate) fn reach_stays_quiet_four(pairs: [(&ShapeReach, &ShapeReach); 4], settings: &StepSettings) -> u32 {
    // Groups 0 to 4 of each side's four records as lanes: `side[g][i]` is float `i` of group
    // `g` (the table at `ShapeReach::groups`) of the four.
    let lanes = |records: [&ShapeReach; 4]| -> [[f32x4; 4]; 5] {
        std::array::from_fn(|g| f32x4::transpose(records.map(|r| f32x4::new(r.groups[g]))))
    };
    let (a, b) = (lanes(pairs.map(|p| p.0)), lanes(pairs.map(|p| p.1)));
    let fat_min = |s: &[[f32x4; 4]; 5]| [s[0][0], s[0][1], s[0][2]];
    let fat_max = |s: &[[f32x4; 4]; 5]| [s[0][3], s[1][0], s[1][1]];
    let tight_min = |s: &[[f32x4; 4]; 5]| [s[1][2], s[1][3], s[2][0]];
    let tight_max = |s: &[[f32x4; 4]; 5]| [s[2][1], s[2][2], s[2][3]];
    // `Aabb::overlaps`, per axis: `min <= other.max` and `other.min <= max`.
    let overlap = |a_min: [f32x4; 3], a_max: [f32x4; 3], b_min: [f32x4; 3], b_max: [f32x4; 3]| {
        (a_min[0].simd_le(b_max[0]) & b_min[0].simd_le(a_max[0]))
            & (a_min[1].simd_le(b_max[1]) & b_min[1].simd_le(a_max[1]))
            & (a_min[2].simd_le(b_max[2]) & b_min[2].simd_le(a_max[2]))
    };
    let fat = overlap(fat_min(&a), fat_max(&a), fat_min(&b), fat_max(&b));
    // `(a.velocity - b.velocity).length() + a.spin + b.spin`, the dot product left to right.
    let dv = [a[4][0] - b[4][0], a[4][1] - b[4][1], a[4][2] - b[4][2]];
    let speed = (dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]).sqrt() + a[4][3] + b[4][3];
    let speculative = f32x4::splat(settings.speculative_distance) + f32x4::splat(settings.dt) * speed;
    // `records_out_of_reach`'s first two bounds: A's tight box grown by the speculative
    // distance against B's, and the spheres.
    let boxes_meet = overlap(
        tight_min(&a).map(|m| m - speculative),
        tight_max(&a).map(|m| m + speculative),
        tight_min(&b),
        tight_max(&b),
    );
    let reach = a[3][3] + b[3][3] + speculative + f32x4::splat(SPHERE_REACH_MARGIN);
    let d = [a[3][0] - b[3][0], a[3][1] - b[3][1], a[3][2] - b[3][2]];
    let spheres_apart = (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).simd_gt(reach * reach);
    let (fat, boxes_meet, spheres_apart) =
        (fat.to_bitmask(), boxes_meet.to_bitmask(), spheres_apart.to_bitmask());
    // Quiet by the lanes' bounds, without a branch a lane; those left (three in five in the
    // table pile) to the two boxes' bound, in lanes too where any is left.
    let mut quiet = fat & (!boxes_meet | spheres_apart);
    let boxes = pairs.iter().enumerate().fold(0, |m, (k, (a, b))| m | u32::from(a.boxed() && b.boxed()) << k);
    let undecided = fat & boxes_meet & !spheres_apart & boxes;
    if undecided != 0 {
        let box_lanes = |records: [&ShapeReach; 4], side: &[[f32x4; 4]; 5]| {
            let axes = |c: usize| f32x4::transpose(records.map(|r| f32x4::new(r.axes[c])));
            let half = f32x4::transpose(records.map(|r| f32x4::new(r.groups[5])));
            BoxLanes {
                half_extents: [half[0], half[1], half[2]],
                axes: std::array::from_fn(|c| {
                    let column = axes(c);
                    [column[0], column[1], column[2]]
                }),
                centre: [side[3][0], side[3][1], side[3][2]],
            }
        };
        let (box_a, box_b) = (box_lanes(pairs.map(|p| p.0), &a), box_lanes(pairs.map(|p| p.1), &b));
        quiet |= undecided & boxes_out_of_reach_by_axes_four(&box_a, &box_b, speculative);
    }
    quiet
}

/// Whether the records' bounds put shapes `a` and `b` farther apart than `speculative`: what
/// `parts_within_reach` says of them, from their records.
#[inline(always)]
pub(crate) fn records_out_of_reach(a: &ShapeReach, b: &ShapeReach, speculative: f32) -> bool {
    if !a.tight().grown(speculative).overlaps(&b.tight()) {
        return true;
    }
    let reach = a.radius() + b.radius() + speculative + SPHERE_REACH_MARGIN;
    if a.position().distance_squared(b.position()) > reach * reach {
        return true;
    }
    a.boxed() && b.boxed() && boxes_apart_by_axes(a, b, speculative)
}

/// The two boxes' bound of `records_out_of_reach`, of two records of boxes.
#[inline(always)]
fn boxes_apart_by_axes(a: &ShapeReach, b: &ShapeReach, speculative: f32) -> bool {
    boxes_out_of_reach_by_axes(
        a.half_extents().into(),
        &a.axes(),
        a.position().into(),
        b.half_extents().into(),
        &b.axes(),
        b.position().into(),
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
    /// Per body slot, the place of its own shape's record among the compounds' (after the
    /// children's in [`ShapeReaches::records`]): a world's compounds may be few among many
    /// bodies, so the records are by compound and the index (four bytes a slot, up to the last
    /// compound's) by slot.
    own_index: Vec<u32>,
    /// How many child slots there are: the children's records come first, by child slot.
    child_slots: usize,
    /// The children's records by child slot, then the compounds' own shapes' records in the
    /// order of `ChildStore::compounds`. One array, so that where a key's record is comes
    /// without a branch on the kind of key: in the table pile, which of a leg and a top a
    /// pair's key names follows no pattern, and that branch was a third of the mispredicted
    /// branches of the quick checks (callgrind's branch model, `step_count tables 250 10`).
    records: Vec<ShapeReach>,
}

impl ShapeReaches {
    /// Bytes of the arrays.
    pub(crate) fn bytes(&self) -> usize {
        self.records.len() * size_of::<ShapeReach>() + self.own_index.len() * 4
    }

    /// Starts a step's records: `compounds` compound bodies in body slots below `body_slots`,
    /// `children` child slots. Returns the stamp they carry.
    pub(crate) fn begin(&mut self, body_slots: usize, compounds: usize, children: usize) -> u32 {
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.records.iter_mut().for_each(ShapeReach::clear_stamp);
            self.stamp = 1;
        }
        // Records keep their place while the child slots stay (their stamps say which are
        // this step's); when the count changes they all move, and none is this step's yet.
        if children != self.child_slots {
            self.records.iter_mut().for_each(ShapeReach::clear_stamp);
            self.child_slots = children;
        }
        self.own_index.resize(body_slots, u32::MAX);
        self.records.resize(children + compounds, ShapeReach::default());
        self.stamp
    }

    /// Writes the record of the own shape of the body in slot `slot`, the `place`-th compound.
    pub(crate) fn set_body(&mut self, slot: usize, place: usize, reach: ShapeReach) {
        self.own_index[slot] = place as u32;
        self.records[self.child_slots + place] = reach;
    }

    /// Writes child slot `slot`'s record.
    pub(crate) fn set_child(&mut self, slot: usize, reach: ShapeReach) {
        self.records[slot] = reach;
    }

    /// Where the record of the shape of key `key` would be (any key; the place may be past the
    /// records). Both places are worked out and one is picked, without a branch: a child key's
    /// slot reads some body slot's index (clamped into the index), which it then ignores.
    #[inline(always)]
    fn place(&self, key: u32) -> usize {
        let slot = child_slot(key);
        let last = self.own_index.len().wrapping_sub(1);
        let own = match self.own_index.get(slot.min(last)) {
            Some(&i) if i != u32::MAX => self.child_slots + i as usize,
            _ => usize::MAX,
        };
        // A body slot past the index has no record either (the clamp read another's).
        let own = if slot > last { usize::MAX } else { own };
        if is_child_key(key) { slot } else { own }
    }

    /// Asks the cache for the record of the shape of key `key` (any key: a prefetch of a key
    /// with no record, the terrain's, reads nothing).
    #[inline(always)]
    pub(crate) fn prefetch(&self, key: u32) {
        let place = self.place(key);
        let address =
            (self.records.as_ptr() as usize).wrapping_add(place.wrapping_mul(size_of::<ShapeReach>()));
        // A record starts a line (its alignment): its three lines, without working them out.
        for line in 0..3 {
            prefetch_line_at(address.wrapping_add(line * 64));
        }
    }

    /// The record of the shape of key `key` (not the terrain's), if this step wrote it.
    #[inline(always)]
    pub(crate) fn current(&self, key: u32) -> Option<&ShapeReach> {
        self.records.get(self.place(key)).filter(|r| r.stamp() == self.stamp && r.key() == key)
    }
}
