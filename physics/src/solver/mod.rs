//! The soft-step solver: substeps of integrate velocities, warm start, solve with position
//! feedback, integrate positions and relax without it; restitution after the substeps. Joints
//! (`joint.rs`, rows in [`crate::joint`]) and contacts (`contact.rs`) share every stage.

#[cfg(target_arch = "x86_64")]
mod avx;
mod body_parts;
mod colour_schedule;
mod colouring;
mod contact;
mod contact_trace;
mod dense_lcp;
mod direct;
mod gyroscopic;
mod joint;
mod joint_lanes;
#[cfg(feature = "test-support")]
mod lanes;
mod point_joint;
mod point_lanes;
#[cfg(target_arch = "x86_64")]
mod point_pairs;
mod revolute_joint;
mod simd;
mod soft;
mod solve_arrays;
mod spherical_joint;
mod substeps;
#[cfg(test)]
mod test_random;

pub(crate) use body_parts::{BodyParts, MAX_PARTS};
pub(crate) use contact::{ContactSoftness, ContactSolver};
pub use contact_trace::{
    ContactSubstep, ContactTrace, IslandSubstep, IslandTrace, JointSubstep, JointSubsteps, TracePass,
};
pub(crate) use contact_trace::{ContactTracer, TracedJoint};
pub(crate) use direct::{DirectSolver, Feedback, GroupInputs};
pub(crate) use gyroscopic::gyroscopic_step;
pub(crate) use joint::JointSolver;
#[cfg(feature = "test-support")]
pub use lanes::SolverLanes;
pub use soft::Softness;
pub(crate) use substeps::{SpeedCaps, SubstepSettings, TouchingContacts, solve_substeps};

use crate::math::{Mat3, Quat, Vec3};

/// Solver index of every side the solve does not move (the world, static and sleeping
/// bodies): slot 0 of the solver arrays holds an immovable body at rest.
pub(crate) const FIXED_SLOT: u32 = 0;

/// A body as the solver sees it: its rotation so far this step and what moves it. Its
/// velocities and its motion so far live apart, in [`Velocity`] and [`Motion`] arrays with the
/// same indices. Static and sleeping bodies are represented by [`SolverBody::FIXED`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct SolverBody {
    pub inv_mass: f32,
    /// Rotation since the step began.
    pub dq: Quat,
    pub inv_inertia: Mat3,
    /// Per-substep velocity change from gravity and applied force, padded to four floats (the
    /// fourth zero) like a [`Velocity`]'s, which it is added to lane by lane.
    pub dv: [f32; 4],
    /// Per-substep angular velocity change from applied torque, padded like `dv`.
    pub dw: [f32; 4],
    /// Per-substep velocity retention from damping, 1 = none.
    pub linear_retention: f32,
    pub angular_retention: f32,
    /// The solver drove the body past a speed cap this step, and the position stage slowed it
    /// (`StepSettings::max_linear_speed`, `max_angular_speed`). It fits in the padding the
    /// rotation's alignment leaves, so the struct is no larger.
    pub capped: bool,
}

impl SolverBody {
    /// An immovable body at rest.
    pub const FIXED: SolverBody = SolverBody {
        inv_mass: 0.0,
        dq: Quat::IDENTITY,
        inv_inertia: Mat3::ZERO,
        dv: [0.0; 4],
        dw: [0.0; 4],
        linear_retention: 1.0,
        angular_retention: 1.0,
        capped: false,
    };
}

// The flag costs no space: a solver body stays seven 16-byte lines.
const _: () = assert!(std::mem::size_of::<SolverBody>() == 112);

/// Two 3-vectors, each padded to four floats (the fourth stays 0), in 32 aligned bytes: the
/// contact solver loads a body's pair with two 16-byte loads and makes four bodies' worth into
/// lanes with one 4×4 transpose per half. Kept in arrays of their own, a pile's pairs stay
/// small enough for the first cache levels (2870 bodies: 92 KB).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct Vec3Pair {
    pub first: [f32; 4],
    pub second: [f32; 4],
}

// The transpose loads assume exactly two aligned 16-byte halves.
const _: () = assert!(std::mem::size_of::<Vec3Pair>() == 32 && std::mem::align_of::<Vec3Pair>() == 32);

/// A body's velocities: linear first, angular second.
pub(crate) type Velocity = Vec3Pair;

/// A body's motion since the step began: the translation of its centre of mass first, and its
/// rotation as a rotation vector second, the sum of `w · h` over the substeps (the contact
/// solver's linearised view of how far it turned).
pub(crate) type Motion = Vec3Pair;

impl Vec3Pair {
    /// Both zero.
    pub const ZERO: Vec3Pair = Vec3Pair { first: [0.0; 4], second: [0.0; 4] };

    /// The pair `(a, b)`.
    #[inline]
    pub fn new(a: Vec3, b: Vec3) -> Vec3Pair {
        Vec3Pair { first: [a.x, a.y, a.z, 0.0], second: [b.x, b.y, b.z, 0.0] }
    }

    /// The first vector.
    #[inline]
    pub fn first(&self) -> Vec3 {
        Vec3::new(self.first[0], self.first[1], self.first[2])
    }

    /// The second vector.
    #[inline]
    pub fn second(&self) -> Vec3 {
        Vec3::new(self.second[0], self.second[1], self.second[2])
    }
}
