//! What the measurement loop needs from each engine.

/// A body's pose as plain arrays, the one form every engine's math types convert to.
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

/// Why an engine has no world for a scene.
#[derive(Clone, Debug, PartialEq)]
pub enum BuildError {
    /// The scene holds something the engine has no equivalent for (or the engine is not in
    /// this build): the scene is reported as not built ("n/a") for that engine, and the run
    /// goes on.
    Unsupported(String),
    /// Building went wrong: the run stops.
    Failed(String),
}

/// The engines the benchmark compares.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    /// This project's engine.
    Atoll,
    /// Rapier 0.36 (rapier3d, f32; single threaded unless built with the `rapier-parallel`
    /// feature).
    Rapier,
    /// Box3D through boxddd 0.4 (feature `box3d`, on by default).
    Box3d,
}

impl EngineKind {
    /// Every engine, in the order each repeat runs them.
    pub const ALL: [EngineKind; 3] = [EngineKind::Atoll, EngineKind::Rapier, EngineKind::Box3d];

    /// The name printed in tables.
    pub fn name(self) -> &'static str {
        match self {
            EngineKind::Atoll => "Atoll",
            EngineKind::Rapier => "Rapier",
            EngineKind::Box3d => "Box3D",
        }
    }

    /// Whether this build steps the engine on more than one thread when asked: Rapier only
    /// with its `parallel` feature (this package's `rapier-parallel`), which is off by default
    /// because it moves parts of Rapier's step onto other code paths even on one thread.
    pub fn can_thread(self) -> bool {
        match self {
            EngineKind::Atoll | EngineKind::Box3d => true,
            EngineKind::Rapier => cfg!(feature = "rapier-parallel"),
        }
    }
}
