//! The recent steps of the selected joint, for the Inspector's plot: its coordinate (angle or
//! translation) and the size of its constraint force, one sample per step. Kept for one joint
//! at a time and started afresh when the selection moves to another.

use atoll_physics::{JointId, World};
use std::collections::VecDeque;

/// Steps of a joint's trace kept.
pub const TRACE_LEN: usize = 600;

/// One step of a joint.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct JointSample {
    /// The world's step count after the step.
    pub step: u64,
    /// The joint's coordinate (see `JointView::position`).
    pub position: f32,
    /// The size of its constraint force, N.
    pub force: f32,
}

/// The samples of one joint over the recent steps.
#[derive(Clone, Debug, Default)]
pub struct JointTrace {
    joint: Option<JointId>,
    samples: VecDeque<JointSample>,
}

impl JointTrace {
    /// Records the step the world just took for `joint` (the selected one, if any). Another
    /// joint than before starts a new trace.
    pub fn record(&mut self, world: &World, joint: Option<JointId>) {
        if joint != self.joint {
            self.joint = joint;
            self.samples.clear();
        }
        let Some(view) = joint.and_then(|id| world.joint(id).ok()) else { return };
        if self.samples.len() == TRACE_LEN {
            self.samples.pop_front();
        }
        self.samples.push_back(JointSample {
            step: world.step_count(),
            position: view.position,
            force: view.force.length(),
        });
    }

    /// The samples of `joint`, oldest first (none when the trace is another joint's).
    pub fn samples(&self, joint: JointId) -> impl Iterator<Item = &JointSample> {
        self.samples.iter().filter(move |_| self.joint == Some(joint))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
