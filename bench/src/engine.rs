//! What the measurement loop needs from either engine.

/// A body's pose as plain arrays, the one form both engines' math types convert to.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pose {
    /// Position of the body frame.
    pub position: [f32; 3],
    /// Rotation (x, y, z, w).
    pub rotation: [f32; 4],
}

/// A world of one engine, built from an `atoll_physics::Scene`, whose bodies keep the scene's
/// order.
pub trait Engine {
    /// Advances one step of the scene's `dt`.
    fn step(&mut self);
    /// The pose of the scene's body number `index`.
    fn pose(&self, index: usize) -> Pose;
}

/// The two engines the benchmark compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// This project's engine.
    Atoll,
    /// Rapier 0.36 (rapier3d, f32, default features: single threaded).
    Rapier,
}

impl EngineKind {
    /// Both, in the order each repeat runs them.
    pub const ALL: [EngineKind; 2] = [EngineKind::Atoll, EngineKind::Rapier];

    /// The name printed in tables.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Atoll => "Atoll",
            EngineKind::Rapier => "Rapier",
        }
    }
}
