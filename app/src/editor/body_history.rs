//! Every body's history over the timeline's window, for the Inspector's plots of the selected
//! body: speed, angular speed, height, sleep timer, island and touching contacts. Sampled every
//! `stride` steps, the stride chosen so that every body over the whole window fits
//! [`SAMPLE_BUDGET`] (every step for a few hundred bodies, every 14th for the 2000-box
//! tumbler). Samples follow the timeline: steps it discards lose theirs, and a restart clears
//! them.

use atoll_physics::{BodyId, World};
use std::collections::VecDeque;

/// Bytes the samples of the whole window may take.
pub const SAMPLE_BUDGET: usize = 32 << 20;

/// One body at one step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BodySample {
    /// Speed, m/s.
    pub speed: f32,
    /// Angular speed, rad/s.
    pub angular_speed: f32,
    /// Height of the body's origin, m.
    pub height: f32,
    /// Seconds it has been slow enough to sleep.
    pub sleep_timer: f32,
    /// Its island's index (`u32::MAX` for none: static and kinematic bodies).
    pub island: u32,
    /// Touching contacts.
    pub touching: u32,
}

/// One sampled step: per body slot, the live body there and its sample.
type SampleRow = Vec<Option<(BodyId, BodySample)>>;

/// The samples of every live body at sampled steps, by body slot.
#[derive(Clone, Debug, Default)]
pub struct BodyHistory {
    samples: VecDeque<(u64, SampleRow)>,
    stride: u64,
}

impl BodyHistory {
    /// Steps between two samples.
    pub fn stride(&self) -> u64 {
        self.stride.max(1)
    }

    /// Samples the world after step `world.step_count()` when it falls on the stride, for a
    /// window of `window` steps.
    pub fn record(&mut self, world: &World, window: u64) {
        let slots = world.body_ids().last().map_or(0, |id| id.index() as usize + 1);
        let per_step = slots * std::mem::size_of::<Option<(BodyId, BodySample)>>();
        self.stride = ((per_step as u64 * window).div_ceil(SAMPLE_BUDGET as u64)).max(1);
        let step = world.step_count();
        if !step.is_multiple_of(self.stride) {
            return;
        }
        self.drop_from(step);
        let mut row: SampleRow = vec![None; slots];
        for id in world.body_ids() {
            let Ok(body) = world.body(id) else { continue };
            let island = world.body_island(id).ok().flatten().map_or(u32::MAX, |i| i.index());
            let sample = BodySample {
                speed: body.linear_velocity.length(),
                angular_speed: body.angular_velocity.length(),
                height: body.transform.position.y,
                sleep_timer: world.sleep_timer(id).unwrap_or(0.0),
                island,
                touching: 0,
            };
            row[id.index() as usize] = Some((id, sample));
        }
        for contact in world.touching_contacts() {
            for id in [contact.body_a, contact.body_b] {
                if let Some(Some((live, sample))) = row.get_mut(id.index() as usize)
                    && *live == id
                {
                    sample.touching += 1;
                }
            }
        }
        self.samples.push_back((step, row));
        while self.samples.len() as u64 * self.stride > window + self.stride {
            self.samples.pop_front();
        }
    }

    /// Forgets the samples of step `step` and after (the timeline discarded them).
    pub fn drop_from(&mut self, step: u64) {
        while self.samples.back().is_some_and(|(s, _)| *s >= step) {
            self.samples.pop_back();
        }
    }

    /// Forgets every sample.
    pub fn clear(&mut self) {
        self.samples.clear();
    }

    /// Body `id`'s samples, oldest first, with their steps.
    pub fn of(&self, id: BodyId) -> impl Iterator<Item = (u64, BodySample)> + '_ {
        self.samples.iter().filter_map(move |(step, row)| match row.get(id.index() as usize) {
            Some(Some((live, sample))) if *live == id => Some((*step, *sample)),
            _ => None,
        })
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.samples
            .iter()
            .map(|(_, row)| row.len() * std::mem::size_of::<Option<(BodyId, BodySample)>>())
            .sum()
    }
}
