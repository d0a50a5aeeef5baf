//! The island stages of the step (link, sleep, split), waking, and the island query API.

use super::wake::WakeCause;
use super::{World, graph};
use crate::body::{BodyId, BodyType, NONE};
use crate::error::AtollError;
use crate::island::{Island, reference_islands};
use crate::math::Vec3;
use crate::narrowphase::TERRAIN;

crate::id::generational_id!(
    /// Names an island: its slot plus the slot's generation. An island absorbed by a merge or
    /// emptied keeps no id: its id is refused afterwards, even once the slot is reused. A split
    /// keeps the id for the part holding the island's first body.
    IslandId
);

/// An island as the world reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IslandView {
    /// The island's id.
    pub id: IslandId,
    /// Dynamic bodies in it.
    pub body_count: u32,
    /// Touching contacts between its bodies.
    pub contact_count: u32,
    /// Enabled joints between its bodies.
    pub joint_count: u32,
    /// False while it sleeps.
    pub awake: bool,
    /// Smallest sleep timer of its bodies at the last sleep check, seconds.
    pub min_sleep_timer: f32,
    /// An edge left it since it was last built; it will be rebuilt (split) before it sleeps.
    pub may_split: bool,
}

/// An island fell asleep or woke up during the last step (or through an edit).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SleepEvent {
    /// The island.
    pub island: IslandId,
    /// True when it fell asleep, false when it woke.
    pub asleep: bool,
}

/// The smallest and largest sleep timer of an island's bodies in the awake list, and how many
/// they were, as sleep stage number `pass` folded them.
#[derive(Clone, Copy, Debug)]
pub(crate) struct IslandTimers {
    pass: u64,
    min: f32,
    max: f32,
    bodies: u32,
}

impl IslandTimers {
    /// An entry no pass has written (the passes count from 1).
    const NEVER: IslandTimers = IslandTimers { pass: 0, min: f32::MAX, max: 0.0, bodies: 0 };
}

impl World {
    /// Wakes the island of body slot `body` (static and kinematic bodies have none) for
    /// `cause`.
    pub(crate) fn wake(&mut self, body: u32, cause: WakeCause) {
        let island = self.bodies.bodies[body as usize].island.id;
        if island != NONE {
            self.wake_island(island, cause);
        }
    }

    /// Wakes a sleeping island: its bodies and their contacts rejoin the awake sets, and it
    /// remembers `cause` and the step.
    pub(crate) fn wake_island(&mut self, id: u32, cause: WakeCause) {
        if self.islands.islands[id as usize].awake {
            return;
        }
        self.islands.set_awake(id, true);
        // Woken inside a step: the step it belongs to is the one being taken.
        let step = self.step_count + u64::from(self.stepping);
        self.islands.islands[id as usize].woke = Some((cause, step));
        self.sleep_events.push(SleepEvent { island: self.island_id(id), asleep: false });
        let mut body = self.islands.islands[id as usize].bodies.head;
        while body != NONE {
            let b = &mut self.bodies.bodies[body as usize];
            b.awake = true;
            b.sleep_timer = 0.0;
            self.awake_bodies.set(body as usize);
            let awake_contacts = &mut self.awake_contacts;
            let contacts = &self.contacts.contacts;
            let scratch = &mut self.scratch;
            graph::for_each_contact(&self.bodies.bodies, contacts, body, |c, _| {
                awake_contacts.set(c as usize);
                // A contact woken after this step's narrowphase joins the solve with the
                // state it slept with.
                scratch.note_woken_contact(c, &contacts[c as usize]);
            });
            let awake_joints = &mut self.awake_joints;
            graph::for_each_joint(&self.bodies.bodies, &self.joints.joints, body, |j, _| {
                awake_joints.set(j as usize)
            });
            body = self.bodies.bodies[body as usize].island.next;
        }
    }

    /// The id of live island slot `index`.
    pub(super) fn island_id(&self, index: u32) -> IslandId {
        IslandId::new(index, self.islands.islands[index as usize].generation)
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
            b.tight = super::tight_aabb(b);
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

    /// [`crate::Stage::Islands`]: walk the begin/end bits in contact order. A begin between two dynamic bodies
    /// links (and so merges and wakes) their islands; a begin with a kinematic body wakes the
    /// dynamic one's island; an end unlinks the edge.
    pub(super) fn update_islands(&mut self) {
        let mut next = self.began_bits.next_from(0);
        while let Some(id) = next {
            let c = &self.contacts.contacts[id];
            let (a, b) = (c.body_a, c.body_b);
            // The terrain is static: touching it links and wakes nothing.
            if b == TERRAIN {
                next = self.began_bits.next_from(id + 1);
                continue;
            }
            let (ta, tb) =
                (self.bodies.bodies[a as usize].body_type, self.bodies.bodies[b as usize].body_type);
            let (ida, idb) = (self.cause_body(a), self.cause_body(b));
            if ta == BodyType::Dynamic && tb == BodyType::Dynamic {
                self.wake(a, WakeCause::Contact { body: ida, other: idb });
                self.wake(b, WakeCause::Contact { body: idb, other: ida });
                self.islands.link(&mut super::body_graph!(self), id as u32);
            } else if ta == BodyType::Kinematic || tb == BodyType::Kinematic {
                self.wake(a, WakeCause::Kinematic { body: ida, kinematic: idb });
                self.wake(b, WakeCause::Kinematic { body: idb, kinematic: ida });
            }
            next = self.began_bits.next_from(id + 1);
        }
        for id in self.ended_bits.iter() {
            self.islands.unlink(&mut self.contacts.contacts, id as u32);
        }
        self.began_bits.clear_all();
        self.ended_bits.clear_all();
    }

    /// [`crate::Stage::Sleep`]: an island sleeps once its slowest-to-rest body has rested `time_to_sleep`.
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
        scratch.sleep_pass += 1;
        let pass = scratch.sleep_pass;
        scratch.island_timers.resize(self.islands.islands.len(), IslandTimers::NEVER);
        // Bodies of one island mostly come in runs: each run is folded in registers and then
        // into its island's entry (folding every body into the entry made a chain of loads
        // and stores through one address, slower than the list walk on a 10 000-body grid).
        let island_timers = &mut scratch.island_timers;
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
        for (&island, &timer) in scratch.body_islands.iter().zip(&scratch.sleep_timers) {
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
            let entry = self.scratch.island_timers[id as usize];
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

    /// [`crate::Stage::Split`]: rebuild at most one island that may have split (see
    /// [`crate::island::IslandStore::split_candidate`]): one with a body that has rested for
    /// four steps, long enough to tell resting from the top of a bounce. With sleeping off
    /// nothing is split: splitting only serves sleep, and on a busy pile it is a graph walk of
    /// the whole island every step (1.4 ms on the 2000-body rain).
    pub(super) fn split_one_island(&mut self) -> usize {
        if !self.settings.sleep_enabled {
            return 0;
        }
        match self.islands.split_candidate(4.0 * self.settings.dt) {
            Some(id) => self.islands.split(&mut super::body_graph!(self), id),
            None => 0,
        }
    }

    /// Every live island, in id order.
    pub fn islands(&self) -> impl Iterator<Item = IslandView> + '_ {
        self.islands
            .islands
            .iter()
            .enumerate()
            .filter(|(_, i)| i.alive)
            .map(|(id, i)| island_view(id as u32, i))
    }

    /// One island; a stale id (the island merged into another, emptied, or never existed) is
    /// refused.
    pub fn island(&self, id: IslandId) -> Result<IslandView, AtollError> {
        let island = self.islands.get(id.index(), id.generation()).ok_or(AtollError::StaleIslandId)?;
        Ok(island_view(id.index(), island))
    }

    /// The bodies of island `id`, in list order; a stale id is refused.
    pub fn island_bodies(&self, id: IslandId) -> Result<Vec<BodyId>, AtollError> {
        let island = self.islands.get(id.index(), id.generation()).ok_or(AtollError::StaleIslandId)?;
        Ok(island.bodies.iter(&self.bodies.bodies).map(|body| self.bodies.id_at(body)).collect())
    }

    /// The island of a body (`None` for static and kinematic bodies).
    pub fn body_island(&self, id: BodyId) -> Result<Option<IslandId>, AtollError> {
        let island = self.bodies.get(id)?.island.id;
        Ok((island != NONE).then(|| self.island_id(island)))
    }

    /// Seconds the body has been slow enough to sleep.
    pub fn sleep_timer(&self, id: BodyId) -> Result<f32, AtollError> {
        Ok(self.bodies.get(id)?.sleep_timer)
    }

    /// Whether the body is simulated (static bodies never are; sleeping ones are not).
    pub fn is_awake(&self, id: BodyId) -> Result<bool, AtollError> {
        Ok(self.bodies.get(id)?.awake)
    }

    /// Wakes a body's island (no effect on static and kinematic bodies).
    pub fn wake_body(&mut self, id: BodyId) -> Result<(), AtollError> {
        self.bodies.get(id)?;
        self.note_edit(false);
        self.wake(id.index(), WakeCause::Edit { body: id });
        self.log_input(|| crate::recording::Input::WakeBody(id));
        Ok(())
    }

    /// Islands that fell asleep or woke since the last step began (edits made after it
    /// included), in order.
    pub fn sleep_events(&self) -> &[SleepEvent] {
        &self.sleep_events
    }

    /// The persistent islands as sorted lists of body slot indices, sorted by first body.
    pub fn island_partition(&self) -> Vec<Vec<u32>> {
        let mut out: Vec<Vec<u32>> = self
            .islands()
            .map(|i| {
                let bodies = self.island_bodies(i.id).expect("a listed island is live");
                let mut v: Vec<u32> = bodies.iter().map(|b| b.index()).collect();
                v.sort_unstable();
                v
            })
            .collect();
        out.sort();
        out
    }

    /// Connected components built from scratch by the reference depth-first search, in the
    /// same form as [`World::island_partition`]. `work` is reusable scratch.
    pub fn reference_partition(&self, work: &mut Vec<u32>) -> Vec<Vec<u32>> {
        let mut out =
            reference_islands(&self.bodies.bodies, &self.contacts.contacts, &self.joints.joints, work);
        out.sort();
        out
    }
}

/// The view of live island `island` in slot `index`.
fn island_view(index: u32, island: &Island) -> IslandView {
    IslandView {
        id: IslandId::new(index, island.generation),
        body_count: island.bodies.count,
        contact_count: island.contacts.count,
        joint_count: island.joints.count,
        awake: island.awake,
        min_sleep_timer: island.min_sleep_timer,
        may_split: island.may_split,
    }
}
