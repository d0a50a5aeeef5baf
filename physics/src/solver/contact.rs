//! Contact constraints: non-penetration with soft position feedback and speculative distance,
//! Coulomb friction on a disc, restitution and warm starting.
//!
//! Each point keeps its Jacobian's angular parts and their images under the inverse inertia,
//! computed once per step, so an iteration is a few dot products and scaled adds; each
//! constraint loads its two bodies' velocities once and writes them back once.

use super::{Softness, SolverBody};
use crate::math::{Vec3, orthonormal_basis};
use crate::narrowphase::{Contact, MAX_MANIFOLD_POINTS};

/// The angular part of one constraint direction at one point.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct AngularTerms {
    /// `r_a × dir` and `r_b × dir`: how each body's spin moves the point along `dir`.
    pub arm_a: Vec3,
    pub arm_b: Vec3,
    /// The same through each body's inverse inertia: the spin a unit impulse gives.
    pub spin_a: Vec3,
    pub spin_b: Vec3,
}

/// One point of a contact constraint.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint {
    /// Anchors from each centre of mass, world axes, at the start of the step.
    pub r_a: Vec3,
    pub r_b: Vec3,
    /// Separation minus the anchors' offset along the normal; adding the bodies' current
    /// relative displacement gives the current separation without re-running collision.
    pub adjusted_separation: f32,
    pub normal: AngularTerms,
    pub tangent: [AngularTerms; 2],
    pub normal_mass: f32,
    pub tangent_mass: [f32; 2],
    pub normal_impulse: f32,
    pub tangent_impulse: [f32; 2],
    pub max_normal_impulse: f32,
    /// Normal relative velocity before solving (for restitution).
    pub relative_velocity: f32,
}

/// A contact prepared for this step's substeps.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactConstraint {
    pub contact: u32,
    pub body_a: u32,
    pub body_b: u32,
    pub normal: Vec3,
    pub tangents: [Vec3; 2],
    pub friction: f32,
    pub restitution: f32,
    pub softness: Softness,
    pub inv_mass_a: f32,
    pub inv_mass_b: f32,
    pub count: usize,
    pub points: [ConstraintPoint; MAX_MANIFOLD_POINTS],
}

/// How contacts are prepared this step: softness between two movable bodies and (stiffer)
/// against immovable ones, and whether last step's impulses are reused.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSoftness {
    pub movable: Softness,
    pub fixed: Softness,
    pub warm_starting: bool,
}

/// The velocities of a constraint's two bodies while it is being solved.
struct PairVelocity {
    va: Vec3,
    wa: Vec3,
    vb: Vec3,
    wb: Vec3,
}

impl PairVelocity {
    #[inline]
    fn load(bodies: &[SolverBody], cc: &ContactConstraint) -> Self {
        let (a, b) = (&bodies[cc.body_a as usize], &bodies[cc.body_b as usize]);
        PairVelocity { va: a.v, wa: a.w, vb: b.v, wb: b.w }
    }

    #[inline]
    fn store(&self, bodies: &mut [SolverBody], cc: &ContactConstraint) {
        let a = &mut bodies[cc.body_a as usize];
        a.v = self.va;
        a.w = self.wa;
        let b = &mut bodies[cc.body_b as usize];
        b.v = self.vb;
        b.w = self.wb;
    }

    /// Relative velocity of B's point against A's along `dir`.
    #[inline]
    fn along(&self, dir: Vec3, ang: &AngularTerms) -> f32 {
        dir.dot(self.vb - self.va) + ang.arm_b.dot(self.wb) - ang.arm_a.dot(self.wa)
    }

    /// Applies `impulse` along `dir` (to B, and its opposite to A).
    #[inline]
    fn push(&mut self, cc: &ContactConstraint, dir: Vec3, ang: &AngularTerms, impulse: f32) {
        self.va -= dir * (impulse * cc.inv_mass_a);
        self.wa -= ang.spin_a * impulse;
        self.vb += dir * (impulse * cc.inv_mass_b);
        self.wb += ang.spin_b * impulse;
    }
}

/// Builds constraints for the touching contacts listed in `touching` (contact ids, ascending).
pub(crate) fn prepare_contacts(
    contacts: &[Contact],
    touching: &[u32],
    solver_index: &[u32],
    bodies: &[SolverBody],
    centers: &[Vec3],
    softness: ContactSoftness,
    out: &mut Vec<ContactConstraint>,
) {
    out.clear();
    for &id in touching {
        let c = &contacts[id as usize];
        let (a, b) = (solver_index[c.body_a as usize] as usize, solver_index[c.body_b as usize] as usize);
        let (ba, bb) = (&bodies[a], &bodies[b]);
        let n = c.manifold.normal;
        let (t1, t2) = orthonormal_basis(n);
        let mut cc = ContactConstraint {
            contact: id,
            body_a: a as u32,
            body_b: b as u32,
            normal: n,
            tangents: [t1, t2],
            friction: c.friction,
            restitution: c.restitution,
            softness: if ba.inv_mass == 0.0 || bb.inv_mass == 0.0 {
                softness.fixed
            } else {
                softness.movable
            },
            inv_mass_a: ba.inv_mass,
            inv_mass_b: bb.inv_mass,
            count: c.manifold.count,
            points: Default::default(),
        };
        let pair = PairVelocity { va: ba.v, wa: ba.w, vb: bb.v, wb: bb.w };
        for (i, mp) in c.manifold.points().iter().enumerate() {
            let r_a = mp.position - centers[a];
            let r_b = mp.position - centers[b];
            let terms = |dir: Vec3| {
                let (arm_a, arm_b) = (r_a.cross(dir), r_b.cross(dir));
                AngularTerms { arm_a, arm_b, spin_a: ba.inv_inertia * arm_a, spin_b: bb.inv_inertia * arm_b }
            };
            let effective_mass = |t: &AngularTerms| {
                let k = ba.inv_mass + bb.inv_mass + t.arm_a.dot(t.spin_a) + t.arm_b.dot(t.spin_b);
                if k > 0.0 { 1.0 / k } else { 0.0 }
            };
            let normal = terms(n);
            let tangent = [terms(t1), terms(t2)];
            let stored = c.impulses[i];
            cc.points[i] = ConstraintPoint {
                r_a,
                r_b,
                adjusted_separation: mp.separation - (r_b - r_a).dot(n),
                normal,
                tangent,
                normal_mass: effective_mass(&normal),
                tangent_mass: [effective_mass(&tangent[0]), effective_mass(&tangent[1])],
                normal_impulse: if softness.warm_starting { stored.normal } else { 0.0 },
                tangent_impulse: if softness.warm_starting {
                    [stored.tangent.dot(t1), stored.tangent.dot(t2)]
                } else {
                    [0.0, 0.0]
                },
                max_normal_impulse: 0.0,
                relative_velocity: pair.along(n, &normal),
            };
        }
        out.push(cc);
    }
}

/// Applies the accumulated impulses (warm start).
pub(crate) fn warm_start(bodies: &mut [SolverBody], constraints: &[ContactConstraint]) {
    for cc in constraints {
        let mut pair = PairVelocity::load(bodies, cc);
        for p in &cc.points[..cc.count] {
            pair.push(cc, cc.normal, &p.normal, p.normal_impulse);
            pair.push(cc, cc.tangents[0], &p.tangent[0], p.tangent_impulse[0]);
            pair.push(cc, cc.tangents[1], &p.tangent[1], p.tangent_impulse[1]);
        }
        pair.store(bodies, cc);
    }
}

/// One pass over all contacts. With `use_bias` the soft position feedback pushes overlapping
/// bodies apart; without it (the relax pass) only velocities are made consistent.
pub(crate) fn solve_contacts(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    inv_h: f32,
    max_push_out_speed: f32,
    use_bias: bool,
) {
    for cc in constraints.iter_mut() {
        let (ba, bb) = (&bodies[cc.body_a as usize], &bodies[cc.body_b as usize]);
        let (dp, dq_a, dq_b) = (bb.dp - ba.dp, ba.dq, bb.dq);
        let mut pair = PairVelocity::load(bodies, cc);
        for i in 0..cc.count {
            let p = &cc.points[i];
            // Current separation from the bodies' motion since the step began.
            let d = dp + (dq_b * p.r_b) - (dq_a * p.r_a);
            let s = d.dot(cc.normal) + p.adjusted_separation;
            let (bias, mass_scale, impulse_scale) = if s > 0.0 {
                // Speculative: allow exactly the approach that closes the gap this substep.
                (s * inv_h, 1.0, 0.0)
            } else if use_bias {
                (
                    (cc.softness.bias_rate * s).max(-max_push_out_speed),
                    cc.softness.mass_scale,
                    cc.softness.impulse_scale,
                )
            } else {
                (0.0, 1.0, 0.0)
            };
            let vn = pair.along(cc.normal, &p.normal);
            let lambda = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
            let new_impulse = (p.normal_impulse + lambda).max(0.0);
            let applied = new_impulse - p.normal_impulse;
            let normal_terms = p.normal;
            let p = &mut cc.points[i];
            p.normal_impulse = new_impulse;
            p.max_normal_impulse = p.max_normal_impulse.max(new_impulse);
            pair.push(cc, cc.normal, &normal_terms, applied);
        }
        solve_friction(&mut pair, cc);
        pair.store(bodies, cc);
    }
}

fn solve_friction(pair: &mut PairVelocity, cc: &mut ContactConstraint) {
    for i in 0..cc.count {
        let p = cc.points[i];
        let old = p.tangent_impulse;
        let mut new = [
            old[0] - p.tangent_mass[0] * pair.along(cc.tangents[0], &p.tangent[0]),
            old[1] - p.tangent_mass[1] * pair.along(cc.tangents[1], &p.tangent[1]),
        ];
        // Coulomb's cone, as a disc: the friction impulse may not exceed mu times the normal one.
        let limit = cc.friction * p.normal_impulse;
        let len_sq = new[0] * new[0] + new[1] * new[1];
        if len_sq > limit * limit {
            let scale = limit / len_sq.sqrt();
            new = [new[0] * scale, new[1] * scale];
        }
        cc.points[i].tangent_impulse = new;
        pair.push(cc, cc.tangents[0], &p.tangent[0], new[0] - old[0]);
        pair.push(cc, cc.tangents[1], &p.tangent[1], new[1] - old[1]);
    }
}

/// Restitution, once after the substeps: points that approached faster than `threshold` and
/// carried load get a normal velocity of `-restitution` times their approach speed.
pub(crate) fn apply_restitution(
    bodies: &mut [SolverBody],
    constraints: &mut [ContactConstraint],
    threshold: f32,
) {
    for cc in constraints.iter_mut().filter(|cc| cc.restitution > 0.0) {
        let mut pair = PairVelocity::load(bodies, cc);
        for i in 0..cc.count {
            let p = cc.points[i];
            if p.relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let vn = pair.along(cc.normal, &p.normal);
            let lambda = -p.normal_mass * (vn + cc.restitution * p.relative_velocity);
            let new_impulse = (p.normal_impulse + lambda).max(0.0);
            cc.points[i].normal_impulse = new_impulse;
            cc.points[i].max_normal_impulse = p.max_normal_impulse.max(new_impulse);
            pair.push(cc, cc.normal, &p.normal, new_impulse - p.normal_impulse);
        }
        pair.store(bodies, cc);
    }
}

/// Copies the accumulated impulses back into the contacts for next step's warm start.
pub(crate) fn store_impulses(constraints: &[ContactConstraint], contacts: &mut [Contact]) {
    for cc in constraints {
        let c = &mut contacts[cc.contact as usize];
        for (i, p) in cc.points[..cc.count].iter().enumerate() {
            c.impulses[i].normal = p.normal_impulse;
            c.impulses[i].tangent =
                cc.tangents[0] * p.tangent_impulse[0] + cc.tangents[1] * p.tangent_impulse[1];
            c.impulses[i].max_normal = p.max_normal_impulse;
        }
    }
}
