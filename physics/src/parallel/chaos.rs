//! Chaos for the thread team's tests: under the `test-support` feature, a test can make every
//! member of every team pause at random at each synchronisation point (before a claim, after a
//! block, before counting its blocks done, before waiting, at the door, before a pipeline
//! unit): a yield, a short spin or a sleep of up to 0.2 ms. Interleavings a quiet machine
//! rarely produces (a member descheduled holding a claim, a helper entering the door as the
//! caller closes it, a part's member late by a whole colour) then happen thousands of times a
//! second, and the determinism tests check that the result never changes
//! (`physics/tests/chaos.rs`). Without the feature, or with chaos off, [`pause`] does nothing;
//! without the feature it compiles to nothing.

/// A synchronisation point may pause here when chaos is on.
#[inline(always)]
pub(crate) fn pause() {
    #[cfg(feature = "test-support")]
    if enabled::SEED.load(std::sync::atomic::Ordering::Relaxed) != 0 {
        enabled::pause();
    }
}

/// Turns chaos on for every team in this process, each thread's pauses drawn from `seed`
/// (`None` turns it off). For tests: the engine's result must not depend on it.
#[cfg(feature = "test-support")]
pub fn set_chaos(seed: Option<u64>) {
    // Zero means off, so a seed of zero is taken as one.
    let seed = seed.map_or(0, |s| s.max(1));
    enabled::SEED.store(seed, std::sync::atomic::Ordering::Relaxed);
}

/// Pauses taken since the process started: sleeps, spins and yields (a test's report that
/// chaos was at work).
#[cfg(feature = "test-support")]
pub fn chaos_pauses() -> [u64; 3] {
    enabled::TAKEN.each_ref().map(|count| count.load(std::sync::atomic::Ordering::Relaxed))
}

#[cfg(feature = "test-support")]
mod enabled {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// The process's chaos seed; 0 while chaos is off.
    pub(super) static SEED: AtomicU64 = AtomicU64::new(0);

    /// Sleeps, spins and yields taken.
    pub(super) static TAKEN: [AtomicU64; 3] = [AtomicU64::new(0), AtomicU64::new(0), AtomicU64::new(0)];

    /// Threads that have drawn pauses so far, to give each its own sequence.
    static THREADS: AtomicU64 = AtomicU64::new(0);

    thread_local! {
        /// This thread's generator state (0 until its first pause).
        static STATE: Cell<u64> = const { Cell::new(0) };
    }

    /// One pause, drawn from this thread's sequence: most points go on at once, a quarter
    /// yield, a few spin for up to some microseconds, one in 256 sleeps up to 0.2 ms.
    #[cold]
    pub(super) fn pause() {
        let draw = STATE.with(|state| {
            let mut x = state.get();
            if x == 0 {
                let thread = THREADS.fetch_add(1, Ordering::Relaxed) + 1;
                x = SEED.load(Ordering::Relaxed) ^ thread.wrapping_mul(0x9e37_79b9_7f4a_7c15);
                x |= 1;
            }
            // xorshift64
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            state.set(x);
            x
        });
        let kind = match draw % 256 {
            0 => {
                std::thread::sleep(Duration::from_micros(10 + (draw >> 8) % 190));
                0
            }
            1..=8 => {
                for _ in 0..(draw >> 8) % 4096 {
                    std::hint::spin_loop();
                }
                1
            }
            9..=72 => {
                std::thread::yield_now();
                2
            }
            _ => return,
        };
        TAKEN[kind].fetch_add(1, Ordering::Relaxed);
    }
}
