//! The broadphase: a static tree and a movable tree, the move buffer, and pair finding that
//! queries the trees with the proxies that moved this step only.

use super::DynamicTree;
use crate::math::{Aabb, Vec3};
use crate::parallel::{Claims, SharedSlice, run_team};

/// Which tree a proxy lives in.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ProxyType {
    /// Static bodies: never query each other.
    Static,
    /// Kinematic and dynamic bodies.
    Movable,
}

/// Names a proxy: its tree in the top bit, its leaf node index below.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProxyKey(u32);

impl ProxyKey {
    /// No proxy (a body not yet registered).
    pub const NONE: ProxyKey = ProxyKey(u32::MAX);
}

const STATIC_BIT: u32 = 1 << 31;

impl ProxyKey {
    fn new(kind: ProxyType, node: u32) -> Self {
        ProxyKey(match kind {
            ProxyType::Static => node | STATIC_BIT,
            ProxyType::Movable => node,
        })
    }

    /// The tree this proxy lives in.
    pub fn kind(self) -> ProxyType {
        if self.0 & STATIC_BIT != 0 { ProxyType::Static } else { ProxyType::Movable }
    }

    /// The leaf node index inside its tree.
    pub fn node(self) -> u32 {
        self.0 & !STATIC_BIT
    }
}

/// The fat AABB of a proxy: the tight box grown by `margin` and swept by twice the predicted
/// displacement, so a body moving steadily stays inside it for several steps.
pub fn fat_aabb(tight: &Aabb, predicted_displacement: Vec3, margin: f32) -> Aabb {
    tight.grown(margin).swept(2.0 * predicted_displacement)
}

/// The move buffer and the re-insertion counts, as [`Broadphase::pending`] captures them.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct BroadphasePending {
    move_buffer: Vec<ProxyKey>,
    reinsertions: u32,
    last_step_reinsertions: u32,
}

impl BroadphasePending {
    /// Bytes held.
    pub fn bytes(&self) -> usize {
        std::mem::size_of::<Self>() + self.move_buffer.len() * std::mem::size_of::<ProxyKey>()
    }
}

/// Both trees, the move buffer and pair finding.
#[derive(Clone, Debug, Default)]
pub struct Broadphase {
    static_tree: DynamicTree,
    movable_tree: DynamicTree,
    /// Proxies created or re-inserted since the last pair update.
    move_buffer: Vec<ProxyKey>,
    /// Per body index: is its proxy in the move buffer?
    moved: Vec<bool>,
    reinsertions: u32,
    last_step_reinsertions: u32,
    /// The pairs each thread found in the last pair update (kept for their room).
    member_pairs: Vec<Vec<(u32, u32)>>,
    /// A claim word per block of moved proxies, for the threads of the pair update.
    claims: Claims,
}

/// Moved proxies per block of the pair update: some tens of microseconds of queries in a busy
/// pile (a few hundred proxies move there, so small blocks keep the threads evenly loaded).
const QUERY_BLOCK: usize = 16;

impl Broadphase {
    /// Adds a proxy for body `body` with fat box `fat`.
    pub fn create_proxy(&mut self, fat: Aabb, kind: ProxyType, body: u32) -> ProxyKey {
        let node = self.tree_mut(kind).create_proxy(fat, body);
        let key = ProxyKey::new(kind, node);
        self.mark_moved(key, body);
        key
    }

    /// Removes a proxy (and forgets it in the move buffer).
    pub fn destroy_proxy(&mut self, key: ProxyKey) {
        let body = self.user_data(key);
        if self.moved.get(body as usize).copied().unwrap_or(false) {
            self.moved[body as usize] = false;
            self.move_buffer.retain(|k| *k != key);
        }
        self.tree_mut(key.kind()).destroy_proxy(key.node());
    }

    /// Gives a proxy a new fat box and queues it for pair finding.
    pub fn move_proxy(&mut self, key: ProxyKey, fat: Aabb) {
        self.tree_mut(key.kind()).move_proxy(key.node(), fat);
        self.reinsertions += 1;
        let body = self.user_data(key);
        self.mark_moved(key, body);
    }

    /// Bytes held: both trees' nodes and the move buffer.
    pub fn bytes(&self) -> usize {
        self.static_tree.bytes()
            + self.movable_tree.bytes()
            + self.move_buffer.len() * std::mem::size_of::<ProxyKey>()
            + self.moved.len()
    }

    /// Gives a proxy a new fat box without queueing it for pair finding: a restored state
    /// puts the trees' boxes back; its move buffer says what was queued (see
    /// [`Broadphase::pending`]). Only a box that differs moves its leaf.
    pub fn place_proxy(&mut self, key: ProxyKey, fat: Aabb) {
        if self.fat_aabb(key) != fat {
            self.tree_mut(key.kind()).move_proxy(key.node(), fat);
        }
    }

    /// What pair finding has still to do, and the re-insertion counts: the part of the
    /// broadphase a compact state keeps beside the bodies' fat boxes.
    pub fn pending(&self) -> BroadphasePending {
        BroadphasePending {
            move_buffer: self.move_buffer.clone(),
            reinsertions: self.reinsertions,
            last_step_reinsertions: self.last_step_reinsertions,
        }
    }

    /// Puts back what [`Broadphase::pending`] returned (after the boxes are placed).
    pub fn set_pending(&mut self, pending: &BroadphasePending) {
        for key in std::mem::take(&mut self.move_buffer) {
            let body = self.user_data(key);
            self.moved[body as usize] = false;
        }
        for &key in &pending.move_buffer {
            let body = self.user_data(key);
            self.mark_moved(key, body);
        }
        self.reinsertions = pending.reinsertions;
        self.last_step_reinsertions = pending.last_step_reinsertions;
    }

    /// Queues a proxy for pair finding without moving it (its pairs may have changed: a
    /// joint that kept its body from colliding went away).
    pub fn touch_proxy(&mut self, key: ProxyKey) {
        let body = self.user_data(key);
        self.mark_moved(key, body);
    }

    /// The fat box of a proxy.
    pub fn fat_aabb(&self, key: ProxyKey) -> Aabb {
        self.tree(key.kind()).fat_aabb(key.node())
    }

    /// The body index a proxy belongs to.
    pub fn user_data(&self, key: ProxyKey) -> u32 {
        self.tree(key.kind()).user_data(key.node())
    }

    /// The tree holding proxies of `kind`.
    pub fn tree(&self, kind: ProxyType) -> &DynamicTree {
        match kind {
            ProxyType::Static => &self.static_tree,
            ProxyType::Movable => &self.movable_tree,
        }
    }

    fn tree_mut(&mut self, kind: ProxyType) -> &mut DynamicTree {
        match kind {
            ProxyType::Static => &mut self.static_tree,
            ProxyType::Movable => &mut self.movable_tree,
        }
    }

    fn mark_moved(&mut self, key: ProxyKey, body: u32) {
        let i = body as usize;
        if self.moved.len() <= i {
            self.moved.resize(i + 1, false);
        }
        if !self.moved[i] {
            self.moved[i] = true;
            self.move_buffer.push(key);
        }
    }

    /// Proxies waiting in the move buffer for the next pair update.
    pub fn moved_count(&self) -> usize {
        self.move_buffer.len()
    }

    /// Re-insertions since the last pair update (shown in the editor's broadphase panel).
    pub fn reinsertions_last_step(&self) -> u32 {
        self.last_step_reinsertions
    }

    /// Finds the body pairs whose fat boxes overlap and where at least one proxy moved. Pairs
    /// are `(lower body index, higher body index)`, sorted, without duplicates, so the order
    /// does not depend on tree shape or query order. Empties the move buffer.
    pub fn update_pairs(&mut self, pairs: &mut Vec<(u32, u32)>) {
        self.update_pairs_where(pairs, |_, _| true);
    }

    /// [`Self::update_pairs`] keeping only the pairs `keep` accepts, tested before the sort: the
    /// step passes "has no contact yet and no joint keeps them apart", as a moved proxy in a
    /// pile reports mostly pairs that already have one (sorting all of them was a few percent
    /// of a landing pile's step), and one in a jointed net mostly its jointed neighbours.
    pub fn update_pairs_where(
        &mut self,
        pairs: &mut Vec<(u32, u32)>,
        keep: impl Fn(u32, u32) -> bool + Sync,
    ) {
        self.update_pairs_on(None, pairs, keep);
    }

    /// [`Self::update_pairs_where`] on the caller's thread and the `helpers`: the moved proxies'
    /// queries in blocks the threads share, each thread's pairs in a list of its own. The lists
    /// are joined, sorted and deduplicated, which gives the same pairs in the same order
    /// however the blocks fell.
    pub(crate) fn update_pairs_on(
        &mut self,
        helpers: Option<&rayon::ThreadPool>,
        pairs: &mut Vec<(u32, u32)>,
        keep: impl Fn(u32, u32) -> bool + Sync,
    ) {
        pairs.clear();
        let members = helpers.map_or(1, |pool| pool.current_num_threads() + 1);
        self.member_pairs.resize_with(members, Vec::new);
        self.member_pairs.iter_mut().for_each(Vec::clear);
        self.claims.reset(self.move_buffer.len().div_ceil(QUERY_BLOCK));
        let (member_pairs, claims) = (SharedSlice::new(&mut self.member_pairs), self.claims.words());
        let (moves, moved) = (&self.move_buffer, &self.moved);
        let (movable_tree, static_tree) = (&self.movable_tree, &self.static_tree);
        run_team(helpers, |team| {
            // SAFETY: each member pushes to its own list only.
            let found = unsafe { &mut member_pairs.slice_mut(team.index()..team.index() + 1)[0] };
            team.for_blocks(moves.len(), QUERY_BLOCK, claims, |block| {
                for &key in &moves[block] {
                    let tree = |kind| if kind == ProxyType::Static { static_tree } else { movable_tree };
                    let body = tree(key.kind()).user_data(key.node());
                    let fat = tree(key.kind()).fat_aabb(key.node());
                    let mut visit = |other: u32| {
                        // When both moved, only the lower body records the pair.
                        if other != body && (!moved[other as usize] || body < other) {
                            let pair = (body.min(other), body.max(other));
                            if keep(pair.0, pair.1) {
                                found.push(pair);
                            }
                        }
                    };
                    movable_tree.query(&fat, |_, other| {
                        visit(other);
                        true
                    });
                    if key.kind() == ProxyType::Movable {
                        static_tree.query(&fat, |_, other| {
                            visit(other);
                            true
                        });
                    }
                }
            });
        });
        for found in &self.member_pairs {
            pairs.extend_from_slice(found);
        }
        for key in self.move_buffer.drain(..) {
            let body = match key.kind() {
                ProxyType::Static => self.static_tree.user_data(key.node()),
                ProxyType::Movable => self.movable_tree.user_data(key.node()),
            };
            self.moved[body as usize] = false;
        }
        // The same order as sorting the tuples, by one integer comparison per step of the sort
        // (the tuple's two-field comparison was a few percent of a landing pile's step).
        pairs.sort_unstable_by_key(|&(a, b)| (a as u64) << 32 | b as u64);
        pairs.dedup();
        self.last_step_reinsertions = self.reinsertions;
        self.reinsertions = 0;
    }
}
