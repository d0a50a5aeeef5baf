//! The selected joint over the kept timeline, for the Joint inspector's plots: its coordinate
//! (angle or translation), the size of its constraint force, its error (how far apart its two
//! anchors are), its motor's load and whether a limit pushed, one sample per step. Kept for one
//! joint at a time and started afresh when the selection moves to another; the kept steps
//! before it was selected are filled in by walking a copy of the world through the history
//! (`Walk`), a slice of time a frame, the steps after it as the world takes them.

use super::walk_fill;
use atoll_physics::{History, JointId, Walk, World};
use std::collections::BTreeMap;
use std::time::Duration;

/// Steps of a joint's trace kept: the history's default window.
pub const TRACE_LEN: usize = 10_000;

/// One step of a joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSample {
    /// The world's step count after the step.
    pub step: u64,
    /// The joint's coordinate (see `JointView::position`).
    pub position: f32,
    /// The size of its constraint force, N.
    pub force: f32,
    /// How far apart its two anchors are, m: the error its point rows leave (a distance
    /// joint's anchors are apart by design: its coordinate says by how much).
    pub error: f32,
    /// The motor's force or torque, N or N·m (0 without a motor).
    pub motor_load: f32,
    /// A limit pushed in the step.
    pub limit_active: bool,
}

impl JointSample {
    /// Joint `id` in `world` now, if it exists there.
    fn of(world: &World, id: JointId) -> Option<JointSample> {
        let view = world.joint(id).ok()?;
        Some(JointSample {
            step: world.step_count(),
            position: view.position,
            force: view.force.length(),
            error: view.anchor_a.distance(view.anchor_b),
            motor_load: view.motor_load,
            limit_active: view.limit_active,
        })
    }
}

/// The samples of one joint over the kept steps.
#[derive(Debug, Default)]
pub struct JointTrace {
    joint: Option<JointId>,
    samples: BTreeMap<u64, JointSample>,
    fill: Option<Walk>,
    /// The joint the walk was started for (a walk starts once per selection).
    walked: Option<JointId>,
}

impl JointTrace {
    /// Records the step the world just took for `joint` (the selected one, if any). Another
    /// joint than before starts a new trace.
    pub fn record(&mut self, world: &World, joint: Option<JointId>) {
        self.select(joint);
        let Some(sample) = joint.and_then(|id| JointSample::of(world, id)) else { return };
        // A step taken again (after a move back along the timeline) replaces its sample.
        self.samples.split_off(&sample.step);
        self.keep(sample);
    }

    /// Follows the selection to `joint`, and once per selected joint starts a walk through
    /// `history` that fills in the kept steps before the step `world` shows.
    pub fn follow(&mut self, world: &World, history: &History, joint: Option<JointId>) {
        self.select(joint);
        let Some(id) = joint else { return };
        if self.walked != joint {
            self.walked = joint;
            self.fill = Walk::new(history, world);
            if let Some(sample) = JointSample::of(world, id) {
                self.keep(sample);
            }
        }
    }

    /// Fills in kept steps for at most `budget` (at least one step). Returns whether steps
    /// are left to fill.
    pub fn fill_for(&mut self, budget: Duration) -> bool {
        let Some(id) = self.joint else { return false };
        let samples = &mut self.samples;
        walk_fill::fill_for(&mut self.fill, budget, |copy| {
            if let Some(sample) = JointSample::of(copy, id) {
                // What the live world recorded stands.
                samples.entry(sample.step).or_insert(sample);
            }
        })
    }

    /// The walk's progress: the next step it fills and the last, while it runs.
    pub fn filling(&self) -> Option<(u64, u64)> {
        walk_fill::progress(&self.fill)
    }

    /// The samples of `joint`, oldest first (none when the trace is another joint's).
    pub fn samples(&self, joint: JointId) -> impl Iterator<Item = &JointSample> {
        self.samples.values().filter(move |_| self.joint == Some(joint))
    }

    /// The timeline discarded its steps after `step`: their samples go, and a walk through the
    /// old timeline stops.
    pub fn discarded_after(&mut self, step: u64) {
        self.samples.split_off(&(step + 1));
        self.fill = None;
    }

    fn select(&mut self, joint: Option<JointId>) {
        if joint != self.joint {
            self.joint = joint;
            self.samples.clear();
            self.fill = None;
            self.walked = None;
        }
    }

    fn keep(&mut self, sample: JointSample) {
        self.samples.insert(sample.step, sample);
        while self.samples.len() > TRACE_LEN {
            self.samples.pop_first();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::HistorySettings;

    #[test]
    fn a_trace_follows_one_joint_and_keeps_the_last_steps() {
        let (mut world, _) = atoll_physics::scene::builtin::bridge().build_world().unwrap();
        let ids: Vec<JointId> = world.joint_ids().collect();
        let (first, second) = (ids[0], ids[1]);
        let mut trace = JointTrace::default();
        for _ in 0..TRACE_LEN + 5 {
            world.step();
            trace.record(&world, Some(first));
        }
        let samples: Vec<_> = trace.samples(first).copied().collect();
        assert_eq!(samples.len(), TRACE_LEN);
        assert_eq!(samples.last().unwrap().step, world.step_count());
        assert!(samples.iter().any(|s| s.force > 0.0), "the bridge's hinge carries its planks");
        assert_eq!(trace.samples(second).count(), 0);
        world.step();
        trace.record(&world, Some(second));
        assert_eq!(trace.samples(second).count(), 1, "another joint starts afresh");
    }

    #[test]
    fn a_joint_selected_late_is_filled_in_over_the_kept_steps() {
        let (mut world, _) = atoll_physics::scene::builtin::bridge().build_world().unwrap();
        let mut history = History::new(HistorySettings::default());
        history.record(&world);
        let mut live = JointTrace::default();
        let joint = world.joint_ids().nth(3).unwrap();
        for _ in 0..80 {
            world.step();
            history.record(&world);
            live.record(&world, Some(joint));
        }
        // Selected only now: the walk fills in steps 0 to 80, the same as taken live.
        let mut late = JointTrace::default();
        late.follow(&world, &history, Some(joint));
        while late.fill_for(Duration::from_millis(1)) {}
        assert!(late.filling().is_none());
        let filled: Vec<_> = late.samples(joint).copied().collect();
        assert_eq!(filled.len(), 81);
        let taken: Vec<_> = live.samples(joint).copied().collect();
        assert_eq!(&filled[1..], &taken[..], "the walk reads what the world was");
        assert!(filled.iter().any(|s| s.error > 0.0 && s.error < 0.01), "a soft joint's small error");
    }
}
