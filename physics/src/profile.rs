//! Per-step profile: the time of each pipeline stage and counters of what the step touched.

/// A stage of [`crate::world::World::step`], in pipeline order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Stage {
    /// Refit proxies whose bodies left their fat AABBs.
    Broadphase,
    /// Query the trees with moved proxies; create contact pairs.
    Pairs,
    /// Update every awake contact pair's manifold; destroy pairs whose fat AABBs separated.
    Narrowphase,
    /// Walk the begin/end-touching bits: merge islands, wake them, flag islands that may split.
    Islands,
    /// Buoyancy and drag for bodies in terrain water.
    Water,
    /// Prepare constraints and run the substeps, restitution and impulse storage.
    Solve,
    /// Write solved motion back to bodies.
    Finalize,
    /// Time of impact for fast bodies against static bodies.
    Continuous,
    /// Put islands whose bodies all rested long enough to sleep.
    Sleep,
    /// Rebuild the largest island that may have split.
    Split,
    /// Find what overlaps each sensor; begin and end overlap events.
    Sensors,
}

impl Stage {
    /// Every stage in pipeline order.
    pub const ALL: [Stage; 11] = [
        Stage::Broadphase,
        Stage::Pairs,
        Stage::Narrowphase,
        Stage::Islands,
        Stage::Water,
        Stage::Solve,
        Stage::Finalize,
        Stage::Continuous,
        Stage::Sleep,
        Stage::Split,
        Stage::Sensors,
    ];

    /// A short lowercase name for tables and JSON.
    pub fn name(self) -> &'static str {
        match self {
            Stage::Broadphase => "broadphase",
            Stage::Pairs => "pairs",
            Stage::Narrowphase => "narrowphase",
            Stage::Islands => "islands",
            Stage::Water => "water",
            Stage::Solve => "solve",
            Stage::Finalize => "finalize",
            Stage::Continuous => "continuous",
            Stage::Sleep => "sleep",
            Stage::Split => "split",
            Stage::Sensors => "sensors",
        }
    }
}

/// What one step touched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    /// Live bodies of every type.
    pub bodies: u32,
    /// Dynamic and kinematic bodies that were simulated (not static, not asleep).
    pub awake_bodies: u32,
    /// Broadphase proxies in both trees.
    pub proxies: u32,
    /// Live contact pairs (fat AABBs overlap).
    pub contact_pairs: u32,
    /// Contact pairs created this step.
    pub new_pairs: u32,
    /// Contact pairs with at least one manifold point.
    pub touching_contacts: u32,
    /// Manifold points over all touching pairs.
    pub manifold_points: u32,
    /// Graph colours the contact solver's batches needed (contacts of a colour share no
    /// moving body, so four of them are solved at once).
    pub colours: u32,
    /// Live joints.
    pub joints: u32,
    /// Joints solved this step (enabled, with an awake dynamic body).
    pub solved_joints: u32,
    /// Groups of widely differing masses solved directly this step, and their rows (contact
    /// normals and friction, joint points).
    pub direct_groups: u32,
    pub direct_rows: u32,
    /// Proxies re-inserted into a tree this step.
    pub reinsertions: u32,
    /// Bodies whose motion was clipped by time of impact.
    pub continuous_hits: u32,
    /// Bodies the solver drove past a speed cap this step, slowed to it
    /// ([`crate::BodyFaultKind::Capped`]).
    pub capped_bodies: u32,
    /// Bodies whose state turned non-finite this step, stopped and isolated
    /// ([`crate::BodyFaultKind::NonFinite`]).
    pub non_finite_bodies: u32,
    /// Live islands.
    pub islands: u32,
    /// Islands that are awake.
    pub awake_islands: u32,
}

/// Timings (milliseconds) and counters of the last step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Profile {
    /// Milliseconds per stage, indexed like [`Stage::ALL`].
    pub stage_ms: [f64; Stage::ALL.len()],
    /// Milliseconds for the whole step.
    pub total_ms: f64,
    /// What the step touched.
    pub counters: Counters,
}

impl Profile {
    /// Milliseconds spent in `stage`.
    pub fn stage(&self, stage: Stage) -> f64 {
        self.stage_ms[stage as usize]
    }
}

/// Measures consecutive stages with one clock read per boundary.
pub(crate) struct StageTimer {
    last: std::time::Instant,
}

impl StageTimer {
    pub fn start() -> Self {
        Self { last: std::time::Instant::now() }
    }

    /// Ends `stage` now, storing its time in `profile`.
    pub fn lap(&mut self, profile: &mut Profile, stage: Stage) {
        let now = std::time::Instant::now();
        profile.stage_ms[stage as usize] = (now - self.last).as_secs_f64() * 1e3;
        self.last = now;
    }
}
