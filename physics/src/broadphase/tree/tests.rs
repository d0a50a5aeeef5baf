use super::*;
use crate::math::Vec3;

fn cube(x: f32, y: f32, z: f32, half: f32) -> Aabb {
    Aabb::from_center_half_extents(Vec3::new(x, y, z), Vec3::splat(half))
}

fn query_all(tree: &DynamicTree, aabb: &Aabb) -> Vec<u32> {
    let mut hits = Vec::new();
    tree.query(aabb, |proxy, _| {
        hits.push(proxy);
        true
    });
    hits.sort_unstable();
    hits
}

/// A row of unit cubes inserted in order: the worst case for an unbalanced tree.
fn row(n: u32) -> (DynamicTree, Vec<u32>) {
    let mut tree = DynamicTree::new();
    let proxies = (0..n).map(|i| tree.create_proxy(cube(i as f32 * 3.0, 0.0, 0.0, 1.0), i)).collect();
    (tree, proxies)
}

#[test]
fn empty_tree() {
    let tree = DynamicTree::default();
    assert!(tree.is_empty());
    assert_eq!(tree.proxy_count(), 0);
    assert_eq!(tree.height(), 0);
    assert_eq!(tree.stats(), TreeStats::default());
    assert!(query_all(&tree, &cube(0.0, 0.0, 0.0, 1e6)).is_empty());
    tree.validate().unwrap();
}

#[test]
fn single_proxy_round_trip() {
    let mut tree = DynamicTree::new();
    let a = cube(1.0, 2.0, 3.0, 0.5);
    let p = tree.create_proxy(a, 42);
    assert_eq!(tree.fat_aabb(p), a);
    assert_eq!(tree.user_data(p), 42);
    assert_eq!(query_all(&tree, &cube(1.0, 2.0, 3.0, 0.1)), vec![p]);
    assert!(query_all(&tree, &cube(5.0, 2.0, 3.0, 0.1)).is_empty());
    tree.validate().unwrap();
}

#[test]
fn sorted_inserts_stay_balanced() {
    let mut tree = DynamicTree::new();
    for i in 0..1000u32 {
        tree.create_proxy(cube(i as f32 * 3.0, 0.0, 0.0, 1.0), i);
        tree.validate().unwrap();
    }
    let stats = tree.stats();
    assert_eq!(stats.proxy_count, 1000);
    assert_eq!(stats.node_count, 1999);
    assert!(stats.max_balance <= 1);
    assert!(stats.height <= 16, "height {}", stats.height);
}

#[test]
fn destroy_frees_and_reuses_ids() {
    let (mut tree, proxies) = row(10);
    tree.destroy_proxy(proxies[3]);
    tree.validate().unwrap();
    assert_eq!(tree.proxy_count(), 9);
    assert!(query_all(&tree, &cube(9.0, 0.0, 0.0, 0.5)).is_empty());
    // The free list is LIFO, so the freed internal node or leaf is handed out again.
    let again = tree.create_proxy(cube(9.0, 0.0, 0.0, 1.0), 99);
    assert!(again < 19, "id {again} not reused");
    for &p in &proxies {
        if p != proxies[3] {
            tree.destroy_proxy(p);
            tree.validate().unwrap();
        }
    }
    tree.destroy_proxy(again);
    assert!(tree.is_empty());
    tree.validate().unwrap();
}

#[test]
fn move_proxy_relocates() {
    let (mut tree, proxies) = row(20);
    let p = proxies[5];
    tree.move_proxy(p, cube(0.0, 50.0, 0.0, 1.0));
    tree.validate().unwrap();
    assert_eq!(tree.user_data(p), 5);
    assert!(query_all(&tree, &cube(15.0, 0.0, 0.0, 0.5)).is_empty());
    assert_eq!(query_all(&tree, &cube(0.0, 50.0, 0.0, 0.5)), vec![p]);
}

#[test]
fn pool_doubles_when_full() {
    let (tree, _) = row(8);
    assert_eq!(tree.nodes.len(), 16);
    let (tree, _) = row(9);
    assert_eq!(tree.nodes.len(), 32);
    let (tree, _) = row(17);
    assert_eq!(tree.nodes.len(), 64);
    tree.validate().unwrap();
}

#[test]
fn query_finds_overlaps_and_stops_early() {
    let (tree, proxies) = row(10);
    // Touching counts: the box spans x in [2, 7], touching cubes 1 and 2 and reaching 3's face.
    assert_eq!(
        query_all(&tree, &Aabb::new(Vec3::new(2.0, 0.0, 0.0), Vec3::new(8.0, 0.0, 0.0))),
        proxies[1..4]
    );
    let mut calls = 0;
    tree.query(&cube(0.0, 0.0, 0.0, 100.0), |_, _| {
        calls += 1;
        calls < 3
    });
    assert_eq!(calls, 3);
}

#[test]
fn query_order_is_deterministic() {
    let order = |tree: &DynamicTree| {
        let mut v = Vec::new();
        tree.query(&cube(0.0, 0.0, 0.0, 1e4), |p, _| {
            v.push(p);
            true
        });
        v
    };
    let (a, _) = row(50);
    let (b, _) = row(50);
    assert_eq!(order(&a), order(&b));
}

#[test]
fn query_visits_proxies_depth_first_child1_first() {
    // The order the pair finding depends on: every overlapping leaf, depth first, child1
    // before child2, as a plain recursive walk finds them, on a tree of scattered boxes.
    fn walk(tree: &DynamicTree, index: u32, aabb: &Aabb, out: &mut Vec<u32>) {
        let node = tree.node(index);
        if !node.aabb.overlaps(aabb) {
            return;
        }
        if node.is_leaf() {
            out.push(index);
        } else {
            walk(tree, node.child1, aabb, out);
            walk(tree, node.child2, aabb, out);
        }
    }
    let mut tree = DynamicTree::new();
    let mut seed = 7u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    for i in 0..300 {
        let (x, y, z) = (next() * 40.0, next() * 40.0, next() * 40.0);
        tree.create_proxy(cube(x, y, z, 0.5 + next() * 2.0), i);
    }
    let mut found = 0;
    for _ in 0..50 {
        let region = cube(next() * 40.0, next() * 40.0, next() * 40.0, next() * 8.0);
        let mut expected = Vec::new();
        walk(&tree, tree.root, &region, &mut expected);
        let mut visited = Vec::new();
        tree.query(&region, |proxy, _| {
            visited.push(proxy);
            true
        });
        assert_eq!(visited, expected);
        found += visited.len();
    }
    assert!(found > 50, "the queries found {found} proxies");
    let mut none = Vec::new();
    DynamicTree::new().query(&cube(0.0, 0.0, 0.0, 1.0), |proxy, _| {
        none.push(proxy);
        true
    });
    assert!(none.is_empty());
}

#[test]
fn ray_cast_hits_in_row_and_clips() {
    let (tree, proxies) = row(10);
    let mut hits = Vec::new();
    tree.ray_cast(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 100.0, |p, _, t| {
        hits.push(p);
        t
    });
    hits.sort_unstable();
    assert_eq!(hits, proxies);

    // Clip to each hit's entry distance: only nearer boxes can still be reported afterwards.
    let mut nearest = f32::MAX;
    tree.ray_cast(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 100.0, |p, _, _| {
        let entry = tree.fat_aabb(p).min.x + 5.0;
        nearest = nearest.min(entry);
        entry
    });
    assert_eq!(nearest, 4.0);

    // A ray parallel to the row but off to the side misses everything.
    tree.ray_cast(Vec3::new(-5.0, 3.0, 0.0), Vec3::X, 100.0, |_, _, _| panic!("unexpected hit"));
    // A short ray only reaches the first box.
    let mut count = 0;
    tree.ray_cast(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 4.5, |_, _, t| {
        count += 1;
        t
    });
    assert_eq!(count, 1);
}

#[test]
fn ray_cast_stops_on_negative() {
    let (tree, _) = row(10);
    let mut calls = 0;
    tree.ray_cast(Vec3::new(-5.0, 0.0, 0.0), Vec3::X, 100.0, |_, _, _| {
        calls += 1;
        -1.0
    });
    assert_eq!(calls, 1);
}

#[test]
fn for_each_node_visits_every_live_node() {
    let (tree, _) = row(33);
    let (mut leaves, mut internal, mut max_height, mut max_depth) = (0, 0, 0, 0);
    tree.for_each_node(|_, height, depth, is_leaf| {
        max_depth = max_depth.max(depth);
        if is_leaf {
            assert_eq!(height, 0);
            leaves += 1;
        } else {
            internal += 1;
        }
        max_height = max_height.max(height);
    });
    assert_eq!((leaves, internal), (33, 32));
    assert_eq!(max_height, tree.height());
    assert_eq!(max_depth, tree.height());
}

#[test]
fn stats_sum_internal_areas() {
    let mut tree = DynamicTree::new();
    tree.create_proxy(cube(0.0, 0.0, 0.0, 0.5), 0);
    assert_eq!(tree.stats().total_surface_area, 0.0);
    tree.create_proxy(cube(2.0, 0.0, 0.0, 0.5), 1);
    // Root spans [-0.5, 2.5] x [-0.5, 0.5]^2: 2 * (3 + 1 + 3).
    let stats = tree.stats();
    assert_eq!(stats.total_surface_area, 14.0);
    assert_eq!((stats.height, stats.node_count, stats.proxy_count, stats.max_balance), (1, 3, 2, 0));
}

#[test]
fn nested_boxes_prefer_low_cost_sibling() {
    // Two far clusters: a new box inside the first cluster must pair within that cluster,
    // so the root's children stay tight around each cluster.
    let mut tree = DynamicTree::new();
    for i in 0..4 {
        tree.create_proxy(cube(i as f32, 0.0, 0.0, 0.4), i);
        tree.create_proxy(cube(1000.0 + i as f32, 0.0, 0.0, 0.4), 10 + i);
    }
    tree.create_proxy(cube(1.5, 0.0, 0.0, 0.4), 100);
    tree.validate().unwrap();
    let root = tree.node(tree.root);
    let (a, b) = (tree.node(root.child1).aabb, tree.node(root.child2).aabb);
    let near = |x: &Aabb| x.max.x < 10.0 || x.min.x > 900.0;
    assert!(near(&a) && near(&b), "root children straddle clusters: {a:?} {b:?}");
}

/// Boxes scattered through a tall column, like bodies raining from a height (a fixed LCG).
fn scattered(n: u32) -> (DynamicTree, Vec<u32>) {
    let mut state = 0x2545_f491u32;
    let mut next = move |scale: f32| {
        state = state.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (state >> 8) as f32 / (1u32 << 24) as f32 * scale
    };
    let mut tree = DynamicTree::new();
    let proxies = (0..n)
        .map(|i| tree.create_proxy(cube(next(100.0), next(300.0), next(100.0), 0.3 + next(0.5)), i))
        .collect();
    (tree, proxies)
}

#[test]
fn rebuild_keeps_every_proxy_and_halves_the_surface_area() {
    let (mut tree, proxies) = scattered(1000);
    let boxes: Vec<Aabb> = proxies.iter().map(|&p| tree.fat_aabb(p)).collect();
    let before: Vec<Vec<u32>> = boxes.iter().map(|b| query_all(&tree, b)).collect();
    let incremental = tree.stats();
    tree.rebuild();
    tree.validate().unwrap();
    let built = tree.stats();
    assert_eq!((built.proxy_count, built.node_count), (1000, 1999));
    // Spatial splits over 1000 boxes scattered in a 100 × 300 × 100 m block: a few levels
    // over the least height 1000 leaves can have (10).
    assert!(built.height <= 16, "height {}", built.height);
    assert!(
        built.total_surface_area < 0.6 * incremental.total_surface_area,
        "built {} against one at a time {}",
        built.total_surface_area,
        incremental.total_surface_area
    );
    for (i, &p) in proxies.iter().enumerate() {
        assert_eq!((tree.fat_aabb(p), tree.user_data(p)), (boxes[i], i as u32));
        assert_eq!(query_all(&tree, &boxes[i]), before[i]);
    }
    // One-at-a-time changes carry on from the built tree.
    for (i, &p) in proxies.iter().enumerate().step_by(3) {
        tree.move_proxy(p, cube(i as f32, 0.0, 0.0, 0.4));
    }
    for &p in proxies.iter().skip(1).step_by(7) {
        tree.destroy_proxy(p);
    }
    tree.create_proxy(cube(0.0, 0.0, 0.0, 1.0), 5000);
    tree.validate().unwrap();
}

#[test]
fn enlarged_boxes_are_found_before_and_after_the_rebuild() {
    let (mut tree, proxies) = scattered(300);
    for (i, &p) in proxies.iter().enumerate() {
        tree.enlarge_proxy(p, cube(i as f32 * 3.0, 0.0, 0.0, 1.0));
    }
    // Before the rebuild the shape is the old one, with wider nodes: queries find the same.
    tree.validate().unwrap();
    let expect = [
        (cube(30.0, 0.0, 0.0, 0.5), vec![proxies[10]]),
        (cube(31.5, 0.0, 0.0, 1.0), vec![proxies[10], proxies[11]]),
    ];
    for (query, found) in &expect {
        assert_eq!(&query_all(&tree, query), found);
    }
    tree.rebuild();
    tree.validate().unwrap();
    for (query, found) in &expect {
        assert_eq!(&query_all(&tree, query), found);
    }
}

#[test]
fn enlarging_before_a_rebuild_leaves_no_trace_in_the_rebuilt_tree() {
    // The rebuild reads the leaves only: the ancestors the enlarging widened leave no trace, so
    // it builds what moving the same leaves one at a time and rebuilding builds.
    let moved = |i: usize| cube(i as f32 * 0.7, (i % 13) as f32, 2.0, 0.6);
    let (mut enlarged, proxies) = scattered(500);
    let mut direct = enlarged.clone();
    let moves: Vec<(u32, Aabb)> =
        proxies.iter().enumerate().step_by(3).map(|(i, &p)| (p, moved(i))).collect();
    enlarged.enlarge_proxies(&moves);
    enlarged.validate().unwrap();
    for &(p, fat) in &moves {
        direct.move_proxy(p, fat);
    }
    enlarged.rebuild();
    direct.rebuild();
    let nodes = |tree: &DynamicTree| {
        let mut all = Vec::new();
        tree.for_each_node(|aabb, height, depth, leaf| all.push((*aabb, height, depth, leaf)));
        all
    };
    assert_eq!(nodes(&enlarged), nodes(&direct));
}

#[test]
fn one_far_body_leaves_the_rest_of_the_tree_spatial() {
    // The same 1000 boxes, rebuilt alone and beside one box a million metres away (a body
    // fallen for minutes): the far box makes the curve's cells 60 m wide, so the 1000 share
    // a few cells, and the median splits inside them keep the nodes around them about as
    // small as without it.
    let area_near = |far: bool| {
        let (mut tree, _) = scattered(1000);
        let far_box = cube(0.0, -1e6, 0.0, 0.5);
        if far {
            tree.create_proxy(far_box, 1000);
        }
        tree.rebuild();
        tree.validate().unwrap();
        let mut area = 0.0;
        tree.for_each_node(|aabb, _, _, is_leaf| {
            if !is_leaf && !aabb.overlaps(&far_box) {
                area += aabb.surface_area();
            }
        });
        area
    };
    let (alone, beside) = (area_near(false), area_near(true));
    assert!(beside < 1.2 * alone, "{beside} beside the far box against {alone} alone");
}

#[test]
fn leaves_in_one_cell_are_halved() {
    // 100 leaves with the same centre: every code is the same, so the build halves the runs
    // and the tree has the least height 100 leaves can have.
    let mut tree = DynamicTree::new();
    let proxies: Vec<u32> = (0..100).map(|i| tree.create_proxy(cube(1.0, 2.0, 3.0, 0.5), i)).collect();
    tree.rebuild();
    tree.validate().unwrap();
    assert_eq!(tree.height(), 7);
    assert_eq!(query_all(&tree, &cube(1.0, 2.0, 3.0, 0.1)), proxies);
}

#[test]
fn the_radix_sort_is_a_stable_sort_by_code() {
    let mut state = 7u64;
    let mut next = || {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        state
    };
    for len in [0, 1, 2, 5, 100, 3000] {
        // Codes from a few values (many ties) and from the whole range.
        for spread in [3, 1 << (3 * MORTON_BITS)] {
            let mut items: Vec<BuildItem> =
                (0..len).map(|leaf| BuildItem { code: next() % spread.max(1), leaf }).collect();
            let mut expected = items.clone();
            expected.sort_by_key(|item| item.code);
            radix_sort_by_code(&mut items, &mut Vec::new());
            let pairs = |v: &[BuildItem]| v.iter().map(|i| (i.code, i.leaf)).collect::<Vec<_>>();
            assert_eq!(pairs(&items), pairs(&expected), "{len} items, spread {spread}");
        }
    }
}

#[test]
fn morton_codes_interleave_the_axes() {
    assert_eq!(morton_code(Vec3::ZERO), 0);
    assert_eq!(morton_code(Vec3::new(1.0, 0.0, 0.0)), 0b001);
    assert_eq!(morton_code(Vec3::new(0.0, 1.0, 0.0)), 0b010);
    assert_eq!(morton_code(Vec3::new(0.0, 0.0, 1.0)), 0b100);
    // x = 0b11, z = 0b10: x's bits at 0 and 3, z's high bit at 5.
    assert_eq!(morton_code(Vec3::new(3.0, 0.0, 2.0)), 0b101_001);
    // The top cell on every axis sets all 42 bits; out-of-range coordinates are clamped.
    assert_eq!(morton_code(Vec3::splat(MORTON_CELLS)), (1 << (3 * MORTON_BITS)) - 1);
    assert_eq!(morton_code(Vec3::new(-5.0, 1e30, f32::NAN)), morton_code(Vec3::new(0.0, MORTON_CELLS, 0.0)));
}

#[test]
fn rebuilding_small_trees() {
    let mut tree = DynamicTree::new();
    tree.rebuild();
    assert!(tree.is_empty());
    let p = tree.create_proxy(cube(0.0, 0.0, 0.0, 1.0), 7);
    tree.rebuild();
    tree.validate().unwrap();
    assert_eq!(query_all(&tree, &cube(0.5, 0.0, 0.0, 0.1)), vec![p]);
    let q = tree.create_proxy(cube(5.0, 0.0, 0.0, 1.0), 8);
    tree.rebuild();
    tree.validate().unwrap();
    assert_eq!(tree.height(), 1);
    assert_eq!(query_all(&tree, &cube(5.0, 0.0, 0.0, 0.1)), vec![q]);
}
