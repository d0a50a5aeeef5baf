//! A slice the threads of one solve share, each reading and writing its own elements within a
//! stage of its [`Team`](super::team::Team).
//!
//! The solver's arrays (velocities, motions, solver bodies, the prepared batches) and the
//! contacts in the narrowphase are written by every thread at once, at elements the graph
//! colouring or the blocks keep apart, and read by all in the next stage. Rust's borrows cannot say "disjoint by colour", so
//! the threads reach the arrays through this raw view; each method states what its caller
//! guarantees. This, the prefetch hint (`prefetch.rs`) and the team's door (`door.rs`) are the
//! engine's `unsafe` primitives; the solver, the step and the broadphase use them in `unsafe` blocks that each
//! state why no other member touches the same element. The reason, measured, is the parallel
//! step's speed-up (`docs/ARCHITECTURE.md`, "Threads").

use std::marker::PhantomData;
use std::ops::Range;

/// A mutably borrowed slice that the members of a team access at disjoint elements.
pub(crate) struct SharedSlice<'a, T> {
    ptr: *mut T,
    len: usize,
    _borrow: PhantomData<&'a mut [T]>,
}

// SAFETY: a `SharedSlice` holds the only borrow of its slice for `'a`, like `&'a mut [T]`, which
// is `Send` and `Sync` for `T: Send`/`T: Sync`. Sharing it between threads only hands out
// accesses through the unsafe methods below, whose callers guarantee that no element is
// written by one thread while another thread reads or writes it (within one stage).
unsafe impl<T: Send> Send for SharedSlice<'_, T> {}
// SAFETY: as above.
unsafe impl<T: Send + Sync> Sync for SharedSlice<'_, T> {}

impl<'a, T> SharedSlice<'a, T> {
    /// Shares `slice` for as long as it is borrowed.
    pub fn new(slice: &'a mut [T]) -> SharedSlice<'a, T> {
        SharedSlice { ptr: slice.as_mut_ptr(), len: slice.len(), _borrow: PhantomData }
    }

    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// The address of element `i`, to prefetch (nothing is read or written through it).
    #[inline(always)]
    pub fn address(&self, i: usize) -> usize {
        assert!(i < self.len, "element {i} of {}", self.len);
        self.ptr.wrapping_add(i) as usize
    }

    /// The whole slice, to read.
    ///
    /// # Safety
    /// No thread writes any element while the returned slice lives.
    #[inline(always)]
    pub unsafe fn as_slice(&self) -> &[T] {
        // SAFETY: the pointer and length come from a live `&'a mut [T]`; the caller guarantees
        // that nothing writes the elements meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }

    /// Elements `range`, to read.
    ///
    /// # Safety
    /// No thread writes these elements while the returned slice lives.
    #[inline(always)]
    pub unsafe fn slice(&self, range: Range<usize>) -> &[T] {
        assert!(range.start <= range.end && range.end <= self.len, "range {range:?} of {}", self.len);
        // SAFETY: in bounds (checked above) of a live `&'a mut [T]`; the caller guarantees
        // that nothing writes these elements meanwhile.
        unsafe { std::slice::from_raw_parts(self.ptr.add(range.start), range.end - range.start) }
    }

    /// Elements `range`, to change.
    ///
    /// # Safety
    /// No other thread reads or writes these elements while the returned slice lives, and the
    /// calling thread does not take them twice.
    #[inline(always)]
    #[allow(clippy::mut_from_ref)]
    pub unsafe fn slice_mut(&self, range: Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len, "range {range:?} of {}", self.len);
        // SAFETY: in bounds (checked above) of a live `&'a mut [T]`; the caller guarantees
        // that no other access to these elements overlaps the returned borrow.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.end - range.start) }
    }
}

impl<T: Copy> SharedSlice<'_, T> {
    /// Element `i`, unchecked: the solver's gathers read eight of these per batch, and checking
    /// each cost 4 % of the joint grid's instructions; the batches' indices are checked once,
    /// when their colouring is built.
    ///
    /// # Safety
    /// `i < len()`, and no other thread writes element `i` until its stage is over.
    #[inline(always)]
    pub unsafe fn read(&self, i: usize) -> T {
        debug_assert!(i < self.len);
        // SAFETY: in bounds and no concurrent write, as the caller guarantees.
        unsafe { self.ptr.add(i).read() }
    }

    /// Sets element `i` to `value`, unchecked (as [`SharedSlice::read`]).
    ///
    /// # Safety
    /// `i < len()`, and no other thread reads or writes element `i` until its stage is over.
    #[inline(always)]
    pub unsafe fn write(&self, i: usize, value: T) {
        debug_assert!(i < self.len);
        // SAFETY: in bounds and no concurrent access, as the caller guarantees; `T: Copy` has
        // nothing to drop.
        unsafe { self.ptr.add(i).write(value) }
    }
}
