//! What a contact pass reads and writes of the batch it solves, as lanes: one [`WideContact`]
//! on four lanes, or two batches of a colour on eight (`pair.rs`). The passes (`passes.rs`) are
//! written once against [`BatchLanes`], so the two widths run the same operations per lane.

use super::{WideContact, WideFrictionRow, WidePoint};
use crate::parallel::SharedSlice;
use crate::solver::simd::{Lanes, Vec3Lanes, f32x4, gather, gather_shared, scatter_moving};
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
    /// Soft position feedback: the bias rate, and how the mass and the accumulated impulse
    /// are scaled ([`crate::solver::Softness`]).
    pub bias_rate: L,
    pub mass_scale: L,
    pub impulse_scale: L,
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
    /// Points to solve: the most of any lane.
    fn point_count(&self) -> usize;
    /// The parts all points and rows share.
    fn common(&self) -> BatchCommon<Self::L>;
    /// Manifold point `i`.
    fn point(&self, i: usize) -> WidePoint<Self::L>;
    /// Stores point `i`'s accumulated and largest impulse.
    fn set_point_impulses(&mut self, i: usize, impulse: Self::L, max_impulse: Self::L);
    /// The two friction rows.
    fn friction_rows(&self) -> [WideFrictionRow<Self::L>; 2];
    /// Stores the friction rows' and the twist's accumulated impulses.
    fn set_friction_impulses(&mut self, rows: [Self::L; 2], twist: Self::L);
    /// The lanes' bodies' motions since the step began.
    fn motions(&self, motions: &[Motion]) -> LaneMotions<Self::L>;
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

impl BatchLanes for WideContact {
    type L = f32x4;

    #[inline(always)]
    fn splat(&self, v: f32) -> f32x4 {
        f32x4::splat(v)
    }

    #[inline(always)]
    fn point_count(&self) -> usize {
        self.point_count
    }

    #[inline(always)]
    fn common(&self) -> BatchCommon<f32x4> {
        BatchCommon {
            normal: self.normal,
            inv_mass_a: self.inv_mass_a,
            inv_mass_b: self.inv_mass_b,
            friction: self.friction,
            twist_friction: self.twist_friction,
            bias_rate: self.bias_rate,
            mass_scale: self.mass_scale,
            impulse_scale: self.impulse_scale,
            twist_spin_a: self.twist_spin_a,
            twist_spin_b: self.twist_spin_b,
            twist_mass: self.twist_mass,
            twist_impulse: self.twist_impulse,
        }
    }

    #[inline(always)]
    fn point(&self, i: usize) -> WidePoint {
        self.points[i]
    }

    #[inline(always)]
    fn set_point_impulses(&mut self, i: usize, impulse: f32x4, max_impulse: f32x4) {
        let point = &mut self.points[i];
        point.impulse = impulse;
        point.max_impulse = max_impulse;
    }

    #[inline(always)]
    fn friction_rows(&self) -> [WideFrictionRow; 2] {
        self.friction_rows
    }

    #[inline(always)]
    fn set_friction_impulses(&mut self, rows: [f32x4; 2], twist: f32x4) {
        self.friction_rows[0].impulse = rows[0];
        self.friction_rows[1].impulse = rows[1];
        self.twist_impulse = twist;
    }

    #[inline(always)]
    fn motions(&self, motions: &[Motion]) -> LaneMotions<f32x4> {
        let (moved_a, turn_a) = gather(motions, &self.body_a);
        let (moved_b, turn_b) = gather(motions, &self.body_b);
        LaneMotions { moved_a, turn_a, moved_b, turn_b }
    }

    #[inline(always)]
    unsafe fn load(&self, velocities: &SharedSlice<Velocity>) -> LaneVelocities<f32x4> {
        // SAFETY: as the caller guarantees.
        let ((va, wa), (vb, wb)) =
            unsafe { (gather_shared(velocities, &self.body_a), gather_shared(velocities, &self.body_b)) };
        LaneVelocities { va, wa, vb, wb }
    }

    #[inline(always)]
    unsafe fn store(&self, vel: &LaneVelocities<f32x4>, velocities: &SharedSlice<Velocity>) {
        // SAFETY: as the caller guarantees.
        unsafe {
            scatter_moving(velocities, &self.body_a, self.inv_mass_a, vel.va, vel.wa);
            scatter_moving(velocities, &self.body_b, self.inv_mass_b, vel.vb, vel.wb);
        }
    }
}
