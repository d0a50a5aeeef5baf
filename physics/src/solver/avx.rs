//! Eight lanes in one AVX register, for x86-64 CPUs that have AVX, found at run time (the
//! engine is built for plain x86-64, whose SSE registers hold four).
//!
//! A contact batch's solve is a chain: each manifold point reads the velocities the point
//! before it changed, so four lanes leave the CPU waiting on that chain's latency; a plain
//! ball joint's pass is mostly arithmetic, which eight lanes do in half the instructions. Two
//! batches of a colour share no moving body, so they can run side by side in the two halves of
//! an eight-lane register, each half doing exactly what four lanes would: every operation here
//! is the same IEEE operation per lane as its `f32x4` counterpart (no fused multiply-add), so
//! the result is the same bit for bit with or without AVX.

#[cfg(feature = "test-support")]
use super::SolverLanes;
use super::simd::{Halves, Lanes, Vec3Lanes, f32x4};
use super::{Vec3Pair, Velocity};
use crate::parallel::SharedSlice;
use std::arch::x86_64::{
    __m256, _CMP_GT_OS, _mm256_add_ps, _mm256_and_ps, _mm256_andnot_ps, _mm256_blendv_ps,
    _mm256_castps256_ps128, _mm256_cmp_ps, _mm256_div_ps, _mm256_extractf128_ps, _mm256_load_ps,
    _mm256_max_ps, _mm256_min_ps, _mm256_movemask_ps, _mm256_mul_ps, _mm256_or_ps, _mm256_set_m128,
    _mm256_set1_ps, _mm256_shuffle_ps, _mm256_sqrt_ps, _mm256_store_ps, _mm256_sub_ps, _mm256_unpackhi_ps,
    _mm256_unpacklo_ps, _mm256_xor_ps,
};
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub};

/// Proof that this CPU has AVX: made only by [`Avx::detect`]. It also says whether the CPU
/// has AVX-512F and AVX-512VL, whose 32 registers the eight-lane passes may use.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Avx {
    avx512: bool,
}

impl Avx {
    /// The proof, if the CPU has AVX (the standard library caches the answers).
    pub fn detect() -> Option<Avx> {
        use std::arch::is_x86_feature_detected;
        let avx512 = is_x86_feature_detected!("avx512f") && is_x86_feature_detected!("avx512vl");
        is_x86_feature_detected!("avx").then_some(Avx { avx512 })
    }

    /// Whether the CPU has AVX-512F and AVX-512VL.
    pub fn has_avx512(self) -> bool {
        self.avx512
    }

    /// The same proof, saying nothing of AVX-512 (for tests that compare the two ways).
    #[cfg(feature = "test-support")]
    pub fn without_avx512(self) -> Avx {
        Avx { avx512: false }
    }

    /// The proof where the CPU has AVX and `widest` allows eight lanes, telling of AVX-512
    /// only where `widest` allows its registers too (tests run the solver every way).
    #[cfg(feature = "test-support")]
    pub fn detect_up_to(widest: SolverLanes) -> Option<Avx> {
        let avx = Avx::detect()?;
        match widest {
            SolverLanes::Four => None,
            SolverLanes::Avx => Some(avx.without_avx512()),
            SolverLanes::Avx512 => Some(avx),
        }
    }
}

/// Eight `f32` lanes in one AVX register. A value is made only from an [`Avx`] proof or from
/// other values, so every AVX instruction its operations run is on a CPU that has it; that is
/// the safety argument of every `unsafe` block below.
///
/// Its operations are marked `#[inline(always)]` so that they inline into the solver's
/// `#[target_feature(enable = "avx")]` passes and become single instructions there.
#[derive(Clone, Copy)]
pub(crate) struct F8(__m256);

impl F8 {
    /// `v` in every lane.
    #[inline(always)]
    pub fn splat(_: Avx, v: f32) -> F8 {
        // SAFETY: the proof says the CPU has AVX.
        F8(unsafe { _mm256_set1_ps(v) })
    }

    /// `low` in lanes 0–3 and `high` in lanes 4–7.
    #[inline(always)]
    pub fn join(_: Avx, low: f32x4, high: f32x4) -> F8 {
        // SAFETY: the proof says the CPU has AVX.
        F8(unsafe { _mm256_set_m128(high.into(), low.into()) })
    }

    /// The eight lanes `halves` stores: one aligned load.
    #[inline(always)]
    pub fn load(_: Avx, halves: &Halves) -> F8 {
        // SAFETY: the proof says the CPU has AVX; `Halves` is eight `f32` in a row, aligned to
        // 32 bytes.
        F8(unsafe { _mm256_load_ps(halves.0.as_ptr().cast()) })
    }

    /// Writes the eight lanes into `halves`: one aligned store.
    #[inline(always)]
    pub fn store(self, halves: &mut Halves) {
        // SAFETY: as in `load`; an `F8` exists only on a CPU with AVX.
        unsafe { _mm256_store_ps(halves.0.as_mut_ptr().cast(), self.0) }
    }

    /// Lanes 0–3 and lanes 4–7.
    #[inline(always)]
    pub fn halves(self) -> (f32x4, f32x4) {
        // SAFETY: an `F8` exists only on a CPU with AVX (the type's documentation).
        unsafe { (_mm256_castps256_ps128(self.0).into(), _mm256_extractf128_ps::<1>(self.0).into()) }
    }
}

/// Transposes each half as a 4 × 4 matrix: lane `j` of row `k` goes to lane `k` of row `j`,
/// and lane `4 + j` of row `k` to lane `4 + k` of row `j`. Four bodies' 4-float vectors in the
/// low halves and four more in the high halves become x, y, z and w lanes, and back.
#[inline(always)]
pub(crate) fn transpose_halves(rows: [F8; 4]) -> [F8; 4] {
    let [r0, r1, r2, r3] = rows.map(|r| r.0);
    // SAFETY: an `F8` exists only on a CPU with AVX. Shuffles move bits and compute nothing.
    unsafe {
        let (t0, t1) = (_mm256_unpacklo_ps(r0, r1), _mm256_unpacklo_ps(r2, r3));
        let (t2, t3) = (_mm256_unpackhi_ps(r0, r1), _mm256_unpackhi_ps(r2, r3));
        [
            F8(_mm256_shuffle_ps::<0b01_00_01_00>(t0, t1)),
            F8(_mm256_shuffle_ps::<0b11_10_11_10>(t0, t1)),
            F8(_mm256_shuffle_ps::<0b01_00_01_00>(t2, t3)),
            F8(_mm256_shuffle_ps::<0b11_10_11_10>(t2, t3)),
        ]
    }
}

/// The two vectors (velocities or motions) of two batches' bodies `bodies` (the first batch's
/// in lanes 0–3, the second's in lanes 4–7), read by `read`: each two bodies' vectors loaded into one
/// register, then one transpose per vector.
#[inline(always)]
pub(crate) fn gather_eight(
    avx: Avx,
    bodies: &[[u32; 4]; 2],
    read: impl Fn(u32) -> Vec3Pair,
) -> (Vec3Lanes<F8>, Vec3Lanes<F8>) {
    let [low, high] = bodies;
    let (l0, l1, l2, l3) = (read(low[0]), read(low[1]), read(low[2]), read(low[3]));
    let (h0, h1, h2, h3) = (read(high[0]), read(high[1]), read(high[2]), read(high[3]));
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

/// Writes back the velocities of two batches' moving bodies (`inv_mass` above zero) on one side,
/// half 0 then half 1, each in lane order. The four-lane store writes a batch's two sides
/// before the next batch's; the order does not matter, since the two batches share no moving
/// body.
///
/// # Safety
/// Every index in `bodies` is below `velocities.len()`, and no other thread reads or writes
/// the moving lanes' velocities until the stage is over (the two batches are of one colour,
/// which the team works on).
#[inline(always)]
pub(crate) unsafe fn scatter_pair(
    avx: Avx,
    velocities: &SharedSlice<Velocity>,
    bodies: &[[u32; 4]; 2],
    inv_mass: &Halves,
    v: Vec3Lanes<F8>,
    w: Vec3Lanes<F8>,
) {
    // The fourth float of each stored vector is zero, as the four-lane store leaves it.
    let zero = F8::splat(avx, 0.0);
    let linear = transpose_halves([v.x, v.y, v.z, zero]);
    let angular = transpose_halves([w.x, w.y, w.z, zero]);
    for (h, half_bodies) in bodies.iter().enumerate() {
        let moving = inv_mass.half(h).simd_gt(f32x4::ZERO).to_bitmask();
        for k in 0..4 {
            if moving & (1 << k) != 0 {
                let (linear_low, linear_high) = linear[k].halves();
                let (angular_low, angular_high) = angular[k].halves();
                let (first, second) =
                    if h == 0 { (linear_low, angular_low) } else { (linear_high, angular_high) };
                let velocity = Velocity { first: first.to_array(), second: second.to_array() };
                // SAFETY: as the caller guarantees.
                unsafe { velocities.write(half_bodies[k] as usize, velocity) };
            }
        }
    }
}

impl std::fmt::Debug for F8 {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (low, high) = self.halves();
        f.debug_tuple("F8").field(&low).field(&high).finish()
    }
}

/// Implements a binary operator as one AVX instruction.
macro_rules! avx_operator {
    ($trait:ident, $method:ident, $intrinsic:ident) => {
        impl $trait for F8 {
            type Output = F8;
            #[inline(always)]
            fn $method(self, o: F8) -> F8 {
                // SAFETY: an `F8` exists only on a CPU with AVX.
                F8(unsafe { $intrinsic(self.0, o.0) })
            }
        }
    };
}

avx_operator!(Add, add, _mm256_add_ps);
avx_operator!(Sub, sub, _mm256_sub_ps);
avx_operator!(Mul, mul, _mm256_mul_ps);
avx_operator!(Div, div, _mm256_div_ps);

impl Neg for F8 {
    type Output = F8;
    /// Flips the sign bit, as `f32x4`'s negation does.
    #[inline(always)]
    fn neg(self) -> F8 {
        // SAFETY: an `F8` exists only on a CPU with AVX.
        F8(unsafe { _mm256_xor_ps(self.0, _mm256_set1_ps(-0.0)) })
    }
}

impl AddAssign for F8 {
    #[inline(always)]
    fn add_assign(&mut self, o: F8) {
        *self = *self + o;
    }
}

impl Lanes for F8 {
    #[inline(always)]
    fn fast_max(self, o: F8) -> F8 {
        // SAFETY: an `F8` exists only on a CPU with AVX. `vmaxps` is `maxps` on eight lanes.
        F8(unsafe { _mm256_max_ps(self.0, o.0) })
    }

    #[inline(always)]
    fn fast_min(self, o: F8) -> F8 {
        // SAFETY: as in `fast_max`.
        F8(unsafe { _mm256_min_ps(self.0, o.0) })
    }

    #[inline(always)]
    fn sqrt(self) -> F8 {
        // SAFETY: as in `fast_max`.
        F8(unsafe { _mm256_sqrt_ps(self.0) })
    }

    #[inline(always)]
    fn simd_gt(self, o: F8) -> F8 {
        // SAFETY: as in `fast_max`. Greater-than, ordered (NaN compares false), as `cmpltps`
        // with its operands swapped, which `f32x4` uses.
        F8(unsafe { _mm256_cmp_ps::<_CMP_GT_OS>(self.0, o.0) })
    }

    #[inline(always)]
    fn select(mask: F8, a: F8, b: F8) -> F8 {
        // SAFETY: as in `fast_max`. With every mask lane all ones or all zeros, the blend picks
        // what `f32x4`'s bit select picks.
        F8(unsafe { _mm256_blendv_ps(b.0, a.0, mask.0) })
    }

    #[inline(always)]
    fn one_with_sign(self) -> F8 {
        // SAFETY: as in `fast_max`. The sign bit of each lane, or'ed into 1.0's bits.
        F8(unsafe { _mm256_or_ps(_mm256_set1_ps(1.0), _mm256_and_ps(self.0, _mm256_set1_ps(-0.0))) })
    }

    #[inline(always)]
    fn abs(self) -> F8 {
        // SAFETY: as in `fast_max`. Every bit but the sign's, as `f32x4::abs` keeps.
        F8(unsafe { _mm256_andnot_ps(_mm256_set1_ps(-0.0), self.0) })
    }

    #[inline(always)]
    fn splat_like(self, v: f32) -> F8 {
        // SAFETY: as in `fast_max`.
        F8(unsafe { _mm256_set1_ps(v) })
    }

    #[inline(always)]
    fn any(self) -> bool {
        // SAFETY: as in `fast_max`.
        unsafe { _mm256_movemask_ps(self.0) != 0 }
    }

    #[inline(always)]
    fn any_per_batch(self) -> F8 {
        let (low, high) = self.halves();
        let batch = |half: f32x4| if half.any() { f32x4::ZERO.simd_eq(f32x4::ZERO) } else { f32x4::ZERO };
        // SAFETY: as in `fast_max`.
        F8(unsafe { _mm256_set_m128(batch(high).into(), batch(low).into()) })
    }
}

impl Vec3Lanes<F8> {
    /// The eight vectors `halves` stores.
    #[inline(always)]
    pub fn load(avx: Avx, halves: &Vec3Lanes<Halves>) -> Vec3Lanes<F8> {
        Vec3Lanes { x: F8::load(avx, &halves.x), y: F8::load(avx, &halves.y), z: F8::load(avx, &halves.z) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::solver::simd::select;

    /// Every operation on eight lanes gives, in each half, the bits four lanes give, including
    /// signed zeros, NaN operands, infinities and subnormals.
    #[test]
    fn each_half_computes_what_four_lanes_compute() {
        let Some(avx) = Avx::detect() else {
            panic!("this test runs on x86-64 CPUs with AVX; this one has none")
        };
        let values = [
            0.0,
            -0.0,
            1.0,
            -2.5,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE / 4.0,
            3.0e38,
            -1.0e-20,
            0.1,
            7.0,
        ];
        let bits = |v: f32x4| v.to_array().map(f32::to_bits);
        let check = |eight: F8, low: f32x4, high: f32x4, what: &str| {
            let (l, h) = eight.halves();
            assert_eq!((bits(l), bits(h)), (bits(low), bits(high)), "{what}");
        };
        for (i, window) in values.windows(4).enumerate() {
            let a_low = f32x4::new([window[0], window[1], window[2], window[3]]);
            let b_low = f32x4::new([window[3], window[0], window[1], window[2]]);
            let a_high = f32x4::new(std::array::from_fn(|k| values[(i + 2 * k + 1) % values.len()]));
            let b_high = f32x4::new(std::array::from_fn(|k| values[(i + k + 5) % values.len()]));
            let (a, b) = (F8::join(avx, a_low, a_high), F8::join(avx, b_low, b_high));
            check(a + b, a_low + b_low, a_high + b_high, "add");
            check(a - b, a_low - b_low, a_high - b_high, "sub");
            check(a * b, a_low * b_low, a_high * b_high, "mul");
            check(a / b, a_low / b_low, a_high / b_high, "div");
            check(-a, -a_low, -a_high, "neg");
            check(a.fast_max(b), a_low.fast_max(b_low), a_high.fast_max(b_high), "max");
            check(a.fast_min(b), a_low.fast_min(b_low), a_high.fast_min(b_high), "min");
            check(Lanes::sqrt(a), a_low.sqrt(), a_high.sqrt(), "sqrt");
            let (mask, mask_low, mask_high) = (a.simd_gt(b), a_low.simd_gt(b_low), a_high.simd_gt(b_high));
            check(mask, mask_low, mask_high, "gt");
            check(a.one_with_sign(), a_low.one_with_sign(), a_high.one_with_sign(), "one with sign");
            let copysign = |v: f32x4| f32x4::new(v.to_array().map(|x| 1.0f32.copysign(x)));
            assert_eq!(bits(a_low.one_with_sign()), bits(copysign(a_low)), "one with sign, scalar");
            check(
                F8::select(mask, a, b),
                select(mask_low, a_low, b_low),
                select(mask_high, a_high, b_high),
                "select",
            );
        }
        check(F8::splat(avx, -0.0), f32x4::splat(-0.0), f32x4::splat(-0.0), "splat");
    }

    #[test]
    fn loading_and_storing_halves_keeps_every_lane_in_place() {
        let avx = Avx::detect().expect("this test runs on x86-64 CPUs with AVX");
        let stored =
            Halves([f32x4::new([1.0, -0.0, f32::NAN, 4.0]), f32x4::new([5.0, 6.0, f32::INFINITY, 8.0])]);
        let eight = F8::load(avx, &stored);
        let (low, high) = eight.halves();
        let bits = |v: f32x4| v.to_array().map(f32::to_bits);
        assert_eq!((bits(low), bits(high)), (bits(stored.0[0]), bits(stored.0[1])));
        let mut back = Halves::default();
        eight.store(&mut back);
        assert_eq!((bits(back.0[0]), bits(back.0[1])), (bits(stored.0[0]), bits(stored.0[1])));
        assert_eq!(back.lane(6), f32::INFINITY);
    }

    #[test]
    fn transposing_halves_transposes_each_four_by_four() {
        let avx = Avx::detect().expect("this test runs on x86-64 CPUs with AVX");
        let value = |row: usize, lane: usize| (row * 8 + lane) as f32;
        let rows: [F8; 4] = std::array::from_fn(|k| {
            F8::join(
                avx,
                f32x4::new(std::array::from_fn(|j| value(k, j))),
                f32x4::new(std::array::from_fn(|j| value(k, 4 + j))),
            )
        });
        let columns = transpose_halves(rows);
        for (j, column) in columns.iter().enumerate() {
            let (low, high) = column.halves();
            assert_eq!(low.to_array(), std::array::from_fn(|k| value(k, j)));
            assert_eq!(high.to_array(), std::array::from_fn(|k| value(k, 4 + j)));
        }
        let back = transpose_halves(columns);
        for k in 0..4 {
            let (low, high) = back[k].halves();
            assert_eq!((low.to_array(), high.to_array()), {
                let (l, h) = rows[k].halves();
                (l.to_array(), h.to_array())
            });
        }
    }
}
