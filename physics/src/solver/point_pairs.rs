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
use super::point_lanes::{WidePointJoint, pass_mass, point_pose};
use super::simd::{Halves, QuatLanes, SymMat3x4, SymMatLanes, Vec3Lanes, Vec3x4, f32x4};
use crate::joint::rows::Pass;

/// Runs the pass `inputs` describes over `batches`, two at a time on eight lanes (an odd one
/// left at the end on four). Compiled twice: for AVX, and for AVX-512VL where the CPU has it,
/// whose 32 registers hold what a pass keeps at once. The operations are the same IEEE
/// operations either way, so the results are the same bit for bit.
///
/// # Safety
/// The batches are of one colour (they share no moving body), every side indexes
/// `inputs.velocities`, and no other thread accesses their bodies' velocities until the stage
/// is over (as [`run_batch`]).
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
    let (pairs, odd) = batches.as_chunks_mut::<2>();
    for [low, high] in pairs {
        // SAFETY: as the caller guarantees; the two batches share no moving body, so the
        // pair's bodies are as much this thread's as each batch's.
        unsafe { run_pair(avx, low, high, inputs) };
    }
    for w in odd {
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
    let (lm, hm) = (&low.lanes.masses, &high.lanes.masses);
    let masses = SideMasses {
        inv_mass_a: F8::join(avx, lm.inv_mass_a, hm.inv_mass_a),
        inv_mass_b: F8::join(avx, lm.inv_mass_b, hm.inv_mass_b),
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
    let arms = (join3(avx, &low.arm_a, &high.arm_a), join3(avx, &low.arm_b, &high.arm_b));
    let (arms, separation) = point_pose(arms, join3(avx, &low.delta_center, &high.delta_center), &motion);
    // SAFETY: as the caller guarantees, for both batches; the sides index the velocities
    // (checked when the batches were coloured).
    let read = |b: u32| unsafe { inputs.velocities.read(b as usize) };
    let ((va, wa), (vb, wb)) = (gather_eight(avx, &sides_a, read), gather_eight(avx, &sides_b, read));
    let mut v = LaneVelocity { va, wa, vb, wb };
    let mut impulse = join3(avx, &low.impulse, &high.impulse);
    match inputs.pass {
        Pass::WarmStart => masses.apply_point(&mut v, arms, impulse),
        Pass::Solve | Pass::Relax => {
            let mut mass = join_sym(avx, &low.mass, &high.mass);
            if let Some(turned) = pass_mass(&masses, &mass, [motion.turn_a.w, motion.turn_b.w], arms) {
                mass = turned;
                (low.mass, high.mass) = split_sym(&mass);
            }
            let r = &inputs.rigid;
            let rigid = SoftLanes {
                bias_rate: F8::join(avx, r.bias_rate, r.bias_rate),
                mass_scale: F8::join(avx, r.mass_scale, r.mass_scale),
                impulse_scale: F8::join(avx, r.impulse_scale, r.impulse_scale),
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
/// transpose, as `Quatx4::from_lanes` makes four. (Functions rather than closures here and
/// below: a closure does not take on the AVX features of the function it is made in.)
#[inline(always)]
fn gather_turns(avx: Avx, [low, high]: &[[u32; 4]; 2], bodies: &[SolverBody]) -> QuatLanes<F8> {
    let row = |k: usize| turn_row(avx, bodies, low[k], high[k]);
    let [x, y, z, w] = transpose_halves([row(0), row(1), row(2), row(3)]);
    QuatLanes { xyz: Vec3Lanes { x, y, z }, w }
}

/// Body `low`'s rotation so far in lanes 0–3, body `high`'s in lanes 4–7.
#[inline(always)]
fn turn_row(avx: Avx, bodies: &[SolverBody], low: u32, high: u32) -> F8 {
    let turn = |b: u32| f32x4::new(bodies[b as usize].dq.to_array());
    F8::join(avx, turn(low), turn(high))
}

/// Two batches' vectors as eight lanes.
#[inline(always)]
fn join3(avx: Avx, low: &Vec3x4, high: &Vec3x4) -> Vec3Lanes<F8> {
    Vec3Lanes {
        x: F8::join(avx, low.x, high.x),
        y: F8::join(avx, low.y, high.y),
        z: F8::join(avx, low.z, high.z),
    }
}

/// Two batches' symmetric matrices as eight lanes.
#[inline(always)]
fn join_sym(avx: Avx, low: &SymMat3x4, high: &SymMat3x4) -> SymMatLanes<F8> {
    SymMatLanes {
        xx: F8::join(avx, low.xx, high.xx),
        yy: F8::join(avx, low.yy, high.yy),
        zz: F8::join(avx, low.zz, high.zz),
        xy: F8::join(avx, low.xy, high.xy),
        xz: F8::join(avx, low.xz, high.xz),
        yz: F8::join(avx, low.yz, high.yz),
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
    //! Batches on eight lanes against each on four: the same velocities, impulses and masses,
    //! bit for bit, pass after pass, with a side of one batch turned past the limit that makes
    //! the mass follow the arms and the other batches' not; and a solve whose overflow runs
    //! serially, its batches never paired.

    use super::*;
    use crate::joint::rows::NO_FEEDBACK;
    use crate::math::Quat;
    use crate::parallel::{SharedSlice, Team};
    use crate::solver::colouring::EMPTY_LANE;
    use crate::solver::joint_lanes::WideJoints;
    use crate::solver::point_lanes::{PointJoint, fill_batch};
    use crate::solver::test_random::TestRandom;
    use crate::solver::{Motion, Softness, Velocity};

    const RIGID: Softness = Softness { bias_rate: 12.0, mass_scale: 0.8, impulse_scale: 0.1 };
    const PASSES: [Pass; 5] = [Pass::WarmStart, Pass::Solve, Pass::Relax, Pass::Solve, Pass::Relax];

    /// Two random 3-vectors, padded as the solver's pairs are.
    fn random_pair(random: &mut TestRandom, scale: f32) -> Motion {
        let (a, b) = (random.vec(scale), random.vec(scale));
        Motion { first: [a.x, a.y, a.z, 0.0], second: [b.x, b.y, b.z, 0.0] }
    }

    /// `count` solver bodies (0 the fixed one) with random masses and motions; those in
    /// `turned` have turned about 30° this step, far past what a kept mass allows, the others
    /// a thousandth of a radian, well within it.
    fn bodies(
        random: &mut TestRandom,
        count: usize,
        turned: &[u32],
    ) -> (Vec<SolverBody>, Vec<Motion>, Vec<Velocity>) {
        let mut bodies = vec![SolverBody::FIXED; count];
        for (i, b) in bodies.iter_mut().enumerate().skip(1) {
            b.inv_mass = 0.5 + random.unit().abs();
            b.inv_inertia = random.inertia();
            let angle = if turned.contains(&(i as u32)) { 0.5 } else { 0.001 };
            b.dq = Quat::from_scaled_axis(random.vec(1.0).normalize() * angle);
        }
        let pair = |i: usize, random: &mut TestRandom, scale| {
            if i == 0 { Motion::default() } else { random_pair(random, scale) }
        };
        let motions = (0..count).map(|i| pair(i, random, 0.2)).collect();
        let velocities = (0..count).map(|i| pair(i, random, 3.0)).collect();
        (bodies, motions, velocities)
    }

    /// Joints between `sides`, with random arms, centres and warm-start impulses.
    fn joints(random: &mut TestRandom, sides: &[(u32, u32)]) -> Vec<PointJoint> {
        let joint = |(k, &bodies): (usize, &(u32, u32))| PointJoint {
            joint: k as u32,
            bodies,
            arm_a: random.vec(0.6),
            arm_b: random.vec(0.6),
            delta_center: random.vec(1.0),
            impulse: random.vec(0.3),
        };
        sides.iter().enumerate().map(joint).collect()
    }

    fn batch_bits(w: &WidePointJoint) -> Vec<u32> {
        let (i, m) = (&w.impulse, &w.mass);
        [i.x, i.y, i.z, m.xx, m.yy, m.zz, m.xy, m.xz, m.yz]
            .iter()
            .flat_map(|l| l.to_array())
            .map(f32::to_bits)
            .collect()
    }

    fn velocity_bits(velocities: &[Velocity]) -> Vec<u32> {
        velocities.iter().flat_map(|v| v.first.iter().chain(&v.second)).map(|x| x.to_bits()).collect()
    }

    /// Runs `pass` over `batches` on four lanes (`eight` `None`) or two at a time on eight.
    fn run(
        eight: Option<Avx>,
        pass: Pass,
        batches: &mut [WidePointJoint],
        (bodies, motions, velocities): (&[SolverBody], &[Motion], &mut [Velocity]),
    ) {
        let shared = SharedSlice::new(velocities);
        let softness = if pass == Pass::Solve { RIGID } else { NO_FEEDBACK };
        let inputs = PassInputs {
            pass,
            bodies,
            motions,
            velocities: &shared,
            rigid: SoftLanes::splat(softness),
            inv_h: f32x4::splat(240.0),
            eight_lanes: eight,
        };
        // SAFETY: the batches share no moving body, their sides index the velocities, and this
        // thread alone holds them.
        unsafe {
            match eight {
                Some(avx) => run_pairs(avx, batches, &inputs),
                None => batches.iter_mut().for_each(|w| run_batch(w, &inputs)),
            }
        }
    }

    #[test]
    fn batches_on_eight_lanes_do_what_each_does_on_four() {
        let Some(avx) = Avx::detect() else {
            panic!("this test runs on x86-64 CPUs with AVX; this one has none")
        };
        // Three batches, sharing no moving body: two run on eight lanes, the third on four.
        // The first's last lane is empty, a side of two lanes is the fixed body.
        let sides = [
            [(1, 2), (3, 4), (5, 0)].as_slice(),
            &[(8, 9), (10, 11), (12, 13), (0, 14)],
            &[(15, 16), (17, 18), (19, 20), (21, 22)],
        ];
        let flat: Vec<(u32, u32)> = sides.concat();
        // Sides turned past what a kept mass allows: none; a side B of the second batch; a side A of it;
        // a side of the first and of the third.
        for turned in [&[][..], &[11], &[10], &[2, 17]] {
            let mut random = TestRandom(turned.len() as u32 + 7);
            let (bodies, motions, velocities) = bodies(&mut random, 23, turned);
            let joints = joints(&mut random, &flat);
            let mut first = 0;
            let batches: Vec<WidePointJoint> = sides
                .iter()
                .map(|batch| {
                    let mut lanes = [EMPTY_LANE; 4];
                    for (k, lane) in lanes.iter_mut().enumerate().take(batch.len()) {
                        *lane = (first + k) as u32;
                    }
                    first += batch.len();
                    let mut w = WidePointJoint::default();
                    fill_batch(&mut w, &lanes, &joints, &bodies);
                    w
                })
                .collect();
            let ways = [None, Some(avx), Some(avx.without_avx512())];
            let mut states = ways.map(|_| (batches.clone(), velocities.clone()));
            for (p, pass) in PASSES.into_iter().enumerate() {
                for (way, (batches, velocities)) in ways.iter().zip(&mut states) {
                    run(*way, pass, batches, (&bodies, &motions, velocities));
                }
                let bits = states
                    .each_ref()
                    .map(|(b, v)| (b.iter().map(batch_bits).collect::<Vec<_>>(), velocity_bits(v)));
                assert_eq!(bits[0], bits[1], "pass {p} ({pass:?}), turned {turned:?}");
                assert_eq!(bits[0], bits[2], "pass {p} ({pass:?}) without AVX-512, turned {turned:?}");
            }
            // The mass followed the arms in the batches with a turned side, and only there.
            for (k, batch) in sides.iter().enumerate() {
                let was_turned = batch.iter().any(|&(a, b)| turned.contains(&a) || turned.contains(&b));
                let moved = batch_bits(&states[0].0[k])[12..] != batch_bits(&batches[k])[12..];
                assert_eq!(moved, was_turned, "batch {k}, turned {turned:?}");
            }
        }
    }

    #[test]
    fn a_solve_pairs_a_colour_s_batches_and_never_the_serial_ones() {
        let Some(avx) = Avx::detect() else {
            panic!("this test runs on x86-64 CPUs with AVX; this one has none")
        };
        // A hub joined to 80 bodies, more joints than there are colours, so the last ones
        // overflow into batches that run one after another; and a chain beside it.
        let mut sides: Vec<(u32, u32)> = (2..82).map(|k| (1, k)).collect();
        sides.extend((82..120).map(|k| (k, k + 1)));
        let mut random = TestRandom(3);
        let (bodies, motions, velocities) = bodies(&mut random, 121, &[1, 90]);
        let joints = joints(&mut random, &sides);
        let movable: Vec<bool> = (0..bodies.len()).map(|i| i > 0).collect();
        let mut wide = WideJoints::<WidePointJoint>::default();
        wide.colour(&joints, |j| j.bodies, &movable, 1.0 / 240.0);
        assert!(!wide.serial_batches().is_empty(), "the hub overflows the colours");
        wide.share().fill(&Team::alone(), |w, lanes| fill_batch(w, lanes, &joints, &bodies));
        let ways = [None, Some(avx)];
        let mut states = ways.map(|_| (wide.clone(), velocities.clone()));
        for (p, pass) in PASSES.into_iter().enumerate() {
            for (way, (wide, velocities)) in ways.iter().zip(&mut states) {
                wide.run(pass, &bodies, &motions, velocities, RIGID, *way);
            }
            let bits = states
                .each_ref()
                .map(|(w, v)| (w.wide.iter().map(batch_bits).collect::<Vec<_>>(), velocity_bits(v)));
            assert_eq!(bits[0], bits[1], "pass {p} ({pass:?})");
        }
    }
}
