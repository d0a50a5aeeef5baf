//! Filling one batch of four contacts at the start of a step: each lane's contact and bodies
//! (and, where a lane has restitution, their velocities) gathered into lanes, then every row
//! prepared for the four lanes at once.
//!
//! Each lane computes exactly the operations, in the same order, that preparing its contact on
//! its own would (the tests compare the two bit for bit), so the batch is the same and only the
//! time changes: one scalar lane at a time, the fill was a sixth of the 3D pyramid's step; four
//! at a time it runs half the instructions (callgrind, `step_count pyramid3d 30 5`).

use super::{BatchPair, PairBounce};
use crate::math::Vec3;
use crate::narrowphase::{Contact, MAX_MANIFOLD_POINTS};
use crate::solver::simd::{Mat3x4, Vec3x4, f32x4, select};
use crate::solver::{SolverBody, Velocity};

/// What a lane needs of one of its bodies.
#[derive(Clone, Copy)]
pub(super) struct LaneBody<'a> {
    /// Index in the solver's arrays.
    pub slot: u32,
    /// Its mass and inertia as the solver sees them.
    pub body: &'a SolverBody,
    /// Its velocities at the start of the step.
    pub velocity: Velocity,
    /// Centre of mass at the start of the step.
    pub center: Vec3,
}

/// One lane's contact and its two bodies.
#[derive(Clone, Copy)]
pub(super) struct LaneInput<'a> {
    /// The touching contact.
    pub contact: &'a Contact,
    /// Its body A (the manifold's normal points from A to B).
    pub a: LaneBody<'a>,
    /// Its body B.
    pub b: LaneBody<'a>,
}

/// The contact of an empty lane: no points, and a unit normal so its rows stay finite.
pub(super) fn empty_contact() -> Contact {
    let mut contact = Contact::default();
    contact.manifold.normal = Vec3::Z;
    contact
}

/// An empty lane: [`empty_contact`] between the fixed body and itself.
pub(super) fn empty_lane(contact: &Contact) -> LaneInput<'_> {
    let fixed = LaneBody { slot: 0, body: &SolverBody::FIXED, velocity: Velocity::ZERO, center: Vec3::ZERO };
    LaneInput { contact, a: fixed, b: fixed }
}

/// Fills half `h` of `pair` (one batch) and of its `bounce` from `lanes` (an empty lane is
/// [`empty_lane`]). Point slots past every lane's count are left as they were: nothing reads
/// them. The points' approach speeds are zero in a batch where no lane has restitution:
/// nothing reads them there either. The other half is not touched. With `warm_starting` the
/// points and rows start from the contacts' stored impulses, else from zero. (The passes pick
/// each lane's softness from its inverse masses: the batch does not store it.)
#[inline(always)]
pub(super) fn fill_batch(
    pair: &mut BatchPair,
    bounce: &mut PairBounce,
    h: usize,
    lanes: [LaneInput; 4],
    warm_starting: bool,
) {
    let (sides_a, sides_b) = (lanes.map(|l| l.a), lanes.map(|l| l.b));
    let contacts = lanes.map(|l| l.contact);
    let inv_masses = |s: &[LaneBody; 4]| f32x4::new(s.map(|b| b.body.inv_mass));
    let inertias = |s: &[LaneBody; 4]| Mat3x4::from_lanes(s.map(|b| &b.body.inv_inertia));
    let vec3s = |s: &[LaneBody; 4], get: fn(&LaneBody) -> Vec3| Vec3x4::from_lanes(s.map(|b| get(&b)));
    let (ima, imb) = (inv_masses(&sides_a), inv_masses(&sides_b));
    let (inertia_a, inertia_b) = (inertias(&sides_a), inertias(&sides_b));
    let (ca, cb) = (vec3s(&sides_a, |b| b.center), vec3s(&sides_b, |b| b.center));

    let per_contact = |get: fn(&Contact) -> f32| f32x4::new(contacts.map(get));
    let n = Vec3x4::from_lanes(contacts.map(|c| c.manifold.normal));
    let friction = per_contact(|c| c.friction);
    let counts = contacts.map(|c| c.manifold.count);
    let point_count = counts.into_iter().max().unwrap_or(0);
    let count = f32x4::new(counts.map(|n| n as f32));
    // Empty lanes divide by one: their sums are zero anyway.
    let divisor = count.fast_max(f32x4::ONE);
    // All ones in every lane when warm starting, else all zeros: a mask for `select`.
    let warm = f32x4::splat(if warm_starting { 1.0 } else { 0.0 }).simd_gt(f32x4::ZERO);

    pair.body_a[h] = sides_a.map(|b| b.slot);
    pair.body_b[h] = sides_b.map(|b| b.slot);
    pair.normal.set_half(h, n);
    pair.inv_mass_a.set_half(h, ima);
    pair.inv_mass_b.set_half(h, imb);
    pair.friction.set_half(h, friction);
    let restitution = per_contact(|c| c.restitution);
    bounce.restitution.set_half(h, restitution);
    // Only restitution reads the points' approach speeds, and only in a batch where a lane may
    // bounce: a pile without restitution skips them and the velocity lanes they are made of.
    let velocities = restitution.simd_gt(f32x4::ZERO).any().then(|| {
        let (va, wa) = (vec3s(&sides_a, |b| b.velocity.first()), vec3s(&sides_a, |b| b.velocity.second()));
        let (vb, wb) = (vec3s(&sides_b, |b| b.velocity.first()), vec3s(&sides_b, |b| b.velocity.second()));
        (va, wa, vb, wb)
    });
    pair.point_counts[h] = point_count;

    // The spins a unit impulse along a direction gives each body, and the effective mass.
    let terms = |arm_a: Vec3x4, arm_b: Vec3x4| {
        let (spin_a, spin_b) = (inertia_a.mul_vec(arm_a), inertia_b.mul_vec(arm_b));
        let k = ima + imb + arm_a.dot(spin_a) + arm_b.dot(spin_b);
        (spin_a, spin_b, select(k.simd_gt(f32x4::ZERO), f32x4::ONE / k, f32x4::ZERO))
    };
    // Each point slot's lanes (a lane's missing points at zero).
    let mut valid = [f32x4::ZERO; MAX_MANIFOLD_POINTS];
    let mut positions = [Vec3x4::ZERO; MAX_MANIFOLD_POINTS];
    for i in 0..point_count {
        valid[i] = count.simd_gt(f32x4::splat(i as f32));
        positions[i] = Vec3x4::from_lanes(contacts.map(|c| c.manifold.points[i].position)).masked(valid[i]);
    }
    // Added in point order, as a lane's own sum would be; a lane's missing points add zero.
    let mut sum = Vec3x4::ZERO;
    for position in &positions[..point_count] {
        sum += *position;
    }
    let centre = sum.div(divisor);
    let mut twist_radius = f32x4::ZERO;
    for i in 0..point_count {
        let (valid, position) = (valid[i], positions[i]);
        let separation = f32x4::new(contacts.map(|c| c.manifold.points[i].separation));
        let stored = f32x4::new(contacts.map(|c| c.impulses[i].normal));
        let (r_a, r_b) = (position - ca, position - cb);
        let (arm_a, arm_b) = (r_a.cross(n), r_b.cross(n));
        let (spin_a, spin_b, mass) = terms(arm_a, arm_b);
        let p = &mut pair.points[i];
        // A missing point's separation is a leftover of an older manifold: zero it, so every
        // value filled is a function of the lanes' valid points only.
        p.separation.set_half(h, select(valid, separation, f32x4::ZERO));
        p.arm_a.set_half(h, arm_a);
        p.arm_b.set_half(h, arm_b);
        p.spin_a.set_half(h, spin_a);
        p.spin_b.set_half(h, spin_b);
        p.mass.set_half(h, select(valid, mass, f32x4::ZERO));
        p.impulse.set_half(h, select(valid & warm, stored, f32x4::ZERO));
        p.max_impulse.set_half(h, f32x4::ZERO);
        bounce.approach[i].set_half(
            h,
            match velocities {
                Some((va, wa, vb, wb)) => (vb + wb.cross(r_b) - va - wa.cross(r_a)).dot(n),
                None => f32x4::ZERO,
            },
        );
        let offset = position - centre;
        twist_radius += select(valid, (offset - n * offset.dot(n)).length(), f32x4::ZERO);
    }
    pair.twist_friction.set_half(h, friction * twist_radius / divisor);

    let (r_a, r_b) = (centre - ca, centre - cb);
    let (t1, t2) = n.orthonormal_basis(f32x4::ONE);
    let friction_impulse = Vec3x4::from_lanes(contacts.map(|c| c.friction_impulse));
    // Only the offsets and what the inertia gives: the passes make the directions and the
    // arms again, as here ([`super::WideFriction::rows`]).
    let f = &mut pair.friction_centre;
    f.offset_a.set_half(h, r_a);
    f.offset_b.set_half(h, r_b);
    for (k, t) in [t1, t2].into_iter().enumerate() {
        let (arm_a, arm_b) = (r_a.cross(t), r_b.cross(t));
        let (spin_a, spin_b, mass) = terms(arm_a, arm_b);
        f.spin_a[k].set_half(h, spin_a);
        f.spin_b[k].set_half(h, spin_b);
        f.mass[k].set_half(h, mass);
        f.impulse[k].set_half(h, select(warm, friction_impulse.dot(t), f32x4::ZERO));
    }
    let (spin_a, spin_b) = (inertia_a.mul_vec(n), inertia_b.mul_vec(n));
    pair.twist_spin_a.set_half(h, spin_a);
    pair.twist_spin_b.set_half(h, spin_b);
    let k_twist = n.dot(spin_a) + n.dot(spin_b);
    pair.twist_mass.set_half(h, select(k_twist.simd_gt(f32x4::ZERO), f32x4::ONE / k_twist, f32x4::ZERO));
    pair.twist_impulse.set_half(h, select(warm, per_contact(|c| c.twist_impulse), f32x4::ZERO));
}

/// The scalar reference the tests hold the batch fill to.
#[cfg(test)]
mod tests;
