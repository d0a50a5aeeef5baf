//! The threads of one solve: each runs the same sequence of stages (integrate, warm start,
//! solve, relax, ... for every substep) and helps with each stage's work, cut into blocks. A
//! stage's blocks share no moving body (a colour's batches, or a range of bodies), so whichever
//! member solves a block, and in whatever order, the numbers are the ones one thread computes:
//! the result is the same bit for bit on any number of threads.
//!
//! A solve has hundreds of stages (colours × passes × substeps), a few microseconds each on a
//! small colour. Forking and joining a thread pool per stage costs about that much, so the
//! team is started once per solve. Within it, members claim blocks with one atomic operation
//! each (in the solver's colours each member does its own part's blocks and leaves the others'
//! to their members unless those have not begun or fall behind, so a member gets the same
//! bodies in every substep, in its cache) and wait for a stage's blocks to be *done*, not for
//! every member to arrive: a member the system has not scheduled (there are other programs,
//! and sometimes more threads than cores) holds nobody up, the others do its blocks.

mod linger;
mod pipeline;

#[cfg(all(test, loom))]
pub(crate) use linger::Linger;
pub(crate) use linger::helpers_lingering;
pub(crate) use pipeline::{Pipeline, Unit};

use super::chaos;
use super::door::{SPINS_BEFORE_YIELD, TeamPoisoned, run_gated};
use super::sync::{self, AtomicBool, AtomicU32, AtomicUsize, Ordering};
use std::cell::Cell;
use std::ops::Range;

/// One claim word per block: the last stage that claimed it. Stages are numbered from 1 in
/// every solve, in the order every member runs them, so a block is claimed in stage `s` by the
/// one member whose `fetch_max(s)` saw a smaller number. Cleared before every solve.
#[derive(Debug, Default)]
pub(crate) struct Claims(Vec<AtomicU32>);

impl Clone for Claims {
    /// Claims live within one solve; a copy starts cleared.
    fn clone(&self) -> Claims {
        Claims((0..self.0.len()).map(|_| AtomicU32::new(0)).collect())
    }
}

impl Claims {
    /// `count` claim words, all cleared.
    pub fn reset(&mut self, count: usize) {
        self.0.resize_with(count, || AtomicU32::new(0));
        #[cfg(not(loom))]
        self.0.iter_mut().for_each(|c| *c.get_mut() = 0);
        #[cfg(loom)]
        self.0.iter_mut().for_each(|c| c.with_mut(|v| *v = 0));
    }

    /// The claim words, for the team.
    pub fn words(&self) -> &[AtomicU32] {
        &self.0
    }
}

/// What the members of one team share: the count of blocks done, and whether a member
/// panicked in a block (its blocks will never be counted, so the others stop waiting).
#[derive(Debug, Default)]
pub(crate) struct TeamState {
    done: AtomicUsize,
    poisoned: AtomicBool,
}

/// Marks the team poisoned if dropped, which happens only while a block's panic unwinds (the
/// normal path forgets it).
struct PoisonOnUnwind<'a>(&'a AtomicBool);

impl Drop for PoisonOnUnwind<'_> {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Release);
    }
}

/// One member's view of the team running a solve.
#[derive(Debug)]
pub(crate) struct Team<'a> {
    index: usize,
    size: usize,
    state: Option<&'a TeamState>,
    /// The current stage's number (the same in every member at the same point).
    stage: Cell<u32>,
    /// Blocks of every stage so far: the stage is over once this many are done.
    target: Cell<usize>,
}

impl<'a> Team<'a> {
    /// A team of one: the caller's thread does every stage alone.
    pub fn alone() -> Team<'static> {
        Team { index: 0, size: 1, state: None, stage: Cell::new(0), target: Cell::new(0) }
    }

    /// Member `index` of `size` sharing `state`.
    pub(crate) fn member(index: usize, size: usize, state: &'a TeamState) -> Team<'a> {
        debug_assert!(index < size);
        Team { index, size, state: Some(state), stage: Cell::new(0), target: Cell::new(0) }
    }

    /// This member's index: 0 (the caller's thread) to the team's size less one.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Runs a stage whose blocks are `blocks` (block `j`'s items: its range), with claim words
    /// `claims` (one per block): this member does the blocks it claims, from its share's first
    /// (`count * index / size`) on and then from the stage's first, or, with `parts` that give
    /// it a part, its part's blocks first and the others' as below; returns once every block of
    /// the stage is done. Alone, it runs `whole` at once instead.
    pub(crate) fn stage(
        &self,
        count: usize,
        block: impl Fn(usize) -> Range<usize>,
        claims: &[AtomicU32],
        whole: Range<usize>,
        parts: Option<&PartBlocks>,
        work: &mut impl FnMut(Range<usize>),
    ) {
        let Some(state) = self.state else {
            if !whole.is_empty() {
                work(whole);
            }
            return;
        };
        self.stage_on_team(state, count, block, claims, parts, work);
    }

    /// [`Team::stage`] on a team of more than one. Out of line: the work of a team of one,
    /// inlined into its caller, then stays as short as it was before the parts (inlined, this
    /// made the one-thread solve's body stages cost 0.5 % more of a free fall's instructions).
    #[inline(never)]
    fn stage_on_team(
        &self,
        state: &TeamState,
        count: usize,
        block: impl Fn(usize) -> Range<usize>,
        claims: &[AtomicU32],
        parts: Option<&PartBlocks>,
        work: &mut impl FnMut(Range<usize>),
    ) {
        if count == 0 {
            return;
        }
        let stage = self.stage.get() + 1;
        self.stage.set(stage);
        let target = self.target.get() + count;
        self.target.set(target);
        chaos::pause();
        // A member that joined late finds the stage over: nothing to claim (claim words only
        // grow, so the next stage on the same words is unaffected). In the solve's hundreds of
        // stages this saves a late helper a claim per block, which the caller would wait for.
        if state.done.load(Ordering::Acquire) >= target {
            return;
        }
        let poison = PoisonOnUnwind(&state.poisoned);
        // Does block `j` unless another member claimed it: 1 if this member did it.
        let mut try_block = |j: usize| {
            chaos::pause();
            let free = claims[j].fetch_max(stage, Ordering::Relaxed) < stage;
            if free {
                work(block(j));
                chaos::pause();
            }
            usize::from(free)
        };
        // With a part of its own, a member does its part's blocks, then only the parts whose
        // members have not begun (late, or not scheduled yet): the blocks of a part that is
        // being worked wait for their own member, so the part's bodies stay in one core's
        // cache. Only once its wait runs past the spins before yielding (the member fell
        // behind by more than a small colour's work, or stalled) does it sweep up what is
        // left. Otherwise a member starts at its share's first block and then takes whatever
        // it finds unclaimed.
        let own_part = parts.filter(|parts| self.index < parts.parts);
        let done = match own_part {
            Some(parts) => {
                let mut done: usize = parts.part_blocks(self.index).map(&mut try_block).sum();
                for p in (0..parts.parts).filter(|&p| p != self.index) {
                    let blocks = parts.part_blocks(p);
                    if !blocks.is_empty() && claims[blocks.start].load(Ordering::Relaxed) < stage {
                        done += blocks.map(&mut try_block).sum::<usize>();
                    }
                }
                // Blocks of no part (the serial batches after the parts' blocks): anyone's.
                done + (parts.blocks()..count).map(&mut try_block).sum::<usize>()
            }
            None => {
                let start = count * self.index / self.size;
                (start..count).chain(0..start).map(&mut try_block).sum()
            }
        };
        // The release sequence of these additions carries every member's writes to whoever
        // sees the total.
        chaos::pause();
        state.done.fetch_add(done, Ordering::AcqRel);
        chaos::pause();
        let mut swept = false;
        let mut spins = 0;
        while state.done.load(Ordering::Acquire) < target {
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                sync::spin_loop();
            } else if own_part.is_some() && !swept {
                // Waited long: take every block still unclaimed, once, from the stage's end
                // back, so that this member and a part's own member, working up, meet once.
                let taken: usize = (0..count).rev().map(&mut try_block).sum();
                state.done.fetch_add(taken, Ordering::AcqRel);
                swept = true;
            } else {
                if state.poisoned.load(Ordering::Acquire) {
                    std::panic::panic_any(TeamPoisoned);
                }
                sync::yield_now();
            }
        }
        std::mem::forget(poison);
    }

    /// Runs `work` over `count` items in blocks of `block_len`, as one stage; `claims` has a
    /// word per block.
    pub fn for_blocks(
        &self,
        count: usize,
        block_len: usize,
        claims: &[AtomicU32],
        mut work: impl FnMut(Range<usize>),
    ) {
        let blocks = count.div_ceil(block_len);
        let block = |j: usize| j * block_len..((j + 1) * block_len).min(count);
        self.stage(blocks, block, claims, 0..count, None, &mut work);
    }

    /// [`Team::for_blocks`] with `beside` as one more block of the same stage, its first:
    /// work the stage's blocks do not read or write, done by one member while the others work
    /// through the blocks. The caller's thread starts at the first block and is the first
    /// member at work, so it takes `beside` while a helper starts on the blocks. `claims` has
    /// a word per block plus one. Alone, it runs `beside` and then every block.
    pub fn for_blocks_beside(
        &self,
        count: usize,
        block_len: usize,
        claims: &[AtomicU32],
        mut beside: impl FnMut(),
        mut work: impl FnMut(Range<usize>),
    ) {
        if self.state.is_none() {
            beside();
            if count > 0 {
                work(0..count);
            }
            return;
        }
        let blocks = count.div_ceil(block_len);
        // Block `j` of the stage is `j..j + 1`: 0 is `beside`, the rest the item blocks.
        self.stage(blocks + 1, |j| j..j + 1, claims, 0..0, None, &mut |j: Range<usize>| match j.start {
            0 => beside(),
            k => work((k - 1) * block_len..(k * block_len).min(count)),
        });
    }

    /// Runs `work` once, by whichever member claims it, as one stage (work that is not split).
    pub fn once(&self, claim: &AtomicU32, mut work: impl FnMut()) {
        self.stage(1, |_| 0..1, std::slice::from_ref(claim), 0..1, None, &mut |_| work());
    }
}

/// Most members of a team that own parts of a stage ([`PartBlocks`]; the solver cuts its
/// colours by at most this many, `solver/colour_schedule.rs`).
pub(crate) const MOST_PARTS: usize = 8;

/// Which of a stage's blocks are each part's: part `p`'s are `first_blocks[p]..first_blocks[p + 1]`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct PartBlocks {
    /// Part `p`'s blocks begin at `first_blocks[p]`; the last entry ends the parts' blocks.
    pub(crate) first_blocks: [usize; MOST_PARTS + 1],
    /// Number of parts.
    pub(crate) parts: usize,
}

impl PartBlocks {
    /// Blocks of the stage's parts.
    pub(crate) fn blocks(&self) -> usize {
        self.first_blocks[self.parts]
    }

    /// The blocks of part `p`.
    pub(crate) fn part_blocks(&self, p: usize) -> Range<usize> {
        self.first_blocks[p]..self.first_blocks[p + 1]
    }
}

/// Runs `work` as a team: the caller's thread is member 0 and starts at once, and every thread
/// of `helpers` joins as one more member as the system wakes it (one that comes late finds its
/// blocks done by the others). Alone when there are no helpers. A helper that has not begun
/// by the time the caller's own run through the stages is over does not join at all, and the
/// caller does not wait for it ([`run_gated`]).
///
/// The caller works rather than waits: had it waited for the pool, every member would wait to
/// be woken, and the system sometimes put two of them on one core for milliseconds; and an
/// idle pool thread spinning for work beside the members took their cores' time (a pool of
/// helpers only, one fewer than the threads, has none).
pub(crate) fn run_team(helpers: Option<&rayon::ThreadPool>, work: impl Fn(&Team) + Sync) {
    let Some(pool) = helpers else {
        work(&Team::alone());
        return;
    };
    let size = pool.current_num_threads() + 1;
    let state = TeamState::default();
    linger::shared().team_starts();
    run_gated(pool, size, &|index| work(&Team::member(index, size, &state)));
    linger::linger(pool);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_work_beside_runs_once_and_every_item_once() {
        // Alone, and on teams of 2 to 4 threads (one of which may never come): the work beside
        // runs exactly once, every item once, and the stage ends only when all are done.
        for (size, members) in [(1, 1), (2, 2), (3, 3), (4, 4), (2, 1)] {
            let mut claims = Claims::default();
            claims.reset(1000usize.div_ceil(64) + 1);
            let state = TeamState::default();
            let visits: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
            let beside = AtomicUsize::new(0);
            std::thread::scope(|scope| {
                for index in 0..members {
                    let (state, visits, beside, claims) = (&state, &visits, &beside, &claims);
                    scope.spawn(move || {
                        let team = if size == 1 { Team::alone() } else { Team::member(index, size, state) };
                        team.for_blocks_beside(
                            1000,
                            64,
                            claims.words(),
                            || {
                                beside.fetch_add(1, Ordering::SeqCst);
                            },
                            |range| range.for_each(|i| _ = visits[i].fetch_add(1, Ordering::SeqCst)),
                        );
                        assert_eq!(beside.load(Ordering::SeqCst), 1);
                        assert!(visits.iter().all(|v| v.load(Ordering::SeqCst) == 1));
                    });
                }
            });
        }
    }

    #[test]
    fn a_member_that_panics_in_a_block_stops_the_team_with_its_panic() {
        // Whichever member claims block 40 panics; the other, waiting for that block, stops
        // too, and the team raises the block's own panic (not the waiting member's).
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        for _ in 0..20 {
            let mut claims = Claims::default();
            claims.reset(64);
            let claims = &claims;
            let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                run_team(Some(&pool), |team| {
                    team.for_blocks(64, 1, claims.words(), |block| {
                        if block.start == 40 {
                            panic!("block failed");
                        }
                        std::thread::sleep(std::time::Duration::from_micros(50));
                    });
                    team.for_blocks(64, 1, claims.words(), |_| {});
                })
            }));
            let payload = outcome.expect_err("the block's panic stops the team");
            assert_eq!(payload.downcast_ref::<&str>(), Some(&"block failed"));
        }
    }

    #[test]
    fn a_member_that_comes_late_finds_the_stages_over() {
        // Member 1 runs after member 0 has done every stage: it claims and does nothing.
        let mut claims = Claims::default();
        claims.reset(8);
        let state = TeamState::default();
        let (early, late) = (Team::member(0, 2, &state), Team::member(1, 2, &state));
        let mut done = [0usize; 2];
        for (i, member) in [early, late].iter().enumerate() {
            for _ in 0..3 {
                member.for_blocks(64, 8, claims.words(), |block| done[i] += block.len());
            }
        }
        assert_eq!(done, [192, 0]);
    }
}
