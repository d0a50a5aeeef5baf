//! Joints in the soft step: prepared once per step (the pose at the start, the bodies' masses,
//! the springs' softness, last step's impulses), then in every substep warm started, solved
//! with position feedback and relaxed without it, beside the contacts; stored at the end with
//! the force and torque each joint applied. Revolute joints (`revolute_joint.rs`), spherical
//! joints (`spherical_joint.rs`, the plain ones apart in `point_joint.rs`) are graph-coloured
//! and solved four at a time (the plain ones two batches at a time on eight lanes where the
//! CPU has AVX, `point_pairs.rs`); the other types
//! one after another in joint order (each reads the velocities the previous one left). Both
//! orders follow the joint order alone, so the result is the same on any thread count.

use super::FIXED_SLOT;
#[cfg(feature = "test-support")]
use super::SolverLanes;
#[cfg(target_arch = "x86_64")]
use super::avx::Avx;
use super::joint_lanes::{EightLaneProof, SharedWideJoints};
use super::point_joint::PointJointSolver;
use super::point_lanes::{PointJoint, WidePointJoint, fill_batch};
use super::revolute_joint::{PreparedRevolute, RevoluteJointSolver, WideRevolute};
use super::solve_arrays::SolveArrays;
use super::spherical_joint::{PreparedSpherical, SphericalJointSolver, WideSpherical};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::bitset::BitSet;
use crate::body::{Body, NONE};
use crate::joint::rows::{PairVelocity, Pass, Reaction, RowSolver, masses_of, rotation_mass};
use crate::joint::{Joint, JointConstants, JointImpulses, JointKind, JointPose, SolveClass};
use crate::math::Vec3;
use crate::parallel::SharedSlice;
use crate::parallel::sync::AtomicU32;
use crate::parallel::{Claims, Team, run_team};
use crate::team_policy::{BLOCK_BATCHES, MIN_JOINTS_FOR_TEAM, SORT_BLOCK};

/// How a joint takes part in this step's solve.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum Role {
    /// Disabled, or neither side simulated.
    #[default]
    Out,
    /// A plain ball joint, solved four at a time (`point_joint.rs`).
    PlainBall,
    /// Any other joint: prepared one by one in joint order.
    Other,
}

/// A joint slot as the sorting pass leaves it: its role, its sides' solver indices, and whether
/// it can break.
#[derive(Clone, Copy, Debug, Default)]
struct SortedJoint {
    role: Role,
    breakable: bool,
    bodies: (u32, u32),
}

impl SortedJoint {
    /// Joint `j`'s role this step, with `solver_index` mapping body slots to the solver bodies.
    fn of(j: &Joint, solver_index: &[u32], solver_bodies: &[SolverBody]) -> SortedJoint {
        if !j.enabled {
            return SortedJoint::default();
        }
        let index = |body: u32| if body == NONE { FIXED_SLOT } else { solver_index[body as usize] };
        let bodies = (index(j.body_a), index(j.body_b));
        if solver_bodies[bodies.0 as usize].inv_mass == 0.0
            && solver_bodies[bodies.1 as usize].inv_mass == 0.0
        {
            return SortedJoint::default();
        }
        let class = j.class();
        debug_assert_eq!(
            class,
            SolveClass::of(&j.kind, j.break_force, j.break_torque),
            "the joint's class is stale"
        );
        SortedJoint {
            role: if class.plain_ball() { Role::PlainBall } else { Role::Other },
            breakable: class.breakable(),
            bodies,
        }
    }
}

/// One joint prepared for this step.
#[derive(Clone, Debug)]
struct PreparedJoint {
    /// The joint's slot.
    joint: u32,
    /// Solver indices of its sides.
    body_a: u32,
    body_b: u32,
    /// The pose at the start of the step.
    pose: JointPose,
    kind: JointKind,
    constants: JointConstants,
    impulses: JointImpulses,
}

/// The joints of this step's solve.
#[derive(Clone, Debug, Default)]
pub(crate) struct JointSolver {
    prepared: Vec<PreparedJoint>,
    /// Revolute joints, solved four at a time (`revolute_joint.rs`).
    revolutes: RevoluteJointSolver,
    revolute_list: Vec<PreparedRevolute>,
    /// Spherical joints with limits, friction or a spring, four at a time
    /// (`spherical_joint.rs`).
    sphericals: SphericalJointSolver,
    spherical_list: Vec<PreparedSpherical>,
    /// Plain ball joints, solved four at a time (`point_joint.rs`).
    points: PointJointSolver,
    point_list: Vec<PointJoint>,
    /// Per joint slot, what the sorting pass found (valid for awake slots).
    sorted: Vec<SortedJoint>,
    /// A claim word per block of the sorting pass, for the team.
    sort_claims: Claims,
    /// The general joints' claim word, for the team (they are one block).
    general_claim: Claims,
    /// Whether this step reuses last step's impulses.
    warm_starting: bool,
    /// Whether a joint of this step breaks under some force or torque: without one, nothing
    /// after the solve needs to look for broken joints.
    breakable: bool,
    rigid: Softness,
    h: f32,
    /// The widest way the plain ball joints' passes may run, below what the CPU allows (tests
    /// compare the ways).
    #[cfg(feature = "test-support")]
    #[cfg_attr(not(target_arch = "x86_64"), allow(dead_code))]
    widest: SolverLanes,
    /// Every joint through the general scalar rows, none through the wide batches (tests hold
    /// the batches to the rows' behaviour).
    #[cfg(feature = "test-support")]
    general_only: bool,
}

impl JointSolver {
    /// Runs the plain ball joints' passes no wider than `widest`, even where the CPU allows
    /// more: the result is the same bit for bit, so this is for tests that check it.
    #[cfg(feature = "test-support")]
    pub fn set_widest_lanes(&mut self, widest: SolverLanes) {
        self.widest = widest;
    }

    /// Solves every joint through the general scalar rows (`general_only`) or each through
    /// its fast path, the default: tests compare the two on behaviour.
    #[cfg(feature = "test-support")]
    pub fn set_general_only(&mut self, general_only: bool) {
        self.general_only = general_only;
    }

    /// Whether every joint is solved through the general scalar rows.
    #[cfg(feature = "test-support")]
    pub fn general_only(&self) -> bool {
        self.general_only
    }

    /// Whether the wide batches may take the joints they are for (always, but in tests that
    /// hold them to the general rows).
    fn fast_paths(&self) -> bool {
        #[cfg(feature = "test-support")]
        return !self.general_only;
        #[cfg(not(feature = "test-support"))]
        true
    }

    /// The proof of AVX the plain ball joints' passes run two batches at a time with, if they
    /// do.
    fn eight_lanes(&self) -> EightLaneProof {
        #[cfg(all(target_arch = "x86_64", feature = "test-support"))]
        return Avx::detect_up_to(self.widest);
        #[cfg(all(target_arch = "x86_64", not(feature = "test-support")))]
        return Avx::detect();
        #[cfg(not(target_arch = "x86_64"))]
        None
    }

    /// Prepares every enabled joint in `awake` (joint slots) with at least one simulated
    /// dynamic side, in joint order. `solver_index` maps body slots to solver indices;
    /// `movable` marks the solver bodies the solver moves (one flag per solver body). Which
    /// joints take part, and how, is sorted out first in blocks of joint slots that the
    /// threads of `pool` share (a grid's 19 800 joints took half a millisecond on one
    /// thread); the lists are then made in joint order from that dense array.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        pool: Option<&rayon::ThreadPool>,
        joints: &[Joint],
        awake: &BitSet,
        bodies: &[Body],
        solver_index: &[u32],
        solver_bodies: &[SolverBody],
        movable: &[bool],
        rigid: Softness,
        h: f32,
        warm_starting: bool,
    ) {
        self.prepared.clear();
        self.point_list.clear();
        self.revolute_list.clear();
        self.spherical_list.clear();
        self.general_claim.reset(1);
        self.rigid = rigid;
        self.h = h;
        self.breakable = false;
        let slots = joints.len();
        self.sorted.resize(slots, SortedJoint::default());
        self.sort_claims.reset(slots.div_ceil(SORT_BLOCK));
        let (sorted, claims) = (SharedSlice::new(&mut self.sorted), self.sort_claims.words());
        let helpers = pool.filter(|_| awake.count() >= MIN_JOINTS_FOR_TEAM);
        run_team(helpers, |team| {
            team.for_blocks(slots, SORT_BLOCK, claims, |block| {
                // SAFETY: each block of joint slots is one member's in this stage.
                let sorted = unsafe { sorted.slice_mut(block.clone()) };
                awake.for_each_in(block.clone(), |slot| {
                    sorted[slot - block.start] = SortedJoint::of(&joints[slot], solver_index, solver_bodies);
                });
            });
        });
        let fast = self.fast_paths();
        for slot in awake.iter() {
            let SortedJoint { role, breakable, bodies: (body_a, body_b) } = self.sorted[slot];
            self.breakable |= breakable;
            if role == Role::Out {
                continue;
            }
            if role == Role::PlainBall && fast {
                // Its pose is computed with the batches, on the solve's team (`SharedJoints::fill`).
                self.point_list.push(PointJoint {
                    joint: slot as u32,
                    bodies: (body_a, body_b),
                    ..Default::default()
                });
                continue;
            }
            let j = &joints[slot];
            let (sa, sb) = (&solver_bodies[body_a as usize], &solver_bodies[body_b as usize]);
            let pose = JointPose::of(j, bodies);
            let impulses = if warm_starting { j.impulses } else { JointImpulses::default() };
            if let JointKind::Spherical(ball) = j.kind
                && fast
            {
                self.spherical_list.push(PreparedSpherical {
                    joint: slot as u32,
                    bodies: (body_a, body_b),
                    pose,
                    ball,
                    spring: j.kind.spring_softness(h)[0],
                    impulses,
                });
                continue;
            }
            if let JointKind::Revolute(hinge) = j.kind
                && fast
            {
                self.revolute_list.push(PreparedRevolute {
                    joint: slot as u32,
                    bodies: (body_a, body_b),
                    pose,
                    hinge,
                    spring: j.kind.spring_softness(h)[0],
                    impulses,
                });
                continue;
            }
            let constants = JointConstants {
                springs: j.kind.spring_softness(h),
                rotation_mass: rotation_mass(&masses_of(sa, sb)),
            };
            self.prepared.push(PreparedJoint {
                joint: slot as u32,
                body_a,
                body_b,
                pose,
                kind: j.kind,
                constants,
                impulses,
            });
        }
        self.revolutes.prepare(&self.revolute_list, solver_bodies, movable, h);
        self.sphericals.prepare(&self.spherical_list, solver_bodies, movable, h);
        self.points.colour(&self.point_list, movable, h);
        self.warm_starting = warm_starting;
    }

    /// Work items prepared this step: the general joints and the wide types' batches.
    pub fn batch_count(&self) -> usize {
        self.prepared.len()
            + self.revolutes.batches.wide.len()
            + self.sphericals.batches.wide.len()
            + self.points.batches.wide.len()
    }

    /// Whether some joint solved this step has a finite breaking force or torque.
    pub fn breakable(&self) -> bool {
        self.breakable
    }

    /// Joints prepared this step.
    pub fn len(&self) -> usize {
        self.prepared.len()
            + self.revolutes.batches.len()
            + self.sphericals.batches.len()
            + self.points.batches.len()
    }

    /// The joints as the solve's team shares them; the plain ball joints are completed from the
    /// world's `joints` and `bodies` when the team fills them ([`SharedJoints::fill`]), and the
    /// batched joints' impulses and readouts are stored into `joints` by the team
    /// ([`SharedJoints::store`]).
    pub fn share<'a>(&'a mut self, joints: &'a mut [Joint], bodies: &'a [Body]) -> SharedJoints<'a> {
        let eight_lanes = self.eight_lanes();
        SharedJoints {
            general: SharedSlice::new(&mut self.prepared),
            revolutes: self.revolutes.batches.share(),
            sphericals: self.sphericals.batches.share(),
            points: self.points.batches.share(),
            point_list: SharedSlice::new(&mut self.point_list),
            joints: SharedSlice::new(joints),
            bodies,
            warm_starting: self.warm_starting,
            general_claim: &self.general_claim.words()[0],
            rigid: self.rigid,
            h: self.h,
            eight_lanes,
        }
    }

    /// Writes the general joints' impulses back for the next step, with the force, torque,
    /// motor load and limit state each had at the end of the step (the batched joints' are
    /// stored by the solve's team, [`SharedJoints::store`]).
    pub fn store_general(&self, bodies: &[SolverBody], motions: &[Motion], joints: &mut [Joint]) {
        let inv_h = 1.0 / self.h;
        for p in &self.prepared {
            let (a, b) = (p.body_a as usize, p.body_b as usize);
            let pose = p.pose.moved(bodies[a].dq, motions[a].first(), bodies[b].dq, motions[b].first());
            let masses = masses_of(&bodies[a], &bodies[b]);
            let mut rows = RowSolver {
                masses: &masses,
                velocity: PairVelocity::default(),
                pass: Pass::Reaction,
                rigid: self.rigid,
                h: self.h,
                inv_h,
                reaction: Reaction::default(),
            };
            let mut impulses = p.impulses;
            p.kind.solve(&mut rows, &pose, &p.constants, &mut impulses);
            let j = &mut joints[p.joint as usize];
            j.impulses = p.impulses;
            j.force = rows.reaction.force * inv_h;
            j.torque = rows.reaction.torque * inv_h;
            j.motor_load = p.impulses.motor * inv_h;
            j.limit_active = p.impulses.lower > 0.0 || p.impulses.upper > 0.0 || p.impulses.swing > 0.0;
        }
    }

    /// The joint slots solved this step: the general ones in joint order, then the revolute,
    /// limited spherical and plain ball joints in batch order.
    pub fn joints(&self) -> impl Iterator<Item = u32> + '_ {
        self.prepared
            .iter()
            .map(|p| p.joint)
            .chain(self.revolutes.batches.joints())
            .chain(self.sphericals.batches.joints())
            .chain(self.points.batches.joints())
    }
}

/// The joints of one solve, shared by the members of its team: the general ones run on the
/// leader alone, one after another in joint order (each reads what the one before left), then
/// each wide type colour by colour, split across the team.
pub(crate) struct SharedJoints<'a> {
    general: SharedSlice<'a, PreparedJoint>,
    revolutes: SharedWideJoints<'a, WideRevolute>,
    sphericals: SharedWideJoints<'a, WideSpherical>,
    points: SharedWideJoints<'a, WidePointJoint>,
    /// The plain ball joints, their poses computed by the team.
    point_list: SharedSlice<'a, PointJoint>,
    /// The world's joints: read by the fill, written by the store.
    joints: SharedSlice<'a, Joint>,
    /// The world's bodies.
    bodies: &'a [Body],
    warm_starting: bool,
    general_claim: &'a AtomicU32,
    rigid: Softness,
    h: f32,
    /// Proof of AVX where the plain ball joints run two batches at a time on eight lanes.
    eight_lanes: EightLaneProof,
}

impl SharedJoints<'_> {
    /// Completes the plain ball joints (their pose at the start of the step, last step's
    /// impulse) and fills their batches, each in blocks the team shares.
    pub fn fill(&self, team: &Team, arrays: &SolveArrays) {
        // SAFETY: the world's joints are only read in this stage (written in the store, a stage
        // of its own at the end).
        let (joints, bodies) = (unsafe { self.joints.as_slice() }, self.bodies);
        let count = self.point_list.len();
        // The batches' claim words serve (four joints to a batch); each stage's number is
        // higher than any they hold.
        let claims = &self.points.claims()[..count.div_ceil(4 * BLOCK_BATCHES)];
        team.for_blocks(count, 4 * BLOCK_BATCHES, claims, |block| {
            // SAFETY: each block of the list is one member's in this stage.
            for p in unsafe { self.point_list.slice_mut(block) } {
                let j = &joints[p.joint as usize];
                let anchors = JointPose::anchors_of(j, bodies);
                p.arm_a = anchors.arm_a;
                p.arm_b = anchors.arm_b;
                p.delta_center = anchors.delta_center;
                p.impulse = if self.warm_starting { j.impulses.point } else { Vec3::ZERO };
            }
        });
        // SAFETY: the list and the solver bodies are only read in this stage.
        let (list, solver_bodies) = unsafe { (self.point_list.as_slice(), arrays.bodies.as_slice()) };
        self.points.fill(team, |w, lanes| fill_batch(w, lanes, list, solver_bodies));
    }

    /// Writes the batched joints' impulses and readouts back into the world's joints, in blocks
    /// of batches the team shares (a joint is in one lane of one batch).
    pub fn store(&self, team: &Team, arrays: &SolveArrays) {
        self.revolutes.store(team, arrays, &self.joints);
        self.sphericals.store(team, arrays, &self.joints);
        self.points.store(team, arrays, &self.joints);
    }

    /// Applies the accumulated impulses again at the start of a substep.
    pub fn warm_start(&self, team: &Team, arrays: &SolveArrays) {
        self.run(team, Pass::WarmStart, arrays);
    }

    /// One iteration over every joint, with position feedback (`use_bias`) or relaxing
    /// without it.
    pub fn solve(&self, team: &Team, arrays: &SolveArrays, use_bias: bool) {
        self.run(team, if use_bias { Pass::Solve } else { Pass::Relax }, arrays);
    }

    /// Runs `pass` over every joint, at the pose the bodies' motion so far gives.
    fn run(&self, team: &Team, pass: Pass, arrays: &SolveArrays) {
        if self.general.len() > 0 {
            team.once(self.general_claim, || {
                // SAFETY: the general joints and every velocity are this member's for this
                // stage, while the others wait for it to be done without touching any array;
                // bodies and motions are written only while integrating positions.
                let (prepared, velocities, bodies, motions) = unsafe {
                    (
                        self.general.slice_mut(0..self.general.len()),
                        arrays.velocities.slice_mut(0..arrays.velocities.len()),
                        arrays.bodies.as_slice(),
                        arrays.motions.as_slice(),
                    )
                };
                run_general(prepared, pass, bodies, motions, velocities, self.rigid, self.h);
            });
        }
        self.revolutes.run(team, pass, arrays, self.rigid, None);
        self.sphericals.run(team, pass, arrays, self.rigid, None);
        self.points.run(team, pass, arrays, self.rigid, self.eight_lanes);
    }
}

/// Runs `pass` over the general joints `prepared`, one after another.
fn run_general(
    prepared: &mut [PreparedJoint],
    pass: Pass,
    bodies: &[SolverBody],
    motions: &[Motion],
    velocities: &mut [Velocity],
    rigid: Softness,
    h: f32,
) {
    for p in prepared {
        let (a, b) = (p.body_a as usize, p.body_b as usize);
        let pose = p.pose.moved(bodies[a].dq, motions[a].first(), bodies[b].dq, motions[b].first());
        // The masses are read from the solver bodies, whose rotation the pose just read,
        // rather than kept in every prepared joint: 80 bytes less to stream per joint.
        let masses = masses_of(&bodies[a], &bodies[b]);
        let mut rows = RowSolver {
            masses: &masses,
            velocity: PairVelocity {
                va: velocities[a].first(),
                wa: velocities[a].second(),
                vb: velocities[b].first(),
                wb: velocities[b].second(),
            },
            pass,
            rigid,
            h,
            inv_h: 1.0 / h,
            reaction: Reaction::default(),
        };
        p.kind.solve(&mut rows, &pose, &p.constants, &mut p.impulses);
        // A fixed side gets back what it had: nothing can change its velocity.
        let v = rows.velocity;
        velocities[a] = Velocity::new(v.va, v.wa);
        velocities[b] = Velocity::new(v.vb, v.wb);
    }
}

#[cfg(test)]
mod tests {
    //! The wide revolute and spherical solvers against the scalar rows of `joint/revolute.rs`
    //! and `joint/spherical.rs`: four joints on separate bodies, random poses, masses,
    //! velocities and warm-start impulses, every row present in some lane and absent in
    //! another; each lane must leave the velocities and impulses the scalar joint leaves.

    use super::super::revolute_joint::{PreparedRevolute, RevoluteJointSolver};
    use super::super::spherical_joint::{PreparedSpherical, SphericalJointSolver};
    use super::*;
    use crate::body::BodyId;
    use crate::joint::rows::Masses;
    use crate::joint::{JointDesc, Limits, Motor, RevoluteJoint, SphericalJoint, Spring};
    use crate::math::{Quat, Vec3};
    use crate::solver::test_random::TestRandom;

    /// Four joints between bodies 1–8 (body 0 is the fixed slot), with their solver bodies,
    /// motions and velocities.
    struct Setup {
        bodies: Vec<SolverBody>,
        motions: Vec<Motion>,
        velocities: Vec<Velocity>,
        poses: Vec<JointPose>,
        masses: Vec<Masses>,
        impulses: Vec<JointImpulses>,
    }

    impl Setup {
        /// Which solver bodies the solver moves, as the step gives the solvers.
        fn movable(&self) -> Vec<bool> {
            self.bodies.iter().map(|b| b.inv_mass > 0.0).collect()
        }
    }

    fn setup(random: &mut TestRandom) -> Setup {
        let mut bodies = vec![SolverBody::FIXED];
        let mut motions = vec![Motion::ZERO];
        let mut velocities = vec![Velocity::ZERO];
        for _ in 0..8 {
            bodies.push(SolverBody {
                inv_mass: 0.5 + 0.4 * random.unit(),
                dq: Quat::from_scaled_axis(random.vec(0.3)),
                inv_inertia: random.inertia(),
                ..SolverBody::FIXED
            });
            motions.push(Motion::new(random.vec(0.05), random.vec(0.05)));
            velocities.push(Velocity::new(random.vec(2.0), random.vec(3.0)));
        }
        let (mut poses, mut masses, mut impulses) = (Vec::new(), Vec::new(), Vec::new());
        for k in 0..4 {
            let (a, b) = (&bodies[2 * k + 1], &bodies[2 * k + 2]);
            poses.push(JointPose {
                arm_a: random.vec(0.5),
                arm_b: random.vec(0.5),
                delta_center: random.vec(1.0),
                frame_a: random.rotation(),
                frame_b: random.rotation(),
            });
            masses.push(masses_of(a, b));
            impulses.push(JointImpulses {
                point: random.vec(0.1),
                rotation: random.vec(0.05),
                friction: random.vec(0.01),
                spring: 0.05 * random.unit(),
                motor: 0.01 * random.unit(),
                lower: 0.02 * random.unit().abs(),
                upper: 0.02 * random.unit().abs(),
                swing: 0.02 * random.unit().abs(),
                tilt: [0.05 * random.unit(), 0.05 * random.unit()],
                ..Default::default()
            });
        }
        Setup { bodies, motions, velocities, poses, masses, impulses }
    }

    const H: f32 = 1.0 / 480.0;
    const RIGID: Softness = Softness { bias_rate: 100.0, mass_scale: 0.8, impulse_scale: 0.1 };

    /// Runs joint `k` of `s` through the scalar rows for `passes`, returning its bodies'
    /// velocities and its impulses.
    fn scalar(s: &Setup, k: usize, kind: JointKind, passes: &[Pass]) -> ([Velocity; 2], JointImpulses) {
        let (a, b) = (2 * k + 1, 2 * k + 2);
        let mut v = [s.velocities[a], s.velocities[b]];
        let mut impulses = s.impulses[k];
        let constants =
            JointConstants { springs: kind.spring_softness(H), rotation_mass: rotation_mass(&s.masses[k]) };
        for &pass in passes {
            let pose =
                s.poses[k].moved(s.bodies[a].dq, s.motions[a].first(), s.bodies[b].dq, s.motions[b].first());
            let mut rows = RowSolver {
                masses: &s.masses[k],
                velocity: PairVelocity {
                    va: v[0].first(),
                    wa: v[0].second(),
                    vb: v[1].first(),
                    wb: v[1].second(),
                },
                pass,
                rigid: RIGID,
                h: H,
                inv_h: 1.0 / H,
                reaction: Reaction::default(),
            };
            kind.solve(&mut rows, &pose, &constants, &mut impulses);
            v = [
                Velocity::new(rows.velocity.va, rows.velocity.wa),
                Velocity::new(rows.velocity.vb, rows.velocity.wb),
            ];
        }
        (v, impulses)
    }

    fn assert_close(what: &str, wide: Vec3, scalar: Vec3) {
        let tolerance = 2e-4 * (1.0 + scalar.length());
        assert!((wide - scalar).length() <= tolerance, "{what}: wide {wide} scalar {scalar}");
    }

    fn compare(s: &Setup, wide: &[Velocity], joints: &[Joint], kinds: &[JointKind], passes: &[Pass]) {
        for (k, kind) in kinds.iter().enumerate() {
            let (v, impulses) = scalar(s, k, *kind, passes);
            for (side, body) in [(0, 2 * k + 1), (1, 2 * k + 2)] {
                assert_close(&format!("joint {k} side {side} v"), wide[body].first(), v[side].first());
                assert_close(&format!("joint {k} side {side} w"), wide[body].second(), v[side].second());
            }
            let got = joints[k].impulses.words();
            for (n, (g, e)) in got.iter().zip(impulses.words()).enumerate() {
                assert!(
                    (g - e).abs() <= 2e-4 * (1.0 + e.abs()),
                    "joint {k} impulse word {n}: wide {g} scalar {e}"
                );
            }
        }
    }

    const PASSES: [Pass; 3] = [Pass::WarmStart, Pass::Solve, Pass::Relax];

    #[test]
    fn wide_revolute_lanes_match_the_scalar_rows() {
        let mut random = TestRandom(7);
        for _ in 0..20 {
            let mut s = setup(&mut random);
            let limits = Limits::new(-0.3 + 0.2 * random.unit(), 0.3 + 0.2 * random.unit());
            let hinges = [
                RevoluteJoint { motor: Some(Motor::new(1.0, 50.0)), ..Default::default() },
                RevoluteJoint { limits: Some(limits), ..Default::default() },
                RevoluteJoint {
                    spring: Some(Spring::new(4.0, 0.7)),
                    target_angle: 0.4,
                    ..Default::default()
                },
                RevoluteJoint {
                    limits: Some(limits),
                    motor: Some(Motor::new(-2.0, 0.5)),
                    spring: Some(Spring::new(2.0, 0.2)),
                    target_angle: -0.2,
                },
            ];
            for (i, hinge) in s.impulses.iter_mut().zip(hinges) {
                *i = rows_of(JointKind::Revolute(hinge), *i);
            }
            let prepared: Vec<PreparedRevolute> = (0..4)
                .map(|k| PreparedRevolute {
                    joint: k as u32,
                    bodies: (2 * k as u32 + 1, 2 * k as u32 + 2),
                    pose: s.poses[k],
                    hinge: hinges[k],
                    spring: JointKind::Revolute(hinges[k]).spring_softness(H)[0],
                    impulses: s.impulses[k],
                })
                .collect();
            let mut solver = RevoluteJointSolver::default();
            solver.prepare(&prepared, &s.bodies, &s.movable(), H);
            let mut velocities = s.velocities.clone();
            for &pass in &PASSES {
                solver.batches.run(pass, &s.bodies, &s.motions, &mut velocities, RIGID, None);
            }
            let kinds = hinges.map(JointKind::Revolute);
            let mut joints = fresh_joints(&kinds);
            solver.batches.store(&s.bodies, &s.motions, &mut joints);
            compare(&s, &velocities, &joints, &kinds, &PASSES);
        }
    }

    #[test]
    fn wide_spherical_lanes_match_the_scalar_rows() {
        let mut random = TestRandom(11);
        for _ in 0..20 {
            let mut s = setup(&mut random);
            let balls = [
                SphericalJoint { swing_limit: Some(0.3), ..Default::default() },
                SphericalJoint {
                    twist_limits: Some(Limits::new(-0.4, 0.2)),
                    friction: 3.0,
                    ..Default::default()
                },
                SphericalJoint {
                    spring: Some(Spring::new(3.0, 0.5)),
                    target_rotation: Quat::from_rotation_y(0.3),
                    ..Default::default()
                },
                SphericalJoint {
                    swing_limit: Some(0.8),
                    twist_limits: Some(Limits::new(-0.1, 0.1)),
                    friction: 0.5,
                    spring: Some(Spring::new(1.0, 1.0)),
                    target_rotation: Quat::from_rotation_x(-0.2),
                },
            ];
            for (i, ball) in s.impulses.iter_mut().zip(balls) {
                *i = rows_of(JointKind::Spherical(ball), *i);
            }
            let prepared: Vec<PreparedSpherical> = (0..4)
                .map(|k| PreparedSpherical {
                    joint: k as u32,
                    bodies: (2 * k as u32 + 1, 2 * k as u32 + 2),
                    pose: s.poses[k],
                    ball: balls[k],
                    spring: JointKind::Spherical(balls[k]).spring_softness(H)[0],
                    impulses: s.impulses[k],
                })
                .collect();
            let mut solver = SphericalJointSolver::default();
            solver.prepare(&prepared, &s.bodies, &s.movable(), H);
            let mut velocities = s.velocities.clone();
            for &pass in &PASSES {
                solver.batches.run(pass, &s.bodies, &s.motions, &mut velocities, RIGID, None);
            }
            let kinds = balls.map(JointKind::Spherical);
            let mut joints = fresh_joints(&kinds);
            solver.batches.store(&s.bodies, &s.motions, &mut joints);
            compare(&s, &velocities, &joints, &kinds, &PASSES);
        }
    }

    /// Joints of `kinds` for the solvers to store into.
    fn fresh_joints(kinds: &[JointKind]) -> Vec<Joint> {
        kinds
            .iter()
            .map(|&kind| Joint::from_desc(&JointDesc::new(kind, None, BodyId::TERRAIN), 0, 0, 0))
            .collect()
    }

    /// `i` with only the impulses of the rows `kind` has: what both solvers keep.
    fn rows_of(kind: JointKind, i: JointImpulses) -> JointImpulses {
        let mut kept = JointImpulses { point: i.point, ..Default::default() };
        match kind {
            JointKind::Revolute(j) => {
                kept.tilt = i.tilt;
                if j.spring.is_some() {
                    kept.spring = i.spring;
                }
                if j.motor.is_some() {
                    kept.motor = i.motor;
                }
                if j.limits.is_some() {
                    (kept.lower, kept.upper) = (i.lower, i.upper);
                }
            }
            JointKind::Spherical(j) => {
                if j.friction > 0.0 {
                    kept.friction = i.friction;
                }
                if j.spring.is_some() {
                    kept.rotation = i.rotation;
                }
                if j.swing_limit.is_some() {
                    kept.swing = i.swing;
                }
                if j.twist_limits.is_some() {
                    (kept.lower, kept.upper) = (i.lower, i.upper);
                }
            }
            _ => unreachable!("only the wide types are compared"),
        }
        kept
    }
}
