//! Contact ids by body pair: a flat open-addressing table whose slot for a pair is known
//! before it is read, so the pair finding can ask the cache for the slots of all of a moved
//! proxy's neighbours at once and then look them up (a moved proxy in a pile or a jointed net
//! finds a dozen or so neighbours, nearly all already paired, and each lookup in a general hash
//! map was a cache miss waited for alone).
//!
//! Linear probing from the pair's home slot, at most half full, with deletion by shifting the
//! following entries back (no tombstones, so lookups never slow down as contacts come and go).
//! Nothing walks the table: it is only looked up, so its layout never changes a result.

use crate::parallel::prefetch_at;

/// A slot's value when it holds no pair.
const EMPTY: u32 = u32::MAX;

/// The table never holds fewer slots than this.
const MIN_SLOTS: usize = 64;

/// One slot: the pair and its contact id ([`EMPTY`] when free).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Slot {
    a: u32,
    b: u32,
    value: u32,
}

const FREE: Slot = Slot { a: 0, b: 0, value: EMPTY };

/// Body pair `(a, b)` to contact id.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairMap {
    /// A power of two of slots (or none before the first insertion).
    slots: Vec<Slot>,
    len: usize,
}

impl PairMap {
    /// The pair's home slot: the high bits of a multiplicative hash of both halves.
    #[inline]
    fn home(&self, a: u32, b: u32) -> usize {
        let key = (u64::from(a) << 32 | u64::from(b)).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        // `slots.len()` is a power of two ≥ MIN_SLOTS when this is called.
        (key >> (64 - self.slots.len().trailing_zeros())) as usize
    }

    #[inline]
    fn mask(&self) -> usize {
        self.slots.len() - 1
    }

    /// The contact of pair `(a, b)`, if any.
    #[inline]
    pub fn get(&self, a: u32, b: u32) -> Option<u32> {
        if self.slots.is_empty() {
            return None;
        }
        let mut i = self.home(a, b);
        loop {
            let s = self.slots[i];
            if s.value == EMPTY {
                return None;
            }
            if s.a == a && s.b == b {
                return Some(s.value);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// Asks the cache for the slot a lookup of `(a, b)` reads first; changes nothing.
    #[inline]
    pub fn prefetch(&self, a: u32, b: u32) {
        if !self.slots.is_empty() {
            let slot = std::ptr::from_ref(&self.slots[self.home(a, b)]) as usize;
            prefetch_at(slot, 0..std::mem::size_of::<Slot>());
        }
    }

    /// Records `(a, b) → value`; the pair must not be in the table.
    pub fn insert(&mut self, a: u32, b: u32, value: u32) {
        debug_assert!(value != EMPTY && self.get(a, b).is_none());
        if 2 * (self.len + 1) > self.slots.len() {
            self.grow();
        }
        let mut i = self.home(a, b);
        while self.slots[i].value != EMPTY {
            i = (i + 1) & self.mask();
        }
        self.slots[i] = Slot { a, b, value };
        self.len += 1;
    }

    /// Forgets pair `(a, b)` (nothing happens when it is not there).
    pub fn remove(&mut self, a: u32, b: u32) {
        if self.slots.is_empty() {
            return;
        }
        let mask = self.mask();
        let mut i = self.home(a, b);
        loop {
            let s = self.slots[i];
            if s.value == EMPTY {
                return;
            }
            if s.a == a && s.b == b {
                break;
            }
            i = (i + 1) & mask;
        }
        // Shift back every following entry of the run that may move into the hole: one whose
        // home is not cyclically within (hole, its slot].
        let mut hole = i;
        let mut j = (i + 1) & mask;
        while self.slots[j].value != EMPTY {
            let home = self.home(self.slots[j].a, self.slots[j].b);
            let stays = if hole <= j { hole < home && home <= j } else { hole < home || home <= j };
            if !stays {
                self.slots[hole] = self.slots[j];
                hole = j;
            }
            j = (j + 1) & mask;
        }
        self.slots[hole] = FREE;
        self.len -= 1;
    }

    /// Forgets every pair, keeping the room.
    pub fn clear(&mut self) {
        self.slots.fill(FREE);
        self.len = 0;
    }

    /// Pairs held.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Doubles the slots (or makes the first ones) and puts every entry back.
    fn grow(&mut self) {
        let size = (2 * self.slots.len()).max(MIN_SLOTS);
        let old = std::mem::replace(&mut self.slots, vec![FREE; size]);
        self.len = 0;
        for s in old.into_iter().filter(|s| s.value != EMPTY) {
            self.insert(s.a, s.b, s.value);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    #[test]
    fn it_agrees_with_a_hash_map_through_inserts_and_removals() {
        let (mut map, mut reference) = (PairMap::default(), HashMap::new());
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |n: u32| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % u64::from(n)) as u32
        };
        for step in 0..200_000u32 {
            // Small body indices, so pairs recur and runs of collisions form.
            let (a, b) = (next(300), next(300));
            match next(3) {
                0 | 1 if !reference.contains_key(&(a, b)) => {
                    map.insert(a, b, step);
                    reference.insert((a, b), step);
                }
                _ => {
                    map.remove(a, b);
                    reference.remove(&(a, b));
                }
            }
            if step % 997 == 0 {
                for (&(a, b), &v) in &reference {
                    assert_eq!(map.get(a, b), Some(v));
                }
            }
            assert_eq!(map.get(a, b), reference.get(&(a, b)).copied());
            map.prefetch(a, b);
        }
        assert_eq!(map.len(), reference.len());
        assert!(map.len() > 1000, "{}", map.len());
        map.clear();
        assert_eq!((map.len(), map.get(1, 2)), (0, None));
        map.remove(1, 2);
    }

    #[test]
    fn removing_from_a_run_that_wraps_around_keeps_the_rest_findable() {
        let mut map = PairMap::default();
        map.grow();
        // Pairs whose home is the last slot, so their run wraps to the start.
        let last = map.slots.len() - 1;
        let wrapping: Vec<(u32, u32)> =
            (0..100_000u32).map(|b| (7, b)).filter(|&(a, b)| map.home(a, b) == last).take(4).collect();
        assert_eq!(wrapping.len(), 4);
        for (k, &(a, b)) in wrapping.iter().enumerate() {
            map.insert(a, b, k as u32);
        }
        map.remove(wrapping[1].0, wrapping[1].1);
        for (k, &(a, b)) in wrapping.iter().enumerate().filter(|&(k, _)| k != 1) {
            assert_eq!(map.get(a, b), Some(k as u32));
        }
        assert_eq!(map.get(wrapping[1].0, wrapping[1].1), None);
    }
}
