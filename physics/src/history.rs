//! History: the recent steps of one world, any of which it can go back to. Determinism makes
//! this cheap: it keeps a compact state ([`CompactState`]) every few steps (a keyframe) and each
//! step's state hash, and rebuilds step `n` by restoring the keyframe at or before `n` and
//! stepping on; the stored hashes check every replayed step.
//!
//! Edits are inputs. A recorded world (one that keeps a tape, as the editor's does) says what
//! they were: the inputs made at a step are kept with the step that follows, and a replay makes
//! them again before stepping on, so pushing, grabbing or moving bodies while the simulation
//! runs costs no keyframe. That holds for inputs that change what the world is made of too (a
//! body or joint made or destroyed, the terrain painted): the step after them starts a new
//! *segment* (every segment has one make-up), with a keyframe and the whole world as it then
//! was (a [`Snapshot`], shared by the keyframes of that make-up), so a seek on either side
//! restores that side's world, and playing on from before them makes them again and crosses
//! into the next segment, step by recorded step. Inputs made at the last recorded step are kept
//! with it until a step follows, so a seek away and back finds them made. Where the inputs are
//! not known (a world without a tape, a state put back from elsewhere), a step recorded after
//! an edit starts a new segment that replays never cross into. An edit made at a step in the
//! past discards the recorded steps after it, as a new edit discards redo history.
//!
//! Going back one step at a time is the common move (step through how a box popped out of a
//! pile), so the history keeps, beside its keyframes, the states a walk back from the current
//! step needs next (`history/back_cache.rs`): seeks keep those they replay through, and while
//! the world waits the rest are rebuilt ahead (`history/back_fill.rs`), so the next steps back
//! restore one of those instead of replaying.
//!
//! Beside each step's counts of what happened ([`StepEvents`]), the history keeps which bodies
//! the kept steps held back (capped or stopped, [`crate::BodyFault`]) as runs of consecutive
//! steps (`history/faults.rs`), so a body can be said to have been capped at a step after the
//! world has moved on from it.

mod back_cache;
mod back_fill;
mod faults;
mod stored;
mod walk;

pub use back_fill::PrepareReport;
pub use faults::{FaultRun, HeldBack};
pub use walk::Walk;

use crate::body::BodyId;
use crate::error::AtollError;
use crate::recording::Input;
use crate::recording::tape::{Logged, TapeMark};
use crate::snapshot::Snapshot;
use crate::world::{BodyFaultKind, CompactState, Energy, World};
use back_cache::BackCache;
use faults::{FAULT_SHARE, FaultRuns};
use std::collections::{BTreeMap, VecDeque};
use std::sync::Arc;
use std::time::{Duration, Instant};
use stored::Stored;

/// How much a [`History`] keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HistorySettings {
    /// The steps kept: older ones are dropped, a keyframe interval at a time.
    pub window: u64,
    /// Bytes everything kept may take (keyframes, kept worlds, the back cache, the bodies held
    /// back, which may take a sixteenth of it): the keyframe interval grows so the window fits.
    pub budget_bytes: usize,
    /// The part of the budget for states kept for stepping back.
    pub back_cache_bytes: usize,
}

impl Default for HistorySettings {
    fn default() -> Self {
        HistorySettings { window: 10_000, budget_bytes: 256 << 20, back_cache_bytes: 64 << 20 }
    }
}

/// One recorded step.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StepRecord {
    /// The world's step count after the step.
    pub step: u64,
    /// The state hash after it ([`crate::state_hash`]).
    pub hash: u64,
    /// The segment it belongs to: steps of one segment follow one another with no edit in
    /// between.
    pub segment: u32,
    /// The step was recorded right after an edit (it starts its segment).
    pub after_edit: bool,
    /// Inputs made just before the step (at the step before it), which a replay makes again.
    pub inputs: u32,
    /// What happened in it, for marks on a timeline.
    pub events: StepEvents,
    /// The dynamic bodies' energy and momentum after it ([`World::energy`]).
    pub energy: Energy,
}

/// Counts of a step's events (the world's event lists after it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StepEvents {
    /// Islands that fell asleep.
    pub fell_asleep: u32,
    /// Islands that woke.
    pub woke: u32,
    /// Joints that broke.
    pub joints_broken: u32,
    /// Pairs that began touching.
    pub touches_began: u32,
    /// Bodies that entered or left a sensor.
    pub sensor_events: u32,
    /// Bodies slowed to a speed cap ([`BodyFaultKind::Capped`]).
    pub bodies_capped: u32,
    /// Bodies stopped for a non-finite state ([`BodyFaultKind::NonFinite`]).
    pub bodies_stopped: u32,
}

impl StepEvents {
    /// The counts of the world's last step.
    pub fn of(world: &World) -> StepEvents {
        let sleep = world.sleep_events();
        let fell_asleep = sleep.iter().filter(|e| e.asleep).count() as u32;
        // A world put back from elsewhere may hold another step's faults.
        let faults = world.body_faults().iter().filter(|f| f.step == world.step_count());
        let (mut bodies_capped, mut bodies_stopped) = (0, 0);
        for f in faults {
            match f.kind {
                BodyFaultKind::Capped => bodies_capped += 1,
                BodyFaultKind::NonFinite => bodies_stopped += 1,
            }
        }
        StepEvents {
            fell_asleep,
            woke: sleep.len() as u32 - fell_asleep,
            joints_broken: (world.joint_events().iter())
                .filter(|e| matches!(e.kind, crate::joint::JointEventKind::Broke { .. }))
                .count() as u32,
            touches_began: world.touch_events().iter().filter(|e| e.began).count() as u32,
            sensor_events: world.sensor_events().len() as u32,
            bodies_capped,
            bodies_stopped,
        }
    }
}

/// A compact state of a recorded step, with what restoring it needs.
#[derive(Clone, Debug)]
struct Keyframe {
    segment: u32,
    state: Stored,
    /// The state's own bytes (summed every step, so kept rather than counted again).
    bytes: usize,
    /// The whole world of the state's structure, to restore first when the world has another.
    base: Arc<Snapshot>,
}

impl Keyframe {
    fn step(&self) -> u64 {
        self.state.step_count()
    }
}

/// A kept world and its estimated bytes.
#[derive(Clone, Debug)]
struct Base {
    world: Arc<Snapshot>,
    bytes: usize,
}

/// What [`History::record`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RecordOutcome {
    /// Recorded steps after the world's step that an edit there discarded.
    pub discarded: u64,
    /// The world's state was recorded as a step (false when it was already, as when a step
    /// replayed from the past matched the one recorded).
    pub recorded: bool,
}

/// What [`History::seek`] did to get there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SeekReport {
    /// Steps replayed.
    pub replayed: u64,
    /// A kept state was restored (a keyframe or one kept for stepping back).
    pub restored: bool,
    /// The whole world was restored first (the structure differed).
    pub rebuilt_structure: bool,
    /// The world is at the step sought (a seek with a time budget may stop short of it, at a
    /// recorded step on the way).
    pub arrived: bool,
}

/// Where the world was last recorded or put: at recorded step `step`, with its edit count and
/// its place on its tape then (the tape tells what was made since).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Cursor {
    step: u64,
    edits: u64,
    mark: Option<TapeMark>,
    /// The world's structure stamp then: the step after inputs that changed it starts a
    /// segment. (Not the segment's keyframe's: a replay that makes a structural input again
    /// gives the world a new stamp for the same make-up, and the steps after the records end
    /// belong to the segment it crossed into.)
    stamp: u64,
}

/// What happened to the world since the cursor, as its tape tells it.
enum SinceCursor {
    /// Inputs made at the cursor's step, nothing else.
    Inputs(Vec<Input>),
    /// Inputs made at the cursor's step, then the step after it.
    Stepped(Vec<Input>),
}

/// The recent steps of one world (see the module documentation).
#[derive(Clone, Debug, Default)]
pub struct History {
    settings: HistorySettings,
    steps: VecDeque<StepRecord>,
    keyframes: VecDeque<Keyframe>,
    /// States kept for stepping back (`history/back_cache.rs`).
    back_cache: BackCache,
    /// The step the world was last recorded or put at: while it still holds, the world is that
    /// step and can step on from it.
    cursor: Option<Cursor>,
    /// The inputs made at a step, by step, for the replays from it to the next.
    inputs: BTreeMap<u64, Arc<[Input]>>,
    /// The bodies the recorded steps held back (`history/faults.rs`).
    faults: FaultRuns,
    next_segment: u32,
    /// Keyframes between two in a segment.
    interval: u64,
    /// The whole world per structure stamp, shared by keyframes.
    bases: Vec<Base>,
    /// The back cache's rebuild under way while the world waits (`history/back_fill.rs`).
    back_fill: back_fill::FillSlot,
}

impl History {
    /// An empty history.
    pub fn new(settings: HistorySettings) -> History {
        History {
            settings,
            interval: 1,
            back_cache: BackCache::new(settings.back_cache_bytes),
            ..Default::default()
        }
    }

    /// The settings.
    pub fn settings(&self) -> HistorySettings {
        self.settings
    }

    /// The recorded steps, oldest first.
    pub fn steps(&self) -> impl ExactSizeIterator<Item = &StepRecord> + '_ {
        self.steps.iter()
    }

    /// The first kept step whose total energy ([`Energy::total`]) rose over the step before it
    /// by more than `share` of that step's (its magnitude), when nothing explains the rise: no
    /// input was made just before it and no edit started its segment there. In a world of
    /// contacts, friction and damped joints nothing should add energy, so such a step is where
    /// a solver went wrong. `None` when no kept step did.
    pub fn find_blow_up(&self, share: f64) -> Option<u64> {
        let mut last: Option<&StepRecord> = None;
        for r in &self.steps {
            if let Some(p) = last
                && p.segment == r.segment
                && p.step + 1 == r.step
                && r.inputs == 0
                && !r.after_edit
            {
                let rise = r.energy.total() - p.energy.total();
                if rise > share * p.energy.total().abs() && rise > 0.0 {
                    return Some(r.step);
                }
            }
            last = Some(r);
        }
        None
    }

    /// The record of step `step`, if it is kept.
    pub fn record_of(&self, step: u64) -> Option<&StepRecord> {
        let first = self.steps.front()?.step;
        self.steps.get(step.checked_sub(first)? as usize)
    }

    /// The first and last recorded steps.
    pub fn range(&self) -> Option<(u64, u64)> {
        Some((self.steps.front()?.step, self.steps.back()?.step))
    }

    /// The step the world was last recorded or put at.
    pub fn cursor(&self) -> Option<u64> {
        self.cursor.map(|c| c.step)
    }

    /// The inputs made at step `step`, which the step after it followed.
    pub fn inputs_at(&self, step: u64) -> &[Input] {
        self.inputs.get(&step).map_or(&[], |inputs| &inputs[..])
    }

    /// The bodies the kept steps held back, as runs of consecutive steps in which a body was
    /// held back the same way (each cut to the kept steps), those that ended first first.
    /// Over a sixteenth of the budget, the runs that ended longest ago are forgotten.
    pub fn fault_runs(&self) -> impl Iterator<Item = &FaultRun> + '_ {
        self.faults.iter()
    }

    /// The runs of [`History::fault_runs`] of body `body`.
    pub fn fault_runs_of(&self, body: BodyId) -> impl Iterator<Item = &FaultRun> + '_ {
        self.faults.iter().filter(move |r| r.body == body)
    }

    /// The first kept step at which the step held body `body` back as `kind`, and at how many
    /// kept steps it did; `None` when it did not.
    pub fn held_back(&self, body: BodyId, kind: BodyFaultKind) -> Option<HeldBack> {
        let mut runs = self.fault_runs_of(body).filter(|r| r.kind == kind);
        let first = runs.next()?;
        let mut held = HeldBack { first: first.first, steps: first.steps() };
        for r in runs {
            held = HeldBack { first: held.first.min(r.first), steps: held.steps + r.steps() };
        }
        Some(held)
    }

    /// Steps between keyframes now (it grows with the size of the world's state).
    pub fn keyframe_interval(&self) -> u64 {
        self.interval
    }

    /// Changes the bytes the history may keep (a timeline with branches shares its budget
    /// among them, `crate::branches`), dropping at once what no longer fits; the window stays.
    pub fn set_budget(&mut self, budget_bytes: usize, back_cache_bytes: usize) {
        self.settings.budget_bytes = budget_bytes;
        self.settings.back_cache_bytes = back_cache_bytes;
        self.back_cache.set_budget(back_cache_bytes);
        self.evict();
    }

    /// A copy that seeks on its own: the kept steps, keyframes and worlds shared (so it costs
    /// the step records and the inputs), no states kept for stepping back, no cursor (its
    /// first seek restores). What a walk through the kept steps (`history/walk.rs`) and a
    /// branch keeping a timeline's recorded future (`crate::branches`) go their own way with.
    pub fn duplicate(&self) -> History {
        History {
            settings: HistorySettings { back_cache_bytes: 0, ..self.settings },
            steps: self.steps.clone(),
            keyframes: self.keyframes.clone(),
            back_cache: BackCache::new(0),
            cursor: None,
            inputs: self.inputs.clone(),
            faults: self.faults.clone(),
            next_segment: self.next_segment,
            interval: self.interval,
            bases: self.bases.clone(),
            back_fill: Default::default(),
        }
    }

    /// Keyframes kept.
    pub fn keyframe_count(&self) -> usize {
        self.keyframes.len()
    }

    /// Bytes the history holds: keyframes, kept worlds, step records, the bodies held back and
    /// the back cache.
    pub fn bytes(&self) -> usize {
        self.keyframe_bytes()
            + self.bases.iter().map(|b| b.bytes).sum::<usize>()
            + self.steps.len() * std::mem::size_of::<StepRecord>()
            + self.faults.bytes()
            + self.inputs.values().map(|i| i.len() * std::mem::size_of::<Input>()).sum::<usize>()
            + self.back_cache.bytes()
    }

    fn keyframe_bytes(&self) -> usize {
        self.keyframes.iter().map(|k| k.bytes).sum()
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = History::new(self.settings);
    }

    /// Records the world as it is now: call it after every step and after every edit. A step
    /// that follows the last recorded one with no edit in between, or with inputs the world's
    /// tape names, is appended (with a keyframe every [`History::keyframe_interval`] steps of
    /// its segment); a step replayed from the past that matches its record (and was made with
    /// the recorded inputs) moves the cursor on. Inputs made at a step in the past that differ
    /// from the recorded ones discard the steps after it at once. After any other edit, or when
    /// the world is at a step in the past and differs from its record, the steps after it are
    /// discarded and a new segment starts there with a keyframe.
    pub fn record(&mut self, world: &World) -> RecordOutcome {
        // A fill under way serves a step the world has left (and one on its own thread would
        // take a core from the world's steps).
        self.absorb_back_fill();
        let step = world.step_count();
        let edits = world.edit_count();
        if let Some(cursor) = self.cursor
            && let Some(since) = self.since_cursor(world, cursor)
        {
            match since {
                SinceCursor::Inputs(inputs) => return self.record_inputs(cursor, &inputs),
                SinceCursor::Stepped(inputs) if step == cursor.step + 1 => {
                    if let Some(outcome) = self.record_step(world, cursor, inputs) {
                        return outcome;
                    }
                }
                SinceCursor::Stepped(_) => {}
            }
        }
        // An edit the tape does not name, a state the records do not lead to, or a world put
        // elsewhere: the records from this step on go (from the step after the cursor when the
        // world went on from it unrecorded), and a new segment starts here. A gap before it
        // cannot be kept: the records are consecutive steps.
        let cursor_step = self.cursor.map(|c| c.step);
        let cut = match cursor_step {
            Some(c) if step > c => c + 1,
            _ => step,
        };
        let mut discarded = self.truncate_from(cut, cursor_step);
        if self.steps.back().is_some_and(|last| last.step + 1 < step) {
            discarded += self.truncate_from(0, None);
        }
        self.next_segment += 1;
        let segment = self.next_segment;
        let events = StepEvents::of(world);
        let hash = world.current_hash();
        let energy = world.energy();
        self.steps.push_back(StepRecord { step, hash, segment, after_edit: true, inputs: 0, events, energy });
        self.faults.record(step, world.body_faults());
        self.add_keyframe(world, segment);
        self.cursor =
            Some(Cursor { step, edits, mark: world.whole_tape_mark(), stamp: world.structure_stamp() });
        self.evict();
        RecordOutcome { discarded, recorded: true }
    }

    /// What the world went through since `cursor`, when that is known: for a world with a tape
    /// still on the cursor's history, the inputs it names (and the step after them); for one
    /// without, nothing (no edit since) and perhaps steps (the caller checks how many). `None`:
    /// something the records cannot follow (an edit of a world without a tape, a restore, more
    /// than a step).
    fn since_cursor(&self, world: &World, cursor: Cursor) -> Option<SinceCursor> {
        let segment = self.record_of(cursor.step)?.segment;
        let keyframe = self.keyframes.iter().rev().find(|k| k.segment == segment)?;
        let Some(mark) = cursor.mark else {
            // No tape: only an unedited world of the same make-up follows on.
            if keyframe.state.structure_stamp() != world.structure_stamp() {
                return None;
            }
            return (world.edit_count() == cursor.edits).then(|| match world.step_count() {
                s if s == cursor.step => SinceCursor::Inputs(Vec::new()),
                _ => SinceCursor::Stepped(Vec::new()),
            });
        };
        let entries = world.tape_since(mark)?;
        let (last, before) = match entries.split_last() {
            Some((last, before)) if matches!(last.what, Logged::Step { .. }) => (Some(last), before),
            _ => (None, entries),
        };
        let mut inputs = Vec::with_capacity(before.len());
        for entry in before {
            match &entry.what {
                Logged::Input(input) if entry.step == cursor.step => inputs.push((**input).clone()),
                _ => return None,
            }
        }
        Some(match last {
            Some(_) => SinceCursor::Stepped(inputs),
            None => SinceCursor::Inputs(inputs),
        })
    }

    /// Inputs made at the cursor's step, before any step: when they are not the inputs the
    /// recorded steps after it were made with, those steps go.
    fn record_inputs(&mut self, cursor: Cursor, inputs: &[Input]) -> RecordOutcome {
        let later = self.range().is_some_and(|(_, last)| last > cursor.step);
        // No input (the world was put back at the cursor): the recorded ones are still to come.
        if inputs.is_empty() || self.inputs_at(cursor.step) == inputs {
            return RecordOutcome::default();
        }
        if !later {
            // At the last recorded step: kept with it until the step after them is recorded,
            // so a seek away and back makes them again (a body added while paused stays).
            self.inputs.insert(cursor.step, inputs.into());
            return RecordOutcome::default();
        }
        let discarded = self.truncate_from(cursor.step + 1, Some(cursor.step));
        RecordOutcome { discarded, recorded: false }
    }

    /// The step after the cursor, made with `inputs`: `None` when it cannot join the cursor's
    /// segment (the records end elsewhere).
    fn record_step(&mut self, world: &World, cursor: Cursor, inputs: Vec<Input>) -> Option<RecordOutcome> {
        let step = world.step_count();
        let hash = world.current_hash();
        let mut discarded = 0;
        if let Some(record) = self.record_of(step).copied() {
            if record.hash == hash && self.inputs_at(cursor.step) == &inputs[..] {
                // Replaying the recorded timeline: nothing to add.
                self.cursor = Some(Cursor {
                    step,
                    edits: world.edit_count(),
                    mark: world.whole_tape_mark(),
                    stamp: world.structure_stamp(),
                });
                return Some(RecordOutcome::default());
            }
            // Another step than the one recorded: the recorded future goes.
            discarded = self.truncate_from(step, Some(cursor.step));
        }
        let last = *self.steps.back()?;
        if last.step != cursor.step {
            return None;
        }
        // Inputs that changed what the world is made of (a body or joint made or destroyed,
        // the terrain painted) end the segment: the step after them starts the next one, with
        // a keyframe and the whole world of its make-up, so every segment has one make-up and
        // a replay from before them crosses into it by making them again.
        let remade = cursor.stamp != world.structure_stamp();
        let segment = if remade {
            self.next_segment += 1;
            self.next_segment
        } else {
            last.segment
        };
        let start = if remade { step } else { self.segment_start(last.segment) };
        let count = inputs.len() as u32;
        if inputs.is_empty() {
            self.inputs.remove(&cursor.step);
        } else {
            self.inputs.insert(cursor.step, inputs.into());
        }
        let events = StepEvents::of(world);
        self.steps.push_back(StepRecord {
            step,
            hash,
            segment,
            after_edit: false,
            inputs: count,
            events,
            energy: world.energy(),
        });
        self.faults.record(step, world.body_faults());
        if (step - start).is_multiple_of(self.interval) {
            self.add_keyframe(world, segment);
        } else if let Some(k) = self.keyframes.back() {
            let bytes = k.state.full_bytes();
            self.back_cache.note_recorded(world, start, self.interval, bytes);
        }
        self.cursor = Some(Cursor {
            step,
            edits: world.edit_count(),
            mark: world.whole_tape_mark(),
            stamp: world.structure_stamp(),
        });
        self.evict();
        Some(RecordOutcome { discarded, recorded: true })
    }

    /// The first step of segment `segment` among the records.
    fn segment_start(&self, segment: u32) -> u64 {
        let mut start = None;
        for r in self.steps.iter().rev() {
            if r.segment != segment {
                break;
            }
            start = Some(r.step);
        }
        start.expect("the segment has records")
    }

    /// Drops the records of step `step` and after; returns how many of them came after the
    /// step the world was at (`cursor`), the ones a user sees discarded.
    fn truncate_from(&mut self, step: u64, cursor: Option<u64>) -> u64 {
        let Some((first, last)) = self.range() else { return 0 };
        if step > last {
            return 0;
        }
        // The steps after the world's: after the cursor when this cuts there, else from here.
        let after = match cursor {
            Some(c) if c == step || c + 1 == step => c + 1,
            _ => step,
        };
        let discarded = (last + 1).saturating_sub(after.max(first));
        // A fill under way rebuilds steps of the records that go.
        self.back_fill.forget();
        if step <= first {
            self.steps.clear();
            self.inputs.clear();
            self.faults.clear();
            self.keyframes.clear();
            self.back_cache.clear();
            self.bases.clear();
            return discarded;
        }
        self.steps.truncate((step - first) as usize);
        self.faults.truncate_from(step);
        // The inputs made at the step before: the step they led to is gone.
        self.inputs.retain(|&at, _| at + 1 < step);
        while self.keyframes.back().is_some_and(|k| k.step() >= step) {
            self.keyframes.pop_back();
        }
        self.back_cache.drop_from(step);
        self.drop_unused_bases();
        discarded
    }

    fn add_keyframe(&mut self, world: &World, segment: u32) {
        let stamp = world.structure_stamp();
        let base = match self.bases.iter().find(|b| b.world.world().structure_stamp() == stamp) {
            Some(base) => base.world.clone(),
            None => {
                let snapshot = world.snapshot_without_scratch();
                let bytes = snapshot.world().heap_estimate();
                let base = Arc::new(snapshot);
                self.bases.push(Base { world: base.clone(), bytes });
                base
            }
        };
        let anchor = self.keyframes.iter().rev().find_map(|k| k.state.whole()).cloned();
        let state = Stored::new(world.capture(), anchor.as_ref());
        let bytes = state.bytes();
        self.keyframes.push_back(Keyframe { segment, state, base, bytes });
        // The interval that keeps the window within the budget at the size keyframes have had
        // lately (changes in a settled pile are small, a tumbling one's are whole states).
        let recent: Vec<usize> = self.keyframes.iter().rev().take(8).map(|k| k.bytes).collect();
        let per_keyframe = (recent.iter().sum::<usize>() / recent.len()).max(1) as u64;
        let fits = (self.keyframe_budget() as u64 / per_keyframe).max(1);
        self.interval = self.settings.window.div_ceil(fits).clamp(1, self.settings.window.max(1));
    }

    /// Keeps the history within its window and budget. Steps beyond the window go, oldest
    /// first, a keyframe at a time (the steps before the new oldest keyframe could not be
    /// rebuilt any more). Over the budget, keyframes are thinned out where they lie closest
    /// (the window stays whole; rebuilding a step there replays longer), and only when every
    /// keyframe starts its segment do the oldest steps go.
    fn evict(&mut self) {
        // The bodies held back first: what they keep is taken from the keyframes' budget.
        self.faults.fit(self.settings.budget_bytes / FAULT_SHARE);
        // Only while the window stays whole without the oldest keyframe's stretch.
        while self.keyframes.len() >= 2
            && self
                .steps
                .back()
                .is_some_and(|last| last.step + 1 - self.keyframes[1].step() >= self.settings.window)
        {
            self.drop_oldest_keyframe();
        }
        while self.keyframe_bytes() > self.keyframe_budget() && self.keyframes.len() >= 2 {
            match self.thinnest() {
                Some(index) => {
                    let removed = self.keyframes.remove(index).expect("index in range");
                    if let Some(anchor) = removed.state.whole() {
                        self.re_anchor(anchor);
                    }
                }
                None => self.drop_oldest_keyframe(),
            }
        }
        self.back_cache.drop_before(self.steps.front().map_or(0, |r| r.step));
        self.drop_unused_bases();
    }

    /// The keyframe whose removal leaves the shortest stretch without one: not the first of
    /// its segment (a segment is rebuilt from its start) and not the newest; the oldest on
    /// ties.
    fn thinnest(&self) -> Option<usize> {
        let k = &self.keyframes;
        (1..k.len().saturating_sub(1)).filter(|&i| k[i - 1].segment == k[i].segment).min_by_key(|&i| {
            let next = if k[i + 1].segment == k[i].segment { k[i + 1].step() } else { k[i].step() };
            (next - k[i - 1].step(), i)
        })
    }

    fn drop_oldest_keyframe(&mut self) {
        let evicted = self.keyframes.pop_front().expect("a keyframe");
        if let Some(anchor) = evicted.state.whole() {
            self.re_anchor(anchor);
        }
        let oldest = self.keyframes.front().map_or(u64::MAX, Keyframe::step);
        while self.steps.front().is_some_and(|r| r.step < oldest) {
            self.steps.pop_front();
        }
        self.faults.drop_before(oldest);
        self.inputs.retain(|&at, _| at >= oldest);
    }

    /// After whole keyframe `anchor` was dropped: the first keyframe stored against it is
    /// stored whole, and the others against that one (else the dropped state would stay in
    /// memory, uncounted, through them).
    fn re_anchor(&mut self, anchor: &Arc<CompactState>) {
        let mut new_anchor: Option<Arc<CompactState>> = None;
        for k in self.keyframes.iter_mut().filter(|k| k.state.is_against(anchor)) {
            let state = k.state.state();
            k.state = match &new_anchor {
                Some(a) => Stored::new(state, Some(a)),
                None => Stored::Whole(Arc::new(state)),
            };
            k.bytes = k.state.bytes();
            if new_anchor.is_none() {
                new_anchor = k.state.whole().cloned();
            }
        }
    }

    /// What the keyframes may take: the budget less the back cache, the kept worlds and the
    /// bodies held back.
    fn keyframe_budget(&self) -> usize {
        let bases: usize = self.bases.iter().map(|b| b.bytes).sum();
        self.settings
            .budget_bytes
            .saturating_sub(self.settings.back_cache_bytes + bases + self.faults.bytes())
    }

    fn drop_unused_bases(&mut self) {
        let keyframes = &self.keyframes;
        self.bases.retain(|b| keyframes.iter().any(|k| Arc::ptr_eq(&k.base, &b.world)));
    }

    /// Puts the world at recorded step `step`: from the world itself when it is at an earlier
    /// step of the same segment and was not edited since (but by the inputs recorded there),
    /// else from the nearest kept state at
    /// or before it, then stepping on. Every replayed step's hash is checked against its
    /// record; a mismatch is reported as an error naming the step (the replay diverged: a
    /// bug, since stepping is deterministic). An unknown step is refused and the world is
    /// unchanged.
    pub fn seek(&mut self, world: &mut World, step: u64) -> Result<SeekReport, AtollError> {
        self.seek_until(world, step, None)
    }

    /// [`History::seek`] within about `budget` of time: once it is spent (and at least one
    /// step was replayed), the world stays at the recorded step it reached on the way, and a
    /// later call goes on from there ([`SeekReport::arrived`] says whether it got there). A
    /// scrub across a timeline stays responsive this way, whatever a replay costs.
    pub fn seek_for(
        &mut self,
        world: &mut World,
        step: u64,
        budget: Duration,
    ) -> Result<SeekReport, AtollError> {
        self.seek_until(world, step, Some(Instant::now() + budget))
    }

    fn seek_until(
        &mut self,
        world: &mut World,
        step: u64,
        deadline: Option<Instant>,
    ) -> Result<SeekReport, AtollError> {
        let Some(record) = self.record_of(step).copied() else {
            let range = self
                .range()
                .map_or("no steps are kept".to_string(), |(a, b)| format!("steps {a}..={b} are kept"));
            return Err(AtollError::invalid("history step", format!("step {step} is not kept ({range})")));
        };
        // A fill under way has rebuilt states the seek may start from.
        self.absorb_back_fill();
        let mut report = SeekReport::default();
        // The world itself, when it is at an earlier recorded step of the segment, edited at
        // most by the inputs recorded there.
        let here = self.world_at_cursor(world).filter(|(c, applied)| {
            c.step <= step
                && self.record_of(c.step).is_some_and(|r| r.segment == record.segment)
                && (applied.is_empty() || (c.step < step && self.inputs_at(c.step) == &applied[..]))
        });
        let keyframe = self
            .keyframes
            .iter()
            .rev()
            .find(|k| k.segment == record.segment && k.step() <= step)
            .expect("every segment starts with a keyframe");
        let stamp = keyframe.state.structure_stamp();
        let keyframe_step = keyframe.step();
        let full_bytes = keyframe.state.full_bytes();
        let cached = self.back_cache.best(keyframe_step, step, stamp);
        let best_kept = cached.map_or(keyframe_step, |s| s.step_count());
        let from_world = here.as_ref().is_some_and(|(c, _)| c.step >= best_kept);
        // The inputs of the world's step are made already when it stands after them.
        let mut inputs_made = from_world && here.is_some_and(|(_, applied)| !applied.is_empty());
        if !from_world {
            if world.structure_stamp() != stamp {
                world.restore(&keyframe.base);
                report.rebuilt_structure = true;
            }
            // Restored in place from what is kept; only a change is rebuilt into a state first.
            match (cached, keyframe.state.whole().map(|s| &**s)) {
                (Some(state), _) | (None, Some(state)) => world.restore_compact(state)?,
                (None, None) => world.restore_compact(&keyframe.state.state())?,
            }
            report.restored = true;
        }
        // Keep some of the replayed states for the steps back that usually follow.
        let plan = self
            .keep_plan(step, stamp, full_bytes)
            .expect("the step is recorded")
            .starting_at(world.step_count());
        let mut kept = Vec::new();
        while world.step_count() < step {
            if report.replayed > 0 && deadline.is_some_and(|d| Instant::now() >= d) {
                break;
            }
            if !inputs_made && let Err(e) = self.make_inputs(world) {
                // Some of the inputs may be made: the world is no recorded step.
                self.cursor = None;
                return Err(e);
            }
            inputs_made = false;
            world.step();
            report.replayed += 1;
            let now = world.step_count();
            let expected = self.record_of(now).map(|r| r.hash);
            if expected != Some(world.current_hash()) {
                self.cursor = None;
                return Err(AtollError::invalid(
                    "history replay",
                    format!("step {now} replayed to another state than the one recorded"),
                ));
            }
            if plan.keeps(now) {
                kept.push(world.capture());
            }
        }
        if !kept.is_empty() {
            self.back_cache.add(kept, step, Some(&plan));
        }
        let now = world.step_count();
        self.cursor = Some(Cursor {
            step: now,
            edits: world.edit_count(),
            mark: world.whole_tape_mark(),
            stamp: world.structure_stamp(),
        });
        report.arrived = now == step;
        // At the last recorded step with inputs made there since (a body added while paused at
        // the live end): made again, after the cursor, so the world stands as it was left.
        if report.arrived && self.record_of(step + 1).is_none() && !self.inputs_at(step).is_empty() {
            self.make_inputs(world)?;
        }
        Ok(report)
    }

    /// What the back cache keeps for stepping back from recorded step `target` (of structure
    /// `stamp`, states about `state_bytes` each): its plan in the keyframe interval around it.
    fn keep_plan(&self, target: u64, stamp: u64, state_bytes: usize) -> Option<back_cache::KeepPlan> {
        let segment = self.record_of(target)?.segment;
        let keyframes: Vec<u64> =
            self.keyframes.iter().filter(|k| k.segment == segment).map(Keyframe::step).collect();
        let last = *keyframes.last()?;
        let span = self.interval.max(target.saturating_sub(last));
        let bytes = state_bytes.max(self.back_cache.largest(stamp));
        Some(self.back_cache.plan(target, &keyframes, span, bytes))
    }

    /// Makes on `world` the inputs recorded at its step, as they were made before the step
    /// after it.
    fn make_inputs(&self, world: &mut World) -> Result<usize, AtollError> {
        back_fill::make_inputs(&self.inputs, world)
    }

    /// The cursor, when the world is still at its step, with the inputs made there since.
    fn world_at_cursor(&self, world: &World) -> Option<(Cursor, Vec<Input>)> {
        let cursor = self.cursor?;
        match self.since_cursor(world, cursor)? {
            SinceCursor::Inputs(applied) if world.step_count() == cursor.step => Some((cursor, applied)),
            _ => None,
        }
    }

    /// Before stepping a world that stands at a recorded step with recorded steps after it:
    /// makes the inputs recorded there, so the step that follows is the recorded one (playing
    /// on from a step in the past goes through the pushes, grabs and moves made the first
    /// time). Returns how many; none when the world is elsewhere or was edited there since.
    pub fn make_recorded_inputs(&mut self, world: &mut World) -> Result<usize, AtollError> {
        match self.world_at_cursor(world) {
            Some((cursor, applied))
                if applied.is_empty()
                    && (self.record_of(cursor.step + 1).is_some()
                        || !self.inputs_at(cursor.step).is_empty()) =>
            {
                self.make_inputs(world)
            }
            _ => Ok(0),
        }
    }
}
