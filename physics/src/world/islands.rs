//! The island stages of the step (link, sleep, split), waking, and the island query API.

use super::{World, graph};
use crate::body::{BodyId, BodyType, NONE};
use crate::error::AtollError;
use crate::island::reference_islands;
use crate::math::Vec3;
use crate::narrowphase::TERRAIN;

/// An island as the world reports it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IslandView {
    /// Island id (stable while the island lives; ids are reused after).
    pub id: u32,
    /// Dynamic bodies in it.
    pub body_count: u32,
    /// Touching contacts between its bodies.
    pub contact_count: u32,
    /// Joints between its bodies (joints are not built yet, so always 0).
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
    pub island: u32,
    /// True when it fell asleep, false when it woke.
    pub asleep: bool,
}

impl World {
    /// Wakes the island of body slot `body` (static and kinematic bodies have none).
    pub(crate) fn wake(&mut self, body: u32) {
        let island = self.bodies.bodies[body as usize].island;
        if island != NONE {
            self.wake_island(island);
        }
    }

    /// Wakes a sleeping island: its bodies and their contacts rejoin the awake sets.
    pub(crate) fn wake_island(&mut self, id: u32) {
        if self.islands.islands[id as usize].awake {
            return;
        }
        self.islands.set_awake(id, true);
        self.sleep_events.push(SleepEvent { island: id, asleep: false });
        let mut body = self.islands.islands[id as usize].body_head;
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
            body = self.bodies.bodies[body as usize].island_next;
        }
    }

    /// Puts an island to sleep: velocities and forces zeroed, bodies leave the awake set, and so
    /// do their contacts unless the other body is still awake.
    fn sleep_island(&mut self, id: u32) {
        self.islands.set_awake(id, false);
        self.sleep_events.push(SleepEvent { island: id, asleep: true });
        let mut body = self.islands.islands[id as usize].body_head;
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
            body = self.bodies.bodies[body as usize].island_next;
        }
    }

    /// Stage 5: walk the begin/end bits in contact order. A begin between two dynamic bodies
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
            if ta == BodyType::Dynamic && tb == BodyType::Dynamic {
                self.wake(a);
                self.wake(b);
                self.islands.link(&mut self.bodies.bodies, &mut self.contacts.contacts, id as u32);
            } else if ta == BodyType::Kinematic || tb == BodyType::Kinematic {
                self.wake(a);
                self.wake(b);
            }
            next = self.began_bits.next_from(id + 1);
        }
        for id in self.ended_bits.iter() {
            self.islands.unlink(&mut self.contacts.contacts, id as u32);
        }
        self.began_bits.clear_all();
        self.ended_bits.clear_all();
    }

    /// Stage 8: an island sleeps once its slowest-to-rest body has rested `time_to_sleep`.
    /// Islands that may split are rebuilt first, so a pile never sleeps fused to a body that
    /// already left it.
    pub(super) fn sleep_islands(&mut self) {
        let s = self.settings;
        let mut next = self.islands.next_awake(0);
        while let Some(id) = next {
            next = self.islands.next_awake(id + 1);
            let island = &self.islands.islands[id as usize];
            let (mut min_timer, mut max_timer) = (f32::MAX, 0.0f32);
            let mut body = island.body_head;
            while body != NONE {
                let timer = self.bodies.bodies[body as usize].sleep_timer;
                min_timer = min_timer.min(timer);
                max_timer = max_timer.max(timer);
                body = self.bodies.bodies[body as usize].island_next;
            }
            let island = &mut self.islands.islands[id as usize];
            island.min_sleep_timer = min_timer;
            island.max_sleep_timer = max_timer;
            if s.sleep_enabled && !island.may_split && min_timer >= s.time_to_sleep {
                self.sleep_island(id);
            }
        }
    }

    /// Stage 9: rebuild at most one island that may have split (see
    /// [`crate::island::IslandStore::split_candidate`]): one with a body that has rested for
    /// four steps, long enough to tell resting from the top of a bounce. With sleeping off
    /// nothing is split: splitting only serves sleep, and on a busy pile it is a graph walk of
    /// the whole island every step (1.4 ms on the 2000-body rain).
    pub(super) fn split_one_island(&mut self) -> usize {
        if !self.settings.sleep_enabled {
            return 0;
        }
        match self.islands.split_candidate(4.0 * self.settings.dt) {
            Some(id) => self.islands.split(&mut self.bodies.bodies, &mut self.contacts.contacts, id),
            None => 0,
        }
    }

    /// Runs every pending split now (tests compare islands with the reference builder after it).
    pub fn split_all_islands(&mut self) {
        while let Some(id) = self.islands.split_candidate(f32::MIN) {
            self.islands.split(&mut self.bodies.bodies, &mut self.contacts.contacts, id);
        }
        // Sleeping islands that were flagged wait for their next wake; split them too.
        for id in 0..self.islands.islands.len() as u32 {
            let island = &self.islands.islands[id as usize];
            if island.alive && island.may_split {
                self.islands.split(&mut self.bodies.bodies, &mut self.contacts.contacts, id);
            }
        }
    }

    /// Every live island, in id order.
    pub fn islands(&self) -> impl Iterator<Item = IslandView> + '_ {
        self.islands.islands.iter().enumerate().filter(|(_, i)| i.alive).map(|(id, i)| IslandView {
            id: id as u32,
            body_count: i.body_count,
            contact_count: i.contact_count,
            joint_count: 0,
            awake: i.awake,
            min_sleep_timer: i.min_sleep_timer,
            may_split: i.may_split,
        })
    }

    /// The bodies of island `id`, in list order.
    pub fn island_bodies(&self, id: u32) -> Vec<BodyId> {
        let mut out = Vec::new();
        if let Some(island) = self.islands.islands.get(id as usize).filter(|i| i.alive) {
            let mut body = island.body_head;
            while body != NONE {
                out.push(self.bodies.id_at(body));
                body = self.bodies.bodies[body as usize].island_next;
            }
        }
        out
    }

    /// The island of a body (`None` for static and kinematic bodies).
    pub fn body_island(&self, id: BodyId) -> Result<Option<u32>, AtollError> {
        let island = self.bodies.get(id)?.island;
        Ok((island != NONE).then_some(island))
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
        self.wake(id.index());
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
                let mut v: Vec<u32> = self.island_bodies(i.id).iter().map(|b| b.index()).collect();
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
        let mut out = reference_islands(&self.bodies.bodies, &self.contacts.contacts, work);
        out.sort();
        out
    }
}

impl World {
    /// Checks the island bookkeeping against the bodies and contacts: list membership and
    /// counts, awake flags and awake sets agree. For tests and debugging; costs O(world).
    pub fn validate_islands(&self) -> Result<(), String> {
        let bodies = &self.bodies.bodies;
        let contacts = &self.contacts.contacts;
        let mut listed = vec![false; bodies.len()];
        for (id, island) in self.islands.islands.iter().enumerate().filter(|(_, i)| i.alive) {
            let (mut count, mut prev, mut body) = (0, NONE, island.body_head);
            while body != NONE {
                let b = &bodies[body as usize];
                if b.island != id as u32 || b.island_prev != prev || !b.alive {
                    return Err(format!(
                        "island {id}: body {body} has island {} prev {}",
                        b.island, b.island_prev
                    ));
                }
                if b.awake != island.awake || self.awake_bodies.get(body as usize) != island.awake {
                    return Err(format!(
                        "island {id} (awake {}): body {body} awake {}",
                        island.awake, b.awake
                    ));
                }
                listed[body as usize] = true;
                count += 1;
                prev = body;
                body = b.island_next;
            }
            if count != island.body_count || prev != island.body_tail {
                return Err(format!("island {id}: {count} bodies listed, {} counted", island.body_count));
            }
            let (mut count, mut contact) = (0, island.contact_head);
            while contact != NONE {
                let c = &contacts[contact as usize];
                if c.island != id as u32 || !c.alive || !c.touching {
                    return Err(format!("island {id}: contact {contact} is not one of its edges"));
                }
                if bodies[c.body_a as usize].island != id as u32
                    || bodies[c.body_b as usize].island != id as u32
                {
                    return Err(format!("island {id}: contact {contact} joins bodies of other islands"));
                }
                count += 1;
                contact = c.island_next;
            }
            if count != island.contact_count {
                return Err(format!(
                    "island {id}: {count} contacts listed, {} counted",
                    island.contact_count
                ));
            }
        }
        for (i, b) in bodies.iter().enumerate().filter(|(_, b)| b.alive) {
            let dynamic = b.body_type == BodyType::Dynamic;
            if dynamic != listed[i] {
                return Err(format!("body {i} (dynamic {dynamic}) listed in an island: {}", listed[i]));
            }
            if b.body_type == BodyType::Kinematic && !self.awake_bodies.get(i) {
                return Err(format!("kinematic body {i} is not awake"));
            }
        }
        for (i, c) in contacts.iter().enumerate().filter(|(_, c)| c.alive) {
            let awake =
                bodies[c.body_a as usize].awake || (c.body_b != TERRAIN && bodies[c.body_b as usize].awake);
            if awake && !self.awake_contacts.get(i) {
                return Err(format!("contact {i} touches an awake body but is not in the awake set"));
            }
        }
        Ok(())
    }
}
