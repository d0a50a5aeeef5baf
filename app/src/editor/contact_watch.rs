//! The watched contact: the one pair of shapes the Contacts panel follows over the whole kept
//! timeline (its points' normal forces, its friction force, its deepest point), beside the
//! engine's trace of a step substep by substep (`World::contact_traces`). The pair is named by
//! its shapes (`PairKey`), not by a contact id, so it is followed while it parts and meets
//! again and into the past. The steps from the first kept one to the step it was picked at are
//! filled in by walking a copy of the world through the history (`Walk`), a slice of time a
//! frame; the steps after it as the world takes them. The engine traces the pair only while it
//! is watched, so an unwatched world steps at full speed.

use super::walk_fill;
use atoll_physics::narrowphase::MAX_MANIFOLD_POINTS;
use atoll_physics::{ContactId, History, PairKey, Walk, World};
use std::collections::BTreeMap;
use std::time::Duration;

/// Steps of the watched contact's history kept: the history's default window.
pub const WATCH_LEN: usize = 10_000;

/// The watched contact at one step: forces are the step's impulses over its duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSample {
    /// The world's step count after the step.
    pub step: u64,
    /// Manifold points (0 when the pair did not touch, or had no contact).
    pub points: u8,
    /// Each point's normal force, N (0 past `points`).
    pub normal: [f32; MAX_MANIFOLD_POINTS],
    /// The friction force at the manifold's centre, N.
    pub friction: f32,
    /// The deepest point's separation, m (negative: overlapping); 0 without points.
    pub separation: f32,
}

impl ContactSample {
    /// The points' normal forces summed, N.
    pub fn total_normal(&self) -> f32 {
        self.normal[..self.points as usize].iter().sum()
    }

    /// The pair in `world` now: its contact `id`'s values, or nothing when it has none.
    fn of(world: &World, id: Option<ContactId>) -> ContactSample {
        let step = world.step_count();
        let none = ContactSample {
            step,
            points: 0,
            normal: [0.0; MAX_MANIFOLD_POINTS],
            friction: 0.0,
            separation: 0.0,
        };
        let Some(view) = id.and_then(|id| world.contact(id).ok()) else { return none };
        let dt = world.settings().dt;
        let points = view.manifold.count;
        let mut normal = [0.0; MAX_MANIFOLD_POINTS];
        for (n, impulse) in normal.iter_mut().zip(&view.impulses).take(points) {
            *n = impulse.normal / dt;
        }
        let separation = view.manifold.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
        ContactSample {
            step,
            points: points as u8,
            normal,
            friction: view.friction_impulse.length() / dt,
            separation: if points == 0 { 0.0 } else { separation },
        }
    }
}

/// The watched pair, its samples and the walk filling in the steps before it was picked.
#[derive(Debug, Default)]
pub struct ContactWatch {
    pair: Option<PairKey>,
    /// The pair's contact in the live world at its step, if it has one.
    contact: Option<ContactId>,
    samples: BTreeMap<u64, ContactSample>,
    fill: Option<Walk>,
}

impl ContactWatch {
    /// The pair watched.
    pub fn pair(&self) -> Option<PairKey> {
        self.pair
    }

    /// The watched pair's contact in the live world, when it has one at the step shown.
    pub fn contact(&self) -> Option<ContactId> {
        self.contact
    }

    /// Watches the pair of `contact` (or nothing) from now on: the engine traces it, its
    /// samples start afresh, and a walk through `history` begins to fill in the kept steps
    /// before this one. A contact the world no longer has is refused.
    pub fn watch(
        &mut self,
        world: &mut World,
        history: &History,
        contact: Option<ContactId>,
    ) -> Result<(), String> {
        let pair = match contact {
            Some(id) => Some(world.contact(id).map_err(|e| e.to_string())?.pair_key()),
            None => None,
        };
        world.set_traced_contacts(contact.as_slice()).map_err(|e| e.to_string())?;
        self.pair = pair;
        self.contact = contact;
        self.samples.clear();
        self.fill = pair.and_then(|_| Walk::new(history, world));
        if pair.is_some() {
            // The step shown is known already; the walk fills the ones before it.
            self.keep(ContactSample::of(world, contact));
        }
        Ok(())
    }

    /// Records the step the world just took (the pair's values, or none while it has no
    /// contact), and traces the pair in the next.
    pub fn record(&mut self, world: &mut World) {
        if self.pair.is_none() {
            return;
        }
        self.follow(world);
        // A step taken again (after a move back along the timeline) replaces its sample.
        self.drop_from(world.step_count());
        self.keep(ContactSample::of(world, self.contact));
    }

    /// Follows the pair into the world as it is now (after a move along the timeline): its
    /// contact there, traced in the next step.
    pub fn follow(&mut self, world: &mut World) {
        let Some(pair) = self.pair else { return };
        self.contact = world.contact_of_pair(&pair);
        if world.traced_contacts() != self.contact.as_slice() {
            // The id exists in this world: it was just read from it.
            let _ = world.set_traced_contacts(self.contact.as_slice());
        }
    }

    /// Fills in kept steps before the pair was picked for at most `budget` (at least one
    /// step). Returns whether steps are left to fill.
    pub fn fill_for(&mut self, budget: Duration) -> bool {
        let Some(pair) = self.pair else { return false };
        let samples = &mut self.samples;
        walk_fill::fill_for(&mut self.fill, budget, |copy| {
            let sample = ContactSample::of(copy, copy.contact_of_pair(&pair));
            // What the live world recorded stands.
            samples.entry(sample.step).or_insert(sample);
        })
    }

    /// The walk's progress: the next step it fills and the last, while it runs.
    pub fn filling(&self) -> Option<(u64, u64)> {
        walk_fill::progress(&self.fill)
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &ContactSample> + '_ {
        self.samples.values()
    }

    /// The timeline discarded its steps after `step`: their samples go, and a walk through the
    /// old timeline stops.
    pub fn discarded_after(&mut self, step: u64) {
        self.samples.split_off(&(step + 1));
        self.fill = None;
    }

    /// Forgets the samples of step `step` and after (the timeline went back before them).
    pub fn drop_from(&mut self, step: u64) {
        self.samples.split_off(&step);
    }

    fn keep(&mut self, sample: ContactSample) {
        self.samples.insert(sample.step, sample);
        while self.samples.len() > WATCH_LEN {
            self.samples.pop_first();
        }
    }
}
