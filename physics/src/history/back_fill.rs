//! Filling the back cache while the world waits: when the world sits at a recorded step (the
//! editor paused there), the states of the steps just before it are rebuilt ahead of time on a
//! copy of the world, so that the steps back a user then takes restore a kept state instead of
//! replaying. A rebuild costs the same steps either way; done ahead, in time the user spends
//! looking, it no longer costs the step back itself.
//!
//! A fill runs in slices of time on the caller's thread ([`History::prepare_back`]) or on a
//! thread of its own ([`History::prepare_back_aside`]): a paused editor leaves a core idle, and
//! a whole core rebuilds in the 200 ms between two key presses what slices of a frame rebuild
//! in a second. A fill cut short by a step back leaves what it rebuilt in the cache.

use super::History;
use super::back_cache::KeepPlan;
use crate::error::AtollError;
use crate::recording::Input;
use crate::world::{CompactState, World};
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// The replay a fill runs, with all it needs to check it: it can run on another thread.
#[derive(Debug)]
struct FillJob {
    /// The copy of the world being stepped (the world itself is never touched).
    world: Box<World>,
    /// The steps to keep, ascending; the copy stops after the last.
    wanted: Vec<u64>,
    /// The recorded hashes of the steps after the copy's first, in order.
    hashes: Vec<u64>,
    /// The step of `hashes[0]`.
    first_hashed: u64,
    /// The inputs recorded at the steps the copy goes through.
    inputs: BTreeMap<u64, Arc<[Input]>>,
}

impl FillJob {
    fn last(&self) -> u64 {
        *self.wanted.last().expect("a fill wants a step")
    }

    fn done(&self) -> bool {
        self.world.step_count() >= self.last()
    }

    /// Steps the copy once, checking the step against its record; returns its state when it
    /// is one to keep.
    fn step(&mut self) -> Result<Option<CompactState>, AtollError> {
        make_inputs(&self.inputs, &mut self.world)?;
        self.world.step();
        let now = self.world.step_count();
        let recorded = now.checked_sub(self.first_hashed).and_then(|i| self.hashes.get(i as usize));
        if recorded != Some(&self.world.current_hash()) {
            return Err(AtollError::invalid(
                "history replay",
                format!("step {now} replayed to another state than the one recorded"),
            ));
        }
        Ok(self.wanted.binary_search(&now).is_ok().then(|| self.world.capture()))
    }
}

/// Makes on `world` the inputs of `inputs` recorded at its step, as they were made before the
/// step after it. An input the world refuses means the replay has left the recorded history.
pub(super) fn make_inputs(
    inputs: &BTreeMap<u64, Arc<[Input]>>,
    world: &mut World,
) -> Result<usize, AtollError> {
    let at = world.step_count();
    let Some(inputs) = inputs.get(&at) else { return Ok(0) };
    for input in inputs.iter() {
        input.apply(world).map_err(|e| {
            AtollError::invalid("history replay", format!("the input recorded at step {at} was refused: {e}"))
        })?;
    }
    Ok(inputs.len())
}

/// What a fill on its own thread shares with the history.
#[derive(Debug, Default)]
struct AsideShared {
    /// Set by the history when it no longer wants the fill: the thread ends after its step.
    stop: AtomicBool,
    /// Steps replayed and not yet reported.
    replayed: AtomicU64,
    /// States kept and not yet taken by the history.
    kept: Mutex<Vec<CompactState>>,
}

impl AsideShared {
    fn take(&self) -> (Vec<CompactState>, u64) {
        let kept = std::mem::take(&mut *self.kept.lock().unwrap_or_else(PoisonError::into_inner));
        (kept, self.replayed.swap(0, Ordering::Relaxed))
    }
}

/// A fill on its own thread.
#[derive(Debug)]
struct Aside {
    shared: Arc<AsideShared>,
    handle: Option<JoinHandle<(FillJob, Result<(), AtollError>)>>,
}

impl Aside {
    /// Starts `job` on a thread; when stopped before it is done, the thread leaves the state
    /// its copy reached in `late` (the history takes it as a start for the next fill).
    fn start(job: FillJob, late: Arc<Mutex<Vec<CompactState>>>) -> Result<Aside, AtollError> {
        let shared = Arc::new(AsideShared::default());
        let on_thread = shared.clone();
        let handle = std::thread::Builder::new()
            .name("atoll history fill".into())
            .spawn(move || {
                let mut job = job;
                let mut result = Ok(());
                let started = job.world.step_count();
                loop {
                    if job.done() {
                        break;
                    }
                    if on_thread.stop.load(Ordering::Relaxed) {
                        // What the history did not take before it stopped the fill, and the
                        // state reached, go to the inbox for the next fill.
                        let (mut kept, _) = on_thread.take();
                        let reached = job.world.step_count();
                        if reached > started && !kept.iter().any(|k| k.step_count() == reached) {
                            kept.push(job.world.capture());
                        }
                        late.lock().unwrap_or_else(PoisonError::into_inner).extend(kept);
                        break;
                    }
                    match job.step() {
                        Ok(kept) => {
                            on_thread.replayed.fetch_add(1, Ordering::Relaxed);
                            if let Some(state) = kept {
                                on_thread.kept.lock().unwrap_or_else(PoisonError::into_inner).push(state);
                            }
                        }
                        Err(e) => {
                            result = Err(e);
                            break;
                        }
                    }
                }
                // Done as the history stopped it: nobody takes what it kept but the inbox.
                if on_thread.stop.load(Ordering::Relaxed) {
                    late.lock().unwrap_or_else(PoisonError::into_inner).extend(on_thread.take().0);
                }
                (job, result)
            })
            .map_err(|e| AtollError::invalid("history fill", format!("no thread to prepare on: {e}")))?;
        Ok(Aside { shared, handle: Some(handle) })
    }

    /// Takes the states kept so far and the count of steps replayed since the last call.
    fn take(&self) -> (Vec<CompactState>, u64) {
        self.shared.take()
    }

    /// The job back once its thread has ended (without waiting for it otherwise).
    fn join_if_ended(&mut self) -> Option<(FillJob, Result<(), AtollError>)> {
        if !self.handle.as_ref()?.is_finished() {
            return None;
        }
        let handle = self.handle.take()?;
        Some(
            handle
                .join()
                .unwrap_or_else(|_| panic!("the history's fill thread panicked (a panic in a world's step)")),
        )
    }
}

impl Drop for Aside {
    fn drop(&mut self) {
        // A thread still running ends after its step; nobody waits for it.
        self.shared.stop.store(true, Ordering::Relaxed);
    }
}

/// Where a fill runs.
#[derive(Debug)]
enum Runner {
    /// In slices on the caller's thread.
    Here(FillJob),
    /// On a thread of its own.
    Aside(Aside),
}

/// A rebuild under way: how it runs, the step it was started for, and what it keeps.
#[derive(Debug)]
pub(super) struct BackFill {
    runner: Runner,
    /// The step the world was at when the fill started; it serves that step only.
    cursor: u64,
    /// The states kept so far.
    kept: Vec<CompactState>,
    /// What the fill keeps, for the cache to keep those first.
    plan: KeepPlan,
    /// The step the copy started from (a kept state).
    started: u64,
    /// The structure stamp of the states it rebuilds.
    stamp: u64,
    /// The step the fill is for: the last it rebuilds.
    target: u64,
    /// The world's edit count when the copy was made (for reusing the copy).
    world_edits: u64,
}

/// The fill under way, if any, with what fills leave behind. A copy of a history starts
/// without any of it: it belongs to the history that started the fills.
#[derive(Debug, Default)]
pub(super) struct FillSlot {
    fill: Option<BackFill>,
    /// Fills on their own threads that were stopped and have not ended yet (each ends after
    /// its current step, leaving its states in `late`).
    stopping: Vec<Aside>,
    /// States stopped fills reached, recorded steps all (each was checked), taken by the next
    /// call. Replaced, not emptied, when records go: a thread still running then writes into
    /// the old one.
    late: Arc<Mutex<Vec<CompactState>>>,
    /// The copy of the last fill done, for the next piece at the same step (copying a large
    /// world costs milliseconds of the caller's frame), with the world's edit count when it
    /// was copied: a copy serves while the world is not edited (a seek counts).
    spare: Option<(Box<World>, u64)>,
    /// The step whose plan the cache cannot hold (its states are larger than planned): no
    /// more fills there.
    given_up: Option<u64>,
}

impl FillSlot {
    /// Forgets the fill and what fills leave (the records they rebuild are gone).
    pub fn forget(&mut self) {
        *self = FillSlot::default();
    }

    fn take_late(&self) -> Vec<CompactState> {
        std::mem::take(&mut *self.late.lock().unwrap_or_else(PoisonError::into_inner))
    }

    /// Whether a stopped fill is still running: its state is about to arrive in `late`.
    fn still_stopping(&mut self) -> bool {
        self.stopping.retain(|aside| aside.handle.as_ref().is_some_and(|h| !h.is_finished()));
        !self.stopping.is_empty()
    }

    /// A copy of `world` for a fill: the spare when it still serves, else a new one.
    fn copy_of(&mut self, world: &World) -> Box<World> {
        match self.spare.take() {
            Some((copy, edits))
                if edits == world.edit_count() && copy.structure_stamp() == world.structure_stamp() =>
            {
                copy
            }
            _ => Box::new(world.clone()),
        }
    }
}

impl Clone for FillSlot {
    fn clone(&self) -> Self {
        FillSlot::default()
    }
}

/// What [`History::prepare_back`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrepareReport {
    /// Steps replayed on the copy since the last call.
    pub replayed: u64,
    /// The states the back cache's plan wants before the world's step are all kept now (or
    /// as many as it can hold: states larger than planned leave it short).
    pub ready: bool,
}

/// How [`History::prepare`] runs a fill.
#[derive(Clone, Copy)]
enum Pace {
    /// At most this much of the caller's time per call.
    Slice(Duration),
    /// On a thread of its own.
    Aside,
}

impl History {
    /// Prepares stepping back from the step `world` is at: rebuilds, on a copy of the world,
    /// the states the back cache's plan wants there (the tail just before it and the
    /// checkpoints below, within its segment), a piece at a time (from a kept state to the
    /// wanted step nearest the world's, keeping the wanted ones on the way), for at most
    /// `budget` of time per call; a later call goes on where this one stopped, or with the
    /// next piece. Returns whether they are all kept. Does nothing (and says not ready) while
    /// the world is not at the step last recorded or sought, since it then is no recorded
    /// step.
    pub fn prepare_back(&mut self, world: &World, budget: Duration) -> Result<PrepareReport, AtollError> {
        self.prepare(world, Pace::Slice(budget))
    }

    /// [`History::prepare_back`] on a thread of its own: a call starts a piece on a thread,
    /// and later calls (once a frame, say) take what it has kept so far and, once it is done,
    /// start the next. The caller's thread only copies the world (once a step). A thread ends
    /// with its piece, and after its current step when the world moves on (a seek, a record)
    /// or the history is dropped. Use it where a core is idle while the world waits.
    pub fn prepare_back_aside(&mut self, world: &World) -> Result<PrepareReport, AtollError> {
        self.prepare(world, Pace::Aside)
    }

    fn prepare(&mut self, world: &World, pace: Pace) -> Result<PrepareReport, AtollError> {
        let start = Instant::now();
        let mut report = PrepareReport::default();
        let Some((cursor, _)) = self.world_at_cursor(world) else {
            self.absorb_back_fill();
            return Ok(report);
        };
        let cursor = cursor.step;
        if self.back_fill.fill.as_ref().is_some_and(|f| f.cursor != cursor) {
            self.absorb_back_fill();
        }
        // A fill stopped on its own thread leaves its state a moment later: the next fill
        // starts from it rather than from further back.
        if self.back_fill.still_stopping() {
            return Ok(report);
        }
        self.take_late_states(cursor);
        if self.back_fill.given_up == Some(cursor) {
            report.ready = true;
            return Ok(report);
        }
        if self.back_fill.fill.is_none() {
            match self.plan_back_fill(world, cursor, pace)? {
                Some(fill) => self.back_fill.fill = Some(fill),
                None => {
                    report.ready = true;
                    return Ok(report);
                }
            }
        }
        let mut fill = self.back_fill.fill.take().expect("planned above");
        let done = match &mut fill.runner {
            Runner::Here(job) => {
                let budget = match pace {
                    Pace::Slice(budget) => budget,
                    Pace::Aside => Duration::ZERO,
                };
                while !job.done() && (report.replayed == 0 || start.elapsed() < budget) {
                    fill.kept.extend(job.step()?);
                    report.replayed += 1;
                }
                job.done()
            }
            Runner::Aside(aside) => {
                let ended = aside.join_if_ended();
                let (kept, replayed) = aside.take();
                fill.kept.extend(kept);
                report.replayed = replayed;
                match ended {
                    Some((job, result)) => {
                        result?;
                        let done = job.done();
                        fill.runner = Runner::Here(job);
                        done
                    }
                    None => false,
                }
            }
        };
        if done {
            // One piece of the plan is done; the next call plans the next, if any. Should the
            // cache not hold what the piece was for (states larger than planned), the plan is
            // as done as it gets: no more fills at this step.
            self.back_cache.add(fill.kept, cursor, Some(&fill.plan));
            if !self.back_cache.holds(fill.target, fill.stamp) {
                self.back_fill.given_up = Some(cursor);
                report.ready = true;
            }
            if let Runner::Here(job) = fill.runner {
                self.back_fill.spare = Some((job.world, fill.world_edits));
            }
        } else {
            self.back_fill.fill = Some(fill);
        }
        Ok(report)
    }

    /// Adds to the back cache the states stopped fills left, those whose records still stand.
    fn take_late_states(&mut self, cursor: u64) {
        let mut late = self.back_fill.take_late();
        let Some((plan, stamp)) = self.back_plan(cursor) else { return };
        late.retain(|k| self.record_of(k.step_count()).is_some() && k.structure_stamp() == stamp);
        if !late.is_empty() {
            self.back_cache.add(late, cursor, Some(&plan));
        }
    }

    /// The back cache's plan for stepping back from recorded step `cursor`, with the structure
    /// stamp of its segment's states.
    fn back_plan(&self, cursor: u64) -> Option<(KeepPlan, u64)> {
        let segment = self.record_of(cursor)?.segment;
        let latest = self.keyframes.iter().rfind(|k| k.segment == segment)?;
        let stamp = latest.state.structure_stamp();
        Some((self.keep_plan(cursor, stamp, latest.state.full_bytes())?, stamp))
    }

    /// The fill of the next piece of the plan for stepping back from `cursor` (the wanted step
    /// nearest the cursor that is not kept, and those on the way to it), or `None` when every
    /// state the plan wants is kept.
    fn plan_back_fill(
        &mut self,
        world: &World,
        cursor: u64,
        pace: Pace,
    ) -> Result<Option<BackFill>, AtollError> {
        let Some(record) = self.record_of(cursor).copied() else { return Ok(None) };
        let Some((plan, stamp)) = self.back_plan(cursor) else { return Ok(None) };
        let segment = || self.keyframes.iter().filter(move |k| k.segment == record.segment);
        let Some(segment_start) = segment().next().map(|k| k.step()) else { return Ok(None) };
        // Keyframes restore at once; every other step the plan wants is rebuilt.
        let missing = |s: u64| {
            s > segment_start && !self.back_cache.holds(s, stamp) && !segment().any(|k| k.step() == s)
        };
        let Some(target) = plan.wanted().find(|&s| missing(s)) else { return Ok(None) };
        let keyframe = segment().rfind(|k| k.step() <= target).expect("the segment starts before");
        let start = self.back_cache.best(keyframe.step(), target, stamp);
        let start_step = start.map_or(keyframe.step(), CompactState::step_count);
        let plan = plan.starting_at(start_step);
        let wanted: Vec<u64> = (start_step + 1..=target).filter(|&s| plan.wants(s) && missing(s)).collect();
        let start_state = match start {
            Some(state) => std::borrow::Cow::Borrowed(state),
            None => std::borrow::Cow::Owned(keyframe.state.state()),
        };
        let hashes: Vec<u64> = (start_step + 1..=target)
            .map(|s| self.record_of(s).map(|r| r.hash).expect("the cursor's segment is recorded up to it"))
            .collect();
        let inputs = self.inputs.range(start_step..target).map(|(&at, i)| (at, i.clone())).collect();
        let world_edits = world.edit_count();
        let mut copy = self.back_fill.copy_of(world);
        // A world that made a segment's structural inputs again has a make-up of its own: the
        // segment's kept world first.
        if copy.structure_stamp() != start_state.structure_stamp() {
            copy.restore(&keyframe.base);
        }
        copy.restore_compact(&start_state)?;
        let job = FillJob { world: copy, wanted, hashes, first_hashed: start_step + 1, inputs };
        let runner = match pace {
            Pace::Slice(_) => Runner::Here(job),
            Pace::Aside => Runner::Aside(Aside::start(job, self.back_fill.late.clone())?),
        };
        Ok(Some(BackFill {
            runner,
            cursor,
            kept: Vec::new(),
            plan,
            started: start_step,
            stamp,
            target,
            world_edits,
        }))
    }

    /// Ends the fill under way, keeping what it rebuilt: its kept states and the state its copy
    /// reached (when the copy is at hand: a fill on its own thread is not waited for). They are
    /// recorded steps still (each was checked against its record), so when the world moves on
    /// before the fill is done (a step back taken while it runs), the seek and the next fill
    /// start from the furthest of them instead of replaying it all again.
    pub(super) fn absorb_back_fill(&mut self) {
        let Some(mut fill) = self.back_fill.fill.take() else { return };
        let job = match fill.runner {
            Runner::Here(job) => Some(job),
            Runner::Aside(mut aside) => {
                aside.shared.stop.store(true, Ordering::Relaxed);
                let ended = aside.join_if_ended();
                fill.kept.extend(aside.take().0);
                if ended.is_none() {
                    // It leaves the rest in the inbox when it ends: the next fill waits for it.
                    self.back_fill.stopping.push(aside);
                }
                ended.and_then(|(job, result)| result.is_ok().then_some(job))
            }
        };
        if let Some(job) = job {
            let reached = job.world.step_count();
            let still_recorded = self.record_of(reached).is_some_and(|r| r.hash == job.world.current_hash());
            if reached > fill.started
                && still_recorded
                && !fill.kept.iter().any(|k| k.step_count() == reached)
            {
                fill.kept.push(job.world.capture());
            }
        }
        // Only states whose records still stand (an edit may have cut them off since).
        let stamp = fill.stamp;
        fill.kept.retain(|k| self.record_of(k.step_count()).is_some() && k.structure_stamp() == stamp);
        if !fill.kept.is_empty() {
            self.back_cache.add(fill.kept, fill.cursor, Some(&fill.plan));
        }
    }
}
