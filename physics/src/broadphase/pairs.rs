//! The broadphase: a static tree and a movable tree, the move buffer, and pair finding that
//! queries the trees with the proxies that moved this step only.

use super::DynamicTree;
use crate::math::{Aabb, Vec3};
use crate::parallel::{Claims, SharedSlice, run_team};
use crate::team_policy::QUERY_BLOCK;

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

/// Steps of motion the fat box of a body touching nothing looks ahead ([`Path::ahead`]).
pub const FREE_LOOKAHEAD_STEPS: f32 = 6.0;

/// Steps of motion the fat box of a body among others looks ahead.
pub const LOOKAHEAD_STEPS: f32 = 2.0;

/// Where a body's centre may go in the next few steps, as the smallest and largest
/// displacement along each axis: the ballistic path from its velocity and acceleration.
///
/// A body falling freely follows this path but for the solver's substeps (which fall a
/// millimetre further over six steps, well inside the margin), so its fat box (the tight box
/// swept over the path and grown by the margin) holds it for the whole lookahead however fast
/// it falls; a box swept only by the velocity was left every third step by a falling body,
/// and a rain of bodies spawned together reinserted most of its proxies in one step out of
/// three.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Path {
    /// The smallest displacement along each axis (at most zero).
    pub low: Vec3,
    /// The largest displacement along each axis (at least zero).
    pub high: Vec3,
}

impl Path {
    /// The reach of `x(t) = velocity t + acceleration t² / 2` for `t` in `[0, time]`, axis by
    /// axis: its ends and, where the velocity turns within the time, its turning point.
    pub fn ballistic(velocity: Vec3, acceleration: Vec3, time: f32) -> Path {
        let at = |t: Vec3| velocity * t + 0.5 * acceleration * t * t;
        let end = at(Vec3::splat(time));
        // Where a component's velocity reaches zero; outside [0, time] (or without
        // acceleration) the clamp puts it on an end, which changes nothing.
        let turn = Vec3::select(
            acceleration.cmpne(Vec3::ZERO),
            (-velocity / acceleration).clamp(Vec3::ZERO, Vec3::splat(time)),
            Vec3::ZERO,
        );
        let turning = at(turn);
        Path { low: end.min(turning).min(Vec3::ZERO), high: end.max(turning).max(Vec3::ZERO) }
    }

    /// The path of the next steps of length `dt`: [`FREE_LOOKAHEAD_STEPS`] of them for a body
    /// that is `free` (touches nothing, so it flies the ballistic path), [`LOOKAHEAD_STEPS`]
    /// otherwise (its contacts push it off the path, and a longer box makes more pairs).
    pub fn ahead(velocity: Vec3, acceleration: Vec3, dt: f32, free: bool) -> Path {
        let steps = if free { FREE_LOOKAHEAD_STEPS } else { LOOKAHEAD_STEPS };
        Self::ballistic(velocity, acceleration, steps * dt)
    }
}

/// The fat AABB of a proxy: the tight box grown by `margin` and swept over the `path` its
/// body is expected to take, so a body moving as predicted stays inside it for several steps.
pub fn fat_aabb(tight: &Aabb, path: Path, margin: f32) -> Aabb {
    let grown = tight.grown(margin);
    Aabb::new(grown.min + path.low, grown.max + path.high)
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
    /// Per node of the static tree and of the movable tree: is the proxy at that leaf in the
    /// move buffer? By node rather than by body: a body may have several proxies (a compound
    /// body's children), and a query reads the flag of the leaf it just visited by the index
    /// it has in hand (leaves keep their nodes through rebuilds).
    moved: [Vec<bool>; 2],
    reinsertions: u32,
    last_step_reinsertions: u32,
    /// The pairs each thread found in the last pair update (kept for their room).
    member_pairs: Vec<Vec<(u32, u32)>>,
    /// Each thread's lists for the proxy it is querying for (kept for their room).
    member_query: Vec<QueryLists>,
    /// A claim word per block of moved proxies, for the threads of the pair update.
    claims: Claims,
    /// Whether the movable tree, grown in place, is to be built anew
    /// ([`Broadphase::rebuild_if_due`]).
    rebuild_due: bool,
    /// Movable proxies grown in place since the movable tree was last built (each counted
    /// every time it grew).
    grown_since_build: usize,
    /// The movable proxies [`Broadphase::move_proxies`] grows in place, with their boxes
    /// (kept for its room).
    enlarged: Vec<(u32, Aabb)>,
}

/// The movable tree's leaves grow in place, for a rebuild later, when at least this share
/// (one in so many) of its proxies move in one step. Chosen when the tree was built anew after
/// every such step: a build costs about what a twelfth of the leaves' reinsertions do (the
/// joint grid's 10 000 leaves: 0.33 ms against 0.4 µs a reinsertion). With a build only every
/// few such steps, a smaller share (32, 96) cost the rains at most 0.11 % fewer instructions,
/// and it was left as it is.
const GROW_IN_PLACE_SHARE: usize = 12;

/// Moves in one step below which the leaves never grow in place.
const MIN_MOVES_TO_GROW_IN_PLACE: usize = 64;

/// Neighbours of a moved proxy whose pairs are warmed together before they are tested: enough
/// to overlap their cache misses, few enough that the first are still cached when tested.
const WARM_RUN: usize = 16;

/// One thread's lists for the moved proxy it is querying for.
#[derive(Clone, Debug, Default)]
struct QueryLists {
    /// The bodies whose proxies overlap it and whose pair it records.
    near: Vec<u32>,
    /// The bodies it never pairs with, listed once per query and only when a neighbour's pair
    /// passed the other filter.
    apart: Vec<u32>,
}

impl Broadphase {
    /// Adds a proxy for shape key `shape` (`crate::shape_key`) with fat box `fat`.
    pub fn create_proxy(&mut self, fat: Aabb, kind: ProxyType, shape: u32) -> ProxyKey {
        let node = self.tree_mut(kind).create_proxy(fat, shape);
        let key = ProxyKey::new(kind, node);
        self.mark_moved(key);
        key
    }

    /// Removes a proxy (and forgets it in the move buffer).
    pub fn destroy_proxy(&mut self, key: ProxyKey) {
        if let Some(moved) = self.moved_flag(key)
            && *moved
        {
            *moved = false;
            self.move_buffer.retain(|k| *k != key);
        }
        self.tree_mut(key.kind()).destroy_proxy(key.node());
    }

    /// Gives a proxy a new fat box and queues it for pair finding.
    pub fn move_proxy(&mut self, key: ProxyKey, fat: Aabb) {
        self.tree_mut(key.kind()).move_proxy(key.node(), fat);
        self.reinsertions += 1;
        self.mark_moved(key);
    }

    /// Gives the proxies `moves` lists (`count` of them, each at most once) new fat boxes and
    /// queues them for pair finding; the world calls it once a step. When they are a large
    /// share of the movable tree (a rain of bodies spawned together leaves its boxes in the
    /// same steps), the leaves take their boxes in place and their ancestors grow to hold them,
    /// which costs less than taking each leaf out and putting it back. The tree is then due to
    /// be built anew ([`Self::rebuild_if_due`]) once as many leaves have grown so as it holds,
    /// or at the first step after growing whose moves are few. The step finds this step's
    /// pairs on the tree as it is and rebuilds beside the narrowphase, which does not read the
    /// tree, so on several threads the rebuild is off the serial path.
    pub fn move_proxies(&mut self, moves: impl Iterator<Item = (ProxyKey, Aabb)>, count: usize) {
        let leaves = self.movable_tree.proxy_count();
        let grow_in_place = count >= MIN_MOVES_TO_GROW_IN_PLACE.max(leaves / GROW_IN_PLACE_SHARE);
        let mut enlarged = std::mem::take(&mut self.enlarged);
        enlarged.clear();
        for (key, fat) in moves {
            if grow_in_place && key.kind() == ProxyType::Movable {
                enlarged.push((key.node(), fat));
            } else {
                self.move_proxy(key, fat);
            }
        }
        self.movable_tree.enlarge_proxies(&enlarged);
        for &(node, _) in &enlarged {
            self.reinsertions += 1;
            self.mark_moved(ProxyKey::new(ProxyType::Movable, node));
        }
        self.grown_since_build += enlarged.len();
        self.enlarged = enlarged;
        // While the moves go on, built anew only once as many leaves grew as the tree holds:
        // a build of every leaf costs more than the queries lose on the grown tree in the few
        // steps before (the free fall grows a sixth of its leaves every step; building after
        // each took 14 % of its instructions). When they stop (a rain landed), at once: the
        // grown nodes would stay wide while the bodies rest.
        let moves_stopped = !grow_in_place && self.grown_since_build > 0;
        self.rebuild_due |= moves_stopped || (grow_in_place && self.grown_since_build >= leaves);
    }

    /// Whether [`Self::move_proxies`] left the movable tree to be built anew.
    pub fn rebuild_due(&self) -> bool {
        self.rebuild_due
    }

    /// Builds the movable tree anew if [`Self::move_proxies`] found a build due. The tree
    /// answers every query the same either way (each node holds every box below it); this
    /// only makes later queries cheaper, and every tree built from the same leaves is the
    /// same.
    pub fn rebuild_if_due(&mut self) {
        if std::mem::take(&mut self.rebuild_due) {
            self.grown_since_build = 0;
            self.movable_tree.rebuild();
        }
    }

    /// Bytes held: both trees' nodes and the move buffer.
    pub fn bytes(&self) -> usize {
        self.static_tree.bytes()
            + self.movable_tree.bytes()
            + self.move_buffer.len() * std::mem::size_of::<ProxyKey>()
            + self.moved.iter().map(Vec::len).sum::<usize>()
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
            self.clear_moved(key);
        }
        for &key in &pending.move_buffer {
            self.mark_moved(key);
        }
        self.reinsertions = pending.reinsertions;
        self.last_step_reinsertions = pending.last_step_reinsertions;
    }

    /// Queues a proxy for pair finding without moving it (its pairs may have changed: a
    /// joint that kept its body from colliding went away).
    pub fn touch_proxy(&mut self, key: ProxyKey) {
        self.mark_moved(key);
    }

    /// The fat box of a proxy.
    pub fn fat_aabb(&self, key: ProxyKey) -> Aabb {
        self.tree(key.kind()).fat_aabb(key.node())
    }

    /// The shape key of a proxy (`crate::shape_key`: its body's slot for a body's own shape).
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

    fn mark_moved(&mut self, key: ProxyKey) {
        let (flags, i) = (&mut self.moved[key.kind() as usize], key.node() as usize);
        if flags.len() <= i {
            flags.resize(i + 1, false);
        }
        if !flags[i] {
            flags[i] = true;
            self.move_buffer.push(key);
        }
    }

    /// The moved flag of proxy `key`, if it ever had one.
    fn moved_flag(&mut self, key: ProxyKey) -> Option<&mut bool> {
        self.moved[key.kind() as usize].get_mut(key.node() as usize)
    }

    /// Takes proxy `key` out of the moved set's flags (its key stays in the buffer).
    fn clear_moved(&mut self, key: ProxyKey) {
        if let Some(moved) = self.moved_flag(key) {
            *moved = false;
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

    /// Finds the pairs of proxies whose fat boxes overlap and where at least one moved, by their
    /// shape keys (`crate::shape_key`; body slots in a world of one-shape bodies). Pairs are
    /// `(lower key, higher key)`, sorted, without duplicates, so the order
    /// does not depend on tree shape or query order. Empties the move buffer.
    pub fn update_pairs(&mut self, pairs: &mut Vec<(u32, u32)>) {
        self.update_pairs_where(pairs, |_, _| true);
    }

    /// [`Self::update_pairs`] keeping only the pairs `keep` accepts, tested before the sort: the
    /// step passes "has no contact yet", as a moved proxy in a pile reports mostly pairs that
    /// already have one (sorting all of them was a few percent of a landing pile's step); it
    /// drops jointed pairs through [`Self::update_pairs_on`]'s `apart`, as one in a jointed
    /// net reports mostly its jointed neighbours.
    pub fn update_pairs_where(
        &mut self,
        pairs: &mut Vec<(u32, u32)>,
        keep: impl Fn(u32, u32) -> bool + Sync,
    ) {
        self.update_pairs_on(None, pairs, |_, _| {}, keep, |_, _| {});
    }

    /// [`Self::update_pairs_where`] on the caller's thread and the `helpers`: the moved proxies'
    /// queries in blocks the threads share, each thread's pairs in a list of its own. The lists
    /// are joined, sorted and deduplicated, which gives the same pairs in the same order
    /// however the blocks fell. A moved proxy's neighbours are listed first, and `warm` is
    /// called on a few of their pairs at a time before `keep` tests them: the step asks the
    /// cache there for what `keep` will read, so those reads overlap instead of each waiting
    /// for the one before. A pair `keep` passes is dropped too when its other key is among
    /// those `apart(shape, list)` lists for the queried proxy's key: the shapes it never pairs
    /// with (of bodies jointed to its own without collision), listed once per query. (Testing each pair against
    /// the lower body's joints read a jointed grid's joints about four times a query.)
    pub(crate) fn update_pairs_on(
        &mut self,
        helpers: Option<&rayon::ThreadPool>,
        pairs: &mut Vec<(u32, u32)>,
        warm: impl Fn(u32, u32) + Sync,
        keep: impl Fn(u32, u32) -> bool + Sync,
        apart: impl Fn(u32, &mut Vec<u32>) + Sync,
    ) {
        pairs.clear();
        let members = helpers.map_or(1, |pool| pool.current_num_threads() + 1);
        self.member_pairs.resize_with(members, Vec::new);
        self.member_pairs.iter_mut().for_each(Vec::clear);
        self.member_query.resize_with(members, QueryLists::default);
        self.claims.reset(self.move_buffer.len().div_ceil(QUERY_BLOCK));
        let (member_pairs, claims) = (SharedSlice::new(&mut self.member_pairs), self.claims.words());
        let member_query = SharedSlice::new(&mut self.member_query);
        let (moves, [moved_static, moved_movable]) = (&self.move_buffer, &self.moved);
        let (movable_tree, static_tree) = (&self.movable_tree, &self.static_tree);
        run_team(helpers, |team| {
            // SAFETY: each member pushes to its own lists only.
            let (found, lists) = unsafe {
                let me = team.index()..team.index() + 1;
                (&mut member_pairs.slice_mut(me.clone())[0], &mut member_query.slice_mut(me)[0])
            };
            team.for_blocks(moves.len(), QUERY_BLOCK, claims, |block| {
                for &key in &moves[block] {
                    let tree = |kind| if kind == ProxyType::Static { static_tree } else { movable_tree };
                    let shape = tree(key.kind()).user_data(key.node());
                    let fat = tree(key.kind()).fat_aabb(key.node());
                    let QueryLists { near, apart: apart_list } = lists;
                    near.clear();
                    let mut visit = |other: u32, moved: bool| {
                        // When both moved, only the lower key records the pair.
                        if other != shape && (!moved || shape < other) {
                            near.push(other);
                        }
                    };
                    movable_tree.query(&fat, |node, other| {
                        visit(other, moved_movable[node as usize]);
                        true
                    });
                    if key.kind() == ProxyType::Movable {
                        static_tree.query(&fat, |node, other| {
                            visit(other, moved_static[node as usize]);
                            true
                        });
                    }
                    let pair = |other: u32| (shape.min(other), shape.max(other));
                    let mut listed = false;
                    for run in near.chunks(WARM_RUN) {
                        run.iter().for_each(|&other| {
                            let (a, b) = pair(other);
                            warm(a, b);
                        });
                        for &other in run {
                            let (a, b) = pair(other);
                            if !keep(a, b) {
                                continue;
                            }
                            if !listed {
                                apart_list.clear();
                                apart(shape, apart_list);
                                listed = true;
                            }
                            if !apart_list.contains(&other) {
                                found.push((a, b));
                            }
                        }
                    }
                }
            });
        });
        for found in &self.member_pairs {
            pairs.extend_from_slice(found);
        }
        for k in 0..self.move_buffer.len() {
            self.clear_moved(self.move_buffer[k]);
        }
        self.move_buffer.clear();
        // The same order as sorting the tuples, by one integer comparison per step of the sort
        // (the tuple's two-field comparison was a few percent of a landing pile's step).
        pairs.sort_unstable_by_key(|&(a, b)| (a as u64) << 32 | b as u64);
        pairs.dedup();
        self.last_step_reinsertions = self.reinsertions;
        self.reinsertions = 0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The centre's displacement at time `t` on the ballistic path.
    fn at(velocity: Vec3, acceleration: Vec3, t: f32) -> Vec3 {
        velocity * t + 0.5 * acceleration * t * t
    }

    #[test]
    fn the_ballistic_path_holds_every_point_of_the_flight() {
        let g = Vec3::new(0.0, -9.81, 0.0);
        // Falling, thrown up (turning within the time), sideways, and at rest.
        for velocity in [Vec3::new(3.0, -12.0, -1.0), Vec3::new(0.0, 0.2, 0.0), Vec3::X * 5.0, Vec3::ZERO] {
            let path = Path::ballistic(velocity, g, 0.1);
            assert!(path.low.cmple(Vec3::ZERO).all() && path.high.cmpge(Vec3::ZERO).all());
            for i in 0..=100 {
                let d = at(velocity, g, 0.1 * i as f32 / 100.0);
                assert!(
                    d.cmpge(path.low - 1e-6).all() && d.cmple(path.high + 1e-6).all(),
                    "{velocity} at {i}"
                );
            }
        }
        // Thrown up at 0.2 m/s, it turns after 20 ms: the top of the path is that turning point.
        let up = Path::ballistic(Vec3::Y * 0.2, g, 0.1);
        assert!((up.high.y - 0.2 * 0.2 / (2.0 * 9.81)).abs() < 1e-6);
        assert_eq!(Path::ballistic(Vec3::ZERO, Vec3::ZERO, 1.0), Path { low: Vec3::ZERO, high: Vec3::ZERO });
    }

    #[test]
    fn a_free_body_looks_further_ahead() {
        let (velocity, g, dt) = (Vec3::new(0.0, -10.0, 0.0), Vec3::new(0.0, -9.81, 0.0), 1.0 / 60.0);
        let (free, among) = (Path::ahead(velocity, g, dt, true), Path::ahead(velocity, g, dt, false));
        let reach = |steps: f32| at(velocity, g, steps * dt).y;
        assert!((free.low.y - reach(FREE_LOOKAHEAD_STEPS)).abs() < 1e-5);
        assert!((among.low.y - reach(LOOKAHEAD_STEPS)).abs() < 1e-5);
        let fat = fat_aabb(&Aabb::new(Vec3::ZERO, Vec3::ONE), free, 0.1);
        assert_eq!(fat.max, Vec3::splat(1.1));
        assert_eq!(fat.min, Vec3::new(-0.1, -0.1 + free.low.y, -0.1));
    }
}
