//! The engine's one fixed hasher, for the lookup maps on hot paths (terrain contacts by body
//! and chunk, chunks by coordinate; the contact pairs have a table of their own,
//! `narrowphase/pair_map.rs`).
//!
//! std's default SipHash with a random seed costs several times more per lookup, and its seed
//! would make a map's behaviour differ between runs. This hasher has no seed; no result of the
//! engine depends on a map's iteration order anyway (maps are only looked up, never walked to
//! decide anything).

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash's mixing step (rotate, xor, multiply) over each integer written, with the high bits
/// folded down at the end.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct WordHasher(u64);

/// FxHash's multiplier: odd, with well-spread bits.
const K: u64 = 0x517c_c1b7_2722_0a95;

impl WordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for WordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // The table indexes by the low bits, and a product's low bits depend only on its
        // factors' low bits: fold the high bits (which every input bit reaches) down.
        self.0 ^ (self.0 >> 32)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_u32(&mut self, v: u32) {
        self.add(u64::from(v));
    }

    #[inline]
    fn write_i32(&mut self, v: i32) {
        self.add(u64::from(v as u32));
    }

    #[inline]
    fn write_u64(&mut self, v: u64) {
        self.add(v);
    }
}

/// A hash map with [`WordHasher`].
pub(crate) type FastMap<K, V> = HashMap<K, V, BuildHasherDefault<WordHasher>>;
