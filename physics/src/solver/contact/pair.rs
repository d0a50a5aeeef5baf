//! Two batches of a colour solved side by side on eight AVX lanes.
//!
//! A batch's pass is a chain of dependent steps (each point reads the velocities the point
//! before it changed), so on four lanes the CPU mostly waits on latency. Two batches of a
//! colour share no moving body: run in the two halves of one register they do exactly what
//! they would one after the other, in about the time of one.
//!
//! Two neighbouring batches are paired when they have the same number of points (most do:
//! a box resting on a box has four); a batch without such a neighbour runs on four lanes.

use super::lanes::{BatchCommon, BatchLanes, LaneMotions, LaneVelocities};
use super::passes::Pass;
use super::{WideContact, WideFrictionRow, WidePoint};
use crate::parallel::SharedSlice;
use crate::solver::avx::{Avx, F8, transpose_halves};
use crate::solver::simd::{Vec3Lanes, f32x4};
use crate::solver::{Motion, Velocity};

/// Batch `low` in lanes 0–3 and batch `high` in lanes 4–7.
struct BatchPair<'a> {
    avx: Avx,
    low: &'a mut WideContact,
    high: &'a mut WideContact,
}

/// Runs `pass` on `batches`, two at a time where two neighbours have the same point count.
///
/// # Safety
/// The batches are of one colour (they share no moving body), and no other thread accesses
/// their bodies' velocities until the stage is over (as [`Pass::run`]).
#[target_feature(enable = "avx")]
pub(super) unsafe fn run_paired(avx: Avx, batches: &mut [WideContact], pass: &impl Pass) {
    let mut next = 0;
    while next < batches.len() {
        if let [low, high, ..] = &mut batches[next..]
            && low.point_count == high.point_count
        {
            // SAFETY: as the caller guarantees; the two batches share no moving body, so the
            // pair's bodies are as much this thread's as each batch's.
            unsafe { pass.run(&mut BatchPair { avx, low, high }) };
            next += 2;
        } else {
            // SAFETY: as the caller guarantees.
            unsafe { pass.run(&mut batches[next]) };
            next += 1;
        }
    }
}

impl BatchLanes for BatchPair<'_> {
    type L = F8;

    #[inline(always)]
    fn splat(&self, v: f32) -> F8 {
        F8::splat(self.avx, v)
    }

    #[inline(always)]
    fn point_count(&self) -> usize {
        debug_assert_eq!(self.low.point_count, self.high.point_count, "paired batches differ in points");
        self.low.point_count
    }

    #[inline(always)]
    fn common(&self) -> BatchCommon<F8> {
        let (low, high, avx) = (self.low.common(), self.high.common(), self.avx);
        BatchCommon {
            normal: Vec3Lanes::join(avx, low.normal, high.normal),
            inv_mass_a: F8::join(avx, low.inv_mass_a, high.inv_mass_a),
            inv_mass_b: F8::join(avx, low.inv_mass_b, high.inv_mass_b),
            friction: F8::join(avx, low.friction, high.friction),
            twist_friction: F8::join(avx, low.twist_friction, high.twist_friction),
            bias_rate: F8::join(avx, low.bias_rate, high.bias_rate),
            mass_scale: F8::join(avx, low.mass_scale, high.mass_scale),
            impulse_scale: F8::join(avx, low.impulse_scale, high.impulse_scale),
            twist_spin_a: Vec3Lanes::join(avx, low.twist_spin_a, high.twist_spin_a),
            twist_spin_b: Vec3Lanes::join(avx, low.twist_spin_b, high.twist_spin_b),
            twist_mass: F8::join(avx, low.twist_mass, high.twist_mass),
            twist_impulse: F8::join(avx, low.twist_impulse, high.twist_impulse),
        }
    }

    #[inline(always)]
    fn point(&self, i: usize) -> WidePoint<F8> {
        let (low, high, avx) = (&self.low.points[i], &self.high.points[i], self.avx);
        WidePoint {
            separation: F8::join(avx, low.separation, high.separation),
            arm_a: Vec3Lanes::join(avx, low.arm_a, high.arm_a),
            arm_b: Vec3Lanes::join(avx, low.arm_b, high.arm_b),
            spin_a: Vec3Lanes::join(avx, low.spin_a, high.spin_a),
            spin_b: Vec3Lanes::join(avx, low.spin_b, high.spin_b),
            mass: F8::join(avx, low.mass, high.mass),
            impulse: F8::join(avx, low.impulse, high.impulse),
            max_impulse: F8::join(avx, low.max_impulse, high.max_impulse),
            relative_velocity: F8::join(avx, low.relative_velocity, high.relative_velocity),
        }
    }

    #[inline(always)]
    fn set_point_impulses(&mut self, i: usize, impulse: F8, max_impulse: F8) {
        let ((low, high), (low_max, high_max)) = (impulse.halves(), max_impulse.halves());
        self.low.set_point_impulses(i, low, low_max);
        self.high.set_point_impulses(i, high, high_max);
    }

    #[inline(always)]
    fn friction_rows(&self) -> [WideFrictionRow<F8>; 2] {
        let [low_0, low_1] = &self.low.friction_rows;
        let [high_0, high_1] = &self.high.friction_rows;
        [join_row(self.avx, low_0, high_0), join_row(self.avx, low_1, high_1)]
    }

    #[inline(always)]
    fn set_friction_impulses(&mut self, rows: [F8; 2], twist: F8) {
        let ((low_0, high_0), (low_1, high_1)) = (rows[0].halves(), rows[1].halves());
        let (low_twist, high_twist) = twist.halves();
        self.low.set_friction_impulses([low_0, low_1], low_twist);
        self.high.set_friction_impulses([high_0, high_1], high_twist);
    }

    #[inline(always)]
    fn motions(&self, motions: &[Motion]) -> LaneMotions<F8> {
        let (low, high, avx) = (self.low.motions(motions), self.high.motions(motions), self.avx);
        LaneMotions {
            moved_a: Vec3Lanes::join(avx, low.moved_a, high.moved_a),
            turn_a: Vec3Lanes::join(avx, low.turn_a, high.turn_a),
            moved_b: Vec3Lanes::join(avx, low.moved_b, high.moved_b),
            turn_b: Vec3Lanes::join(avx, low.turn_b, high.turn_b),
        }
    }

    #[inline(always)]
    unsafe fn load(&self, velocities: &SharedSlice<Velocity>) -> LaneVelocities<F8> {
        // SAFETY: as the caller guarantees, for both batches.
        let (va, wa) = unsafe { gather_pair(self.avx, velocities, &self.low.body_a, &self.high.body_a) };
        // SAFETY: as above.
        let (vb, wb) = unsafe { gather_pair(self.avx, velocities, &self.low.body_b, &self.high.body_b) };
        LaneVelocities { va, wa, vb, wb }
    }

    #[inline(always)]
    unsafe fn store(&self, vel: &LaneVelocities<F8>, velocities: &SharedSlice<Velocity>) {
        let (low, high) = (&*self.low, &*self.high);
        // SAFETY: as the caller guarantees, for both batches.
        unsafe {
            scatter_pair(
                self.avx,
                velocities,
                [(&low.body_a, low.inv_mass_a), (&high.body_a, high.inv_mass_a)],
                vel.va,
                vel.wa,
            );
            scatter_pair(
                self.avx,
                velocities,
                [(&low.body_b, low.inv_mass_b), (&high.body_b, high.inv_mass_b)],
                vel.vb,
                vel.wb,
            );
        }
    }
}

/// The velocities of bodies `low` in lanes 0–3 and `high` in lanes 4–7: each pair of bodies'
/// halves loaded into one register, then one transpose per velocity.
///
/// # Safety
/// As [`BatchLanes::load`], for all eight bodies.
#[inline(always)]
unsafe fn gather_pair(
    avx: Avx,
    velocities: &SharedSlice<Velocity>,
    low: &[u32; 4],
    high: &[u32; 4],
) -> (Vec3Lanes<F8>, Vec3Lanes<F8>) {
    // SAFETY: as the caller guarantees.
    let (l0, l1, l2, l3) = unsafe {
        (
            velocities.read(low[0] as usize),
            velocities.read(low[1] as usize),
            velocities.read(low[2] as usize),
            velocities.read(low[3] as usize),
        )
    };
    // SAFETY: as the caller guarantees.
    let (h0, h1, h2, h3) = unsafe {
        (
            velocities.read(high[0] as usize),
            velocities.read(high[1] as usize),
            velocities.read(high[2] as usize),
            velocities.read(high[3] as usize),
        )
    };
    let row = |l: [f32; 4], h: [f32; 4]| F8::join(avx, f32x4::new(l), f32x4::new(h));
    let [vx, vy, vz, _] = transpose_halves([
        row(l0.first, h0.first),
        row(l1.first, h1.first),
        row(l2.first, h2.first),
        row(l3.first, h3.first),
    ]);
    let [wx, wy, wz, _] = transpose_halves([
        row(l0.second, h0.second),
        row(l1.second, h1.second),
        row(l2.second, h2.second),
        row(l3.second, h3.second),
    ]);
    (Vec3Lanes { x: vx, y: vy, z: vz }, Vec3Lanes { x: wx, y: wy, z: wz })
}

/// Writes back the velocities of the two batches' moving bodies (`inv_mass` above zero) on
/// one side, in lane order, as the four-lane store does for each batch.
///
/// # Safety
/// As [`BatchLanes::store`], for both batches.
#[inline(always)]
unsafe fn scatter_pair(
    avx: Avx,
    velocities: &SharedSlice<Velocity>,
    sides: [(&[u32; 4], f32x4); 2],
    v: Vec3Lanes<F8>,
    w: Vec3Lanes<F8>,
) {
    // The fourth float of each stored vector is zero, as the four-lane store leaves it.
    let zero = F8::splat(avx, 0.0);
    let linear = transpose_halves([v.x, v.y, v.z, zero]);
    let angular = transpose_halves([w.x, w.y, w.z, zero]);
    for (half, (bodies, inv_mass)) in sides.into_iter().enumerate() {
        let moving = inv_mass.simd_gt(f32x4::ZERO).to_bitmask();
        for k in 0..4 {
            if moving & (1 << k) != 0 {
                let (linear_low, linear_high) = linear[k].halves();
                let (angular_low, angular_high) = angular[k].halves();
                let (first, second) =
                    if half == 0 { (linear_low, angular_low) } else { (linear_high, angular_high) };
                let velocity = Velocity { first: first.to_array(), second: second.to_array() };
                // SAFETY: as the caller guarantees.
                unsafe { velocities.write(bodies[k] as usize, velocity) };
            }
        }
    }
}

/// Friction row `low` in lanes 0–3 and `high` in lanes 4–7.
#[inline(always)]
fn join_row(avx: Avx, low: &WideFrictionRow, high: &WideFrictionRow) -> WideFrictionRow<F8> {
    WideFrictionRow {
        direction: Vec3Lanes::join(avx, low.direction, high.direction),
        arm_a: Vec3Lanes::join(avx, low.arm_a, high.arm_a),
        arm_b: Vec3Lanes::join(avx, low.arm_b, high.arm_b),
        spin_a: Vec3Lanes::join(avx, low.spin_a, high.spin_a),
        spin_b: Vec3Lanes::join(avx, low.spin_b, high.spin_b),
        mass: F8::join(avx, low.mass, high.mass),
        impulse: F8::join(avx, low.impulse, high.impulse),
    }
}
