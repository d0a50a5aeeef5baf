//! What the validation cases share: the two step settings every case runs at, the theory
//! (elliptic integrals, periods from zero crossings) and the world's energy.

use atoll_physics::{BodyId, StepSettings, Vec3, World};

/// Gravity's magnitude, m/s².
pub const G: f32 = 9.81;

/// The settings every case runs at: 60 Hz with 4 substeps, and the defaults (8 substeps).
/// Sleep is off, so a slow turning point never puts a pendulum to sleep.
pub fn settings_under_test() -> [(&'static str, StepSettings); 2] {
    let base = StepSettings { sleep_enabled: false, ..StepSettings::default() };
    [("60 Hz, 4 substeps", StepSettings { dt: 1.0 / 60.0, substeps: 4, ..base }), ("defaults", base)]
}

/// A world at `settings` on `threads` threads.
pub fn world(settings: StepSettings, threads: usize) -> World {
    let mut world = World::new(settings).unwrap();
    world.set_thread_count(threads).unwrap();
    world
}

/// The complete elliptic integral of the first kind K(k), by the arithmetic-geometric mean
/// (exact to f64's precision in a handful of rounds).
pub fn elliptic_k(k: f64) -> f64 {
    let (mut a, mut b) = (1.0f64, (1.0 - k * k).sqrt());
    for _ in 0..20 {
        (a, b) = ((a + b) / 2.0, (a * b).sqrt());
    }
    std::f64::consts::PI / (2.0 * a)
}

/// The period of a rigid pendulum whose inertia about the pivot is `inertia_about_pivot`,
/// of mass `mass` with its centre `arm` from the pivot, released from rest `amplitude`
/// radians from the bottom: `4 √(I / (m g d)) K(sin(θ₀ / 2))`, exact at any amplitude.
pub fn pendulum_period(inertia_about_pivot: f64, mass: f64, arm: f64, amplitude: f64) -> f64 {
    4.0 * (inertia_about_pivot / (mass * G as f64 * arm)).sqrt() * elliptic_k((amplitude / 2.0).sin())
}

/// Times between successive crossings of zero in the same direction by `signal`, sampled
/// every `dt`, each crossing linearly interpolated: the periods of an oscillation about zero.
/// Both directions count, so a signal gives twice the periods of its upward crossings.
pub fn periods(signal: &[f64], dt: f64) -> Vec<f64> {
    let mut up = Vec::new();
    let mut down = Vec::new();
    for k in 1..signal.len() {
        let (a, b) = (signal[k - 1], signal[k]);
        let at = (k - 1) as f64 * dt + dt * a / (a - b);
        if a < 0.0 && b >= 0.0 {
            up.push(at);
        } else if a > 0.0 && b <= 0.0 {
            down.push(at);
        }
    }
    let span = |c: &Vec<f64>| c.windows(2).map(|w| w[1] - w[0]).collect::<Vec<_>>();
    let mut all = span(&up);
    all.extend(span(&down));
    all
}

/// The mean of `v`.
pub fn mean(v: &[f64]) -> f64 {
    v.iter().sum::<f64>() / v.len() as f64
}

/// A body's kinetic energy, J: translation of its centre and rotation about it.
pub fn kinetic_energy(world: &World, id: BodyId) -> f64 {
    let b = world.body(id).unwrap();
    let v = b.linear_velocity.as_dvec3();
    // The angular velocity in body axes against the body-axes inertia.
    let w_body = (b.transform.rotation.inverse() * b.angular_velocity).as_dvec3();
    let iw = b.inertia.as_dmat3() * w_body;
    0.5 * b.mass as f64 * v.length_squared() + 0.5 * w_body.dot(iw)
}

/// A body's potential energy in gravity `g` (pointing down -y), J, from y = 0.
pub fn potential_energy(world: &World, id: BodyId) -> f64 {
    let b = world.body(id).unwrap();
    b.mass as f64 * G as f64 * b.center_of_mass.y as f64
}

/// The total energy of `bodies`, J.
pub fn energy(world: &World, bodies: &[BodyId]) -> f64 {
    bodies.iter().map(|&b| kinetic_energy(world, b) + potential_energy(world, b)).sum()
}

/// Every body, joint and contact state is finite: the step's own promise, checked by reading
/// what the world reports.
pub fn assert_finite(world: &World, what: &str) {
    for id in world.body_ids() {
        let b = world.body(id).unwrap();
        let values = [b.transform.position, b.linear_velocity, b.angular_velocity, b.center_of_mass];
        assert!(
            values.iter().all(|v| v.is_finite()) && b.transform.rotation.is_finite(),
            "{what}: body {id:?} is not finite: {values:?}"
        );
    }
    let _ = Vec3::ZERO;
}
