//! [`Energy`]: the kinetic and potential energy and the linear and angular momentum of the
//! dynamic bodies, of the whole world, of an island or of one body: what a user watches to see
//! a solver add or lose energy, and how `History::find_blow_up` finds the step it went wrong.
//! Sums run in `f64`, in a fixed order (slots, or an island's list), so the same world gives
//! the same bits.

use super::World;
use crate::body::{Body, BodyId, BodyType};
use crate::error::AtollError;
use crate::island::id::IslandId;
use glam::DVec3;

/// Energy and momentum of a set of dynamic bodies (static and kinematic bodies carry none).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Energy {
    /// `Σ ½ m v² + ½ ωᵀ I ω`, joules.
    pub kinetic: f64,
    /// `Σ −m s g · c` (each body's gravity scale `s`, its centre of mass `c`), joules: zero at
    /// the world's origin, growing against gravity.
    pub potential: f64,
    /// `Σ m v`, kg·m/s.
    pub linear_momentum: DVec3,
    /// `Σ (c × m v + I ω)` about the world's origin, kg·m²/s.
    pub angular_momentum: DVec3,
}

impl Energy {
    /// Kinetic plus potential energy.
    pub fn total(&self) -> f64 {
        self.kinetic + self.potential
    }

    /// One body's energy and momentum under `gravity`; nothing for a body that is not dynamic.
    fn of_body(b: &Body, gravity: DVec3) -> Energy {
        if b.body_type != BodyType::Dynamic {
            return Energy::default();
        }
        let m = f64::from(b.mass);
        let v = b.linear_velocity.as_dvec3();
        let w = b.angular_velocity.as_dvec3();
        let r = glam::DMat3::from_quat(b.transform.rotation.as_dquat());
        let inertia = r * b.inertia_local.as_dmat3() * r.transpose();
        let spin = inertia * w;
        let c = b.center().as_dvec3();
        Energy {
            kinetic: 0.5 * m * v.length_squared() + 0.5 * w.dot(spin),
            potential: -m * f64::from(b.gravity_scale) * gravity.dot(c),
            linear_momentum: v * m,
            angular_momentum: c.cross(v * m) + spin,
        }
    }

    /// The sum of two sets' energies.
    fn plus(self, o: Energy) -> Energy {
        Energy {
            kinetic: self.kinetic + o.kinetic,
            potential: self.potential + o.potential,
            linear_momentum: self.linear_momentum + o.linear_momentum,
            angular_momentum: self.angular_momentum + o.angular_momentum,
        }
    }
}

impl World {
    /// The energy and momentum of every dynamic body, awake or asleep.
    pub fn energy(&self) -> Energy {
        let g = self.settings.gravity.as_dvec3();
        let bodies = self.bodies.bodies.iter().filter(|b| b.alive);
        bodies.fold(Energy::default(), |sum, b| sum.plus(Energy::of_body(b, g)))
    }

    /// The energy and momentum of one body (zero unless it is dynamic).
    pub fn body_energy(&self, id: BodyId) -> Result<Energy, AtollError> {
        Ok(Energy::of_body(self.bodies.get(id)?, self.settings.gravity.as_dvec3()))
    }

    /// The energy and momentum of an island's bodies.
    pub fn island_energy(&self, id: IslandId) -> Result<Energy, AtollError> {
        let g = self.settings.gravity.as_dvec3();
        let members = self.island_bodies(id)?;
        Ok(members.into_iter().fold(Energy::default(), |sum, body| {
            sum.plus(Energy::of_body(&self.bodies.bodies[body.index() as usize], g))
        }))
    }
}
