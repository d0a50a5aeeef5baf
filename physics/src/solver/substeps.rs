//! The soft step's substeps as one program that every member of a [`Team`] runs: integrate
//! velocities, warm start, solve with position feedback, integrate positions, relax, for every
//! substep, then restitution and storing the impulses. Each stage is cut into blocks the team
//! shares (bodies in ranges, constraints colour by colour) and ends when all its blocks are
//! done; or, for contacts alone cut into parts, the stages run as a pipeline of the parts
//! ([`Team::pipeline`]), each part waiting for the others only where their bodies meet. Either
//! way one thread and many compute the same numbers in the same order per body, bit for bit.

use super::contact::{ContactPasses, ContactSolver, PassKind, SharedContacts, SolveKind};
use super::contact_trace::{ContactTracer, TracePass};
use super::direct::{DirectSolver, Projection, SharedDirect};
use super::joint::{JointSolver, SharedJoints};
use super::solve_arrays::SolveArrays;
use super::{Motion, SolverBody, Velocity};
use crate::body::Body;
use crate::joint::Joint;
use crate::math::{Quat, Vec3};
use crate::narrowphase::Contact;
use crate::parallel::SharedSlice;
use crate::parallel::{Claims, Pipeline, Team, Unit, run_team};
use crate::team_policy::{BLOCK_BODIES, MIN_BATCHES_FOR_TEAM};
use std::ops::Range;
use std::sync::{Mutex, PoisonError};
use wide::f32x4;

/// The fastest a body may move and turn, m/s and rad/s (`StepSettings::max_linear_speed` and
/// `max_angular_speed`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct SpeedCaps {
    pub linear: f32,
    pub angular: f32,
}

/// What the substeps need of the step settings.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SubstepSettings {
    pub substeps: u32,
    /// The substep.
    pub h: f32,
    /// The speeds the position stage holds every body to (the solve may drive one past them);
    /// the velocity stage holds spins to the angular one.
    pub caps: SpeedCaps,
    pub max_push_out_speed: f32,
    pub restitution_threshold: f32,
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
    trace: Option<&Mutex<ContactTracer>>,
    settings: &SubstepSettings,
    bodies: &mut [SolverBody],
    motions: &mut [Motion],
    velocities: &mut [Velocity],
    body_claims: &mut Claims,
    joints: &mut JointSolver,
    contacts: &mut ContactSolver,
    direct: &mut DirectSolver,
    touching: TouchingContacts,
) {
    let work = contacts.batch_count() + joints.batch_count();
    let jointless = joints.batch_count() == 0;
    // A trace reads the lanes between stages: the caller's thread alone, which changes no
    // result (`solver/contact_trace.rs`).
    let helpers = pool.filter(|_| work >= MIN_BATCHES_FOR_TEAM && trace.is_none());
    // Contacts alone, cut into parts, on a team, with no group solved directly: the substeps
    // run as a pipeline of the parts.
    let pipelined = contacts.pipeline_parts().filter(|_| jointless && helpers.is_some() && direct.is_empty());
    contacts.note_pipelined(pipelined.unwrap_or(0));
    let arrays = SolveArrays::new(bodies, motions, velocities, body_claims);
    let joints = joints.share(touching.joints, touching.bodies);
    let contacts = contacts.share(touching.contacts, touching.ids, touching.centers);
    let direct = direct.share();
    let pipeline = pipelined.map(Pipeline::new);
    run_team(helpers, |team| match &pipeline {
        Some(pipeline) => run_substeps_pipelined(team, settings, &arrays, &contacts, pipeline),
        None => run_substeps(team, settings, &arrays, &joints, &contacts, &direct, trace),
    });
}

/// What one stage of a pipelined solve does ([`run_substeps_pipelined`]).
#[derive(Clone, Copy, Debug, PartialEq)]
enum PipelineStage {
    /// The velocity stage of a substep (the first's clears the pending warm starts, the
    /// others' add them).
    Velocities { first: bool },
    /// A contact pass's colour.
    Colour(PassKind, usize),
    /// The position stage of a substep.
    Positions,
}

/// Stage `index` of a pipelined solve of `substeps` substeps over `colours` colours: per
/// substep the velocities, the warm start's colours (the first substep only), the solve's,
/// the positions, the relax's.
fn pipeline_stage(index: usize, colours: usize, substeps: u32) -> PipelineStage {
    let first_len = 2 + 3 * colours;
    let (substep, j) = if index < first_len {
        (0, index)
    } else {
        let rest = index - first_len;
        (1 + rest / (2 + 2 * colours), rest % (2 + 2 * colours))
    };
    let warm = if substep == 0 { colours } else { 0 };
    let relax =
        if substep + 1 < substeps as usize { SolveKind::RelaxLeavingWarmStart } else { SolveKind::Relax };
    match j {
        0 => PipelineStage::Velocities { first: substep == 0 },
        j if j <= warm => PipelineStage::Colour(PassKind::WarmStart, j - 1),
        j if j <= warm + colours => PipelineStage::Colour(PassKind::Solve(SolveKind::Solve), j - 1 - warm),
        j if j == warm + colours + 1 => PipelineStage::Positions,
        j => PipelineStage::Colour(PassKind::Solve(relax), j - 2 - warm - colours),
    }
}

/// Stages of a pipelined solve of `substeps` substeps over `colours` colours.
fn pipeline_stages(colours: usize, substeps: u32) -> usize {
    if substeps == 0 { 0 } else { (2 + 3 * colours) + (substeps as usize - 1) * (2 + 2 * colours) }
}

/// [`run_substeps`] for a solve of contacts alone cut into parts: the stages between the fill
/// and restitution run as one pipeline of the parts ([`Team::pipeline`]), each part's body
/// stages on its own bodies, its colours' contacts that reach other parts' bodies first, and
/// the same numbers, bit for bit.
fn run_substeps_pipelined(
    team: &Team,
    s: &SubstepSettings,
    arrays: &SolveArrays,
    contacts: &SharedContacts,
    pipeline: &Pipeline,
) {
    contacts.fill(team, &arrays.bodies, &arrays.velocities);
    debug_assert_eq!(contacts.pending().len(), arrays.bodies.len(), "a pending warm start per solver body");
    let passes = contacts.passes(&arrays.motions, &arrays.velocities, 1.0 / s.h, s.max_push_out_speed);
    let colours = contacts.colour_count();
    let pending = contacts.pending();
    team.pipeline(pipeline, pipeline_stages(colours, s.substeps), |part, stage, unit| {
        pipeline_unit(
            arrays,
            contacts,
            &passes,
            pending,
            s,
            part,
            pipeline_stage(stage, colours, s.substeps),
            unit,
        )
    });
    contacts.apply_restitution(team, &arrays.velocities, s.restitution_threshold);
    contacts.store(team);
}

/// One part's unit of one stage of a pipelined solve.
#[allow(clippy::too_many_arguments)]
fn pipeline_unit(
    arrays: &SolveArrays,
    contacts: &SharedContacts,
    passes: &ContactPasses,
    pending: &SharedSlice<Velocity>,
    s: &SubstepSettings,
    part: usize,
    stage: PipelineStage,
    unit: Unit,
) {
    let bodies = || contacts.part_bodies(part, arrays.bodies.len());
    match (stage, unit) {
        // A body stage's work is all edge: its bodies are the ones the other parts' edge units
        // of the stages around it reach.
        (PipelineStage::Velocities { first }, Unit::Edge) => {
            let pending = if first { Pending::Clear(pending) } else { Pending::AddAndClear(pending) };
            // SAFETY: the part's bodies are its unit's alone in this stage (the pipeline's
            // rule: the other parts' edge units of the stages around it wait for it, or it for
            // them).
            unsafe { integrate_velocity_block(arrays, bodies(), s.caps.angular, pending) };
        }
        (PipelineStage::Positions, Unit::Edge) => {
            // SAFETY: as above.
            unsafe { integrate_position_block(arrays, bodies(), s.h, s.caps) };
        }
        (PipelineStage::Velocities { .. } | PipelineStage::Positions, Unit::Inner) => {}
        // SAFETY: the pipeline runs the units by its rule, as `run_unit` asks.
        (PipelineStage::Colour(pass, colour), unit) => unsafe {
            contacts.run_unit(passes, pass, colour, part, unit)
        },
    }
}

/// One member's run through every stage of the substeps. Joints go first in each stage, so the
/// contacts, solved last, have the final word on penetration; after the first substep, the
/// contacts' warm start comes before the joints', with the velocities (the relax before left it).
/// The groups solved directly are projected after the passes of the solve and of the relax.
fn run_substeps(
    team: &Team,
    s: &SubstepSettings,
    arrays: &SolveArrays,
    joints: &SharedJoints,
    contacts: &SharedContacts,
    direct: &SharedDirect,
    trace: Option<&Mutex<ContactTracer>>,
) {
    let inv_h = 1.0 / s.h;
    let sample = |substep: u32, pass: TracePass| {
        if let Some(trace) = trace {
            trace.lock().unwrap_or_else(PoisonError::into_inner).sample(
                contacts,
                &arrays.bodies,
                &arrays.velocities,
                substep,
                pass,
            );
        }
    };
    joints.fill(team, arrays);
    contacts.fill(team, &arrays.bodies, &arrays.velocities);
    let (v, m) = (&arrays.velocities, &arrays.motions);
    debug_assert_eq!(contacts.pending().len(), arrays.bodies.len(), "a pending warm start per solver body");
    for substep in 0..s.substeps {
        let first = substep == 0;
        // The contacts' warm start: the first substep's from the filled impulses, a pass over
        // the colours; the others' as the relax before left it, with the velocities.
        let pending = match (contacts.is_empty(), first) {
            (true, _) => Pending::None,
            (false, true) => Pending::Clear(contacts.pending()),
            (false, false) => Pending::AddAndClear(contacts.pending()),
        };
        integrate_velocities(team, arrays, s.caps.angular, pending);
        joints.warm_start(team, arrays);
        if first {
            contacts.warm_start(team, v);
        }
        joints.solve(team, arrays, true);
        contacts.solve(team, m, v, inv_h, s.max_push_out_speed, SolveKind::Solve);
        direct.project(team, arrays, Projection::Solve);
        sample(substep, TracePass::Solve);
        integrate_positions(team, arrays, s.h, s.caps);
        joints.solve(team, arrays, false);
        let relax =
            if substep + 1 < s.substeps { SolveKind::RelaxLeavingWarmStart } else { SolveKind::Relax };
        contacts.solve(team, m, v, inv_h, s.max_push_out_speed, relax);
        direct.project(team, arrays, Projection::Relax);
        sample(substep, TracePass::Relax);
    }
    contacts.apply_restitution(team, &arrays.velocities, s.restitution_threshold);
    contacts.store(team);
    joints.store(team, arrays);
}

/// What the velocity stage does with the contacts' pending warm starts
/// ([`SharedContacts::pending`], one per solver body).
#[derive(Clone, Copy)]
enum Pending<'s, 'a> {
    /// No contact is solved: nothing is pending, and nothing will be.
    None,
    /// The first substep: none yet; they are zeroed for the relax to add to.
    Clear(&'s SharedSlice<'a, Velocity>),
    /// Each is added to its body's velocity, then zeroed.
    AddAndClear(&'s SharedSlice<'a, Velocity>),
}

/// Adds gravity, forces and damping for one substep, then the contacts' warm start the relax
/// before left (`pending`), to this member's share of the bodies.
fn integrate_velocities(team: &Team, arrays: &SolveArrays, max_angular_speed: f32, pending: Pending) {
    team.for_blocks(arrays.bodies.len(), BLOCK_BODIES, arrays.claims, |block| {
        // SAFETY: solver bodies are only read in this stage; each block's velocities and
        // pending warm starts are its member's alone.
        unsafe { integrate_velocity_block(arrays, block, max_angular_speed, pending) }
    });
}

/// [`integrate_velocities`] of the solver bodies `block`.
///
/// # Safety
/// No other thread writes these solver bodies, or reads or writes their velocities and
/// pending warm starts, until it returns.
#[inline(always)]
unsafe fn integrate_velocity_block(
    arrays: &SolveArrays,
    block: Range<usize>,
    max_angular_speed: f32,
    pending: Pending,
) {
    // SAFETY: as the caller guarantees.
    let (bodies, velocities) =
        unsafe { (arrays.bodies.slice(block.clone()), arrays.velocities.slice_mut(block.clone())) };
    let add = matches!(pending, Pending::AddAndClear(_));
    let (Pending::Clear(slots) | Pending::AddAndClear(slots)) = pending else {
        for (b, vel) in bodies.iter().zip(velocities.iter_mut()).filter(|(b, _)| b.inv_mass > 0.0) {
            *vel = advance_velocity(b, vel, max_angular_speed);
        }
        return;
    };
    // SAFETY: as above.
    let pending = unsafe { slots.slice_mut(block) };
    let bodies = bodies.iter().zip(velocities.iter_mut()).zip(pending.iter_mut());
    if add {
        for ((b, vel), pending) in bodies {
            if b.inv_mass > 0.0 {
                *vel = add_pending(&advance_velocity(b, vel, max_angular_speed), pending);
            }
            *pending = Velocity::ZERO;
        }
    } else {
        for ((b, vel), pending) in bodies {
            if b.inv_mass > 0.0 {
                *vel = advance_velocity(b, vel, max_angular_speed);
            }
            *pending = Velocity::ZERO;
        }
    }
}

/// `vel` with the warm start `pending` added, component by component.
#[inline]
fn add_pending(vel: &Velocity, pending: &Velocity) -> Velocity {
    let v = f32x4::new(vel.first) + f32x4::new(pending.first);
    let w = f32x4::new(vel.second) + f32x4::new(pending.second);
    Velocity { first: v.to_array(), second: w.to_array() }
}

/// A moving body's velocity `vel` after one substep's forces and damping, its spin capped at
/// `max_angular_speed`. Each vector on four lanes (the padding lane stays zero): the same
/// operations per component as on three, so the same bits (`advance_velocity_one_by_one` in
/// the tests), in fewer instructions: the body stages were a sixth of a field of falling
/// bodies' step.
#[inline]
fn advance_velocity(b: &SolverBody, vel: &Velocity, max_angular_speed: f32) -> Velocity {
    let v = (f32x4::new(vel.first) + f32x4::new(b.dv)) * f32x4::splat(b.linear_retention);
    let mut w = (f32x4::new(vel.second) + f32x4::new(b.dw)) * f32x4::splat(b.angular_retention);
    // The length as `Vec3::length` sums it: x² + y², then z².
    let [x, y, z, _] = (w * w).to_array();
    let speed = (x + y + z).sqrt();
    if speed > max_angular_speed {
        w *= f32x4::splat(max_angular_speed / speed);
    }
    Velocity { first: v.to_array(), second: w.to_array() }
}

/// Moves this member's share of the bodies by their velocity for one substep, each held to
/// the speed `caps` first.
fn integrate_positions(team: &Team, arrays: &SolveArrays, h: f32, caps: SpeedCaps) {
    team.for_blocks(arrays.bodies.len(), BLOCK_BODIES, arrays.claims, |block| {
        // SAFETY: each block's solver bodies, motions and velocities are its member's alone in
        // this stage.
        unsafe { integrate_position_block(arrays, block, h, caps) }
    });
}

/// [`integrate_positions`] of the solver bodies `block`.
///
/// # Safety
/// No other thread reads or writes these solver bodies, motions and velocities until it
/// returns.
#[inline(always)]
unsafe fn integrate_position_block(arrays: &SolveArrays, block: Range<usize>, h: f32, caps: SpeedCaps) {
    // SAFETY: as the caller guarantees.
    let (bodies, motions, velocities) = unsafe {
        (
            arrays.bodies.slice_mut(block.clone()),
            arrays.motions.slice_mut(block.clone()),
            arrays.velocities.slice_mut(block),
        )
    };
    for ((b, vel), motion) in bodies.iter_mut().zip(velocities).zip(motions.iter_mut()) {
        advance_motion(b, motion, vel, h, caps);
    }
}

/// `v` (a vector on four lanes, the padding lane zero) scaled down to length `max` where it is
/// longer, and whether it was. The squares are compared, so a body under the cap costs no
/// square root. A non-finite `v` passes unchanged: finalising stops its body.
#[inline]
fn cap_speed(v: f32x4, max: f32) -> (f32x4, bool) {
    // The length as `Vec3::length` sums it: x² + y², then z².
    let [x, y, z, _] = (v * v).to_array();
    let squared = x + y + z;
    if squared > max * max { (v * f32x4::splat(max / squared.sqrt()), true) } else { (v, false) }
}

/// Moves a body by its velocity `vel` for a substep `h`: its motion so far (each vector on
/// four lanes, as [`advance_velocity`]) and its rotation. The solve may have driven the
/// velocity past the speed `caps`: it is slowed to them first, and the body marked `capped`.
/// Here, where every substep's motion is made, a cap holds wherever the solve exceeded it.
#[inline]
fn advance_motion(b: &mut SolverBody, motion: &mut Motion, vel: &mut Velocity, h: f32, caps: SpeedCaps) {
    let (v, linear_capped) = cap_speed(f32x4::new(vel.first), caps.linear);
    let (w, angular_capped) = cap_speed(f32x4::new(vel.second), caps.angular);
    if linear_capped || angular_capped {
        *vel = Velocity { first: v.to_array(), second: w.to_array() };
        b.capped = true;
    }
    let step = f32x4::splat(h);
    let moved = f32x4::new(motion.first) + v * step;
    let turned = f32x4::new(motion.second) + w * step;
    *motion = Motion { first: moved.to_array(), second: turned.to_array() };
    // First-order quaternion integration, renormalised: accurate for the small angles of one
    // substep and cheap.
    let [wx, wy, wz, _] = w.to_array();
    let spin = Quat::from_xyzw(wx, wy, wz, 0.0) * b.dq;
    b.dq = (b.dq + spin * (0.5 * h)).normalize();
}

#[cfg(test)]
mod tests {
    use super::*;

    /// [`advance_velocity`] one component at a time, as `Vec3` computes it.
    fn advance_velocity_one_by_one(b: &SolverBody, vel: &Velocity, max_angular_speed: f32) -> Velocity {
        let padded = |v: [f32; 4]| Vec3::new(v[0], v[1], v[2]);
        let v = (vel.first() + padded(b.dv)) * b.linear_retention;
        let mut w = (vel.second() + padded(b.dw)) * b.angular_retention;
        let speed = w.length();
        if speed > max_angular_speed {
            w *= max_angular_speed / speed;
        }
        Velocity::new(v, w)
    }

    /// [`advance_motion`] one component at a time.
    fn advance_motion_one_by_one(
        b: &mut SolverBody,
        motion: &mut Motion,
        vel: &mut Velocity,
        h: f32,
        caps: SpeedCaps,
    ) {
        let cap = |v: Vec3, max: f32| {
            let squared = v.length_squared();
            if squared > max * max { (v * (max / squared.sqrt()), true) } else { (v, false) }
        };
        let ((v, linear_capped), (w, angular_capped)) =
            (cap(vel.first(), caps.linear), cap(vel.second(), caps.angular));
        if linear_capped || angular_capped {
            *vel = Velocity::new(v, w);
            b.capped = true;
        }
        *motion = Motion::new(motion.first() + v * h, motion.second() + w * h);
        let spin = Quat::from_xyzw(w.x, w.y, w.z, 0.0) * b.dq;
        b.dq = (b.dq + spin * (0.5 * h)).normalize();
    }

    /// The body stages on four lanes compute the one-by-one form's bits: random velocities,
    /// forces, damping and rotations, spins above and below the cap, zeros of both signs.
    #[test]
    fn the_body_stages_on_lanes_compute_what_one_by_one_does() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let bits = |v: &Velocity| (v.first.map(f32::to_bits), v.second.map(f32::to_bits));
        let (mut capped, mut moved_capped) = (0, 0);
        for round in 0..5000 {
            let (linear, angular, cap) = (next().abs(), next().abs(), next().abs());
            let mut vec = |scale: f32| {
                let v = Vec3::new(next(), next(), next()) * scale;
                // Some components exactly zero, of either sign.
                if round % 7 == 0 { Vec3::new(0.0, -0.0, v.z) } else { v }
            };
            let b = SolverBody {
                inv_mass: 1.0,
                dq: Quat::from_scaled_axis(vec(4.0)).normalize(),
                dv: (vec(0.2) + Vec3::ZERO).extend(0.0).to_array(),
                dw: (vec(0.5) + Vec3::ZERO).extend(0.0).to_array(),
                linear_retention: 1.0 / (1.0 + linear * 0.1),
                angular_retention: 1.0 / (1.0 + angular * 0.1),
                ..SolverBody::FIXED
            };
            let vel = Velocity::new(vec(20.0), vec(200.0));
            let max_angular_speed = 50.0 + 100.0 * cap;
            let spin = (vel.second() + Vec3::from_slice(&b.dw[..3])) * b.angular_retention;
            capped += usize::from(spin.length() > max_angular_speed);
            let (lanes, one) = (
                advance_velocity(&b, &vel, max_angular_speed),
                advance_velocity_one_by_one(&b, &vel, max_angular_speed),
            );
            assert_eq!(bits(&lanes), bits(&one), "velocity, round {round}");
            let h = 1.0 / 240.0;
            let (mut b_lanes, mut b_one) = (b, b);
            let start = Motion::new(vec(0.1), vec(0.1));
            let (mut m_lanes, mut m_one) = (start, start);
            // Caps some velocities pass and others not, on either vector.
            let caps = SpeedCaps { linear: 6.0 + 20.0 * cap, angular: 40.0 + 100.0 * linear };
            let (mut v_lanes, mut v_one) = (lanes, one);
            advance_motion(&mut b_lanes, &mut m_lanes, &mut v_lanes, h, caps);
            advance_motion_one_by_one(&mut b_one, &mut m_one, &mut v_one, h, caps);
            assert_eq!(bits(&m_lanes), bits(&m_one), "motion, round {round}");
            assert_eq!(bits(&v_lanes), bits(&v_one), "capped velocity, round {round}");
            assert_eq!(b_lanes.capped, b_one.capped, "capped flag, round {round}");
            let over = lanes.first().length() > caps.linear || lanes.second().length() > caps.angular;
            assert_eq!(b_lanes.capped, over, "round {round}");
            moved_capped += usize::from(over);
            assert_eq!(b_lanes.dq.to_array().map(f32::to_bits), b_one.dq.to_array().map(f32::to_bits));
        }
        assert!(capped > 500 && capped < 4500, "{capped} of 5000 spins capped");
        assert!(moved_capped > 500 && moved_capped < 4500, "{moved_capped} of 5000 motions capped");
    }

    /// The velocity stage adds each moving body's pending warm start to its advanced velocity
    /// (none in the first substep) and leaves every pending warm start zero, for the next
    /// relax to add to; a body the solver does not move keeps its velocity. Without contacts
    /// it does not touch them.
    #[test]
    fn the_velocity_stage_adds_the_pending_warm_start_and_clears_it() {
        let mut random = crate::solver::test_random::TestRandom(7);
        let count = 3 * BLOCK_BODIES + 5;
        let mut bodies: Vec<SolverBody> = (0..count)
            .map(|i| SolverBody {
                inv_mass: if i % 5 == 0 { 0.0 } else { 1.0 },
                dv: random.vec(0.1).extend(0.0).to_array(),
                dw: random.vec(0.1).extend(0.0).to_array(),
                linear_retention: 0.99,
                angular_retention: 0.98,
                ..SolverBody::FIXED
            })
            .collect();
        let start: Vec<Velocity> =
            (0..count).map(|_| Velocity::new(random.vec(5.0), random.vec(5.0))).collect();
        let left: Vec<Velocity> =
            (0..count).map(|_| Velocity::new(random.vec(1.0), random.vec(1.0))).collect();
        let max_angular_speed = 7.0;
        let bits = |v: &Velocity| (v.first.map(f32::to_bits), v.second.map(f32::to_bits));
        // No contacts (nothing pending, left untouched), the first substep, a later one.
        for kind in 0..3 {
            let (mut motions, mut velocities, mut pending) =
                (vec![Motion::ZERO; count], start.clone(), left.clone());
            let mut claims = Claims::default();
            {
                let arrays = SolveArrays::new(&mut bodies, &mut motions, &mut velocities, &mut claims);
                let slots = SharedSlice::new(&mut pending);
                let pending = [Pending::None, Pending::Clear(&slots), Pending::AddAndClear(&slots)][kind];
                integrate_velocities(&Team::alone(), &arrays, max_angular_speed, pending);
            }
            for (i, b) in bodies.iter().enumerate() {
                let advanced = advance_velocity(b, &start[i], max_angular_speed);
                let want = match (b.inv_mass > 0.0, kind) {
                    (false, _) => start[i],
                    (true, 2) => add_pending(&advanced, &left[i]),
                    (true, _) => advanced,
                };
                assert_eq!(bits(&velocities[i]), bits(&want), "body {i}, kind {kind}");
            }
            let cleared = pending.iter().all(|p| bits(p) == bits(&Velocity::ZERO));
            assert_eq!(cleared, kind > 0, "kind {kind}");
        }
        // The warm start changed the velocities (not added as a zero).
        let advanced = advance_velocity(&bodies[1], &start[1], max_angular_speed);
        assert_ne!(add_pending(&advanced, &left[1]), advanced);
    }
}
