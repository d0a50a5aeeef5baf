//! Measures how long one core takes to see a write of another and answer: two threads pass a
//! counter back and forth through one atomic word, and the program prints the median round
//! trip of a few batches, in nanoseconds.
//!
//! The parallel step passes cache lines between its threads at every stage, so this time
//! bounds how well it scales. On a virtual machine the two cores it is given may sit on one
//! chiplet of the host's processor or on two: on the 2-core AMD EPYC machine the round trip
//! was 50–90 ns at some times and 320–380 ns at others, and the rain's solve on two threads
//! took 0.8 ms in the first case and 2.1 ms in the second. Run it beside a benchmark to know
//! which machine the figures came from:
//!
//! `cargo run --release -p atoll-physics --example core_round_trip [batches]`

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

/// Round trips in a batch: enough that the clock's resolution does not matter.
const TRIPS: u64 = 20_000;

fn main() {
    let batches: usize =
        std::env::args().nth(1).map_or(5, |n| n.parse().expect("a number of batches")).max(1);
    let word = AtomicU64::new(0);
    let mut times: Vec<f64> = Vec::with_capacity(batches);
    std::thread::scope(|scope| {
        let word = &word;
        // The other thread answers each odd value with the next even one.
        scope.spawn(move || {
            for trip in 0..batches as u64 * TRIPS {
                while word.load(Ordering::Acquire) != 2 * trip + 1 {
                    std::hint::spin_loop();
                }
                word.store(2 * trip + 2, Ordering::Release);
            }
        });
        for batch in 0..batches as u64 {
            let start = Instant::now();
            for trip in batch * TRIPS..(batch + 1) * TRIPS {
                word.store(2 * trip + 1, Ordering::Release);
                while word.load(Ordering::Acquire) != 2 * trip + 2 {
                    std::hint::spin_loop();
                }
            }
            times.push(start.elapsed().as_secs_f64() * 1e9 / TRIPS as f64);
        }
    });
    times.sort_by(f64::total_cmp);
    let median = times[times.len() / 2];
    println!("core round trip: {median:.0} ns (median of {batches} batches of {TRIPS})");
}
