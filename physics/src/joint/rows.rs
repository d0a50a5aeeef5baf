//! The algebra every joint type is built from: one-dimensional rows (a linear direction with
//! its moment arms, or an axis of rotation) solved as soft equalities, limits, motors and
//! springs, plus two three-dimensional blocks (the point constraint that holds two anchors
//! together and the rotation lock). A joint type's `solve` lists its rows; the [`Pass`] says
//! whether they are warm started, solved (with or without position feedback) or summed into
//! the force and torque the joint applied.
//!
//! Impulses are per substep: warm starting applies last substep's accumulated impulse again,
//! so a row's impulse divided by the substep length is its force.

use crate::math::{Mat3, Vec3};
use crate::solver::{Softness, SolverBody};

/// The inverse masses and world inverse inertias of a joint's two bodies (zero for the world,
/// static, kinematic and sleeping sides).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Masses {
    pub inv_mass_a: f32,
    pub inv_mass_b: f32,
    pub inv_inertia_a: Mat3,
    pub inv_inertia_b: Mat3,
}

/// The masses of a joint whose sides are solver bodies `a` and `b` (for the joint passes).
#[inline(always)]
pub(crate) fn masses_of(a: &SolverBody, b: &SolverBody) -> Masses {
    Masses {
        inv_mass_a: a.inv_mass,
        inv_mass_b: b.inv_mass,
        inv_inertia_a: a.inv_inertia,
        inv_inertia_b: b.inv_inertia,
    }
}

/// The two bodies' velocities while a joint is solved.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PairVelocity {
    pub va: Vec3,
    pub wa: Vec3,
    pub vb: Vec3,
    pub wb: Vec3,
}

/// One constraint row: how the constrained value changes with the bodies' velocities,
/// `dC/dt = linear · (vb - va) + angular_b · wb - angular_a · wa`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Row {
    pub linear: Vec3,
    pub angular_a: Vec3,
    pub angular_b: Vec3,
}

impl Row {
    /// A rotation about `axis` (B relative to A).
    #[inline]
    pub fn angular(axis: Vec3) -> Row {
        Row { linear: Vec3::ZERO, angular_a: axis, angular_b: axis }
    }

    /// A translation along `direction` of B's point at `arm_b` relative to A's point whose
    /// moment arm, for A's spin, is `arm_a` (for a direction fixed in A, the arm reaches B's
    /// anchor, since A's spin turns the direction too).
    #[inline]
    pub fn linear(direction: Vec3, arm_a: Vec3, arm_b: Vec3) -> Row {
        Row { linear: direction, angular_a: arm_a.cross(direction), angular_b: arm_b.cross(direction) }
    }

    /// The same row pushing the other way.
    #[inline]
    pub fn negated(&self) -> Row {
        Row { linear: -self.linear, angular_a: -self.angular_a, angular_b: -self.angular_b }
    }

    #[inline]
    fn velocity(&self, v: &PairVelocity) -> f32 {
        self.linear.dot(v.vb - v.va) + self.angular_b.dot(v.wb) - self.angular_a.dot(v.wa)
    }

    /// One over the row's effective inverse mass (0 when nothing can move it).
    #[inline]
    fn mass(&self, m: &Masses) -> f32 {
        let k = (m.inv_mass_a + m.inv_mass_b) * self.linear.length_squared()
            + self.angular_a.dot(m.inv_inertia_a * self.angular_a)
            + self.angular_b.dot(m.inv_inertia_b * self.angular_b);
        if k > 0.0 { 1.0 / k } else { 0.0 }
    }

    #[inline]
    fn apply(&self, m: &Masses, v: &mut PairVelocity, impulse: f32) {
        v.va -= self.linear * (m.inv_mass_a * impulse);
        v.wa -= m.inv_inertia_a * (self.angular_a * impulse);
        v.vb += self.linear * (m.inv_mass_b * impulse);
        v.wb += m.inv_inertia_b * (self.angular_b * impulse);
    }

    /// Adds the row's impulse to a reaction: its linear part is a force on B; a pure rotation
    /// row's is a torque.
    #[inline]
    fn add_reaction(&self, reaction: &mut Reaction, impulse: f32) {
        if self.linear == Vec3::ZERO {
            reaction.torque += self.angular_b * impulse;
        } else {
            reaction.force += self.linear * impulse;
        }
    }
}

/// What a pass over a joint's rows does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Pass {
    /// Apply each row's accumulated impulse.
    WarmStart,
    /// Solve each row with position feedback.
    Solve,
    /// Solve each row without position feedback on rigid rows (springs keep theirs).
    Relax,
    /// Sum the accumulated impulses into a [`Reaction`], changing no velocity.
    Reaction,
}

/// The impulse a joint applied to body B: linear and angular parts, per substep.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Reaction {
    pub force: Vec3,
    pub torque: Vec3,
}

/// Soft feedback that does nothing: full mass, no bias, no leak.
pub(crate) const NO_FEEDBACK: Softness = Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };

/// Runs one pass over a joint's rows.
pub(crate) struct RowSolver<'a> {
    pub masses: &'a Masses,
    pub velocity: PairVelocity,
    pub pass: Pass,
    /// The feedback of rigid rows (the world's joint stiffness).
    pub rigid: Softness,
    /// The substep length (a motor's largest impulse is its force times this).
    pub h: f32,
    /// One over the substep length: a limit not yet reached may close its gap in one substep.
    pub inv_h: f32,
    pub reaction: Reaction,
}

impl RowSolver<'_> {
    /// The feedback rigid rows use in this pass.
    #[inline]
    pub fn rigid_feedback(&self) -> Softness {
        if self.pass == Pass::Solve { self.rigid } else { NO_FEEDBACK }
    }

    /// Handles the passes that only replay an accumulated impulse; true when done.
    #[inline]
    fn replayed(&mut self, row: &Row, accumulated: f32) -> bool {
        match self.pass {
            Pass::WarmStart => row.apply(self.masses, &mut self.velocity, accumulated),
            Pass::Reaction => row.add_reaction(&mut self.reaction, accumulated),
            Pass::Solve | Pass::Relax => return false,
        }
        true
    }

    /// Drives `c` (whose rate is the row's velocity) to zero with feedback `soft`.
    #[inline]
    pub fn equality(&mut self, row: &Row, c: f32, soft: Softness, accumulated: &mut f32) {
        if self.replayed(row, *accumulated) {
            return;
        }
        let mass = row.mass(self.masses);
        let rate = row.velocity(&self.velocity);
        let impulse =
            -soft.mass_scale * mass * (rate + soft.bias_rate * c) - soft.impulse_scale * *accumulated;
        *accumulated += impulse;
        row.apply(self.masses, &mut self.velocity, impulse);
    }

    /// A rigid equality: `c` held at zero with the world's joint stiffness.
    #[inline]
    pub fn rigid(&mut self, row: &Row, c: f32, accumulated: &mut f32) {
        let soft = self.rigid_feedback();
        self.equality(row, c, soft, accumulated);
    }

    /// A spring pulling `c` to zero: its feedback holds in every pass, as a real spring's does.
    #[inline]
    pub fn spring(&mut self, row: &Row, c: f32, spring: Softness, accumulated: &mut f32) {
        self.equality(row, c, spring, accumulated);
    }

    /// Keeps `c ≥ 0` (the row's velocity is its rate). While the limit is not reached the row
    /// only stops the bodies from crossing it within the substep; once crossed it pushes back
    /// with the rigid feedback.
    #[inline]
    pub fn limit(&mut self, row: &Row, c: f32, accumulated: &mut f32) {
        if self.replayed(row, *accumulated) {
            return;
        }
        let soft = if c > 0.0 {
            Softness { bias_rate: self.inv_h, mass_scale: 1.0, impulse_scale: 0.0 }
        } else {
            self.rigid_feedback()
        };
        let mass = row.mass(self.masses);
        let rate = row.velocity(&self.velocity);
        let impulse =
            -soft.mass_scale * mass * (rate + soft.bias_rate * c) - soft.impulse_scale * *accumulated;
        let total = (*accumulated + impulse).max(0.0);
        let applied = total - *accumulated;
        *accumulated = total;
        row.apply(self.masses, &mut self.velocity, applied);
    }

    /// Drives the row's rate towards `speed` with an accumulated impulse of at most
    /// `max_impulse` either way.
    #[inline]
    pub fn motor(&mut self, row: &Row, speed: f32, max_impulse: f32, accumulated: &mut f32) {
        if self.replayed(row, *accumulated) {
            return;
        }
        let mass = row.mass(self.masses);
        let impulse = -mass * (row.velocity(&self.velocity) - speed);
        let total = (*accumulated + impulse).clamp(-max_impulse, max_impulse);
        let applied = total - *accumulated;
        *accumulated = total;
        row.apply(self.masses, &mut self.velocity, applied);
    }

    /// Holds B's anchor (at `arm_b` from its centre) on A's (at `arm_a`), `separation` apart
    /// now, as one 3 × 3 block. The block's mass is rebuilt from the turned arms every time:
    /// taken once at the start of the step it goes wrong as soon as a joint pulled hard turns
    /// its body by tens of degrees in a substep, and the solve then feeds energy in (a 3 m
    /// violation between two balls blew up in one step).
    #[inline]
    pub fn point(
        &mut self,
        (arm_a, arm_b): (Vec3, Vec3),
        separation: Vec3,
        soft: Softness,
        accumulated: &mut Vec3,
    ) {
        match self.pass {
            Pass::WarmStart => {
                return apply_point(self.masses, &mut self.velocity, arm_a, arm_b, *accumulated);
            }
            Pass::Reaction => {
                self.reaction.force += *accumulated;
                return;
            }
            Pass::Solve | Pass::Relax => {}
        }
        let v = &self.velocity;
        let rate = v.vb + v.wb.cross(arm_b) - v.va - v.wa.cross(arm_a);
        let mass = point_mass(self.masses, arm_a, arm_b);
        let impulse = -(mass * (rate + separation * soft.bias_rate)) * soft.mass_scale
            - *accumulated * soft.impulse_scale;
        *accumulated += impulse;
        apply_point(self.masses, &mut self.velocity, arm_a, arm_b, impulse);
    }

    /// Handles the passes of an angular block that only replay its accumulated angular
    /// impulse; true when done.
    #[inline]
    fn replayed_rotation(&mut self, accumulated: Vec3) -> bool {
        match self.pass {
            Pass::WarmStart => apply_rotation(self.masses, &mut self.velocity, accumulated),
            Pass::Reaction => self.reaction.torque += accumulated,
            Pass::Solve | Pass::Relax => return false,
        }
        true
    }

    /// Turns B's frame onto A's: `error` is the rotation vector from A's frame to B's target,
    /// `inverse_mass` the inverse of the two bodies' summed inverse inertias.
    #[inline]
    pub fn rotation(&mut self, inverse_mass: &Mat3, error: Vec3, soft: Softness, accumulated: &mut Vec3) {
        if self.replayed_rotation(*accumulated) {
            return;
        }
        let rate = self.velocity.wb - self.velocity.wa;
        let impulse = -(*inverse_mass * (rate + error * soft.bias_rate)) * soft.mass_scale
            - *accumulated * soft.impulse_scale;
        *accumulated += impulse;
        apply_rotation(self.masses, &mut self.velocity, impulse);
    }

    /// Resists B's rotation relative to A with an angular impulse of at most `max_impulse`
    /// in any direction (dry friction in a ball joint): `inverse_mass` as in
    /// [`RowSolver::rotation`].
    #[inline]
    pub fn rotation_friction(&mut self, inverse_mass: &Mat3, max_impulse: f32, accumulated: &mut Vec3) {
        if self.replayed_rotation(*accumulated) {
            return;
        }
        let impulse = -(*inverse_mass * (self.velocity.wb - self.velocity.wa));
        let total = (*accumulated + impulse).clamp_length_max(max_impulse);
        let applied = total - *accumulated;
        *accumulated = total;
        apply_rotation(self.masses, &mut self.velocity, applied);
    }
}

/// Applies angular impulse `t` to B (and `-t` to A).
#[inline(always)]
fn apply_rotation(m: &Masses, v: &mut PairVelocity, t: Vec3) {
    v.wa -= m.inv_inertia_a * t;
    v.wb += m.inv_inertia_b * t;
}

/// Applies impulse `p` at B's anchor (and `-p` at A's).
#[inline(always)]
fn apply_point(m: &Masses, v: &mut PairVelocity, arm_a: Vec3, arm_b: Vec3, p: Vec3) {
    v.va -= p * m.inv_mass_a;
    v.wa -= m.inv_inertia_a * arm_a.cross(p);
    v.vb += p * m.inv_mass_b;
    v.wb += m.inv_inertia_b * arm_b.cross(p);
}

/// The point block's mass for anchors at `arm_a` and `arm_b` from the centres: the inverse of
/// `(m_a⁻¹ + m_b⁻¹) I − [r_a]× I_a⁻¹ [r_a]× − [r_b]× I_b⁻¹ [r_b]×` (zero when singular).
pub(crate) fn point_mass(m: &Masses, arm_a: Vec3, arm_b: Vec3) -> Mat3 {
    let (sa, sb) = (skew(arm_a), skew(arm_b));
    let k = Mat3::from_diagonal(Vec3::splat(m.inv_mass_a + m.inv_mass_b))
        - sa * m.inv_inertia_a * sa
        - sb * m.inv_inertia_b * sb;
    inverse_or_zero(&k)
}

/// The matrix of `v ×`.
#[inline]
fn skew(v: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, v.z, -v.y), Vec3::new(-v.z, 0.0, v.x), Vec3::new(v.y, -v.x, 0.0))
}

/// The inverse of a symmetric positive semi-definite `k`, or zero when it is singular
/// (nothing can move the constrained motion). For a symmetric matrix the inverse's columns are
/// the cross products of the columns over the determinant (half the work of a general
/// inverse, which is measurable: the block is rebuilt every substep).
fn inverse_or_zero(k: &Mat3) -> Mat3 {
    let (c0, c1, c2) = (k.x_axis, k.y_axis, k.z_axis);
    let (i0, i1, i2) = (c1.cross(c2), c2.cross(c0), c0.cross(c1));
    let det = c0.dot(i0);
    if det.abs() > f32::MIN_POSITIVE * 1e6 {
        let inv_det = 1.0 / det;
        Mat3::from_cols(i0 * inv_det, i1 * inv_det, i2 * inv_det)
    } else {
        Mat3::ZERO
    }
}

/// The inverse of the summed inverse inertias (zero when singular): the rotation block's mass.
pub(crate) fn rotation_mass(m: &Masses) -> Mat3 {
    inverse_or_zero(&(m.inv_inertia_a + m.inv_inertia_b))
}
