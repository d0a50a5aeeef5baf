//! The solve's list of touching contacts: the awake contacts the narrowphase left touching that
//! have a simulated body, in contact order, with each one's solver bodies and manifold points
//! for the contact solver. Found in blocks of the awake set the world's threads share, each
//! block's finds in lists of its own, joined in block order: the same lists on any number of
//! threads.

use super::contact_status::{POINTS_SHIFT, TOUCHING, status_bits};
use crate::bitset::BitSet;
use crate::narrowphase::TERRAIN;
use crate::parallel::{SharedSlice, run_team};
use crate::solver::FIXED_SLOT;
use crate::team_policy::{MIN_CONTACTS_FOR_LIST_TEAM, TOUCHING_BLOCK, helpers_for};
use crate::world::World;
use std::ops::Range;

/// One block's touching contacts, in contact order: ids, solver bodies and point counts.
#[derive(Clone, Debug, Default)]
pub(crate) struct TouchingBlock {
    ids: Vec<u32>,
    pairs: Vec<(u32, u32)>,
    points: Vec<u8>,
}

impl TouchingBlock {
    /// Contacts the block listed.
    pub fn len(&self) -> usize {
        self.ids.len()
    }
}

impl World {
    /// Lists the touching contacts with at least one simulated body (in the step's scratch),
    /// and gives the contact solver their solver bodies and manifold points, read from the
    /// dense arrays alone: the contacts themselves are read later, by the fill. Needs this
    /// step's solver indices and status bytes.
    pub(super) fn list_touching_contacts(&mut self) {
        let scratch = &mut self.scratch;
        let count = self.contacts.bodies.len();
        let (awake, bodies) = (&self.awake_contacts, &self.contacts.bodies);
        let (status, solver_index) = (&scratch.narrowphase.contact_status, &scratch.solve.solver_index);
        // Touching contact `id`'s entry in the lists when it belongs there.
        let entry = |id: usize| {
            let (a, b) = bodies[id];
            // The terrain side of a terrain contact is the fixed body.
            let slot_a = solver_index[a as usize];
            let slot_b = if b == TERRAIN { FIXED_SLOT } else { solver_index[b as usize] };
            let simulated = slot_a != FIXED_SLOT || slot_b != FIXED_SLOT;
            simulated.then_some((id as u32, (slot_a, slot_b), status[id] >> POINTS_SHIFT))
        };
        let touching = &mut scratch.solve.touching;
        let (pairs, points) = scratch.solve.contact_solver.touching_mut();
        touching.clear();
        pairs.clear();
        points.clear();
        let Some(helpers) =
            helpers_for(&self.threads, self.awake_contacts.count(), MIN_CONTACTS_FOR_LIST_TEAM)
        else {
            // Alone, straight into the lists (a block's lists and their joining cost a
            // 28 000-contact field of pyramids a third more).
            for_each_touching(awake, status, 0..count, |id| {
                if let Some((id, pair, point_count)) = entry(id) {
                    touching.push(id);
                    pairs.push(pair);
                    points.push(point_count);
                }
            });
            return;
        };
        let blocks = count.div_ceil(TOUCHING_BLOCK);
        scratch.solve.touching_blocks.resize_with(blocks, TouchingBlock::default);
        scratch.solve.touching_claims.reset(blocks);
        let (claims, lists) =
            (scratch.solve.touching_claims.words(), SharedSlice::new(&mut scratch.solve.touching_blocks));
        run_team(Some(helpers), |team| {
            team.for_blocks(count, TOUCHING_BLOCK, claims, |range| {
                // A member of a team gets one block at a time (only a team of one gets the
                // whole range, and that goes the other way above).
                debug_assert!(range.len() <= TOUCHING_BLOCK);
                let block = range.start / TOUCHING_BLOCK;
                // SAFETY: each block of contact slots, and so its list, is one member's in
                // this stage.
                let list = unsafe { &mut lists.slice_mut(block..block + 1)[0] };
                list.ids.clear();
                list.pairs.clear();
                list.points.clear();
                for_each_touching(awake, status, range, |id| {
                    if let Some((id, pair, point_count)) = entry(id) {
                        list.ids.push(id);
                        list.pairs.push(pair);
                        list.points.push(point_count);
                    }
                });
            });
        });
        for list in &scratch.solve.touching_blocks[..blocks] {
            touching.extend_from_slice(&list.ids);
            pairs.extend_from_slice(&list.pairs);
            points.extend_from_slice(&list.points);
        }
    }
}

/// Calls `visit` with each awake contact in `range` (which starts a word of the awake set)
/// whose status byte says touching, in contact order: a word of contacts at a time, the
/// touching ones found from their status bytes as one mask.
fn for_each_touching(awake: &BitSet, status: &[u8], range: Range<usize>, mut visit: impl FnMut(usize)) {
    debug_assert!(range.end <= status.len(), "a status byte per contact slot");
    let end = range.end;
    awake.for_each_word_in(range, |word_start, awake_word| {
        let word_status = &status[word_start..end.min(word_start + 64)];
        let mut touching = awake_word & status_bits(word_status, |s| s & TOUCHING != 0);
        while touching != 0 {
            visit(word_start + touching.trailing_zeros() as usize);
            touching &= touching - 1;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The word-at-a-time walk visits exactly the awake contacts whose status says touching,
    /// in order, for ranges that end inside a word, and past the set's last word (the awake
    /// set's words end at contact 512, the ranges run to 1000).
    #[test]
    fn the_walk_visits_the_awake_touching_contacts_in_order() {
        let mut state = 99u32;
        let mut next = move || {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            state >> 8
        };
        let count = 1000;
        let status: Vec<u8> = (0..count).map(|_| (next() & 0xff) as u8).collect();
        let mut awake = BitSet::default();
        for id in 0..450 {
            if next() % 3 != 0 {
                awake.set(id);
            }
        }
        assert!(awake.word_count() * 64 < count, "the set ends before the ranges do");
        for range in [0..count, 0..1, 0..63, 64..65, 128..777, 448..520, 896..count, 0..0] {
            let expected: Vec<usize> =
                range.clone().filter(|&id| awake.get(id) && status[id] & TOUCHING != 0).collect();
            let mut visited = Vec::new();
            for_each_touching(&awake, &status, range.clone(), |id| visited.push(id));
            assert_eq!(visited, expected, "{range:?}");
        }
    }
}
