//! Plain ball joints (spherical joints without limits, springs or friction: a point constraint
//! and nothing else), four at a time. They are the joints of chains, nets and grids, where
//! there are thousands of them, so they get what the contacts have: graph colouring into
//! batches of four that share no moving body (`colouring.rs`) and one `f32x4` lane per joint
//! (`point_lanes.rs`: the lanes' pose and mass), and, where the CPU has AVX, two batches of a
//! colour at a time on eight lanes (`point_pairs.rs`).
//!
//! The batches follow the joint order, so the result is the same on every run and for every
//! thread count.

use super::joint_lanes::{
    JointLanes, LaneMotion, LaneVelocity, PassInputs, SoftLanes, WideJoint, WideJoints, run_batch,
};
use super::point_lanes::{PointJoint, PointPose, WidePointJoint, pass_mass, point_pose};
use super::simd::f32x4;
use super::{Motion, SolverBody};
use crate::joint::Joint;
use crate::math::Vec3;

impl WideJoint for WidePointJoint {
    type Pose = PointPose<f32x4>;

    fn lanes(&self) -> &JointLanes {
        &self.lanes
    }

    #[inline(always)]
    fn pose(&self, m: &LaneMotion) -> Self::Pose {
        point_pose((self.arm_a, self.arm_b), self.delta_center, m)
    }

    #[inline(always)]
    fn warm_start(&self, v: &mut LaneVelocity, (arms, _): &Self::Pose) {
        self.lanes.masses.apply_point(v, *arms, self.impulse);
    }

    #[inline(always)]
    fn update_mass(&mut self, turn_w: [f32x4; 2], (arms, _): &Self::Pose) {
        // Once the kept mass may be too far off, it follows the arms every pass.
        if let Some(mass) = pass_mass(&self.lanes.masses, &self.mass, turn_w, *arms) {
            self.mass = mass;
        }
    }

    #[inline(always)]
    fn solve(&mut self, v: &mut LaneVelocity, (arms, separation): &Self::Pose, rigid: &SoftLanes, _: f32x4) {
        self.lanes.masses.solve_point_with_mass(v, *arms, *separation, &self.mass, rigid, &mut self.impulse);
    }

    /// The impulse and the force (impulse over the substep); a plain ball joint carries no
    /// torque, motor or limit.
    fn store(&self, _: &[SolverBody], _: &[Motion], h: f32, joints: [Option<&mut Joint>; 4]) {
        for (k, j) in joints.into_iter().enumerate() {
            let Some(j) = j else { continue };
            j.impulses.point = self.impulse.lane(k);
            j.force = j.impulses.point / h;
            j.torque = Vec3::ZERO;
            j.motor_load = 0.0;
            j.limit_active = false;
        }
    }

    /// Two batches at a time on eight lanes where the CPU has AVX and the batches are one
    /// colour's (`point_pairs.rs`), else one at a time on four.
    #[inline(always)]
    unsafe fn run_batches(batches: &mut [Self], inputs: &PassInputs, in_colour: bool) {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = inputs.eight_lanes.filter(|_| in_colour) {
            // SAFETY: as the caller guarantees; `avx` proves the CPU has AVX.
            unsafe { super::point_pairs::run_pairs(avx, batches, inputs) };
            return;
        }
        // Read on x86-64 only.
        let _ = in_colour;
        for w in batches {
            // SAFETY: as the caller guarantees.
            unsafe { run_batch(w, inputs) };
        }
    }
}

/// The plain ball joints of a step, coloured into batches of four.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointJointSolver {
    pub batches: WideJoints<WidePointJoint>,
}

impl PointJointSolver {
    /// Colours `joints` (in joint order; only their sides are read) into batches, filled by the
    /// solve's team ([`fill_batch`]); `movable` marks the solver bodies the solver moves; `h`
    /// is the substep.
    pub fn colour(&mut self, joints: &[PointJoint], movable: &[bool], h: f32) {
        self.batches.colour(joints, |j| j.bodies, movable, h);
    }
}
