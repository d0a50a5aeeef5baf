//! Contact constraints: non-penetration with soft position feedback and speculative distance,
//! Coulomb friction on a disc, restitution and warm starting.

use super::{Softness, SolverBody};
use crate::math::{Mat3, Vec3, orthonormal_basis};
use crate::narrowphase::{Contact, MAX_MANIFOLD_POINTS};

/// One point of a contact constraint.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConstraintPoint {
    /// Anchors from each centre of mass, world axes, at the start of the step.
    pub r_a: Vec3,
    pub r_b: Vec3,
    /// Separation minus the anchors' offset along the normal; adding the bodies' current
    /// relative displacement gives the current separation without re-running collision.
    pub adjusted_separation: f32,
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
    pub inv_i_a: Mat3,
    pub inv_i_b: Mat3,
    pub count: usize,
    pub points: [ConstraintPoint; MAX_MANIFOLD_POINTS],
}

/// Softness for contacts between two movable bodies, and (stiffer) against immovable ones.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ContactSoftness {
    pub movable: Softness,
    pub fixed: Softness,
}

/// Builds constraints for the touching contacts listed in `touching` (contact ids, ascending).
pub(crate) fn prepare_contacts(
    contacts: &[Contact],
    touching: &[u32],
    bodies: &[SolverBody],
    centers: &[Vec3],
    softness: ContactSoftness,
    warm_starting: bool,
    out: &mut Vec<ContactConstraint>,
) {
    out.clear();
    for &id in touching {
        let c = &contacts[id as usize];
        let (a, b) = (c.body_a as usize, c.body_b as usize);
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
            inv_i_a: ba.inv_inertia,
            inv_i_b: bb.inv_inertia,
            count: c.manifold.count,
            points: Default::default(),
        };
        for (i, mp) in c.manifold.points().iter().enumerate() {
            let r_a = mp.position - centers[a];
            let r_b = mp.position - centers[b];
            let effective = |dir: Vec3| {
                let ra_x = r_a.cross(dir);
                let rb_x = r_b.cross(dir);
                let k = ba.inv_mass
                    + bb.inv_mass
                    + ra_x.dot(ba.inv_inertia * ra_x)
                    + rb_x.dot(bb.inv_inertia * rb_x);
                if k > 0.0 { 1.0 / k } else { 0.0 }
            };
            let stored = c.impulses[i];
            let rel_v = (bb.v + bb.w.cross(r_b)) - (ba.v + ba.w.cross(r_a));
            cc.points[i] = ConstraintPoint {
                r_a,
                r_b,
                adjusted_separation: mp.separation - (r_b - r_a).dot(n),
                normal_mass: effective(n),
                tangent_mass: [effective(t1), effective(t2)],
                normal_impulse: if warm_starting { stored.normal } else { 0.0 },
                tangent_impulse: if warm_starting {
                    [stored.tangent.dot(t1), stored.tangent.dot(t2)]
                } else {
                    [0.0, 0.0]
                },
                max_normal_impulse: 0.0,
                relative_velocity: rel_v.dot(n),
            };
        }
        out.push(cc);
    }
}

#[inline]
fn apply(bodies: &mut [SolverBody], cc: &ContactConstraint, r_a: Vec3, r_b: Vec3, impulse: Vec3) {
    let (a, b) = (cc.body_a as usize, cc.body_b as usize);
    bodies[a].v -= impulse * cc.inv_mass_a;
    bodies[a].w -= cc.inv_i_a * r_a.cross(impulse);
    bodies[b].v += impulse * cc.inv_mass_b;
    bodies[b].w += cc.inv_i_b * r_b.cross(impulse);
}

#[inline]
fn relative_velocity(bodies: &[SolverBody], cc: &ContactConstraint, r_a: Vec3, r_b: Vec3) -> Vec3 {
    let (ba, bb) = (&bodies[cc.body_a as usize], &bodies[cc.body_b as usize]);
    (bb.v + bb.w.cross(r_b)) - (ba.v + ba.w.cross(r_a))
}

/// Applies the accumulated impulses (warm start).
pub(crate) fn warm_start(bodies: &mut [SolverBody], constraints: &[ContactConstraint]) {
    for cc in constraints {
        for p in &cc.points[..cc.count] {
            let impulse = cc.normal * p.normal_impulse
                + cc.tangents[0] * p.tangent_impulse[0]
                + cc.tangents[1] * p.tangent_impulse[1];
            apply(bodies, cc, p.r_a, p.r_b, impulse);
        }
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
        let (dp_a, dq_a, dp_b, dq_b) = (ba.dp, ba.dq, bb.dp, bb.dq);
        for i in 0..cc.count {
            let p = cc.points[i];
            // Current separation from the bodies' motion since the step began.
            let d = (dp_b - dp_a) + (dq_b * p.r_b) - (dq_a * p.r_a);
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
            let vn = relative_velocity(bodies, cc, p.r_a, p.r_b).dot(cc.normal);
            let lambda = -p.normal_mass * mass_scale * (vn + bias) - impulse_scale * p.normal_impulse;
            let new_impulse = (p.normal_impulse + lambda).max(0.0);
            let applied = new_impulse - p.normal_impulse;
            let pt = &mut cc.points[i];
            pt.normal_impulse = new_impulse;
            pt.max_normal_impulse = pt.max_normal_impulse.max(new_impulse);
            apply(bodies, cc, p.r_a, p.r_b, cc.normal * applied);
        }
        solve_friction(bodies, cc);
    }
}

fn solve_friction(bodies: &mut [SolverBody], cc: &mut ContactConstraint) {
    for i in 0..cc.count {
        let p = cc.points[i];
        let vt = relative_velocity(bodies, cc, p.r_a, p.r_b);
        let old = p.tangent_impulse;
        let mut new = [
            old[0] - p.tangent_mass[0] * vt.dot(cc.tangents[0]),
            old[1] - p.tangent_mass[1] * vt.dot(cc.tangents[1]),
        ];
        // Coulomb's cone, as a disc: the friction impulse may not exceed mu times the normal one.
        let limit = cc.friction * p.normal_impulse;
        let len_sq = new[0] * new[0] + new[1] * new[1];
        if len_sq > limit * limit {
            let scale = limit / len_sq.sqrt();
            new = [new[0] * scale, new[1] * scale];
        }
        cc.points[i].tangent_impulse = new;
        let applied = cc.tangents[0] * (new[0] - old[0]) + cc.tangents[1] * (new[1] - old[1]);
        apply(bodies, cc, p.r_a, p.r_b, applied);
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
        for i in 0..cc.count {
            let p = cc.points[i];
            if p.relative_velocity > -threshold || p.max_normal_impulse == 0.0 {
                continue;
            }
            let vn = relative_velocity(bodies, cc, p.r_a, p.r_b).dot(cc.normal);
            let lambda = -p.normal_mass * (vn + cc.restitution * p.relative_velocity);
            let new_impulse = (p.normal_impulse + lambda).max(0.0);
            let applied = new_impulse - p.normal_impulse;
            cc.points[i].normal_impulse = new_impulse;
            cc.points[i].max_normal_impulse = p.max_normal_impulse.max(new_impulse);
            apply(bodies, cc, p.r_a, p.r_b, cc.normal * applied);
        }
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
