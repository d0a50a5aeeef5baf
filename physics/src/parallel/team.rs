//! The threads of one solve: each runs the same sequence of stages (integrate, warm start,
//! solve, relax, ... for every substep) and helps with each stage's work, cut into blocks. A
//! stage's blocks share no moving body (a colour's batches, or a range of bodies), so whichever
//! member solves a block, and in whatever order, the numbers are the ones one thread computes:
//! the result is the same bit for bit on any number of threads.
//!
//! A solve has hundreds of stages (colours × passes × substeps), a few microseconds each on a
//! small colour. Forking and joining a thread pool per stage costs about that much, so the
//! team is started once per solve. Within it, members claim blocks with one atomic operation
//! each (each starts at its own part of a stage, so the same member tends to get the same
//! bodies in every substep, in its cache) and wait for a stage's blocks to be *done*, not for
//! every member to arrive: a member the system has not scheduled (there are other programs,
//! and sometimes more threads than cores) holds nobody up, the others do its blocks.

use super::door::run_gated;
use std::cell::Cell;
use std::ops::Range;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Batches in a block of the joint fill and store, and the most items (joint batches, or pairs
/// of contact batches) in a block of a colour ([`colour_block_len`]): about a few microseconds
/// of work, so the claims and the cache lines passed between cores cost little beside it.
pub(crate) const BLOCK_BATCHES: usize = 32;

/// Blocks a colour is cut into when its items allow (a colour's items are batches of joints, or
/// pairs of batches of contacts): enough for each of a few members to take several, so one
/// that finishes early finds more (a colour in one or two blocks is done by one or two members
/// while the rest wait), and small enough that the last block, which one member finishes
/// while the others wait, is short. Sixteen since the contact batches are stored in pairs
/// (each item twice the work it was): the rain's two members waited about a third less at the
/// colours' ends than with eight. The joint scenes' colours are large (the joint grid's are
/// hundreds of batches, cut at [`BLOCK_BATCHES`] either way).
const BLOCKS_PER_COLOUR: usize = 16;

/// Fewest items in a block of a colour: below this a block's claim costs about its work.
const MIN_COLOUR_BLOCK_BATCHES: usize = 4;

/// Items in each block of a colour of `items` items: [`BLOCK_BATCHES`] for a big colour, less
/// for a smaller one, so that from 64 items on it makes at least [`BLOCKS_PER_COLOUR`] blocks
/// (a colour under 64 items makes fewer, of [`MIN_COLOUR_BLOCK_BATCHES`]).
fn colour_block_len(items: usize) -> usize {
    (items / BLOCKS_PER_COLOUR).clamp(MIN_COLOUR_BLOCK_BATCHES, BLOCK_BATCHES)
}

/// Bodies in a block of a body stage (integrating velocities or positions).
pub(crate) const BLOCK_BODIES: usize = 512;

/// Spins (checks) while waiting for a stage (or, for the caller, for the helpers inside the
/// team's door to leave) before a thread yields its core, to a thread the system has not
/// scheduled yet when there are more threads than cores.
pub(super) const SPINS_BEFORE_YIELD: u32 = 64;

/// How long a helper keeps its core after a team's work, for the next team of the step. A
/// helper that went to sleep took about 25 µs to join the next team (woken by the system, on
/// the 2-core machine), so each of a step's seven or so teams began on the caller's thread
/// alone, and a short one (gathering the solver's arrays, 40 µs) ended before the helper came.
/// The serial work between two teams of a step is mostly shorter than this.
const LINGER: Duration = Duration::from_micros(200);

/// Teams started in this process: a lingering helper stops waiting once this changes.
static TEAMS_STARTED: AtomicU64 = AtomicU64::new(0);

/// When the helpers of the last team in this process began to linger, in nanoseconds since
/// [`EPOCH`] plus one (0: never).
static LINGER_BEGAN: AtomicU64 = AtomicU64::new(0);

/// The start of this process's clock for [`LINGER_BEGAN`].
static EPOCH: OnceLock<Instant> = OnceLock::new();

/// Nanoseconds since [`EPOCH`], plus one.
fn clock() -> u64 {
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64 + 1
}

/// Whether the helpers of the last team are most likely still lingering, so a team started now
/// has them at once. Otherwise a team first wakes them, which only pays for a large stage:
/// 30–100 µs on the 2-core Intel Xeon.
pub(crate) fn helpers_lingering() -> bool {
    let began = LINGER_BEGAN.load(Ordering::Relaxed);
    began != 0 && lingering(began, clock())
}

/// Whether helpers that began to linger at `began` still do at `now` (both by [`clock`]).
fn lingering(began: u64, now: u64) -> bool {
    began != 0 && now.saturating_sub(began) < LINGER.as_nanos() as u64
}

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
        self.0.iter_mut().for_each(|c| *c.get_mut() = 0);
    }

    /// The claim words, for the team.
    pub fn words(&self) -> &[AtomicU32] {
        &self.0
    }
}

/// What the members of one team share: the count of blocks done, and whether a member
/// panicked in a block (its blocks will never be counted, so the others stop waiting).
#[derive(Debug, Default)]
struct TeamState {
    done: AtomicUsize,
    poisoned: AtomicBool,
}

/// The panic a member raises when another member panicked in a block of the stage it waits for:
/// [`run_team`] raises the first member's own panic rather than this one.
#[derive(Debug)]
pub(crate) struct TeamPoisoned;

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
    fn member(index: usize, size: usize, state: &'a TeamState) -> Team<'a> {
        debug_assert!(index < size);
        Team { index, size, state: Some(state), stage: Cell::new(0), target: Cell::new(0) }
    }

    /// This member's index: 0 (the caller's thread) to the team's size less one.
    pub fn index(&self) -> usize {
        self.index
    }

    /// Blocks for a colour of `batches` batches.
    pub fn blocks_of(batches: usize) -> usize {
        batches.div_ceil(colour_block_len(batches))
    }

    /// Runs a stage whose blocks are `blocks` (block `j`'s items: its range), with claim words
    /// `claims` (one per block): this member does the blocks it claims, from block `first`
    /// on (by default its share's first: `count * index / size`) and then from the stage's
    /// first; returns once every block of the stage is done. Alone, it runs `whole` at once
    /// instead.
    fn stage(
        &self,
        count: usize,
        block: impl Fn(usize) -> Range<usize>,
        claims: &[AtomicU32],
        whole: Range<usize>,
        first: Option<usize>,
        work: &mut impl FnMut(Range<usize>),
    ) {
        let Some(state) = self.state else {
            if !whole.is_empty() {
                work(whole);
            }
            return;
        };
        if count == 0 {
            return;
        }
        let stage = self.stage.get() + 1;
        self.stage.set(stage);
        let target = self.target.get() + count;
        self.target.set(target);
        // A member that joined late finds the stage over: nothing to claim (claim words only
        // grow, so the next stage on the same words is unaffected). In the solve's hundreds of
        // stages this saves a late helper a claim per block, which the caller would wait for.
        if state.done.load(Ordering::Acquire) >= target {
            return;
        }
        let start = first.map_or(count * self.index / self.size, |first| first.min(count - 1));
        let mut done = 0;
        let poison = PoisonOnUnwind(&state.poisoned);
        for j in (start..count).chain(0..start) {
            if claims[j].fetch_max(stage, Ordering::Relaxed) < stage {
                work(block(j));
                done += 1;
            }
        }
        std::mem::forget(poison);
        // The release sequence of these additions carries every member's writes to whoever
        // sees the total.
        state.done.fetch_add(done, Ordering::AcqRel);
        let mut spins = 0;
        while state.done.load(Ordering::Acquire) < target {
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
            } else {
                if state.poisoned.load(Ordering::Acquire) {
                    std::panic::panic_any(TeamPoisoned);
                }
                std::thread::yield_now();
            }
        }
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

    /// Runs `work` on the blocks of each colour of `colours` (batch ranges, in solve order),
    /// one stage per colour, then on `serial` (batches that may share bodies: one block).
    /// `claims` has a word per block: [`Team::blocks_of`] each colour's length, then one.
    /// With parts, each member with a part starts a colour at its part's block.
    pub fn for_each_colour(
        &self,
        colours: &[Range<usize>],
        parts: ColourParts,
        serial: Range<usize>,
        claims: &[AtomicU32],
        mut work: impl FnMut(Range<usize>),
    ) {
        let mut first_claim = 0;
        // Members past the parts (more threads than `MAX_PARTS`) start at their share.
        let own_part = parts.count > 1 && self.index < parts.count;
        for (c, colour) in colours.iter().enumerate() {
            let count = Team::blocks_of(colour.len());
            let len = colour_block_len(colour.len());
            let block = |j: usize| colour.start + j * len..(colour.start + (j + 1) * len).min(colour.end);
            // The block that holds this member's part's first item.
            let first = own_part.then(|| (parts.firsts[c * parts.count + self.index] - colour.start) / len);
            self.stage(
                count,
                block,
                &claims[first_claim..first_claim + count],
                colour.clone(),
                first,
                &mut work,
            );
            first_claim += count;
        }
        if !serial.is_empty() {
            let whole = serial.clone();
            self.stage(1, |_| serial.clone(), &claims[first_claim..first_claim + 1], whole, None, &mut work);
        }
    }

    /// Runs `work` once, by whichever member claims it, as one stage (work that is not split).
    pub fn once(&self, claim: &AtomicU32, mut work: impl FnMut()) {
        self.stage(1, |_| 0..1, std::slice::from_ref(claim), 0..1, None, &mut |_| work());
    }
}

/// Where each colour's parts begin, for [`Team::for_each_colour`]: per colour, the first item
/// of each of `count` parts (the colours' items, absolute), in part order.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ColourParts<'a> {
    count: usize,
    firsts: &'a [usize],
}

impl ColourParts<'static> {
    /// No parts: each member starts each colour at its share of the blocks.
    pub const NONE: ColourParts<'static> = ColourParts { count: 1, firsts: &[] };
}

impl<'a> ColourParts<'a> {
    /// `count` parts per colour, beginning at `firsts` (`count` per colour, in colour order).
    pub fn new(count: usize, firsts: &'a [usize]) -> ColourParts<'a> {
        debug_assert!(
            count > 0 && firsts.len().is_multiple_of(count),
            "{} firsts of {count} parts",
            firsts.len()
        );
        ColourParts { count, firsts }
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
    TEAMS_STARTED.fetch_add(1, Ordering::Relaxed);
    run_gated(pool, size, &|index| work(&Team::member(index, size, &state)));
    linger(pool);
}

/// Keeps each helper of `pool` busy waiting for up to [`LINGER`], until the next team starts
/// (its jobs queue behind these, so a helper that stops waiting takes one at once). Only
/// when every thread has a core of its own: with more threads than cores, a waiting helper
/// would take the core of the thread doing the step's serial work.
fn linger(pool: &rayon::ThreadPool) {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let helpers = pool.current_num_threads();
    if helpers + 1 > cores {
        return;
    }
    let started = TEAMS_STARTED.load(Ordering::Relaxed);
    LINGER_BEGAN.store(clock(), Ordering::Relaxed);
    for _ in 0..helpers {
        pool.spawn(move || {
            let since = Instant::now();
            while TEAMS_STARTED.load(Ordering::Relaxed) == started && since.elapsed() < LINGER {
                for _ in 0..SPINS_BEFORE_YIELD {
                    std::hint::spin_loop();
                }
            }
        });
    }
}

/// Claim words for colours of these lengths and a serial block, and at least `other_blocks`
/// (the most blocks of any other stage over the same claims: a fill or a store).
pub(crate) fn colour_claims(colours: &[Range<usize>], other_blocks: usize) -> usize {
    let by_colour = colours.iter().map(|c| Team::blocks_of(c.len())).sum::<usize>() + 1;
    by_colour.max(other_blocks)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn helpers_linger_for_a_while_after_a_team() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        let ran = AtomicUsize::new(0);
        run_team(Some(&pool), |_| {
            ran.fetch_add(1, Ordering::Relaxed);
        });
        assert!(ran.load(Ordering::Relaxed) >= 1);
        // Helpers linger only with a core each (a machine of one core has no helper spare).
        // Whether they still do depends on how long this thread was off its core since.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(LINGER_BEGAN.load(Ordering::Relaxed) != 0, cores >= 2);
        let linger = LINGER.as_nanos() as u64;
        assert!(lingering(1000, 1000 + linger - 1));
        assert!(!lingering(1000, 1000 + linger));
        assert!(!lingering(0, 5), "no team yet");
    }

    #[test]
    fn every_batch_is_worked_once_and_colours_in_order() {
        // Colours big and small, then serial batches, on teams of 1 to 4 threads, without
        // parts and with a part per member (some empty, some at a colour's end): every batch
        // is visited once, and no batch of a colour is visited before all batches of the
        // colours before it.
        let colours = [0..400, 400..403, 403..405, 405..1000, 1000..1001, 1001..1114, 1114..1147];
        let mut claims = Claims::default();
        for (size, with_parts) in (1..=4).flat_map(|size| [(size, false), (size, true)]) {
            let firsts: Vec<usize> = colours
                .iter()
                .flat_map(|c| {
                    (0..size).map(|p| if p == 1 { c.end } else { c.start + c.len() * p * p / (size * size) })
                })
                .collect();
            let parts = if with_parts { ColourParts::new(size, &firsts) } else { ColourParts::NONE };
            claims.reset(colour_claims(&colours, 1156usize.div_ceil(BLOCK_BATCHES)));
            let state = TeamState::default();
            let visits: Vec<AtomicUsize> = (0..1156).map(|_| AtomicUsize::new(0)).collect();
            let done = AtomicUsize::new(0);
            let colour_of =
                |batch: usize| colours.iter().position(|c| c.contains(&batch)).unwrap_or(colours.len());
            std::thread::scope(|scope| {
                for index in 0..size {
                    let (state, visits, done, colours, claims) = (&state, &visits, &done, &colours, &claims);
                    let parts = &parts;
                    scope.spawn(move || {
                        let team = Team::member(index, size, state);
                        team.for_each_colour(colours, *parts, 1147..1156, claims.words(), |range| {
                            for batch in range {
                                // Every batch of the earlier colours is done already.
                                let before: usize =
                                    colours.iter().take(colour_of(batch)).map(|c| c.len()).sum();
                                assert!(done.load(Ordering::SeqCst) >= before, "batch {batch} too early");
                                visits[batch].fetch_add(1, Ordering::SeqCst);
                                done.fetch_add(1, Ordering::SeqCst);
                            }
                        });
                    });
                }
            });
            assert!(
                visits.iter().all(|v| v.load(Ordering::SeqCst) == 1),
                "{size} threads, parts {with_parts}"
            );
        }
    }

    #[test]
    fn a_small_colour_is_cut_into_smaller_blocks() {
        // A big colour in blocks of the full size; a middling one in at least sixteen blocks;
        // a tiny one in blocks of the least size.
        assert_eq!((colour_block_len(10_000), Team::blocks_of(10_000)), (BLOCK_BATCHES, 313));
        assert_eq!((colour_block_len(113), Team::blocks_of(113)), (7, 17));
        assert_eq!((colour_block_len(10), Team::blocks_of(10)), (MIN_COLOUR_BLOCK_BATCHES, 3));
        assert_eq!(Team::blocks_of(0), 0);
        for batches in 64..2000 {
            assert!(Team::blocks_of(batches) >= BLOCKS_PER_COLOUR, "{batches} batches");
        }
    }

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
    fn a_member_that_never_comes_holds_nobody_up() {
        // Two members, one of which never runs: the other does every block.
        let colours = [0..100, 100..300];
        let mut claims = Claims::default();
        claims.reset(colour_claims(&colours, 1010usize.div_ceil(BLOCK_BATCHES)));
        let state = TeamState::default();
        let team = Team::member(0, 2, &state);
        let mut visited = 0;
        team.for_each_colour(&colours, ColourParts::NONE, 300..300, claims.words(), |range| {
            visited += range.len()
        });
        assert_eq!(visited, 300);
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
