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
    /// contacts of that part begin. A colour's contacts go part by part, by a contact's first
    /// movable body, each part's in whole batches of its own (whole pairs of them when built
    /// in pairs); within a part, those whose other body is in another part come first, then
    /// those that touch a movable body a contact between two parts' movable bodies touches,
    /// then the part's inner contacts ([`Reach`]).
    pub part_starts: Vec<usize>,
    /// Per colour, per part, the first batch of the part's inner run: from it to the part's
    /// end, every contact touches only the part's own bodies, and of those none that another
    /// part's contact moves (its movable bodies no other part's contact touches; a kinematic
    /// one, which only its own part's body stages move, another part's contact may read). A
    /// batch pair that holds the run's first inner contacts after others comes before it. The
    /// part's start with one part.
    pub inner_starts: Vec<usize>,
    /// Per solver body, whether it is a movable body of a contact between two parts' movable
    /// bodies (built with parts).
    edge_bodies: Vec<bool>,
    /// Colours in use, one bit each, per solver body.
    body_colours: Vec<u64>,
    /// Per contact, its colour, part, reach and point count as one sort key ([`sort_key`]), or
    /// `NO_KEY` in the overflow.
    keys: Vec<u16>,
    /// The coloured contacts sorted by key, stably: colour by colour, part by part within, by
    /// reach within a part, by point count within those.
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

/// How far a contact of a part reaches beyond it, in the order a part's contacts of a colour
/// go: the team's members solve their parts' inner contacts without waiting for one another
/// (`Team::pipeline`), and only a part's first runs wait for the other parts' first runs of the
/// colour before.
///
/// Kept together, the rain's 3 % crossing contacts fill few batch pairs: spread through a
/// part's contacts in contact order, one sat in about a fifth of them, and each waits for a
/// velocity from the other core (the two-thread step took 1–3 % less time on the rain, the
/// tumbler and the 3D pyramid with them together, the Intel Xeon, 2026-11-29; at the part's
/// start they measured the same as at its end).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Reach {
    /// Its other body (not the fixed one) is in another part: it moves a body another part's
    /// contacts move too, or reads a kinematic body another part's body stages move.
    Across,
    /// Within the part, but one of its movable bodies is a movable body of a contact between
    /// two parts' movable bodies.
    Edge,
    /// Within the part, and no other part's contact touches its movable bodies (another part's
    /// may read a kinematic body of it, which only this part's body stages move).
    Inner,
}

/// Reaches a part's contacts are told apart by.
const REACHES: usize = 3;

/// Sort keys of one part of one colour: its contacts by reach ([`Reach`]), each by point
/// count. Alone, nothing reaches another part: one part, by point count.
const PART_KEYS: usize = REACHES * POINT_COUNTS;

// Sort keys of every colour's parts' reaches and point counts fit in a `u16`, below `NO_KEY`.
const _: () = assert!(COLOURS * MAX_PARTS * PART_KEYS < NO_KEY as usize);

/// Sort keys of a part of a colour for `parts` parts: one part has no reaches.
fn part_keys(parts: usize) -> usize {
    if parts > 1 { PART_KEYS } else { POINT_COUNTS }
}

/// The sort key of a contact of colour `colour`, in part `part` of `parts`, of reach `reach`,
/// with `points` manifold points: colours in order, parts in order within each, a part's
/// contacts by reach, point counts within those.
fn sort_key(colour: usize, part: usize, parts: usize, reach: Reach, points: u8) -> u16 {
    debug_assert!(usize::from(points) < POINT_COUNTS, "{points} manifold points");
    let points = usize::from(points).min(POINT_COUNTS - 1);
    let reach = if parts > 1 { reach as usize } else { 0 };
    ((colour * parts + part) * part_keys(parts) + reach * POINT_COUNTS + points) as u16
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
    /// Each colour (with parts, each part's run of a colour), and the overflow, is padded with
    /// a batch of empty lanes to an even number of batches: the contact solver stores batches
    /// two by two (`BatchPair`), and no pair then holds batches of two colours, or of two
    /// parts.
    ///
    /// Within a colour, contacts go part by part of `parts` (by the part of the contact's first
    /// movable body), a part's contacts by reach ([`Reach`], [`PART_KEYS`]), and by point
    /// count within those: the order a team's members find their own bodies in
    /// ([`Batches::part_starts`]), and the runs a pipelined solve tells apart
    /// ([`Batches::inner_starts`]). The colours are the same for any parts.
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
    /// by (colour, part, reach, point count), stable in contact order, cut into batches (with
    /// parts, each part's into batches, or pairs of them, of its own).
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
        // of the colour before to the end of its own last part's last key, a part's from the
        // end of the part before, and its inner contacts from the end of its last edge key.
        self.lanes.clear();
        self.colours.clear();
        self.part_starts.clear();
        self.inner_starts.clear();
        let keys_per_part = part_keys(part_count);
        let run_end = |colour: usize, part: usize| {
            starts[(colour * part_count + part + 1) * keys_per_part - 1] as usize
        };
        let edge_end = |colour: usize, part: usize| {
            starts[(colour * part_count + part) * keys_per_part + Reach::Inner as usize * POINT_COUNTS - 1]
                as usize
        };
        // Batches per group a part is padded to: a pair when built in pairs.
        let group = if in_pairs { 2 } else { 1 };
        let mut begin = 0;
        for colour in 0..COLOURS {
            let end = run_end(colour, part_count - 1);
            if end > begin {
                let start = self.lanes.len();
                if part_count == 1 {
                    self.part_starts.push(start);
                    self.inner_starts.push(start);
                    self.push_batches(begin..end, group);
                } else {
                    // Each part in whole groups, so that no batch pair holds two parts' contacts
                    // and each part's runs can be told by pair.
                    let mut part_begin = begin;
                    for part in 0..part_count {
                        let part_end = run_end(colour, part);
                        let first = self.lanes.len();
                        self.part_starts.push(first);
                        self.push_batches(part_begin..part_end, group);
                        let reaching = edge_end(colour, part) - part_begin;
                        let inner = first + reaching.div_ceil(4 * group) * group;
                        self.inner_starts.push(inner.min(self.lanes.len()));
                        part_begin = part_end;
                    }
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

    /// Appends the batches of the sorted contacts `run` (`self.order`'s), four to a batch, the
    /// last padded with empty lanes, and then empty batches to a whole number of `group`s.
    fn push_batches(&mut self, run: Range<usize>, group: usize) {
        let start = self.lanes.len();
        // Whole fours as they are (a short copy into a filled array was a call to `memset` and
        // one to `memcpy` per batch), then the rest.
        let chunks = self.order[run].chunks_exact(4);
        let rest = chunks.remainder();
        self.lanes.extend(chunks.map(|c| [c[0], c[1], c[2], c[3]]));
        if !rest.is_empty() {
            self.lanes.push(std::array::from_fn(|i| rest.get(i).copied().unwrap_or(EMPTY_LANE)));
        }
        while !(self.lanes.len() - start).is_multiple_of(group) {
            self.lanes.push([EMPTY_LANE; 4]);
        }
    }

    /// Marks, in `edge_bodies`, every movable body of a contact whose two movable bodies lie in
    /// different parts of `parts`.
    fn mark_edge_bodies(&mut self, pairs: &[(u32, u32)], movable: &[bool], parts: BodyParts) {
        self.edge_bodies.clear();
        self.edge_bodies.resize(movable.len(), false);
        for &(a, b) in pairs {
            let (a, b) = (a as usize, b as usize);
            if movable[a] & movable[b] && parts.of(a as u32) != parts.of(b as u32) {
                self.edge_bodies[a] = true;
                self.edge_bodies[b] = true;
            }
        }
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
        if SPLIT {
            self.mark_edge_bodies(pairs, movable, parts);
        }
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
            let (part, reach) = if SPLIT {
                let (part_a, part_b) = (parts.of(a as u32), parts.of(b as u32));
                let part = [part_b, part_a][usize::from(movable[a])];
                // The other body: a moving one, or a kinematic one whose motion its part's
                // member integrates; the fixed body (solver index 0) never changes.
                let other_part = [part_a, part_b][usize::from(movable[a])];
                let other = [a, b][usize::from(movable[a])];
                let reach = if other != 0 && other_part != part {
                    Reach::Across
                } else if self.edge_bodies[a] | self.edge_bodies[b] {
                    Reach::Edge
                } else {
                    Reach::Inner
                };
                (part, reach)
            } else {
                (0, Reach::Inner)
            };
            let key = sort_key(colour, part, part_count, reach, points[index]);
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
        // the first movable body), each part in whole pairs of batches of its own, within a
        // part by reach (across parts, at an edge, inner), by point count within those, in
        // contact order within that.
        let mut state = 3u32;
        for starts in [&[][..], &[700], &[250, 250, 1400], &[100, 900, 1500]] {
            let parts = BodyParts::new(starts);
            let (pairs, points, movable) = random_input(&mut state, 2000, 3000, 6);
            let (mut whole, mut split) = (Batches::default(), Batches::default());
            whole.build_in_pairs(&pairs, &movable, &points, BodyParts::WHOLE);
            split.build_in_pairs(&pairs, &movable, &points, parts);
            assert_eq!(whole.colours.len(), split.colours.len(), "{starts:?}");
            assert_eq!(&whole.lanes[whole.serial.clone()], &split.lanes[split.serial.clone()]);
            assert_eq!(split.part_starts.len(), split.colours.len() * parts.count());
            assert_eq!(split.inner_starts.len(), split.part_starts.len());
            let first_movable = |k: u32| {
                let (a, b) = pairs[k as usize];
                if movable[a as usize] { (a, b) } else { (b, a) }
            };
            let part_of = |k: u32| parts.of(first_movable(k).0);
            let crossing = |k: u32| {
                let (a, b) = pairs[k as usize];
                movable[a as usize] && movable[b as usize] && parts.of(a) != parts.of(b)
            };
            let mut edge = vec![false; movable.len()];
            for k in (0..pairs.len() as u32).filter(|&k| crossing(k)) {
                let (a, b) = pairs[k as usize];
                edge[a as usize] = true;
                edge[b as usize] = true;
            }
            let reach = |k: u32| {
                let ((_, other), (a, b)) = (first_movable(k), pairs[k as usize]);
                if parts.count() == 1 {
                    Reach::Inner
                } else if other != 0 && parts.of(other) != part_of(k) {
                    Reach::Across
                } else if edge[a as usize] || edge[b as usize] {
                    Reach::Edge
                } else {
                    Reach::Inner
                }
            };
            if parts.count() > 1 {
                assert!((0..pairs.len() as u32).any(crossing), "the random pairs cross parts");
            }
            let contacts = |b: &Batches, batches: Range<usize>| -> Vec<u32> {
                b.lanes[batches].iter().flatten().copied().filter(|&l| l != EMPTY_LANE).collect()
            };
            for (c, colour) in split.colours.iter().enumerate() {
                let (mut want, got) =
                    (contacts(&whole, whole.colours[c].clone()), contacts(&split, colour.clone()));
                want.sort_by_key(|&k| (part_of(k), reach(k), points[k as usize], k));
                assert_eq!(got, want, "colour {c} of {starts:?}");
                for part in 0..parts.count() {
                    let at = c * parts.count() + part;
                    let (first, inner) = (split.part_starts[at], split.inner_starts[at]);
                    let end = split
                        .part_starts
                        .get(at + 1)
                        .filter(|_| part + 1 < parts.count())
                        .map_or(colour.end, |&e| e);
                    assert!(colour.start <= first && first <= inner && inner <= end && end <= colour.end);
                    assert!(first.is_multiple_of(2) && inner.is_multiple_of(2), "whole pairs");
                    // The part's batches hold its contacts alone; from the inner start on,
                    // only inner ones, and every one before a pair holding inner ones alone.
                    let held = contacts(&split, first..end);
                    assert!(held.iter().all(|&k| part_of(k) == part), "colour {c} part {part}");
                    let inner_contacts = contacts(&split, inner..end);
                    assert!(inner_contacts.iter().all(|&k| reach(k) == Reach::Inner));
                    let reaching = held.iter().filter(|&&k| reach(k) != Reach::Inner).count();
                    assert_eq!(inner - first, reaching.div_ceil(8) * 2, "colour {c} part {part}");
                }
            }
            // An inner contact's moving bodies are touched by no other part's contact.
            for k in (0..pairs.len() as u32).filter(|&k| reach(k) == Reach::Inner && parts.count() > 1) {
                let (a, b) = pairs[k as usize];
                for x in [a, b].into_iter().filter(|&x| movable[x as usize]) {
                    let touching = (0..pairs.len() as u32).filter(|&j| {
                        let (p, q) = pairs[j as usize];
                        (p == x || q == x) && !split.overflow.contains(&j)
                    });
                    for j in touching {
                        assert_eq!(part_of(j), part_of(k), "inner contact {k}'s body {x} in contact {j}");
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
