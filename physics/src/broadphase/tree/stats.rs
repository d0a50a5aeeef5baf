//! Tree statistics for the editor and a full structural check for tests.

use super::{DynamicTree, NULL_NODE, Node};

/// Tree statistics for the editor's broadphase panel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TreeStats {
    /// Height of the root (0 for an empty tree or a single proxy).
    pub height: u32,
    /// Live nodes: leaves plus internal nodes (`2 * proxy_count - 1` when not empty).
    pub node_count: u32,
    /// Live proxies (leaves).
    pub proxy_count: u32,
    /// Largest `|height(child1) - height(child2)|` over internal nodes: at most 1 while only
    /// one-at-a-time changes shaped the tree, more after a rebuild's spatial splits.
    pub max_balance: u32,
    /// Sum of the surface areas of the internal nodes' AABBs (leaves excluded): the cost the
    /// insertion heuristic keeps low.
    pub total_surface_area: f32,
}

impl DynamicTree {
    /// Height, node counts, balance and surface-area cost of the tree. Walks the whole tree.
    pub fn stats(&self) -> TreeStats {
        let mut stats = TreeStats { height: self.height(), ..TreeStats::default() };
        let mut stack = self.root_stack();
        while let Some(index) = stack.pop() {
            let node = self.node(index);
            stats.node_count += 1;
            if node.is_leaf() {
                stats.proxy_count += 1;
                continue;
            }
            let balance = self.node(node.child1).height.abs_diff(self.node(node.child2).height);
            stats.max_balance = stats.max_balance.max(balance);
            stats.total_surface_area += node.aabb.surface_area();
            stack.push(node.child2);
            stack.push(node.child1);
        }
        stats
    }

    /// Checks every invariant: parent links, parents' AABBs containing their children, heights,
    /// the proxy count, and that live plus free nodes fill the pool. (Balance is not one: a
    /// rebuild splits space, not counts; tests of one-at-a-time changes read
    /// [`TreeStats::max_balance`].)
    /// Meant for tests; it allocates and walks the whole tree.
    pub fn validate(&self) -> Result<(), String> {
        let mut seen = vec![false; self.nodes.len()];
        let (live, leaves) = self.validate_live(&mut seen)?;
        if leaves != self.proxy_count {
            return Err(format!("{leaves} leaves but proxy_count is {}", self.proxy_count));
        }
        let free = self.validate_free_list(&mut seen)?;
        if live + free != self.nodes.len() {
            return Err(format!("{live} live + {free} free nodes but the pool has {}", self.nodes.len()));
        }
        Ok(())
    }

    /// Returns (live nodes, leaves) reachable from the root.
    fn validate_live(&self, seen: &mut [bool]) -> Result<(usize, u32), String> {
        if self.root == NULL_NODE {
            return Ok((0, 0));
        }
        self.check_index(self.root, seen)?;
        if self.node(self.root).parent != NULL_NODE {
            return Err(format!("root {} has a parent", self.root));
        }
        let (mut live, mut leaves) = (0, 0);
        let mut stack = vec![self.root];
        while let Some(index) = stack.pop() {
            live += 1;
            let node = self.node(index);
            if node.is_leaf() {
                leaves += 1;
                check_leaf(index, node)?;
                continue;
            }
            for child in [node.child1, node.child2] {
                self.check_index(child, seen)?;
                stack.push(child);
            }
            self.check_internal(index)?;
        }
        Ok((live, leaves))
    }

    fn check_index(&self, index: u32, seen: &mut [bool]) -> Result<(), String> {
        let slot = seen.get_mut(index as usize).ok_or_else(|| format!("node {index} out of range"))?;
        if std::mem::replace(slot, true) {
            return Err(format!("node {index} reached twice"));
        }
        Ok(())
    }

    fn check_internal(&self, index: u32) -> Result<(), String> {
        let node = self.node(index);
        let (c1, c2) = (self.node(node.child1), self.node(node.child2));
        if c1.parent != index || c2.parent != index {
            return Err(format!("a child of node {index} does not point back to it"));
        }
        if !node.aabb.contains(&c1.aabb) || !node.aabb.contains(&c2.aabb) {
            return Err(format!("node {index}'s AABB does not contain its children"));
        }
        if c1.height < 0 || c2.height < 0 || node.height != 1 + c1.height.max(c2.height) {
            return Err(format!(
                "node {index} has height {} over children {} and {}",
                node.height, c1.height, c2.height
            ));
        }
        Ok(())
    }

    fn validate_free_list(&self, seen: &mut [bool]) -> Result<usize, String> {
        let mut free = 0;
        let mut index = self.free_list;
        while index != NULL_NODE {
            self.check_index(index, seen)?;
            if self.node(index).height != -1 {
                return Err(format!("free node {index} has height {}", self.node(index).height));
            }
            free += 1;
            index = self.node(index).parent;
        }
        Ok(free)
    }
}

fn check_leaf(index: u32, node: &Node) -> Result<(), String> {
    if node.child2 != NULL_NODE || node.height != 0 {
        return Err(format!("leaf {index} has child2 {} and height {}", node.child2, node.height));
    }
    Ok(())
}
