//! Joints in the soft step: prepared once per step (the pose at the start, the bodies' masses,
//! the springs' softness, last step's impulses), then in every substep warm started, solved
//! with position feedback and relaxed without it, beside the contacts; stored at the end with
//! the force and torque each joint applied. Joints are solved one after another in joint order
//! (each reads the velocities the previous one left), so the result is the same on any thread
//! count.

use super::point_joint::{PointJoint, PointJointSolver};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::bitset::BitSet;
use crate::body::{Body, NONE};
use crate::joint::rows::{Masses, PairVelocity, Pass, Reaction, RowSolver, rotation_mass};
use crate::joint::{Joint, JointConstants, JointImpulses, JointKind, JointPose, PoseSide};

/// Solver index of sides that do not move in the solve (the world, static and sleeping
/// bodies): the fixed slot.
const FIXED_SLOT: u32 = 0;

/// Feedback that does nothing (the relax): full mass, no bias, no leak.
const NO_FEEDBACK: Softness = Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };

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
    /// Plain ball joints, solved four at a time (`point_joint.rs`).
    points: PointJointSolver,
    point_list: Vec<PointJoint>,
    rigid: Softness,
    h: f32,
}

impl JointSolver {
    /// Prepares every enabled joint in `awake` (joint slots) with at least one simulated
    /// dynamic side, in joint order. `solver_index` maps body slots to solver indices.
    #[allow(clippy::too_many_arguments)]
    pub fn prepare(
        &mut self,
        joints: &[Joint],
        awake: &BitSet,
        bodies: &[Body],
        solver_index: &[u32],
        solver_bodies: &[SolverBody],
        rigid: Softness,
        h: f32,
        warm_starting: bool,
    ) {
        self.prepared.clear();
        self.point_list.clear();
        self.rigid = rigid;
        self.h = h;
        for slot in awake.iter() {
            let j = &joints[slot];
            if !j.enabled {
                continue;
            }
            let index = |body: u32| if body == NONE { FIXED_SLOT } else { solver_index[body as usize] };
            let (body_a, body_b) = (index(j.body_a), index(j.body_b));
            let (sa, sb) = (&solver_bodies[body_a as usize], &solver_bodies[body_b as usize]);
            if sa.inv_mass == 0.0 && sb.inv_mass == 0.0 {
                continue;
            }
            let side = |body: u32| {
                if body == NONE {
                    PoseSide::WORLD
                } else {
                    let b = &bodies[body as usize];
                    PoseSide { transform: b.transform, local_center: b.local_center }
                }
            };
            let pose = JointPose::new(
                &side(j.body_a),
                (j.frame_a.anchor, j.frame_a.rotation),
                &side(j.body_b),
                (j.frame_b.anchor, j.frame_b.rotation),
            );
            let masses = masses_of(sa, sb);
            let impulses = if warm_starting { j.impulses } else { JointImpulses::default() };
            if is_plain_ball(&j.kind) {
                self.point_list.push(PointJoint {
                    joint: slot as u32,
                    body_a,
                    body_b,
                    arm_a: pose.arm_a,
                    arm_b: pose.arm_b,
                    delta_center: pose.delta_center,
                    inv_mass_a: masses.inv_mass_a,
                    inv_mass_b: masses.inv_mass_b,
                    inv_inertia_a: masses.inv_inertia_a,
                    inv_inertia_b: masses.inv_inertia_b,
                    impulse: impulses.point,
                });
                continue;
            }
            let constants =
                JointConstants { springs: j.kind.spring_softness(h), rotation_mass: rotation_mass(&masses) };
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
        self.points.prepare(&self.point_list, solver_bodies.iter().map(|b| b.inv_mass > 0.0));
    }

    /// Joints prepared this step.
    pub fn len(&self) -> usize {
        self.prepared.len() + self.points.len()
    }

    /// Runs `pass` over every joint, at the pose the bodies' motion so far gives.
    fn run(&mut self, pass: Pass, bodies: &[SolverBody], motions: &[Motion], velocities: &mut [Velocity]) {
        let (rigid, h) = (self.rigid, self.h);
        for p in &mut self.prepared {
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

    /// Applies the accumulated impulses again at the start of a substep.
    pub fn warm_start(&mut self, bodies: &[SolverBody], motions: &[Motion], velocities: &mut [Velocity]) {
        self.run(Pass::WarmStart, bodies, motions, velocities);
        self.points.run(bodies, motions, velocities, None);
    }

    /// One iteration over every joint, with position feedback (`use_bias`) or relaxing
    /// without it.
    pub fn solve(
        &mut self,
        bodies: &[SolverBody],
        motions: &[Motion],
        velocities: &mut [Velocity],
        use_bias: bool,
    ) {
        self.run(if use_bias { Pass::Solve } else { Pass::Relax }, bodies, motions, velocities);
        let soft = if use_bias { self.rigid } else { NO_FEEDBACK };
        self.points.run(bodies, motions, velocities, Some(soft));
    }

    /// Writes the impulses back for the next step, with the force, torque, motor load and
    /// limit state each joint had at the end of the step.
    pub fn store(&self, bodies: &[SolverBody], motions: &[Motion], joints: &mut [Joint]) {
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
        self.points.store(joints, self.h);
    }

    /// The joint slots solved this step: the general ones in joint order, then the plain ball
    /// joints in batch order.
    pub fn joints(&self) -> impl Iterator<Item = u32> + '_ {
        self.prepared.iter().map(|p| p.joint).chain(self.points.joints())
    }
}

/// The masses of a joint whose sides are solver bodies `a` and `b`.
#[inline(always)]
fn masses_of(a: &SolverBody, b: &SolverBody) -> Masses {
    Masses {
        inv_mass_a: a.inv_mass,
        inv_mass_b: b.inv_mass,
        inv_inertia_a: a.inv_inertia,
        inv_inertia_b: b.inv_inertia,
    }
}

/// A spherical joint with nothing but its point constraint: solved four at a time.
fn is_plain_ball(kind: &JointKind) -> bool {
    matches!(kind, JointKind::Spherical(j)
        if j.swing_limit.is_none() && j.twist_limits.is_none() && j.friction == 0.0
            && !j.spring.is_some_and(|s| s.is_active()))
}
