//! Filling the back cache while the world waits: when the world sits at a recorded step (the
//! editor paused there), the states of the steps just before it are rebuilt ahead of time, a
//! slice of time per call, on a copy of the world, so that the steps back a user then takes
//! restore a kept state instead of replaying. A rebuild costs the same steps either way; done
//! ahead, in time the user spends looking, it no longer costs the step back itself. A fill
//! cut short by a step back leaves what it rebuilt in the cache.

use super::History;
use super::back_cache::KeepPlan;
use crate::error::AtollError;
use crate::world::{CompactState, World};
use std::time::{Duration, Instant};

/// A rebuild under way: the copy it steps, the step it was started for, and what it keeps.
#[derive(Clone, Debug)]
pub(super) struct BackFill {
    /// The copy of the world being stepped (the world itself is never touched).
    world: Box<World>,
    /// The step the world was at when the fill started; it serves that step only.
    cursor: u64,
    /// The steps to keep, ascending; the copy stops after the last.
    wanted: Vec<u64>,
    kept: Vec<CompactState>,
    /// What the fill keeps, for the cache to keep those first.
    plan: KeepPlan,
    /// The step the copy started from (a kept state).
    started: u64,
}

/// What [`History::prepare_back`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PrepareReport {
    /// Steps replayed on the copy in this call.
    pub replayed: u64,
    /// The states the back cache can hold before the world's step are all kept now.
    pub ready: bool,
}

impl History {
    /// Prepares stepping back from the step `world` is at: rebuilds, on a copy of the world,
    /// the states of as many steps just before it as the back cache holds (within its segment),
    /// for at most `budget` of time per call; a later call goes on where this one stopped.
    /// Returns whether they are ready. Does nothing (and says not ready) while the world is not
    /// at the step last recorded or sought, since it then is no recorded step.
    pub fn prepare_back(&mut self, world: &World, budget: Duration) -> Result<PrepareReport, AtollError> {
        let start = Instant::now();
        let mut report = PrepareReport::default();
        let Some((cursor, _)) = self.world_at_cursor(world) else {
            self.absorb_back_fill();
            return Ok(report);
        };
        let cursor = cursor.step;
        if self.back_fill.as_ref().is_some_and(|f| f.cursor != cursor) {
            self.absorb_back_fill();
        }
        if self.back_fill.is_none() {
            match self.plan_back_fill(world, cursor)? {
                Some(fill) => self.back_fill = Some(fill),
                None => {
                    report.ready = true;
                    return Ok(report);
                }
            }
        }
        let mut fill = self.back_fill.take().expect("planned above");
        let last = *fill.wanted.last().expect("a fill wants a step");
        while fill.world.step_count() < last && (report.replayed == 0 || start.elapsed() < budget) {
            self.make_inputs(&mut fill.world)?;
            fill.world.step();
            report.replayed += 1;
            let now = fill.world.step_count();
            if self.record_of(now).map(|r| r.hash) != Some(fill.world.current_hash()) {
                return Err(AtollError::invalid(
                    "history replay",
                    format!("step {now} replayed to another state than the one recorded"),
                ));
            }
            if fill.wanted.binary_search(&now).is_ok() {
                fill.kept.push(fill.world.capture());
            }
        }
        if fill.world.step_count() >= last {
            self.back_cache.add(fill.kept, cursor, Some(&fill.plan));
            report.ready = true;
        } else {
            self.back_fill = Some(fill);
        }
        Ok(report)
    }

    /// The fill that would complete the states before `cursor`, or `None` when they are all
    /// kept already.
    fn plan_back_fill(&self, world: &World, cursor: u64) -> Result<Option<BackFill>, AtollError> {
        let Some(record) = self.record_of(cursor).copied() else { return Ok(None) };
        let segment = || self.keyframes.iter().filter(move |k| k.segment == record.segment);
        let Some(segment_start) = segment().next().map(|k| k.step()) else { return Ok(None) };
        let latest = segment().next_back().expect("the segment has a keyframe");
        let stamp = latest.state.structure_stamp();
        let bytes = latest.state.full_bytes();
        let dense = self.back_cache.plan(cursor, cursor, bytes).dense();
        // Keyframes restore at once; every other step just before the cursor is wanted.
        let wanted_step = |s: u64| !self.back_cache.holds(s, stamp) && !segment().any(|k| k.step() == s);
        let low = cursor.saturating_sub(dense).max(segment_start + 1);
        let Some(first) = (low..cursor).find(|&s| wanted_step(s)) else { return Ok(None) };
        let keyframe = segment().rfind(|k| k.step() <= first).expect("the segment starts before");
        let start = self.back_cache.best(keyframe.step(), first, stamp);
        let start_step = start.map_or(keyframe.step(), CompactState::step_count);
        let plan = self.back_cache.plan(cursor, start_step, bytes);
        // On the way there, the checkpoints the plan keeps further back come free.
        let wanted: Vec<u64> =
            (start_step + 1..cursor).filter(|&s| plan.keeps(s) && wanted_step(s)).collect();
        let mut copy = Box::new(world.clone());
        match start {
            Some(state) => copy.restore_compact(state)?,
            None => copy.restore_compact(&keyframe.state.state())?,
        }
        Ok(Some(BackFill { world: copy, cursor, wanted, kept: Vec::new(), plan, started: start_step }))
    }

    /// Ends the fill under way, keeping what it rebuilt: its kept states and the state its copy
    /// reached. They are recorded steps still (each was checked against its record), so when
    /// the world moves on before the fill is done (a step back taken while it runs), the seek
    /// and the next fill start from the furthest of them instead of replaying it all again.
    pub(super) fn absorb_back_fill(&mut self) {
        let Some(mut fill) = self.back_fill.take() else { return };
        let reached = fill.world.step_count();
        let still_recorded = self.record_of(reached).is_some_and(|r| r.hash == fill.world.current_hash());
        if reached > fill.started && still_recorded && !fill.kept.iter().any(|k| k.step_count() == reached) {
            fill.kept.push(fill.world.capture());
        }
        // Only states whose records still stand (an edit may have cut them off since).
        let stamp = fill.world.structure_stamp();
        fill.kept.retain(|k| self.record_of(k.step_count()).is_some() && k.structure_stamp() == stamp);
        if !fill.kept.is_empty() {
            self.back_cache.add(fill.kept, fill.cursor, Some(&fill.plan));
        }
    }
}
