//! The colours' schedule on a team: how a colour of constraint batches (joint batches, or pairs
//! of contact batches) is cut into blocks the members claim, each within one body part
//! ([`ColourParts`]), so a member mostly works on the bodies of its own part; and the claim
//! words those blocks need. The team itself (`parallel/team.rs`) knows only stages of blocks
//! and which blocks each member owns ([`PartBlocks`]); what a colour is, and how big its
//! blocks should be, is the solver's.

use crate::parallel::sync::AtomicU32;
use crate::parallel::team::{MOST_PARTS, PartBlocks, Team};
use crate::team_policy::{
    BLOCK_BATCHES, BLOCKS_PER_COLOUR, MIN_COLOUR_BLOCK_BATCHES, MIN_PART_BLOCK_LEN, PART_BLOCKS_PER_COLOUR,
};
use std::ops::Range;

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

/// Blocks for a colour of `batches` batches on a team without parts: never fewer than with
/// parts before the parts' cut (whose blocks are as long or longer), so the claim words are
/// counted by it ([`colour_claims`]).
pub(crate) fn colour_blocks(batches: usize) -> usize {
    batches.div_ceil(colour_block_len(batches, 1))
}

/// The colour stages a [`Team`] runs for the solver.
impl Team<'_> {
    /// Runs `work` on the blocks of each colour of `colours` (batch ranges, in solve order),
    /// one stage per colour, then on `serial` (batches that may share bodies: one block).
    /// `claims` has a word per block ([`colour_claims`]). With parts, each colour's blocks are
    /// cut at the parts' boundaries and each member with a part does its own part's blocks,
    /// leaving the others' to their members unless those have not begun or stall. The last
    /// colours of at most [`TAIL_COLOUR_ITEMS`] items run with `serial` as one stage.
    pub(crate) fn for_each_colour(
        &self,
        colours: &[Range<usize>],
        parts: ColourParts,
        serial: Range<usize>,
        claims: &[AtomicU32],
        mut work: impl FnMut(Range<usize>),
    ) {
        let mut first_claim = 0;
        // Members past the parts (more threads than `MAX_PARTS`) start at their share.
        let own_part = parts.count > 1 && self.index() < parts.count;
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
    pub(crate) fn for_each_part(
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
        let own_part = parts.count > 1 && self.index() < parts.count;
        self.stage(count, block, &claims[..count], start..end, own_part.then_some(&by_part), &mut work);
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

/// Claim words for colours of these lengths cut by `parts` parts and a serial block, and at
/// least `other_blocks` (the most blocks of any other stage over the same claims: a fill or a
/// store). Each part boundary inside a colour may add a block; a colour's blocks with parts are
/// at least as long as without ([`colour_block_len`]), so [`Team::blocks_of`] bounds them
/// before the parts' cut.
pub(crate) fn colour_claims(colours: &[Range<usize>], parts: usize, other_blocks: usize) -> usize {
    let by_colour =
        colours.iter().map(|c| colour_blocks(c.len()) + parts.saturating_sub(1)).sum::<usize>() + 1;
    by_colour.max(other_blocks)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::parallel::team::{Claims, TeamState};
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    use std::time::Duration;

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
        assert_eq!((len(10_000), colour_blocks(10_000)), (BLOCK_BATCHES, 313));
        assert_eq!((len(113), colour_blocks(113)), (7, 17));
        assert_eq!((len(10), colour_blocks(10)), (MIN_COLOUR_BLOCK_BATCHES, 3));
        assert_eq!(colour_blocks(0), 0);
        for batches in 64..2000 {
            assert!(colour_blocks(batches) >= BLOCKS_PER_COLOUR, "{batches} batches");
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
                let most = colour_blocks(items) + 1;
                assert!(cut.blocks() <= most, "{items} items cut at {boundary}: {} blocks", cut.blocks());
            }
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
}
