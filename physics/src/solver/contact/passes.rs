//! The contact passes of a substep, warm start and solve (with or without position feedback),
//! written once for any [`BatchLanes`]; and restitution, once a step, on four lanes.

use super::lanes::{BatchCommon, BatchLanes, HalfLanes, LaneVelocities};
use super::{PairBounce, WideFrictionRow, WidePoint};
use crate::parallel::SharedSlice;
use crate::solver::simd::{Lanes, Vec3Lanes, f32x4, select};
use crate::solver::{Motion, Softness, Velocity};

/// A pass over the batches, run on each batch (or pair of batches) of a colour.
pub(super) trait Pass {
    /// Runs the pass on `batch`.
    ///
    /// # Safety
    /// No other thread writes the batch's bodies' velocities or motions, or reads its moving
    /// bodies' velocities, until the stage is over, and every body indexes the velocities and
    /// motions (as [`BatchLanes::load`] and [`BatchLanes::store`]); the same of their pending
    /// warm starts ([`SolvePass::pending`], indexed as the velocities).
    unsafe fn run<C: BatchLanes>(&self, batch: &mut C);
}

/// Applies the accumulated impulses: the first substep's warm start (a relax pass leaves the
/// next substep's, [`SolvePass::pending`]).
pub(super) struct WarmStart<'a, 'v> {
    pub velocities: &'a SharedSlice<'v, Velocity>,
}

impl Pass for WarmStart<'_, '_> {
    #[inline(always)]
    unsafe fn run<C: BatchLanes>(&self, c: &mut C) {
        // SAFETY: as the caller guarantees.
        let mut vel = unsafe { c.load(self.velocities) };
        add_warm_start(c, &mut vel);
        // SAFETY: as the caller guarantees.
        unsafe { c.store(&vel, self.velocities) };
    }
}

/// Adds to `vel` what the batch's accumulated impulses change of its bodies' velocities.
#[inline(always)]
fn add_warm_start<C: BatchLanes>(c: &C, vel: &mut LaneVelocities<C::L>) {
    let k = c.common();
    let mut sums = NormalSums::new(c.splat(0.0));
    for i in 0..c.point_count() {
        let p = c.point(i);
        sums.add(&p, p.impulse);
    }
    let [r1, r2] = c.friction_rows();
    sums.push_with_friction(vel, &k, [&r1, &r2], [r1.impulse, r2.impulse], k.twist_impulse);
}

/// A batch's normal impulses summed over its points, as the warm start applies them: the
/// total, and each body's spin from them.
struct NormalSums<L> {
    total: L,
    spin_a: Vec3Lanes<L>,
    spin_b: Vec3Lanes<L>,
}

impl<L: Lanes> NormalSums<L> {
    /// Nothing summed yet (`zero` +0.0 in every lane).
    #[inline(always)]
    fn new(zero: L) -> NormalSums<L> {
        NormalSums { total: zero, spin_a: Vec3Lanes::splat(zero), spin_b: Vec3Lanes::splat(zero) }
    }

    /// Adds point `p`'s impulse `impulse`.
    #[inline(always)]
    fn add(&mut self, p: &WidePoint<L>, impulse: L) {
        self.total += impulse;
        self.spin_a += p.spin_a * impulse;
        self.spin_b += p.spin_b * impulse;
    }

    /// Applies the summed normal impulses to `vel`, then the friction rows' `impulses` and
    /// the twist impulse `twist`: the warm start's operations, in its order.
    #[inline(always)]
    fn push_with_friction(
        &self,
        vel: &mut LaneVelocities<L>,
        k: &BatchCommon<L>,
        rows: [&WideFrictionRow<L>; 2],
        impulses: [L; 2],
        twist: L,
    ) {
        vel.va -= k.normal * (self.total * k.inv_mass_a);
        vel.wa -= self.spin_a;
        vel.vb += k.normal * (self.total * k.inv_mass_b);
        vel.wb += self.spin_b;
        vel.push(k, rows[0].direction, rows[0].spin_a, rows[0].spin_b, impulses[0]);
        vel.push(k, rows[1].direction, rows[1].spin_a, rows[1].spin_b, impulses[1]);
        vel.wa -= k.twist_spin_a * twist;
        vel.wb += k.twist_spin_b * twist;
    }
}

/// One solve or relax pass. With `use_bias` the soft position feedback pushes overlapping
/// bodies apart; without it (the relax pass) only velocities are made consistent.
pub(super) struct SolvePass<'a, 'v> {
    pub motions: &'a SharedSlice<'v, Motion>,
    pub velocities: &'a SharedSlice<'v, Velocity>,
    pub inv_h: f32,
    /// The fastest push-out speed, negated.
    pub max_push_out: f32,
    pub use_bias: bool,
    /// The soft position feedback between two movable bodies, and against an immovable one
    /// (an inverse mass of zero on either side).
    pub movable: Softness,
    pub fixed: Softness,
    /// Where a relax pass adds each body's warm start for the next substep, from the impulses
    /// it ends with (per solver body, as the velocities): `None` in the solve pass and in the
    /// last substep's relax.
    pub pending: Option<&'a SharedSlice<'v, Velocity>>,
}

impl Pass for SolvePass<'_, '_> {
    #[inline(always)]
    unsafe fn run<C: BatchLanes>(&self, c: &mut C) {
        // SAFETY: as the caller guarantees.
        let m = unsafe { c.motions(self.motions) };
        let dp = m.moved_b - m.moved_a;
        // SAFETY: as the caller guarantees.
        let mut vel = unsafe { c.load(self.velocities) };
        let k = c.common();
        let (zero, one) = (c.splat(0.0), c.splat(1.0));
        let (inv_h, max_push_out) = (c.splat(self.inv_h), c.splat(self.max_push_out));
        let normal_motion = k.normal.dot(dp);
        // (The splats spelled out: a closure does not take on the eight-lane passes' target
        // features, and each intrinsic in one stays a call.)
        let (movable, fixed) = (&self.movable, &self.fixed);
        let [bias_rate, soft_mass_scale, soft_impulse_scale] = lane_softness(
            k.inv_mass_a,
            k.inv_mass_b,
            zero,
            [c.splat(movable.bias_rate), c.splat(movable.mass_scale), c.splat(movable.impulse_scale)],
            [c.splat(fixed.bias_rate), c.splat(fixed.mass_scale), c.splat(fixed.impulse_scale)],
        );
        let mut total = zero;
        // What the relax leaves for the next warm start, summed as it goes: the impulses are
        // then at hand.
        let leave_pending = self.pending.is_some();
        let mut sums = NormalSums::new(zero);
        for i in 0..c.point_count() {
            let p = c.point(i);
            // Current separation from the bodies' motion since the step began.
            let s = normal_motion + p.arm_b.dot(m.turn_b) - p.arm_a.dot(m.turn_a) + p.separation;
            // Speculative: allow exactly the approach that closes the gap this substep.
            let speculative = s.simd_gt(zero);
            let (bias, mass_scale, impulse_scale) = if self.use_bias {
                (
                    C::L::select(speculative, s * inv_h, (bias_rate * s).fast_max(max_push_out)),
                    C::L::select(speculative, one, soft_mass_scale),
                    C::L::select(speculative, zero, soft_impulse_scale),
                )
            } else {
                (C::L::select(speculative, s * inv_h, zero), one, zero)
            };
            let vn = vel.along(k.normal, p.arm_a, p.arm_b);
            let lambda = -p.mass * mass_scale * (vn + bias) - impulse_scale * p.impulse;
            let new_impulse = (p.impulse + lambda).fast_max(zero);
            let applied = new_impulse - p.impulse;
            c.set_point_impulses(i, new_impulse, p.max_impulse.fast_max(new_impulse));
            total += new_impulse;
            if leave_pending {
                sums.add(&p, new_impulse);
            }
            vel.push(&k, k.normal, p.spin_a, p.spin_b, applied);
        }
        let friction = solve_friction(&mut vel, c, &k, total, one);
        // SAFETY: as the caller guarantees.
        unsafe { c.store(&vel, self.velocities) };
        if let Some(pending) = self.pending {
            // SAFETY: as the caller guarantees (`pending` is indexed as the velocities).
            let mut next = unsafe { c.load(pending) };
            let [r1, r2] = &friction.rows;
            sums.push_with_friction(&mut next, &k, [r1, r2], friction.impulses, friction.twist);
            // SAFETY: as above.
            unsafe { c.store(&next, pending) };
        }
    }
}

/// Each lane's soft position feedback (a [`Softness`]'s bias rate, mass scale and impulse
/// scale, each splat in `movable` and `fixed`): `movable` where both inverse masses are above
/// zero, `fixed` where either is zero (against an immovable body), as the fill picked it when
/// the pairs stored it. Inverse masses are never negative, so the smaller of the two is above
/// zero exactly where neither is zero.
#[inline(always)]
fn lane_softness<L: Lanes>(inv_mass_a: L, inv_mass_b: L, zero: L, movable: [L; 3], fixed: [L; 3]) -> [L; 3] {
    let between_movable = inv_mass_a.fast_min(inv_mass_b).simd_gt(zero);
    [
        L::select(between_movable, movable[0], fixed[0]),
        L::select(between_movable, movable[1], fixed[1]),
        L::select(between_movable, movable[2], fixed[2]),
    ]
}

/// Friction at the manifold's centre: two directions limited together to a disc of radius
/// `friction × total normal impulse`, then the twist about the normal.
#[inline(always)]
fn solve_friction<C: BatchLanes>(
    vel: &mut LaneVelocities<C::L>,
    c: &mut C,
    k: &BatchCommon<C::L>,
    total_normal: C::L,
    one: C::L,
) -> SolvedFriction<C::L> {
    let [r1, r2] = c.friction_rows();
    let old = [r1.impulse, r2.impulse];
    let mut new = [
        old[0] - r1.mass * vel.along(r1.direction, r1.arm_a, r1.arm_b),
        old[1] - r2.mass * vel.along(r2.direction, r2.arm_a, r2.arm_b),
    ];
    let limit = k.friction * total_normal;
    let len_sq = new[0] * new[0] + new[1] * new[1];
    let outside = len_sq.simd_gt(limit * limit);
    // Lanes inside the disc keep their impulse; `select` never lets the division's value
    // through for them (so a zero length there does no harm).
    let scale = C::L::select(outside, limit / len_sq.sqrt(), one);
    new = [new[0] * scale, new[1] * scale];
    vel.push(k, r1.direction, r1.spin_a, r1.spin_b, new[0] - old[0]);
    vel.push(k, r2.direction, r2.spin_a, r2.spin_b, new[1] - old[1]);

    let twist_limit = k.twist_friction * total_normal;
    let spin = k.normal.dot(vel.wb - vel.wa);
    let old_twist = k.twist_impulse;
    let new_twist = (old_twist - k.twist_mass * spin).fast_max(-twist_limit).fast_min(twist_limit);
    c.set_friction_impulses(new, new_twist);
    vel.wa -= k.twist_spin_a * (new_twist - old_twist);
    vel.wb += k.twist_spin_b * (new_twist - old_twist);
    SolvedFriction { rows: [r1, r2], impulses: new, twist: new_twist }
}

/// What [`solve_friction`] ends with, for the warm start a relax leaves.
struct SolvedFriction<L> {
    /// The two rows as the pass made them.
    rows: [WideFrictionRow<L>; 2],
    /// Their accumulated impulses, as stored.
    impulses: [L; 2],
    /// The twist's accumulated impulse, as stored.
    twist: L,
}

/// Restitution for one batch (half a pair, with the pair's `bounce`): points that approached
/// faster than `-threshold` and carried load get a normal velocity of `-restitution` times
/// their approach speed.
///
/// # Safety
/// As [`Pass::run`].
#[inline(always)]
pub(super) unsafe fn restitute_half(
    half: &mut HalfLanes,
    bounce: &PairBounce,
    velocities: &SharedSlice<Velocity>,
    threshold: f32x4,
) {
    let (restitution, approach_speeds) = half.bounce(bounce);
    if !restitution.simd_gt(f32x4::ZERO).any() {
        return;
    }
    // SAFETY: as the caller guarantees.
    let mut vel = unsafe { half.load(velocities) };
    let k = half.common();
    for (i, &approach) in approach_speeds.iter().enumerate().take(half.point_count()) {
        let p = half.point(i);
        let bounces = restitution.simd_gt(f32x4::ZERO)
            & threshold.simd_gt(approach)
            & p.max_impulse.simd_gt(f32x4::ZERO);
        let vn = vel.along(k.normal, p.arm_a, p.arm_b);
        let lambda = -p.mass * (vn + restitution * approach);
        let new_impulse = select(bounces, (p.impulse + lambda).fast_max(f32x4::ZERO), p.impulse);
        half.set_point_impulses(i, new_impulse, p.max_impulse.fast_max(new_impulse));
        vel.push(&k, k.normal, p.spin_a, p.spin_b, new_impulse - p.impulse);
    }
    // SAFETY: as the caller guarantees.
    unsafe { half.store(&vel, velocities) };
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The pass picks each lane's softness as the fill did when the pairs stored it: the
    /// stiffer one where either inverse mass is zero (of either sign), for inverse masses of
    /// every kind the engine makes (zero, subnormal, ordinary, large).
    #[test]
    fn each_lane_s_softness_is_picked_as_the_fill_picked_it() {
        let inverse_masses = [0.0, -0.0, f32::MIN_POSITIVE / 8.0, 1.0e-6, 0.5, 3.0, 1.0e30];
        let (movable, fixed) = ([1.0, 2.0, 3.0], [10.0, 20.0, 30.0]);
        let splat = |v: [f32; 3]| v.map(f32x4::splat);
        for &a in &inverse_masses {
            for chunk in inverse_masses.chunks(4) {
                let mut b = [0.5f32; 4];
                b[..chunk.len()].copy_from_slice(chunk);
                let picked =
                    lane_softness(f32x4::splat(a), f32x4::new(b), f32x4::ZERO, splat(movable), splat(fixed));
                for (k, &b) in b.iter().enumerate() {
                    let want = if a == 0.0 || b == 0.0 { fixed } else { movable };
                    let got = picked.map(|v| v.to_array()[k]);
                    assert_eq!(got.map(f32::to_bits), want.map(f32::to_bits), "inverse masses {a} and {b}");
                }
            }
        }
    }
}
