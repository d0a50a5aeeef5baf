//! Plain ball joints (spherical joints without limits, springs or friction: a point constraint
//! and nothing else), four at a time. They are the joints of chains, nets and grids, where
//! there are thousands of them, so they get what the contacts have: graph colouring into
//! batches of four that share no moving body (`colouring.rs`) and one `f32x4` lane per joint.
//!
//! A lane is the scalar point block of `joint/rows.rs`: the arms are turned by each body's
//! exact rotation so far this step (its solver quaternion, gathered per lane). The contacts'
//! linearised rotation vector is not enough here: a joint pulled hard turns its body by tens of
//! degrees in a substep, and arms turned to first order then disagree with the velocities
//! enough to feed energy in (a 3 m violation blew up in one step). The batches follow the joint
//! order, so the result is the same on every run and for every thread count.

use super::colouring::{Batches, EMPTY_LANE};
use super::simd::{Mat3x4, Vec3x4, f32x4, gather, scatter, select};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::joint::Joint;
use crate::math::{Mat3, Vec3};

/// One plain ball joint as prepared for the step, before it is put in a lane.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PointJoint {
    /// The joint's slot.
    pub joint: u32,
    /// Solver indices of its sides.
    pub body_a: u32,
    pub body_b: u32,
    /// Anchors from the centres of mass at the start of the step, world axes.
    pub arm_a: Vec3,
    pub arm_b: Vec3,
    /// B's centre minus A's at the start of the step.
    pub delta_center: Vec3,
    pub inv_mass_a: f32,
    pub inv_mass_b: f32,
    pub inv_inertia_a: Mat3,
    pub inv_inertia_b: Mat3,
    /// Last step's impulse (warm start).
    pub impulse: Vec3,
}

/// Four plain ball joints, one per lane; empty lanes have the fixed body and zero mass.
#[derive(Clone, Debug, Default)]
struct WidePointJoint {
    body_a: [u32; 4],
    body_b: [u32; 4],
    /// Joint slot per lane, [`EMPTY_LANE`] where the batch is not full.
    joints: [u32; 4],
    arm_a: Vec3x4,
    arm_b: Vec3x4,
    delta_center: Vec3x4,
    inv_mass_a: f32x4,
    inv_mass_b: f32x4,
    inv_inertia_a: Mat3x4,
    inv_inertia_b: Mat3x4,
    impulse: Vec3x4,
}

/// The plain ball joints of a step, coloured into batches of four.
#[derive(Clone, Debug, Default)]
pub(crate) struct PointJointSolver {
    batches: Batches,
    movable: Vec<bool>,
    pairs: Vec<(u32, u32)>,
    ones: Vec<u8>,
    wide: Vec<WidePointJoint>,
}

/// Four rotations (unit quaternions), one per lane.
struct Quatx4 {
    xyz: Vec3x4,
    w: f32x4,
}

impl Quatx4 {
    /// The solver rotations of bodies `bodies`.
    #[inline(always)]
    fn gather(solver_bodies: &[SolverBody], bodies: &[u32; 4]) -> Quatx4 {
        let q = bodies.map(|b| solver_bodies[b as usize].dq);
        Quatx4 {
            xyz: Vec3x4 {
                x: f32x4::new(q.map(|q| q.x)),
                y: f32x4::new(q.map(|q| q.y)),
                z: f32x4::new(q.map(|q| q.z)),
            },
            w: f32x4::new(q.map(|q| q.w)),
        }
    }

    /// Each lane's vector turned by its rotation: `v + 2w (q × v) + 2 q × (q × v)`.
    #[inline(always)]
    fn rotate(&self, v: Vec3x4) -> Vec3x4 {
        let two = f32x4::splat(2.0);
        let t = self.xyz.cross(v) * two;
        v + t * self.w + self.xyz.cross(t)
    }
}

/// Each lane's point block mass for arms `arm_a` and `arm_b`: the inverse of
/// `K = (m_a⁻¹ + m_b⁻¹) I − [r_a]× I_a⁻¹ [r_a]× − [r_b]× I_b⁻¹ [r_b]×`, rebuilt every time as the
/// scalar block is (see `RowSolver::point`). `K` is symmetric, so its inverse's columns are the
/// cross products of its columns over its determinant; a singular lane (an empty one) gets 0.
#[inline(always)]
fn point_mass(w: &WidePointJoint, arm_a: Vec3x4, arm_b: Vec3x4) -> Mat3x4 {
    let inv_mass = w.inv_mass_a + w.inv_mass_b;
    let column = |e: Vec3x4| {
        let spin_a = w.inv_inertia_a.mul_vec(arm_a.cross(e));
        let spin_b = w.inv_inertia_b.mul_vec(arm_b.cross(e));
        e * inv_mass - arm_a.cross(spin_a) - arm_b.cross(spin_b)
    };
    let (one, zero) = (f32x4::splat(1.0), f32x4::ZERO);
    let c0 = column(Vec3x4 { x: one, y: zero, z: zero });
    let c1 = column(Vec3x4 { x: zero, y: one, z: zero });
    let c2 = column(Vec3x4 { x: zero, y: zero, z: one });
    let (i0, i1, i2) = (c1.cross(c2), c2.cross(c0), c0.cross(c1));
    let det = c0.dot(i0);
    let usable = det.abs().simd_gt(f32x4::splat(f32::MIN_POSITIVE * 1e6));
    // Empty lanes have det 0: their 1 / 0 is replaced before it is used.
    let inv_det = select(usable, one / det, zero);
    Mat3x4 { cols: [i0 * inv_det, i1 * inv_det, i2 * inv_det] }
}

impl PointJointSolver {
    /// Colours `joints` (in joint order) and fills the batches; `movable[i]` says whether the
    /// solver moves solver body `i`.
    pub fn prepare(&mut self, joints: &[PointJoint], movable: impl Iterator<Item = bool>) {
        self.movable.clear();
        self.movable.extend(movable);
        self.pairs.clear();
        self.pairs.extend(joints.iter().map(|j| (j.body_a, j.body_b)));
        self.ones.clear();
        self.ones.resize(joints.len(), 1);
        self.batches.build(self.pairs.iter().copied(), &self.movable, &self.ones);
        self.wide.clear();
        for lanes in &self.batches.lanes {
            let mut w = WidePointJoint { joints: [EMPTY_LANE; 4], ..Default::default() };
            for (k, &lane) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
                let j = &joints[lane as usize];
                w.body_a[k] = j.body_a;
                w.body_b[k] = j.body_b;
                w.joints[k] = j.joint;
                w.arm_a.set_lane(k, j.arm_a);
                w.arm_b.set_lane(k, j.arm_b);
                w.delta_center.set_lane(k, j.delta_center);
                w.inv_mass_a.as_mut_array()[k] = j.inv_mass_a;
                w.inv_mass_b.as_mut_array()[k] = j.inv_mass_b;
                w.inv_inertia_a.set_lane(k, &j.inv_inertia_a);
                w.inv_inertia_b.set_lane(k, &j.inv_inertia_b);
                w.impulse.set_lane(k, j.impulse);
            }
            self.wide.push(w);
        }
    }

    /// Joints in the batches.
    pub fn len(&self) -> usize {
        self.pairs.len()
    }

    /// The joint slots solved, in batch order.
    pub fn joints(&self) -> impl Iterator<Item = u32> + '_ {
        self.wide.iter().flat_map(|w| w.joints).filter(|&j| j != EMPTY_LANE)
    }

    /// With `None`, applies the accumulated impulses again (the warm start); with
    /// `Some(soft)`, solves every batch once with feedback `soft` (the relax passes feedback
    /// that does nothing).
    pub fn run(
        &mut self,
        bodies: &[SolverBody],
        motions: &[Motion],
        velocities: &mut [Velocity],
        soft: Option<Softness>,
    ) {
        for w in &mut self.wide {
            let (moved_a, _) = gather(motions, &w.body_a);
            let (moved_b, _) = gather(motions, &w.body_b);
            let arm_a = Quatx4::gather(bodies, &w.body_a).rotate(w.arm_a);
            let arm_b = Quatx4::gather(bodies, &w.body_b).rotate(w.arm_b);
            let (mut va, mut wa) = gather(velocities, &w.body_a);
            let (mut vb, mut wb) = gather(velocities, &w.body_b);
            let impulse = match soft {
                None => w.impulse,
                Some(soft) => {
                    let rate = vb + wb.cross(arm_b) - va - wa.cross(arm_a);
                    let separation = w.delta_center + moved_b - moved_a + arm_b - arm_a;
                    let bias = separation * f32x4::splat(soft.bias_rate);
                    let mass = point_mass(w, arm_a, arm_b);
                    let impulse = mass.mul_vec(rate + bias) * f32x4::splat(-soft.mass_scale)
                        - w.impulse * f32x4::splat(soft.impulse_scale);
                    w.impulse += impulse;
                    impulse
                }
            };
            va -= impulse * w.inv_mass_a;
            wa -= w.inv_inertia_a.mul_vec(arm_a.cross(impulse));
            vb += impulse * w.inv_mass_b;
            wb += w.inv_inertia_b.mul_vec(arm_b.cross(impulse));
            scatter(velocities, &w.body_a, va, wa);
            scatter(velocities, &w.body_b, vb, wb);
        }
    }

    /// Writes each joint's impulse back for the next step, with its force (impulse over the
    /// substep `h`); a plain ball joint carries no torque, motor or limit.
    pub fn store(&self, joints: &mut [Joint], h: f32) {
        for w in &self.wide {
            for k in (0..4).filter(|&k| w.joints[k] != EMPTY_LANE) {
                let j = &mut joints[w.joints[k] as usize];
                j.impulses.point = w.impulse.lane(k);
                j.force = j.impulses.point / h;
                j.torque = Vec3::ZERO;
                j.motor_load = 0.0;
                j.limit_active = false;
            }
        }
    }
}
