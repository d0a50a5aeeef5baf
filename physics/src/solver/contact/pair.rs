//! Both batches of a pair solved side by side on eight AVX lanes.
//!
//! A batch's pass is a chain of dependent steps (each point reads the velocities the point
//! before it changed), so on four lanes the CPU mostly waits on latency. The two batches of a
//! pair are of one colour and share no moving body: run in the two halves of one register they
//! do exactly what they would one after the other, in about the time of one. A pair stores
//! each field of its two batches side by side ([`BatchPair`]), so each field loads as eight
//! lanes in one instruction, or folds into the instruction that uses it.
//!
//! The two batches run together when they have the same number of points, which the fill gives
//! every pair of a colour with two filled batches (`BatchPair::match_point_counts`); a pair
//! with a half of empty lanes (a colour's padding) runs its one batch on four lanes.

use super::lanes::{BatchCommon, BatchLanes, HalfLanes, LaneMotions, LaneVelocities};
use super::passes::Pass;
use super::{BatchPair, WideFriction, WideFrictionRow, WidePoint};
use crate::parallel::SharedSlice;
use crate::solver::avx::{Avx, F8, gather_eight, scatter_pair};
use crate::solver::simd::{Halves, Vec3Lanes};
use crate::solver::{Motion, Velocity};

/// Both halves of a pair as eight lanes. Its accessors list the fields one by one, as
/// `HalfLanes`' do, rather than mapping over arrays of fields (`array::map`, `from_fn`): the
/// closures those take did not inline, and each intrinsic in them stayed a call.
struct EightLanes<'a> {
    avx: Avx,
    pair: &'a mut BatchPair,
}

/// Runs `pass` on `pairs`: both batches of a pair at once where they have the same number of
/// points (every pair of two filled batches, once the fill matched them), else each batch
/// (that is not empty) on four lanes. Compiled twice: for AVX, and for
/// AVX-512VL where the CPU has it, whose 32 registers hold what the passes keep at once (with
/// sixteen, part of the velocities goes through the stack point after point; the plane
/// pyramid's solve stage ran about 7 % faster with 32). The operations are the same IEEE
/// operations either way, so the results are the same bit for bit.
///
/// # Safety
/// The pairs are of one colour (their batches share no moving body), and no other thread
/// accesses their bodies' velocities until the stage is over (as [`Pass::run`]).
pub(super) unsafe fn run_pairs(avx: Avx, pairs: &mut [BatchPair], pass: &impl Pass) {
    if avx.has_avx512() {
        // SAFETY: as the caller guarantees; the proof says the CPU has AVX-512F and VL.
        unsafe { run_pairs_avx512(avx, pairs, pass) }
    } else {
        // SAFETY: as the caller guarantees; the proof says the CPU has AVX.
        unsafe { run_pairs_avx(avx, pairs, pass) }
    }
}

/// [`run_pairs`] compiled for AVX.
///
/// # Safety
/// As [`run_pairs`].
#[target_feature(enable = "avx")]
unsafe fn run_pairs_avx(avx: Avx, pairs: &mut [BatchPair], pass: &impl Pass) {
    // SAFETY: as the caller guarantees.
    unsafe { run_pairs_on(avx, pairs, pass) }
}

/// [`run_pairs`] compiled for AVX-512F and AVX-512VL (256-bit registers, 32 of them).
///
/// # Safety
/// As [`run_pairs`], on a CPU with AVX-512F and AVX-512VL.
#[target_feature(enable = "avx,avx512f,avx512vl")]
unsafe fn run_pairs_avx512(avx: Avx, pairs: &mut [BatchPair], pass: &impl Pass) {
    // SAFETY: as the caller guarantees.
    unsafe { run_pairs_on(avx, pairs, pass) }
}

/// The loop of [`run_pairs`], inlined into each of its compilations.
///
/// # Safety
/// As [`run_pairs`].
#[inline(always)]
unsafe fn run_pairs_on(avx: Avx, pairs: &mut [BatchPair], pass: &impl Pass) {
    for pair in pairs {
        let [low, high] = pair.point_counts;
        if low == high {
            // SAFETY: as the caller guarantees; the two batches share no moving body, so the
            // pair's bodies are as much this thread's as each batch's.
            unsafe { pass.run(&mut EightLanes { avx, pair }) };
        } else {
            for h in pair.filled_halves() {
                // SAFETY: as the caller guarantees.
                unsafe { pass.run(&mut HalfLanes::new(pair, h)) };
            }
        }
    }
}

impl BatchLanes for EightLanes<'_> {
    type L = F8;

    #[inline(always)]
    fn splat(&self, v: f32) -> F8 {
        F8::splat(self.avx, v)
    }

    #[inline(always)]
    fn point_count(&self) -> usize {
        debug_assert_eq!(self.pair.point_counts[0], self.pair.point_counts[1], "halves differ in points");
        self.pair.point_counts[0]
    }

    #[inline(always)]
    fn common(&self) -> BatchCommon<F8> {
        let (p, avx) = (&*self.pair, self.avx);
        let load = |halves: &Halves| F8::load(avx, halves);
        BatchCommon {
            normal: Vec3Lanes::load(avx, &p.normal),
            inv_mass_a: load(&p.inv_mass_a),
            inv_mass_b: load(&p.inv_mass_b),
            friction: load(&p.friction),
            twist_friction: load(&p.twist_friction),
            twist_spin_a: Vec3Lanes::load(avx, &p.twist_spin_a),
            twist_spin_b: Vec3Lanes::load(avx, &p.twist_spin_b),
            twist_mass: load(&p.twist_mass),
            twist_impulse: load(&p.twist_impulse),
        }
    }

    #[inline(always)]
    fn point(&self, i: usize) -> WidePoint<F8> {
        let (p, avx) = (&self.pair.points[i], self.avx);
        WidePoint {
            separation: F8::load(avx, &p.separation),
            arm_a: Vec3Lanes::load(avx, &p.arm_a),
            arm_b: Vec3Lanes::load(avx, &p.arm_b),
            spin_a: Vec3Lanes::load(avx, &p.spin_a),
            spin_b: Vec3Lanes::load(avx, &p.spin_b),
            mass: F8::load(avx, &p.mass),
            impulse: F8::load(avx, &p.impulse),
            max_impulse: F8::load(avx, &p.max_impulse),
        }
    }

    #[inline(always)]
    fn set_point_impulses(&mut self, i: usize, impulse: F8, max_impulse: F8) {
        let point = &mut self.pair.points[i];
        impulse.store(&mut point.impulse);
        max_impulse.store(&mut point.max_impulse);
    }

    #[inline(always)]
    fn friction_rows(&self) -> [WideFrictionRow<F8>; 2] {
        let (p, avx) = (&*self.pair, self.avx);
        load_friction(avx, &p.friction_centre).rows(Vec3Lanes::load(avx, &p.normal), F8::splat(avx, 1.0))
    }

    #[inline(always)]
    fn set_friction_impulses(&mut self, rows: [F8; 2], twist: F8) {
        let [i1, i2] = &mut self.pair.friction_centre.impulse;
        rows[0].store(i1);
        rows[1].store(i2);
        twist.store(&mut self.pair.twist_impulse);
    }

    #[inline(always)]
    unsafe fn motions(&self, motions: &SharedSlice<Motion>) -> LaneMotions<F8> {
        let (p, avx) = (&*self.pair, self.avx);
        // SAFETY: as the caller guarantees, for both batches.
        let read = |body: u32| unsafe { motions.read(body as usize) };
        let (moved_a, turn_a) = gather_eight(avx, &p.body_a, read);
        let (moved_b, turn_b) = gather_eight(avx, &p.body_b, read);
        LaneMotions { moved_a, turn_a, moved_b, turn_b }
    }

    #[inline(always)]
    unsafe fn load(&self, velocities: &SharedSlice<Velocity>) -> LaneVelocities<F8> {
        let (p, avx) = (&*self.pair, self.avx);
        // SAFETY: as the caller guarantees, for both batches.
        let read = |body: u32| unsafe { velocities.read(body as usize) };
        let (va, wa) = gather_eight(avx, &p.body_a, read);
        let (vb, wb) = gather_eight(avx, &p.body_b, read);
        LaneVelocities { va, wa, vb, wb }
    }

    #[inline(always)]
    unsafe fn store(&self, vel: &LaneVelocities<F8>, velocities: &SharedSlice<Velocity>) {
        let p = &*self.pair;
        // SAFETY: as the caller guarantees, for both batches.
        unsafe {
            scatter_pair(self.avx, velocities, &p.body_a, &p.inv_mass_a, vel.va, vel.wa);
            scatter_pair(self.avx, velocities, &p.body_b, &p.inv_mass_b, vel.vb, vel.wb);
        }
    }
}

/// The stored friction's eight lanes.
#[inline(always)]
fn load_friction(avx: Avx, f: &WideFriction<Halves>) -> WideFriction<F8> {
    WideFriction {
        offset_a: Vec3Lanes::load(avx, &f.offset_a),
        offset_b: Vec3Lanes::load(avx, &f.offset_b),
        spin_a: [Vec3Lanes::load(avx, &f.spin_a[0]), Vec3Lanes::load(avx, &f.spin_a[1])],
        spin_b: [Vec3Lanes::load(avx, &f.spin_b[0]), Vec3Lanes::load(avx, &f.spin_b[1])],
        mass: [F8::load(avx, &f.mass[0]), F8::load(avx, &f.mass[1])],
        impulse: [F8::load(avx, &f.impulse[0]), F8::load(avx, &f.impulse[1])],
    }
}
