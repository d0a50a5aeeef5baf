//! The step, stage by stage in [`Stage`] order (`docs/ARCHITECTURE.md`, "The step"): a file per
//! stage, named as the profile names it, each with the buffers it owns. Every stage walks the
//! awake sets only, so a step's cost follows the awake work, not the size of the world.
//!
//! | stage | file | what it leaves for the stages after it |
//! |---|---|---|
//! | [`Stage::Broadphase`] | `broadphase.rs` | bodies' tight and fat boxes, moved proxies |
//! | [`Stage::Pairs`] | `pairs.rs` | new contacts |
//! | [`Stage::Narrowphase`] | `narrowphase.rs` | manifolds, status bytes (`contact_status.rs`), touch events (`touch_events.rs`), begin/end bits |
//! | [`Stage::Islands`] | `islands.rs` | linked and woken islands |
//! | [`Stage::Water`] | `water.rs` | buoyancy forces, water damping |
//! | [`Stage::Solve`] | `solve.rs` | the awake list and solver arrays, impulses, broken joints |
//! | [`Stage::Finalize`] | `finalize.rs` | bodies moved, faults, sleep timers (`sleep_timers.rs`), kinematic wake (`kinematic_wake.rs`) |
//! | [`Stage::Continuous`] | `continuous.rs` | fast bodies put back at their first impact |
//! | [`Stage::Sleep`] | `sleep.rs` | islands put to sleep |
//! | [`Stage::Split`] | `split.rs` | one island rebuilt |
//! | [`Stage::Sensors`] | `sensors.rs` | each sensor's overlaps, begin and end events |
//!
//! When a stage runs on the world's threads, and in what blocks, is `team_policy.rs`'s table.

mod broadphase;
mod contact_status;
mod continuous;
mod finalize;
mod flagged;
mod islands;
mod kinematic_wake;
mod narrowphase;
mod pairs;
mod sensors;
mod shape_reach;
mod sleep;
mod sleep_timers;
mod solve;
mod solver_parts;
mod split;
mod touch_events;
mod touching;
mod water;

pub(crate) use sensors::SensorOverlaps;
pub use touch_events::TouchEvent;
pub(crate) use touch_events::{other_id, touch_event};

use super::World;
use crate::profile::{Counters, Stage, StageTimer};
use crate::solver::FIXED_SLOT;
use broadphase::BroadphaseScratch;
use continuous::ContinuousScratch;
use finalize::FinalizeScratch;
use kinematic_wake::KinematicWakeScratch;
use narrowphase::NarrowphaseScratch;
use pairs::PairsScratch;
use sensors::SensorsScratch;
use shape_reach::ShapeReaches;
use sleep_timers::SleepTimers;
use solve::SolveScratch;
use water::WaterScratch;

/// Buffers reused by every step so the steady state allocates nothing: each stage's own, and
/// one spare list.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepScratch {
    pub(crate) broadphase: BroadphaseScratch,
    pub(crate) pairs: PairsScratch,
    pub(crate) narrowphase: NarrowphaseScratch,
    /// The awake shapes' records for the narrowphase's quick check.
    pub(crate) reach: ShapeReaches,
    pub(crate) water: WaterScratch,
    pub(crate) solve: SolveScratch,
    pub(crate) finalize: FinalizeScratch,
    pub(crate) kinematic_wake: KinematicWakeScratch,
    pub(crate) sleep_timers: SleepTimers,
    pub(crate) continuous: ContinuousScratch,
    pub(crate) sensors: SensorsScratch,
    /// A list of body slots any pass may borrow for the length of a call (taken and put back
    /// with `std::mem::take`, so it keeps its capacity).
    pub(crate) candidates: Vec<u32>,
}

impl StepScratch {
    /// Bytes of the arrays a step fills (their lengths, not capacities).
    pub(crate) fn bytes(&self) -> usize {
        self.broadphase.bytes()
            + self.pairs.bytes()
            + self.narrowphase.bytes()
            + self.reach.bytes()
            + self.solve.bytes()
            + self.finalize.bytes()
            + self.kinematic_wake.bytes()
            + self.sensors.bytes()
            + self.sleep_timers.bytes()
            + self.continuous.bytes()
            + self.candidates.len() * 4
    }
}

impl World {
    /// Advances the simulation by one step of `settings().dt`.
    pub fn step(&mut self) {
        self.stepping = true;
        let start = std::time::Instant::now();
        let mut timer = StageTimer::start();
        self.touch_events.clear();
        self.sleep_events.clear();
        self.water_events.clear();
        self.joint_events.clear();
        self.body_faults.clear();
        self.sensor_events.clear();
        self.apply_filter_changes();
        self.drive_kinematic_motions();
        let mut counters = Counters { reinsertions: self.update_proxies(), ..Default::default() };
        timer.lap(&mut self.profile, Stage::Broadphase);
        counters.new_pairs = self.create_pairs() + self.update_terrain_pairs();
        timer.lap(&mut self.profile, Stage::Pairs);
        self.update_contacts();
        timer.lap(&mut self.profile, Stage::Narrowphase);
        self.update_islands();
        timer.lap(&mut self.profile, Stage::Islands);
        self.apply_water();
        timer.lap(&mut self.profile, Stage::Water);
        self.solve();
        self.break_joints();
        timer.lap(&mut self.profile, Stage::Solve);
        if self.finalize_bodies() {
            (counters.capped_bodies, counters.non_finite_bodies) = self.report_body_faults();
        }
        timer.lap(&mut self.profile, Stage::Finalize);
        counters.continuous_hits =
            if self.settings.continuous_collision { self.clip_fast_bodies() } else { 0 };
        // The bodies are where the step leaves them: so are their children.
        self.place_children();
        timer.lap(&mut self.profile, Stage::Continuous);
        self.sleep_islands();
        timer.lap(&mut self.profile, Stage::Sleep);
        self.split_one_island();
        timer.lap(&mut self.profile, Stage::Split);
        self.update_sensors();
        timer.lap(&mut self.profile, Stage::Sensors);

        // Forget this step's solver indices so sleeping bodies read as fixed next time.
        for &body in &self.scratch.solve.awake {
            self.scratch.solve.solver_index[body as usize] = FIXED_SLOT;
        }
        self.step_count += 1;
        self.stepping = false;
        self.time += self.settings.dt as f64;
        counters.bodies = self.bodies.live_count() as u32;
        counters.awake_bodies = self.awake_bodies.count() as u32;
        counters.proxies = counters.bodies + self.bodies.children.live_count() as u32;
        counters.contact_pairs = self.contacts.live_count() as u32;
        counters.touching_contacts = self.scratch.solve.touching.len() as u32;
        counters.manifold_points = self.scratch.solve.contact_solver.manifold_points();
        counters.colours = self.scratch.solve.contact_solver.colour_count() as u32;
        counters.joints = self.joints.live_count() as u32;
        counters.solved_joints = self.scratch.solve.joint_solver.len() as u32;
        (counters.direct_groups, counters.direct_rows) = self.scratch.solve.direct_solver.counts();
        counters.islands = self.islands.live_count() as u32;
        counters.awake_islands = self.islands.awake_count() as u32;
        self.profile.counters = counters;
        self.profile.total_ms = start.elapsed().as_secs_f64() * 1e3;
        self.log_step();
    }
}
