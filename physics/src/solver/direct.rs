//! The direct solve of groups whose masses differ widely: a light body under a heavy one, a
//! chain of light links holding a weight.
//!
//! The iterative passes fail these in two ways. A pass hands a load on between two bodies in
//! proportion to their masses, so a light body between heavy ones takes about `M / m` passes to
//! carry what it must: a 1 kg box under a 1000 kg one settled only after some 95 steps, having
//! sunk 0.71 m. And a soft row gives way under a load `W` by `W / (m ω²)`, `m` its effective
//! mass, the light body's, whatever it carries (0.28 m for that box at 30 Hz).
//!
//! So after each substep's solve pass and after its relax, the contact normals and joint points
//! of each such group are projected: the impulses that bring their velocities exactly to their
//! targets, from a dense solve over the group's rows (`dense_lcp.rs`). The target of the solve
//! pass feeds the position error back at the contact's (or joint's) bias rate, whatever the
//! masses; the relax's is none (but for a speculative contact's gap, as in the passes). A contact's impulse only pushes on top of what the passes
//! applied; a joint's point is held both ways. The passes never see what the projections
//! applied (see [`DirectSolver::store`]): each substep's projection carries what the passes
//! leave.
//!
//! A group is a set of bodies joined by contacts and joints in which some contact or joint
//! joins two moving bodies whose masses differ by more than [`MASS_RATIO`]; it is solved
//! directly while it has at most [`MAX_ROWS`] rows. The contacts' friction is projected too,
//! within the cones of the normal impulses the projection adds; joints' angular rows, limits,
//! motors and springs stay with the passes. Every group is one member's block of the stage, and
//! groups share no moving body, so the result is the same on any number of threads.

use super::dense_lcp::{DenseLcp, State};
use super::solve_arrays::SolveArrays;
use super::{FIXED_SLOT, Motion, SolverBody, Velocity};
use crate::body::{Body, NONE};
use crate::joint::{Joint, JointKind, JointPose};
use crate::math::{Quat, Vec3, orthonormal_basis};
use crate::narrowphase::Contact;
use crate::parallel::{Claims, SharedSlice, Team};

/// The mass ratio across one contact or joint between two moving bodies above which their group
/// is solved directly. The passes alone open a chain of 1 kg links released level with a weight
/// on its end by 14 mm at 1:10, 19 mm at 1:25, 24 mm at 1:50 and 48 mm at 1:100; solved
/// directly, by 8, 12, 2.6 and 0.3 mm (`validation/mass_ratio.rs`). But
/// the dense factor costs: a ragdoll (torso to upper arm 1:19) solved directly took some
/// 0.6 ms a step, twenty times its whole step. So the line is drawn above the ragdolls, and
/// below it a whipping chain opens by up to 24 mm; a factor that follows the groups' sparsity
/// (a ragdoll's rows are a tree) would let it come down.
pub(crate) const MASS_RATIO: f32 = 50.0;

/// The most rows a group is solved directly with: the factor costs `n³ / 6`, 350 000
/// multiplications at 128, once a step while the group is at rest and its rows' states hold,
/// else once per pivot. A larger group is left to the passes.
pub(crate) const MAX_ROWS: usize = 128;

/// How far a group's body turns, rad, before its rows are made again: an arm `r` turned by
/// `θ` moves its point by `r θ` across the row, so a row stays within 1 % of its direction.
const TURN_BEFORE_REBUILD: f32 = 0.01;

/// How fast the projections feed position errors back, per second, and the substep.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Feedback {
    /// Between two moving bodies, and against a fixed one (the contacts' softness).
    pub contact_movable: f32,
    pub contact_fixed: f32,
    /// At a joint's point (the joints' rigid softness).
    pub joint: f32,
    /// The fastest a contact pushes bodies apart, m/s.
    pub max_push_out_speed: f32,
    pub h: f32,
}

/// What a row holds together.
#[derive(Clone, Copy, Debug)]
enum Holds {
    /// Point `point` of touching contact `id`, `separation` apart at the start of the step,
    /// fed back at `bias_rate`.
    Contact { id: u32, point: u8, separation: f32, bias_rate: f32 },
    /// Friction of a touching contact at its manifold's centre: along tangent `axis` (0 or 1,
    /// `direction`), or its twist about the normal `normal` (2, `direction` zero), limited to
    /// `coefficient` times the normal impulse of its `points` normal rows, the rows
    /// `axis + points` to `axis + 1` before it.
    Friction { axis: u8, points: u8, coefficient: f32, normal: Vec3 },
    /// Axis `axis` (world x, y, z) of the point of joint slot `slot`, whose bodies' centres of
    /// mass were `delta_center` apart at the start of the step.
    Joint { slot: u32, axis: u8, delta_center: Vec3 },
}

/// One row: the velocity along `direction` of B's point relative to A's, `direction · (v_b -
/// v_a) + (arm_b × direction) · w_b - (arm_a × direction) · w_a`, held at its target.
#[derive(Clone, Copy, Debug)]
struct Row {
    a: u32,
    b: u32,
    direction: Vec3,
    /// The points relative to the centres of mass at the start of the step, world axes.
    arm_a: Vec3,
    arm_b: Vec3,
    holds: Holds,
}

/// One group's problem and what its projections applied.
#[derive(Clone, Debug, Default)]
struct Group {
    rows: std::ops::Range<usize>,
    lcp: DenseLcp,
    r: Vec<f64>,
    x: Vec<f64>,
    /// Per row, the bounds of its impulse.
    lower: Vec<f64>,
    upper: Vec<f64>,
    /// Per row, its arms as the bodies have turned, crossed with its direction (A's, B's).
    angular: Vec<(Vec3, Vec3)>,
    /// Per row, the impulse this substep's projections applied.
    applied: Vec<f64>,
    /// Per projection (the solve's, the relax's) and its two solves (normals, with friction),
    /// the rows' states the last time: where the next starts its pivoting.
    states: [[Vec<State>; 2]; 2],
    /// The group's bodies (solver indices, the fixed slot among them if a row has it), and
    /// their rotations when the problem was made.
    bodies: Vec<u32>,
    built_turns: Vec<Quat>,
}

/// Which projection of a substep.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Projection {
    /// After the solve pass: position errors fed back.
    Solve,
    /// After the relax: velocities only.
    Relax,
}

/// The direct solve's groups for one step.
#[derive(Clone, Debug)]
pub(crate) struct DirectSolver {
    /// [`MASS_RATIO`], but in tests.
    mass_ratio: f32,
    groups: Vec<Group>,
    /// Groups in use this step (the rest keep their buffers).
    group_count: usize,
    rows: Vec<Row>,
    claims: Claims,
    feedback: Feedback,
    /// Union-find parents over solver indices, and each root's group (or `u32::MAX`).
    parent: Vec<u32>,
    group_of_root: Vec<u32>,
    /// Rows with their group, before they are ordered by it.
    found: Vec<(u32, Row)>,
}

/// What finding the groups reads.
pub(crate) struct GroupInputs<'a> {
    pub solver_bodies: &'a [SolverBody],
    /// The solver bodies' centres of mass at the start of the step.
    pub centers: &'a [Vec3],
    /// The touching contacts' ids and solver bodies.
    pub touching: &'a [u32],
    pub pairs: &'a [(u32, u32)],
    pub contacts: &'a [Contact],
    pub joints: &'a [Joint],
    pub bodies: &'a [Body],
    /// Body slot to solver index.
    pub solver_index: &'a [u32],
}

impl Default for DirectSolver {
    fn default() -> DirectSolver {
        DirectSolver {
            mass_ratio: MASS_RATIO,
            groups: Vec::new(),
            group_count: 0,
            rows: Vec::new(),
            claims: Claims::default(),
            feedback: Feedback::default(),
            parent: Vec::new(),
            group_of_root: Vec::new(),
            found: Vec::new(),
        }
    }
}

impl DirectSolver {
    /// Solves groups directly above `ratio` (infinite: never), for tests.
    #[cfg(feature = "test-support")]
    pub fn set_mass_ratio(&mut self, ratio: f32) {
        self.mass_ratio = ratio;
    }

    /// Finds this step's groups among the touching contacts and the joints `joint_slots` (those
    /// the solve takes), and makes each one's problem.
    pub fn prepare(
        &mut self,
        inputs: &GroupInputs,
        joint_slots: impl Iterator<Item = u32>,
        feedback: Feedback,
    ) {
        self.group_count = 0;
        self.rows.clear();
        self.feedback = feedback;
        let bodies = inputs.solver_bodies;
        // Most scenes' moving bodies are within the ratio of each other: one pass over them
        // settles it. Inverse masses are never negative, so their bits order as they do; as
        // integers the pass is a few instructions a body (as floats, with their care for NaN,
        // it was 17, the joint grid's step +0.2 %).
        let (lightest, heaviest) = bodies
            .iter()
            .map(|b| b.inv_mass.to_bits())
            .filter(|&bits| bits != 0)
            .fold((0u32, u32::MAX), |(most, least), bits| (most.max(bits), least.min(bits)));
        if f32::from_bits(lightest) <= f32::from_bits(heaviest) * self.mass_ratio {
            return;
        }
        let joints: Vec<(u32, (u32, u32))> = joint_slots
            .filter(|&slot| has_point(&inputs.joints[slot as usize].kind))
            .map(|slot| {
                let j = &inputs.joints[slot as usize];
                let index =
                    |body: u32| if body == NONE { FIXED_SLOT } else { inputs.solver_index[body as usize] };
                (slot, (index(j.body_a), index(j.body_b)))
            })
            .collect();
        // Every constraint between moving bodies joins them; one across the ratio marks them.
        self.parent.clear();
        self.parent.extend(0..bodies.len() as u32);
        let moving = |k: u32| bodies[k as usize].inv_mass > 0.0;
        let mut marked = Vec::new();
        for &(a, b) in inputs.pairs.iter().chain(joints.iter().map(|(_, pair)| pair)) {
            if moving(a) && moving(b) {
                union(&mut self.parent, a, b);
                let (ia, ib) = (bodies[a as usize].inv_mass, bodies[b as usize].inv_mass);
                if ia.max(ib) > ia.min(ib) * self.mass_ratio {
                    marked.push(a);
                }
            }
        }
        if marked.is_empty() {
            return;
        }
        self.group_of_root.clear();
        self.group_of_root.resize(bodies.len(), u32::MAX);
        for a in marked {
            let root = find(&mut self.parent, a) as usize;
            if self.group_of_root[root] == u32::MAX {
                self.group_of_root[root] = self.group_count as u32;
                self.group_count += 1;
            }
        }
        // The rows, in contact order then joint order, then grouped (a stable sort).
        self.found.clear();
        for (k, &(a, b)) in inputs.pairs.iter().enumerate() {
            let Some(group) = self.group_of(if moving(a) { a } else { b }) else { continue };
            let id = inputs.touching[k];
            let c = &inputs.contacts[id as usize];
            let n = c.manifold.normal;
            let fixed = !(moving(a) && moving(b));
            let bias_rate = if fixed { feedback.contact_fixed } else { feedback.contact_movable };
            let arms = |at: Vec3| (at - inputs.centers[a as usize], at - inputs.centers[b as usize]);
            let points = c.manifold.points();
            for (i, p) in points.iter().enumerate() {
                let (arm_a, arm_b) = arms(p.position);
                let holds = Holds::Contact { id, point: i as u8, separation: p.separation, bias_rate };
                self.found.push((group, Row { a, b, direction: n, arm_a, arm_b, holds }));
            }
            if c.friction > 0.0 && !points.is_empty() {
                // As the passes have it: at the manifold's centre, the twist limited by the
                // points' mean distance from it.
                let centre = points.iter().map(|p| p.position).sum::<Vec3>() / points.len() as f32;
                let radius = points
                    .iter()
                    .map(|p| (p.position - centre).reject_from_normalized(n).length())
                    .sum::<f32>()
                    / points.len() as f32;
                let (arm_a, arm_b) = arms(centre);
                let (t1, t2) = orthonormal_basis(n);
                for (axis, direction) in [t1, t2, Vec3::ZERO].into_iter().enumerate() {
                    let coefficient = if axis == 2 { c.friction * radius } else { c.friction };
                    let points = points.len() as u8;
                    let holds = Holds::Friction { axis: axis as u8, points, coefficient, normal: n };
                    self.found.push((group, Row { a, b, direction, arm_a, arm_b, holds }));
                }
            }
        }
        for &(slot, (a, b)) in &joints {
            let Some(group) = self.group_of(if moving(a) { a } else { b }) else { continue };
            let pose = JointPose::anchors_of(&inputs.joints[slot as usize], inputs.bodies);
            for (axis, direction) in [Vec3::X, Vec3::Y, Vec3::Z].into_iter().enumerate() {
                let holds = Holds::Joint { slot, axis: axis as u8, delta_center: pose.delta_center };
                let (arm_a, arm_b) = (pose.arm_a, pose.arm_b);
                self.found.push((group, Row { a, b, direction, arm_a, arm_b, holds }));
            }
        }
        self.found.sort_by_key(|(group, _)| *group);
        if self.groups.len() < self.group_count {
            self.groups.resize_with(self.group_count, Group::default);
        }
        // Each group's rows, those too large dropped.
        let mut kept = 0;
        let mut start = 0;
        while start < self.found.len() {
            let group = self.found[start].0;
            let end = start + self.found[start..].iter().take_while(|(g, _)| *g == group).count();
            if end - start <= MAX_ROWS {
                let first = self.rows.len();
                self.rows.extend(self.found[start..end].iter().map(|(_, row)| *row));
                self.groups[kept].rows = first..self.rows.len();
                kept += 1;
            }
            start = end;
        }
        self.group_count = kept;
        for group in &mut self.groups[..kept] {
            group.start(&self.rows[group.rows.clone()]);
        }
        self.claims.reset(kept);
    }

    /// The group of the root of solver body `k`, if it has one.
    fn group_of(&mut self, k: u32) -> Option<u32> {
        let root = find(&mut self.parent, k) as usize;
        let group = self.group_of_root[root];
        (group != u32::MAX).then_some(group)
    }

    /// Whether no group is solved directly this step.
    pub fn is_empty(&self) -> bool {
        self.group_count == 0
    }

    /// Groups solved directly this step, and rows over them.
    pub fn counts(&self) -> (u32, u32) {
        (self.group_count as u32, self.groups[..self.group_count].iter().map(|g| g.rows.len() as u32).sum())
    }

    /// The groups as the solve's team shares them.
    pub fn share(&mut self) -> SharedDirect<'_> {
        SharedDirect {
            groups: SharedSlice::new(&mut self.groups[..self.group_count]),
            rows: &self.rows,
            claims: &self.claims,
            feedback: self.feedback,
        }
    }

    /// Adds what the last substep's projections applied to what the step reports: the joints'
    /// forces and the contacts' largest normal impulses (the passes' largest and the last
    /// substep's projected share). Not to the impulses the next step
    /// warm starts from: the passes never see the projections' share. Warm started with it, the
    /// passes pushed a heavy box back off its light one with the impulse that had stopped an
    /// impact, which a contact's projection, only ever pushing, could not take back (576 such
    /// stacks, dropped 2 mm, flew apart); and the plain ball and revolute batches, warm started
    /// with it, fed energy into light chains (up to 2.8 times their scale in 5 steps, where the
    /// general rows gained none).
    pub fn store(&self, contacts: &mut [Contact], joints: &mut [Joint]) {
        let inv_h = 1.0 / self.feedback.h;
        for group in &self.groups[..self.group_count] {
            for (row, &applied) in self.rows[group.rows.clone()].iter().zip(&group.applied) {
                let applied = applied as f32;
                match row.holds {
                    Holds::Contact { id, point, .. } => {
                        let stored = &mut contacts[id as usize].impulses[point as usize];
                        stored.max_normal = stored.max_normal.max(stored.normal + applied);
                    }
                    Holds::Friction { .. } => {}
                    Holds::Joint { slot, axis, .. } => {
                        joints[slot as usize].force[axis as usize] += applied * inv_h;
                    }
                }
            }
        }
    }
}

/// Whether joints of `kind` hold their anchors together with a rigid point (the rows a group
/// solves directly).
fn has_point(kind: &JointKind) -> bool {
    match kind {
        JointKind::Spherical(_) | JointKind::Revolute(_) => true,
        JointKind::Fixed(weld) => !weld.linear_spring.is_some_and(|s| s.is_active()),
        JointKind::Prismatic(_) | JointKind::Distance(_) | JointKind::Wheel(_) => false,
    }
}

/// The root of `k`, halving the path.
fn find(parent: &mut [u32], mut k: u32) -> u32 {
    while parent[k as usize] != k {
        let grand = parent[parent[k as usize] as usize];
        parent[k as usize] = grand;
        k = grand;
    }
    k
}

/// Joins the sets of `a` and `b` (the smaller root under the larger index's, deterministically).
fn union(parent: &mut [u32], a: u32, b: u32) {
    let (ra, rb) = (find(parent, a), find(parent, b));
    if ra != rb {
        parent[ra.max(rb) as usize] = ra.min(rb);
    }
}

/// What a unit impulse along a row does to a body: its velocity and its spin, the row's
/// direction times its inverse mass and its angular part through its inverse inertia.
fn response(body: &SolverBody, direction: Vec3, ang: Vec3) -> (Vec3, Vec3) {
    (direction * body.inv_mass, body.inv_inertia * ang)
}

impl Group {
    /// Sizes the work space for `rows` and forgets the last step's problem.
    fn start(&mut self, rows: &[Row]) {
        let n = rows.len();
        self.r.resize(n, 0.0);
        self.x.resize(n, 0.0);
        self.angular.resize(n, (Vec3::ZERO, Vec3::ZERO));
        self.lower.clear();
        self.upper.clear();
        for row in rows {
            let (lower, upper) = match row.holds {
                Holds::Contact { .. } => (0.0, f64::INFINITY),
                Holds::Friction { .. } => (0.0, 0.0),
                Holds::Joint { .. } => (f64::NEG_INFINITY, f64::INFINITY),
            };
            self.lower.push(lower);
            self.upper.push(upper);
        }
        self.applied.clear();
        self.applied.resize(n, 0.0);
        self.states.iter_mut().flatten().for_each(Vec::clear);
        self.bodies.clear();
        for row in rows {
            self.bodies.extend([row.a, row.b]);
        }
        self.bodies.sort_unstable();
        self.bodies.dedup();
        self.built_turns.clear();
    }

    /// The friction limit of friction row `i` (`row`): its coefficient times the normal
    /// impulses of its contact's normal rows in `x`, never negative.
    fn friction_limit(&self, i: usize, row: &Row) -> f64 {
        let Holds::Friction { axis, points, coefficient, .. } = row.holds else { return 0.0 };
        let first = i - axis as usize - points as usize;
        let normal: f64 = self.x[first..first + points as usize].iter().sum();
        (f64::from(coefficient) * normal).max(0.0)
    }

    /// Whether a body of the group has turned more than [`TURN_BEFORE_REBUILD`] since the
    /// problem was made (or none was made this step).
    fn turned(&self, body: &impl Fn(u32) -> SolverBody) -> bool {
        self.built_turns.len() != self.bodies.len()
            || self
                .bodies
                .iter()
                .zip(&self.built_turns)
                .any(|(&k, built)| body(k).dq.dot(*built).abs() < (0.5 * TURN_BEFORE_REBUILD).cos())
    }

    /// The rows' angular parts as the bodies have turned, and `A = J M⁻¹ Jᵀ` over them.
    fn make_problem(&mut self, rows: &[Row], bodies: &impl Fn(u32) -> SolverBody) {
        for (i, row) in rows.iter().enumerate() {
            let (ba, bb) = (bodies(row.a), bodies(row.b));
            self.angular[i] = match row.holds {
                Holds::Friction { axis: 2, normal, .. } => (normal, normal),
                _ => ((ba.dq * row.arm_a).cross(row.direction), (bb.dq * row.arm_b).cross(row.direction)),
            };
        }
        self.built_turns.clear();
        self.built_turns.extend(self.bodies.iter().map(|&k| bodies(k).dq));
        self.lcp.reset(rows.len());
        for (i, ri) in rows.iter().enumerate() {
            let (ang_ia, ang_ib) = self.angular[i];
            let sides_i = [(ri.a, -1.0f64, ang_ia), (ri.b, 1.0, ang_ib)];
            for (j, rj) in rows.iter().enumerate().take(i + 1) {
                let (ang_ja, ang_jb) = self.angular[j];
                let mut sum = 0.0f64;
                for &(body_i, sign_i, ang_i) in &sides_i {
                    let body = bodies(body_i);
                    if body.inv_mass == 0.0 {
                        continue;
                    }
                    for (body_j, sign_j, ang_j) in [(rj.a, -1.0f64, ang_ja), (rj.b, 1.0, ang_jb)] {
                        if body_j == body_i {
                            let (lin, ang) = response(&body, rj.direction, ang_j);
                            let dot = f64::from(ri.direction.dot(lin)) + f64::from(ang_i.dot(ang));
                            sum += sign_i * sign_j * dot;
                        }
                    }
                }
                self.lcp.add(i, j, sum);
            }
        }
        self.lcp.regularise();
    }
}

/// The groups of one solve, shared by the members of its team.
pub(crate) struct SharedDirect<'a> {
    groups: SharedSlice<'a, Group>,
    rows: &'a [Row],
    claims: &'a Claims,
    feedback: Feedback,
}

impl SharedDirect<'_> {
    /// Whether no group is solved directly.
    pub fn is_empty(&self) -> bool {
        self.groups.len() == 0
    }

    /// Projects every group's rows onto their targets, as one stage: a group per block.
    pub fn project(&self, team: &Team, arrays: &SolveArrays, projection: Projection) {
        if self.is_empty() {
            return;
        }
        team.for_blocks(self.groups.len(), 1, self.claims.words(), |block| {
            for g in block {
                // SAFETY: each group is one member's block in this stage, and groups share no
                // moving body: the velocities written are this member's alone, and nothing
                // writes the solver bodies or motions read in this stage.
                unsafe {
                    let group = &mut self.groups.slice_mut(g..g + 1)[0];
                    group.project(&self.rows[group.rows.clone()], arrays, projection, &self.feedback);
                }
            }
        });
    }
}

impl Group {
    /// One projection of this group's `rows`.
    ///
    /// # Safety
    /// No other thread writes the velocities of its moving bodies, or writes its solver bodies
    /// and motions, until it returns.
    unsafe fn project(&mut self, rows: &[Row], arrays: &SolveArrays, projection: Projection, f: &Feedback) {
        // SAFETY: as the caller guarantees.
        let velocity = |k: u32| unsafe { arrays.velocities.slice(k as usize..k as usize + 1)[0] };
        // SAFETY: as the caller guarantees.
        let motion = |k: u32| -> Motion { unsafe { arrays.motions.slice(k as usize..k as usize + 1)[0] } };
        // SAFETY: as the caller guarantees.
        let body = |k: u32| -> SolverBody { unsafe { arrays.bodies.slice(k as usize..k as usize + 1)[0] } };
        if projection == Projection::Solve {
            self.applied.iter_mut().for_each(|a| *a = 0.0);
        }
        // The rows as the bodies have turned since the step began: a link of a whipping chain
        // turns half a radian in a step, and held along the rows of its start the chain
        // opened half a metre. Made again only once a body turned enough to matter, so a
        // group at rest factors once a step.
        if self.turned(&body) {
            self.make_problem(rows, &body);
        }
        for (i, row) in rows.iter().enumerate() {
            let (ang_a, ang_b) = self.angular[i];
            let (va, vb) = (velocity(row.a), velocity(row.b));
            let rate =
                row.direction.dot(vb.first() - va.first()) + ang_b.dot(vb.second()) - ang_a.dot(va.second());
            let (ma, mb) = (motion(row.a), motion(row.b));
            let target = match row.holds {
                Holds::Contact { separation, bias_rate, .. } => {
                    // As the contact passes have it, from the arms at the start of the step.
                    let s = separation
                        + row.direction.dot(mb.first() - ma.first())
                        + row.arm_b.cross(row.direction).dot(mb.second())
                        - row.arm_a.cross(row.direction).dot(ma.second());
                    if s > 0.0 {
                        // Speculative: the approach that closes the gap this substep is allowed.
                        s / f.h
                    } else if projection == Projection::Solve {
                        (bias_rate * s).max(-f.max_push_out_speed)
                    } else {
                        0.0
                    }
                }
                Holds::Joint { delta_center, .. } if projection == Projection::Solve => {
                    let (ba, bb) = (body(row.a), body(row.b));
                    let gap = delta_center + mb.first() - ma.first() + bb.dq * row.arm_b - ba.dq * row.arm_a;
                    f.joint * row.direction.dot(gap)
                }
                Holds::Joint { .. } | Holds::Friction { .. } => 0.0,
            };
            self.r[i] = f64::from(rate) + f64::from(target);
        }
        // A body already non-finite is finalising's to stop and report: the group waits.
        if !self.r.iter().all(|r| r.is_finite()) {
            return;
        }
        // The normals first, friction held at zero; then friction within the cones of the
        // normal impulses found, and held to the cones of those the second solve ends with.
        // (The passes' own friction keeps within the cones of their own normal impulses, so
        // the sum keeps within the sum's.) Each solve starts from the states its rows ended in
        // the last time. A solve that does not end in a solution applies nothing: the passes'
        // velocities stand.
        let kind = projection as usize;
        let mut solved =
            self.lcp.solve(&self.r, &self.lower, &self.upper, &mut self.x, &mut self.states[kind][0]);
        let mut friction = false;
        for (i, row) in rows.iter().enumerate() {
            if let Holds::Friction { .. } = row.holds {
                let limit = self.friction_limit(i, row);
                (self.lower[i], self.upper[i]) = (-limit, limit);
                friction |= limit > 0.0;
            }
        }
        if solved && friction {
            solved =
                self.lcp.solve(&self.r, &self.lower, &self.upper, &mut self.x, &mut self.states[kind][1]);
            for (i, row) in rows.iter().enumerate() {
                if let Holds::Friction { .. } = row.holds {
                    let limit = self.friction_limit(i, row);
                    self.x[i] = self.x[i].max(-limit).min(limit);
                }
            }
        }
        for (i, row) in rows.iter().enumerate() {
            if let Holds::Friction { .. } = row.holds {
                (self.lower[i], self.upper[i]) = (0.0, 0.0);
            }
        }
        if !solved || !self.x.iter().all(|x| x.is_finite() && (*x as f32).is_finite()) {
            return;
        }
        for (i, row) in rows.iter().enumerate() {
            let x = self.x[i];
            if x == 0.0 {
                continue;
            }
            self.applied[i] += x;
            let impulse = x as f32;
            let (ang_a, ang_b) = self.angular[i];
            for (k, sign, ang) in [(row.a, -1.0f32, ang_a), (row.b, 1.0, ang_b)] {
                let b = body(k);
                if b.inv_mass == 0.0 {
                    continue;
                }
                let (lin, spin) = response(&b, row.direction, ang);
                // SAFETY: as the caller guarantees (a moving body of this group).
                let v = unsafe { &mut arrays.velocities.slice_mut(k as usize..k as usize + 1)[0] };
                *v = Velocity::new(v.first() + lin * (sign * impulse), v.second() + spin * (sign * impulse));
            }
        }
    }
}
