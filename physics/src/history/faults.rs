//! The bodies the kept steps held back ([`crate::BodyFault`]), for saying of a body where it
//! was capped or stopped after the world has moved on or gone back.
//!
//! A body over a speed cap usually stays over it for many steps in a row (a body falling at
//! the cap is capped every step until it lands), so what is kept is a run per body and kind
//! of consecutive steps, not a fault per step: a pile falling at a low cap costs a run per
//! body, not a fault per body per step. Runs are cut where the records are (old steps
//! dropped, later steps discarded by an edit in the past), and over their share of the
//! history's budget the runs that ended longest ago go first.

use crate::body::BodyId;
use crate::world::{BodyFault, BodyFaultKind};
use std::collections::VecDeque;

/// The share of the history's budget the runs may take: `budget_bytes / FAULT_SHARE`.
pub(super) const FAULT_SHARE: usize = 16;

/// A body held back in one way ([`BodyFaultKind`]) at each of the recorded steps
/// `first..=last` ([`crate::History::fault_runs`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FaultRun {
    /// The body.
    pub body: BodyId,
    /// How it was held back.
    pub kind: BodyFaultKind,
    /// The first step of the run (the world's step count after it).
    pub first: u64,
    /// The last step of the run, `first` for a run of one step.
    pub last: u64,
}

impl FaultRun {
    /// The number of steps in the run.
    pub fn steps(&self) -> u64 {
        self.last - self.first + 1
    }
}

/// How the kept steps held one body back in one way ([`crate::History::held_back`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct HeldBack {
    /// The first kept step it was held back at.
    pub first: u64,
    /// The kept steps it was held back at, the first included.
    pub steps: u64,
}

/// The runs of the kept steps.
#[derive(Clone, Debug, Default)]
pub(super) struct FaultRuns {
    /// Runs that end before the last recorded step, in the order of their last steps (so the
    /// oldest go first from the front).
    ended: VecDeque<FaultRun>,
    /// Runs that reach the last recorded step, which the next step may extend, in body order.
    open: Vec<FaultRun>,
}

impl FaultRuns {
    /// Every run, those that ended first.
    pub fn iter(&self) -> impl Iterator<Item = &FaultRun> + '_ {
        self.ended.iter().chain(&self.open)
    }

    /// Bytes the runs take.
    pub fn bytes(&self) -> usize {
        (self.ended.len() + self.open.len()) * std::mem::size_of::<FaultRun>()
    }

    /// Adds recorded step `step`, the step after the last recorded one (or the first), with the
    /// world's faults of its last step (those of another step are left out: a world put back
    /// from elsewhere may still hold them).
    pub fn record(&mut self, step: u64, faults: &[BodyFault]) {
        if faults.is_empty() && self.open.is_empty() {
            return;
        }
        let mut now: Vec<(BodyId, BodyFaultKind)> =
            faults.iter().filter(|f| f.step == step).map(|f| (f.body, f.kind)).collect();
        // A body is held back at most once a step; in body order the open runs are merged in
        // one walk.
        now.sort_unstable_by_key(|&(body, _)| body);
        let start = |(body, kind): (BodyId, BodyFaultKind)| FaultRun { body, kind, first: step, last: step };
        let mut next = Vec::with_capacity(now.len());
        let mut now = now.into_iter().peekable();
        for run in std::mem::take(&mut self.open) {
            while let Some(fault) = now.next_if(|&(body, _)| body < run.body) {
                next.push(start(fault));
            }
            if run.last + 1 == step && now.next_if_eq(&(run.body, run.kind)).is_some() {
                next.push(FaultRun { last: step, ..run });
            } else {
                self.ended.push_back(run);
            }
        }
        next.extend(now.map(start));
        self.open = next;
    }

    /// Cuts the runs at step `step`: the steps from it on are no longer recorded.
    pub fn truncate_from(&mut self, step: u64) {
        let Some(last) = step.checked_sub(1) else {
            return self.clear();
        };
        self.ended.retain(|r| r.first < step);
        self.ended.extend(self.open.drain(..).filter(|r| r.first < step));
        // Clipping every end to `last` keeps them in order; those that reach it now end at the
        // last recorded step, where the next step recorded may extend them.
        for r in &mut self.ended {
            r.last = r.last.min(last);
        }
        while self.ended.back().is_some_and(|r| r.last == last) {
            self.open.push(self.ended.pop_back().expect("a run"));
        }
        self.open.sort_unstable_by_key(|r| r.body);
    }

    /// Cuts the runs at step `oldest`: the steps before it are no longer recorded.
    pub fn drop_before(&mut self, oldest: u64) {
        while self.ended.front().is_some_and(|r| r.last < oldest) {
            self.ended.pop_front();
        }
        self.open.retain(|r| r.last >= oldest);
        for r in self.ended.iter_mut().chain(&mut self.open) {
            r.first = r.first.max(oldest);
        }
    }

    /// Drops the runs that ended longest ago until the runs take at most `bytes`.
    pub fn fit(&mut self, bytes: usize) {
        while self.bytes() > bytes && self.ended.pop_front().is_some() {}
    }

    pub fn clear(&mut self) {
        self.ended.clear();
        self.open.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fault(index: u32, step: u64, kind: BodyFaultKind) -> BodyFault {
        BodyFault { body: BodyId::new(index, 0), step, kind }
    }

    fn runs(r: &FaultRuns) -> Vec<(u32, BodyFaultKind, u64, u64)> {
        let mut all: Vec<_> = r.iter().map(|r| (r.body.index(), r.kind, r.first, r.last)).collect();
        all.sort_by_key(|&(b, _, first, _)| (b, first));
        all
    }

    use BodyFaultKind::{Capped, NonFinite};

    #[test]
    fn consecutive_steps_make_one_run_and_a_gap_or_another_kind_a_new_one() {
        let mut r = FaultRuns::default();
        r.record(0, &[]);
        r.record(1, &[fault(3, 1, Capped), fault(1, 1, Capped)]);
        r.record(2, &[fault(1, 2, Capped), fault(3, 2, NonFinite)]);
        r.record(3, &[fault(1, 3, Capped)]);
        r.record(4, &[]);
        r.record(5, &[fault(3, 5, Capped), fault(2, 4, Capped)]);
        assert_eq!(
            runs(&r),
            vec![(1, Capped, 1, 3), (3, Capped, 1, 1), (3, NonFinite, 2, 2), (3, Capped, 5, 5)],
            "a fault of another step than the one recorded is left out"
        );
        // The ended runs are in the order of their ends.
        let ends: Vec<u64> = r.ended.iter().map(|r| r.last).collect();
        assert!(ends.is_sorted(), "{ends:?}");
    }

    #[test]
    fn cuts_at_either_end_clip_the_runs_and_a_cut_run_goes_on() {
        let mut r = FaultRuns::default();
        for step in 1..=10 {
            let mut faults = vec![fault(1, step, Capped)];
            if step % 2 == 0 {
                faults.push(fault(2, step, Capped));
            }
            r.record(step, &faults);
        }
        r.truncate_from(7);
        assert_eq!(runs(&r)[0], (1, Capped, 1, 6));
        assert!(runs(&r).iter().all(|&(_, _, first, last)| first <= last && last <= 6), "{:?}", runs(&r));
        // The long run reaches the last step kept: the next recorded step extends it.
        r.record(7, &[fault(1, 7, Capped)]);
        assert_eq!(runs(&r)[0], (1, Capped, 1, 7));
        r.drop_before(4);
        assert_eq!(runs(&r), vec![(1, Capped, 4, 7), (2, Capped, 4, 4), (2, Capped, 6, 6)]);
        // Over a budget of two runs, the one that ended first goes.
        r.fit(2 * std::mem::size_of::<FaultRun>());
        assert_eq!(runs(&r), vec![(1, Capped, 4, 7), (2, Capped, 6, 6)]);
        r.truncate_from(0);
        assert!(runs(&r).is_empty());
    }
}
