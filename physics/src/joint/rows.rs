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
use crate::solver::Softness;

/// The inverse masses and world inverse inertias of a joint's two bodies (zero for the world,
/// static, kinematic and sleeping sides).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Masses {
    pub inv_mass_a: f32,
    pub inv_mass_b: f32,
    pub inv_inertia_a: Mat3,
    pub inv_inertia_b: Mat3,
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
const NO_FEEDBACK: Softness = Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };

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
    /// now, as one 3 × 3 block.
    #[inline]
    pub fn point(
        &mut self,
        arm_a: Vec3,
        arm_b: Vec3,
        separation: Vec3,
        soft: Softness,
        accumulated: &mut Vec3,
    ) {
        let m = self.masses;
        let apply = |v: &mut PairVelocity, p: Vec3| {
            v.va -= p * m.inv_mass_a;
            v.wa -= m.inv_inertia_a * arm_a.cross(p);
            v.vb += p * m.inv_mass_b;
            v.wb += m.inv_inertia_b * arm_b.cross(p);
        };
        match self.pass {
            Pass::WarmStart => return apply(&mut self.velocity, *accumulated),
            Pass::Reaction => {
                self.reaction.force += *accumulated;
                return;
            }
            Pass::Solve | Pass::Relax => {}
        }
        let v = &self.velocity;
        let rate = v.vb + v.wb.cross(arm_b) - v.va - v.wa.cross(arm_a);
        let (sa, sb) = (skew(arm_a), skew(arm_b));
        let k = Mat3::from_diagonal(Vec3::splat(m.inv_mass_a + m.inv_mass_b))
            - sa * m.inv_inertia_a * sa
            - sb * m.inv_inertia_b * sb;
        let impulse = -(solve3(&k, rate + separation * soft.bias_rate)) * soft.mass_scale
            - *accumulated * soft.impulse_scale;
        *accumulated += impulse;
        apply(&mut self.velocity, impulse);
    }

    /// Turns B's frame onto A's: `error` is the rotation vector from A's frame to B's target,
    /// `inverse_mass` the inverse of the two bodies' summed inverse inertias.
    #[inline]
    pub fn rotation(&mut self, inverse_mass: &Mat3, error: Vec3, soft: Softness, accumulated: &mut Vec3) {
        let m = self.masses;
        let apply = |v: &mut PairVelocity, t: Vec3| {
            v.wa -= m.inv_inertia_a * t;
            v.wb += m.inv_inertia_b * t;
        };
        match self.pass {
            Pass::WarmStart => return apply(&mut self.velocity, *accumulated),
            Pass::Reaction => {
                self.reaction.torque += *accumulated;
                return;
            }
            Pass::Solve | Pass::Relax => {}
        }
        let rate = self.velocity.wb - self.velocity.wa;
        let impulse = -(*inverse_mass * (rate + error * soft.bias_rate)) * soft.mass_scale
            - *accumulated * soft.impulse_scale;
        *accumulated += impulse;
        apply(&mut self.velocity, impulse);
    }
}

impl RowSolver<'_> {
    /// Resists B's rotation relative to A with an angular impulse of at most `max_impulse`
    /// in any direction (dry friction in a ball joint): `inverse_mass` as in
    /// [`RowSolver::rotation`].
    #[inline]
    pub fn rotation_friction(&mut self, inverse_mass: &Mat3, max_impulse: f32, accumulated: &mut Vec3) {
        let m = self.masses;
        let apply = |v: &mut PairVelocity, t: Vec3| {
            v.wa -= m.inv_inertia_a * t;
            v.wb += m.inv_inertia_b * t;
        };
        match self.pass {
            Pass::WarmStart => return apply(&mut self.velocity, *accumulated),
            Pass::Reaction => {
                self.reaction.torque += *accumulated;
                return;
            }
            Pass::Solve | Pass::Relax => {}
        }
        let impulse = -(*inverse_mass * (self.velocity.wb - self.velocity.wa));
        let total = (*accumulated + impulse).clamp_length_max(max_impulse);
        let applied = total - *accumulated;
        *accumulated = total;
        apply(&mut self.velocity, applied);
    }
}

/// The matrix of `v ×`.
#[inline]
fn skew(v: Vec3) -> Mat3 {
    Mat3::from_cols(Vec3::new(0.0, v.z, -v.y), Vec3::new(-v.z, 0.0, v.x), Vec3::new(v.y, -v.x, 0.0))
}

/// `k⁻¹ b` for a symmetric positive semi-definite `k`; zero when `k` is singular (nothing can
/// move the point).
#[inline]
pub(crate) fn solve3(k: &Mat3, b: Vec3) -> Vec3 {
    let det = k.determinant();
    if det.abs() > f32::MIN_POSITIVE * 1e6 { k.inverse() * b } else { Vec3::ZERO }
}

/// The inverse of the summed inverse inertias (zero when singular): the rotation block's mass.
pub(crate) fn rotation_mass(m: &Masses) -> Mat3 {
    let k = m.inv_inertia_a + m.inv_inertia_b;
    let det = k.determinant();
    if det.abs() > f32::MIN_POSITIVE * 1e6 { k.inverse() } else { Mat3::ZERO }
}
