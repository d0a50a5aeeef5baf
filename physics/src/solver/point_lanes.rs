//! Plain ball joints in lanes: one joint per `f32x4` lane (or eight-lane) of a batch, the
//! batch's pose and its point block's mass, generic over the lane width so the four-lane passes
//! (`point_joint.rs`) and the eight-lane pairs (`point_pairs.rs`) share them.
//!
//! A lane is the scalar point block of `joint/rows.rs`: the arms are turned by each body's
//! exact rotation so far this step (its solver quaternion, gathered per lane). The contacts'
//! linearised rotation vector is not enough here: a joint pulled hard turns its body by tens of
//! degrees in a substep, and arms turned to first order then disagree with the velocities
//! enough to feed energy in (a 3 m violation blew up in one step).
//!
//! The point block's mass is kept from the step's start while it is provably close enough to
//! the exact mass at the turned arms, and computed again each pass after (inverting it in
//! every pass was a tenth of the joint grid's instructions, whose bodies turn little). "Close
//! enough" is a bound, not an angle: a pass with a kept mass `M₀` on the block `K₁` leaves the
//! share `‖I − K₁ M₀‖ = ‖(K₀ − K₁) M₀‖` of the anchors' relative velocity, and
//! [`pass_mass`] keeps `M₀` only while a bound on that share is at most [`KEPT_MASS_ERROR`]. An angle
//! alone (the old rule kept the mass until a side turned 10°) cannot be safe: the error grows
//! with `K`'s condition number, which the arm's length squared over the body's inertia sets.
//! A 5 cm ball 1.5 m below a ball joint has a block 2 250 times stiffer across the arm than
//! along it, so 3° of swing in a step put the kept mass's error past 100 and every pass
//! multiplied the anchors' velocity error instead of removing it (5.8 × 10⁹ m/s in seconds).

use super::SolverBody;
use super::colouring::EMPTY_LANE;
use super::joint_lanes::{JointLanes, LaneMotion, SideMasses};
use super::simd::{Lanes, SymMat3x4, SymMatLanes, Vec3Lanes, Vec3x4};
use crate::math::Vec3;

/// One plain ball joint as prepared for the step, before it is put in a lane.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PointJoint {
    /// The joint's slot.
    pub joint: u32,
    /// Solver indices of its sides.
    pub bodies: (u32, u32),
    /// Anchors from the centres of mass at the start of the step, world axes.
    pub arm_a: Vec3,
    pub arm_b: Vec3,
    /// B's centre minus A's at the start of the step.
    pub delta_center: Vec3,
    /// Last step's impulse (warm start).
    pub impulse: Vec3,
}

/// Four plain ball joints, one per lane.
#[derive(Clone, Debug, Default)]
pub(crate) struct WidePointJoint {
    pub(super) lanes: JointLanes,
    pub(super) arm_a: Vec3x4,
    pub(super) arm_b: Vec3x4,
    pub(super) delta_center: Vec3x4,
    pub(super) impulse: Vec3x4,
    /// The point block's mass: at the step's start's arms while it is close enough to the
    /// exact one ([`pass_mass`]), then at the arms of each pass.
    pub(super) mass: SymMat3x4,
}

/// A batch's pose: the turned arms and the anchors' separation.
pub(super) type PointPose<L> = ((Vec3Lanes<L>, Vec3Lanes<L>), Vec3Lanes<L>);

/// The arms `arm_a` and `arm_b` (from the step's start) turned by each side's rotation so
/// far, and the anchors' separation (the centres `delta_center` apart at the start).
#[inline(always)]
pub(super) fn point_pose<L: Lanes>(
    (arm_a, arm_b): (Vec3Lanes<L>, Vec3Lanes<L>),
    delta_center: Vec3Lanes<L>,
    m: &LaneMotion<L>,
) -> PointPose<L> {
    let arms = (m.turn_a.rotate(arm_a), m.turn_b.rotate(arm_b));
    (arms, delta_center + m.moved_b - m.moved_a + arms.1 - arms.0)
}

/// The largest share of the anchors' relative velocity a pass with a kept point block mass
/// may leave where the exact mass would leave none. A pass then still removes at least three
/// quarters of it, and a soft pass (mass scale `s`) at least `s (1 − 0.25)`. The joint grid
/// keeps its masses through nearly every pass either way: with a half in place of a quarter
/// its step ran the same instructions (callgrind, `step_count joint-grid 30 3`, 254.4 M).
pub(super) const KEPT_MASS_ERROR: f32 = 0.25;

/// The point block's mass for a pass, where it changes: in each batch (four lanes) where
/// the mass `mass`, exact at the step's start, may now be off by more than
/// [`KEPT_MASS_ERROR`], the mass at the turned `arms`; elsewhere `mass`, kept. `None` where
/// no batch needs it. `turn_w` is the real part of each side's rotation since the step began.
///
/// The bound: a side turned by `θ` moves its arm `r` by `d`, `|d| = 2 |r| sin(θ/2)`, and
/// changes its part of the block `[r]×ᵀ I⁻¹ [r]×` by at most `‖I⁻¹‖ (2 |r| |d| + |d|²)`
/// `= 4 ‖I⁻¹‖ |r|² (s + s²)`, `s = sin(θ/2) = √(1 − w²)`; `‖I⁻¹‖` is at most its largest
/// row sum of magnitudes (exact for the diagonal inverse inertia of a ball or an upright
/// box, where the trace was three times a ball's). The
/// kept mass is the inverse of the block at the start, at most `1 / (m_a⁻¹ + m_b⁻¹)` since the
/// arms' parts are positive semidefinite. Their product bounds `‖(K₀ − K₁) M₀‖`. The world
/// inverse inertias are the step's start's in both the block and the passes, so the arms are
/// all that moves.
#[inline(always)]
pub(super) fn pass_mass<L: Lanes>(
    masses: &SideMasses<L>,
    mass: &SymMatLanes<L>,
    [turn_a, turn_b]: [L; 2],
    arms: (Vec3Lanes<L>, Vec3Lanes<L>),
) -> Option<SymMatLanes<L>> {
    // No closures here: a closure does not take on the AVX features of the function it is
    // made in, and its lane operations would be calls (the joint grid's instructions rose by
    // half with them).
    let allowed = (masses.inv_mass_a + masses.inv_mass_b) * turn_a.splat_like(KEPT_MASS_ERROR / 4.0);
    let change =
        side_drift(turn_a, arms.0, &masses.inv_inertia_a) + side_drift(turn_b, arms.1, &masses.inv_inertia_b);
    let off = change.simd_gt(allowed).any_per_batch();
    if off.any() { Some(SymMatLanes::select(off, &masses.point_mass(arms.0, arms.1), mass)) } else { None }
}

/// A quarter of the bound [`pass_mass`] puts on how far one side's part of the point block
/// moved: `‖I⁻¹‖ |r|² (s + s²)` for a side turned by `w` (the real part of its rotation,
/// `s = sin(θ/2) = √(1 − w²)`, the same for `-w`) with arm `arm`.
#[inline(always)]
fn side_drift<L: Lanes>(w: L, arm: Vec3Lanes<L>, inv_inertia: &SymMatLanes<L>) -> L {
    let s = (w.splat_like(1.0) - w * w).fast_max(w.splat_like(0.0)).sqrt();
    (s + s * s) * arm.dot(arm) * inv_inertia.largest_row_sum()
}

/// Fills batch `w` with the joints of `lanes` (indices into `joints`) and the masses of
/// `bodies` (the solver bodies).
pub(crate) fn fill_batch(
    w: &mut WidePointJoint,
    lanes: &[u32; 4],
    joints: &[PointJoint],
    bodies: &[SolverBody],
) {
    for (k, &lane) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
        let j = &joints[lane as usize];
        w.lanes.set_lane(k, j.joint, j.bodies, bodies);
        w.arm_a.set_lane(k, j.arm_a);
        w.arm_b.set_lane(k, j.arm_b);
        w.delta_center.set_lane(k, j.delta_center);
        w.impulse.set_lane(k, j.impulse);
    }
    w.mass = w.lanes.masses.point_mass(w.arm_a, w.arm_b);
}
