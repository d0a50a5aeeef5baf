//! Graph colouring of the contact constraints into batches of four lanes.
//!
//! The wide solver works on four contacts at once: it loads the velocities of their bodies,
//! solves the four in lockstep and stores the velocities back. That is only the same as solving
//! them one after another when no two lanes share a body the solver moves, so contacts are first
//! coloured (greedy, first fit, in contact order: no two contacts of a colour share a movable
//! body) and each colour is cut into batches of four. Static and kinematic bodies may appear in
//! many lanes of a batch: no impulse changes their velocity.
//!
//! Everything here follows the contact order, so the batches (and with them the solve order) are
//! the same on every run. On a team, each colour's contacts also go part by part of the solver
//! bodies ([`BodyParts`]), so the batches within a colour differ with the thread count; the
//! colours do not, and neither does any number the solve computes.
//!
//! The joints' batches (one part) are a function of the pairs, the movable flags and the point
//! counts alone, so the joints' colouring, given the same three as the step before, keeps the
//! batches it has
//! ([`Batches::build_or_keep`]). A joint grid's joints stay the same from step to step, and
//! colouring its 19 800 joints again was 0.15 ms a step, on one thread whatever the thread
//! count; comparing the inputs is a scan of a few hundred kilobytes. The contacts do not keep
//! theirs: a resting pile's touching contacts do not stay the same (a few hundred of the 3D
//! pyramid's 15 500 begin or end touching every step), and copying the input for a comparison
//! that fails would be all cost.

use super::body_parts::{BodyParts, MAX_PARTS};
use crate::narrowphase::MAX_MANIFOLD_POINTS;
use std::ops::Range;

/// Colours tried before a contact goes to the overflow, one bit each in a body's mask.
const COLOURS: usize = 64;

/// A lane without a contact.
pub(crate) const EMPTY_LANE: u32 = u32::MAX;

/// Contacts grouped into batches of up to four that share no movable body.
#[derive(Clone, Debug, Default)]
pub(crate) struct Batches {
    /// Per batch, the index of each lane's contact in the list given to
    /// [`Batches::build_in_pairs`] or [`Batches::build_or_keep`] (`EMPTY_LANE` where the batch is
    /// not full). Colour by colour, then the overflow.
    pub lanes: Vec<[u32; 4]>,
    /// The batches of each colour in use, as ranges of `lanes`, in solve order: batches of one
    /// colour may be solved at once (by several threads).
    pub colours: Vec<Range<usize>>,
    /// The overflow's batches, after the colours: they may share bodies, so they are solved
    /// one after another.
    pub serial: Range<usize>,
    /// Per colour, per part of the solver bodies ([`BodyParts`]), the batch where the colour's
    /// contacts of that part begin (the batch holding the first, which may end the part before's).
    /// A colour's contacts go part by part, by a contact's first movable body; within a part,
    /// those that cross to another part come last.
    pub part_starts: Vec<usize>,
    /// Colours in use, one bit each, per solver body.
    body_colours: Vec<u64>,
    /// Per contact, its colour, part, crossing and point count as one sort key ([`sort_key`]), or
    /// `NO_KEY` in the overflow.
    keys: Vec<u16>,
    /// The coloured contacts sorted by key, stably: colour by colour, part by part within, the
    /// part's own before those that cross, by point count within those.
    order: Vec<u32>,
    /// Contacts that found no free colour (a body with more than `COLOURS` contacts).
    overflow: Vec<u32>,
    /// Per sort key, its contacts' count, then where its run begins and, once they are
    /// placed, where it ends.
    key_counts: Vec<u32>,
    /// What [`Batches::build_or_keep`] last built the batches from: pairs, movable flags and
    /// point counts (no pairs after a [`Batches::build_in_pairs`]).
    built_from: (Vec<(u32, u32)>, Vec<bool>, Vec<u8>),
}

/// Point counts told apart within a colour: a manifold holds at most four points (a joint
/// counts one), so 0 to 4.
const POINT_COUNTS: usize = MAX_MANIFOLD_POINTS + 1;

/// The key of an overflowing contact.
const NO_KEY: u16 = u16::MAX;

/// Sort keys of one part of one colour: its contacts within the part, then those that cross
/// to another part (their two movable bodies in different parts), each by point count.
///
/// A crossing contact reads and writes a velocity the other part's member last wrote, a
/// miss from the other core that the batch waits for. Spread through a part's contacts in
/// contact order, the rain's 3 % crossing contacts put one in about a fifth of its batch
/// pairs; kept together at the part's end, they fill few. The two-thread step took 1–3 % less
/// time on the rain, the tumbler and the 3D pyramid (paired medians of 6–8 alternating runs,
/// `step_count <scene> 100 150 --threads 2`, the Intel Xeon, 2026-11-29); at the part's start
/// it measured the same as at its end. Alone, no contact crosses: one part.
const PART_KEYS: usize = 2 * POINT_COUNTS;

// Sort keys of every colour's parts' crossings and point counts fit in a `u16`, below `NO_KEY`.
const _: () = assert!(COLOURS * MAX_PARTS * PART_KEYS < NO_KEY as usize);

/// Sort keys of a part of a colour for `parts` parts: one part has no crossing contacts.
fn part_keys(parts: usize) -> usize {
    if parts > 1 { PART_KEYS } else { POINT_COUNTS }
}

/// The sort key of a contact of colour `colour`, in part `part` of `parts`, crossing to
/// another part or not, with `points` manifold points: colours in order, parts in order within
/// each, a part's contacts within it before those that cross, point counts within those.
fn sort_key(colour: usize, part: usize, parts: usize, crossing: bool, points: u8) -> u16 {
    debug_assert!(usize::from(points) < POINT_COUNTS, "{points} manifold points");
    debug_assert!(parts > 1 || !crossing, "a crossing contact with one part");
    let points = usize::from(points).min(POINT_COUNTS - 1);
    ((colour * parts + part) * part_keys(parts) + usize::from(crossing) * POINT_COUNTS + points) as u16
}

impl Batches {
    /// Colours `pairs` (solver body indices of each contact's two bodies, in contact order) and
    /// cuts the colours into batches. `movable[i]` says whether the solver changes body `i`'s
    /// velocity. `points[k]` is contact `k`'s manifold point count: within a colour, contacts are
    /// batched in order of it (then of contact), so a ball's single point does not share a
    /// batch with a box's four and leave three point slots of its lane idle. Contacts of one
    /// colour share no moving body, so their order within the colour does not change the
    /// result, only the work.
    ///
    /// Each colour, and the overflow, is padded with a batch of empty lanes to an even number
    /// of batches: the contact solver stores batches two by two (`BatchPair`), and no pair
    /// then holds batches of two colours.
    ///
    /// Within a colour, contacts go part by part of `parts` (by the part of the contact's first
    /// movable body), a part's own contacts before those that cross to another part
    /// ([`PART_KEYS`]), and by point count within those: the order a team's members find their
    /// own bodies in ([`Batches::part_starts`]). The colours are the same for any parts.
    pub fn build_in_pairs(
        &mut self,
        pairs: &[(u32, u32)],
        movable: &[bool],
        points: &[u8],
        parts: BodyParts,
    ) {
        self.built_from.0.clear();
        self.build_batches(pairs, movable, points, parts, true);
    }

    /// [`Batches::build_in_pairs`] without the padding (what [`Batches::build_or_keep`] builds
    /// for the joints): the batches the tests hold the colouring to.
    #[cfg(test)]
    pub fn build(&mut self, pairs: &[(u32, u32)], movable: &[bool], points: &[u8]) {
        self.built_from.0.clear();
        self.build_batches(pairs, movable, points, BodyParts::WHOLE, false);
    }

    /// The batches of [`Batches::build_in_pairs`] without the padding, or nothing when the
    /// three are the ones this was last called with: the batches are theirs already.
    pub fn build_or_keep(&mut self, pairs: &[(u32, u32)], movable: &[bool], points: &[u8]) {
        let (last_pairs, last_movable, last_points) = &mut self.built_from;
        let same = !pairs.is_empty()
            && last_points.as_slice() == points
            && last_movable.as_slice() == movable
            && last_pairs.as_slice() == pairs;
        if same {
            return;
        }
        last_pairs.clear();
        last_pairs.extend_from_slice(pairs);
        last_movable.clear();
        last_movable.extend_from_slice(movable);
        last_points.clear();
        last_points.extend_from_slice(points);
        self.build_batches(pairs, movable, points, BodyParts::WHOLE, false);
    }

    /// Colours and batches `pairs`: greedy colours in contact order, then one counting sort
    /// by (colour, part, crossing, point count), stable in contact order, cut into batches.
    /// (Pushing each contact onto its colour's list and ordering each list by point count
    /// afterwards took a third more instructions: 3D pyramid, 15 500 contacts.)
    fn build_batches(
        &mut self,
        pairs: &[(u32, u32)],
        movable: &[bool],
        points: &[u8],
        parts: BodyParts,
        in_pairs: bool,
    ) {
        self.body_colours.clear();
        self.body_colours.resize(movable.len(), 0);
        self.keys.clear();
        self.overflow.clear();
        let part_count = parts.count();
        // Taken out of `self` for the colouring pass, a method of `self`, to fill.
        let mut key_counts = std::mem::take(&mut self.key_counts);
        key_counts.clear();
        key_counts.resize(COLOURS * part_count * part_keys(part_count), 0);
        // One thread's single part keeps the loop it had before parts.
        if part_count == 1 {
            self.colour_in_order::<false>(pairs, movable, points, parts, &mut key_counts);
        } else {
            self.colour_in_order::<true>(pairs, movable, points, parts, &mut key_counts);
        }
        let starts = key_counts.as_mut_slice();
        // Counts to first positions, then each contact to its place, in contact order.
        let mut total = 0;
        for start in starts.iter_mut() {
            let count = *start;
            *start = total;
            total += count;
        }
        self.order.clear();
        self.order.resize(total as usize, 0);
        for (index, &key) in self.keys.iter().enumerate().filter(|(_, k)| **k != NO_KEY) {
            let place = &mut starts[usize::from(key)];
            self.order[*place as usize] = index as u32;
            *place += 1;
        }
        // Each key's slot now holds where its run ends: a colour's contacts run from the end
        // of the colour before to the end of its own last part's last point count, and a
        // part's from the end of the part before.
        self.lanes.clear();
        self.colours.clear();
        self.part_starts.clear();
        let run_end = |colour: usize, part: usize| {
            starts[(colour * part_count + part + 1) * part_keys(part_count) - 1] as usize
        };
        let mut begin = 0;
        for colour in 0..COLOURS {
            let end = run_end(colour, part_count - 1);
            if end > begin {
                let start = self.lanes.len();
                self.part_starts.push(start);
                for part in 1..part_count {
                    self.part_starts.push(start + (run_end(colour, part - 1) - begin) / 4);
                }
                // Whole fours as they are (a short copy into a filled array was a call to
                // `memset` and one to `memcpy` per batch), then the rest.
                let chunks = self.order[begin..end].chunks_exact(4);
                let rest = chunks.remainder();
                self.lanes.extend(chunks.map(|c| [c[0], c[1], c[2], c[3]]));
                if !rest.is_empty() {
                    self.lanes.push(std::array::from_fn(|i| rest.get(i).copied().unwrap_or(EMPTY_LANE)));
                }
                if in_pairs && (self.lanes.len() - start) % 2 == 1 {
                    self.lanes.push([EMPTY_LANE; 4]);
                }
                self.colours.push(start..self.lanes.len());
            }
            begin = end;
        }
        // Overflow contacts may share bodies with each other: one lane each.
        let start = self.lanes.len();
        self.lanes.extend(self.overflow.iter().map(|&i| [i, EMPTY_LANE, EMPTY_LANE, EMPTY_LANE]));
        if in_pairs && self.overflow.len() % 2 == 1 {
            self.lanes.push([EMPTY_LANE; 4]);
        }
        self.serial = start..self.lanes.len();
        self.key_counts = key_counts;
    }

    /// The first pass of [`Batches::build_batches`]: greedy first-fit colours in contact order,
    /// each contact's sort key, and each key's count (into `key_counts`, zeroed). `SPLIT` says
    /// there is more than one part.
    fn colour_in_order<const SPLIT: bool>(
        &mut self,
        pairs: &[(u32, u32)],
        movable: &[bool],
        points: &[u8],
        parts: BodyParts,
        key_counts: &mut [u32],
    ) {
        let part_count = if SPLIT { parts.count() } else { 1 };
        for (index, &(a, b)) in pairs.iter().enumerate() {
            let (a, b) = (a as usize, b as usize);
            let used_a = if movable[a] { self.body_colours[a] } else { 0 };
            let used_b = if movable[b] { self.body_colours[b] } else { 0 };
            let free = !(used_a | used_b);
            if free == 0 {
                self.overflow.push(index as u32);
                self.keys.push(NO_KEY);
                continue;
            }
            let colour = free.trailing_zeros() as usize;
            let bit = 1u64 << colour;
            if movable[a] {
                self.body_colours[a] |= bit;
            }
            if movable[b] {
                self.body_colours[b] |= bit;
            }
            // Both bodies' parts, then a pick, with no branch on them: which part a body is
            // in follows no pattern along the contact order, and the scan's and `&&`'s
            // branches were mispredicted. The rain's colouring on two threads took 47 µs,
            // where one thread's, without parts, took 21; now 30 (a probe, 2026-11-29).
            let (part, crossing) = if SPLIT {
                let (part_a, part_b) = (parts.of(a as u32), parts.of(b as u32));
                let part = [part_b, part_a][usize::from(movable[a])];
                (part, movable[a] & movable[b] & (part_a != part_b))
            } else {
                (0, false)
            };
            let key = sort_key(colour, part, part_count, crossing, points[index]);
            key_counts[usize::from(key)] += 1;
            self.keys.push(key);
        }
    }

    /// Number of colours in use (for the profile).
    pub fn colour_count(&self) -> usize {
        self.colours.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn contacts_of_a_colour_are_batched_by_point_count() {
        // Eight separate pairs: one colour; alternately one and four points.
        let pairs: Vec<(u32, u32)> = (0..8).map(|i| (2 * i + 1, 2 * i + 2)).collect();
        let points: Vec<u8> = (0..8).map(|i| if i % 2 == 0 { 1 } else { 4 }).collect();
        let mut batches = Batches::default();
        batches.build(&pairs, &[true; 17], &points);
        assert_eq!(batches.lanes, vec![[0, 2, 4, 6], [1, 3, 5, 7]]);
    }

    #[test]
    fn batches_kept_from_the_last_build_are_the_ones_a_new_build_makes() {
        // A chain over bodies 1..=12 on fixed body 0: built again from the same input, from a
        // changed pair, a changed point count and a changed movable flag, in turn, each
        // result must be what a fresh colouring of that input gives.
        let mut pairs: Vec<(u32, u32)> = (1..12).map(|i| (i, i + 1)).collect();
        pairs.extend((1..13).map(|i| (0, i)));
        let mut movable = vec![true; 13];
        movable[0] = false;
        let mut points = vec![4u8; pairs.len()];
        let mut kept = Batches::default();
        let check = |kept: &mut Batches, pairs: &[(u32, u32)], movable: &[bool], points: &[u8]| {
            kept.build_or_keep(pairs, movable, points);
            let mut fresh = Batches::default();
            fresh.build(pairs, movable, points);
            assert_eq!(
                (&kept.lanes, &kept.colours, &kept.serial),
                (&fresh.lanes, &fresh.colours, &fresh.serial)
            );
        };
        check(&mut kept, &pairs, &movable, &points);
        check(&mut kept, &pairs, &movable, &points);
        pairs[3] = (4, 9);
        check(&mut kept, &pairs, &movable, &points);
        points[5] = 1;
        check(&mut kept, &pairs, &movable, &points);
        movable[7] = false;
        check(&mut kept, &pairs, &movable, &points);
        pairs.pop();
        check(&mut kept, &pairs, &movable, &points);
        // A plain build in between leaves nothing to keep.
        kept.build(&pairs[..3], &movable, &points[..3]);
        check(&mut kept, &pairs, &movable, &points);
    }

    /// The batches, the colours' ranges and the overflow's as the plain algorithm makes them:
    /// greedy first-fit colours in contact order, each colour's contacts stably sorted by
    /// point count and cut into fours, then the overflow one to a batch.
    fn reference_batches(
        pairs: &[(u32, u32)],
        movable: &[bool],
        points: &[u8],
    ) -> (Vec<[u32; 4]>, Vec<Range<usize>>, Range<usize>) {
        let mut used = vec![0u64; movable.len()];
        let mut by_colour = vec![Vec::new(); COLOURS];
        let mut overflow = Vec::new();
        for (k, &(a, b)) in pairs.iter().enumerate() {
            let mask = |body: u32| if movable[body as usize] { used[body as usize] } else { 0 };
            let free = !(mask(a) | mask(b));
            if free == 0 {
                overflow.push(k as u32);
                continue;
            }
            let colour = free.trailing_zeros() as usize;
            for body in [a, b].into_iter().filter(|&x| movable[x as usize]) {
                used[body as usize] |= 1 << colour;
            }
            by_colour[colour].push(k as u32);
        }
        let (mut lanes, mut colours) = (Vec::new(), Vec::new());
        for mut colour in by_colour.into_iter().filter(|c| !c.is_empty()) {
            colour.sort_by_key(|&k| points[k as usize]);
            let start = lanes.len();
            for chunk in colour.chunks(4) {
                let mut lane = [EMPTY_LANE; 4];
                lane[..chunk.len()].copy_from_slice(chunk);
                lanes.push(lane);
            }
            colours.push(start..lanes.len());
        }
        let start = lanes.len();
        lanes.extend(overflow.iter().map(|&k| [k, EMPTY_LANE, EMPTY_LANE, EMPTY_LANE]));
        let serial = start..lanes.len();
        (lanes, colours, serial)
    }

    /// `len` random pairs over `bodies` bodies (drawn from the generator `state`), with point
    /// counts 1 to 4, and every `fixed_every`-th body fixed.
    fn random_input(
        state: &mut u32,
        bodies: u32,
        len: usize,
        fixed_every: u32,
    ) -> (Vec<(u32, u32)>, Vec<u8>, Vec<bool>) {
        let mut next = |n: u32| {
            *state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            (*state >> 8) % n
        };
        let pairs: Vec<(u32, u32)> = (0..len)
            .map(|_| {
                let a = next(bodies);
                (a, (a + 1 + next(bodies - 1)) % bodies)
            })
            .collect();
        let points: Vec<u8> = (0..len).map(|_| 1 + next(4) as u8).collect();
        let movable: Vec<bool> = (0..bodies).map(|i| i % fixed_every != 0).collect();
        (pairs, points, movable)
    }

    #[test]
    fn the_counting_sort_makes_the_plain_algorithms_batches() {
        // Random pairs over few bodies (many colours, some overflow) and over many, with point
        // counts 1 to 4 and some bodies fixed.
        let mut state = 11u32;
        for (bodies, len) in [(3, 0), (3, 10), (12, 300), (40, 2000), (2000, 3000)] {
            let (pairs, points, movable) = random_input(&mut state, bodies, len, 7);
            let mut batches = Batches::default();
            batches.build(&pairs, &movable, &points);
            let built = (batches.lanes.clone(), batches.colours.clone(), batches.serial.clone());
            assert_eq!(built, reference_batches(&pairs, &movable, &points), "{len} pairs");
        }
    }

    #[test]
    fn batches_in_pairs_are_the_plain_batches_with_each_colour_padded_to_whole_pairs() {
        // Few bodies (many colours of odd and even length, and an overflow) and many.
        let mut state = 5u32;
        for (bodies, len) in [(3, 0), (3, 7), (12, 301), (40, 2000)] {
            let (pairs, points, movable) = random_input(&mut state, bodies, len, 5);
            let (mut plain, mut paired) = (Batches::default(), Batches::default());
            plain.build(&pairs, &movable, &points);
            paired.build_in_pairs(&pairs, &movable, &points, BodyParts::WHOLE);
            assert_eq!(plain.colours.len(), paired.colours.len(), "{len} pairs");
            let ranges = plain.colours.iter().chain([&plain.serial]);
            for (want, got) in ranges.zip(paired.colours.iter().chain([&paired.serial])) {
                assert!(
                    got.start.is_multiple_of(2) && got.len().is_multiple_of(2),
                    "{got:?} is not whole pairs"
                );
                // The same batches in the same order, then at most one of empty lanes.
                assert_eq!(&paired.lanes[got.start..got.start + want.len()], &plain.lanes[want.clone()]);
                assert!(got.len() - want.len() == want.len() % 2, "{want:?} padded to {got:?}");
                for lanes in &paired.lanes[got.start + want.len()..got.end] {
                    assert_eq!(*lanes, [EMPTY_LANE; 4]);
                }
            }
        }
    }

    #[test]
    fn parts_order_each_colours_contacts_and_change_nothing_else() {
        // Random pairs over many bodies, in one to four parts (one empty), in pairs of
        // batches: each colour holds the contacts it holds without parts, part by part (by
        // the first movable body), within a part those whose other movable body is in the part
        // before those that cross to another, by point count within those, in contact order
        // within that; and each part's start is the batch that holds its first contact.
        let mut state = 3u32;
        for starts in [&[][..], &[700], &[250, 250, 1400], &[100, 900, 1500]] {
            let parts = BodyParts::new(starts);
            let (pairs, points, movable) = random_input(&mut state, 2000, 3000, 6);
            let (mut whole, mut split) = (Batches::default(), Batches::default());
            whole.build_in_pairs(&pairs, &movable, &points, BodyParts::WHOLE);
            split.build_in_pairs(&pairs, &movable, &points, parts);
            assert_eq!(whole.colours, split.colours, "{starts:?}");
            assert_eq!(&whole.lanes[whole.serial.clone()], &split.lanes[split.serial.clone()]);
            assert_eq!(split.part_starts.len(), split.colours.len() * parts.count());
            let part_of = |k: u32| {
                let (a, b) = pairs[k as usize];
                parts.of(if movable[a as usize] { a } else { b })
            };
            let crossing = |k: u32| {
                let (a, b) = pairs[k as usize];
                movable[a as usize] && movable[b as usize] && parts.of(a) != parts.of(b)
            };
            if parts.count() > 1 {
                assert!((0..pairs.len() as u32).any(crossing), "the random pairs cross parts");
            }
            for (c, colour) in split.colours.iter().enumerate() {
                let contacts = |b: &Batches| -> Vec<u32> {
                    b.lanes[colour.clone()].iter().flatten().copied().filter(|&l| l != EMPTY_LANE).collect()
                };
                let (mut want, got) = (contacts(&whole), contacts(&split));
                want.sort_by_key(|&k| (part_of(k), crossing(k), points[k as usize], k));
                assert_eq!(got, want, "colour {c} of {starts:?}");
                for part in 0..parts.count() {
                    let first = split.part_starts[c * parts.count() + part];
                    assert!(colour.start <= first && first <= colour.end);
                    // Every contact of the part is in its first batch or after; the batch
                    // before, if in the colour, holds none.
                    let in_part =
                        |batch: &[u32; 4]| batch.iter().any(|&l| l != EMPTY_LANE && part_of(l) == part);
                    assert!(
                        split.lanes[colour.start..first].iter().all(|b| !in_part(b)),
                        "part {part} before {first}"
                    );
                    if split.lanes[first..colour.end].iter().any(in_part) {
                        assert!(in_part(&split.lanes[first]), "part {part} does not begin at {first}");
                    }
                }
            }
        }
    }

    #[test]
    fn lanes_of_a_batch_share_no_movable_body_and_every_contact_appears_once() {
        // A chain 1-2-3-...-9 plus every body on the fixed body 0, and a hub (body 10) touching
        // 70 bodies, more than there are colours.
        let mut pairs: Vec<(u32, u32)> = (1..9).map(|i| (i, i + 1)).collect();
        pairs.extend((1..10).map(|i| (0, i)));
        pairs.extend((11..81).map(|i| (10, i)));
        let mut movable = vec![true; 81];
        movable[0] = false;
        let mut batches = Batches::default();
        batches.build(&pairs, &movable, &vec![4; pairs.len()]);
        let mut seen = vec![0; pairs.len()];
        for lanes in &batches.lanes {
            let mut bodies = Vec::new();
            for &lane in lanes.iter().filter(|&&l| l != EMPTY_LANE) {
                seen[lane as usize] += 1;
                let (a, b) = pairs[lane as usize];
                for body in [a, b].into_iter().filter(|&x| movable[x as usize]) {
                    assert!(!bodies.contains(&body), "body {body} twice in one batch");
                    bodies.push(body);
                }
            }
        }
        assert!(seen.iter().all(|&n| n == 1));
        assert_eq!(batches.overflow.len(), 70 - COLOURS);
        assert_eq!(batches.colour_count(), COLOURS);
    }
}
