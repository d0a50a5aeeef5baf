//! The states a history keeps for stepping back, beside its keyframes. Keyframes are far apart
//! (the budget allows a few dozen for a large pile), so going back one step from step `n`
//! would replay most of an interval every time. Instead, the cache keeps what a walk back from
//! the current step needs next ([`KeepPlan`]): the last steps before it (the tail) and
//! checkpoints below the tail on two levels of growing spacing, aligned to the keyframes, from
//! which the tail and the level below are rebuilt as the walk goes on. Seeks keep the plan's
//! states they replay through; fills (`history/back_fill.rs`) rebuild the rest while the
//! world waits, the states nearest the current step first. A walk back through a keyframe
//! interval then costs about a dozen steps replayed per step back when the budget holds five
//! states, and a few when it holds sixteen. While recording at the live end, the state of each
//! of the last few steps is kept (the live tail, its oldest written over by the next capture),
//! so the first steps back from the end restore at once, and a checkpoint every few steps
//! further back.

use crate::world::{CompactState, World};

/// The most states the live tail keeps (one step back each from the live end).
const MAX_LIVE_TAIL: u64 = 8;

/// States kept for stepping back, ascending by step, within a byte budget.
#[derive(Clone, Debug, Default)]
pub(super) struct BackCache {
    states: Vec<CompactState>,
    budget: usize,
}

/// Which states to keep for stepping back from `target`: the tail (the last steps before it)
/// and, below the tail, checkpoints on levels of growing spacing, two a level (where the level
/// below is rebuilt from now, and the next one down, prepared ahead).
#[derive(Clone, Debug)]
pub(super) struct KeepPlan {
    /// Where the replay starts: a kept state it came from stays kept.
    start: u64,
    target: u64,
    /// The tail's first step: every step from it to the target's is kept.
    tail_from: u64,
    /// The checkpoints below the tail, descending (keyframes left out: they restore anyway).
    checkpoints: Vec<u64>,
    /// The keyframes among the tail's steps (left out too).
    tail_keyframes: Vec<u64>,
}

impl KeepPlan {
    /// Keep step `step` (reached while replaying)?
    pub fn keeps(&self, step: u64) -> bool {
        step == self.start || self.wants(step)
    }

    /// Is step `step` one of the plan's tail or checkpoints?
    pub fn wants(&self, step: u64) -> bool {
        ((self.tail_from..self.target).contains(&step) && !self.tail_keyframes.contains(&step))
            || self.checkpoints.contains(&step)
    }

    /// The steps the plan wants, nearest the target first: the order a walk back needs them.
    pub fn wanted(&self) -> impl Iterator<Item = u64> + '_ {
        let tail = (self.tail_from..self.target).rev().filter(|s| !self.tail_keyframes.contains(s));
        tail.chain(self.checkpoints.iter().copied().filter(|&c| c < self.tail_from))
    }

    /// The same plan for a replay from `start`.
    pub fn starting_at(mut self, start: u64) -> KeepPlan {
        self.start = start;
        self
    }
}

/// The last step before `step` that lies a multiple of `spacing` after the keyframe before it
/// (the keyframe itself, possibly), among `keyframes` (ascending).
fn aligned_below(keyframes: &[u64], step: u64, spacing: u64) -> Option<u64> {
    let base = *keyframes.iter().rev().find(|&&k| k < step)?;
    Some(base + (step - 1 - base) / spacing * spacing)
}

/// The most checkpoint levels a plan has.
const LEVELS: u64 = 2;

impl BackCache {
    pub fn new(budget: usize) -> BackCache {
        BackCache { states: Vec::new(), budget }
    }

    /// Changes the bytes it may hold, dropping the oldest states beyond them.
    pub fn set_budget(&mut self, budget: usize) {
        self.budget = budget;
        while self.bytes() > self.budget && !self.states.is_empty() {
            self.states.remove(0);
        }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.states.iter().map(CompactState::bytes).sum()
    }

    /// The largest state of structure `stamp` kept (0 when none is).
    pub fn largest(&self, stamp: u64) -> usize {
        (self.states.iter())
            .filter(|s| s.structure_stamp() == stamp)
            .map(CompactState::bytes)
            .max()
            .unwrap_or(0)
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

    /// What to keep for stepping back from `target`, between the segment's `keyframes`
    /// (ascending; `span` is the interval after the last), with room for the states of
    /// `state_bytes` the budget holds: a tail and two levels of two checkpoints, aligned to multiples of their spacing from the keyframe
    /// before them. A level's next checkpoint is rebuilt from the level above while a walk back
    /// goes through the current one's stretch, and the spacings grow by one ratio, which evens
    /// out what each level costs per step back.
    ///
    /// Where the tail is short (the room less four, under three states), it is the last steps, each step back
    /// refilling one from the first level's checkpoint: the pyramid field's room for five
    /// states and keyframes 667 steps apart give a tail of one and spacings 9 and 81, about 13
    /// steps replayed per step back, in pieces a fill on its own thread finishes between two
    /// key presses. A longer tail is the stretch from the first level's checkpoint (its spacing
    /// the tail's length plus one) to the target, refilled whole when the walk passes the
    /// checkpoint: a step replayed per step back, where refilling its bottom step at every step
    /// back replayed a dozen. Geometric checkpoints from the target (a dense tail, then 2, 4,
    /// 8... times its length) left every few steps back replaying hundreds of steps in a
    /// room of five.
    pub fn plan(&self, target: u64, keyframes: &[u64], span: u64, state_bytes: usize) -> KeepPlan {
        let room = self.capacity(state_bytes);
        let levels = (room.saturating_sub(1) / 2).min(LEVELS);
        let tail = room.saturating_sub(2 * levels).max(1);
        let whole_stretch = tail >= 3 && levels > 0;
        let mut checkpoints = Vec::new();
        let mut tail_from = target.saturating_sub(tail);
        let mut below = if whole_stretch { target } else { tail_from };
        // The spacings come from the keyframe interval the tail ends in.
        if let Some(k) = keyframes.iter().rposition(|&k| k < below) {
            let interval = keyframes.get(k + 1).map_or(span, |next| next - keyframes[k]) as f64;
            // Floats only place kept states (never a result of the simulation). Each level's
            // spacing is a multiple of the one below, so the levels share steps.
            let (first, factor) = if whole_stretch {
                (tail + 1, (interval / (tail + 1) as f64).powf(1.0 / levels as f64))
            } else {
                let factor = (interval / tail as f64).powf(1.0 / (levels + 1) as f64);
                (tail * (factor.round() as u64).max(2), factor)
            };
            let factor = (factor.round() as u64).max(2);
            let mut spacing = first;
            for level in 0..levels {
                if level > 0 {
                    spacing *= factor;
                }
                // The level's current checkpoint and the next one down, keyframes passed over
                // (they restore anyway): where the walk nears a keyframe, the next ones lie in
                // the interval before it and are prepared while the walk is still above it.
                let mut found = 0;
                let mut at = below;
                while found < 2
                    && let Some(step) = aligned_below(keyframes, at, spacing)
                {
                    if whole_stretch && level == 0 && at == below {
                        tail_from = step + 1;
                    }
                    if keyframes.binary_search(&step).is_err() {
                        if !checkpoints.contains(&step) {
                            checkpoints.push(step);
                        }
                        found += 1;
                    }
                    at = step;
                }
                below = at;
            }
        }
        // Nothing before the segment's first keyframe belongs to it.
        tail_from = tail_from.max(keyframes.first().map_or(0, |&k| k + 1)).min(target);
        let tail_keyframes = keyframes.iter().copied().filter(|k| (tail_from..target).contains(k)).collect();
        KeepPlan { start: target, target, tail_from, checkpoints, tail_keyframes }
    }

    /// Adds the states kept from a replay towards `target` (by `plan`, if one was followed),
    /// then drops what the budget cannot hold: first states after the target (a step back
    /// never needs them), then states the plan does not keep (those of earlier plans) but the
    /// oldest and those a fill goes on from (the nearest below a wanted step not kept), then
    /// the oldest. Dropping the oldest first had the checkpoints of the very
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
                    .find(|(i, s)| !p.keeps(s.step_count()) && !self.leads_to_wanted(*i, p))
                    .map(|(i, _)| i)
            };
            self.states.remove(after.or_else(unplanned).unwrap_or(0));
        }
    }

    /// Whether state `index` is the nearest below a step `plan` wants and the cache lacks: a
    /// fill stopped on its way there left it, and the next fill goes on from it.
    fn leads_to_wanted(&self, index: usize, plan: &KeepPlan) -> bool {
        let step = self.states[index].step_count();
        let next = self.states.get(index + 1).map_or(u64::MAX, CompactState::step_count);
        plan.wanted().any(|w| w > step && w < next)
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    #[test]
    fn a_plan_in_a_small_room_keeps_a_tail_and_two_levels_of_checkpoints() {
        // Room for five states, keyframes 667 steps apart: a tail of one, spacings 9 and 81.
        let cache = BackCache::new(5);
        let plan = cache.plan(550, &[0, 667], 667, 1);
        assert_eq!(plan.checkpoints, vec![540, 531, 486, 405]);
        assert_eq!(plan.wanted().collect::<Vec<_>>(), vec![549, 540, 531, 486, 405]);
        // Near a keyframe, a level's checkpoints lie past it, in the interval before it.
        let plan = cache.plan(672, &[0, 667, 1334], 667, 1);
        assert_eq!(plan.checkpoints, vec![666, 657, 648, 567]);
        // Room for sixteen, keyframes 100 apart: the tail is the stretch from a checkpoint of
        // the first level (13 apart) to the target; the second level (39 apart) passes over
        // the keyframe to two checkpoints in the interval before it.
        let cache = BackCache::new(16);
        let plan = cache.plan(150, &[0, 100, 200], 100, 1);
        let tail: Vec<u64> = (140..150).rev().collect();
        assert_eq!(plan.wanted().collect::<Vec<_>>(), [&tail[..], &[139, 126, 78, 39]].concat());
    }

    /// Walks back from `from` to the first keyframe one step at a time, rebuilding before each
    /// step back what the plan wants (each missing step from the latest kept step before it,
    /// or a keyframe), and returns the steps replayed for each step back, in the cost model of
    /// the back fill: (the most, the mean).
    fn walk_back(room: usize, keyframes: &[u64], from: u64) -> (u64, f64) {
        let cache = BackCache::new(room);
        let mut kept: BTreeSet<u64> = BTreeSet::new();
        let (mut most, mut total) = (0, 0);
        for cursor in (keyframes[0] + 2..=from).rev() {
            let plan = cache.plan(cursor, keyframes, 667, 1);
            let mut replayed = 0;
            while let Some(target) =
                plan.wanted().find(|s| !kept.contains(s) && keyframes.binary_search(s).is_err())
            {
                let start = kept
                    .range(..target)
                    .next_back()
                    .copied()
                    .into_iter()
                    .chain(keyframes.iter().copied().filter(|&k| k < target))
                    .max()
                    .expect("a keyframe before");
                replayed += target - start;
                kept.extend((start + 1..=target).filter(|&s| plan.wants(s)));
                kept.retain(|&s| plan.wants(s));
                assert!(kept.len() <= room, "the plan at {cursor} wants more than the room");
            }
            most = most.max(replayed);
            total += replayed;
        }
        (most, total as f64 / (from - keyframes[0] - 1) as f64)
    }

    #[test]
    fn a_walk_back_through_a_long_interval_replays_a_few_steps_per_step_back() {
        // The pyramid field's case: five states, keyframes 667 steps apart. About a dozen steps
        // per step back on average (a state kept for each did it once), the most in one step
        // back a second level's rebuild, which a fill on its own thread spreads over the
        // steps back before it is needed.
        let (most, mean) = walk_back(5, &[0, 667, 1334], 1300);
        assert!(mean < 15.0, "{mean} steps replayed per step back");
        assert!(most <= 667, "{most}");
        // A roomy cache (the tumbler's sixteen states) replays a few steps per step back.
        let (_, mean) = walk_back(16, &[0, 100, 200, 300], 290);
        assert!(mean < 3.5, "{mean} steps replayed per step back");
    }
}
