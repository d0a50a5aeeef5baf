//! When a stage runs on the world's threads, and in what blocks: every team threshold and block
//! size of the step in one table, each with the measurement that set it. A stage asks
//! [`helpers_for`] with its amount of work and its threshold; below the threshold the caller's
//! thread does the stage alone (waking a helper costs about what sharing a small stage saves).
//! The solver's own thresholds (`MIN_BATCHES_FOR_TEAM`, the substeps' and colourings') sit in
//! `solver/`, beside the passes they govern.

use std::sync::Arc;

/// Contacts in a block of the narrowphase (whole words of the awake set): a few dozen
/// microseconds of work in a busy pile.
pub(super) const CONTACT_BLOCK: usize = 256;

/// Awake contacts before the narrowphase runs on the world's threads: below this, waking them
/// costs about what they would save.
pub(super) const MIN_CONTACTS_FOR_TEAM: usize = 512;

/// How many full contact updates ahead the narrowphase requests a contact's cache lines: one
/// update takes longer than a load from memory, so two keep each contact's lines arriving
/// before it is read.
pub(super) const PREFETCH_AHEAD: usize = 2;

/// Awake bodies before the proxy update runs on the world's threads (with the helpers
/// lingering between teams, sharing them also keeps a helper awake for the narrowphase after
/// it), and bodies to sweep before the continuous stage does when its helpers have gone to
/// sleep.
pub(super) const MIN_BODIES_FOR_TEAM: usize = 1024;

/// Bodies to sweep before the continuous stage runs on the world's threads while they linger
/// from a team before it (finalising's, from 1024 awake bodies, or the solve's). Each sweep is
/// a fast body's time of impact against what static lies near its path, about a microsecond
/// (the 5000-body free fall sweeps about 95 a step).
pub(super) const MIN_SWEEPS_FOR_TEAM: usize = 32;

/// Bodies to sweep in each block of the continuous stage's team: about 8 µs of work, enough
/// for a block's claim to cost little beside it and few enough for both members to share
/// the free fall's hundred.
pub(super) const SWEEP_BLOCK: usize = 8;

/// Awake bodies before gathering the solver's arrays and finalising run on the world's
/// threads: they do more per body than the proxy update (the rain's 2005 bodies on two threads:
/// finalising 0.028 → 0.018 ms, where the proxy update was 0.015 ms slower shared).
pub(super) const MIN_SOLVER_BODIES_FOR_TEAM: usize = 1024;

/// What a due rebuild of the movable tree counts as, in awake contacts, towards sharing the
/// narrowphase stage it runs beside: a rebuild takes about as long as updating this many
/// (a few hundred microseconds for the free fall's 5000 leaves). It counts only as far as
/// there are contacts to update beside it: alone, one member would do it while the other
/// waited (the chain bridge, with no contacts, rebuilt on a team of two in most steps).
pub(super) const REBUILD_AS_CONTACTS: usize = MIN_CONTACTS_FOR_TEAM;

/// New pairs ahead for which contact creation asks the cache for the pair lookup, the slot and
/// the bodies' list heads (and twice as far ahead, for the bodies).
pub(super) const CREATE_AHEAD: usize = 4;

/// Separated contacts ahead for which the narrowphase's destroying pass, in contact order, asks
/// the cache for the contact and its pair's lookup slot (twice this far) and its neighbours in
/// its bodies' lists (this far).
pub(super) const END_AHEAD: usize = 4;

/// Moved proxies before the pair queries run on the world's threads: two blocks. A query in a
/// pile costs a few microseconds (a hundred-odd tree nodes, a dozen-odd pair lookups), so the
/// rain's 15 moved proxies of a quiet step took 0.05–0.07 ms; from 128, as before, its mean pair
/// query per step on two threads was 0.077–0.088 ms, from 32 it is 0.072–0.078.
pub(super) const MIN_MOVED_FOR_TEAM: usize = 32;

/// Moved proxies before the pair queries run on the world's threads when the helpers are no
/// longer lingering from a team before (`helpers_lingering`): waking them costs more than
/// [`MIN_MOVED_FOR_TEAM`]'s queries save. The chain bridge's 401 moved links, whose queries
/// find only their neighbours (20 µs in all), took 49–179 µs on two threads on the Intel Xeon,
/// with the helper asleep after the serial solve; 44–50 µs with the team's door (which spares
/// the caller the wait for a helper woken too late), 16–21 µs with this threshold too.
pub(super) const MIN_MOVED_TO_WAKE_TEAM: usize = 1024;

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
pub(super) const TOUCHING_BLOCK: usize = 2048;

/// Awake contacts before the touching list's pass runs on the world's threads: below this it
/// takes less time than a helper takes to join.
pub(super) const MIN_CONTACTS_FOR_LIST_TEAM: usize = 4096;
