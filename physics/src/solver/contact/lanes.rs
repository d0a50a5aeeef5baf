//! What a contact pass reads and writes of the batch it solves, as lanes: one half of a
//! [`BatchPair`] on four lanes ([`HalfLanes`]), or both halves on eight (`pair.rs`). The passes
//! (`passes.rs`) are written once against [`BatchLanes`], so the two widths run the same
//! operations per lane.

use super::{BatchPair, PairBounce, WideFriction, WideFrictionRow, WidePoint};
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use crate::parallel::SharedSlice;
use crate::solver::simd::{Halves, Lanes, Vec3Lanes, f32x4, gather_shared, scatter_moving};
use crate::solver::{Motion, Velocity};

/// The parts of a batch that all its points and friction rows share.
#[derive(Clone, Copy)]
pub(super) struct BatchCommon<L> {
    /// The manifold's normal, from A to B.
    pub normal: Vec3Lanes<L>,
    /// Each body's inverse mass (zero for an immovable one).
    pub inv_mass_a: L,
    pub inv_mass_b: L,
    /// Friction coefficient.
    pub friction: L,
    /// The twist limit per unit of total normal impulse.
    pub twist_friction: L,
    /// Twist about the normal: each body's spin per unit impulse, effective mass, impulse.
    pub twist_spin_a: Vec3Lanes<L>,
    pub twist_spin_b: Vec3Lanes<L>,
    pub twist_mass: L,
    pub twist_impulse: L,
}

/// The bodies' motions since the step began, per lane.
#[derive(Clone, Copy)]
pub(super) struct LaneMotions<L> {
    /// Body A's translation and rotation (as a rotation vector) since the step began.
    pub moved_a: Vec3Lanes<L>,
    pub turn_a: Vec3Lanes<L>,
    /// Body B's.
    pub moved_b: Vec3Lanes<L>,
    pub turn_b: Vec3Lanes<L>,
}

/// A batch as the passes see it, in lanes of [`BatchLanes::L`].
///
/// Every accessor is `#[inline(always)]`: the passes read whole points and rows through them,
/// and what a pass does not use must vanish with the inlining.
pub(super) trait BatchLanes {
    /// The lanes' register type.
    type L: Lanes;
    /// `v` in every lane.
    fn splat(&self, v: f32) -> Self::L;
    /// Points to solve: the most of any lane (of either half, in a pair whose point counts the
    /// fill matched).
    fn point_count(&self) -> usize;
    /// The parts all points and rows share.
    fn common(&self) -> BatchCommon<Self::L>;
    /// Manifold point `i`.
    fn point(&self, i: usize) -> WidePoint<Self::L>;
    /// Stores point `i`'s accumulated and largest impulse.
    fn set_point_impulses(&mut self, i: usize, impulse: Self::L, max_impulse: Self::L);
    /// The two friction rows (made from the normal and the stored centre's offsets).
    fn friction_rows(&self) -> [WideFrictionRow<Self::L>; 2];
    /// Stores the friction rows' and the twist's accumulated impulses.
    fn set_friction_impulses(&mut self, rows: [Self::L; 2], twist: Self::L);
    /// The lanes' bodies' motions since the step began.
    ///
    /// # Safety
    /// No other thread writes these bodies' motions until the stage is over, and every body
    /// indexes `motions` (as [`BatchLanes::load`]'s velocities).
    unsafe fn motions(&self, motions: &SharedSlice<Motion>) -> LaneMotions<Self::L>;
    /// The lanes' bodies' velocities.
    ///
    /// # Safety
    /// No other thread writes these bodies' velocities until the stage is over (the batches
    /// of a colour share no moving body). Every body indexes `velocities` (checked when the
    /// batches were coloured).
    unsafe fn load(&self, velocities: &SharedSlice<Velocity>) -> LaneVelocities<Self::L>;
    /// Writes the velocities of the lanes' moving bodies back (an immovable body in several
    /// lanes keeps its velocity: no impulse changes it).
    ///
    /// # Safety
    /// As [`BatchLanes::load`], and no other thread reads the moving bodies' velocities
    /// until the stage is over.
    unsafe fn store(&self, vel: &LaneVelocities<Self::L>, velocities: &SharedSlice<Velocity>);
}

/// The velocities of the lanes' bodies while a batch is solved.
pub(super) struct LaneVelocities<L> {
    /// Body A's linear and angular velocity.
    pub va: Vec3Lanes<L>,
    pub wa: Vec3Lanes<L>,
    /// Body B's.
    pub vb: Vec3Lanes<L>,
    pub wb: Vec3Lanes<L>,
}

impl<L: Lanes> LaneVelocities<L> {
    /// Relative velocity of B's point against A's along `dir`.
    #[inline(always)]
    pub fn along(&self, dir: Vec3Lanes<L>, arm_a: Vec3Lanes<L>, arm_b: Vec3Lanes<L>) -> L {
        dir.dot(self.vb - self.va) + arm_b.dot(self.wb) - arm_a.dot(self.wa)
    }

    /// Applies `impulse` along `dir` (to B, and its opposite to A).
    #[inline(always)]
    pub fn push(
        &mut self,
        common: &BatchCommon<L>,
        dir: Vec3Lanes<L>,
        spin_a: Vec3Lanes<L>,
        spin_b: Vec3Lanes<L>,
        impulse: L,
    ) {
        self.va -= dir * (impulse * common.inv_mass_a);
        self.wa -= spin_a * impulse;
        self.vb += dir * (impulse * common.inv_mass_b);
        self.wb += spin_b * impulse;
    }
}

/// Half `h` of a pair (one batch) as four lanes.
pub(super) struct HalfLanes<'a> {
    pair: &'a mut BatchPair,
    h: usize,
}

impl<'a> HalfLanes<'a> {
    /// Half `h` (0 or 1) of `pair`.
    #[inline(always)]
    pub fn new(pair: &'a mut BatchPair, h: usize) -> HalfLanes<'a> {
        debug_assert!(h < 2);
        HalfLanes { pair, h }
    }

    /// This half's lanes of `bounce` (the pair's): the restitution coefficients, and each
    /// point's normal approach speed before the substeps.
    #[inline(always)]
    pub fn bounce(&self, bounce: &PairBounce) -> (f32x4, [f32x4; MAX_MANIFOLD_POINTS]) {
        (bounce.restitution.half(self.h), bounce.approach.each_ref().map(|a| a.half(self.h)))
    }
}

/// Four lanes of half `h` of each of a point's stored fields.
#[inline(always)]
fn half_point(p: &WidePoint<Halves>, h: usize) -> WidePoint {
    WidePoint {
        separation: p.separation.half(h),
        arm_a: p.arm_a.half(h),
        arm_b: p.arm_b.half(h),
        spin_a: p.spin_a.half(h),
        spin_b: p.spin_b.half(h),
        mass: p.mass.half(h),
        impulse: p.impulse.half(h),
        max_impulse: p.max_impulse.half(h),
    }
}

/// Four lanes of half `h` of the stored friction.
#[inline(always)]
fn half_friction(f: &WideFriction<Halves>, h: usize) -> WideFriction {
    WideFriction {
        offset_a: f.offset_a.half(h),
        offset_b: f.offset_b.half(h),
        spin_a: [f.spin_a[0].half(h), f.spin_a[1].half(h)],
        spin_b: [f.spin_b[0].half(h), f.spin_b[1].half(h)],
        mass: [f.mass[0].half(h), f.mass[1].half(h)],
        impulse: [f.impulse[0].half(h), f.impulse[1].half(h)],
    }
}

impl BatchLanes for HalfLanes<'_> {
    type L = f32x4;

    #[inline(always)]
    fn splat(&self, v: f32) -> f32x4 {
        f32x4::splat(v)
    }

    #[inline(always)]
    fn point_count(&self) -> usize {
        self.pair.point_counts[self.h]
    }

    #[inline(always)]
    fn common(&self) -> BatchCommon<f32x4> {
        let (p, h) = (&*self.pair, self.h);
        BatchCommon {
            normal: p.normal.half(h),
            inv_mass_a: p.inv_mass_a.half(h),
            inv_mass_b: p.inv_mass_b.half(h),
            friction: p.friction.half(h),
            twist_friction: p.twist_friction.half(h),
            twist_spin_a: p.twist_spin_a.half(h),
            twist_spin_b: p.twist_spin_b.half(h),
            twist_mass: p.twist_mass.half(h),
            twist_impulse: p.twist_impulse.half(h),
        }
    }

    #[inline(always)]
    fn point(&self, i: usize) -> WidePoint {
        half_point(&self.pair.points[i], self.h)
    }

    #[inline(always)]
    fn set_point_impulses(&mut self, i: usize, impulse: f32x4, max_impulse: f32x4) {
        let point = &mut self.pair.points[i];
        point.impulse.set_half(self.h, impulse);
        point.max_impulse.set_half(self.h, max_impulse);
    }

    #[inline(always)]
    fn friction_rows(&self) -> [WideFrictionRow; 2] {
        let (p, h) = (&*self.pair, self.h);
        half_friction(&p.friction_centre, h).rows(p.normal.half(h), f32x4::ONE)
    }

    #[inline(always)]
    fn set_friction_impulses(&mut self, rows: [f32x4; 2], twist: f32x4) {
        let h = self.h;
        self.pair.friction_centre.impulse[0].set_half(h, rows[0]);
        self.pair.friction_centre.impulse[1].set_half(h, rows[1]);
        self.pair.twist_impulse.set_half(h, twist);
    }

    #[inline(always)]
    unsafe fn motions(&self, motions: &SharedSlice<Motion>) -> LaneMotions<f32x4> {
        // SAFETY: as the caller guarantees.
        let (moved_a, turn_a) = unsafe { gather_shared(motions, &self.pair.body_a[self.h]) };
        // SAFETY: as the caller guarantees.
        let (moved_b, turn_b) = unsafe { gather_shared(motions, &self.pair.body_b[self.h]) };
        LaneMotions { moved_a, turn_a, moved_b, turn_b }
    }

    #[inline(always)]
    unsafe fn load(&self, velocities: &SharedSlice<Velocity>) -> LaneVelocities<f32x4> {
        let (a, b) = (&self.pair.body_a[self.h], &self.pair.body_b[self.h]);
        // SAFETY: as the caller guarantees.
        let ((va, wa), (vb, wb)) = unsafe { (gather_shared(velocities, a), gather_shared(velocities, b)) };
        LaneVelocities { va, wa, vb, wb }
    }

    #[inline(always)]
    unsafe fn store(&self, vel: &LaneVelocities<f32x4>, velocities: &SharedSlice<Velocity>) {
        let (p, h) = (&*self.pair, self.h);
        // SAFETY: as the caller guarantees.
        unsafe {
            scatter_moving(velocities, &p.body_a[h], p.inv_mass_a.half(h), vel.va, vel.wa);
            scatter_moving(velocities, &p.body_b[h], p.inv_mass_b.half(h), vel.vb, vel.wb);
        }
    }
}
