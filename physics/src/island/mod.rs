//! Persistent simulation islands: connected components of dynamic bodies joined by touching
//! contacts and enabled joints. Islands merge at once by union (the smaller list is relabelled and spliced onto the
//! larger) and split lazily: losing an edge only flags an island, and the step rebuilds at most
//! one flagged island per step by a depth-first search over its own bodies and edges.
//!
//! Static and kinematic bodies are never in the graph, so a shared floor does not fuse piles.
//! Bodies, contacts and joints are threaded into their island's lists through their own fields, so
//! membership changes cost O(1) and a split costs the island's size.

pub(crate) mod id;
pub(crate) mod list;
mod reference;
pub(crate) mod wake_cause;

pub(crate) use list::{IslandLink, IslandList, IslandMember};
pub(crate) use reference::reference_islands;

use crate::bitset::BitSet;
use crate::body::Body;
use crate::graph;
use crate::joint::Joint;
use crate::narrowphase::Contact;

impl IslandMember for Body {
    fn link(&self) -> &IslandLink {
        &self.island
    }
    fn link_mut(&mut self) -> &mut IslandLink {
        &mut self.island
    }
}

impl IslandMember for Contact {
    fn link(&self) -> &IslandLink {
        &self.island
    }
    fn link_mut(&mut self) -> &mut IslandLink {
        &mut self.island
    }
}

impl IslandMember for Joint {
    fn link(&self) -> &IslandLink {
        &self.island
    }
    fn link_mut(&mut self) -> &mut IslandLink {
        &mut self.island
    }
}

/// One island.
#[derive(Clone, Debug)]
pub(crate) struct Island {
    /// Bumped each time the slot is reused, so a kept `IslandId` of a merged or vanished
    /// island is refused rather than naming the newcomer.
    pub generation: u32,
    pub alive: bool,
    pub awake: bool,
    /// Its dynamic bodies.
    pub bodies: IslandList,
    /// Its edges: touching contacts between two of its bodies.
    pub contacts: IslandList,
    /// Its other edges: enabled joints between two of its bodies.
    pub joints: IslandList,
    /// An edge left the island since it was last built: it may now be several components.
    pub may_split: bool,
    /// Smallest sleep timer of its bodies, as of the last sleep check.
    pub min_sleep_timer: f32,
    /// Largest sleep timer of its bodies, as of the last sleep check.
    pub max_sleep_timer: f32,
    /// What last woke it and the step count then (`None`: it has not slept since it was
    /// made); see `world/wake.rs`.
    pub woke: Option<(wake_cause::WakeCause, u64)>,
}

impl Island {
    fn empty(generation: u32) -> Island {
        Island {
            generation,
            alive: true,
            awake: true,
            bodies: IslandList::EMPTY,
            contacts: IslandList::EMPTY,
            joints: IslandList::EMPTY,
            may_split: false,
            min_sleep_timer: 0.0,
            max_sleep_timer: 0.0,
            woke: None,
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
    /// Scratch for splitting: a visit stamp per body slot, the DFS stack, the island's edges.
    stamps: Vec<u32>,
    stamp: u32,
    stack: Vec<u32>,
    members: Vec<u32>,
    edges: Vec<u32>,
    joint_edges: Vec<u32>,
}

/// The body graph the islands are built over: bodies with their contacts and joints.
pub(crate) struct Graph<'a> {
    pub bodies: &'a mut [Body],
    pub contacts: &'a mut [Contact],
    pub joints: &'a mut [Joint],
}

impl IslandStore {
    /// Bytes held: the islands, the free list, the awake set and the splitting scratch.
    pub fn bytes(&self) -> usize {
        self.islands.len() * std::mem::size_of::<Island>()
            + (self.free.len() + self.stamps.len() + self.stack.len() + self.members.len()) * 4
            + (self.edges.len() + self.joint_edges.len()) * 4
            + self.awake.bytes()
    }

    fn allocate(&mut self) -> u32 {
        let id = match self.free.pop() {
            Some(id) => {
                let generation = self.islands[id as usize].generation.wrapping_add(1);
                self.islands[id as usize] = Island::empty(generation);
                id
            }
            None => {
                self.islands.push(Island::empty(0));
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

    /// The live island in slot `index` of `generation`, if there is one.
    pub fn get(&self, index: u32, generation: u32) -> Option<&Island> {
        self.islands.get(index as usize).filter(|i| i.alive && i.generation == generation)
    }

    /// A new one-body island for dynamic body `body`.
    pub fn create_for(&mut self, bodies: &mut [Body], body: u32) -> u32 {
        let id = self.allocate();
        self.islands[id as usize].bodies.push(bodies, id, body);
        id
    }

    /// A contact began touching between two dynamic bodies: merge their islands if they differ
    /// and add the contact as an edge. Returns the island now holding both bodies.
    pub fn link(&mut self, graph: &mut Graph, contact: u32) -> u32 {
        let c = &graph.contacts[contact as usize];
        let root = self.join(graph, c.body_a, c.body_b);
        self.islands[root as usize].contacts.push(graph.contacts, root, contact);
        root
    }

    /// An enabled joint now links two dynamic bodies: merge their islands if they differ and
    /// add the joint as an edge. Returns the island now holding both bodies.
    pub fn link_joint(&mut self, graph: &mut Graph, joint: u32) -> u32 {
        let j = &graph.joints[joint as usize];
        let root = self.join(graph, j.body_a, j.body_b);
        self.islands[root as usize].joints.push(graph.joints, root, joint);
        root
    }

    /// The island holding both bodies `a` and `b` once their islands are merged.
    fn join(&mut self, graph: &mut Graph, a: u32, b: u32) -> u32 {
        let (ia, ib) = (graph.bodies[a as usize].island.id, graph.bodies[b as usize].island.id);
        if ia == ib { ia } else { self.merge(graph, ia, ib) }
    }

    /// A joint was disabled or is being destroyed: it leaves its island, which may now fall
    /// apart.
    pub fn unlink_joint(&mut self, joints: &mut [Joint], joint: u32) {
        let id = joints[joint as usize].island.id;
        if id == crate::body::NONE {
            return;
        }
        let island = &mut self.islands[id as usize];
        island.joints.remove(joints, joint);
        island.may_split = true;
    }

    /// A contact stopped touching (or is being destroyed while touching): it leaves its island,
    /// which may now fall apart.
    pub fn unlink(&mut self, contacts: &mut [Contact], contact: u32) {
        let id = contacts[contact as usize].island.id;
        if id == crate::body::NONE {
            return;
        }
        let island = &mut self.islands[id as usize];
        island.contacts.remove(contacts, contact);
        island.may_split = true;
    }

    /// Removes a body (whose contacts were already unlinked) from its island.
    pub fn remove_body(&mut self, bodies: &mut [Body], body: u32) {
        let id = bodies[body as usize].island.id;
        if id == crate::body::NONE {
            return;
        }
        let island = &mut self.islands[id as usize];
        island.bodies.remove(bodies, body);
        if island.bodies.count == 0 {
            self.release(id);
        } else {
            island.may_split = true;
        }
    }

    /// Union of two islands: the smaller (or, on a tie, the younger) is relabelled and spliced
    /// onto the other. Both are awake afterwards.
    fn merge(&mut self, graph: &mut Graph, a: u32, b: u32) -> u32 {
        let (count_a, count_b) =
            (self.islands[a as usize].bodies.count, self.islands[b as usize].bodies.count);
        let (root, other) = if count_a > count_b || (count_a == count_b && a < b) { (a, b) } else { (b, a) };
        let o = self.islands[other as usize].clone();
        let r = &mut self.islands[root as usize];
        r.bodies.append(graph.bodies, o.bodies, root);
        r.contacts.append(graph.contacts, o.contacts, root);
        r.joints.append(graph.joints, o.joints, root);
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
                && best.is_none_or(|(_, n)| island.bodies.count > n)
            {
                best = Some((id as u32, island.bodies.count));
            }
        }
        best.map(|(id, _)| id)
    }

    /// Rebuilds island `id` as its connected components: the first component (the one holding
    /// the island's first body) keeps the id, each other one gets a new island. Returns how many
    /// islands it became.
    pub fn split(&mut self, graph: &mut Graph, id: u32) -> usize {
        let Graph { bodies, contacts, joints } = graph;
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
        self.edges.extend(self.islands[id as usize].contacts.iter(contacts));
        self.joint_edges.clear();
        self.joint_edges.extend(self.islands[id as usize].joints.iter(joints));
        // Seeds in list order, so the result does not depend on anything but the lists.
        let mut members = std::mem::take(&mut self.members);
        let mut stack = std::mem::take(&mut self.stack);
        members.clear();
        stack.clear();
        members.extend(self.islands[id as usize].bodies.iter(bodies));
        let mut islands_made = 0;
        for &seed in &members {
            if self.stamps[seed as usize] == self.stamp {
                continue;
            }
            let (awake, woke) = (self.islands[id as usize].awake, self.islands[id as usize].woke);
            let target = if islands_made == 0 {
                self.islands[id as usize] = Island::empty(self.islands[id as usize].generation);
                id
            } else {
                self.allocate()
            };
            self.set_awake(target, awake);
            // Each part keeps the whole's answer to "why awake".
            self.islands[target as usize].woke = woke;
            islands_made += 1;
            self.stamps[seed as usize] = self.stamp;
            stack.push(seed);
            while let Some(b) = stack.pop() {
                self.islands[target as usize].bodies.push(bodies, target, b);
                let stamps = &mut self.stamps;
                let stamp = self.stamp;
                let mut visit = |edge_island: u32, other: u32| {
                    if edge_island == id && stamps[other as usize] != stamp {
                        stamps[other as usize] = stamp;
                        stack.push(other);
                    }
                };
                graph::for_each_contact(bodies, contacts, b, |c, other| {
                    visit(contacts[c as usize].island.id, other)
                });
                graph::for_each_joint(bodies, joints, b, |j, other| {
                    visit(joints[j as usize].island.id, other)
                });
            }
        }
        for k in 0..self.edges.len() {
            let c = self.edges[k];
            let target = bodies[contacts[c as usize].body_a as usize].island.id;
            self.islands[target as usize].contacts.push(contacts, target, c);
        }
        for k in 0..self.joint_edges.len() {
            let j = self.joint_edges[k];
            let target = bodies[joints[j as usize].body_a as usize].island.id;
            self.islands[target as usize].joints.push(joints, target, j);
        }
        self.members = members;
        self.stack = stack;
        islands_made
    }
}
