//! The atomics and the waiting of the team's protocols (the claims, the team's count of blocks
//! done, the door, the pipeline's progress, the linger): std's, or loom's in a `--cfg loom`
//! build, whose models (`loom_models.rs`) explore every interleaving of this same code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, AtomicUsize, Ordering};

/// One turn of a busy wait: a spin-loop hint (under loom, a yield, which is how loom sees a
/// thread waiting for another).
#[inline(always)]
pub(crate) fn spin_loop() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::hint::spin_loop();
}

/// Gives the core to another thread while waiting long.
#[inline(always)]
pub(crate) fn yield_now() {
    #[cfg(loom)]
    loom::thread::yield_now();
    #[cfg(not(loom))]
    std::thread::yield_now();
}
