//! The soft-step solver: substeps of integrate velocities, warm start, solve with position
//! feedback, integrate positions and relax without it; restitution after the substeps.

mod colouring;
mod contact;
mod simd;
mod soft;

pub(crate) use contact::{ContactSoftness, ContactSolver};
pub use soft::Softness;

use crate::math::{Mat3, Quat, Vec3};

/// A body as the solver sees it: velocities and the motion accumulated during this step.
/// Static and sleeping bodies are represented by [`SolverBody::FIXED`].
///
/// The fields a contact batch reads on every pass (velocities and motion so far) come first,
/// in declaration order, and the struct starts a cache line, so they share one line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct SolverBody {
    pub v: Vec3,
    pub w: Vec3,
    /// Translation of the centre of mass since the step began.
    pub dp: Vec3,
    /// Rotation since the step began as a rotation vector, the sum of `w · h` over the substeps:
    /// the contact solver's linearised view of how far each body turned.
    pub dtheta: Vec3,
    pub inv_mass: f32,
    /// Rotation since the step began.
    pub dq: Quat,
    pub inv_inertia: Mat3,
    /// Per-substep velocity change from gravity and applied force.
    pub dv: Vec3,
    /// Per-substep angular velocity change from applied torque.
    pub dw: Vec3,
    /// Per-substep velocity retention from damping, 1 = none.
    pub linear_retention: f32,
    pub angular_retention: f32,
}

impl SolverBody {
    /// An immovable body at rest.
    pub const FIXED: SolverBody = SolverBody {
        v: Vec3::ZERO,
        w: Vec3::ZERO,
        dp: Vec3::ZERO,
        dtheta: Vec3::ZERO,
        dq: Quat::IDENTITY,
        inv_mass: 0.0,
        inv_inertia: Mat3::ZERO,
        dv: Vec3::ZERO,
        dw: Vec3::ZERO,
        linear_retention: 1.0,
        angular_retention: 1.0,
    };
}

/// Adds gravity, forces and damping for one substep.
pub(crate) fn integrate_velocities(bodies: &mut [SolverBody], max_angular_speed: f32) {
    for b in bodies.iter_mut().filter(|b| b.inv_mass > 0.0) {
        b.v = (b.v + b.dv) * b.linear_retention;
        b.w = (b.w + b.dw) * b.angular_retention;
        let speed = b.w.length();
        if speed > max_angular_speed {
            b.w *= max_angular_speed / speed;
        }
    }
}

/// Moves every body by its velocity for one substep.
pub(crate) fn integrate_positions(bodies: &mut [SolverBody], h: f32) {
    for b in bodies.iter_mut() {
        b.dp += b.v * h;
        b.dtheta += b.w * h;
        // First-order quaternion integration, renormalised: accurate for the small angles of
        // one substep and cheap.
        let spin = Quat::from_xyzw(b.w.x, b.w.y, b.w.z, 0.0) * b.dq;
        b.dq = (b.dq + spin * (0.5 * h)).normalize();
    }
}
