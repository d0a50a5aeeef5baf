//! Plain ball joints two batches at a time on eight AVX lanes.
//!
//! A plain ball joint's pass is mostly arithmetic (turning the arms, the point block's rate,
//! mass and impulse, the impulse applied to both sides), and a joint grid's step was mostly
//! these passes, bound by the instructions they run rather than by memory. Two batches of one
//! colour share no moving body, so they can run side by side in the two halves of eight-lane
//! registers, each half doing exactly what four lanes do to its batch (the operations of
//! `simd.rs` and `avx.rs` are the same IEEE operations per lane, with no fused multiply-add):
//! the arithmetic takes half the instructions and the result is the same bit for bit. The
//! batches stay stored four lanes wide; each field of the two loads as one register (the low
//! half's load and the high half's insert), and the impulse and mass they change are split
//! back into them.

use super::SolverBody;
use super::avx::{Avx, F8, gather_eight, scatter_pair, transpose_halves};
use super::joint_lanes::{LaneMotion, LaneVelocity, PassInputs, SideMasses, SoftLanes, run_batch};
use super::point_joint::{WidePointJoint, point_pose, substep_mass};
use super::simd::{Halves, QuatLanes, SymMat3x4, SymMatLanes, Vec3Lanes, Vec3x4, f32x4};
use crate::joint::rows::Pass;

/// Runs the pass `inputs` describes over `batches`, two at a time on eight lanes (an odd one
/// left at the end on four). Compiled twice: for AVX, and for AVX-512VL where the CPU has it,
/// whose 32 registers hold what a pass keeps at once. The operations are the same IEEE
/// operations either way, so the results are the same bit for bit.
///
/// # Safety
/// The batches are of one colour (they share no moving body), and no other thread accesses
/// their bodies' velocities until the stage is over (as [`run_batch`]).
pub(super) unsafe fn run_pairs(avx: Avx, batches: &mut [WidePointJoint], inputs: &PassInputs) {
    if avx.has_avx512() {
        // SAFETY: as the caller guarantees; the proof says the CPU has AVX-512F and VL.
        unsafe { run_pairs_avx512(avx, batches, inputs) }
    } else {
        // SAFETY: as the caller guarantees; the proof says the CPU has AVX.
        unsafe { run_pairs_avx(avx, batches, inputs) }
    }
}

/// [`run_pairs`] compiled for AVX.
///
/// # Safety
/// As [`run_pairs`].
#[target_feature(enable = "avx")]
unsafe fn run_pairs_avx(avx: Avx, batches: &mut [WidePointJoint], inputs: &PassInputs) {
    // SAFETY: as the caller guarantees.
    unsafe { run_pairs_on(avx, batches, inputs) }
}

/// [`run_pairs`] compiled for AVX-512F and AVX-512VL (256-bit registers, 32 of them).
///
/// # Safety
/// As [`run_pairs`], on a CPU with AVX-512F and AVX-512VL.
#[target_feature(enable = "avx,avx512f,avx512vl")]
unsafe fn run_pairs_avx512(avx: Avx, batches: &mut [WidePointJoint], inputs: &PassInputs) {
    // SAFETY: as the caller guarantees.
    unsafe { run_pairs_on(avx, batches, inputs) }
}

/// The loop of [`run_pairs`], inlined into each of its compilations.
///
/// # Safety
/// As [`run_pairs`].
#[inline(always)]
unsafe fn run_pairs_on(avx: Avx, batches: &mut [WidePointJoint], inputs: &PassInputs) {
    let mut pairs = batches.chunks_exact_mut(2);
    for pair in &mut pairs {
        if let [low, high] = pair {
            // SAFETY: as the caller guarantees; the two batches share no moving body, so the
            // pair's bodies are as much this thread's as each batch's.
            unsafe { run_pair(avx, low, high, inputs) };
        }
    }
    for w in pairs.into_remainder() {
        // SAFETY: as the caller guarantees.
        unsafe { run_batch(w, inputs) };
    }
}

/// Runs the pass on batches `low` (lanes 0–3) and `high` (lanes 4–7) side by side: what
/// [`run_batch`] does to each, in the same order.
///
/// # Safety
/// As [`run_pairs`].
#[inline(always)]
unsafe fn run_pair(avx: Avx, low: &mut WidePointJoint, high: &mut WidePointJoint, inputs: &PassInputs) {
    let join = |l: f32x4, h: f32x4| F8::join(avx, l, h);
    let join3 =
        |l: &Vec3x4, h: &Vec3x4| Vec3Lanes { x: join(l.x, h.x), y: join(l.y, h.y), z: join(l.z, h.z) };
    let (lm, hm) = (&low.lanes.masses, &high.lanes.masses);
    let masses = SideMasses {
        inv_mass_a: join(lm.inv_mass_a, hm.inv_mass_a),
        inv_mass_b: join(lm.inv_mass_b, hm.inv_mass_b),
        inv_inertia_a: join_sym(avx, &lm.inv_inertia_a, &hm.inv_inertia_a),
        inv_inertia_b: join_sym(avx, &lm.inv_inertia_b, &hm.inv_inertia_b),
    };
    let sides_a = [low.lanes.body_a, high.lanes.body_a];
    let sides_b = [low.lanes.body_b, high.lanes.body_b];
    let moved = |b: u32| inputs.motions[b as usize];
    let motion = LaneMotion {
        moved_a: gather_eight(avx, &sides_a, moved).0,
        moved_b: gather_eight(avx, &sides_b, moved).0,
        turn_a: gather_turns(avx, &sides_a, inputs.bodies),
        turn_b: gather_turns(avx, &sides_b, inputs.bodies),
    };
    let (arms, separation) = point_pose(
        (join3(&low.arm_a, &high.arm_a), join3(&low.arm_b, &high.arm_b)),
        join3(&low.delta_center, &high.delta_center),
        &motion,
    );
    // SAFETY: as the caller guarantees, for both batches; the sides index the velocities
    // (checked when the batches were coloured).
    let read = |b: u32| unsafe { inputs.velocities.read(b as usize) };
    let ((va, wa), (vb, wb)) = (gather_eight(avx, &sides_a, read), gather_eight(avx, &sides_b, read));
    let mut v = LaneVelocity { va, wa, vb, wb };
    let mut impulse = join3(&low.impulse, &high.impulse);
    match inputs.pass {
        Pass::WarmStart => masses.apply_point(&mut v, arms, impulse),
        Pass::Solve | Pass::Relax => {
            let mut mass = join_sym(avx, &low.mass, &high.mass);
            if inputs.pass == Pass::Solve
                && let Some(turned) = substep_mass(&masses, &mass, [motion.turn_a.w, motion.turn_b.w], arms)
            {
                mass = turned;
                (low.mass, high.mass) = split_sym(&mass);
            }
            let r = &inputs.rigid;
            let rigid = SoftLanes {
                bias_rate: join(r.bias_rate, r.bias_rate),
                mass_scale: join(r.mass_scale, r.mass_scale),
                impulse_scale: join(r.impulse_scale, r.impulse_scale),
            };
            masses.solve_point_with_mass(&mut v, arms, separation, &mass, &rigid, &mut impulse);
            (low.impulse, high.impulse) = split3(impulse);
        }
        Pass::Reaction => {}
    }
    // SAFETY: as the caller guarantees, for both batches.
    unsafe {
        scatter_pair(avx, inputs.velocities, &sides_a, &Halves([lm.inv_mass_a, hm.inv_mass_a]), v.va, v.wa);
        scatter_pair(avx, inputs.velocities, &sides_b, &Halves([lm.inv_mass_b, hm.inv_mass_b]), v.vb, v.wb);
    }
}

/// The rotations so far of two batches' sides `sides` (the first batch's in lanes 0–3, the
/// second's in lanes 4–7): each two bodies' quaternions loaded into one register, then one
/// transpose, as `Quatx4::from_lanes` makes four.
#[inline(always)]
fn gather_turns(avx: Avx, sides: &[[u32; 4]; 2], bodies: &[SolverBody]) -> QuatLanes<F8> {
    let [low, high] = sides;
    let turn = |b: u32| f32x4::new(bodies[b as usize].dq.to_array());
    let row = |k: usize| F8::join(avx, turn(low[k]), turn(high[k]));
    let [x, y, z, w] = transpose_halves([row(0), row(1), row(2), row(3)]);
    QuatLanes { xyz: Vec3Lanes { x, y, z }, w }
}

/// Two batches' symmetric matrices as eight lanes.
#[inline(always)]
fn join_sym(avx: Avx, low: &SymMat3x4, high: &SymMat3x4) -> SymMatLanes<F8> {
    let join = |l: f32x4, h: f32x4| F8::join(avx, l, h);
    SymMatLanes {
        xx: join(low.xx, high.xx),
        yy: join(low.yy, high.yy),
        zz: join(low.zz, high.zz),
        xy: join(low.xy, high.xy),
        xz: join(low.xz, high.xz),
        yz: join(low.yz, high.yz),
    }
}

/// Eight lanes of symmetric matrices back as the two batches' four.
#[inline(always)]
fn split_sym(m: &SymMatLanes<F8>) -> (SymMat3x4, SymMat3x4) {
    let [(xx0, xx1), (yy0, yy1), (zz0, zz1), (xy0, xy1), (xz0, xz1), (yz0, yz1)] =
        [m.xx, m.yy, m.zz, m.xy, m.xz, m.yz].map(F8::halves);
    (
        SymMatLanes { xx: xx0, yy: yy0, zz: zz0, xy: xy0, xz: xz0, yz: yz0 },
        SymMatLanes { xx: xx1, yy: yy1, zz: zz1, xy: xy1, xz: xz1, yz: yz1 },
    )
}

/// Eight lanes of vectors back as the two batches' four.
#[inline(always)]
fn split3(v: Vec3Lanes<F8>) -> (Vec3x4, Vec3x4) {
    let ((x0, x1), (y0, y1), (z0, z1)) = (v.x.halves(), v.y.halves(), v.z.halves());
    (Vec3Lanes { x: x0, y: y0, z: z0 }, Vec3Lanes { x: x1, y: y1, z: z1 })
}

#[cfg(test)]
mod tests {
    //! Two batches on eight lanes against each on four: the same velocities, impulses and
    //! masses, bit for bit, in every pass, with one batch's side turned past the limit that
    //! makes the mass follow the arms and the other's not.

    use super::*;
    use crate::joint::rows::NO_FEEDBACK;
    use crate::math::{Mat3, Quat, Vec3};
    use crate::parallel::SharedSlice;
    use crate::solver::point_joint::{PointJoint, fill_batch};
    use crate::solver::{Motion, Softness, Velocity};

    /// A small deterministic generator.
    struct Random(u32);

    impl Random {
        fn unit(&mut self) -> f32 {
            self.0 = self.0.wrapping_mul(1664525).wrapping_add(1013904223);
            (self.0 >> 8) as f32 / (1u32 << 24) as f32 * 2.0 - 1.0
        }
        fn vec(&mut self, scale: f32) -> Vec3 {
            Vec3::new(self.unit(), self.unit(), self.unit()) * scale
        }
        fn pair(&mut self, scale: f32) -> Motion {
            let (a, b) = (self.vec(scale), self.vec(scale));
            Motion { first: [a.x, a.y, a.z, 0.0], second: [b.x, b.y, b.z, 0.0] }
        }
    }

    /// Sixteen solver bodies (0 the fixed one) with random masses and motions; those in
    /// `turned` have turned about 30° this step, the others less than 10°.
    fn bodies(random: &mut Random, turned: &[usize]) -> (Vec<SolverBody>, Vec<Motion>, Vec<Velocity>) {
        let mut bodies = vec![SolverBody::FIXED; 16];
        for (i, b) in bodies.iter_mut().enumerate().skip(1) {
            let spread = random.vec(0.5);
            let inertia = Mat3::from_diagonal(Vec3::new(1.0, 2.0, 1.5) + spread.abs());
            let frame = Mat3::from_quat(Quat::from_scaled_axis(random.vec(1.5)));
            b.inv_mass = 0.5 + random.unit().abs();
            b.inv_inertia = frame * inertia.inverse() * frame.transpose();
            let angle = if turned.contains(&i) { 0.5 } else { 0.1 };
            b.dq = Quat::from_scaled_axis(random.vec(1.0).normalize() * angle);
        }
        let motions = (0..16).map(|i| if i == 0 { Motion::default() } else { random.pair(0.2) }).collect();
        let velocities =
            (0..16).map(|i| if i == 0 { Velocity::default() } else { random.pair(3.0) }).collect();
        (bodies, motions, velocities)
    }

    /// Batches of joints between bodies 1–7 and 8–15 (one side of the last is the fixed
    /// body, and the low batch's last lane is empty), sharing no moving body.
    fn batches(random: &mut Random, bodies: &[SolverBody]) -> (WidePointJoint, WidePointJoint) {
        let sides = [(1, 2), (3, 4), (5, 0), (6, 7), (8, 9), (10, 11), (12, 13), (0, 14)];
        let joints: Vec<PointJoint> = sides
            .iter()
            .enumerate()
            .map(|(k, &bodies)| PointJoint {
                joint: k as u32,
                bodies,
                arm_a: random.vec(0.6),
                arm_b: random.vec(0.6),
                delta_center: random.vec(1.0),
                impulse: random.vec(0.3),
            })
            .collect();
        let (mut low, mut high) = (WidePointJoint::default(), WidePointJoint::default());
        fill_batch(&mut low, &[0, 1, 2, crate::solver::colouring::EMPTY_LANE], &joints, bodies);
        fill_batch(&mut high, &[4, 5, 6, 7], &joints, bodies);
        (low, high)
    }

    fn vec_bits(v: &Vec3x4) -> Vec<u32> {
        [v.x, v.y, v.z].iter().flat_map(|l| l.to_array()).map(f32::to_bits).collect()
    }

    fn batch_bits(w: &WidePointJoint) -> Vec<u32> {
        let m = &w.mass;
        let mut bits = vec_bits(&w.impulse);
        bits.extend([m.xx, m.yy, m.zz, m.xy, m.xz, m.yz].iter().flat_map(|l| l.to_array()).map(f32::to_bits));
        bits
    }

    fn velocity_bits(velocities: &[Velocity]) -> Vec<u32> {
        velocities.iter().flat_map(|v| v.first.iter().chain(&v.second)).map(|x| x.to_bits()).collect()
    }

    #[test]
    fn two_batches_on_eight_lanes_do_what_each_does_on_four() {
        let Some(avx) = Avx::detect() else {
            panic!("this test runs on x86-64 CPUs with AVX; this one has none")
        };
        let rigid = Softness { bias_rate: 12.0, mass_scale: 0.8, impulse_scale: 0.1 };
        // The high batch's side 11 turned past the limit in one case, none in the other, both.
        for turned in [&[11][..], &[], &[2, 11]] {
            let mut random = Random(turned.len() as u32 + 7);
            let (bodies, motions, velocities) = bodies(&mut random, turned);
            let (low, high) = batches(&mut random, &bodies);
            for pass in [Pass::WarmStart, Pass::Solve, Pass::Relax] {
                let softness = if pass == Pass::Solve { rigid } else { NO_FEEDBACK };
                let run = |eight: Option<Avx>| {
                    let (mut batches, mut velocities) = (vec![low.clone(), high.clone()], velocities.clone());
                    let shared = SharedSlice::new(&mut velocities);
                    let inputs = PassInputs {
                        pass,
                        bodies: &bodies,
                        motions: &motions,
                        velocities: &shared,
                        rigid: SoftLanes::splat(softness),
                        inv_h: f32x4::splat(240.0),
                        eight_lanes: eight,
                    };
                    // SAFETY: the two batches share no moving body, and this thread alone
                    // holds the velocities.
                    unsafe {
                        match eight {
                            Some(avx) => run_pairs(avx, &mut batches, &inputs),
                            None => batches.iter_mut().for_each(|w| run_batch(w, &inputs)),
                        }
                    }
                    (batch_bits(&batches[0]), batch_bits(&batches[1]), velocity_bits(&velocities))
                };
                let four = run(None);
                let eight = run(Some(avx));
                assert_eq!(four, eight, "{pass:?}, turned {turned:?}");
                // Without AVX-512's registers too.
                assert_eq!(four, run(Some(avx.without_avx512())), "{pass:?}, turned {turned:?}");
            }
        }
    }
}
