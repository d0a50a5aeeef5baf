//! [`Stage::Solve`]: the soft step over the awake bodies, their touching contacts and joints.
//! The awake list and the solver arrays are made here (the solver indices and parts on a team
//! by `solver_parts.rs`, the touching list by `touching.rs`), the constraints prepared, the
//! substeps run (`solver/`), and the impulses stored back. Finalising, the continuous stage and
//! the sleep stage read the arrays this stage leaves.

use super::solver_parts::SolverParts;
use super::touching::TouchingBlock;
use crate::body::{Body, BodyType};
use crate::math::Vec3;
use crate::parallel::{Claims, SharedSlice, run_team};
#[cfg(doc)]
use crate::profile::Stage;
use crate::solver::{
    BodyParts, ContactSoftness, ContactSolver, DirectSolver, FIXED_SLOT, Feedback, GroupInputs, JointSolver,
    Motion, Softness, SolverBody, SpeedCaps, SubstepSettings, TouchingContacts, Velocity, gyroscopic_step,
    solve_substeps,
};
use crate::team_policy::{BODY_BLOCK, MIN_BATCHES_FOR_TEAM, MIN_SOLVER_BODIES_FOR_TEAM, helpers_for};
use crate::world::{WaterContact, World};
use std::sync::{Mutex, PoisonError};

/// The solve's arrays: the awake list, the solver's view of each awake body, the constraint
/// solvers, and the touching list. The stages after the solve read the awake list and the
/// solver arrays.
#[derive(Clone, Debug, Default)]
pub(crate) struct SolveScratch {
    /// Body slots simulated this step; solver index `k + 1` is `awake[k]`.
    pub(crate) awake: Vec<u32>,
    /// Solver index per body slot (`FIXED_SLOT` unless awake this step).
    pub(crate) solver_index: Vec<u32>,
    /// The solver's view of each awake body (index 0 the fixed body).
    pub(crate) solver_bodies: Vec<SolverBody>,
    /// Per solver body, whether the solver moves it (it has an inverse mass): what the
    /// colourings read, made once per step with the solver indices (on a team before the
    /// gather, [`World::index_solver_bodies`]; alone by it, [`World::gather_solver_bodies`]).
    pub(crate) movable: Vec<bool>,
    /// Velocities of the solver bodies (same indices).
    pub(crate) velocities: Vec<Velocity>,
    /// Motion of the solver bodies since the step began (same indices).
    pub(crate) motions: Vec<Motion>,
    /// Centres of mass of the solver bodies where the step began (same indices).
    pub(crate) centers: Vec<Vec3>,
    /// The touching contacts' solver.
    pub(crate) contact_solver: ContactSolver,
    /// The awake joints' solver.
    pub(crate) joint_solver: JointSolver,
    /// The groups of widely differing masses solved directly this step.
    pub(crate) direct_solver: DirectSolver,
    /// A claim word per block of solver bodies, for the threads of the substeps.
    body_claims: Claims,
    /// A claim word per block of the awake list, for the gather (one more word, the
    /// colouring's).
    gather_claims: Claims,
    /// The solve's touching contacts, in contact order ([`World::list_touching_contacts`]).
    pub(crate) touching: Vec<u32>,
    /// Each block's part of [`Self::touching`] while it is being found.
    pub(super) touching_blocks: Vec<TouchingBlock>,
    /// A claim word per block of contacts, for the touching list's pass.
    pub(super) touching_claims: Claims,
    /// The awake bodies cut into a part per thread of the solve, on a team.
    pub(crate) solver_parts: SolverParts,
}

impl SolveScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.movable.len()
            + (self.touching.len() + self.awake.len() + self.solver_index.len()) * 4
            + self.touching_blocks.iter().map(|b| b.len() * (4 + 8 + 1)).sum::<usize>()
            + self.solver_parts.bytes()
            + self.solver_bodies.len() * size_of::<SolverBody>()
            + (self.velocities.len() + self.motions.len()) * size_of::<Velocity>()
            + self.centers.len() * size_of::<Vec3>()
    }
}

impl World {
    /// [`Stage::Solve`]: the soft step over the awake bodies and their touching contacts.
    pub(super) fn solve(&mut self) {
        // Watched contacts destroyed since are dropped; the watched island's contacts found.
        if self.contact_tracer.is_active() {
            let watched = std::mem::take(&mut self.contact_tracer.watched);
            self.contact_tracer.watched =
                watched.into_iter().filter(|&id| self.contact(id).is_ok()).collect();
            self.prepare_island_trace();
        }
        let s = self.settings;
        let h = s.dt / s.substeps as f32;
        let softness = ContactSoftness {
            movable: Softness::new(s.contact_hertz.min(0.25 / h), s.contact_damping_ratio, h),
            fixed: Softness::new((2.0 * s.contact_hertz).min(0.25 / h), s.contact_damping_ratio, h),
            warm_starting: s.warm_starting,
        };
        self.size_solver_arrays();
        // On a team the contacts are coloured beside the gather, and the touching list, which
        // the colouring reads, needs the solver indices first: they come in a pass of their
        // own. Alone, the gather writes them, in its one pass over the bodies. A solve of too
        // few constraints for a team (`MIN_BATCHES_FOR_TEAM`) is prepared alone too, without
        // the parts' cut (58 µs of the free fall's 5000 bodies on two threads): an estimate
        // before the touching list exists, the awake contacts and joints four to a batch (at
        // least as many constraints as it will solve, though the colourings' batches may
        // differ). Either path gives the same result; the substeps decide their team from
        // the batches they have.
        let constraint_batches = (self.awake_contacts.count() + self.awake_joints.count()).div_ceil(4);
        let shared = constraint_batches >= MIN_BATCHES_FOR_TEAM
            && helpers_for(&self.threads, self.scratch.solve.awake.len(), MIN_SOLVER_BODIES_FOR_TEAM)
                .is_some();
        if shared {
            self.index_solver_bodies();
            self.list_touching_contacts();
            self.gather_solver_bodies(h, Some(softness));
        } else {
            self.gather_solver_bodies(h, None);
            self.list_touching_contacts();
            self.scratch.solve.solver_parts.make_whole();
            self.scratch.solve.contact_solver.prepare(
                &self.scratch.solve.movable,
                softness,
                BodyParts::WHOLE,
            );
        }
        // Every step anything is watched: a list left from an earlier watch must not stay.
        if self.contact_tracer.is_active() {
            self.prepare_joint_trace();
        }
        let scratch = &mut self.scratch;
        // The colourings check their lanes' bodies against the flags; the solve then reads the
        // solver arrays, which are as long, unchecked.
        assert_eq!(scratch.solve.movable.len(), scratch.solve.solver_bodies.len(), "a flag per solver body");
        let joint_softness = Softness::new(s.joint_hertz.min(0.25 / h), s.joint_damping_ratio, h);
        let joints = &mut scratch.solve.joint_solver;
        joints.prepare(
            self.threads.as_deref(),
            &self.joints.joints,
            &self.awake_joints,
            &self.bodies.bodies,
            &scratch.solve.solver_index,
            &scratch.solve.solver_bodies,
            &scratch.solve.movable,
            joint_softness,
            h,
            s.warm_starting,
        );
        let feedback = Feedback {
            contact_movable: softness.movable.bias_rate,
            contact_fixed: softness.fixed.bias_rate,
            joint: joint_softness.bias_rate,
            max_push_out_speed: s.max_push_out_speed,
            h,
        };
        let groups = GroupInputs {
            solver_bodies: &scratch.solve.solver_bodies,
            centers: &scratch.solve.centers,
            touching: &scratch.solve.touching,
            pairs: scratch.solve.contact_solver.touching_pairs(),
            contacts: &self.contacts.contacts,
            joints: &self.joints.joints,
            bodies: &self.bodies.bodies,
            solver_index: &scratch.solve.solver_index,
        };
        scratch.solve.direct_solver.prepare(&groups, joints.joints(), feedback);
        let substeps = SubstepSettings {
            substeps: s.substeps,
            h,
            caps: SpeedCaps { linear: s.max_linear_speed, angular: s.max_angular_speed },
            max_push_out_speed: s.max_push_out_speed,
            restitution_threshold: s.restitution_threshold,
        };
        // The contacts watched (`solver/contact_trace.rs`): their traces of this step.
        let tracer = self.contact_tracer.is_active().then(|| {
            let mut tracer = std::mem::take(&mut self.contact_tracer);
            tracer.begin_step();
            Mutex::new(tracer)
        });
        solve_substeps(
            self.threads.as_deref(),
            tracer.as_ref(),
            &substeps,
            &mut scratch.solve.solver_bodies,
            &mut scratch.solve.motions,
            &mut scratch.solve.velocities,
            &mut scratch.solve.body_claims,
            joints,
            &mut scratch.solve.contact_solver,
            &mut scratch.solve.direct_solver,
            TouchingContacts {
                contacts: &mut self.contacts.contacts,
                ids: &scratch.solve.touching,
                centers: &scratch.solve.centers,
                joints: &mut self.joints.joints,
                bodies: &self.bodies.bodies,
            },
        );
        if let Some(tracer) = tracer {
            self.contact_tracer = tracer.into_inner().unwrap_or_else(PoisonError::into_inner);
        }
        let (bodies, motions) = (&scratch.solve.solver_bodies, &scratch.solve.motions);
        joints.store_general(bodies, motions, &mut self.joints.joints);
        scratch.solve.direct_solver.store(&mut self.contacts.contacts, &mut self.joints.joints);
    }

    /// The awake list and the solver arrays' lengths for this step: solver index `k + 1` is
    /// awake body `k`, slot 0 the fixed body (written here). The rest is written by
    /// [`World::index_solver_bodies`] and [`World::gather_solver_bodies`].
    fn size_solver_arrays(&mut self) {
        let scratch = &mut self.scratch;
        scratch.solve.awake.clear();
        scratch.solve.awake.extend(self.awake_bodies.iter().map(|i| i as u32));
        if scratch.solve.solver_index.len() < self.bodies.bodies.len() {
            scratch.solve.solver_index.resize(self.bodies.bodies.len(), FIXED_SLOT);
        }
        // Every entry past the fixed slot is written by the index pass or the gather; only the
        // lengths need setting.
        let count = scratch.solve.awake.len() + 1;
        scratch.solve.solver_bodies.resize(count, SolverBody::FIXED);
        scratch.solve.movable.resize(count, false);
        scratch.solve.velocities.resize(count, Velocity::ZERO);
        scratch.solve.motions.resize(count, Motion::ZERO);
        scratch.solve.centers.resize(count, Vec3::ZERO);
        scratch.solve.solver_bodies[0] = SolverBody::FIXED;
        scratch.solve.movable[0] = false;
        scratch.solve.velocities[0] = Velocity::ZERO;
        scratch.solve.motions[0] = Motion::ZERO;
        scratch.solve.centers[0] = Vec3::ZERO;
    }

    /// Fills the solver arrays [`World::size_solver_arrays`] sized (mass, forces, velocities
    /// and centre of each awake body), in blocks of the awake list the world's threads share.
    /// With `colour_beside`, one member colours the touching contacts meanwhile, from the
    /// indices and flags [`World::index_solver_bodies`] wrote: the colouring is the solve's one
    /// long serial part (the 3D pyramid's 15 000 contacts take about 0.12 ms), and the gather
    /// about as long again. Without, the gather writes the indices and flags too.
    fn gather_solver_bodies(&mut self, h: f32, colour_beside: Option<ContactSoftness>) {
        let (gravity, dt) = (self.settings.gravity, self.settings.dt);
        let scratch = &mut self.scratch;
        let awake_count = scratch.solve.awake.len();
        let helpers = helpers_for(&self.threads, awake_count, MIN_SOLVER_BODIES_FOR_TEAM);
        // One claim for the colouring, then one per block.
        scratch.solve.gather_claims.reset(awake_count.div_ceil(BODY_BLOCK) + 1);
        let (claims, awake) = (scratch.solve.gather_claims.words(), &scratch.solve.awake);
        let (bodies, body_terrain) = (&self.bodies.bodies, &self.body_terrain);
        let contacts = Mutex::new(&mut scratch.solve.contact_solver);
        let parts = &scratch.solve.solver_parts;
        let solver_index = SharedSlice::new(&mut scratch.solve.solver_index);
        let movable = SharedSlice::new(&mut scratch.solve.movable);
        let solver_bodies = SharedSlice::new(&mut scratch.solve.solver_bodies[1..]);
        let velocities = SharedSlice::new(&mut scratch.solve.velocities[1..]);
        let motions = SharedSlice::new(&mut scratch.solve.motions[1..]);
        let centers = SharedSlice::new(&mut scratch.solve.centers[1..]);
        run_team(helpers, |team| {
            // Only the member that claims the stage's first block locks it, once.
            let colour = || {
                if let Some(softness) = colour_beside {
                    // SAFETY: with a colouring beside, no block writes the flags.
                    let movable = unsafe { movable.as_slice() };
                    let mut contacts = contacts.lock().expect("no member panicked while colouring");
                    contacts.prepare(movable, softness, parts.body_parts());
                }
            };
            team.for_blocks_beside(awake_count, BODY_BLOCK, claims, colour, |block| {
                // SAFETY: each block of the awake list (and of the solver arrays, one entry
                // per awake body) is one member's in this stage.
                let (solver_bodies, velocities, motions, centers) = unsafe {
                    (
                        solver_bodies.slice_mut(block.clone()),
                        velocities.slice_mut(block.clone()),
                        motions.slice_mut(block.clone()),
                        centers.slice_mut(block.clone()),
                    )
                };
                for k in block.clone() {
                    let (body, local) = (awake[k] as usize, k - block.start);
                    let b = &bodies[body];
                    let water = body_terrain[body].water.as_ref();
                    solver_bodies[local] = solver_body(b, water, gravity, h);
                    let moves = solver_bodies[local].inv_mass > 0.0;
                    if colour_beside.is_none() {
                        // SAFETY: the awake list holds each body once, so its solver index
                        // and flag are written by this block alone; the index array has an
                        // entry per body slot, the flags one per awake body and the fixed one.
                        unsafe {
                            solver_index.write(body, k as u32 + 1);
                            movable.write(k + 1, moves);
                        }
                    } else {
                        // SAFETY: with a colouring beside, the flags are only read.
                        debug_assert_eq!(unsafe { movable.read(k + 1) }, moves, "movable as indexed");
                    }
                    // The gyroscopic term, once a step before the substeps (see
                    // `solver/gyroscopic.rs`): a moving body keeps its angular momentum.
                    let spin = if moves {
                        gyroscopic_step(b.transform.rotation, &b.inertia_local, b.angular_velocity, dt)
                    } else {
                        b.angular_velocity
                    };
                    velocities[local] = Velocity::new(b.linear_velocity, spin);
                    motions[local] = Motion::ZERO;
                    centers[local] = b.center();
                }
            });
        });
    }
}

/// The solver's view of an awake body for substep length `h` (its velocities go separately).
fn solver_body(b: &Body, water: Option<&WaterContact>, gravity: Vec3, h: f32) -> SolverBody {
    let mut sb = SolverBody::FIXED;
    if b.body_type == BodyType::Dynamic {
        let inv_inertia = b.inv_inertia_world();
        sb.inv_mass = b.inv_mass;
        sb.inv_inertia = inv_inertia;
        // Plus +0.0, which turns a -0.0 into +0.0: then no velocity the solver moves is ever
        // -0.0 (a sum is -0.0 only when both terms are), so the zero impulses of a batch's
        // padding point slots, which lanes get or not depending on the team's parts, change
        // no velocity's bits.
        sb.dv = (h * (gravity * b.gravity_scale + b.force * b.inv_mass) + Vec3::ZERO).extend(0.0).to_array();
        sb.dw = (h * (inv_inertia * b.torque) + Vec3::ZERO).extend(0.0).to_array();
        let (water_linear, water_angular) =
            water.map_or((0.0, 0.0), |w| (w.linear_damping, w.angular_damping));
        sb.linear_retention = 1.0 / (1.0 + h * (b.linear_damping + water_linear));
        sb.angular_retention = 1.0 / (1.0 + h * (b.angular_damping + water_angular));
    }
    sb
}
