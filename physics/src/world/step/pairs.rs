//! [`Stage::Pairs`]: new overlaps of moved proxies become contact pairs, in sorted pair order
//! (and the terrain's pairs, `world/terrain.rs`).

use crate::body::{Body, BodyType, NONE};
use crate::graph;
use crate::parallel::helpers_lingering;
use crate::parallel::prefetch::prefetch_at;
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape_key::{child_key, is_child_key};
use crate::team_policy::{MIN_MOVED_FOR_TEAM, MIN_MOVED_TO_WAKE_TEAM, helpers_for};
use crate::world::World;
use crate::world::joints::joints_blocking_collision;

/// New pairs ahead for which contact creation asks the cache for the pair lookup, the slot and
/// the bodies' list heads (and twice as far ahead, for the bodies).
const CREATE_AHEAD: usize = 4;

/// The pairs stage's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairsScratch {
    /// This step's new pairs, in sorted order.
    pairs: Vec<(u32, u32)>,
}

impl PairsScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.pairs.len() * 8
    }
}

impl World {
    /// [`Stage::Pairs`]: contact pairs for new overlaps of moved proxies, in sorted pair order.
    pub(super) fn create_pairs(&mut self) -> u32 {
        // Pairs that already have a contact are dropped before the sort; no contact is made
        // until the list is complete, so the list is exactly the new pairs, in the same order.
        // Jointed pairs that may not collide are dropped here too: a net or grid of jointed
        // bodies reports each of its neighbour pairs every step a proxy moves, and they never
        // get a contact.
        // Pairs with a sensor or whose filters refuse each other are dropped with them; while
        // there is no sensor and every filter is the default (which allow each other) nothing
        // more is read.
        let (contacts, bodies, joints) = (&self.contacts, &self.bodies.bodies, &self.joints.joints);
        let (store, rules) = (&self.bodies, self.bodies.any_pair_rules());
        let keep = |a, b| !contacts.contains(a, b) && (!rules || store.may_touch(a, b));
        // The jointed bodies by the keys of all their shapes: a compound's children too.
        let compounds = !store.children.compounds().is_empty();
        let apart = |shape, list: &mut Vec<u32>| {
            joints_blocking_collision(bodies, joints, store.body_of(shape), list);
            if compounds {
                for k in 0..list.len() {
                    list.extend(store.children.of(list[k]).iter().map(|&c| child_key(c)));
                }
            }
        };
        // (One thread reads no clock.)
        let lingering = self.threads.is_some() && helpers_lingering();
        let min_moved = if lingering { MIN_MOVED_FOR_TEAM } else { MIN_MOVED_TO_WAKE_TEAM };
        let helpers = helpers_for(&self.threads, self.broadphase.moved_count(), min_moved);
        let warm = |a, b| contacts.prefetch_pair(a, b);
        self.broadphase.update_pairs_on(helpers, &mut self.scratch.pairs.pairs, warm, keep, apart);
        let mut created = 0;
        let pairs = &self.scratch.pairs.pairs;
        for (i, &(a, b)) in pairs.iter().enumerate() {
            // Each creation reads both bodies, fills a contact slot, probes the pair lookup and
            // links the contact at the head of both bodies' lists: cache misses in a row a few
            // hundred times a step in a tumbling pile, so they are asked for ahead.
            // The pairs are of shape keys: a body's slot for its own shape, which is every
            // pair's in a world without compound bodies.
            if let Some(&(a, b)) = pairs.get(i + 2 * CREATE_AHEAD) {
                prefetch_body_for_contact(&self.bodies.bodies[self.bodies.body_of(a) as usize]);
                prefetch_body_for_contact(&self.bodies.bodies[self.bodies.body_of(b) as usize]);
            }
            if let Some(&(a, b)) = pairs.get(i + CREATE_AHEAD) {
                self.contacts.prefetch_pair(a, b);
                self.contacts.prefetch_slot(CREATE_AHEAD);
                for shape in [a, b] {
                    let head = self.bodies.bodies[self.bodies.body_of(shape) as usize].contact_head;
                    if head != NONE {
                        self.contacts.prefetch_edges(head >> 1);
                    }
                }
            }
            let slots = (self.bodies.body_of(a), self.bodies.body_of(b));
            let (ba, bb) = (&self.bodies.bodies[slots.0 as usize], &self.bodies.bodies[slots.1 as usize]);
            let any_dynamic = ba.body_type == BodyType::Dynamic || bb.body_type == BodyType::Dynamic;
            // The list holds only distinct pairs without a contact that may collide.
            debug_assert!(!self.contacts.contains(a, b), "pair ({a}, {b}) listed with a contact");
            if any_dynamic {
                let (ma, mb) = if is_child_key(a | b) {
                    (self.bodies.part(a).2, self.bodies.part(b).2)
                } else {
                    (&ba.material, &bb.material)
                };
                let friction = (ma.friction * mb.friction).sqrt();
                let restitution = ma.restitution.max(mb.restitution);
                // An awake pair is updated by this step's narrowphase, which makes the rest of
                // its contact ready on the world's threads; its status byte, the slot's last
                // contact's, must not say quiet.
                let awake = ba.awake || bb.awake;
                let id = if awake {
                    let id = self.contacts.create_pending((a, b), slots, friction, restitution);
                    if let Some(status) = self.scratch.narrowphase.contact_status.get_mut(id as usize) {
                        *status = 0;
                    }
                    id
                } else {
                    self.contacts.create((a, b), slots, friction, restitution)
                };
                graph::attach(&mut self.bodies.bodies, &mut self.contacts.contacts, id);
                if awake {
                    self.awake_contacts.set(id as usize);
                }
                created += 1;
            }
        }
        created
    }
}

/// Asks the cache for what creating a contact reads of body `b`: its type, material, awake
/// flag and the head of its contact list.
#[inline]
fn prefetch_body_for_contact(b: &Body) {
    let at = std::ptr::from_ref(b) as usize;
    for offset in [
        std::mem::offset_of!(Body, body_type),
        std::mem::offset_of!(Body, material),
        std::mem::offset_of!(Body, awake),
        std::mem::offset_of!(Body, contact_head),
    ] {
        prefetch_at(at, offset..offset + 1);
    }
}
