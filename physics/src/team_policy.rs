//! When the engine's work runs on the world's threads, and in what blocks: every team threshold
//! and block size in one table, each with the measurement that set it. A stage asks
//! [`helpers_for`] with its amount of work and its threshold; below it the caller's thread does
//! the stage alone (waking a helper costs about what sharing a small stage saves). Blocks are
//! what a member claims at a time: long enough that a claim costs little beside its work,
//! short enough that members finish together. The code that reads each number is named beside
//! it; the scheduling itself is in `parallel/team.rs` and `solver/colour_schedule.rs`.

use std::sync::Arc;

// The step (`world/step/`).

/// Contacts in a block of the narrowphase (whole words of the awake set): a few dozen
/// microseconds of work in a busy pile.
pub(crate) const CONTACT_BLOCK: usize = 256;

/// Awake contacts before the narrowphase runs on the world's threads: below this, waking them
/// costs about what they would save.
pub(crate) const MIN_CONTACTS_FOR_TEAM: usize = 512;

/// Awake bodies before the proxy update runs on the world's threads (with the helpers
/// lingering between teams, sharing them also keeps a helper awake for the narrowphase after
/// it), and bodies to sweep before the continuous stage does when its helpers have gone to
/// sleep.
pub(crate) const MIN_BODIES_FOR_TEAM: usize = 1024;

/// Bodies to sweep before the continuous stage runs on the world's threads while they linger
/// from a team before it (finalising's, from 1024 awake bodies, or the solve's). Each sweep is
/// a fast body's time of impact against what static lies near its path, about a microsecond
/// (the 5000-body free fall sweeps about 95 a step).
pub(crate) const MIN_SWEEPS_FOR_TEAM: usize = 32;

/// Bodies to sweep in each block of the continuous stage's team: about 8 µs of work, enough
/// for a block's claim to cost little beside it and few enough for both members to share
/// the free fall's hundred.
pub(crate) const SWEEP_BLOCK: usize = 8;

/// Awake bodies before gathering the solver's arrays and finalising run on the world's
/// threads: they do more per body than the proxy update (the rain's 2005 bodies on two threads:
/// finalising 0.028 → 0.018 ms, where the proxy update was 0.015 ms slower shared).
pub(crate) const MIN_SOLVER_BODIES_FOR_TEAM: usize = 1024;

/// What a due rebuild of the movable tree counts as, in awake contacts, towards sharing the
/// narrowphase stage it runs beside: a rebuild takes about as long as updating this many
/// (a few hundred microseconds for the free fall's 5000 leaves). It counts only as far as
/// there are contacts to update beside it: alone, one member would do it while the other
/// waited (the chain bridge, with no contacts, rebuilt on a team of two in most steps).
pub(crate) const REBUILD_AS_CONTACTS: usize = MIN_CONTACTS_FOR_TEAM;

/// Moved proxies before the pair queries run on the world's threads: two blocks. A query in a
/// pile costs a few microseconds (a hundred-odd tree nodes, a dozen-odd pair lookups), so the
/// rain's 15 moved proxies of a quiet step took 0.05–0.07 ms; from 128, as before, its mean pair
/// query per step on two threads was 0.077–0.088 ms, from 32 it is 0.072–0.078.
pub(crate) const MIN_MOVED_FOR_TEAM: usize = 32;

/// Moved proxies before the pair queries run on the world's threads when the helpers are no
/// longer lingering from a team before (`helpers_lingering`): waking them costs more than
/// [`MIN_MOVED_FOR_TEAM`]'s queries save. The chain bridge's 401 moved links, whose queries
/// find only their neighbours (20 µs in all), took 49–179 µs on two threads on the Intel Xeon,
/// with the helper asleep after the serial solve; 44–50 µs with the team's door (which spares
/// the caller the wait for a helper woken too late), 16–21 µs with this threshold too.
pub(crate) const MIN_MOVED_TO_WAKE_TEAM: usize = 1024;

/// The world's helper threads `threads`, for a stage of `work` items that needs `min` to be
/// worth sharing (`None`: the caller's thread alone).
pub(crate) fn helpers_for(
    threads: &Option<Arc<rayon::ThreadPool>>,
    work: usize,
    min: usize,
) -> Option<&rayon::ThreadPool> {
    threads.as_deref().filter(|_| work >= min)
}

/// Body slots in a block of the proxy update (whole words of the awake set).
pub(crate) const BODY_BLOCK: usize = 512;

/// Contact slots in a block of the touching list's pass (whole words of the awake set): a few
/// microseconds of work in a busy pile.
pub(crate) const TOUCHING_BLOCK: usize = 2048;

/// Awake contacts before the touching list's pass runs on the world's threads: below this it
/// takes less time than a helper takes to join.
pub(crate) const MIN_CONTACTS_FOR_LIST_TEAM: usize = 4096;

// The solver (`solver/`).

/// Constraint batches (the contacts' and joints' batches as the colourings make them) a solve
/// needs before the world's other threads join it: below this, starting them and the waits
/// between its hundreds of stages cost more than they save. Bodies do not count: a solve of
/// few constraints over many bodies is faster on one thread, since its body stages gain little
/// from a second core and pay for every stage's wait (the free fall's 5000 bodies with 700
/// touching contacts, `step_count free-fall 0 300` on two threads: the solve stage 0.43–0.46 ms
/// on the team, 0.35–0.38 alone, where bodies counted as a sixteenth of a batch each).
pub(crate) const MIN_BATCHES_FOR_TEAM: usize = 256;

/// Awake joints a step needs before the world's other threads join the sorting pass: it costs
/// about 25 ns a joint, and waking a helper about as much as a thousand joints.
pub(crate) const MIN_JOINTS_FOR_TEAM: usize = 2048;

/// Joint slots in a block of the sorting pass (whole words of the awake set).
pub(crate) const SORT_BLOCK: usize = 1024;

/// Bodies in a block of a body stage (integrating velocities or positions).
pub(crate) const BLOCK_BODIES: usize = 512;

/// Batches in a block of the joint fill and store, and the most items (joint batches, or pairs
/// of contact batches) in a block of a colour (`colour_block_len()` in
/// `solver/colour_schedule.rs`): about a few microseconds of work, so the claims and the cache
/// lines passed between cores cost little beside it.
pub(crate) const BLOCK_BATCHES: usize = 32;

/// Blocks a colour is cut into when its items allow (a colour's items are batches of joints, or
/// pairs of batches of contacts) and the team has no parts: enough for each of a few members
/// to take several, so one that finishes early finds more (a colour in one or two blocks is
/// done by one or two members while the rest wait), and small enough that the last block,
/// which one member finishes while the others wait, is short. Sixteen since the contact
/// batches are stored in pairs (each item twice the work it was): the rain's two members
/// waited about a third less at the colours' ends than with eight. The joint scenes' colours
/// are large (the joint grid's are hundreds of batches, cut at [`BLOCK_BATCHES`] either way).
pub(crate) const BLOCKS_PER_COLOUR: usize = 16;

/// Fewest items in a block of a colour without parts: below this a block's claim costs about
/// its work.
pub(crate) const MIN_COLOUR_BLOCK_BATCHES: usize = 4;

/// Blocks a colour of 32 to 64 items is cut into before the cut at the parts' boundaries,
/// when the team has parts (a smaller colour makes one or two blocks of
/// [`MIN_PART_BLOCK_LEN`], a larger one blocks of [`BLOCK_BATCHES`]). A member then does its
/// own part's blocks and leaves the others' to their members, so the blocks need only be small
/// enough for a member that stalls to be relieved of some; each block costs a claim on a cache
/// line the other members claim from too, and a call, about a tenth of a microsecond on the
/// 2-core Intel Xeon, beside 0.4 µs of work in a block of four pairs. With two (a colour of 40
/// pairs split evenly by two parts is a block a part, where it was ten blocks), the two-thread
/// solve took 4–10 % less time than with sixteen on the rain and 5–10 % less on the tumbler
/// in most series of paired runs (one of the tumbler's read 2 % more), the 3D pyramid's and
/// the pyramid field's 0–9 % less.
pub(crate) const PART_BLOCKS_PER_COLOUR: usize = 2;

/// Fewest items in a block of a colour with parts, except a part's last block (and a colour
/// of fewer items, which is one block).
pub(crate) const MIN_PART_BLOCK_LEN: usize = 16;

// The broadphase's pair queries (`broadphase/pairs.rs`).

/// Moved proxies per block of the pair update: some tens of microseconds of queries in a busy
/// pile (a few hundred proxies move there, so small blocks keep the threads evenly loaded).
pub(crate) const QUERY_BLOCK: usize = 16;
