//! The watched contact: the one pair the Contacts panel follows, step by step since it was
//! picked (its points' normal forces, its friction force, its deepest point), beside the
//! engine's trace of its last step substep by substep (`World::contact_traces`). The engine
//! watches it only while it is picked, so an unwatched world steps at full speed.

use atoll_physics::narrowphase::MAX_MANIFOLD_POINTS;
use atoll_physics::{ContactId, World};
use std::collections::VecDeque;

/// Steps of the watched contact's history kept.
pub const WATCH_LEN: usize = 600;

/// The watched contact at one step: forces are the step's impulses over its duration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ContactSample {
    /// The world's step count after the step.
    pub step: u64,
    /// Manifold points (0 when the pair did not touch).
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
}

/// The watched contact and its samples.
#[derive(Clone, Debug, Default)]
pub struct ContactWatch {
    contact: Option<ContactId>,
    samples: VecDeque<ContactSample>,
}

impl ContactWatch {
    /// The contact watched.
    pub fn contact(&self) -> Option<ContactId> {
        self.contact
    }

    /// Watches `contact` (or nothing) from now on: the engine traces it, and its history
    /// starts afresh. A contact the world no longer has is refused.
    pub fn watch(&mut self, world: &mut World, contact: Option<ContactId>) -> Result<(), String> {
        world.set_traced_contacts(contact.as_slice()).map_err(|e| e.to_string())?;
        self.contact = contact;
        self.samples.clear();
        Ok(())
    }

    /// Records the step the world just took. A contact that ended is no longer watched.
    pub fn record(&mut self, world: &mut World) {
        let Some(id) = self.contact else { return };
        if world.traced_contacts() != [id] && world.contact(id).is_ok() {
            // A world put back from a kept state may watch another list: this one again.
            let _ = world.set_traced_contacts(&[id]);
        }
        let Ok(view) = world.contact(id) else {
            self.contact = None;
            let _ = world.set_traced_contacts(&[]);
            return;
        };
        let dt = world.settings().dt;
        let points = view.manifold.count;
        let mut normal = [0.0; MAX_MANIFOLD_POINTS];
        for (n, impulse) in normal.iter_mut().zip(&view.impulses).take(points) {
            *n = impulse.normal / dt;
        }
        let separation = view.manifold.points().iter().map(|p| p.separation).fold(f32::INFINITY, f32::min);
        // A step taken again (after a move back along the timeline) replaces its sample.
        self.drop_from(world.step_count());
        if self.samples.len() == WATCH_LEN {
            self.samples.pop_front();
        }
        self.samples.push_back(ContactSample {
            step: world.step_count(),
            points: points as u8,
            normal,
            friction: view.friction_impulse.length() / dt,
            separation: if points == 0 { 0.0 } else { separation },
        });
    }

    /// The samples, oldest first.
    pub fn samples(&self) -> impl ExactSizeIterator<Item = &ContactSample> + '_ {
        self.samples.iter()
    }

    /// Forgets the samples of step `step` and after (the timeline went back before them).
    pub fn drop_from(&mut self, step: u64) {
        while self.samples.back().is_some_and(|s| s.step >= step) {
            self.samples.pop_back();
        }
    }
}
