//! The soft step's substeps as one program that every member of a [`Team`] runs: integrate
//! velocities, warm start, solve with position feedback, integrate positions, relax, for every
//! substep, then restitution and storing the impulses. Each stage is cut into blocks the team shares (bodies in ranges,
//! constraints colour by colour) and ends when all its blocks are done, so one thread and many
//! compute the same numbers in the same order per body, bit for bit.

use super::contact::{ContactSolver, SharedContacts};
use super::joint::{JointSolver, SharedJoints};
use super::{Motion, SolverBody, Velocity};
use crate::body::Body;
use crate::joint::Joint;
use crate::math::{Quat, Vec3};
use crate::narrowphase::Contact;
use crate::parallel::SharedSlice;
use crate::parallel::team::BLOCK_BODIES;
use crate::parallel::{Claims, Team, run_team};
use std::sync::atomic::AtomicU32;

/// Work (constraint batches, plus bodies in sixteens) a solve needs before the world's other
/// threads join it: below this, starting them and the waits between its hundreds of stages
/// cost more than they save.
const MIN_WORK_FOR_TEAM: usize = 256;

/// What the substeps need of the step settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepSettings {
    pub substeps: u32,
    /// The substep.
    pub h: f32,
    pub max_angular_speed: f32,
    pub max_push_out_speed: f32,
    pub restitution_threshold: f32,
}

/// The solver bodies, their motion so far and their velocities (same indices), as a team
/// shares them.
pub(crate) struct SolveArrays<'a> {
    pub bodies: SharedSlice<'a, SolverBody>,
    pub motions: SharedSlice<'a, Motion>,
    pub velocities: SharedSlice<'a, Velocity>,
    /// A claim word per block of bodies, for the team.
    pub claims: &'a [AtomicU32],
}

impl<'a> SolveArrays<'a> {
    /// Shares the three arrays (of the same length) for one solve.
    pub fn new(
        bodies: &'a mut [SolverBody],
        motions: &'a mut [Motion],
        velocities: &'a mut [Velocity],
        claims: &'a mut Claims,
    ) -> SolveArrays<'a> {
        assert!(bodies.len() == motions.len() && bodies.len() == velocities.len());
        claims.reset(bodies.len().div_ceil(BLOCK_BODIES));
        SolveArrays {
            bodies: SharedSlice::new(bodies),
            motions: SharedSlice::new(motions),
            velocities: SharedSlice::new(velocities),
            claims: claims.words(),
        }
    }
}

/// What the contact and joint solvers were prepared from, to fill their batches from.
pub(crate) struct TouchingContacts<'a> {
    /// Every contact, by id (the touching ones get their impulses back at the end).
    pub contacts: &'a mut [Contact],
    /// The touching contacts' ids, in contact order ([`crate::world`]'s touching list).
    pub ids: &'a [u32],
    /// The solver bodies' centres of mass at the start of the step.
    pub centers: &'a [Vec3],
    /// Every joint, by slot: the plain ball joints' poses are read from it, and the batched
    /// joints' impulses stored back into it.
    pub joints: &'a mut [Joint],
    /// Every body, by slot.
    pub bodies: &'a [Body],
}

/// Fills the joint and contact batches, runs the substeps and restitution over `bodies` (with
/// their velocities and motions), `joints` and `contacts`, prepared for this step, on the caller's thread with the helper
/// threads of `pool` when there is enough work for them, else on the caller's thread alone.
/// The result is the same either way.
#[allow(clippy::too_many_arguments)]
pub(crate) fn solve_substeps(
    pool: Option<&rayon::ThreadPool>,
    settings: &SubstepSettings,
    bodies: &mut [SolverBody],
    motions: &mut [Motion],
    velocities: &mut [Velocity],
    body_claims: &mut Claims,
    joints: &mut JointSolver,
    contacts: &mut ContactSolver,
    touching: TouchingContacts,
) {
    let work = contacts.batch_count() + joints.batch_count() + bodies.len() / 16;
    let arrays = SolveArrays::new(bodies, motions, velocities, body_claims);
    let joints = joints.share(touching.joints, touching.bodies);
    let contacts = contacts.share(touching.contacts, touching.ids, touching.centers);
    let helpers = pool.filter(|_| work >= MIN_WORK_FOR_TEAM);
    run_team(helpers, |team| run_substeps(team, settings, &arrays, &joints, &contacts));
}

/// One member's run through every stage of the substeps. Joints go first in each stage, so the
/// contacts, solved last, have the final word on penetration.
fn run_substeps(
    team: &Team,
    s: &SubstepSettings,
    arrays: &SolveArrays,
    joints: &SharedJoints,
    contacts: &SharedContacts,
) {
    let inv_h = 1.0 / s.h;
    joints.fill(team, arrays);
    contacts.fill(team, &arrays.bodies, &arrays.velocities);
    for _ in 0..s.substeps {
        integrate_velocities(team, arrays, s.max_angular_speed);
        joints.warm_start(team, arrays);
        contacts.warm_start(team, &arrays.velocities);
        joints.solve(team, arrays, true);
        contacts.solve(team, &arrays.motions, &arrays.velocities, inv_h, s.max_push_out_speed, true);
        integrate_positions(team, arrays, s.h);
        joints.solve(team, arrays, false);
        contacts.solve(team, &arrays.motions, &arrays.velocities, inv_h, s.max_push_out_speed, false);
    }
    contacts.apply_restitution(team, &arrays.velocities, s.restitution_threshold);
    contacts.store(team);
    joints.store(team, arrays);
}

/// Adds gravity, forces and damping for one substep, to this member's share of the bodies.
fn integrate_velocities(team: &Team, arrays: &SolveArrays, max_angular_speed: f32) {
    team.for_blocks(arrays.bodies.len(), BLOCK_BODIES, arrays.claims, |block| {
        // SAFETY: solver bodies are only read in this stage; each block's velocities are its
        // member's alone.
        let (bodies, velocities) =
            unsafe { (arrays.bodies.as_slice(), arrays.velocities.slice_mut(block.clone())) };
        for (b, vel) in bodies[block].iter().zip(velocities.iter_mut()).filter(|(b, _)| b.inv_mass > 0.0) {
            let v = (vel.first() + b.dv) * b.linear_retention;
            let mut w = (vel.second() + b.dw) * b.angular_retention;
            let speed = w.length();
            if speed > max_angular_speed {
                w *= max_angular_speed / speed;
            }
            *vel = Velocity::new(v, w);
        }
    });
}

/// Moves this member's share of the bodies by their velocity for one substep.
fn integrate_positions(team: &Team, arrays: &SolveArrays, h: f32) {
    team.for_blocks(arrays.bodies.len(), BLOCK_BODIES, arrays.claims, |block| {
        // SAFETY: velocities are only read in this stage; each block's solver bodies and
        // motions are its member's alone.
        let (bodies, motions, velocities) = unsafe {
            (
                arrays.bodies.slice_mut(block.clone()),
                arrays.motions.slice_mut(block.clone()),
                arrays.velocities.as_slice(),
            )
        };
        for ((b, vel), motion) in bodies.iter_mut().zip(&velocities[block]).zip(motions.iter_mut()) {
            let (v, w) = (vel.first(), vel.second());
            *motion = Motion::new(motion.first() + v * h, motion.second() + w * h);
            // First-order quaternion integration, renormalised: accurate for the small angles
            // of one substep and cheap.
            let spin = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * b.dq;
            b.dq = (b.dq + spin * (0.5 * h)).normalize();
        }
    });
}
