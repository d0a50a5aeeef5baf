//! Property tests of the dynamic AABB tree against brute force.

use std::collections::{BTreeMap, BTreeSet};

use atoll_physics::broadphase::DynamicTree;
use atoll_physics::{Aabb, Vec3};
use proptest::prelude::*;
use proptest::sample::Index;

#[derive(Clone, Debug)]
enum Op {
    Insert(Aabb),
    Move(Index, Aabb),
    Remove(Index),
    /// Boxes set in place for many proxies at once, their ancestors grown to hold them, then
    /// the tree built anew.
    MoveManyAndRebuild(Vec<(Index, Aabb)>),
    /// Boxes set in place and ancestors grown, with no rebuild: later changes and queries work
    /// on the grown tree.
    MoveManyInPlace(Vec<(Index, Aabb)>),
}

/// Boxes of mixed scale: tiny and ordinary ones, some clustered near the origin and some spread
/// far out, plus a few huge ones that overlap most of the scene.
fn aabb_strategy() -> impl Strategy<Value = Aabb> {
    let centre = prop_oneof![
        3 => (-10.0f32..10.0, -10.0f32..10.0, -10.0f32..10.0),
        2 => (-1000.0f32..1000.0, -1000.0f32..1000.0, -1000.0f32..1000.0),
        1 => (-0.5f32..0.5, -0.5f32..0.5, -0.5f32..0.5),
    ];
    let half = prop_oneof![
        10 => (0.01f32..2.0, 0.01f32..2.0, 0.01f32..2.0),
        5 => (0.0f32..0.001, 0.0f32..0.001, 0.0f32..0.001),
        4 => (1.0f32..50.0, 0.01f32..1.0, 1.0f32..50.0),
        // Rare, since each one overlaps nearly everything and the pair sets grow quadratically.
        1 => (500.0f32..5000.0, 500.0f32..5000.0, 500.0f32..5000.0),
    ];
    (centre, half).prop_map(|(c, h)| Aabb::from_center_half_extents(Vec3::from(c), Vec3::from(h)))
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        8 => aabb_strategy().prop_map(Op::Insert),
        7 => (any::<Index>(), aabb_strategy()).prop_map(|(i, a)| Op::Move(i, a)),
        5 => any::<Index>().prop_map(Op::Remove),
        1 => prop::collection::vec((any::<Index>(), aabb_strategy()), 0..40).prop_map(Op::MoveManyAndRebuild),
        1 => prop::collection::vec((any::<Index>(), aabb_strategy()), 0..40).prop_map(Op::MoveManyInPlace),
    ]
}

/// The tree alongside a plain map of what it should hold.
struct Model {
    tree: DynamicTree,
    live: BTreeMap<u32, (Aabb, u32)>,
    next_user: u32,
    /// Whether the tree was rebuilt: its spatial splits need not be AVL-balanced.
    rebuilt: bool,
}

impl Model {
    fn new() -> Self {
        Self { tree: DynamicTree::new(), live: BTreeMap::new(), next_user: 0, rebuilt: false }
    }

    fn pick(&self, index: &Index) -> Option<u32> {
        (!self.live.is_empty()).then(|| *self.live.keys().nth(index.index(self.live.len())).unwrap())
    }

    fn apply(&mut self, op: &Op) {
        match op {
            Op::Insert(aabb) => {
                let proxy = self.tree.create_proxy(*aabb, self.next_user);
                assert!(self.live.insert(proxy, (*aabb, self.next_user)).is_none(), "id {proxy} reused live");
                self.next_user += 1;
            }
            Op::Move(index, aabb) => {
                if let Some(proxy) = self.pick(index) {
                    self.tree.move_proxy(proxy, *aabb);
                    self.live.get_mut(&proxy).unwrap().0 = *aabb;
                }
            }
            Op::Remove(index) => {
                if let Some(proxy) = self.pick(index) {
                    self.tree.destroy_proxy(proxy);
                    self.live.remove(&proxy);
                }
            }
            Op::MoveManyInPlace(moves) => self.enlarge(moves),
            Op::MoveManyAndRebuild(moves) => {
                self.enlarge(moves);
                self.tree.rebuild();
                self.rebuilt = true;
                // The tree is whole again: later one-at-a-time changes build on it.
                self.tree.validate().unwrap();
            }
        }
    }

    /// Gives the picked proxies their boxes in place, growing their ancestors (a proxy picked
    /// twice takes its last box).
    fn enlarge(&mut self, moves: &[(Index, Aabb)]) {
        let mut picked = Vec::new();
        for (index, aabb) in moves {
            if let Some(proxy) = self.pick(index) {
                picked.push((proxy, *aabb));
                self.live.get_mut(&proxy).unwrap().0 = *aabb;
            }
        }
        self.tree.enlarge_proxies(&picked);
    }

    fn tree_pairs(&self) -> Vec<(u32, u32)> {
        let mut pairs = Vec::new();
        for (&p, (aabb, _)) in &self.live {
            assert_eq!(self.tree.fat_aabb(p), *aabb);
            self.tree.query(aabb, |q, user| {
                assert_eq!(self.live[&q].1, user, "wrong user data for {q}");
                if p != q {
                    pairs.push((p.min(q), p.max(q)));
                }
                true
            });
        }
        pairs.sort_unstable();
        // Each pair must be found from both sides before it counts once.
        for twice in pairs.chunks(2) {
            assert!(twice.len() == 2 && twice[0] == twice[1], "pair {:?} found from one side only", twice[0]);
        }
        pairs.dedup();
        pairs
    }

    /// Sorted, like [`Self::tree_pairs`], because the map iterates in id order.
    fn brute_pairs(&self) -> Vec<(u32, u32)> {
        let items: Vec<_> = self.live.iter().map(|(&p, (a, _))| (p, *a)).collect();
        let mut pairs = Vec::new();
        for (i, (p, a)) in items.iter().enumerate() {
            for (q, b) in &items[i + 1..] {
                if a.overlaps(b) {
                    pairs.push((*p, *q));
                }
            }
        }
        pairs
    }

    fn check(&self) {
        self.tree.validate().unwrap();
        let n = self.live.len();
        assert_eq!(self.tree.proxy_count(), n);
        assert_eq!(self.tree.is_empty(), n == 0);
        let stats = self.tree.stats();
        assert_eq!(stats.proxy_count as usize, n);
        assert_eq!(stats.node_count as usize, (2 * n).saturating_sub(1));
        assert_eq!(stats.height, self.tree.height());
        // One-at-a-time changes keep the tree AVL-balanced; a rebuild's depth is bounded by
        // its curve's 42 bits plus the halvings of leaves in one cell.
        let bound = if self.rebuilt {
            42.0 + ((n + 2) as f32).log2()
        } else {
            assert!(stats.max_balance <= 1);
            1.45 * ((n + 2) as f32).log2() + 2.0
        };
        assert!(self.tree.height() as f32 <= bound, "height {} for {n} proxies", self.tree.height());
        assert_eq!(self.tree_pairs(), self.brute_pairs());
    }
}

/// Independent slab test for the brute-force ray check: entry `t` of the segment, if it hits.
fn ray_entry(aabb: &Aabb, origin: Vec3, dir: Vec3, max_t: f32) -> Option<f32> {
    let (mut lo, mut hi) = (0.0f32, max_t);
    for axis in 0..3 {
        if dir[axis] == 0.0 {
            if origin[axis] < aabb.min[axis] || origin[axis] > aabb.max[axis] {
                return None;
            }
            continue;
        }
        let t0 = (aabb.min[axis] - origin[axis]) / dir[axis];
        let t1 = (aabb.max[axis] - origin[axis]) / dir[axis];
        lo = lo.max(t0.min(t1));
        hi = hi.min(t0.max(t1));
    }
    (lo <= hi).then_some(lo)
}

fn ray_strategy() -> impl Strategy<Value = (Vec3, Vec3, f32)> {
    let origin = (-100.0f32..100.0, -100.0f32..100.0, -100.0f32..100.0).prop_map(Vec3::from);
    // Some rays run along an axis to exercise the zero-direction branch.
    let dir = prop_oneof![
        (-1.0f32..1.0, -1.0f32..1.0, -1.0f32..1.0).prop_map(Vec3::from),
        (0usize..3, prop::bool::ANY).prop_map(|(axis, neg)| {
            let mut d = Vec3::ZERO;
            d[axis] = if neg { -1.0 } else { 1.0 };
            d
        }),
    ];
    (origin, dir, 1.0f32..400.0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 16, max_shrink_iters: 64, ..ProptestConfig::default() })]

    /// 10 000 random inserts, moves and removes; every 1000 operations (and at the end) the tree
    /// must validate, stay logarithmically high and report exactly the brute-force overlap pairs.
    #[test]
    fn random_ops_match_brute_force(ops in prop::collection::vec(op_strategy(), 10_000)) {
        let mut model = Model::new();
        for (i, op) in ops.iter().enumerate() {
            model.apply(op);
            if (i + 1) % 1000 == 0 {
                model.check();
            }
        }
        model.check();
    }

    /// Ray casts that never clip report exactly the proxies the brute-force slab test hits, and
    /// clipping each hit to its entry distance finds the nearest one.
    #[test]
    fn ray_cast_matches_brute_force(
        boxes in prop::collection::vec(aabb_strategy(), 1..400),
        rays in prop::collection::vec(ray_strategy(), 50),
    ) {
        let mut tree = DynamicTree::new();
        let proxies: Vec<u32> = boxes.iter().enumerate().map(|(i, a)| tree.create_proxy(*a, i as u32)).collect();
        for (origin, dir, max_t) in rays {
            let expected: BTreeSet<u32> = proxies
                .iter()
                .filter(|&&p| ray_entry(&tree.fat_aabb(p), origin, dir, max_t).is_some())
                .copied()
                .collect();
            let mut found = BTreeSet::new();
            tree.ray_cast(origin, dir, max_t, |p, user, t| {
                assert_eq!(user as usize, proxies.iter().position(|&q| q == p).unwrap());
                assert!(found.insert(p), "{p} reported twice");
                t
            });
            prop_assert_eq!(&found, &expected);

            let nearest = expected
                .iter()
                .map(|&p| ray_entry(&tree.fat_aabb(p), origin, dir, max_t).unwrap())
                .fold(f32::INFINITY, f32::min);
            let mut clipped = f32::INFINITY;
            tree.ray_cast(origin, dir, max_t, |p, _, _| {
                let t = ray_entry(&tree.fat_aabb(p), origin, dir, max_t).expect("reported a miss");
                clipped = clipped.min(t);
                t
            });
            prop_assert_eq!(clipped, nearest);
        }
    }

    /// The same operations always build the same tree, node for node.
    #[test]
    fn same_ops_same_tree(ops in prop::collection::vec(op_strategy(), 500)) {
        let build = || {
            let mut model = Model::new();
            ops.iter().for_each(|op| model.apply(op));
            let mut nodes = Vec::new();
            model.tree.for_each_node(|a, h, _, leaf| nodes.push((*a, h, leaf)));
            (model.live.keys().copied().collect::<Vec<_>>(), nodes)
        };
        prop_assert_eq!(build(), build());
    }
}

/// Moving many proxies at once (grown in place, then a rebuild of the movable tree once as
/// many leaves grew as it holds, or once the moves stopped) and moving them one at a time find
/// the same pairs, and leave a valid tree.
#[test]
fn moving_many_proxies_at_once_finds_what_moving_them_one_by_one_does() {
    use atoll_physics::broadphase::{Broadphase, ProxyType};
    let mut state = 17u32;
    let mut next = move |scale: f32| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * scale
    };
    let mut cube = |scale: f32| {
        Aabb::from_center_half_extents(
            Vec3::new(next(scale), next(scale), next(scale)),
            Vec3::splat(0.5 + next(1.0)),
        )
    };
    let (mut at_once, mut one_by_one) = (Broadphase::default(), Broadphase::default());
    let ground = Aabb::new(Vec3::new(-50.0, -1.0, -50.0), Vec3::new(50.0, 0.0, 50.0));
    for broadphase in [&mut at_once, &mut one_by_one] {
        broadphase.create_proxy(ground, ProxyType::Static, 0);
    }
    let mut keys = Vec::new();
    for body in 1..=400 {
        let fat = cube(40.0);
        keys.push(at_once.create_proxy(fat, ProxyType::Movable, body));
        one_by_one.create_proxy(fat, ProxyType::Movable, body);
    }
    let (mut first, mut second) = (Vec::new(), Vec::new());
    at_once.update_pairs(&mut first);
    one_by_one.update_pairs(&mut second);
    assert_eq!(first, second);
    let moves: Vec<_> = keys.iter().step_by(2).map(|&key| (key, cube(40.0))).collect();
    at_once.move_proxies(moves.iter().copied(), moves.len());
    // Half the leaves grew in place: while the moves go on, the tree is not yet worth
    // building anew.
    assert!(!at_once.rebuild_due());
    for &(key, fat) in &moves {
        one_by_one.move_proxy(key, fat);
    }
    // The pairs are found on the grown tree, as the step finds them.
    at_once.tree(ProxyType::Movable).validate().unwrap();
    at_once.update_pairs(&mut first);
    one_by_one.update_pairs(&mut second);
    assert!(!first.is_empty());
    assert_eq!(first, second);
    assert_eq!(at_once.reinsertions_last_step(), 200);
    // When they all move again (by nothing), 600 growths reach the 400 leaves: the tree is
    // due to be built anew, after the pairs are found on the grown one.
    let again: Vec<_> = keys.iter().map(|&key| (key, at_once.fat_aabb(key))).collect();
    at_once.move_proxies(again.iter().copied(), again.len());
    assert!(at_once.rebuild_due());
    for &(key, fat) in &again {
        one_by_one.move_proxy(key, fat);
    }
    at_once.update_pairs(&mut first);
    one_by_one.update_pairs(&mut second);
    assert_eq!(first, second);
    at_once.rebuild_if_due();
    assert!(!at_once.rebuild_due());
    at_once.tree(ProxyType::Movable).validate().unwrap();
    // Built by spatial splits: a few levels over the least height 400 leaves can have (9);
    // the one-at-a-time tree is AVL-balanced.
    assert!(at_once.tree(ProxyType::Movable).height() <= 14);
    assert_eq!(at_once.reinsertions_last_step(), 400);
    // The rebuilt tree finds every pair the other does.
    let all_pairs = |broadphase: &mut Broadphase, pairs: &mut Vec<(u32, u32)>| {
        keys.iter().for_each(|&key| broadphase.touch_proxy(key));
        broadphase.update_pairs(pairs);
    };
    all_pairs(&mut at_once, &mut first);
    all_pairs(&mut one_by_one, &mut second);
    assert!(!first.is_empty());
    assert_eq!(first, second);
    // A few leaves grown, then a step of few moves: the moves stopped, so the tree is built
    // anew at once rather than left grown while its bodies rest.
    let burst: Vec<_> = keys.iter().take(64).map(|&key| (key, cube(40.0))).collect();
    at_once.move_proxies(burst.iter().copied(), burst.len());
    assert!(!at_once.rebuild_due());
    at_once.move_proxies(std::iter::empty(), 0);
    assert!(at_once.rebuild_due());
    at_once.rebuild_if_due();
    at_once.tree(ProxyType::Movable).validate().unwrap();
    for &(key, fat) in &burst {
        one_by_one.move_proxy(key, fat);
    }
    all_pairs(&mut at_once, &mut first);
    all_pairs(&mut one_by_one, &mut second);
    assert_eq!(first, second);
    assert!(
        at_once.tree(ProxyType::Movable).stats().total_surface_area
            < one_by_one.tree(ProxyType::Movable).stats().total_surface_area
    );
}
