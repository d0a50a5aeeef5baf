//! Read-only traversals: box queries, ray casts and node enumeration, all on fixed stacks.

use super::{DynamicTree, FixedStack, NULL_NODE};
use crate::math::{Aabb, Vec3};

impl DynamicTree {
    /// Calls `callback(proxy, user_data)` for every proxy whose fat AABB overlaps or touches
    /// `aabb`. Returning `false` from the callback stops the query.
    ///
    /// Visits proxies in a deterministic depth-first order (child1 before child2) and never
    /// allocates.
    pub fn query(&self, aabb: &Aabb, mut callback: impl FnMut(u32, u32) -> bool) {
        let mut stack = FixedStack::new(NULL_NODE);
        if self.root != NULL_NODE && self.node(self.root).aabb.overlaps(aabb) {
            stack.push(self.root);
        }
        // Every node on the stack overlaps `aabb`: a parent tests both children's boxes before
        // pushing them, so the two nodes' loads, independent of each other, wait on memory
        // together, where popping each child to test it waited for one load after the other
        // (a query in a moving pile is a chain of such waits). The pushes stay branches: pushed
        // without one (the slot past the top written either way, counted when the child
        // overlaps), the rain's queries mispredicted less but took as long and the free fall's
        // longer, since the next pop's load then waits for the comparisons, where a predicted
        // branch lets the core load ahead.
        while let Some(index) = stack.pop() {
            let node = self.node(index);
            if node.is_leaf() {
                if !callback(index, node.user_data) {
                    return;
                }
                continue;
            }
            let (first, second) = (self.node(node.child1), self.node(node.child2));
            let (first_overlaps, second_overlaps) = (first.aabb.overlaps(aabb), second.aabb.overlaps(aabb));
            if second_overlaps {
                stack.push(node.child2);
            }
            if first_overlaps {
                stack.push(node.child1);
            }
        }
    }

    /// Casts the segment `origin + t * dir`, `t` in `[0, max_t]`, against the proxies' fat AABBs.
    ///
    /// `callback(proxy, user_data, max_t)` gets the current `max_t` and returns the new one:
    /// return it unchanged to keep going, a smaller value (e.g. the hit distance on the real
    /// shape) to clip the ray, or a negative value to stop. Values above the current `max_t` are
    /// ignored, so the ray only ever shrinks. `dir` need not be normalised; `t` is in its units.
    ///
    /// Visits nodes depth-first, child1 before child2, and never allocates.
    pub fn ray_cast(
        &self,
        origin: Vec3,
        dir: Vec3,
        max_t: f32,
        mut callback: impl FnMut(u32, u32, f32) -> f32,
    ) {
        let ray = Ray::new(origin, dir);
        let mut max_t = max_t;
        let mut stack = self.root_stack();
        while let Some(index) = stack.pop() {
            let node = self.node(index);
            if !ray.hits(&node.aabb, max_t) {
                continue;
            }
            if node.is_leaf() {
                let new_t = callback(index, node.user_data, max_t);
                if new_t < 0.0 {
                    return;
                }
                max_t = max_t.min(new_t);
            } else {
                stack.push(node.child2);
                stack.push(node.child1);
            }
        }
    }

    /// Calls `f(aabb, height, depth, is_leaf)` for every live node, parents before children,
    /// child1 before child2; the root's depth is 0. A rebuilt tree is not balanced, so depth is
    /// not the root's height less the node's. Meant for debug drawing.
    pub fn for_each_node(&self, mut f: impl FnMut(&Aabb, u32, u32, bool)) {
        let mut stack = FixedStack::new((NULL_NODE, 0));
        if self.root != NULL_NODE {
            stack.push((self.root, 0));
        }
        while let Some((index, depth)) = stack.pop() {
            let node = self.node(index);
            f(&node.aabb, node.height as u32, depth, node.is_leaf());
            if !node.is_leaf() {
                stack.push((node.child2, depth + 1));
                stack.push((node.child1, depth + 1));
            }
        }
    }
}

/// A ray prepared for repeated slab tests.
struct Ray {
    origin: Vec3,
    inv_dir: Vec3,
}

impl Ray {
    fn new(origin: Vec3, dir: Vec3) -> Self {
        Self { origin, inv_dir: dir.recip() }
    }

    /// Slab test of the segment `t` in `[0, max_t]`; touching a face counts as a hit.
    fn hits(&self, aabb: &Aabb, max_t: f32) -> bool {
        let (mut t_enter, mut t_exit) = (0.0f32, max_t);
        for axis in 0..3 {
            let (o, inv) = (self.origin[axis], self.inv_dir[axis]);
            let (lo, hi) = (aabb.min[axis], aabb.max[axis]);
            // A (near) zero direction component gives an infinite inverse; the products would
            // turn into NaN on the slab faces, so test the origin against the slab directly.
            if inv.is_infinite() {
                if o < lo || o > hi {
                    return false;
                }
                continue;
            }
            let (t0, t1) = ((lo - o) * inv, (hi - o) * inv);
            t_enter = t_enter.max(t0.min(t1));
            t_exit = t_exit.min(t0.max(t1));
            if t_enter > t_exit {
                return false;
            }
        }
        true
    }
}
