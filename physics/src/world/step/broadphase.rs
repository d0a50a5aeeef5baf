//! [`Stage::Broadphase`]: scripted kinematic bodies are given this step's velocities, then each
//! awake body's tight box is taken and its proxy moved when it left its fat box.

use super::shape_reach::ShapeReach;
use crate::broadphase::ProxyKey;
use crate::math::{Aabb, Quat};
use crate::parallel::{Claims, SharedSlice, run_team};
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape_key::child_slot;
use crate::team_policy::{BODY_BLOCK, MIN_BODIES_FOR_TEAM, helpers_for};
use crate::world::{World, body_fat_aabb, tight_aabb};

/// The broadphase stage's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct BroadphaseScratch {
    /// A claim word per block of body slots.
    claims: Claims,
    /// Per block of body slots, the proxies of its bodies whose tight box left the fat one,
    /// with their new fat boxes, in body order.
    moved_blocks: Vec<Vec<(ProxyKey, Aabb)>>,
    /// The proxies of compound bodies' children whose tight box left the fat one, with their
    /// new fat boxes, in body order then child order.
    moved_children: Vec<(ProxyKey, Aabb)>,
}

impl BroadphaseScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        let moves: usize = self.moved_blocks.iter().map(Vec::len).sum::<usize>() + self.moved_children.len();
        moves * std::mem::size_of::<(ProxyKey, Aabb)>()
    }
}

impl World {
    /// Sets the velocities of kinematic bodies with a scripted motion so this step takes them
    /// exactly where the motion says (a chord of the circle, landing on it).
    pub(super) fn drive_kinematic_motions(&mut self) {
        let dt = self.settings.dt;
        for k in 0..self.bodies.scripted().len() {
            let i = self.bodies.scripted()[k] as usize;
            if !self.awake_bodies.get(i) {
                continue;
            }
            let b = &mut self.bodies.bodies[i];
            let Some(motion) = b.motion else { continue };
            let center = b.center();
            let (target, _) = motion.moved(center, Quat::IDENTITY, dt);
            b.linear_velocity = (target - center) / dt;
            b.angular_velocity = motion.angular_velocity();
        }
    }

    /// [`Stage::Broadphase`]: re-insert a proxy only when its body's tight box left the fat one.
    /// The boxes are computed in blocks of bodies the world's threads share, each listing its
    /// moved proxies with their new boxes (so the moves after need not read the bodies again,
    /// whose lines the blocks left in their members' caches); the proxies move afterwards on
    /// the caller's thread, since they change the tree: one after another in body
    /// order, or, when a twelfth of the movable tree moved, by giving the leaves their boxes in
    /// place and growing their ancestors
    /// ([`crate::broadphase::Broadphase::move_proxies`]); once due, the tree is rebuilt beside
    /// the narrowphase ([`crate::broadphase::Broadphase::rebuild_if_due`]).
    pub(super) fn update_proxies(&mut self) -> u32 {
        let settings = self.settings;
        let count = self.bodies.bodies.len();
        let blocks = count.div_ceil(BODY_BLOCK);
        let moved = &mut self.scratch.broadphase.moved_blocks;
        if moved.len() < blocks {
            moved.resize_with(blocks, Vec::new);
        }
        moved[..blocks].iter_mut().for_each(Vec::clear);
        let claims = &mut self.scratch.broadphase.claims;
        claims.reset(blocks);
        let claims = claims.words();
        let (bodies, moved) =
            (SharedSlice::new(&mut self.bodies.bodies), SharedSlice::new(&mut moved[..blocks]));
        let awake = &self.awake_bodies;
        run_team(helpers_for(&self.threads, self.awake_bodies.count(), MIN_BODIES_FOR_TEAM), |team| {
            team.for_blocks(count, BODY_BLOCK, claims, |block| {
                // Alone, the whole range comes as one block: its moves go to the first list.
                let list = block.start / BODY_BLOCK;
                // SAFETY: each block of bodies and its list of moves are one member's in this
                // stage.
                let (block_bodies, moves) =
                    unsafe { (bodies.slice_mut(block.clone()), &mut moved.slice_mut(list..list + 1)[0]) };
                awake.for_each_in(block.clone(), |i| {
                    let b = &mut block_bodies[i - block.start];
                    let tight = tight_aabb(b);
                    b.tight = tight;
                    if !b.fat.contains(&tight) {
                        b.fat = body_fat_aabb(b, &tight, &settings);
                        moves.push((b.proxy, b.fat));
                    }
                });
            });
        });
        self.update_child_boxes();
        let moved = &self.scratch.broadphase.moved_blocks[..blocks];
        let children = &self.scratch.broadphase.moved_children;
        let reinserted: usize = moved.iter().map(Vec::len).sum::<usize>() + children.len();
        self.broadphase.move_proxies(moved.iter().flatten().chain(children).copied(), reinserted);
        #[cfg(debug_assertions)]
        for i in self.awake_bodies.iter() {
            let b = &self.bodies.bodies[i];
            debug_assert_eq!(b.fat, self.broadphase.fat_aabb(b.proxy));
            for &c in self.bodies.children.of(i as u32) {
                let child = &self.bodies.children.children[c as usize];
                debug_assert_eq!(child.fat, self.broadphase.fat_aabb(child.proxy));
            }
        }
        reinserted as u32
    }

    /// The awake compound bodies' children whose tight box left the fat one, listed with a new
    /// fat box (swept over their body's path); then the awake compounds' shapes' records for
    /// the narrowphase's quick check (`ShapeReach`). Their poses and tight boxes are current: a
    /// child is placed whenever its body moves ([`World::place_children`]). On the caller's
    /// thread, after the bodies' own: a world without compound bodies walks nothing.
    fn update_child_boxes(&mut self) {
        let moves = &mut self.scratch.broadphase.moved_children;
        moves.clear();
        let (store, settings) = (&self.bodies, &self.settings);
        for k in 0..store.children.compounds().len() {
            let slot = store.children.compounds()[k];
            if !self.awake_bodies.get(slot as usize) {
                continue;
            }
            let body = &store.bodies[slot as usize];
            for &c in store.children.of(slot) {
                let child = &store.children.children[c as usize];
                debug_assert!(child.transform == body.transform.mul(&child.local), "child {c} placed");
                if !child.fat.contains(&child.tight) {
                    let fat = body_fat_aabb(body, &child.tight, settings);
                    moves.push((child.proxy, fat));
                }
            }
        }
        for &(proxy, fat) in self.scratch.broadphase.moved_children.iter() {
            let shape = self.broadphase.user_data(proxy);
            self.bodies.children.children[child_slot(shape)].fat = fat;
        }
        // The awake compound bodies' records (`ShapeReach`), with their fat boxes as they now
        // are: nothing changes them before the narrowphase reads them.
        let (store, reaches) = (&self.bodies, &mut self.scratch.reach);
        let compounds = store.children.compounds();
        let body_slots = compounds.last().map_or(0, |&last| last as usize + 1);
        let stamp = reaches.begin(body_slots, compounds.len(), store.children.children.len());
        for (place, &slot) in compounds.iter().enumerate() {
            if !self.awake_bodies.get(slot as usize) {
                continue;
            }
            let body = &store.bodies[slot as usize];
            reaches.set_body(slot as usize, place, ShapeReach::of_body(body, slot, stamp));
            for &c in store.children.of(slot) {
                let child = &store.children.children[c as usize];
                reaches.set_child(c as usize, ShapeReach::of_child(child, c, body, stamp));
            }
        }
    }

    /// Places every compound body's children where their body is now, at the end of a step
    /// (after the continuous stage, the last to move a body), so between steps a child's pose
    /// and tight box are its body's as they are for the queries, a capture and the next step.
    pub(super) fn place_children(&mut self) {
        let store = &mut self.bodies;
        for k in 0..store.children.compounds().len() {
            let slot = store.children.compounds()[k];
            let body = &store.bodies[slot as usize];
            if body.body_type != crate::body::BodyType::Static {
                store.children.place(slot, &body.transform);
            }
        }
    }
}
