//! [`Stage::Sleep`]: an island whose bodies have all rested long enough falls asleep, read from
//! the sleep timers finalising left (`sleep_timers.rs`).

use super::sleep_timers::IslandTimers;
use crate::body::NONE;
use crate::graph;
use crate::math::Vec3;
use crate::narrowphase::TERRAIN;
#[cfg(doc)]
use crate::profile::Stage;
use crate::world::{SleepEvent, World};

impl World {
    /// [`Stage::Sleep`]: an island sleeps once its slowest-to-rest body has rested `time_to_sleep`.
    /// An island flagged to split waits until the split stage has rebuilt it, so a pile never
    /// sleeps fused to a body that already left it.
    pub(super) fn sleep_islands(&mut self) {
        let s = self.settings;
        // Each awake island's timers from the awake list's copies, in one pass over two dense
        // arrays; an island none of whose bodies is in the list (woken since the gather) has
        // its bodies' timers read through its list. An entry is this pass's once it carries
        // the pass's number (so no pass resets them: on the free fall's 5000 one-body islands
        // that cost as much as the fold). The passes are counted apart from the step count,
        // which going back in time sets back.
        let scratch = &mut self.scratch;
        scratch.sleep_timers.pass += 1;
        let pass = scratch.sleep_timers.pass;
        scratch.sleep_timers.island_timers.resize(self.islands.islands.len(), IslandTimers::NEVER);
        // Bodies of one island mostly come in runs: each run is folded in registers and then
        // into its island's entry (folding every body into the entry made a chain of loads
        // and stores through one address, slower than the list walk on a 10 000-body grid).
        let island_timers = &mut scratch.sleep_timers.island_timers;
        let mut fold_run = |(island, min, max, bodies): (u32, f32, f32, u32)| {
            if island != NONE {
                let entry = &mut island_timers[island as usize];
                *entry = if entry.pass == pass {
                    IslandTimers {
                        pass,
                        min: entry.min.min(min),
                        max: entry.max.max(max),
                        bodies: entry.bodies + bodies,
                    }
                } else {
                    IslandTimers { pass, min, max, bodies }
                };
            }
        };
        let mut run = (NONE, f32::MAX, 0.0f32, 0);
        for (&island, &timer) in scratch.sleep_timers.body_islands.iter().zip(&scratch.sleep_timers.timers) {
            if island == run.0 {
                run = (island, run.1.min(timer), run.2.max(timer), run.3 + 1);
            } else {
                fold_run(run);
                run = (island, timer, timer, 1);
            }
        }
        fold_run(run);
        let mut next = self.islands.next_awake(0);
        while let Some(id) = next {
            next = self.islands.next_awake(id + 1);
            let entry = self.scratch.sleep_timers.island_timers[id as usize];
            let (mut min_timer, mut max_timer) = (entry.min, entry.max);
            // Every body of an awake island is in the awake list unless it was woken since the
            // gather; the count makes sure of it, so a fold that missed a body is never used.
            let whole = entry.pass == pass && entry.bodies == self.islands.islands[id as usize].bodies.count;
            if !whole {
                (min_timer, max_timer) = (f32::MAX, 0.0);
                let island = &self.islands.islands[id as usize];
                for body in island.bodies.iter(&self.bodies.bodies) {
                    let timer = self.bodies.bodies[body as usize].sleep_timer;
                    min_timer = min_timer.min(timer);
                    max_timer = max_timer.max(timer);
                }
            }
            #[cfg(debug_assertions)]
            self.assert_island_timers(id, min_timer, max_timer);
            let island = &mut self.islands.islands[id as usize];
            island.min_sleep_timer = min_timer;
            island.max_sleep_timer = max_timer;
            if s.sleep_enabled && !island.may_split && min_timer >= s.time_to_sleep {
                self.sleep_island(id);
            }
        }
    }

    /// Checks an island's timers as the sleep stage found them against its bodies'.
    #[cfg(debug_assertions)]
    fn assert_island_timers(&self, id: u32, min_timer: f32, max_timer: f32) {
        let island = &self.islands.islands[id as usize];
        let timers =
            island.bodies.iter(&self.bodies.bodies).map(|b| self.bodies.bodies[b as usize].sleep_timer);
        let (min, max) = timers.fold((f32::MAX, 0.0f32), |(lo, hi), t| (lo.min(t), hi.max(t)));
        debug_assert!(
            min == min_timer && max == max_timer,
            "island {id}: timers {min_timer}..{max_timer}, its bodies' {min}..{max}"
        );
    }

    /// Puts an island to sleep: velocities and forces zeroed, bodies leave the awake set, and so
    /// do their contacts unless the other body is still awake.
    fn sleep_island(&mut self, id: u32) {
        self.islands.set_awake(id, false);
        self.sleep_events.push(SleepEvent { island: self.island_id(id), asleep: true });
        let mut body = self.islands.islands[id as usize].bodies.head;
        while body != NONE {
            let b = &mut self.bodies.bodies[body as usize];
            b.awake = false;
            b.linear_velocity = Vec3::ZERO;
            b.angular_velocity = Vec3::ZERO;
            b.force = Vec3::ZERO;
            b.torque = Vec3::ZERO;
            // Its last step moved it after its bounds were taken; neighbours test against these.
            b.tight = crate::world::tight_aabb(b);
            self.awake_bodies.clear(body as usize);
            let (bodies, awake_contacts) = (&self.bodies.bodies, &mut self.awake_contacts);
            graph::for_each_contact(bodies, &self.contacts.contacts, body, |c, other| {
                // The terrain never moves: its contacts sleep with the body.
                if other == TERRAIN || !bodies[other as usize].awake {
                    awake_contacts.clear(c as usize);
                }
            });
            let awake_joints = &mut self.awake_joints;
            graph::for_each_joint(bodies, &self.joints.joints, body, |j, other| {
                // So does a joint to the world or a static or sleeping body.
                if other == NONE || !bodies[other as usize].awake {
                    awake_joints.clear(j as usize);
                }
            });
            body = self.bodies.bodies[body as usize].island.next;
        }
    }
}
