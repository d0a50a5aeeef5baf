//! A growable bit set over dense indices, iterated in index order. The step uses it for the
//! awake sets and the touch-event bits: walking set bits costs one word per 64 indices, so a
//! world of sleeping bodies costs almost nothing, and the order is always ascending.

/// Bits over `0..len`, growing on demand.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct BitSet {
    words: Vec<u64>,
}

impl BitSet {
    /// Bytes of the words held.
    pub fn bytes(&self) -> usize {
        self.words.len() * 8
    }

    /// Makes room for index `i` (never shrinks, so steady-state use does not allocate).
    #[inline]
    pub fn grow_to(&mut self, i: usize) {
        let need = i / 64 + 1;
        if self.words.len() < need {
            self.words.resize(need.next_power_of_two(), 0);
        }
    }

    /// Sets bit `i`.
    #[inline]
    pub fn set(&mut self, i: usize) {
        self.grow_to(i);
        self.words[i / 64] |= 1 << (i % 64);
    }

    /// Clears bit `i`.
    #[inline]
    pub fn clear(&mut self, i: usize) {
        if let Some(w) = self.words.get_mut(i / 64) {
            *w &= !(1 << (i % 64));
        }
    }

    /// Reads bit `i`.
    #[inline]
    pub fn get(&self, i: usize) -> bool {
        self.words.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    /// Clears every bit, keeping the capacity.
    pub fn clear_all(&mut self) {
        self.words.iter_mut().for_each(|w| *w = 0);
    }

    /// Number of set bits.
    pub fn count(&self) -> usize {
        self.words.iter().map(|w| w.count_ones() as usize).sum()
    }

    /// Calls `f` with every set bit in `range`, ascending: a block's share of the set when
    /// threads split its index range (a word at a time, so ranges of whole words cost nothing
    /// at their edges).
    #[inline]
    pub fn for_each_in(&self, range: std::ops::Range<usize>, mut f: impl FnMut(usize)) {
        let end_word = range.end.div_ceil(64).min(self.words.len());
        for k in range.start / 64..end_word {
            let mut word = self.words[k];
            while word != 0 {
                let i = k * 64 + word.trailing_zeros() as usize;
                word &= word - 1;
                if range.contains(&i) {
                    f(i);
                }
            }
        }
    }

    /// The set bits in ascending order.
    pub fn iter(&self) -> Ones<'_> {
        Ones { words: &self.words, index: 0, current: self.words.first().copied().unwrap_or(0) }
    }

    /// Number of 64-bit words; bit `i` lives in word `i / 64`.
    pub fn word_count(&self) -> usize {
        self.words.len()
    }

    /// Word `k` of the set (bits `64 k .. 64 k + 64`), for walking a set one word at a time
    /// while clearing the bits already visited.
    pub fn word(&self, k: usize) -> u64 {
        self.words[k]
    }

    /// Calls `f(word_start, bits)` for each word of the set with a bit in `range` (which starts
    /// a word), its bits outside `range` cleared, ascending: for walks that test 64 members at
    /// a time. A word with none of `range`'s bits costs its load alone.
    #[inline]
    pub fn for_each_word_in(&self, range: std::ops::Range<usize>, mut f: impl FnMut(usize, u64)) {
        debug_assert_eq!(range.start % 64, 0, "a range starts a word");
        for k in range.start / 64..range.end.div_ceil(64) {
            let word_start = k * 64;
            let bits = self.words.get(k).copied().unwrap_or(0) & low_bits(range.end - word_start);
            if bits != 0 {
                f(word_start, bits);
            }
        }
    }

    /// The index of the first set bit at or after `start`, for walking a set while changing it.
    pub fn next_from(&self, start: usize) -> Option<usize> {
        let mut k = start / 64;
        let mut w = *self.words.get(k)? & (u64::MAX << (start % 64));
        loop {
            if w != 0 {
                return Some(k * 64 + w.trailing_zeros() as usize);
            }
            k += 1;
            w = *self.words.get(k)?;
        }
    }
}

/// Iterator over the set bits of a [`BitSet`], ascending.
pub struct Ones<'a> {
    words: &'a [u64],
    index: usize,
    current: u64,
}

impl Iterator for Ones<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        while self.current == 0 {
            self.index += 1;
            self.current = *self.words.get(self.index)?;
        }
        let bit = self.current.trailing_zeros() as usize;
        self.current &= self.current - 1;
        Some(self.index * 64 + bit)
    }
}

/// The lowest `n` bits set (all 64 from `n` = 64 on).
fn low_bits(n: usize) -> u64 {
    if n >= 64 { u64::MAX } else { (1u64 << n) - 1 }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_clear_iterate_in_order() {
        let mut b = BitSet::default();
        for i in [130, 3, 64, 63, 0, 200] {
            b.set(i);
        }
        b.clear(64);
        assert_eq!(b.iter().collect::<Vec<_>>(), vec![0, 3, 63, 130, 200]);
        assert_eq!(b.count(), 5);
        assert!(b.get(130) && !b.get(64) && !b.get(10_000));
        assert_eq!(b.next_from(4), Some(63));
        assert_eq!(b.next_from(131), Some(200));
        assert_eq!(b.next_from(201), None);
        b.clear_all();
        assert_eq!(b.iter().count(), 0);
    }

    #[test]
    fn the_bits_of_a_range_are_those_of_the_whole_set_in_it() {
        let mut b = BitSet::default();
        let mut state = 7u32;
        for _ in 0..300 {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            b.set((state >> 22) as usize);
        }
        let all: Vec<usize> = b.iter().collect();
        for (start, end) in [(0, 1024), (0, 64), (64, 512), (5, 70), (100, 101), (700, 5000), (3, 3)] {
            let mut got = Vec::new();
            b.for_each_in(start..end, |i| got.push(i));
            let expected: Vec<usize> = all.iter().copied().filter(|i| (start..end).contains(i)).collect();
            assert_eq!(got, expected, "{start}..{end}");
        }
        // A word at a time: the same bits, words without any skipped, past the set's end too.
        assert!(b.word_count() * 64 < 5000);
        for (start, end) in [(0, 1024), (0, 64), (64, 512), (64, 70), (128, 129), (640, 5000), (0, 0)] {
            let mut got = Vec::new();
            b.for_each_word_in(start..end, |word_start, mut bits| {
                assert!(bits != 0 && word_start % 64 == 0);
                while bits != 0 {
                    got.push(word_start + bits.trailing_zeros() as usize);
                    bits &= bits - 1;
                }
            });
            let expected: Vec<usize> = all.iter().copied().filter(|i| (start..end).contains(i)).collect();
            assert_eq!(got, expected, "words of {start}..{end}");
        }
        assert_eq!((low_bits(0), low_bits(3), low_bits(64), low_bits(200)), (0, 0b111, u64::MAX, u64::MAX));
    }
}
