//! A team's run through stages whose work is split by part, where a member waits for the
//! other parts only as far as their bodies meet its own: the substeps of a solve of contacts.
//!
//! Each part's work in each stage is two **units**: first its *edge* unit, whose contacts move
//! or read bodies that other parts' contacts touch too (or, in a body stage, all its bodies),
//! then its *inner* unit, whose contacts touch bodies no other part's contact touches. A part's
//! units run in order. The edge unit of stage `s` waits until every other part has done its
//! edge unit of stage `s - 1`; the inner unit waits for nothing but its own part. So a member
//! starts a colour while the others are still in the inner contacts of the colour before: the
//! waits at the end of each colour, which a stage per colour (`Team::for_each_colour`) had
//! every member take, mostly vanish.
//!
//! Why that is the order one thread computes: a body that one part's work moves and another
//! part's work touches is moved and touched only by edge units (a movable body two parts'
//! contacts touch; a kinematic body, moved by its part's body stages and read by another
//! part's contacts); an edge unit of stage `s` of one part runs after every other part's edge
//! unit of `s - 1` and before any other part's edge unit of `s + 1` (which waits for it), and
//! within one stage no two contacts share a moving body. What an inner unit moves, no other
//! part touches. Every body therefore sees its stages' updates in stage order, as on one
//! thread, and the numbers are the same bit for bit.

use super::{PoisonOnUnwind, Team};
use crate::parallel::MOST_PARTS;
use crate::parallel::chaos;
use crate::parallel::door::{SPINS_BEFORE_YIELD, TeamPoisoned};
use crate::parallel::sync::{self, AtomicBool, AtomicU32, Ordering};

/// Which of a part's two units of a stage a piece of work is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Unit {
    /// The part's work that reaches bodies other parts' work touches (run first).
    Edge,
    /// The part's work on bodies of its own alone.
    Inner,
}

/// Where one part has got to. A cache line pair of its own: its member writes it after every
/// unit, and the others read it.
#[repr(align(128))]
#[derive(Debug, Default)]
struct PartProgress {
    /// Units claimed: the unit in progress is the one before, when it is ahead of `done`.
    claimed: AtomicU32,
    /// Units done, in order: unit `2 s` is stage `s`'s edge unit, `2 s + 1` its inner unit.
    done: AtomicU32,
    /// Whether the part's own member has begun; until then the others take its units
    /// without waiting for it.
    begun: AtomicBool,
}

/// The progress of every part through one pipelined run ([`Team::pipeline`]), shared by the
/// team; one per run.
#[derive(Debug)]
pub(crate) struct Pipeline {
    parts: [PartProgress; MOST_PARTS],
    count: usize,
}

impl Pipeline {
    /// A run of `count` parts (at most [`MOST_PARTS`]), none begun.
    pub fn new(count: usize) -> Pipeline {
        assert!((1..=MOST_PARTS).contains(&count), "{count} parts");
        Pipeline { parts: Default::default(), count }
    }

    /// Whether unit `unit` of part `part` may run once the part's units before it are done:
    /// an inner unit always; an edge unit of stage `s` once every other part has done its
    /// edge unit of stage `s - 1` (its units `..= 2 s - 2`, `done >= 2 s - 1`).
    fn ready(&self, part: usize, unit: u32) -> bool {
        unit % 2 == 1
            || (0..self.count)
                .all(|other| other == part || self.parts[other].done.load(Ordering::Acquire) + 1 >= unit)
    }
}

impl Team<'_> {
    /// Runs `stages` stages of `pipeline`'s parts: `work(part, stage, unit)` does that part's
    /// unit of the stage. Each member with a part (index below the part count) runs its own
    /// part's units in order as soon as each may run ([`Pipeline`]'s rule); once it has waited
    /// past the spins before yielding, or at once for a part whose member has not begun, it
    /// runs the least advanced other part's next unit instead (that one can always run, so the
    /// run never stalls for a member the system has not scheduled). Returns once every part's
    /// units are done. Alone, it runs the stages in order, each part's edge unit then its inner.
    pub fn pipeline(&self, pipeline: &Pipeline, stages: usize, mut work: impl FnMut(usize, usize, Unit)) {
        let parts = pipeline.count;
        let Some(state) = self.state else {
            for stage in 0..stages {
                for unit in [Unit::Edge, Unit::Inner] {
                    (0..parts).for_each(|part| work(part, stage, unit));
                }
            }
            return;
        };
        let total = 2 * stages as u32;
        let progress = &pipeline.parts[..parts];
        let poison = PoisonOnUnwind(&state.poisoned);
        // Runs unit `unit` of `part` if it is the part's next, may run, and no member has
        // claimed it: true if this member ran it.
        let mut try_unit = |part: usize, unit: u32| {
            if unit >= total || !pipeline.ready(part, unit) {
                return false;
            }
            // The claim moves from `unit` only once `done` has reached it (seen above, with
            // the writes of the units before), so one member runs each unit, after those.
            chaos::pause();
            let claim = &progress[part].claimed;
            if claim.compare_exchange(unit, unit + 1, Ordering::Relaxed, Ordering::Relaxed).is_err() {
                return false;
            }
            let kind = if unit.is_multiple_of(2) { Unit::Edge } else { Unit::Inner };
            work(part, (unit / 2) as usize, kind);
            // Carries the unit's writes to whoever sees the count.
            progress[part].done.store(unit + 1, Ordering::Release);
            chaos::pause();
            true
        };
        let own = (self.index < parts).then_some(self.index);
        if let Some(part) = own {
            progress[part].begun.store(true, Ordering::Relaxed);
        }
        let mut spins = 0;
        loop {
            if let Some(part) = own
                && try_unit(part, progress[part].done.load(Ordering::Acquire))
            {
                spins = 0;
                continue;
            }
            let least = (0..parts)
                .filter(|&part| Some(part) != own)
                .map(|part| (progress[part].done.load(Ordering::Acquire), part))
                .min();
            let own_done = own.is_none_or(|part| progress[part].done.load(Ordering::Acquire) >= total);
            if own_done && least.is_none_or(|(done, _)| done >= total) {
                break;
            }
            if let Some((done, part)) = least {
                let absent = !progress[part].begun.load(Ordering::Relaxed);
                if (absent || spins >= SPINS_BEFORE_YIELD) && try_unit(part, done) {
                    // Spin again before yielding: the own part's unit may be ready soon.
                    spins = 0;
                    continue;
                }
            }
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                sync::spin_loop();
            } else {
                if state.poisoned.load(Ordering::Acquire) {
                    std::panic::panic_any(TeamPoisoned);
                }
                sync::yield_now();
            }
        }
        std::mem::forget(poison);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::team::{TeamState, run_team};
    use std::sync::Mutex;

    /// Runs a pipeline of `parts` parts and `stages` stages on `threads` threads (a team of
    /// them, or only member 0 of a team whose others never come), and checks that every unit
    /// ran once, in its part's order, and each edge unit only after every other part's edge
    /// unit of the stage before, and before any other part's edge unit of the stage after.
    fn check(parts: usize, stages: usize, threads: usize, others_come: bool) {
        let pipeline = Pipeline::new(parts);
        // Each unit's start and end on one clock of events.
        let clock = AtomicU32::new(0);
        let events = Mutex::new(vec![[u32::MAX; 2]; parts * stages * 2]);
        let slot = |part: usize, stage: usize, unit: Unit| {
            (part * stages + stage) * 2 + usize::from(unit == Unit::Inner)
        };
        let run = |team: &Team| {
            team.pipeline(&pipeline, stages, |part, stage, unit| {
                let start = clock.fetch_add(1, Ordering::SeqCst);
                // A little work, longer in some parts, so the members drift apart.
                for _ in 0..(part * 37 + stage * 11) % 200 {
                    sync::spin_loop();
                }
                let end = clock.fetch_add(1, Ordering::SeqCst);
                let mut events = events.lock().expect("no panic");
                assert_eq!(events[slot(part, stage, unit)], [u32::MAX; 2], "unit run twice");
                events[slot(part, stage, unit)] = [start, end];
            })
        };
        if others_come {
            let pool = rayon::ThreadPoolBuilder::new().num_threads(threads - 1).build().expect("a pool");
            run_team(Some(&pool), run);
        } else {
            let state = TeamState::default();
            run(&Team::member(0, threads, &state));
        }
        let events = events.into_inner().expect("no panic");
        for part in 0..parts {
            for stage in 0..stages {
                let [edge_start, edge_end] = events[slot(part, stage, Unit::Edge)];
                let [inner_start, inner_end] = events[slot(part, stage, Unit::Inner)];
                assert!(edge_end != u32::MAX && inner_end != u32::MAX, "part {part} stage {stage} not run");
                assert!(edge_end < inner_start, "part {part} stage {stage}: inner before edge");
                if stage + 1 < stages {
                    assert!(
                        inner_end < events[slot(part, stage + 1, Unit::Edge)][0],
                        "part {part} out of order"
                    );
                }
                for other in (0..parts).filter(|&other| other != part) {
                    if stage > 0 {
                        let before = events[slot(other, stage - 1, Unit::Edge)];
                        assert!(
                            before[1] < edge_start,
                            "part {part} stage {stage} before part {other}'s edge"
                        );
                    }
                    if stage + 1 < stages {
                        let after = events[slot(other, stage + 1, Unit::Edge)];
                        assert!(
                            edge_end < after[0],
                            "part {other} stage {} before part {part}'s edge",
                            stage + 1
                        );
                    }
                }
            }
        }
    }

    #[test]
    fn every_unit_runs_once_and_edges_wait_for_the_stage_before() {
        for (parts, stages, threads) in [(2, 1, 2), (2, 40, 2), (3, 25, 3), (4, 30, 4), (2, 30, 3)] {
            check(parts, stages, threads, true);
        }
    }

    #[test]
    fn a_part_whose_member_never_comes_is_run_by_the_others() {
        check(2, 20, 2, false);
        check(4, 10, 4, false);
    }

    #[test]
    fn a_unit_that_panics_stops_the_team_with_its_panic() {
        // Whichever member runs part 1's unit of stage 5 panics; the other, waiting for that
        // unit (part 0's edge units of stage 6 on wait for it), stops too, and the team raises
        // the unit's own panic.
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        for _ in 0..20 {
            let pipeline = Pipeline::new(2);
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_team(Some(&pool), |team| {
                    team.pipeline(&pipeline, 12, |part, stage, _| {
                        if (part, stage) == (1, 5) {
                            panic!("unit failed");
                        }
                        std::thread::sleep(std::time::Duration::from_micros(20));
                    })
                })
            }));
            let payload = outcome.expect_err("the unit's panic stops the team");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"unit failed"));
        }
    }

    #[test]
    fn alone_every_stage_runs_in_order() {
        let pipeline = Pipeline::new(3);
        let mut seen = Vec::new();
        Team::alone()
            .pipeline(&pipeline, 2, |part, stage, unit| seen.push((stage, unit == Unit::Inner, part)));
        let mut sorted = seen.clone();
        sorted.sort();
        assert_eq!(seen, sorted);
        assert_eq!(seen.len(), 12);
    }
}
