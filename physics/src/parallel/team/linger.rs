//! The linger: after a team's work, each helper of the pool keeps its core, waiting, until the
//! next team starts or [`LINGER`] has passed, so the next team of the step has it at once.
//!
//! The protocol ([`Linger`]) is apart from the process's clock and statics so that loom can
//! check it (`parallel/loom_models.rs`, `loom_a_lingering_helper_leaves_when_the_next_team_starts`):
//! a lingering helper's job sits in front of the next team's job in the pool's queue, so a
//! helper that waited past the next team's start would hold that job back; the caller never
//! waits for it (its door closes without it, `parallel/door.rs`), but the team would run short.

use crate::parallel::door::SPINS_BEFORE_YIELD;
use crate::parallel::sync::{self, AtomicU64, Ordering};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// How long a helper keeps its core after a team's work, for the next team of the step. A
/// helper that went to sleep took about 25 µs to join the next team (woken by the system, on
/// the 2-core machine), so each of a step's seven or so teams began on the caller's thread
/// alone, and a short one (gathering the solver's arrays, 40 µs) ended before the helper came.
/// The serial work between two teams of a step is mostly shorter than this.
pub(crate) const LINGER: Duration = Duration::from_micros(200);

/// What the teams of one process share about their lingering helpers.
#[derive(Debug, Default)]
pub(crate) struct Linger {
    /// Teams started: a lingering helper stops waiting once this changes. Relaxed throughout:
    /// it hands no data over, a helper only has to see it change.
    teams_started: AtomicU64,
    /// When the helpers of the last team began to linger, by [`clock`] (0: never).
    began: AtomicU64,
}

impl Linger {
    /// A team starts: every helper still lingering stops.
    pub(crate) fn team_starts(&self) {
        self.teams_started.fetch_add(1, Ordering::Relaxed);
    }

    /// The helpers of the team that just ended begin to linger at `now` (by [`clock`]); returns
    /// the teams started so far, which each of them passes to [`Linger::wait`].
    pub(crate) fn begin(&self, now: u64) -> u64 {
        let started = self.teams_started.load(Ordering::Relaxed);
        self.began.store(now, Ordering::Relaxed);
        started
    }

    /// Waits (spinning) while no team has started since `started` and `expired` says the
    /// helper may linger on.
    pub(crate) fn wait(&self, started: u64, mut expired: impl FnMut() -> bool) {
        while self.teams_started.load(Ordering::Relaxed) == started && !expired() {
            for _ in 0..SPINS_BEFORE_YIELD {
                sync::spin_loop();
            }
        }
    }

    /// Whether the helpers of the last team most likely still linger at `now` (by [`clock`]).
    pub(crate) fn lingering_at(&self, now: u64) -> bool {
        lingering(self.began.load(Ordering::Relaxed), now)
    }
}

/// Whether helpers that began to linger at `began` still do at `now` (both by [`clock`]).
fn lingering(began: u64, now: u64) -> bool {
    began != 0 && now.saturating_sub(began) < LINGER.as_nanos() as u64
}

/// This process's [`Linger`], shared by every world's teams (they share the machine's cores).
#[cfg(not(loom))]
pub(crate) fn shared() -> &'static Linger {
    static SHARED: Linger = Linger { teams_started: AtomicU64::new(0), began: AtomicU64::new(0) };
    &SHARED
}

/// This process's [`Linger`]: under loom, one per model run (loom's atomics are not `const`).
#[cfg(loom)]
pub(crate) fn shared() -> &'static Linger {
    loom::lazy_static! {
        static ref SHARED: Linger = Linger::default();
    }
    &SHARED
}

/// Nanoseconds since the first call in this process, plus one (so 0 means never).
pub(crate) fn clock() -> u64 {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    EPOCH.get_or_init(Instant::now).elapsed().as_nanos() as u64 + 1
}

/// Whether the helpers of the last team are most likely still lingering, so a team started now
/// has them at once. Otherwise a team first wakes them, which only pays for a large stage:
/// 30–100 µs on the 2-core Intel Xeon.
pub(crate) fn helpers_lingering() -> bool {
    shared().lingering_at(clock())
}

/// Keeps each helper of `pool` busy waiting for up to [`LINGER`], until the next team starts
/// (its jobs queue behind these, so a helper that stops waiting takes one at once). Only
/// when every thread has a core of its own: with more threads than cores, a waiting helper
/// would take the core of the thread doing the step's serial work.
pub(crate) fn linger(pool: &rayon::ThreadPool) {
    static CORES: OnceLock<usize> = OnceLock::new();
    let cores = *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    let helpers = pool.current_num_threads();
    if helpers + 1 > cores {
        return;
    }
    let started = shared().begin(clock());
    for _ in 0..helpers {
        pool.spawn(move || {
            let since = Instant::now();
            shared().wait(started, || since.elapsed() >= LINGER);
        });
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn helpers_linger_after_a_team_only_with_a_core_each() {
        let pool = rayon::ThreadPoolBuilder::new().num_threads(1).build().expect("a pool");
        crate::parallel::run_team(Some(&pool), |_| {});
        // A machine of one core has no core spare for a helper. (Whether they still linger
        // now depends on how long this thread was off its core since.)
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(shared().began.load(Ordering::Relaxed) != 0, cores >= 2);
    }

    #[test]
    fn lingering_lasts_linger_from_its_start() {
        let linger = LINGER.as_nanos() as u64;
        assert!(lingering(1000, 1000 + linger - 1));
        assert!(!lingering(1000, 1000 + linger));
        assert!(!lingering(0, 5), "no team yet");
    }

    #[test]
    fn a_helper_waits_until_the_next_team_or_its_deadline() {
        let linger = Linger::default();
        linger.team_starts();
        let started = linger.begin(7);
        assert!(linger.lingering_at(8));
        // Its deadline ends the wait (after three checks here).
        let mut checks = 0;
        linger.wait(started, || {
            checks += 1;
            checks == 3
        });
        assert_eq!(checks, 3);
        // A team started since: the wait ends at once, before any deadline check.
        linger.team_starts();
        linger.wait(started, || panic!("waited after the next team started"));
    }
}
