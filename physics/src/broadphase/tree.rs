//! The dynamic AABB tree: a bounding-volume hierarchy over fat proxy AABBs, updated one proxy at
//! a time, or, when many move at once, grown in place and built anew over all its leaves later
//! ([`DynamicTree::enlarge_proxies`], [`DynamicTree::rebuild`]).
//!
//! Nodes live in one pool indexed by `u32`, so proxy ids are stable and the tree clones cheaply.
//! Leaves are placed by a surface-area heuristic and one-at-a-time changes keep the tree
//! AVL-balanced. A rebuild splits space rather than counts, so its subtrees may differ in
//! height, but its depth is at most the 42 bits of its curve plus the halvings of leaves that
//! share a cell (under 75 levels in all), and the rotations of later changes work from any
//! heights. Either way every traversal fits a small fixed stack instead of the heap.

mod query;
mod stats;
#[cfg(test)]
mod tests;

pub use stats::TreeStats;

use crate::math::{Aabb, Vec3};
use crate::parallel::prefetch::prefetch_at;

/// The "no node" index: the parent of the root, the children of a leaf, the end of the free list.
pub const NULL_NODE: u32 = u32::MAX;

/// Moves ahead [`DynamicTree::enlarge_proxies`] asks for a parent's node (and twice as far
/// ahead for a leaf's).
const ENLARGE_AHEAD: usize = 4;

/// Pool size on the first allocation; after that the pool doubles whenever it runs out.
const INITIAL_CAPACITY: usize = 16;

/// Slots in the fixed traversal stacks. A depth-first walk holds at most one pending sibling per
/// level plus the current node; an AVL tree over fewer than 2^32 leaves is under 47 levels deep
/// and a rebuilt one under 75, so this leaves a wide margin.
const STACK_CAPACITY: usize = 256;

/// One pool slot: a leaf (proxy), an internal node, or a free slot (`height == -1`).
#[derive(Clone, Copy, Debug)]
struct Node {
    aabb: Aabb,
    /// The parent for live nodes; the next free slot for free ones.
    parent: u32,
    child1: u32,
    child2: u32,
    height: i32,
    user_data: u32,
}

impl Node {
    fn free(next: u32) -> Self {
        Node {
            aabb: Aabb::default(),
            parent: next,
            child1: NULL_NODE,
            child2: NULL_NODE,
            height: -1,
            user_data: 0,
        }
    }

    fn is_leaf(&self) -> bool {
        self.child1 == NULL_NODE
    }
}

/// A stack in a fixed array, so traversals never touch the heap.
struct FixedStack<T: Copy> {
    items: [T; STACK_CAPACITY],
    len: usize,
}

impl<T: Copy> FixedStack<T> {
    fn new(fill: T) -> Self {
        Self { items: [fill; STACK_CAPACITY], len: 0 }
    }

    fn push(&mut self, item: T) {
        assert!(self.len < STACK_CAPACITY, "AABB tree deeper than its traversal stack");
        self.items[self.len] = item;
        self.len += 1;
    }

    fn pop(&mut self) -> Option<T> {
        self.len = self.len.checked_sub(1)?;
        Some(self.items[self.len])
    }
}

/// A dynamic AABB tree over proxies, each a fat AABB plus a `u32` of user data.
///
/// Proxy ids are leaf node indices: stable while the proxy lives, reused after it is destroyed.
/// Every operation is deterministic: the same sequence of calls builds the same tree.
#[derive(Clone, Debug)]
pub struct DynamicTree {
    nodes: Vec<Node>,
    root: u32,
    free_list: u32,
    proxy_count: u32,
    /// Scratch of [`Self::rebuild`], empty between calls (so copies of the tree stay small).
    build_items: Vec<BuildItem>,
    /// The radix sort's second buffer, empty between calls.
    build_sorted: Vec<BuildItem>,
    /// Internal node slots [`Self::rebuild`] hands out again, empty between calls.
    build_slots: Vec<u32>,
}

/// A leaf as the build sorts it: the Morton code of its box's centre and its node.
#[derive(Clone, Copy, Debug, Default)]
struct BuildItem {
    code: u64,
    leaf: u32,
}

/// Bits of a cell coordinate along each axis of the Morton curve over the leaves' centres:
/// three interleave into 42, four radix passes. Over a scene 1 km wide a cell is 6 cm; leaves
/// that share a cell are split at their median ([`DynamicTree::split_at_median`]). (21 bits, 63
/// in all, took six passes and cost the free fall's step 1.6 % more instructions.)
const MORTON_BITS: u32 = 14;

/// Cells along each axis of the Morton curve.
const MORTON_CELLS: f32 = ((1u32 << MORTON_BITS) - 1) as f32;

/// The Morton code of `cell` (coordinates in `0..=MORTON_CELLS`): the bits of x, y and z
/// interleaved, so codes in order walk the Z-order curve, which keeps nearby cells close.
fn morton_code(cell: Vec3) -> u64 {
    // Spreads the low bits of `v` (up to 21) three apart.
    fn spread(v: f32) -> u64 {
        let mut x = v.clamp(0.0, MORTON_CELLS) as u64;
        x = (x | (x << 32)) & 0x001f_0000_0000_ffff;
        x = (x | (x << 16)) & 0x001f_0000_ff00_00ff;
        x = (x | (x << 8)) & 0x100f_00f0_0f00_f00f;
        x = (x | (x << 4)) & 0x10c3_0c30_c30c_30c3;
        (x | (x << 2)) & 0x1249_2492_4924_9249
    }
    spread(cell.x) | (spread(cell.y) << 1) | (spread(cell.z) << 2)
}

/// Bits of the code each radix pass sorts by.
const RADIX_BITS: u32 = 11;

/// Sorts `items` by code (below `2^(3 * MORTON_BITS)`), stably (equal codes keep their order),
/// with `scratch` as the second buffer: a least-significant-digit radix sort, skipping the
/// digits every code shares.
fn radix_sort_by_code(items: &mut Vec<BuildItem>, scratch: &mut Vec<BuildItem>) {
    let mut counts = [0u32; 1 << RADIX_BITS];
    let mask = (1u64 << RADIX_BITS) - 1;
    scratch.clear();
    scratch.resize(items.len(), BuildItem::default());
    for shift in (0..3 * MORTON_BITS).step_by(RADIX_BITS as usize) {
        counts.fill(0);
        for item in items.iter() {
            counts[((item.code >> shift) & mask) as usize] += 1;
        }
        if counts.iter().any(|&c| c as usize == items.len()) {
            continue;
        }
        let mut start = 0;
        for count in &mut counts {
            let n = *count;
            *count = start;
            start += n;
        }
        for item in items.iter() {
            let digit = ((item.code >> shift) & mask) as usize;
            scratch[counts[digit] as usize] = *item;
            counts[digit] += 1;
        }
        std::mem::swap(items, scratch);
    }
}

impl Default for DynamicTree {
    fn default() -> Self {
        Self::new()
    }
}

impl DynamicTree {
    /// An empty tree; the pool is allocated on the first insertion.
    pub fn new() -> Self {
        Self {
            nodes: Vec::new(),
            root: NULL_NODE,
            free_list: NULL_NODE,
            proxy_count: 0,
            build_items: Vec::new(),
            build_sorted: Vec::new(),
            build_slots: Vec::new(),
        }
    }

    /// Adds a proxy with the given (already fattened) AABB and returns its id.
    pub fn create_proxy(&mut self, fat_aabb: Aabb, user_data: u32) -> u32 {
        debug_assert!(is_valid_aabb(&fat_aabb), "invalid proxy AABB {fat_aabb:?}");
        let leaf = self.allocate_node();
        *self.node_mut(leaf) = Node {
            aabb: fat_aabb,
            parent: NULL_NODE,
            child1: NULL_NODE,
            child2: NULL_NODE,
            height: 0,
            user_data,
        };
        self.insert_leaf(leaf);
        self.proxy_count += 1;
        leaf
    }

    /// Removes a proxy; its id may be handed out again by a later [`Self::create_proxy`].
    pub fn destroy_proxy(&mut self, proxy: u32) {
        self.debug_assert_proxy(proxy);
        self.remove_leaf(proxy);
        self.free_node(proxy);
        self.proxy_count -= 1;
    }

    /// Gives a proxy a new fat AABB: the leaf is taken out and re-inserted, keeping its id.
    pub fn move_proxy(&mut self, proxy: u32, fat_aabb: Aabb) {
        self.debug_assert_proxy(proxy);
        debug_assert!(is_valid_aabb(&fat_aabb), "invalid proxy AABB {fat_aabb:?}");
        self.remove_leaf(proxy);
        self.node_mut(proxy).aabb = fat_aabb;
        self.insert_leaf(proxy);
    }

    /// [`Self::enlarge_proxy`] for each `(proxy, fat box)` of `moves`, in order, with each
    /// leaf's node and then its parent's asked of the cache a few moves ahead: the walks up
    /// are chains of dependent loads from a pool of megabytes.
    pub fn enlarge_proxies(&mut self, moves: &[(u32, Aabb)]) {
        for (i, &(proxy, fat)) in moves.iter().enumerate() {
            if let Some(&(ahead, _)) = moves.get(i + 2 * ENLARGE_AHEAD) {
                prefetch_at(std::ptr::from_ref(self.node(ahead)) as usize, 0..std::mem::size_of::<Node>());
            }
            if let Some(&(near, _)) = moves.get(i + ENLARGE_AHEAD) {
                let parent = self.node(near).parent;
                if parent != NULL_NODE {
                    prefetch_at(
                        std::ptr::from_ref(self.node(parent)) as usize,
                        0..std::mem::size_of::<Node>(),
                    );
                }
            }
            self.enlarge_proxy(proxy, fat);
        }
    }

    /// Gives a proxy a new fat AABB in place and grows its ancestors' boxes, up to the first
    /// that already holds it, leaving the tree's shape as it was: for a batch of moves that a
    /// [`Self::rebuild`] follows, possibly some steps and single changes later. Until then
    /// every query finds what it would on the rebuilt tree (each node still holds all below
    /// it), at the cost of visiting wider nodes.
    pub fn enlarge_proxy(&mut self, proxy: u32, fat_aabb: Aabb) {
        self.debug_assert_proxy(proxy);
        debug_assert!(is_valid_aabb(&fat_aabb), "invalid proxy AABB {fat_aabb:?}");
        self.node_mut(proxy).aabb = fat_aabb;
        let mut index = self.node(proxy).parent;
        while index != NULL_NODE && !self.node(index).aabb.contains(&fat_aabb) {
            let node = self.node_mut(index);
            node.aabb = node.aabb.union(&fat_aabb);
            index = node.parent;
        }
    }

    /// Builds the tree anew over its leaves, as a linear BVH: the leaves are sorted along a
    /// Morton (Z-order) curve through their boxes' centres, and each node splits its run of
    /// the curve where the codes' highest differing bit changes, that is, at a plane through
    /// the middle of its cell (a run where every code is the same is split at the median of its
    /// centres). Proxy ids (leaf slots) stay; internal nodes reuse their slots.
    ///
    /// Leaves inserted one at a time go where a greedy descent puts them, and after many moves
    /// the boxes of the upper nodes overlap widely: in a free fall of 5000 bodies, a query
    /// visited 76 nodes on such a tree against 32 on a built one. The sort is a radix sort and
    /// a split is a binary search, so 10 000 leaves build in 0.33 ms, where median splits along
    /// the axis of widest spread took 0.95 ms. On 1000 scattered boxes the spatial splits'
    /// total surface area is half the one-at-a-time tree's; halving the curve instead (a
    /// balanced tree) kept nine tenths of it. Ties in the curve keep slot order, so the result
    /// depends only on the leaves and their slots and is the same on every run. Leaves that
    /// share a cell are split at their median ([`Self::split_at_median`]).
    pub fn rebuild(&mut self) {
        let mut items = std::mem::take(&mut self.build_items);
        let mut sorted = std::mem::take(&mut self.build_sorted);
        let mut slots = std::mem::take(&mut self.build_slots);
        items.clear();
        slots.clear();
        let (mut low, mut high) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for (index, node) in self.nodes.iter().enumerate() {
            match node.height {
                -1 => {}
                0 => {
                    let center = node.aabb.center();
                    low = low.min(center);
                    high = high.max(center);
                    items.push(BuildItem { code: 0, leaf: index as u32 });
                }
                _ => slots.push(index as u32),
            }
        }
        // One scale for every axis, so the curve's cells are cubes and a flat scene is not
        // split across its thin axis as often as across its wide ones.
        let extent = (high - low).max_element();
        let scale = if extent > 0.0 { MORTON_CELLS / extent } else { 0.0 };
        for item in &mut items {
            let cell = (self.nodes[item.leaf as usize].aabb.center() - low) * scale;
            item.code = morton_code(cell);
        }
        radix_sort_by_code(&mut items, &mut sorted);
        self.root = if items.is_empty() { NULL_NODE } else { self.build(&mut items, &mut slots) };
        if self.root != NULL_NODE {
            self.node_mut(self.root).parent = NULL_NODE;
        }
        debug_assert!(slots.is_empty(), "a tree of n leaves has n - 1 internal nodes");
        items.clear();
        sorted.clear();
        self.build_items = items;
        self.build_sorted = sorted;
        self.build_slots = slots;
    }

    /// The subtree over `items` (in curve order), its internal nodes taken from `slots`;
    /// returns its root. Each level of the recursion clears at least one bit of the codes or
    /// halves a run of equal codes, so it is under 42 + 32 deep.
    fn build(&mut self, items: &mut [BuildItem], slots: &mut Vec<u32>) -> u32 {
        if let [only] = items {
            return only.leaf;
        }
        let (first, last) = (items[0].code, items[items.len() - 1].code);
        let split = if first == last {
            self.split_at_median(items)
        } else {
            let bit = 63 - (first ^ last).leading_zeros();
            items.partition_point(|item| item.code & (1 << bit) == 0)
        };
        let (lower, upper) = items.split_at_mut(split);
        let child1 = self.build(lower, slots);
        let child2 = self.build(upper, slots);
        let parent = slots.pop().expect("a tree of n leaves has n - 1 internal nodes");
        let (c1, c2) = (self.node(child1), self.node(child2));
        let node = Node {
            aabb: c1.aabb.union(&c2.aabb),
            parent: NULL_NODE,
            child1,
            child2,
            height: 1 + c1.height.max(c2.height),
            user_data: 0,
        };
        *self.node_mut(parent) = node;
        self.node_mut(child1).parent = parent;
        self.node_mut(child2).parent = parent;
        parent
    }

    /// Splits a run of leaves that share one cell of the curve at the median of their centres
    /// along the axis where they spread most (ties by slot), and returns the split. Cells are
    /// small, but one body far away (fallen for minutes) makes every cell large, and the rest
    /// of the scene then shares a few: the median keeps the tree spatial inside them.
    fn split_at_median(&self, items: &mut [BuildItem]) -> usize {
        let center = |item: &BuildItem| self.node(item.leaf).aabb.center();
        let (mut low, mut high) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
        for item in items.iter() {
            low = low.min(center(item));
            high = high.max(center(item));
        }
        let spread = high - low;
        let axis = if spread.x >= spread.y && spread.x >= spread.z {
            0
        } else if spread.y >= spread.z {
            1
        } else {
            2
        };
        let middle = items.len() / 2;
        items.select_nth_unstable_by(middle, |a, b| {
            center(a)[axis].total_cmp(&center(b)[axis]).then(a.leaf.cmp(&b.leaf))
        });
        middle
    }

    /// Bytes of the node pool.
    pub fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<Node>()
    }

    /// The fat AABB stored for a proxy.
    pub fn fat_aabb(&self, proxy: u32) -> Aabb {
        self.debug_assert_proxy(proxy);
        self.node(proxy).aabb
    }

    /// The root's box, which holds every proxy's (`None` for an empty tree).
    pub fn root_aabb(&self) -> Option<Aabb> {
        (self.root != NULL_NODE).then(|| self.node(self.root).aabb)
    }

    /// The user data stored for a proxy.
    pub fn user_data(&self, proxy: u32) -> u32 {
        self.debug_assert_proxy(proxy);
        self.node(proxy).user_data
    }

    /// Number of live proxies.
    pub fn proxy_count(&self) -> usize {
        self.proxy_count as usize
    }

    /// Height of the root: 0 for an empty tree or a single proxy.
    pub fn height(&self) -> u32 {
        if self.root == NULL_NODE { 0 } else { self.node(self.root).height as u32 }
    }

    /// True when the tree holds no proxies.
    pub fn is_empty(&self) -> bool {
        self.root == NULL_NODE
    }

    /// A traversal stack holding the root, if any.
    fn root_stack(&self) -> FixedStack<u32> {
        let mut stack = FixedStack::new(NULL_NODE);
        if self.root != NULL_NODE {
            stack.push(self.root);
        }
        stack
    }

    fn node(&self, index: u32) -> &Node {
        &self.nodes[index as usize]
    }

    fn node_mut(&mut self, index: u32) -> &mut Node {
        &mut self.nodes[index as usize]
    }

    fn debug_assert_proxy(&self, proxy: u32) {
        debug_assert!(
            (proxy as usize) < self.nodes.len() && self.node(proxy).height == 0,
            "{proxy} is not a live proxy"
        );
    }

    fn allocate_node(&mut self) -> u32 {
        if self.free_list == NULL_NODE {
            self.grow_pool();
        }
        let index = self.free_list;
        self.free_list = self.node(index).parent;
        index
    }

    fn free_node(&mut self, index: u32) {
        *self.node_mut(index) = Node::free(self.free_list);
        self.free_list = index;
    }

    /// Doubles the pool; new slots are chained in ascending order so allocation order (and so
    /// every proxy id) depends only on the sequence of calls.
    fn grow_pool(&mut self) {
        let old_len = self.nodes.len();
        let new_len = (old_len * 2).max(INITIAL_CAPACITY);
        assert!(new_len <= NULL_NODE as usize, "AABB tree node pool exhausted");
        self.nodes.reserve_exact(new_len - old_len);
        let free_list = self.free_list;
        self.nodes.extend(
            (old_len..new_len).map(|i| Node::free(if i + 1 < new_len { (i + 1) as u32 } else { free_list })),
        );
        self.free_list = old_len as u32;
    }

    fn insert_leaf(&mut self, leaf: u32) {
        if self.root == NULL_NODE {
            self.root = leaf;
            self.node_mut(leaf).parent = NULL_NODE;
            return;
        }
        let leaf_aabb = self.node(leaf).aabb;
        let sibling = self.find_best_sibling(&leaf_aabb);
        let old_parent = self.node(sibling).parent;
        let new_parent = self.allocate_node();
        let sibling_node = *self.node(sibling);
        *self.node_mut(new_parent) = Node {
            aabb: sibling_node.aabb.union(&leaf_aabb),
            parent: old_parent,
            child1: sibling,
            child2: leaf,
            height: sibling_node.height + 1,
            user_data: 0,
        };
        self.node_mut(sibling).parent = new_parent;
        self.node_mut(leaf).parent = new_parent;
        self.replace_child(old_parent, sibling, new_parent);
        self.rebalance_upwards(old_parent);
    }

    /// The sibling for a new leaf: a greedy descent by surface area.
    ///
    /// Only nodes of height 0 or 1 may become the sibling: pairing a leaf with a taller subtree
    /// would leave the new parent out of AVL balance by more than one rotation can repair. So
    /// the walk goes down from the root into the child whose box grows least by taking the
    /// leaf (then the smaller union) until it reaches height 1 or 0, and there takes the node
    /// itself or one of its two leaves, whichever adds the least area. An exhaustive
    /// branch-and-bound over the same cost visited a few hundred nodes per insertion in a
    /// landing pile, where many boxes overlap and the bound prunes little (a tenth of the
    /// rain's step); the descent visits two per level. The tree's shape changes no simulation
    /// result: pairs are sorted before use.
    fn find_best_sibling(&self, leaf_aabb: &Aabb) -> u32 {
        let growth = |index: u32| {
            let aabb = self.node(index).aabb;
            let union_area = aabb.union(leaf_aabb).surface_area();
            (union_area - aabb.surface_area(), union_area)
        };
        let mut index = self.root;
        while self.node(index).height > 1 {
            let node = self.node(index);
            let ((g1, u1), (g2, u2)) = (growth(node.child1), growth(node.child2));
            index = if g2 < g1 || (g2 == g1 && u2 < u1) { node.child2 } else { node.child1 };
        }
        let node = self.node(index);
        if node.is_leaf() {
            return index;
        }
        // Costs relative to what the ancestors pay anyway: a new parent here adds the union's
        // area; one beside a child adds that union plus this node's growth.
        let (own_growth, own) = growth(index);
        let beside = |child: u32| own_growth + self.node(child).aabb.union(leaf_aabb).surface_area();
        let (c1, c2) = (beside(node.child1), beside(node.child2));
        if own <= c1 && own <= c2 {
            index
        } else if c1 <= c2 {
            node.child1
        } else {
            node.child2
        }
    }

    fn remove_leaf(&mut self, leaf: u32) {
        if leaf == self.root {
            self.root = NULL_NODE;
            return;
        }
        let parent = self.node(leaf).parent;
        let parent_node = *self.node(parent);
        let sibling = if parent_node.child1 == leaf { parent_node.child2 } else { parent_node.child1 };
        self.replace_child(parent_node.parent, parent, sibling);
        self.node_mut(sibling).parent = parent_node.parent;
        self.free_node(parent);
        self.rebalance_upwards(parent_node.parent);
    }

    /// Points `parent`'s link at `old` to `new` (or makes `new` the root); `new.parent` is the
    /// caller's job.
    fn replace_child(&mut self, parent: u32, old: u32, new: u32) {
        if parent == NULL_NODE {
            self.root = new;
            return;
        }
        let node = self.node_mut(parent);
        if node.child1 == old {
            node.child1 = new;
        } else {
            debug_assert_eq!(node.child2, old);
            node.child2 = new;
        }
    }

    /// Restores AABBs, heights and balance from `start` up towards the root, as far as they
    /// change. Below `start` the tree is already correct, and each step changes a subtree's
    /// height by at most one, so in an AVL-balanced tree no node is ever more than one rotation
    /// out of balance; in a rebuilt tree, whose spatial splits may leave siblings further
    /// apart, a rotation brings a node closer to balance.
    fn rebalance_upwards(&mut self, start: u32) {
        let mut index = start;
        while index != NULL_NODE {
            let before = (self.node(index).aabb, self.node(index).height);
            let top = self.rotate_if_unbalanced(index);
            self.refit(top);
            let node = self.node(top);
            // A node whose box and height came out as they were leaves everything above as it
            // was (each ancestor holds its children's boxes, and balance reads heights only):
            // most moves of a slow body end a level or two up instead of at the root.
            if top == index && (node.aabb, node.height) == before {
                break;
            }
            index = node.parent;
        }
    }

    fn refit(&mut self, index: u32) {
        let node = *self.node(index);
        let (c1, c2) = (*self.node(node.child1), *self.node(node.child2));
        let target = self.node_mut(index);
        target.aabb = c1.aabb.union(&c2.aabb);
        target.height = 1 + c1.height.max(c2.height);
    }

    /// Returns the node now at `index`'s place: `index` itself, or its promoted taller child.
    fn rotate_if_unbalanced(&mut self, index: u32) -> u32 {
        let node = *self.node(index);
        let balance = self.node(node.child2).height - self.node(node.child1).height;
        if balance.abs() <= 1 {
            return index;
        }
        let tall = if balance > 0 { node.child2 } else { node.child1 };
        self.promote(index, tall);
        tall
    }

    /// Lifts `tall` into its parent `demoted`'s place. `tall` keeps its taller child (ties keep
    /// child1) so its height drops; the shorter grandchild moves under `demoted`. Child order
    /// carries no meaning in an AABB tree, so one such rotation covers both AVL cases.
    fn promote(&mut self, demoted: u32, tall: u32) {
        let t = *self.node(tall);
        let moved =
            if self.node(t.child1).height >= self.node(t.child2).height { t.child2 } else { t.child1 };
        let grandparent = self.node(demoted).parent;
        self.replace_child(grandparent, demoted, tall);
        self.node_mut(tall).parent = grandparent;
        self.replace_child(tall, moved, demoted);
        self.node_mut(demoted).parent = tall;
        self.replace_child(demoted, tall, moved);
        self.node_mut(moved).parent = demoted;
        self.refit(demoted);
    }
}

fn is_valid_aabb(aabb: &Aabb) -> bool {
    aabb.is_finite() && aabb.min.cmple(aabb.max).all()
}
