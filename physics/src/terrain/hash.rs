//! A fixed hasher for chunk coordinates, for the lookups on the ray walk's hot path.
//!
//! The terrain keeps its chunks and masks in B-tree maps, for their coordinate order; a lookup
//! there costs a few dozen key comparisons, which the world ray walk paid several times per
//! chunk it crossed. The hash maps keyed by [`CoordHasher`] answer the same questions in one
//! multiply per coordinate. The hasher has no random seed, so a map's behaviour is the same on
//! every run; no result depends on a map's iteration order (the cache evicts by its own stamps
//! and coordinates, and lists its chunks sorted).

use super::voxel::ChunkCoord;
use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};

/// FxHash's mixing step (rotate, xor, multiply) over the coordinate's words.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CoordHasher(u64);

const K: u64 = 0x517c_c1b7_2722_0a95;

impl CoordHasher {
    #[inline]
    fn add(&mut self, word: u64) {
        self.0 = (self.0.rotate_left(5) ^ word).wrapping_mul(K);
    }
}

impl Hasher for CoordHasher {
    #[inline]
    fn finish(&self) -> u64 {
        // Fold the high bits down: the table indexes by the low bits, and a product's low bits
        // depend only on its factors' low bits.
        self.0 ^ (self.0 >> 32)
    }

    #[inline]
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.add(u64::from(b));
        }
    }

    #[inline]
    fn write_i32(&mut self, v: i32) {
        self.add(u64::from(v as u32));
    }
}

/// A hash map keyed by chunk coordinate with [`CoordHasher`].
pub(crate) type CoordMap<V> = HashMap<ChunkCoord, V, BuildHasherDefault<CoordHasher>>;
