//! Step settings: every tunable of the pipeline, changeable between steps.

use crate::error::{AtollError, check_non_negative, check_positive, check_vec3};
use crate::math::Vec3;

/// Settings for [`super::World::step`]. All can change between steps.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct StepSettings {
    /// Time step in seconds.
    pub dt: f32,
    /// Solver substeps per step (soft step). Eight by default: a column of 20 boxes on soft
    /// contacts buckles unless contacts are stiff (60 Hz), and stiff contacts need short
    /// substeps for the iterative solver to keep up (measured in `physics/tests/stacking.rs`).
    pub substeps: u32,
    /// Acceleration applied to every dynamic body, m/s².
    pub gravity: Vec3,
    /// Contact stiffness as a natural frequency in Hz. Clamped to a quarter of the substep rate,
    /// above which a soft constraint stops behaving like a spring. Contacts against static and
    /// kinematic bodies use twice this (within the same clamp).
    pub contact_hertz: f32,
    /// Contact damping ratio (1 = critical).
    pub contact_damping_ratio: f32,
    /// Stiffness of rigid joint rows as a natural frequency in Hz (the soft step's position
    /// feedback), clamped like the contacts' to a quarter of the substep rate.
    pub joint_hertz: f32,
    /// Damping ratio of rigid joint rows.
    pub joint_damping_ratio: f32,
    /// Fastest speed (m/s) at which overlapping bodies are pushed apart.
    pub max_push_out_speed: f32,
    /// Approach speed (m/s) below which restitution is ignored, so resting bodies do not jitter.
    pub restitution_threshold: f32,
    /// Start each step's solve from last step's impulses.
    pub warm_starting: bool,
    /// Contact points are made while the surfaces are this close (m) before they touch, plus
    /// the distance the pair can close in one step at its current speeds (so a fast body meets
    /// its contact a step early instead of passing through).
    pub speculative_distance: f32,
    /// Fat AABB margin (m) around each body's tight box in the broadphase; the fat box is also
    /// stretched over the path its velocity and gravity take it on in the next steps (six for
    /// a body touching nothing, two otherwise). The path covers the motion the step can
    /// predict, so the margin only covers what it cannot: a velocity the solver, a joint or
    /// `set_linear_velocity` changed, and a turning body's corners. Two bodies closing at a
    /// speed neither's fat box was made for, faster than twice the margin a step (6 m/s at
    /// 60 Hz and 5 cm), may meet a step before their contact exists and overlap for that step.
    /// The default, 5 cm, is small beside the bodies of a pile: every pair of overlapping fat
    /// boxes is a contact the narrowphase updates every step, and 10 cm around the tumbler's
    /// 0.4 m boxes made 28 000 of them for 5 100 touching (16 000 at 5 cm).
    pub aabb_margin: f32,
    /// Run time-of-impact checks for fast bodies (those that moved more than half their
    /// thinnest extent in a step) against static bodies and the terrain.
    pub continuous_collision: bool,
    /// Gap (m) continuous collision leaves: a fast body is put back where it comes this close
    /// to the static body it would have crossed. Older scene files call it `linear_slop` (still
    /// read), a name that promised an overlap the solver leaves alone: the soft step has none.
    #[serde(alias = "linear_slop")]
    pub continuous_gap: f32,
    /// Largest angular speed, rad/s: faster spins are scaled down to it before a body turns
    /// in each substep and when the step ends, so a spinning body cannot blow up the
    /// integrator. A body the solver drove past it is reported ([`super::World::body_faults`]).
    pub max_angular_speed: f32,
    /// Largest linear speed, m/s, applied as the angular one is: a body never moves faster,
    /// and one the solver drove past it is reported. 400 m/s (6.7 m a step at 60 Hz) is far
    /// beyond what a scene asks of a body, and bounds what a runaway constraint can do to the
    /// world in a step to that.
    pub max_linear_speed: f32,
    /// Let islands fall asleep when all their bodies have been slow for `time_to_sleep`.
    pub sleep_enabled: bool,
    /// A body faster than this (m/s) resets its sleep timer.
    pub sleep_linear_threshold: f32,
    /// A body spinning faster than this (rad/s) resets its sleep timer.
    pub sleep_angular_threshold: f32,
    /// Seconds every body of an island must stay slow before the island sleeps.
    pub time_to_sleep: f32,
    /// Density of terrain water, kg/m³ (buoyancy is this × submerged volume × −gravity).
    pub water_density: f32,
    /// Linear drag in water: damping (1/s) per kg of displaced water per kg of body.
    pub water_linear_drag: f32,
    /// Angular drag in water: damping (1/s) of a fully submerged body.
    pub water_angular_drag: f32,
}

impl Default for StepSettings {
    fn default() -> Self {
        Self {
            dt: 1.0 / 60.0,
            substeps: 8,
            gravity: Vec3::new(0.0, -9.81, 0.0),
            contact_hertz: 60.0,
            contact_damping_ratio: 10.0,
            joint_hertz: 120.0,
            joint_damping_ratio: 2.0,
            max_push_out_speed: 3.0,
            restitution_threshold: 1.0,
            warm_starting: true,
            speculative_distance: 0.02,
            aabb_margin: 0.05,
            continuous_collision: true,
            continuous_gap: 0.005,
            max_angular_speed: 100.0,
            max_linear_speed: 400.0,
            sleep_enabled: true,
            sleep_linear_threshold: 0.05,
            sleep_angular_threshold: 0.05,
            time_to_sleep: 0.5,
            water_density: 1000.0,
            water_linear_drag: 3.0,
            water_angular_drag: 3.0,
        }
    }
}

impl StepSettings {
    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), AtollError> {
        check_positive("dt", self.dt)?;
        if self.substeps == 0 || self.substeps > 64 {
            return Err(AtollError::invalid("substeps", format!("must be 1..=64, got {}", self.substeps)));
        }
        check_vec3("gravity", self.gravity)?;
        check_positive("contact hertz", self.contact_hertz)?;
        check_non_negative("contact damping ratio", self.contact_damping_ratio)?;
        check_positive("joint hertz", self.joint_hertz)?;
        check_non_negative("joint damping ratio", self.joint_damping_ratio)?;
        check_positive("max push-out speed", self.max_push_out_speed)?;
        check_non_negative("restitution threshold", self.restitution_threshold)?;
        check_non_negative("speculative distance", self.speculative_distance)?;
        check_non_negative("AABB margin", self.aabb_margin)?;
        check_non_negative("continuous gap", self.continuous_gap)?;
        check_positive("max angular speed", self.max_angular_speed)?;
        check_positive("max linear speed", self.max_linear_speed)?;
        check_non_negative("sleep linear threshold", self.sleep_linear_threshold)?;
        check_non_negative("sleep angular threshold", self.sleep_angular_threshold)?;
        check_non_negative("time to sleep", self.time_to_sleep)?;
        check_non_negative("water density", self.water_density)?;
        check_non_negative("water linear drag", self.water_linear_drag)?;
        check_non_negative("water angular drag", self.water_angular_drag)?;
        Ok(())
    }
}
