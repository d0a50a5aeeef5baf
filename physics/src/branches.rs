//! Branches of a timeline: worlds forked from the one being watched at a step, each with its
//! own [`History`], run beside it and compared with it step by step. What a user asks "what
//! would another setting have done here?" with: fork at the step, change the setting in the
//! branch, and play; the branches go on together and [`Branches::log`] holds how far apart
//! their bodies are at every step both reached ([`Divergence`]), the first step where they
//! differ marked ([`Branches::first_difference`]).
//!
//! One branch is *active*: its world and history are the caller's (the editor's live world
//! and timeline), so everything that reads or edits the world works on it unchanged. The
//! others are *parked* here, each a world and a history; [`Branches::follow`] brings them to
//! the active world's step after every step or move along the timeline (replaying what they
//! recorded, stepping on past their end), and [`Branches::switch`] swaps the active branch
//! with a parked one. The history budget is shared: each branch's history gets an equal part
//! of what is left once the parked worlds themselves are counted, so a timeline with branches
//! keeps within the bytes a timeline without them would.

use crate::error::AtollError;
use crate::history::{History, HistorySettings};
use crate::world::{Divergence, World};
use std::collections::BTreeMap;

/// Most branches of one timeline, the active one included: each is a whole world stepped
/// beside the active one, so each costs a step's time and a share of the budget.
pub const MAX_BRANCHES: usize = 8;

/// The bytes a comparison of one step is counted at: the sample with its islands' room.
const SAMPLE_BYTES: usize = std::mem::size_of::<(u64, DivergenceSample)>()
    + crate::world::MAX_DIVERGENT_ISLANDS * std::mem::size_of::<crate::world::IslandDivergence>();

/// Longest branch name, in characters.
pub const MAX_BRANCH_NAME: usize = 64;

/// Names a branch of a [`Branches`]; ids are never reused within one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BranchId(u32);

impl BranchId {
    /// The id's number, as shown to a user ("branch 2").
    pub fn number(self) -> u32 {
        self.0
    }
}

/// What a branch is: its name and where it came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BranchInfo {
    /// Its id.
    pub id: BranchId,
    /// Its name, unique among the branches.
    pub name: String,
    /// The step it was forked at: its first step, the same state as its parent's there.
    pub fork_step: u64,
    /// The branch it was forked from (`None` for the first).
    pub parent: Option<BranchId>,
}

/// The active branch compared with the compared one at one step.
#[derive(Clone, Debug, PartialEq)]
pub struct DivergenceSample {
    /// The branch that was active when the step was compared: the islands named are its.
    pub measured_in: BranchId,
    /// How far apart the two worlds were.
    pub divergence: Divergence,
}

/// A branch not being watched: its world and history, kept at the active world's step.
#[derive(Clone, Debug)]
struct Parked {
    info: BranchInfo,
    world: World,
    history: History,
}

/// A timeline's branches (see the module documentation).
#[derive(Clone, Debug)]
pub struct Branches {
    /// What the histories of all branches may keep together.
    total: HistorySettings,
    active: BranchInfo,
    parked: Vec<Parked>,
    compared: Option<BranchId>,
    /// Per pair of branches compared (the lower id first), the comparison at every step both
    /// reached: a switch and back, or comparing with another branch and back, finds it again.
    logs: BTreeMap<(BranchId, BranchId), BTreeMap<u64, DivergenceSample>>,
    next_id: u32,
}

impl Branches {
    /// One branch named `name` (the caller's world and history), whose histories together keep
    /// within `total`.
    pub fn new(name: &str, total: HistorySettings) -> Result<Branches, AtollError> {
        let name = checked_name(name)?;
        Ok(Branches {
            total,
            active: BranchInfo { id: BranchId(0), name, fork_step: 0, parent: None },
            parked: Vec::new(),
            compared: None,
            logs: BTreeMap::new(),
            next_id: 1,
        })
    }

    /// The active branch.
    pub fn active(&self) -> &BranchInfo {
        &self.active
    }

    /// Every branch, the active one included, by id.
    pub fn infos(&self) -> Vec<&BranchInfo> {
        let mut all: Vec<&BranchInfo> =
            std::iter::once(&self.active).chain(self.parked.iter().map(|p| &p.info)).collect();
        all.sort_by_key(|i| i.id);
        all
    }

    /// How many branches there are, the active one included.
    pub fn len(&self) -> usize {
        1 + self.parked.len()
    }

    /// Whether there is only the active branch.
    pub fn is_empty(&self) -> bool {
        self.parked.is_empty()
    }

    /// The branch compared with the active one, if any.
    pub fn compared(&self) -> Option<&BranchInfo> {
        let id = self.compared?;
        self.parked.iter().find(|p| p.info.id == id).map(|p| &p.info)
    }

    /// The compared branch's world, where [`Branches::follow`] last left it (at the active
    /// world's step, unless that step is before the branch was forked).
    pub fn compared_world(&self) -> Option<&World> {
        let id = self.compared?;
        self.parked.iter().find(|p| p.info.id == id).map(|p| &p.world)
    }

    /// A parked branch's world.
    pub fn world(&self, id: BranchId) -> Result<&World, AtollError> {
        Ok(&self.parked_ref(id)?.world)
    }

    /// A parked branch's history.
    pub fn history(&self, id: BranchId) -> Result<&History, AtollError> {
        Ok(&self.parked_ref(id)?.history)
    }

    /// Forks a branch named `name` off the active one at its world's current step: a copy of
    /// `world` with a history of its own, parked (call [`Branches::switch`] to change things
    /// in it). It becomes the compared branch when there was none. `history` is the active
    /// branch's, whose share of the budget shrinks.
    pub fn fork(&mut self, world: &World, history: &mut History, name: &str) -> Result<BranchId, AtollError> {
        let name = self.fresh_name(name)?;
        if self.len() >= MAX_BRANCHES {
            return Err(AtollError::invalid(
                "branch",
                format!("a timeline holds at most {MAX_BRANCHES} branches; drop one first"),
            ));
        }
        let id = BranchId(self.next_id);
        self.next_id += 1;
        let copy = world.clone();
        let mut own = History::new(self.total);
        own.record(&copy);
        let info = BranchInfo { id, name, fork_step: world.step_count(), parent: Some(self.active.id) };
        self.parked.push(Parked { info, world: copy, history: own });
        if self.compared.is_none() {
            self.compare_with(Some(id))?;
        }
        self.share_budget(history);
        Ok(id)
    }

    /// Keeps what `history` recorded after `world`'s step as a branch named `name`, before an
    /// edit made there discards it from the active branch: a copy of the history (its
    /// recorded future, with the inputs made in it) and a world put back at the step as it
    /// was recorded. It becomes the compared branch, so the old future is drawn beside the
    /// new one. Refused, changing nothing, when the history has no step after it or the
    /// branches are full.
    pub fn keep_future(
        &mut self,
        world: &World,
        history: &History,
        name: &str,
    ) -> Result<BranchId, AtollError> {
        let step = world.step_count();
        if !history.range().is_some_and(|(first, last)| first <= step && step < last) {
            return Err(AtollError::invalid("branch", format!("no recorded step after step {step} to keep")));
        }
        let name = self.fresh_name(name)?;
        if self.len() >= MAX_BRANCHES {
            return Err(AtollError::invalid(
                "branch",
                format!("a timeline holds at most {MAX_BRANCHES} branches; drop one first"),
            ));
        }
        let mut own = history.duplicate();
        let mut copy = world.clone();
        own.seek(&mut copy, step)?;
        let id = BranchId(self.next_id);
        self.next_id += 1;
        let info = BranchInfo { id, name, fork_step: step, parent: Some(self.active.id) };
        self.parked.push(Parked { info, world: copy, history: own });
        self.compare_with(Some(id))?;
        // The budget is shared again at the next follow, once the edit has discarded the
        // active branch's future: sharing it now would evict the active branch's past for
        // steps about to go.
        Ok(id)
    }

    /// Makes branch `to` the active one: its world and history change places with `world`
    /// and `history` (the active branch's, which is parked in its place). The branch compared
    /// before stays compared, unless it is `to`, whose place the old active branch takes.
    pub fn switch(
        &mut self,
        to: BranchId,
        world: &mut World,
        history: &mut History,
    ) -> Result<(), AtollError> {
        let index = self.index_of(to)?;
        let parked = &mut self.parked[index];
        std::mem::swap(world, &mut parked.world);
        std::mem::swap(history, &mut parked.history);
        std::mem::swap(&mut self.active, &mut parked.info);
        if self.compared == Some(to) {
            // The same pair, seen from the other side: its comparisons stand.
            self.compared = Some(parked.info.id);
        }
        Ok(())
    }

    /// Compares the active branch with `id` from now on (`None`: with none). The comparisons
    /// made of each pair are kept while both branches are.
    pub fn compare_with(&mut self, id: Option<BranchId>) -> Result<(), AtollError> {
        if let Some(id) = id {
            self.index_of(id)?;
        }
        self.compared = id;
        Ok(())
    }

    /// Drops parked branch `id` (the active one cannot be dropped: switch away first). Its
    /// share of the budget goes to the others.
    pub fn drop_branch(&mut self, id: BranchId, history: &mut History) -> Result<BranchInfo, AtollError> {
        if id == self.active.id {
            return Err(AtollError::invalid(
                "branch",
                "the active branch cannot be dropped: switch to another first",
            ));
        }
        let index = self.index_of(id)?;
        let dropped = self.parked.remove(index);
        if self.compared == Some(id) {
            self.compared = None;
        }
        self.logs.retain(|&(a, b), _| a != id && b != id);
        self.share_budget(history);
        Ok(dropped.info)
    }

    /// Renames branch `id`.
    pub fn rename(&mut self, id: BranchId, name: &str) -> Result<(), AtollError> {
        let taken = self.infos().iter().any(|i| i.id != id && i.name == name.trim());
        if taken {
            return Err(AtollError::invalid(
                "branch name",
                format!("a branch is named {:?} already", name.trim()),
            ));
        }
        let name = checked_name(name)?;
        if id == self.active.id {
            self.active.name = name;
        } else {
            let index = self.index_of(id)?;
            self.parked[index].info.name = name;
        }
        Ok(())
    }

    /// Brings every parked branch to the step of `world` (the active branch's, just stepped
    /// or moved along `history`): within what a branch recorded by seeking, past its end by
    /// stepping on and recording; a branch forked after that step stays where it is. Then
    /// compares the active world with the compared branch's, when that is at the same step,
    /// and forgets comparisons after the active history's last step (an edit in the past
    /// discarded them).
    pub fn follow(&mut self, world: &World, history: &mut History) -> Result<(), AtollError> {
        let target = world.step_count();
        self.share_budget(history);
        // A branch that cannot follow (its records no longer replay) stays where it is; the
        // others still follow, and the first failure is reported.
        let mut failed = None;
        for parked in &mut self.parked {
            if let Err(e) = parked.bring_to(target) {
                failed.get_or_insert_with(|| {
                    AtollError::invalid("branch", format!("{:?} could not follow: {e}", parked.info.name))
                });
            }
        }
        // Comparisons live as long as the steps the active branch keeps.
        let (first, last) = history.range().map_or((target, target), |(f, l)| (f.min(target), l.max(target)));
        let active = self.active.id;
        for (_, log) in self.logs.iter_mut().filter(|((a, b), _)| *a == active || *b == active) {
            log.retain(|&step, _| (first..=last).contains(&step));
        }
        if let Some(id) = self.compared
            && let Some(other) = self.parked.iter().find(|p| p.info.id == id)
            && other.world.step_count() == target
        {
            let sample = DivergenceSample {
                measured_in: self.active.id,
                divergence: world.divergence_from(&other.world),
            };
            let pair = self.pair().expect("a branch is compared");
            self.logs.entry(pair).or_default().insert(target, sample);
        }
        failed.map_or(Ok(()), Err)
    }

    /// The comparisons of the active branch with the compared one, by step.
    pub fn log(&self) -> &BTreeMap<u64, DivergenceSample> {
        static NONE: BTreeMap<u64, DivergenceSample> = BTreeMap::new();
        self.pair().and_then(|pair| self.logs.get(&pair)).unwrap_or(&NONE)
    }

    /// The pair compared now, the lower id first.
    fn pair(&self) -> Option<(BranchId, BranchId)> {
        let (a, b) = (self.active.id, self.compared?);
        Some((a.min(b), a.max(b)))
    }

    /// Comparisons kept, of every pair.
    fn samples_kept(&self) -> usize {
        self.logs.values().map(BTreeMap::len).sum()
    }

    /// The first step at which the active and the compared branch's bodies differ (a body
    /// apart, or in one world only), among the steps compared.
    pub fn first_difference(&self) -> Option<u64> {
        self.log().iter().find(|(_, s)| s.divergence.differs()).map(|(&step, _)| step)
    }

    /// Bytes the parked branches hold (their worlds and histories) and the comparisons; the
    /// active branch's history is the caller's ([`History::bytes`]).
    pub fn bytes(&self) -> usize {
        let parked: usize = self.parked.iter().map(|p| p.world.heap_estimate() + p.history.bytes()).sum();
        parked + self.samples_kept() * SAMPLE_BYTES
    }

    /// The budget of each branch's history: an equal part of the total left once the parked
    /// worlds and the comparisons are counted.
    pub fn share(&self) -> HistorySettings {
        // The comparisons are kept for at most the window's steps, a log per pair: their
        // room is set aside whole, so the share moves only when branches or pairs come and go.
        let logs = self.logs.len() * self.total.window as usize * SAMPLE_BYTES;
        let held = self.parked.iter().map(|p| p.world.heap_estimate()).sum::<usize>() + logs;
        let lines = self.len();
        let budget = self.total.budget_bytes.saturating_sub(held) / lines;
        let back = (self.total.back_cache_bytes / lines).min(budget / 2);
        HistorySettings { window: self.total.window, budget_bytes: budget, back_cache_bytes: back }
    }

    fn share_budget(&mut self, history: &mut History) {
        let share = self.share();
        for h in std::iter::once(history).chain(self.parked.iter_mut().map(|p| &mut p.history)) {
            if h.settings() != share {
                h.set_budget(share.budget_bytes, share.back_cache_bytes);
            }
        }
    }

    fn index_of(&self, id: BranchId) -> Result<usize, AtollError> {
        self.parked.iter().position(|p| p.info.id == id).ok_or_else(|| {
            let why = if id == self.active.id {
                "is the active branch".to_string()
            } else {
                "does not exist".to_string()
            };
            AtollError::invalid("branch", format!("branch {} {why}", id.0))
        })
    }

    fn parked_ref(&self, id: BranchId) -> Result<&Parked, AtollError> {
        Ok(&self.parked[self.index_of(id)?])
    }

    /// `name` checked and not yet taken.
    fn fresh_name(&self, name: &str) -> Result<String, AtollError> {
        let name = checked_name(name)?;
        if self.infos().iter().any(|i| i.name == name) {
            return Err(AtollError::invalid("branch name", format!("a branch is named {name:?} already")));
        }
        Ok(name)
    }
}

impl Parked {
    /// Seeks or steps the branch to `target` (see [`Branches::follow`]).
    fn bring_to(&mut self, target: u64) -> Result<(), AtollError> {
        if target < self.info.fork_step {
            return Ok(());
        }
        if self.world.step_count() == target && self.history.cursor() == Some(target) {
            return Ok(());
        }
        let Some((_, last)) = self.history.range() else { return Ok(()) };
        if self.history.record_of(target).is_some() {
            self.history.seek(&mut self.world, target)?;
            return Ok(());
        }
        if target < last {
            // Before what the branch still keeps: it waits where it is.
            return Ok(());
        }
        if self.world.step_count() != last || self.history.cursor() != Some(last) {
            self.history.seek(&mut self.world, last)?;
        }
        while self.world.step_count() < target {
            self.history.make_recorded_inputs(&mut self.world)?;
            self.world.step();
            self.history.record(&self.world);
        }
        Ok(())
    }
}

/// A branch name trimmed, refused when empty or longer than [`MAX_BRANCH_NAME`] characters.
fn checked_name(name: &str) -> Result<String, AtollError> {
    let name = name.trim();
    if name.is_empty() {
        return Err(AtollError::invalid("branch name", "a branch needs a name"));
    }
    if name.chars().count() > MAX_BRANCH_NAME {
        return Err(AtollError::invalid("branch name", format!("at most {MAX_BRANCH_NAME} characters")));
    }
    Ok(name.to_string())
}
