//! The soft-step solver: substeps of integrate velocities, warm start, solve with position
//! feedback, integrate positions and relax without it; restitution after the substeps.

mod colouring;
mod contact;
mod simd;
mod soft;

pub(crate) use contact::{ContactSoftness, ContactSolver};
pub use soft::Softness;

use crate::math::{Mat3, Quat, Vec3};

/// A body as the solver sees it: the motion accumulated during this step and what moves it.
/// Its velocities live apart, in [`Velocity`]. Static and sleeping bodies are represented by
/// [`SolverBody::FIXED`].
///
/// The fields a contact batch reads on every pass (the motion so far) come first, in
/// declaration order, and the struct starts a cache line.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(64))]
pub(crate) struct SolverBody {
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
        dp: Vec3::ZERO,
        dtheta: Vec3::ZERO,
        inv_mass: 0.0,
        dq: Quat::IDENTITY,
        inv_inertia: Mat3::ZERO,
        dv: Vec3::ZERO,
        dw: Vec3::ZERO,
        linear_retention: 1.0,
        angular_retention: 1.0,
    };
}

/// A body's linear and angular velocity, each padded to four floats (the fourth stays 0), in
/// 32 aligned bytes: the contact solver loads a body with two 16-byte loads and four bodies'
/// worth becomes lanes with one 4×4 transpose, and a pile's velocities stay small enough for
/// the first cache levels (2870 bodies: 92 KB).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct Velocity {
    pub linear: [f32; 4],
    pub angular: [f32; 4],
}

impl Velocity {
    /// At rest.
    pub const ZERO: Velocity = Velocity { linear: [0.0; 4], angular: [0.0; 4] };

    /// The velocities `v` (linear) and `w` (angular).
    #[inline]
    pub fn new(v: Vec3, w: Vec3) -> Velocity {
        Velocity { linear: [v.x, v.y, v.z, 0.0], angular: [w.x, w.y, w.z, 0.0] }
    }

    /// Linear velocity.
    #[inline]
    pub fn v(&self) -> Vec3 {
        Vec3::new(self.linear[0], self.linear[1], self.linear[2])
    }

    /// Angular velocity.
    #[inline]
    pub fn w(&self) -> Vec3 {
        Vec3::new(self.angular[0], self.angular[1], self.angular[2])
    }
}

/// Adds gravity, forces and damping for one substep.
pub(crate) fn integrate_velocities(
    bodies: &[SolverBody],
    velocities: &mut [Velocity],
    max_angular_speed: f32,
) {
    for (b, vel) in bodies.iter().zip(velocities.iter_mut()).filter(|(b, _)| b.inv_mass > 0.0) {
        let v = (vel.v() + b.dv) * b.linear_retention;
        let mut w = (vel.w() + b.dw) * b.angular_retention;
        let speed = w.length();
        if speed > max_angular_speed {
            w *= max_angular_speed / speed;
        }
        *vel = Velocity::new(v, w);
    }
}

/// Moves every body by its velocity for one substep.
pub(crate) fn integrate_positions(bodies: &mut [SolverBody], velocities: &[Velocity], h: f32) {
    for (b, vel) in bodies.iter_mut().zip(velocities) {
        let (v, w) = (vel.v(), vel.w());
        b.dp += v * h;
        b.dtheta += w * h;
        // First-order quaternion integration, renormalised: accurate for the small angles of
        // one substep and cheap.
        let spin = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * b.dq;
        b.dq = (b.dq + spin * (0.5 * h)).normalize();
    }
}
