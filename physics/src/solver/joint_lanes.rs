//! What every four-wide joint batch shares: its joints' sides and masses, the bodies'
//! velocities as lanes, and the row algebra of `joint/rows.rs` one lane per joint (angular
//! rows as soft equalities, limits and motors, and the point block, the last written for any
//! lanes so that two plain ball batches can run on eight, `point_pairs.rs`); and the loop of a
//! pass over a colour's batches. A lane computes what the
//! scalar row computes; rows a lane does not have are zeroed (no mass, no bias, no clamp room)
//! or masked, so one instruction stream serves the four joints of a batch.
//!
//! Empty lanes have the fixed solver body on both sides and zero masses: every impulse they
//! compute is zero and they write back the fixed body's unchanged velocity.

#[cfg(target_arch = "x86_64")]
use super::avx::Avx;
use super::colour_schedule::{ColourParts, colour_claims};
use super::colouring::{Batches, EMPTY_LANE};
use super::simd::{
    Lanes, QuatLanes, Quatx4, SymMat3x4, SymMatLanes, Vec3Lanes, Vec3x4, f32x4, gather, gather_shared,
    scatter_moving, select,
};
use super::solve_arrays::SolveArrays;
use super::{Motion, Softness, SolverBody, Velocity};
use crate::joint::rows::{NO_FEEDBACK, Pass};
use crate::joint::{Joint, JointImpulses, Limits};
use crate::math::Vec3;
use crate::parallel::SharedSlice;
use crate::parallel::sync::AtomicU32;
use crate::parallel::{Claims, Team};
use crate::team_policy::BLOCK_BATCHES;
use std::ops::Range;

/// The sides, slots and masses of four joints, one per lane.
#[derive(Clone, Debug)]
pub(crate) struct JointLanes {
    pub body_a: [u32; 4],
    pub body_b: [u32; 4],
    /// Joint slot per lane, [`EMPTY_LANE`] where the batch is not full.
    pub joints: [u32; 4],
    pub masses: SideMasses,
}

impl Default for JointLanes {
    fn default() -> Self {
        JointLanes { body_a: [0; 4], body_b: [0; 4], joints: [EMPTY_LANE; 4], masses: SideMasses::default() }
    }
}

/// The inverse masses and inertias of the two sides of joints, one joint per lane: what the
/// point block's algebra reads, written once for four lanes and for eight (two batches,
/// `point_pairs.rs`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SideMasses<L = f32x4> {
    /// Side A's inverse mass (0 for a side the solver does not move).
    pub inv_mass_a: L,
    /// Side B's inverse mass.
    pub inv_mass_b: L,
    /// Side A's inverse inertia, world axes.
    pub inv_inertia_a: SymMatLanes<L>,
    /// Side B's inverse inertia, world axes.
    pub inv_inertia_b: SymMatLanes<L>,
}

/// The velocities of a batch's two sides, as lanes.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneVelocity<L = f32x4> {
    pub va: Vec3Lanes<L>,
    pub wa: Vec3Lanes<L>,
    pub vb: Vec3Lanes<L>,
    pub wb: Vec3Lanes<L>,
}

/// How far each side has moved and turned since the step began: its centre's translation and
/// its exact rotation (the solver quaternion).
#[derive(Clone, Copy, Debug)]
pub(crate) struct LaneMotion<L = f32x4> {
    pub moved_a: Vec3Lanes<L>,
    pub moved_b: Vec3Lanes<L>,
    pub turn_a: QuatLanes<L>,
    pub turn_b: QuatLanes<L>,
}

/// Soft feedback per lane (see [`Softness`]).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct SoftLanes<L = f32x4> {
    pub bias_rate: L,
    pub mass_scale: L,
    pub impulse_scale: L,
}

impl SoftLanes {
    /// The same feedback in every lane.
    #[inline(always)]
    pub fn splat(s: Softness) -> SoftLanes {
        SoftLanes {
            bias_rate: f32x4::splat(s.bias_rate),
            mass_scale: f32x4::splat(s.mass_scale),
            impulse_scale: f32x4::splat(s.impulse_scale),
        }
    }

    /// Writes `s` into lane `k`.
    pub fn set_lane(&mut self, k: usize, s: Softness) {
        self.bias_rate.as_mut_array()[k] = s.bias_rate;
        self.mass_scale.as_mut_array()[k] = s.mass_scale;
        self.impulse_scale.as_mut_array()[k] = s.impulse_scale;
    }
}

/// A rotation row about `axis` (B relative to A) with the turn each side's unit impulse gives.
#[derive(Clone, Copy, Debug)]
pub(crate) struct AngularRow {
    pub axis: Vec3x4,
    spin_a: Vec3x4,
    spin_b: Vec3x4,
    /// One over the effective inverse mass, 0 where nothing can turn the row.
    mass: f32x4,
}

impl AngularRow {
    /// The row's rate: B's spin about the axis minus A's.
    #[inline(always)]
    pub fn rate(&self, v: &LaneVelocity) -> f32x4 {
        self.axis.dot(v.wb - v.wa)
    }

    /// Applies `impulse` about the axis to B and its opposite to A.
    #[inline(always)]
    pub fn apply(&self, v: &mut LaneVelocity, impulse: f32x4) {
        v.wa -= self.spin_a * impulse;
        v.wb += self.spin_b * impulse;
    }

    /// Drives `c` (whose rate is the row's) to zero with feedback `soft`; returns the impulse
    /// applied.
    #[inline(always)]
    pub fn equality(&self, v: &mut LaneVelocity, c: f32x4, soft: &SoftLanes, accumulated: &mut f32x4) {
        let impulse = -soft.mass_scale * self.mass * (self.rate(v) + soft.bias_rate * c)
            - soft.impulse_scale * *accumulated;
        *accumulated += impulse;
        self.apply(v, impulse);
    }

    /// Keeps `c ≥ 0` in the lanes of `active` (the row pushes along the axis when `sign` is 1,
    /// against it when -1): a limit not yet reached only stops the bodies from crossing it
    /// within the substep (`inv_h`), a crossed one pushes back with `rigid`. Other lanes keep
    /// their accumulated impulse and apply nothing, as the scalar row that is skipped does.
    #[inline(always)]
    pub fn limit(
        &self,
        v: &mut LaneVelocity,
        sign: f32x4,
        c: f32x4,
        (rigid, inv_h): (&SoftLanes, f32x4),
        active: f32x4,
        accumulated: &mut f32x4,
    ) {
        let open = c.simd_gt(f32x4::ZERO);
        let bias_rate = select(open, inv_h, rigid.bias_rate);
        let mass_scale = select(open, f32x4::splat(1.0), rigid.mass_scale);
        let impulse_scale = select(open, f32x4::ZERO, rigid.impulse_scale);
        let impulse =
            -mass_scale * self.mass * (sign * self.rate(v) + bias_rate * c) - impulse_scale * *accumulated;
        let total = select(active, (*accumulated + impulse).max(f32x4::ZERO), *accumulated);
        let applied = total - *accumulated;
        *accumulated = total;
        self.apply(v, sign * applied);
    }

    /// Drives the row's rate towards `speed` with an accumulated impulse within
    /// ±`max_impulse` (0 in lanes without a motor).
    #[inline(always)]
    pub fn motor(&self, v: &mut LaneVelocity, speed: f32x4, max_impulse: f32x4, accumulated: &mut f32x4) {
        let impulse = -self.mass * (self.rate(v) - speed);
        let total = (*accumulated + impulse).max(-max_impulse).min(max_impulse);
        let applied = total - *accumulated;
        *accumulated = total;
        self.apply(v, applied);
    }
}

/// A range (lower and upper limit) on one angular row, per lane: a hinge's angle limits, a
/// ball joint's twist range.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RangeLanes {
    lower: f32x4,
    upper: f32x4,
    /// All ones in lanes with a range.
    active: f32x4,
    /// The accumulated impulses of the lower and upper limit.
    pub lower_impulse: f32x4,
    pub upper_impulse: f32x4,
}

impl RangeLanes {
    /// Puts `limits` into lane `k`, with last step's impulses `(lower, upper)`.
    pub fn set_lane(&mut self, k: usize, limits: Limits, (lower, upper): (f32, f32)) {
        self.lower.as_mut_array()[k] = limits.lower;
        self.upper.as_mut_array()[k] = limits.upper;
        self.active.as_mut_array()[k] = f32::from_bits(u32::MAX);
        self.lower_impulse.as_mut_array()[k] = lower;
        self.upper_impulse.as_mut_array()[k] = upper;
    }

    /// Keeps `angle` (whose rate is `row`'s) within the range: the lower limit, then the upper
    /// (see [`AngularRow::limit`] for `feedback`).
    #[inline(always)]
    pub fn solve(
        &mut self,
        row: &AngularRow,
        v: &mut LaneVelocity,
        angle: f32x4,
        feedback: (&SoftLanes, f32x4),
    ) {
        let one = f32x4::splat(1.0);
        row.limit(v, one, angle - self.lower, feedback, self.active, &mut self.lower_impulse);
        row.limit(v, -one, self.upper - angle, feedback, self.active, &mut self.upper_impulse);
    }

    /// The net accumulated impulse along the row.
    #[inline(always)]
    pub fn impulse(&self) -> f32x4 {
        self.lower_impulse - self.upper_impulse
    }
}

impl JointLanes {
    /// Puts joint slot `joint` between solver bodies `body_a` and `body_b` into lane `k`, with
    /// the masses of `bodies` (the solver bodies).
    pub fn set_lane(&mut self, k: usize, joint: u32, (body_a, body_b): (u32, u32), bodies: &[SolverBody]) {
        let (a, b) = (&bodies[body_a as usize], &bodies[body_b as usize]);
        self.body_a[k] = body_a;
        self.body_b[k] = body_b;
        self.joints[k] = joint;
        let m = &mut self.masses;
        m.inv_mass_a.as_mut_array()[k] = a.inv_mass;
        m.inv_mass_b.as_mut_array()[k] = b.inv_mass;
        m.inv_inertia_a.set_lane(k, &a.inv_inertia);
        m.inv_inertia_b.set_lane(k, &b.inv_inertia);
    }

    /// The lanes that hold a joint.
    pub fn filled(&self) -> impl Iterator<Item = (usize, u32)> + '_ {
        self.joints.iter().copied().enumerate().filter(|&(_, j)| j != EMPTY_LANE)
    }

    /// The sides' velocities.
    ///
    /// # Safety
    /// No other thread writes the sides' velocities until the stage is over (the batch is one
    /// of the colour the team works on). The sides index `velocities` (checked when the
    /// batches were coloured, [`WideJoints::colour`]).
    #[inline(always)]
    pub unsafe fn velocity(&self, velocities: &SharedSlice<Velocity>) -> LaneVelocity {
        // SAFETY: as the caller guarantees.
        let ((va, wa), (vb, wb)) =
            unsafe { (gather_shared(velocities, &self.body_a), gather_shared(velocities, &self.body_b)) };
        LaneVelocity { va, wa, vb, wb }
    }

    /// Writes the moving sides' velocities back (A's, then B's, lane by lane).
    ///
    /// # Safety
    /// As [`JointLanes::velocity`]: the moving sides are this thread's until the stage is over.
    #[inline(always)]
    pub unsafe fn store_velocity(&self, velocities: &SharedSlice<Velocity>, v: &LaneVelocity) {
        // SAFETY: as the caller guarantees.
        unsafe {
            scatter_moving(velocities, &self.body_a, self.masses.inv_mass_a, v.va, v.wa);
            scatter_moving(velocities, &self.body_b, self.masses.inv_mass_b, v.vb, v.wb);
        }
    }

    /// How far the sides have moved and turned since the step began.
    #[inline(always)]
    pub fn motion(&self, bodies: &[SolverBody], motions: &[Motion]) -> LaneMotion {
        let turn = |side: &[u32; 4]| Quatx4::from_lanes(side.map(|b| bodies[b as usize].dq));
        LaneMotion {
            moved_a: gather(motions, &self.body_a).0,
            moved_b: gather(motions, &self.body_b).0,
            turn_a: turn(&self.body_a),
            turn_b: turn(&self.body_b),
        }
    }

    /// A rotation row about `axis`.
    #[inline(always)]
    pub fn angular_row(&self, axis: Vec3x4) -> AngularRow {
        let spin_a = self.masses.inv_inertia_a.mul_vec(axis);
        let spin_b = self.masses.inv_inertia_b.mul_vec(axis);
        let k = axis.dot(spin_a + spin_b);
        let mass = select(k.simd_gt(f32x4::ZERO), f32x4::splat(1.0) / k, f32x4::ZERO);
        AngularRow { axis, spin_a, spin_b, mass }
    }

    /// Applies angular impulse `torque` to B and its opposite to A.
    #[inline(always)]
    pub fn apply_torque(&self, v: &mut LaneVelocity, torque: Vec3x4) {
        v.wa -= self.masses.inv_inertia_a.mul_vec(torque);
        v.wb += self.masses.inv_inertia_b.mul_vec(torque);
    }

    /// Turns B's frame onto A's: `error` is the rotation vector from A's frame to B's target,
    /// `mass` the inverse of the two sides' summed inverse inertias (see `RowSolver::rotation`).
    #[inline(always)]
    pub fn solve_rotation(
        &self,
        v: &mut LaneVelocity,
        mass: &SymMat3x4,
        error: Vec3x4,
        soft: &SoftLanes,
        accumulated: &mut Vec3x4,
    ) {
        let impulse = mass.mul_vec(v.wb - v.wa + error * soft.bias_rate) * -soft.mass_scale
            - *accumulated * soft.impulse_scale;
        *accumulated += impulse;
        self.apply_torque(v, impulse);
    }

    /// Resists B's rotation relative to A with an accumulated angular impulse no longer than
    /// `max_impulse` (dry friction; 0 in lanes without it), `mass` as in
    /// [`JointLanes::solve_rotation`].
    #[inline(always)]
    pub fn rotation_friction(
        &self,
        v: &mut LaneVelocity,
        mass: &SymMat3x4,
        max_impulse: f32x4,
        accumulated: &mut Vec3x4,
    ) {
        let total = *accumulated - mass.mul_vec(v.wb - v.wa);
        let length_squared = total.dot(total);
        let too_long = length_squared.simd_gt(max_impulse * max_impulse);
        // Lanes within the cap keep their total; the 0 / 0 of a zero total is never selected.
        let scale = select(too_long, max_impulse / length_squared.sqrt(), f32x4::splat(1.0));
        let total = total * scale;
        let applied = total - *accumulated;
        *accumulated = total;
        self.apply_torque(v, applied);
    }
}

impl<L: Lanes> SideMasses<L> {
    /// Applies `impulse` at B's anchor (`arm_b` from its centre) and its opposite at A's.
    #[inline(always)]
    pub fn apply_point(
        &self,
        v: &mut LaneVelocity<L>,
        (arm_a, arm_b): (Vec3Lanes<L>, Vec3Lanes<L>),
        impulse: Vec3Lanes<L>,
    ) {
        v.va -= impulse * self.inv_mass_a;
        v.wa -= self.inv_inertia_a.mul_vec(arm_a.cross(impulse));
        v.vb += impulse * self.inv_mass_b;
        v.wb += self.inv_inertia_b.mul_vec(arm_b.cross(impulse));
    }

    /// Holds B's anchor on A's (`separation` apart now) as one 3 × 3 block with feedback
    /// `soft`, the mass rebuilt from the turned arms every time (see `RowSolver::point`).
    #[inline(always)]
    pub fn solve_point(
        &self,
        v: &mut LaneVelocity<L>,
        arms: (Vec3Lanes<L>, Vec3Lanes<L>),
        separation: Vec3Lanes<L>,
        soft: &SoftLanes<L>,
        accumulated: &mut Vec3Lanes<L>,
    ) {
        let mass = self.point_mass(arms.0, arms.1);
        self.solve_point_with_mass(v, arms, separation, &mass, soft, accumulated);
    }

    /// [`SideMasses::solve_point`] with the point block's mass given.
    #[inline(always)]
    pub fn solve_point_with_mass(
        &self,
        v: &mut LaneVelocity<L>,
        arms: (Vec3Lanes<L>, Vec3Lanes<L>),
        separation: Vec3Lanes<L>,
        mass: &SymMatLanes<L>,
        soft: &SoftLanes<L>,
        accumulated: &mut Vec3Lanes<L>,
    ) {
        let (arm_a, arm_b) = arms;
        let rate = v.vb + v.wb.cross(arm_b) - v.va - v.wa.cross(arm_a);
        let impulse = mass.mul_vec(rate + separation * soft.bias_rate) * -soft.mass_scale
            - *accumulated * soft.impulse_scale;
        *accumulated += impulse;
        self.apply_point(v, arms, impulse);
    }

    /// Each lane's point block mass for arms `arm_a` and `arm_b`: the inverse of
    /// `K = (m_a⁻¹ + m_b⁻¹) I − [r_a]× I_a⁻¹ [r_a]× − [r_b]× I_b⁻¹ [r_b]×`, built and inverted
    /// as the symmetric matrix it is; a singular lane (an empty one) gets 0.
    #[inline(always)]
    pub fn point_mass(&self, arm_a: Vec3Lanes<L>, arm_b: Vec3Lanes<L>) -> SymMatLanes<L> {
        let k = SymMatLanes::diagonal(self.inv_mass_a + self.inv_mass_b)
            + self.inv_inertia_a.about_arm(arm_a)
            + self.inv_inertia_b.about_arm(arm_b);
        k.inverse_or_zero()
    }
}

/// What the shared batch loop of [`WideJoints`] needs of one wide joint type's batch.
pub(crate) trait WideJoint: Default {
    /// The batch's pose at the bodies' motion so far.
    type Pose;
    /// The batch's sides and masses.
    fn lanes(&self) -> &JointLanes;
    /// The pose after the sides' `motion` so far this step.
    fn pose(&self, motion: &LaneMotion) -> Self::Pose;
    /// Applies the accumulated impulses again.
    fn warm_start(&self, v: &mut LaneVelocity, pose: &Self::Pose);
    /// Called before every solve and relax pass: a type that keeps an effective mass through
    /// its passes brings it up to the pose where the kept one would be too far off (the others
    /// keep nothing). Every pass, not once a substep: the relax pass comes after the positions
    /// moved. `turn_w` is the real part of each side's rotation since the step began, per lane.
    fn update_mass(&mut self, _turn_w: [f32x4; 2], _pose: &Self::Pose) {}
    /// One pass over the rows with feedback `rigid` on the rigid ones (springs keep theirs);
    /// `inv_h` lets a limit not yet reached close its gap in one substep.
    fn solve(&mut self, v: &mut LaneVelocity, pose: &Self::Pose, rigid: &SoftLanes, inv_h: f32x4);
    /// Writes each lane's impulses back into its joint (`joints[k]`, `None` for an empty lane)
    /// for the next step, with the readouts of the step (force, torque, motor load, limit
    /// state) at the bodies' final `motions`; over the substep `h` a substep's impulse is a
    /// force.
    fn store(&self, bodies: &[SolverBody], motions: &[Motion], h: f32, joints: [Option<&mut Joint>; 4]);

    /// Runs the pass `inputs` describes over `batches` in order, each on four lanes
    /// ([`run_batch`]). A type may run two side by side where `in_colour` says the batches
    /// are of one colour.
    ///
    /// # Safety
    /// As [`run_batch`], for every batch; with `in_colour`, the batches share no moving body.
    #[inline(always)]
    unsafe fn run_batches(batches: &mut [Self], inputs: &PassInputs, in_colour: bool) {
        // Four lanes run every batch alike.
        let _ = in_colour;
        for w in batches {
            // SAFETY: as the caller guarantees.
            unsafe { run_batch(w, inputs) };
        }
    }
}

/// Writes each filled lane's impulses into its joint (`joints[k]`, `None` for an empty lane),
/// with the readouts they give over the substep `h`: the force from the point impulse, the
/// torque from `torque(k)` (the lane's angular impulse, world axes), the motor load, and the
/// limit state from the impulses. What the revolute and spherical batches store.
pub(crate) fn store_impulses(
    joints: [Option<&mut Joint>; 4],
    h: f32,
    impulses: impl Fn(usize) -> JointImpulses,
    torque: impl Fn(usize) -> Vec3,
) {
    let inv_h = 1.0 / h;
    for (k, j) in joints.into_iter().enumerate() {
        let Some(j) = j else { continue };
        let i = impulses(k);
        j.force = i.point * inv_h;
        j.torque = torque(k) * inv_h;
        j.motor_load = i.motor * inv_h;
        j.limit_active = i.lower > 0.0 || i.upper > 0.0 || i.swing > 0.0;
        j.impulses = i;
    }
}

/// The joints of one wide type in a step, coloured (in joint order, with the contacts'
/// colouring code) into batches of four that share no moving body.
#[derive(Clone, Debug, Default)]
pub(crate) struct WideJoints<W> {
    batches: Batches,
    pairs: Vec<(u32, u32)>,
    ones: Vec<u8>,
    /// The batches.
    pub wide: Vec<W>,
    /// A claim word per block of the colours, for the team.
    claims: Claims,
    /// The substep.
    pub h: f32,
}

impl<W: WideJoint> WideJoints<W> {
    /// Colours `joints` (whose solver bodies `sides` gives) and fills each batch's lanes with
    /// `fill(batch, lane, joint)`; the solver moves the solver bodies `movable` marks; `h` is
    /// the substep.
    pub fn prepare<J>(
        &mut self,
        joints: &[J],
        sides: impl Fn(&J) -> (u32, u32),
        movable: &[bool],
        h: f32,
        mut fill: impl FnMut(&mut W, usize, &J),
    ) {
        self.colour(joints, sides, movable, h);
        for (lanes, w) in self.batches.lanes.iter().zip(&mut self.wide) {
            *w = W::default();
            for (k, &lane) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
                fill(w, k, &joints[lane as usize]);
            }
        }
    }

    /// Colours `joints` into batches, to be filled later ([`SharedWideJoints::fill`]);
    /// `movable` has an entry per solver body.
    pub fn colour<J>(&mut self, joints: &[J], sides: impl Fn(&J) -> (u32, u32), movable: &[bool], h: f32) {
        self.h = h;
        self.pairs.clear();
        self.pairs.extend(joints.iter().map(sides));
        // Every lane's sides index the solver arrays; the solve reads them unchecked.
        let n = movable.len() as u32;
        assert!(self.pairs.iter().all(|&(a, b)| a < n && b < n), "a joint's solver body out of range");
        self.ones.clear();
        self.ones.resize(joints.len(), 1);
        self.batches.build_or_keep(&self.pairs, movable, &self.ones);
        self.claims.reset(colour_claims(
            &self.batches.colours,
            1,
            self.batches.lanes.len().div_ceil(BLOCK_BATCHES),
        ));
        self.wide.resize_with(self.batches.lanes.len(), W::default);
    }

    /// Joints in the batches.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The joint slots solved, in batch order.
    pub fn joints(&self) -> impl Iterator<Item = u32> + '_ {
        self.wide.iter().flat_map(|w| w.lanes().filled().map(|(_, j)| j))
    }

    /// The batches as the solve's team shares them.
    pub fn share(&mut self) -> SharedWideJoints<'_, W> {
        SharedWideJoints {
            wide: SharedSlice::new(&mut self.wide),
            colours: &self.batches.colours,
            serial: self.batches.serial.clone(),
            lanes: &self.batches.lanes,
            claims: self.claims.words(),
            h: self.h,
        }
    }

    /// Runs `pass` over every batch on the caller's thread alone, on eight lanes where
    /// `eight_lanes` has the proof (tests compare the lanes with the scalar rows, and the ways
    /// with each other, this way).
    #[cfg(test)]
    pub fn run(
        &mut self,
        pass: Pass,
        bodies: &[SolverBody],
        motions: &[Motion],
        velocities: &mut [Velocity],
        rigid: Softness,
        eight_lanes: EightLaneProof,
    ) {
        // The passes read bodies and motions only; the arrays the team shares are mutable.
        let (mut bodies, mut motions) = (bodies.to_vec(), motions.to_vec());
        let mut claims = Claims::default();
        let arrays = SolveArrays::new(&mut bodies, &mut motions, velocities, &mut claims);
        self.share().run(&Team::alone(), pass, &arrays, rigid, eight_lanes);
    }

    /// The batches that may share bodies, run one after another after the colours'.
    #[cfg(test)]
    pub fn serial_batches(&self) -> Range<usize> {
        self.batches.serial.clone()
    }

    /// Writes every batch's impulses and readouts into `joints` on the caller's thread alone
    /// (tests compare them with the scalar rows' this way).
    #[cfg(test)]
    pub fn store(&mut self, bodies: &[SolverBody], motions: &[Motion], joints: &mut [Joint]) {
        let (mut bodies, mut motions, mut velocities) =
            (bodies.to_vec(), motions.to_vec(), vec![Velocity::ZERO; bodies.len()]);
        let mut claims = Claims::default();
        let arrays = SolveArrays::new(&mut bodies, &mut motions, &mut velocities, &mut claims);
        self.share().store(&Team::alone(), &arrays, &SharedSlice::new(joints));
    }
}

/// The batches of one wide joint type in a solve, shared by the members of its team.
pub(crate) struct SharedWideJoints<'a, W> {
    wide: SharedSlice<'a, W>,
    colours: &'a [Range<usize>],
    serial: Range<usize>,
    /// Each batch's lanes: indices into the list the batches were coloured from.
    lanes: &'a [[u32; 4]],
    claims: &'a [AtomicU32],
    h: f32,
}

impl<W: WideJoint> SharedWideJoints<'_, W> {
    /// The claim words of the batches' blocks, for other stages of the same joints.
    pub fn claims(&self) -> &[AtomicU32] {
        self.claims
    }

    /// Fills every batch with `fill(batch, lanes)` (from its default), in blocks of batches
    /// the team shares (each batch is written by one member).
    pub fn fill(&self, team: &Team, fill: impl Fn(&mut W, &[u32; 4])) {
        let count = self.wide.len();
        // Any claim words serve: this stage's number is higher than any they hold.
        let claims = &self.claims[..count.div_ceil(BLOCK_BATCHES)];
        team.for_blocks(count, BLOCK_BATCHES, claims, |block| {
            // SAFETY: each block of batches is one member's in this stage.
            let batches = unsafe { self.wide.slice_mut(block.clone()) };
            for (lanes, w) in self.lanes[block].iter().zip(batches) {
                *w = W::default();
                fill(w, lanes);
            }
        });
    }

    /// Writes each batch's impulses and readouts into its joints ([`WideJoint::store`]), in
    /// blocks of batches the team shares, after the substeps.
    pub fn store(&self, team: &Team, arrays: &SolveArrays, joints: &SharedSlice<Joint>) {
        let count = self.wide.len();
        // Any claim words serve: this stage's number is higher than any they hold.
        let claims = &self.claims[..count.div_ceil(BLOCK_BATCHES)];
        // SAFETY: the batches, solver bodies and motions are only read in this stage.
        let (wide, bodies, motions) =
            unsafe { (self.wide.as_slice(), arrays.bodies.as_slice(), arrays.motions.as_slice()) };
        team.for_blocks(count, BLOCK_BATCHES, claims, |block| {
            for w in &wide[block] {
                let lanes = w.lanes().joints.map(|joint| {
                    let joint = joint as usize;
                    // SAFETY: a joint is in one lane of one batch, and each block of batches
                    // is one member's in this stage: no one else touches this joint.
                    (joint != EMPTY_LANE as usize)
                        .then(|| unsafe { &mut joints.slice_mut(joint..joint + 1)[0] })
                });
                w.store(bodies, motions, self.h, lanes);
            }
        });
    }

    /// Runs `pass` (warm start, solve with feedback `rigid`, or relax) over this member's
    /// share of every batch, colour by colour; the force readout is each type's own.
    /// `eight_lanes` proves the CPU has AVX where a type may run two batches of a colour
    /// side by side ([`WideJoint::run_batches`]).
    pub fn run(
        &self,
        team: &Team,
        pass: Pass,
        arrays: &SolveArrays,
        rigid: Softness,
        eight_lanes: EightLaneProof,
    ) {
        if pass == Pass::Reaction {
            return;
        }
        // SAFETY: solver bodies and motions are written only while integrating positions, a
        // stage of its own.
        let (bodies, motions) = unsafe { (arrays.bodies.as_slice(), arrays.motions.as_slice()) };
        let inputs = PassInputs {
            pass,
            bodies,
            motions,
            velocities: &arrays.velocities,
            rigid: SoftLanes::splat(if pass == Pass::Solve { rigid } else { NO_FEEDBACK }),
            inv_h: f32x4::splat(1.0 / self.h),
            eight_lanes,
        };
        team.for_each_colour(self.colours, ColourParts::NONE, self.serial.clone(), self.claims, |range| {
            // The serial batches may share bodies; they come after every colour, so a range
            // before them is a colour's (a block of one, or all of it).
            let in_colour = range.start < self.serial.start;
            debug_assert!(
                !in_colour || self.colours.iter().any(|c| c.start <= range.start && range.end <= c.end),
                "{range:?} is not within one colour"
            );
            // SAFETY: `for_each_colour` gives each block of a stage to one member, and a stage
            // begins when the one before is done; the batches of a colour share no moving
            // body, and the colours are stages one after another.
            unsafe { W::run_batches(self.wide.slice_mut(range), &inputs, in_colour) };
        });
    }
}

/// Proof of AVX where joint batches may run two at a time on eight lanes (`None` runs them
/// one at a time on four; always `None` off x86-64).
#[cfg(target_arch = "x86_64")]
pub(crate) type EightLaneProof = Option<Avx>;
/// Proof of AVX where joint batches may run two at a time on eight lanes (`None` runs them
/// one at a time on four; always `None` off x86-64).
#[cfg(not(target_arch = "x86_64"))]
pub(crate) type EightLaneProof = Option<std::convert::Infallible>;

/// What one pass over joint batches reads besides the batches.
pub(crate) struct PassInputs<'a> {
    /// Warm start, solve or relax (the force readout runs no pass).
    pub pass: Pass,
    /// The solver bodies: each side's rotation so far.
    pub bodies: &'a [SolverBody],
    /// Each side's centre's motion so far.
    pub motions: &'a [Motion],
    /// The velocities the pass reads and writes.
    pub velocities: &'a SharedSlice<'a, Velocity>,
    /// The feedback of the rigid rows in this pass.
    pub rigid: SoftLanes,
    /// One over the substep, per lane.
    pub inv_h: f32x4,
    /// Proof of AVX where a type may run two batches of a colour at a time.
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    pub eight_lanes: EightLaneProof,
}

/// Runs the pass `inputs` describes over one batch on four lanes.
///
/// # Safety
/// The batch's sides index `inputs.velocities`, and no other thread accesses the batch's
/// moving sides' velocities until the stage is over (the batch is one of the colour the team
/// works on, or a serial batch run by one member).
#[inline(always)]
pub(crate) unsafe fn run_batch<W: WideJoint>(w: &mut W, inputs: &PassInputs) {
    let motion = w.lanes().motion(inputs.bodies, inputs.motions);
    let turn_w = [motion.turn_a.w, motion.turn_b.w];
    let pose = w.pose(&motion);
    // SAFETY: as the caller guarantees.
    let mut v = unsafe { w.lanes().velocity(inputs.velocities) };
    match inputs.pass {
        Pass::WarmStart => w.warm_start(&mut v, &pose),
        Pass::Solve | Pass::Relax => {
            w.update_mass(turn_w, &pose);
            w.solve(&mut v, &pose, &inputs.rigid, inputs.inv_h);
        }
        Pass::Reaction => {}
    }
    // SAFETY: as above.
    unsafe { w.lanes().store_velocity(inputs.velocities, &v) };
}
