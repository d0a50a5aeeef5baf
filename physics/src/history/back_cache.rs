//! The states a history keeps for stepping back, beside its keyframes. Keyframes are far apart
//! (the budget allows a few dozen for a large pile), so going back one step from step `n`
//! would replay most of an interval every time. Instead, whenever steps are replayed, some of
//! their states are kept here: every one of the last steps before the target (the dense tail)
//! and checkpoints before it at distances growing by a ratio of at least 2 (2, 4, 8, ... times
//! the tail's length where the replay is short). A step back then restores
//! a kept state or replays from a checkpoint, and that replay keeps states the same way, so a
//! walk back through an interval costs a few steps per step back when the budget holds a few
//! states, and about one when it holds dozens. While recording at the live end, the state of
//! each of the last few steps is kept (the live tail, its oldest written over by the next
//! capture), so the first steps back from the end restore at once, and a checkpoint every few
//! steps further back.

use crate::world::{CompactState, World};

/// The most states the live tail keeps (one step back each from the live end).
const MAX_LIVE_TAIL: u64 = 8;

/// States kept for stepping back, ascending by step, within a byte budget.
#[derive(Clone, Debug, Default)]
pub(super) struct BackCache {
    states: Vec<CompactState>,
    budget: usize,
}

/// Which steps of a replay from `start` to `target` to keep.
#[derive(Clone, Debug)]
pub(super) struct KeepPlan {
    /// Where the replay starts: a kept state it came from stays kept.
    start: u64,
    target: u64,
    /// The dense tail's length.
    dense: u64,
    /// The checkpoints before the tail, as steps back from the target, ascending.
    checkpoints: Vec<u64>,
}

impl KeepPlan {
    /// The dense tail's length: the steps just before the target that are kept.
    pub fn dense(&self) -> u64 {
        self.dense
    }

    /// Keep step `step` (reached while replaying)?
    pub fn keeps(&self, step: u64) -> bool {
        if step >= self.target {
            return false;
        }
        let back = self.target - step;
        step == self.start || back <= self.dense || self.checkpoints.binary_search(&back).is_ok()
    }
}

impl BackCache {
    pub fn new(budget: usize) -> BackCache {
        BackCache { states: Vec::new(), budget }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.states.iter().map(CompactState::bytes).sum()
    }

    /// States the budget holds at `state_bytes` each.
    fn capacity(&self, state_bytes: usize) -> u64 {
        (self.budget / state_bytes.max(1)) as u64
    }

    /// Whether the state of step `step` of structure `stamp` is kept.
    pub fn holds(&self, step: u64, stamp: u64) -> bool {
        self.states.iter().any(|s| s.step_count() == step && s.structure_stamp() == stamp)
    }

    /// The latest kept state at or before `step` and at or after `from`, of structure `stamp`.
    pub fn best(&self, from: u64, step: u64, stamp: u64) -> Option<&CompactState> {
        self.states
            .iter()
            .rev()
            .find(|s| s.step_count() <= step && s.step_count() >= from && s.structure_stamp() == stamp)
    }

    /// What to keep of a replay from `start` towards `target`: a quarter of the room (at least
    /// two states) for checkpoints further back, the rest for the steps just before it.
    /// Checkpoints far back are the first evicted once a walk back has used the tail, so a
    /// long tail replays less where the room is large (the tumbler: 50 steps replayed for 30
    /// steps back, against 59 with half the room each); where it holds a few states, two
    /// checkpoints matter more. The checkpoints lie at `dense · r^k` steps back, with the ratio
    /// `r` (at least 2) spreading them over the replay so that each later refill replays about
    /// `r` times the last: with room for four states of the pyramid field and keyframes 667
    /// steps apart, checkpoints 4 and 8 steps back left every eighth step back replaying
    /// hundreds of steps.
    pub fn plan(&self, target: u64, start: u64, state_bytes: usize) -> KeepPlan {
        let room = self.capacity(state_bytes);
        let dense = room.saturating_sub((room / 4).max(2)).max(1);
        let count = room - dense.min(room);
        let span = target.saturating_sub(start);
        // Floats only place kept states (never a result of the simulation).
        let ratio = (span as f64 / dense as f64).powf(1.0 / (count + 1) as f64).max(2.0);
        let mut checkpoints: Vec<u64> = (1..=count.min(64) as i32)
            .map(|k| (dense as f64 * ratio.powi(k)).round() as u64)
            .take_while(|&back| back < span)
            .collect();
        checkpoints.dedup();
        KeepPlan { start, target, dense, checkpoints }
    }

    /// Adds the states kept from a replay towards `target` (by `plan`, if one was followed),
    /// then drops what the budget cannot hold: first states after the target (a step back
    /// never needs them), then states the plan does not keep (those of earlier plans) but the
    /// oldest, then the oldest. Dropping the oldest first had the checkpoints of the very
    /// replay that made them dropped again at once when the room holds a few states, and the
    /// next refill replayed from a keyframe; dropping the earlier plans' states, the oldest
    /// included, lost the far checkpoint the next refills start from.
    pub fn add(&mut self, kept: Vec<CompactState>, target: u64, plan: Option<&KeepPlan>) {
        self.states.retain(|s| !kept.iter().any(|k| k.step_count() == s.step_count()));
        self.states.extend(kept);
        self.states.sort_by_key(CompactState::step_count);
        while self.bytes() > self.budget {
            let after = self.states.iter().rposition(|s| s.step_count() > target);
            // The oldest state stays while others can go: it is the one refills start from.
            let unplanned = || {
                let p = plan?;
                (self.states.iter().enumerate().skip(1))
                    .find(|(_, s)| !p.keeps(s.step_count()))
                    .map(|(i, _)| i)
            };
            self.states.remove(after.or_else(unplanned).unwrap_or(0));
        }
    }

    /// While recording at the live end: keeps the state of every one of the last steps (the
    /// live tail, half the room and at most [`MAX_LIVE_TAIL`] states, so the first steps back
    /// from the end restore at once) and, further back, a checkpoint every `stride` steps of
    /// the segment with the rest of the room (so a step back beyond the tail replays fewer than
    /// `stride` steps). The state that leaves the tail is written over by the next capture
    /// unless it is a checkpoint: the step pays for a copy, not for allocating megabytes.
    pub fn note_recorded(&mut self, world: &World, segment_start: u64, interval: u64, state_bytes: usize) {
        // The newest kept state tells the size at the live end better than a keyframe long ago
        // (a pile's first keyframe, before anything touched, has no contacts).
        let room =
            self.capacity(self.states.last().map_or(state_bytes, CompactState::bytes).max(state_bytes));
        if room < 2 || interval <= 1 {
            return;
        }
        let tail = (room / 2).min(MAX_LIVE_TAIL);
        let stride = interval.div_ceil((room - tail).max(1)).max(1);
        let step = world.step_count();
        let checkpoint = |s: u64| (s - segment_start).is_multiple_of(stride);
        let left_tail = step.saturating_sub(tail);
        let reuse = (step > segment_start + tail)
            .then(|| self.states.iter().position(|s| s.step_count() == left_tail))
            .flatten()
            .filter(|&i| !checkpoint(self.states[i].step_count()));
        let state = match reuse {
            Some(i) => {
                let mut state = self.states.remove(i);
                world.capture_into(&mut state);
                state
            }
            None => world.capture(),
        };
        self.add(vec![state], step, None);
    }

    /// Forgets the states of step `step` and after.
    pub fn drop_from(&mut self, step: u64) {
        self.states.retain(|s| s.step_count() < step);
    }

    /// Forgets the states before step `step`.
    pub fn drop_before(&mut self, step: u64) {
        self.states.retain(|s| s.step_count() >= step);
    }

    pub fn clear(&mut self) {
        self.states.clear();
    }
}
