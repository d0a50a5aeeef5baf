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

mod pipeline;

pub(crate) use pipeline::{Pipeline, Unit};

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
/// pairs of batches of contacts) and the team has no parts: enough for each of a few members
/// to take several, so one that finishes early finds more (a colour in one or two blocks is
/// done by one or two members while the rest wait), and small enough that the last block,
/// which one member finishes while the others wait, is short. Sixteen since the contact
/// batches are stored in pairs (each item twice the work it was): the rain's two members
/// waited about a third less at the colours' ends than with eight. The joint scenes' colours
/// are large (the joint grid's are hundreds of batches, cut at [`BLOCK_BATCHES`] either way).
const BLOCKS_PER_COLOUR: usize = 16;

/// Fewest items in a block of a colour without parts: below this a block's claim costs about
/// its work.
const MIN_COLOUR_BLOCK_BATCHES: usize = 4;

/// Blocks a colour of 32 to 64 items is cut into before the cut at the parts' boundaries,
/// when the team has parts (a smaller colour makes one or two blocks of
/// [`MIN_PART_BLOCK_LEN`], a larger one blocks of [`BLOCK_BATCHES`]). A member then does its
/// own part's blocks and leaves the others' to their members, so the blocks need only be small
/// enough for a member that stalls to be relieved of some; each block costs a claim on a cache
/// line the other members claim from too, and a call, about a tenth of a microsecond on the
/// 2-core Intel Xeon, beside 0.4 µs of work in a block of four pairs. With two (a colour of 40
/// pairs split evenly by two parts is a block a part, where it was ten blocks), the two-thread
/// solve took 4–10 % less time than with sixteen on the rain and 5–10 % less on the tumbler
/// in most series of paired runs (one of the tumbler's read 2 % more), the 3D pyramid's and
/// the pyramid field's 0–9 % less.
const PART_BLOCKS_PER_COLOUR: usize = 2;

/// Fewest items in a block of a colour with parts, except a part's last block (and a colour
/// of fewer items, which is one block).
const MIN_PART_BLOCK_LEN: usize = 16;

/// Most items in a colour of a pass's tail: the last colours of at most this many run with the
/// serial batches as one stage ([`Team::for_each_colour`]).
const TAIL_COLOUR_ITEMS: usize = 4;

/// Items in each block of a colour of `items` items, on a team with `parts` parts:
/// [`BLOCK_BATCHES`] for a big colour, less for a smaller one. Without parts, from 64 items on
/// it makes at least [`BLOCKS_PER_COLOUR`] blocks (a colour under 64 items makes fewer, of
/// [`MIN_COLOUR_BLOCK_BATCHES`]); with parts, half a colour of 32 to 64 items, and
/// [`MIN_PART_BLOCK_LEN`] for a smaller one.
fn colour_block_len(items: usize, parts: usize) -> usize {
    if parts > 1 {
        (items / PART_BLOCKS_PER_COLOUR).clamp(MIN_PART_BLOCK_LEN, BLOCK_BATCHES)
    } else {
        (items / BLOCKS_PER_COLOUR).clamp(MIN_COLOUR_BLOCK_BATCHES, BLOCK_BATCHES)
    }
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

    /// Blocks for a colour of `batches` batches on a team without parts: never fewer than
    /// with parts before the parts' cut (whose blocks are as long or longer), so the claim
    /// words are counted by it ([`colour_claims`]).
    pub fn blocks_of(batches: usize) -> usize {
        batches.div_ceil(colour_block_len(batches, 1))
    }

    /// Runs a stage whose blocks are `blocks` (block `j`'s items: its range), with claim words
    /// `claims` (one per block): this member does the blocks it claims, from its share's first
    /// (`count * index / size`) on and then from the stage's first, or, with `parts` that give
    /// it a part, its part's blocks first and the others' as below; returns once every block of
    /// the stage is done. Alone, it runs `whole` at once instead.
    fn stage(
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
        // A member that joined late finds the stage over: nothing to claim (claim words only
        // grow, so the next stage on the same words is unaffected). In the solve's hundreds of
        // stages this saves a late helper a claim per block, which the caller would wait for.
        if state.done.load(Ordering::Acquire) >= target {
            return;
        }
        let poison = PoisonOnUnwind(&state.poisoned);
        // Does block `j` unless another member claimed it: 1 if this member did it.
        let mut try_block = |j: usize| {
            let free = claims[j].fetch_max(stage, Ordering::Relaxed) < stage;
            if free {
                work(block(j));
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
        state.done.fetch_add(done, Ordering::AcqRel);
        let mut swept = false;
        let mut spins = 0;
        while state.done.load(Ordering::Acquire) < target {
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                std::hint::spin_loop();
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
                std::thread::yield_now();
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

    /// Runs `work` on the blocks of each colour of `colours` (batch ranges, in solve order),
    /// one stage per colour, then on `serial` (batches that may share bodies: one block).
    /// `claims` has a word per block ([`colour_claims`]). With parts, each colour's blocks are
    /// cut at the parts' boundaries and each member with a part does its own part's blocks,
    /// leaving the others' to their members unless those have not begun or stall. The last
    /// colours of at most [`TAIL_COLOUR_ITEMS`] items run with `serial` as one stage.
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
        // The last colours, each of a few items at most, and the serial
        // batches: one stage of one block, which one member runs colour by colour while the
        // others wait once, where each colour had a stage and a wait of its own (the rain's
        // last two or three colours hold one to four pairs each).
        let tail = colours.iter().rposition(|c| c.len() > TAIL_COLOUR_ITEMS).map_or(0, |c| c + 1);
        for (c, colour) in colours[..tail].iter().enumerate() {
            let len = colour_block_len(colour.len(), parts.count);
            let cut = parts.cut(c, colour, len);
            let count = cut.blocks();
            self.stage(
                count,
                |j| cut.block(j),
                &claims[first_claim..first_claim + count],
                colour.clone(),
                own_part.then_some(&cut.parts),
                &mut work,
            );
            first_claim += count;
        }
        let last = colours[tail..].iter().chain([&serial]).filter(|range| !range.is_empty());
        if last.clone().next().is_some() {
            // The stage's one block stands for all of them; its range is not read.
            self.stage(1, |_| 0..1, &claims[first_claim..first_claim + 1], 0..1, None, &mut |_| {
                last.clone().for_each(|range| work(range.clone()))
            });
        }
    }

    /// Runs `work` on the items of every colour of `colours` and on `serial` as one stage,
    /// not colour by colour: for work on each item alone (filling the colours' batches,
    /// storing their impulses). The blocks are those of [`Team::for_each_colour`], taken part
    /// by part, so that each member with a part fills and stores the batches it solves.
    /// `claims` has a word per block ([`colour_claims`]).
    pub fn for_each_part(
        &self,
        colours: &[Range<usize>],
        parts: ColourParts,
        serial: Range<usize>,
        claims: &[AtomicU32],
        mut work: impl FnMut(Range<usize>),
    ) {
        let cut = |c: usize| parts.cut(c, &colours[c], colour_block_len(colours[c].len(), parts.count));
        // The stage's blocks part by part, each part's colour by colour, then the serial
        // batches as one block of no part.
        let mut by_part = PartBlocks { first_blocks: [0; MOST_PARTS + 1], parts: parts.count.max(1) };
        for p in 0..by_part.parts {
            let blocks: usize = (0..colours.len()).map(|c| cut(c).parts.part_blocks(p).len()).sum();
            by_part.first_blocks[p + 1] = by_part.first_blocks[p] + blocks;
        }
        let coloured = by_part.blocks();
        let count = coloured + usize::from(!serial.is_empty());
        let block = |j: usize| {
            if j == coloured {
                return serial.clone();
            }
            let p = (0..by_part.parts).rfind(|&p| by_part.first_blocks[p] <= j).unwrap_or(0);
            let mut k = j - by_part.first_blocks[p];
            for c in 0..colours.len() {
                let cut = cut(c);
                let blocks = cut.parts.part_blocks(p).len();
                if k < blocks {
                    return cut.part_block(p, k);
                }
                k -= blocks;
            }
            unreachable!("block {j} of {count}")
        };
        let start = colours.first().map_or(serial.start, |c| c.start);
        let end = if serial.is_empty() { colours.last().map_or(start, |c| c.end) } else { serial.end };
        let own_part = parts.count > 1 && self.index < parts.count;
        self.stage(count, block, &claims[..count], start..end, own_part.then_some(&by_part), &mut work);
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
            count > 0 && count <= MOST_PARTS && firsts.len().is_multiple_of(count),
            "{} firsts of {count} parts",
            firsts.len()
        );
        ColourParts { count, firsts }
    }

    /// Number of parts.
    pub fn count(&self) -> usize {
        self.count
    }

    /// The items of part `p` of colour `c` (items `colour`): from its first to the next part's
    /// (the colour's end for the last).
    pub fn part_items(&self, c: usize, colour: &Range<usize>, p: usize) -> Range<usize> {
        if self.count <= 1 {
            return colour.clone();
        }
        let firsts = &self.firsts[c * self.count..(c + 1) * self.count];
        let start = firsts[p].clamp(colour.start, colour.end);
        let end = firsts.get(p + 1).map_or(colour.end, |&next| next.clamp(start, colour.end));
        start..end
    }

    /// Colour `c` (items `colour`) cut into blocks of at most `len` items, each within one
    /// part. A block that held the end of one part and the start of the next went to the
    /// member of the second, which started there: its items of the first part, about half a
    /// block in every colour of every pass, moved their bodies' velocities to the other core
    /// and back.
    fn cut(&self, c: usize, colour: &Range<usize>, len: usize) -> ColourCut {
        let mut cut = ColourCut {
            starts: [colour.end; MOST_PARTS + 1],
            parts: PartBlocks { first_blocks: [0; MOST_PARTS + 1], parts: self.count.max(1) },
            len,
        };
        // The first part takes the colour's start, and each part starts within the colour,
        // no earlier than the one before.
        cut.starts[0] = colour.start;
        if self.count > 1 {
            let firsts = &self.firsts[c * self.count..(c + 1) * self.count];
            for (p, &first) in firsts.iter().enumerate().skip(1) {
                cut.starts[p] = first.clamp(cut.starts[p - 1], colour.end);
            }
        }
        let first_blocks = &mut cut.parts.first_blocks;
        for p in 0..cut.parts.parts {
            let items = cut.starts[p + 1] - cut.starts[p];
            first_blocks[p + 1] = first_blocks[p] + items.div_ceil(len);
        }
        cut
    }
}

/// Most parts a colour is cut by ([`ColourParts`]).
pub(crate) const MOST_PARTS: usize = 8;

/// Which of a stage's blocks are each part's: part `p`'s are `first_blocks[p]..first_blocks[p + 1]`.
#[derive(Clone, Copy, Debug)]
struct PartBlocks {
    first_blocks: [usize; MOST_PARTS + 1],
    parts: usize,
}

impl PartBlocks {
    /// Blocks of the stage's parts.
    fn blocks(&self) -> usize {
        self.first_blocks[self.parts]
    }

    /// The blocks of part `p`.
    fn part_blocks(&self, p: usize) -> Range<usize> {
        self.first_blocks[p]..self.first_blocks[p + 1]
    }
}

/// A colour's blocks, each within one part: part `p`'s items `starts[p]..starts[p + 1]` are
/// its blocks ([`PartBlocks`]), `len` items each but the part's last.
#[derive(Clone, Copy, Debug)]
struct ColourCut {
    starts: [usize; MOST_PARTS + 1],
    parts: PartBlocks,
    len: usize,
}

impl ColourCut {
    /// Blocks of the colour.
    fn blocks(&self) -> usize {
        self.parts.blocks()
    }

    /// The items of block `j`.
    fn block(&self, j: usize) -> Range<usize> {
        let first_blocks = &self.parts.first_blocks;
        let p = (0..self.parts.parts).rfind(|&p| first_blocks[p] <= j).unwrap_or(0);
        self.part_block(p, j - first_blocks[p])
    }

    /// The items of part `p`'s block `k`.
    fn part_block(&self, p: usize, k: usize) -> Range<usize> {
        let start = self.starts[p] + k * self.len;
        start..(start + self.len).min(self.starts[p + 1])
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

/// Claim words for colours of these lengths cut by `parts` parts and a serial block, and at
/// least `other_blocks` (the most blocks of any other stage over the same claims: a fill or a
/// store). Each part boundary inside a colour may add a block; a colour's blocks with parts are
/// at least as long as without ([`colour_block_len`]), so [`Team::blocks_of`] bounds them
/// before the parts' cut.
pub(crate) fn colour_claims(colours: &[Range<usize>], parts: usize, other_blocks: usize) -> usize {
    let by_colour =
        colours.iter().map(|c| Team::blocks_of(c.len()) + parts.saturating_sub(1)).sum::<usize>() + 1;
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
        // The last two colours are small enough to run with the serial batches as one stage.
        let colours = [
            0..400,
            400..403,
            403..405,
            405..1000,
            1000..1001,
            1001..1114,
            1114..1147,
            1147..1150,
            1150..1151,
        ];
        let mut claims = Claims::default();
        for (size, with_parts) in (1..=4).flat_map(|size| [(size, false), (size, true)]) {
            let firsts: Vec<usize> = colours
                .iter()
                .flat_map(|c| {
                    (0..size).map(|p| if p == 1 { c.end } else { c.start + c.len() * p * p / (size * size) })
                })
                .collect();
            let parts = if with_parts { ColourParts::new(size, &firsts) } else { ColourParts::NONE };
            claims.reset(colour_claims(&colours, size, 1156usize.div_ceil(BLOCK_BATCHES)));
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
                        team.for_each_colour(colours, *parts, 1151..1156, claims.words(), |range| {
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
    fn part_by_part_every_item_is_worked_once() {
        // The colours of the test above as one stage, part by part, on teams of 1 to 4
        // threads, with and without parts, and a member that never comes: every item once.
        let colours = [0..400, 400..403, 403..405, 405..1000, 1000..1001, 1001..1114, 1114..1147];
        let mut claims = Claims::default();
        for (size, with_parts) in (1..=4).flat_map(|size| [(size, false), (size, true)]) {
            let firsts: Vec<usize> =
                colours.iter().flat_map(|c| (0..size).map(|p| c.start + c.len() * p / size)).collect();
            let parts = if with_parts { ColourParts::new(size, &firsts) } else { ColourParts::NONE };
            claims.reset(colour_claims(&colours, size, 0));
            let state = TeamState::default();
            let visits: Vec<AtomicUsize> = (0..1156).map(|_| AtomicUsize::new(0)).collect();
            std::thread::scope(|scope| {
                // The last member of a team of two or more never comes.
                for index in 0..size.max(2) - 1 {
                    let (state, visits, colours, claims, parts) =
                        (&state, &visits, &colours, &claims, &parts);
                    scope.spawn(move || {
                        let team = Team::member(index, size.max(2), state);
                        team.for_each_part(colours, *parts, 1147..1156, claims.words(), |range| {
                            range.for_each(|i| _ = visits[i].fetch_add(1, Ordering::SeqCst))
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
        // Without parts: a big colour in blocks of the full size; a middling one in at least
        // sixteen blocks; a tiny one in blocks of the least size.
        let len = |items| colour_block_len(items, 1);
        assert_eq!((len(10_000), Team::blocks_of(10_000)), (BLOCK_BATCHES, 313));
        assert_eq!((len(113), Team::blocks_of(113)), (7, 17));
        assert_eq!((len(10), Team::blocks_of(10)), (MIN_COLOUR_BLOCK_BATCHES, 3));
        assert_eq!(Team::blocks_of(0), 0);
        for batches in 64..2000 {
            assert!(Team::blocks_of(batches) >= BLOCKS_PER_COLOUR, "{batches} batches");
        }
        // With parts, before the parts' cut: the full size, halves, or the least size.
        let parted = |items: usize| colour_block_len(items, 2);
        assert_eq!((parted(10_000), parted(50), parted(40), parted(10)), (BLOCK_BATCHES, 25, 20, 16));
        // Cut at any parts' boundary, never more blocks than the claim words are counted for:
        // the blocks without parts, and one more for the boundary.
        for items in 1..700usize {
            for boundary in 0..=items {
                let firsts = [100, 100 + boundary];
                let cut = ColourParts::new(2, &firsts).cut(0, &(100..100 + items), parted(items));
                let most = Team::blocks_of(items) + 1;
                assert!(cut.blocks() <= most, "{items} items cut at {boundary}: {} blocks", cut.blocks());
            }
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
        claims.reset(colour_claims(&colours, 1, 1010usize.div_ceil(BLOCK_BATCHES)));
        let state = TeamState::default();
        let team = Team::member(0, 2, &state);
        let mut visited = 0;
        team.for_each_colour(&colours, ColourParts::NONE, 300..300, claims.words(), |range| {
            visited += range.len()
        });
        assert_eq!(visited, 300);
    }

    #[test]
    fn a_colour_is_cut_into_blocks_at_its_parts_boundaries() {
        // Colour 100..200, parts from 100 and 137 (the second part's first item mid-block):
        // blocks of at most 8 items, none holding items of both parts, in order, covering it.
        let firsts = [100, 137];
        let cut = ColourParts::new(2, &firsts).cut(0, &(100..200), 8);
        let blocks: Vec<Range<usize>> = (0..cut.blocks()).map(|j| cut.block(j)).collect();
        assert_eq!(cut.blocks(), 37usize.div_ceil(8) + 63usize.div_ceil(8));
        assert_eq!((cut.parts.part_blocks(0), cut.parts.part_blocks(1)), (0..5, 5..13));
        assert_eq!(blocks[4], 132..137);
        assert_eq!(blocks[5], 137..145);
        assert!(blocks.windows(2).all(|w| w[0].end == w[1].start) && blocks[0].start == 100);
        assert!(blocks.iter().all(|b| b.len() <= 8 && !(b.start < 137 && b.end > 137)));
        assert_eq!(blocks.last().map(|b| b.end), Some(200));
        // A part that begins past the colour's end is empty; without parts, one run of blocks.
        let cut = ColourParts::new(2, &[100, 250]).cut(0, &(100..200), 8);
        assert_eq!((cut.parts.part_blocks(0), cut.parts.part_blocks(1)), (0..13, 13..13));
        let cut = ColourParts::NONE.cut(0, &(100..200), 8);
        assert_eq!((cut.blocks(), cut.block(12)), (13, 196..200));
    }

    #[test]
    fn a_part_whose_member_never_comes_is_done_by_the_others() {
        // Two members with a part each; the second never runs: the first does its own part,
        // finds the other's not begun, and does that too.
        let colours = [0..100, 100..300];
        let firsts = [0, 40, 100, 230];
        let mut claims = Claims::default();
        claims.reset(colour_claims(&colours, 2, 0));
        let state = TeamState::default();
        let team = Team::member(0, 2, &state);
        let mut visited = vec![0; 300];
        team.for_each_colour(&colours, ColourParts::new(2, &firsts), 300..300, claims.words(), |range| {
            range.for_each(|i| visited[i] += 1)
        });
        assert!(visited.iter().all(|&v| v == 1));
    }

    #[test]
    fn a_stalled_member_s_part_is_swept_from_its_end() {
        // The second member stalls in its part's first block (as a descheduled thread would):
        // the first, done with its own part and waiting, takes the rest of the stalled part
        // from its end, and every item is done once.
        let colour = 0..256;
        let colours = std::slice::from_ref(&colour);
        let firsts = [0, 128];
        let mut claims = Claims::default();
        claims.reset(colour_claims(colours, 2, 0));
        let state = TeamState::default();
        let worker: Vec<AtomicUsize> = (0..256).map(|_| AtomicUsize::new(usize::MAX)).collect();
        let member_one_began = AtomicBool::new(false);
        std::thread::scope(|scope| {
            for index in 0..2 {
                let (state, worker, claims, member_one_began) = (&state, &worker, &claims, &member_one_began);
                let firsts = &firsts;
                scope.spawn(move || {
                    if index == 0 {
                        // The first member starts once the second holds its first block.
                        while !member_one_began.load(Ordering::SeqCst) {
                            std::hint::spin_loop();
                        }
                    }
                    let team = Team::member(index, 2, state);
                    let parts = ColourParts::new(2, firsts);
                    team.for_each_colour(colours, parts, 256..256, claims.words(), |range| {
                        if index == 1 && range.start == 128 {
                            member_one_began.store(true, Ordering::SeqCst);
                            std::thread::sleep(Duration::from_millis(200));
                        }
                        for i in range {
                            assert_eq!(worker[i].swap(index, Ordering::SeqCst), usize::MAX, "item {i} twice");
                        }
                    });
                });
            }
        });
        let by = |i: usize| worker[i].load(Ordering::SeqCst);
        assert!((0..128).all(|i| by(i) == 0), "the first part is its own member's");
        assert_eq!((by(128), by(255)), (1, 0), "the stalled part's first block its own, its last swept");
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
