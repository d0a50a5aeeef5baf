//! [`Stage::Broadphase`]: scripted kinematic bodies are given this step's velocities, then each
//! awake body's tight box is taken and its proxy moved when it left its fat box.

use crate::broadphase::ProxyKey;
use crate::math::{Aabb, Quat};
use crate::parallel::{Claims, SharedSlice, run_team};
#[cfg(doc)]
use crate::profile::Stage;
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
}

impl BroadphaseScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.moved_blocks.iter().map(|b| b.len() * std::mem::size_of::<(ProxyKey, Aabb)>()).sum()
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
        let moved = &self.scratch.broadphase.moved_blocks[..blocks];
        let reinserted: usize = moved.iter().map(Vec::len).sum();
        self.broadphase.move_proxies(moved.iter().flatten().copied(), reinserted);
        #[cfg(debug_assertions)]
        for i in self.awake_bodies.iter() {
            let b = &self.bodies.bodies[i];
            debug_assert_eq!(b.fat, self.broadphase.fat_aabb(b.proxy));
        }
        reinserted as u32
    }
}
