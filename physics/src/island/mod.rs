//! Persistent simulation islands: connected components of dynamic bodies joined by touching
//! contacts. Islands merge at once by union (the smaller list is relabelled and spliced onto the
//! larger) and split lazily: losing an edge only flags an island, and the step rebuilds at most
//! one flagged island per step by a depth-first search over its own bodies and edges.
//!
//! Static and kinematic bodies are never in the graph, so a shared floor does not fuse piles.
//! Bodies and contacts are threaded into their island's lists through their own fields, so
//! membership changes cost O(1) and a split costs the island's size.

mod reference;

pub(crate) use reference::reference_islands;

use crate::bitset::BitSet;
use crate::body::{Body, NONE};
use crate::narrowphase::Contact;
use crate::world::graph;

/// One island.
#[derive(Clone, Debug)]
pub(crate) struct Island {
    pub alive: bool,
    pub awake: bool,
    pub body_head: u32,
    pub body_tail: u32,
    pub body_count: u32,
    pub contact_head: u32,
    pub contact_tail: u32,
    pub contact_count: u32,
    /// An edge left the island since it was last built: it may now be several components.
    pub may_split: bool,
    /// Smallest sleep timer of its bodies, as of the last sleep check.
    pub min_sleep_timer: f32,
    /// Largest sleep timer of its bodies, as of the last sleep check.
    pub max_sleep_timer: f32,
}

impl Island {
    fn empty() -> Island {
        Island {
            alive: true,
            awake: true,
            body_head: NONE,
            body_tail: NONE,
            body_count: 0,
            contact_head: NONE,
            contact_tail: NONE,
            contact_count: 0,
            may_split: false,
            min_sleep_timer: 0.0,
            max_sleep_timer: 0.0,
        }
    }
}

/// All islands, in a dense array with a free list; walked in id order.
#[derive(Clone, Debug, Default)]
pub(crate) struct IslandStore {
    pub islands: Vec<Island>,
    free: Vec<u32>,
    /// Ids of the awake islands, so the sleep and split stages walk only those.
    awake: BitSet,
    /// Scratch for splitting: a visit stamp per body slot, the DFS stack, the island's contacts.
    stamps: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    members: Vec<u32>,
    edges: Vec<u32>,
}

impl IslandStore {
    fn allocate(&mut self) -> u32 {
        let id = match self.free.pop() {
            Some(id) => {
                self.islands[id as usize] = Island::empty();
                id
            }
            None => {
                self.islands.push(Island::empty());
                self.islands.len() as u32 - 1
            }
        };
        self.awake.set(id as usize);
        id
    }

    fn release(&mut self, id: u32) {
        self.islands[id as usize].alive = false;
        self.awake.clear(id as usize);
        self.free.push(id);
    }

    /// Marks an island awake or asleep (the flag and the awake set together).
    pub fn set_awake(&mut self, id: u32, awake: bool) {
        self.islands[id as usize].awake = awake;
        if awake {
            self.awake.set(id as usize);
        } else {
            self.awake.clear(id as usize);
        }
    }

    /// Live islands.
    pub fn live_count(&self) -> usize {
        self.islands.len() - self.free.len()
    }

    /// Awake islands.
    pub fn awake_count(&self) -> usize {
        self.awake.count()
    }

    /// The first awake island with an id at or after `start`.
    pub fn next_awake(&self, start: u32) -> Option<u32> {
        self.awake.next_from(start as usize).map(|i| i as u32)
    }

    /// A new one-body island for dynamic body `body`.
    pub fn create_for(&mut self, bodies: &mut [Body], body: u32) -> u32 {
        let id = self.allocate();
        self.push_body(bodies, id, body);
        id
    }

    fn push_body(&mut self, bodies: &mut [Body], id: u32, body: u32) {
        let island = &mut self.islands[id as usize];
        let b = &mut bodies[body as usize];
        b.island = id;
        b.island_prev = island.body_tail;
        b.island_next = NONE;
        if island.body_tail != NONE {
            bodies[island.body_tail as usize].island_next = body;
        } else {
            island.body_head = body;
        }
        island.body_tail = body;
        island.body_count += 1;
    }

    fn push_contact(&mut self, contacts: &mut [Contact], id: u32, contact: u32) {
        let island = &mut self.islands[id as usize];
        let c = &mut contacts[contact as usize];
        c.island = id;
        c.island_prev = island.contact_tail;
        c.island_next = NONE;
        if island.contact_tail != NONE {
            contacts[island.contact_tail as usize].island_next = contact;
        } else {
            island.contact_head = contact;
        }
        island.contact_tail = contact;
        island.contact_count += 1;
    }

    /// A contact began touching between two dynamic bodies: merge their islands if they differ
    /// and add the contact as an edge. Returns the island now holding both bodies.
    pub fn link(&mut self, bodies: &mut [Body], contacts: &mut [Contact], contact: u32) -> u32 {
        let c = &contacts[contact as usize];
        let (ia, ib) = (bodies[c.body_a as usize].island, bodies[c.body_b as usize].island);
        let root = if ia == ib { ia } else { self.merge(bodies, contacts, ia, ib) };
        self.push_contact(contacts, root, contact);
        root
    }

    /// A contact stopped touching (or is being destroyed while touching): it leaves its island,
    /// which may now fall apart.
    pub fn unlink(&mut self, contacts: &mut [Contact], contact: u32) {
        let c = &contacts[contact as usize];
        let (id, prev, next) = (c.island, c.island_prev, c.island_next);
        if id == NONE {
            return;
        }
        if prev != NONE {
            contacts[prev as usize].island_next = next;
        } else {
            self.islands[id as usize].contact_head = next;
        }
        if next != NONE {
            contacts[next as usize].island_prev = prev;
        } else {
            self.islands[id as usize].contact_tail = prev;
        }
        let c = &mut contacts[contact as usize];
        c.island = NONE;
        c.island_prev = NONE;
        c.island_next = NONE;
        let island = &mut self.islands[id as usize];
        island.contact_count -= 1;
        island.may_split = true;
    }

    /// Removes a body (whose contacts were already unlinked) from its island.
    pub fn remove_body(&mut self, bodies: &mut [Body], body: u32) {
        let b = &bodies[body as usize];
        let (id, prev, next) = (b.island, b.island_prev, b.island_next);
        if id == NONE {
            return;
        }
        if prev != NONE {
            bodies[prev as usize].island_next = next;
        } else {
            self.islands[id as usize].body_head = next;
        }
        if next != NONE {
            bodies[next as usize].island_prev = prev;
        } else {
            self.islands[id as usize].body_tail = prev;
        }
        let b = &mut bodies[body as usize];
        b.island = NONE;
        b.island_prev = NONE;
        b.island_next = NONE;
        let island = &mut self.islands[id as usize];
        island.body_count -= 1;
        if island.body_count == 0 {
            self.release(id);
        } else {
            island.may_split = true;
        }
    }

    /// Union of two islands: the smaller (or, on a tie, the younger) is relabelled and spliced
    /// onto the other. Both are awake afterwards.
    fn merge(&mut self, bodies: &mut [Body], contacts: &mut [Contact], a: u32, b: u32) -> u32 {
        let (count_a, count_b) = (self.islands[a as usize].body_count, self.islands[b as usize].body_count);
        let (root, other) = if count_a > count_b || (count_a == count_b && a < b) { (a, b) } else { (b, a) };
        let o = self.islands[other as usize].clone();
        let mut body = o.body_head;
        while body != NONE {
            bodies[body as usize].island = root;
            body = bodies[body as usize].island_next;
        }
        let mut contact = o.contact_head;
        while contact != NONE {
            contacts[contact as usize].island = root;
            contact = contacts[contact as usize].island_next;
        }
        let r = &mut self.islands[root as usize];
        if o.body_head != NONE {
            if r.body_tail != NONE {
                bodies[r.body_tail as usize].island_next = o.body_head;
                bodies[o.body_head as usize].island_prev = r.body_tail;
            } else {
                r.body_head = o.body_head;
            }
            r.body_tail = o.body_tail;
        }
        if o.contact_head != NONE {
            if r.contact_tail != NONE {
                contacts[r.contact_tail as usize].island_next = o.contact_head;
                contacts[o.contact_head as usize].island_prev = r.contact_tail;
            } else {
                r.contact_head = o.contact_head;
            }
            r.contact_tail = o.contact_tail;
        }
        r.body_count += o.body_count;
        r.contact_count += o.contact_count;
        r.may_split |= o.may_split;
        self.release(other);
        self.set_awake(root, true);
        root
    }

    /// The island to split this step: splitting exists so that the resting part of a pile can
    /// sleep without the part that moves, so only flagged islands holding a body that has rested
    /// at least `min_rest` seconds qualify; of those, the largest (lowest id on ties). A pile
    /// that keeps tumbling is never split in vain.
    pub fn split_candidate(&self, min_rest: f32) -> Option<u32> {
        let mut best: Option<(u32, u32)> = None;
        for id in self.awake.iter() {
            let island = &self.islands[id];
            if island.may_split
                && island.max_sleep_timer >= min_rest
                && best.is_none_or(|(_, n)| island.body_count > n)
            {
                best = Some((id as u32, island.body_count));
            }
        }
        best.map(|(id, _)| id)
    }

    /// Rebuilds island `id` as its connected components: the first component (the one holding
    /// the island's first body) keeps the id, each other one gets a new island. Returns how many
    /// islands it became.
    pub fn split(&mut self, bodies: &mut [Body], contacts: &mut [Contact], id: u32) -> usize {
        if self.stamps.len() < bodies.len() {
            self.stamps.resize(bodies.len(), 0);
        }
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.stamps.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        // The island's edges, kept aside while the lists are rebuilt.
        self.edges.clear();
        let mut contact = self.islands[id as usize].contact_head;
        while contact != NONE {
            self.edges.push(contact);
            contact = contacts[contact as usize].island_next;
        }
        // Seeds in list order, so the result does not depend on anything but the lists.
        let mut members = std::mem::take(&mut self.members);
        let mut stack = std::mem::take(&mut self.stack);
        members.clear();
        stack.clear();
        let mut body = self.islands[id as usize].body_head;
        while body != NONE {
            members.push(body);
            body = bodies[body as usize].island_next;
        }
        let mut islands_made = 0;
        for &seed in &members {
            if self.stamps[seed as usize] == self.stamp {
                continue;
            }
            let awake = self.islands[id as usize].awake;
            let target = if islands_made == 0 {
                self.islands[id as usize] = Island::empty();
                id
            } else {
                self.allocate()
            };
            self.set_awake(target, awake);
            islands_made += 1;
            self.stamps[seed as usize] = self.stamp;
            stack.push(seed);
            while let Some(b) = stack.pop() {
                self.push_body(bodies, target, b);
                graph::for_each_contact(bodies, contacts, b, |c, other| {
                    if contacts[c as usize].island == id && self.stamps[other as usize] != self.stamp {
                        self.stamps[other as usize] = self.stamp;
                        stack.push(other);
                    }
                });
            }
        }
        for k in 0..self.edges.len() {
            let c = self.edges[k];
            let target = bodies[contacts[c as usize].body_a as usize].island;
            self.push_contact(contacts, target, c);
        }
        self.members = members;
        self.stack = stack;
        islands_made
    }
}
