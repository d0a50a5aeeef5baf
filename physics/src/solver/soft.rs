//! Soft constraint coefficients ("soft step"): a constraint behaves like a damped spring of a
//! given frequency and damping ratio, expressed as a bias rate and two scales on the impulse.

use std::f32::consts::TAU;

/// Coefficients of a soft constraint for one substep length `h`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Softness {
    /// Fraction of the position error fed back per second.
    pub bias_rate: f32,
    /// Scales the effective mass.
    pub mass_scale: f32,
    /// Scales the accumulated impulse that is subtracted (the spring's "leak").
    pub impulse_scale: f32,
}

impl Softness {
    /// Coefficients for a spring of `hertz` with damping `zeta`, stepped with substep `h`.
    /// A zero frequency gives a rigid constraint with no position feedback.
    pub fn new(hertz: f32, zeta: f32, h: f32) -> Softness {
        if hertz <= 0.0 {
            return Softness { bias_rate: 0.0, mass_scale: 1.0, impulse_scale: 0.0 };
        }
        let omega = TAU * hertz;
        let a1 = 2.0 * zeta + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness { bias_rate: omega / a1, mass_scale: a2 * a3, impulse_scale: a3 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stiffer_springs_feed_back_more() {
        let h = 1.0 / 240.0;
        let soft = Softness::new(10.0, 1.0, h);
        let stiff = Softness::new(60.0, 1.0, h);
        assert!(stiff.bias_rate > soft.bias_rate);
        assert!(stiff.mass_scale > soft.mass_scale);
        assert!((soft.mass_scale + soft.impulse_scale - 1.0).abs() < 1e-6);
    }
}
