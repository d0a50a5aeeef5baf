//! Asking the cache for memory a loop will read a little later.
//!
//! The contact solver fills and stores its batches in colour order, which visits the contacts
//! (384 bytes each, megabytes in a pile) out of order: half the fill's time on the 3D pyramid
//! was three cache misses per contact. The batches' lanes are known in advance, so the fill
//! asks for the contacts of a batch a few batches ahead and finds them in cache when it gets
//! there: the 3D pyramid's solve stage went from 9.9 to 7.8 ms a step on one thread, the
//! measured reason for this file's `unsafe`.

use std::ops::Range;

/// Bytes in a cache line on the machines the engine runs on (x86-64 and AArch64 alike).
const CACHE_LINE: usize = 64;

/// Starts loading the cache lines of bytes `bytes` of the value at `address` (a range of its
/// field offsets, say) into the first-level cache, without waiting for them and without any
/// effect but timing. Any address is allowed: a prefetch never faults.
#[inline(always)]
pub(crate) fn prefetch_at(address: usize, bytes: Range<usize>) {
    let start = address.wrapping_add(bytes.start);
    let lines = (start % CACHE_LINE + bytes.len()).div_ceil(CACHE_LINE);
    let first = start & !(CACHE_LINE - 1);
    for line in 0..lines {
        prefetch_line(first.wrapping_add(line * CACHE_LINE));
    }
}

/// Starts loading the cache line holding `address`, like [`prefetch_at`] for a line the caller
/// knows (a value aligned to lines, say).
#[inline(always)]
pub(crate) fn prefetch_line_at(address: usize) {
    prefetch_line(address);
}

/// Starts loading the cache line holding `address`. A no-op where no prefetch instruction is
/// wired up (anything but x86-64).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn prefetch_line(address: usize) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has (it is in the
    // target's baseline). A prefetch is a hint: it never faults, whatever the address, and
    // changes no memory and no register the program can see.
    unsafe { _mm_prefetch::<_MM_HINT_T0>(address as *const i8) }
}

/// See the x86-64 version.
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn prefetch_line(_address: usize) {}

#[cfg(test)]
mod tests {
    use super::prefetch_at;

    #[test]
    fn prefetching_changes_nothing_and_accepts_any_address() {
        let values: Vec<[u64; 40]> = (0..10).map(|i| [i; 40]).collect();
        for v in &values {
            prefetch_at(v.as_ptr() as usize, 8..200);
        }
        // Addresses nothing lives at, and a range that wraps around: still only hints.
        prefetch_at(0, 0..4096);
        prefetch_at(usize::MAX - 10, 0..64);
        prefetch_at(usize::MAX - 100, 0..200);
        assert!(values.iter().enumerate().all(|(i, v)| v.iter().all(|&x| x == i as u64)));
    }
}
