//! The way into one team for the world's helper threads: a helper may join the team's work
//! only while the door is open, and the caller's thread, once its own work is done, closes it
//! and waits only for the helpers already inside.
//!
//! A team's blocks are claimed by whichever member comes first, so a helper the system has not
//! woken yet is not needed: the caller does its blocks. Waiting for such a helper anyway (a
//! thread pool's scope waits for every job it spawned) cost the caller the helper's wake-up
//! every time it had gone to sleep between two teams: 30–100 µs on the 2-core Intel Xeon,
//! where the chain bridge's pair stage (20 µs of work) took 49–179 µs on two threads.
//!
//! The team's work borrows the caller's stack, which a helper job (run by the pool at any
//! later time) cannot hold by a borrow. The job holds a pointer to it instead, which it reads
//! only between entering and leaving: [`run_gated`] does not return, nor unwind past the
//! borrowed work, before the door is closed and every helper that entered has left. This is
//! the third `unsafe` primitive of `parallel/`, beside `SharedSlice` and the prefetch hint;
//! its measured reason is above.

use super::chaos;
use super::sync::{self, AtomicU32, Ordering};
use std::any::Any;
use std::panic::{AssertUnwindSafe, catch_unwind, resume_unwind};
use std::sync::{Arc, Mutex};

/// Spins (checks) while waiting for a stage (or, for the caller, for the helpers inside the
/// team's door to leave) before a thread yields its core, to a thread the system has not
/// scheduled yet when there are more threads than cores.
pub(crate) const SPINS_BEFORE_YIELD: u32 = 64;

/// The panic a member raises when another member panicked in a block of the stage it waits for:
/// [`crate::parallel::run_team`] raises the first member's own panic rather than this one.
#[derive(Debug)]
pub(crate) struct TeamPoisoned;

/// Set in [`Door::state`] once the caller has closed the door.
const CLOSED: u32 = 1 << 31;

/// The door of one team: whether it is still open and how many helpers are inside.
#[derive(Default)]
pub(crate) struct Door {
    /// [`CLOSED`], and the count of helpers inside in the other bits.
    state: AtomicU32,
    /// The first panic of a helper inside, raised again on the caller's thread (one of its
    /// own, rather than [`TeamPoisoned`], when there is one).
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Door {
    /// Enters if the door is still open; `false` once it is closed.
    pub(crate) fn enter(&self) -> bool {
        let mut state = self.state.load(Ordering::Acquire);
        loop {
            if state & CLOSED != 0 {
                return false;
            }
            match self.state.compare_exchange_weak(state, state + 1, Ordering::AcqRel, Ordering::Acquire) {
                Ok(_) => return true,
                Err(now) => state = now,
            }
        }
    }

    /// Leaves after entering: the helper touches nothing of the team after this.
    pub(crate) fn leave(&self) {
        // Release: the helper's writes happen before the caller sees it gone.
        self.state.fetch_sub(1, Ordering::Release);
    }

    /// Closes the door and returns once every helper inside has left.
    pub(crate) fn close_and_wait(&self) {
        let mut state = self.state.fetch_or(CLOSED, Ordering::AcqRel);
        let mut spins = 0;
        while state & !CLOSED != 0 {
            if spins < SPINS_BEFORE_YIELD {
                spins += 1;
                sync::spin_loop();
            } else {
                sync::yield_now();
            }
            state = self.state.load(Ordering::Acquire);
        }
    }
}

/// Closes the door when dropped, on return or while a panic of the caller's own work unwinds,
/// so the borrowed work outlives every helper inside.
struct CloseOnDrop<'a>(&'a Door);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close_and_wait();
    }
}

/// The team's work as the helper jobs hold it: the borrow's lifetime erased.
struct ErasedWork(*const (dyn Fn(usize) + Sync + 'static));

// SAFETY: the pointee is `Sync`, so calling it from another thread is sound while it lives;
// `run_gated` guarantees it lives whenever a job calls it (between `enter` and `leave`).
unsafe impl Send for ErasedWork {}

impl ErasedWork {
    /// Runs the work for member `index`.
    ///
    /// # Safety
    /// The work's borrow must still be alive: the caller is inside the team's door.
    unsafe fn run(&self, index: usize) {
        // SAFETY: alive, as the caller guarantees.
        unsafe { (*self.0)(index) }
    }
}

/// Runs `work(0)` on the caller's thread and `work(i)` for each `i` in `1..members` on a job of
/// `pool`, but only for the jobs that enter before the door closes, just after the caller's
/// `work(0)` returns; returns once those have finished. A panic in any of them is raised again
/// here: the first that is a member's own rather than [`TeamPoisoned`] (a member's panic in a
/// block makes the others raise that, so none waits forever for its blocks).
pub(crate) fn run_gated(pool: &rayon::ThreadPool, members: usize, work: &(dyn Fn(usize) + Sync)) {
    let door = Arc::new(Door::default());
    let closing = CloseOnDrop(&door);
    // SAFETY: only the lifetime changes (same fat pointer). No helper can hold the borrow past
    // this call: a job dereferences the pointer only between a successful `enter` and its
    // `leave`; `enter` fails once `close_and_wait` has set `CLOSED` (one compare-exchange on
    // the same word, so a job either counted itself in before the close or sees it); and
    // `closing` (dropped on return and while a panic of `work(0)` unwinds) does not return
    // until the count of jobs inside is zero, acquiring each `leave`'s release, so every read
    // of the work happens before this frame goes on. `parallel/loom_models.rs` checks exactly
    // this (`loom_no_helper_holds_the_work_past_the_closed_door`: a helper's read of the lent
    // work and the caller's write after the close never race, in every interleaving). A scoped
    // construct would not do: `rayon::scope` waits for every job it spawned, including those
    // the system has not woken yet (30-100 us a team, see the module docs), and
    // `std::thread::scope` starts threads anew for every team.
    let erased: *const (dyn Fn(usize) + Sync + 'static) = unsafe {
        std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const (dyn Fn(usize) + Sync + 'static)>(
            work,
        )
    };
    for index in 1..members {
        let (door, erased) = (Arc::clone(&door), ErasedWork(erased));
        pool.spawn(move || {
            chaos::pause();
            if !door.enter() {
                return;
            }
            chaos::pause();
            // SAFETY: inside the door, the caller is still in `run_gated` (see above).
            let result = catch_unwind(AssertUnwindSafe(|| unsafe { erased.run(index) }));
            if let Err(payload) = result {
                let mut first = door.panic.lock().unwrap_or_else(|e| e.into_inner());
                if first.as_ref().is_none_or(|kept| kept.is::<TeamPoisoned>()) {
                    *first = Some(payload);
                }
            }
            chaos::pause();
            door.leave();
        });
    }
    let own = catch_unwind(AssertUnwindSafe(|| work(0)));
    chaos::pause();
    drop(closing);
    let helpers = door.panic.lock().unwrap_or_else(|e| e.into_inner()).take();
    match (own, helpers) {
        (Err(own), Some(helper)) if own.is::<TeamPoisoned>() => resume_unwind(helper),
        (Err(own), _) => resume_unwind(own),
        (Ok(()), Some(helper)) => resume_unwind(helper),
        (Ok(()), None) => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;
    use std::time::Duration;

    fn pool(threads: usize) -> rayon::ThreadPool {
        rayon::ThreadPoolBuilder::new().num_threads(threads).build().expect("a pool")
    }

    #[test]
    fn a_helper_that_comes_after_the_caller_is_done_does_not_run() {
        // The only helper is kept busy until the caller has returned: its member never runs,
        // and the caller does not wait for it.
        let pool = pool(1);
        let release = Arc::new(AtomicU32::new(0));
        let busy = Arc::clone(&release);
        pool.spawn(move || {
            while busy.load(Ordering::Acquire) == 0 {
                sync::yield_now();
            }
        });
        let ran = AtomicUsize::new(0);
        run_gated(&pool, 2, &|index| {
            ran.fetch_add(1 << (8 * index), Ordering::Relaxed);
        });
        assert_eq!(ran.load(Ordering::Relaxed), 1, "only the caller's member ran");
        release.store(1, Ordering::Release);
    }

    #[test]
    fn helpers_inside_finish_before_the_caller_returns() {
        // Each member waits for the others to arrive, so all must enter; the caller returns only
        // after the slow helpers are done.
        let pool = pool(3);
        let arrived = AtomicUsize::new(0);
        let finished = AtomicUsize::new(0);
        run_gated(&pool, 4, &|index| {
            arrived.fetch_add(1, Ordering::AcqRel);
            if index == 0 {
                while arrived.load(Ordering::Acquire) < 4 {
                    sync::yield_now();
                }
            } else {
                std::thread::sleep(Duration::from_millis(5 * index as u64));
            }
            finished.fetch_add(1, Ordering::AcqRel);
        });
        assert_eq!(finished.load(Ordering::Acquire), 4);
    }

    #[test]
    fn a_panic_of_the_callers_own_work_waits_for_the_helpers_inside() {
        // The helper enters, then the caller panics: the panic leaves `run_gated` only after
        // the helper, still using the borrowed work, has left.
        let pool = pool(1);
        let entered = AtomicUsize::new(0);
        let helper_done = AtomicUsize::new(0);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            run_gated(&pool, 2, &|index| {
                if index == 1 {
                    entered.store(1, Ordering::Release);
                    std::thread::sleep(Duration::from_millis(20));
                    helper_done.store(1, Ordering::Release);
                } else {
                    while entered.load(Ordering::Acquire) == 0 {
                        sync::yield_now();
                    }
                    panic!("caller failed");
                }
            })
        }));
        let payload = outcome.expect_err("the caller's panic is raised");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"caller failed"));
        assert_eq!(helper_done.load(Ordering::Acquire), 1, "the helper finished first");
    }

    #[test]
    fn a_helpers_panic_reaches_the_caller() {
        let pool = pool(1);
        let arrived = AtomicUsize::new(0);
        let outcome = catch_unwind(AssertUnwindSafe(|| {
            run_gated(&pool, 2, &|index| {
                arrived.fetch_add(1, Ordering::AcqRel);
                if index == 1 {
                    panic!("helper failed");
                }
                while arrived.load(Ordering::Acquire) < 2 {
                    sync::yield_now();
                }
            })
        }));
        let payload = outcome.expect_err("the helper's panic is raised again");
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"helper failed"));
    }
}
