//! A loose kD tree over one chunk's triangles.
//!
//! Each node splits its triangles on one axis and keeps two planes: every left triangle lies at
//! or below `left_max`, every right one at or above `right_min` (the halves may overlap, hence
//! "loose"). Triangles are stored in leaf order, so a subtree is a contiguous triangle range and
//! a range of at most [`LEAF_SIZE`] triangles is a leaf without a node of its own. A node is 12
//! bytes: the two planes and a u32 holding the axis, the first triangle of the right half and
//! the index of the right child (the left child, when it is a node, follows its parent).
//! Queries walk an explicit stack, never recursion.

use super::mesher::{ChunkMesh, QuantizedBox};
use crate::math::{Aabb, Vec3};
use std::ops::{Add, Mul, Sub};
use wide::f32x4;

/// Most triangles in a leaf.
pub const LEAF_SIZE: usize = 2;
/// Ray queries test a range of at most this many triangles at once, in four SIMD lanes,
/// rather than splitting it at its node: four triangle tests cost about what one node step and
/// one triangle test do, without their branches.
const BATCH: usize = 4;
/// Depth after which every split is a median split, which bounds the depth (and the query
/// stack) for any input.
const MEAN_SPLIT_DEPTH: u32 = 32;
/// Query stack entries: 32 mean-split levels plus log2 of the most triangles a chunk can have.
const STACK: usize = 64;
/// Query stack entries kept in the small array cleared on every query; deeper pushes go
/// to a full [`STACK`] array made on first use (balanced chunk trees never need it). Tests use
/// 2, so the brute-force comparisons run the deep path too.
const SHALLOW: usize = if cfg!(test) { 2 } else { 16 };
/// Slack of the planes for ray segments (voxel units), so rounding in a segment's end cannot
/// cut off a triangle that the brute-force test hits.
const RAY_SLACK: f32 = 1e-3;

/// One kD node (12 bytes).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct KdNode {
    /// Upper bound of the left half along the axis.
    pub left_max: f32,
    /// Lower bound of the right half along the axis.
    pub right_min: f32,
    /// Axis (2 bits), first triangle of the right half (15 bits), right child node (15 bits).
    bits: u32,
}

// The storage figure (under 16 bytes a triangle with the mesh) counts on 12-byte nodes.
const _: () = assert!(std::mem::size_of::<KdNode>() == 12);

impl KdNode {
    fn new(left_max: f32, right_min: f32, axis: usize, split: usize, right: usize) -> KdNode {
        debug_assert!(split < 1 << 15 && right < 1 << 15);
        KdNode { left_max, right_min, bits: axis as u32 | (split as u32) << 2 | (right as u32) << 17 }
    }

    /// The split axis (0 = x, 1 = y, 2 = z).
    #[inline]
    pub fn axis(&self) -> usize {
        (self.bits & 3) as usize
    }

    /// The first triangle of the right half.
    #[inline]
    pub fn split(&self) -> usize {
        ((self.bits >> 2) & 0x7fff) as usize
    }

    /// The right child's node index (meaningful when the right half is not a leaf).
    #[inline]
    pub fn right(&self) -> usize {
        (self.bits >> 17) as usize
    }
}

/// The tree: nodes in one array (root first) and the box around every triangle.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KdTree {
    nodes: Vec<KdNode>,
    bounds: Aabb,
    triangles: u16,
}

/// A triangle's box and midpoint, as the build reads them.
#[derive(Clone, Copy)]
struct Tri {
    min: [f32; 3],
    max: [f32; 3],
    mid: [f32; 3],
}

/// What a split needs to know about its range: the box around its triangles and the sum of
/// their midpoints per axis, summed in range order from -0.0 (as `Iterator::sum` does), so the
/// mean is the same whichever pass computes it.
#[derive(Clone, Copy)]
struct Stats {
    min: [f32; 3],
    max: [f32; 3],
    sum: [f32; 3],
}

impl Stats {
    const EMPTY: Stats = Stats { min: [f32::MAX; 3], max: [f32::MIN; 3], sum: [-0.0; 3] };

    #[inline]
    fn add(&mut self, tri: &Tri) {
        for a in 0..3 {
            self.min[a] = self.min[a].min(tri.min[a]);
            self.max[a] = self.max[a].max(tri.max[a]);
            self.sum[a] += tri.mid[a];
        }
    }

    /// The stats of the triangles `order`, in that order.
    fn of(info: &[Tri], order: &[u16]) -> Stats {
        let mut s = Stats::EMPTY;
        for &t in order {
            s.add(&info[t as usize]);
        }
        s
    }
}

/// A pending subtree: node index (when not a leaf) and triangle range.
#[derive(Clone, Copy, Default)]
struct Range {
    node: u16,
    lo: u16,
    hi: u16,
}

impl KdTree {
    /// Builds the tree over `mesh`'s triangles and puts them in leaf order. Splits the longest
    /// axis at the mean of the triangle midpoints, or at the median when fewer than a quarter of
    /// the triangles would fall on one side.
    ///
    /// Each triangle's box and midpoint are computed once; the splits reorder one index buffer
    /// in place (a stable partition through one scratch buffer, a sort for the rarer median
    /// split), so a build makes a fixed handful of allocations whatever the tree's shape, and a
    /// mean split reads each of its triangles once. The order of every f32 sum is the order of
    /// the triangles in the range, so equal inputs give equal trees (the same trees as the
    /// first, simpler build: a proptest checks it node for node).
    pub fn build(mesh: &mut ChunkMesh) -> KdTree {
        let n = mesh.triangle_count();
        assert!(n < 1 << 15, "a chunk mesh has at most 3072 triangles");
        // Vertices decoded once each (a vertex serves about five triangles).
        let vertices: Vec<Vec3> = (0..mesh.vertex_count()).map(|i| mesh.position(i)).collect();
        let info: Vec<Tri> = (0..n)
            .map(|t| {
                let [a, b, c] = mesh.triangle_indices(t).map(|i| vertices[i as usize]);
                let (min, max) = (a.min(b).min(c), a.max(b).max(c));
                Tri { min: min.to_array(), max: max.to_array(), mid: ((min + max) * 0.5).to_array() }
            })
            .collect();
        let mut tree = KdTree { triangles: n as u16, ..Default::default() };
        let mut order: Vec<u16> = (0..n as u16).collect();
        let stats = Stats::of(&info, &order);
        if n > 0 {
            tree.bounds = Aabb::new(Vec3::from_array(stats.min), Vec3::from_array(stats.max));
        }
        let mut scratch = vec![0u16; n];
        tree.nodes.reserve(n / LEAF_SIZE);
        tree.split(&info, &mut order, &mut scratch, stats, 0, 0);
        mesh.reorder(&order);
        tree
    }

    /// Splits the range `order` (whose `stats` the caller found) and its halves. In a mean
    /// split, the one pass that partitions the range also finds each half's stats, in the
    /// half's own order, so each level of the tree reads each triangle once.
    fn split(
        &mut self,
        info: &[Tri],
        order: &mut [u16],
        scratch: &mut [u16],
        stats: Stats,
        first: usize,
        depth: u32,
    ) {
        let n = order.len();
        if n <= LEAF_SIZE {
            return;
        }
        let (min, max) = (stats.min, stats.max);
        let ext = [max[0] - min[0], max[1] - min[1], max[2] - min[2]];
        let axis = if ext[0] >= ext[1] && ext[0] >= ext[2] {
            0
        } else if ext[1] >= ext[2] {
            1
        } else {
            2
        };
        let mean = stats.sum[axis] / n as f32;
        // Stable partition: left triangles compacted in place, right ones through `scratch`.
        let (mut left, mut right) = (0, 0);
        let (mut ls, mut rs) = (Stats::EMPTY, Stats::EMPTY);
        for i in 0..n {
            let t = order[i];
            let tri = &info[t as usize];
            if tri.mid[axis] < mean {
                order[left] = t;
                left += 1;
                ls.add(tri);
            } else {
                scratch[right] = t;
                right += 1;
                rs.add(tri);
            }
        }
        order[left..].copy_from_slice(&scratch[..right]);
        let split = if depth < MEAN_SPLIT_DEPTH && left * 4 >= n && right * 4 >= n {
            left
        } else {
            // The order is total, so the result does not depend on the partition above.
            let key = |t: u16| info[t as usize].mid[axis];
            order.sort_unstable_by(|&a, &b| key(a).total_cmp(&key(b)).then(a.cmp(&b)));
            let half = n / 2;
            ls = Stats::of(info, &order[..half]);
            rs = Stats::of(info, &order[half..]);
            half
        };
        let (left_max, right_min) = (ls.max[axis], rs.min[axis]);
        let index = self.nodes.len();
        self.nodes.push(KdNode::new(left_max, right_min, axis, 0, 0));
        let (lo, hi) = order.split_at_mut(split);
        self.split(info, lo, scratch, ls, first, depth + 1);
        let right = self.nodes.len();
        self.split(info, hi, scratch, rs, first + split, depth + 1);
        self.nodes[index] = KdNode::new(left_max, right_min, axis, first + split, right);
    }

    /// The nodes, root first.
    pub fn nodes(&self) -> &[KdNode] {
        &self.nodes
    }

    /// The box around every triangle (local voxel units).
    pub fn bounds(&self) -> Aabb {
        self.bounds
    }

    /// Heap bytes of the tree.
    pub fn bytes(&self) -> usize {
        self.nodes.len() * std::mem::size_of::<KdNode>()
    }

    /// The children of a node's range: (left, right).
    #[inline]
    fn children(&self, r: Range) -> (KdNode, Range, Range) {
        let node = self.nodes[r.node as usize];
        let split = node.split() as u16;
        (
            node,
            Range { node: r.node + 1, lo: r.lo, hi: split },
            Range { node: node.right() as u16, lo: split, hi: r.hi },
        )
    }

    /// Calls `f` with every triangle whose box overlaps `aabb` (local voxel units), in
    /// ascending (leaf) order. Descends only into the halves the box reaches.
    pub fn query_aabb(&self, mesh: &ChunkMesh, aabb: &Aabb, mut f: impl FnMut(usize)) {
        if self.triangles == 0 || !self.bounds.overlaps(aabb) {
            return;
        }
        // Leaves compare the triangles' quantised corners with the box in steps: integer
        // comparisons in place of decoding every corner.
        let steps = QuantizedBox::new(aabb);
        // Pending halves: the first SHALLOW in a small array, deeper ones (unbalanced trees
        // only) in a full-depth one made when first needed, so a query does not clear the
        // 384 bytes of a full-depth stack it almost never uses.
        let mut stack = [Range::default(); SHALLOW];
        let mut deep: Option<[Range; STACK]> = None;
        let mut len = 0;
        let mut r = Range { node: 0, lo: 0, hi: self.triangles };
        loop {
            if (r.hi - r.lo) as usize <= LEAF_SIZE {
                for t in r.lo as usize..r.hi as usize {
                    if mesh.triangle_overlaps(t, &steps) {
                        f(t);
                    }
                }
            } else {
                let (node, left, right) = self.children(r);
                let a = node.axis();
                let (to_left, to_right) = (aabb.min[a] <= node.left_max, aabb.max[a] >= node.right_min);
                // Left first, so triangles come out in leaf order, which is ascending.
                if to_right {
                    if !to_left {
                        r = right;
                        continue;
                    }
                    if len < SHALLOW {
                        stack[len] = right;
                    } else {
                        deep.get_or_insert([Range::default(); STACK])[len] = right;
                    }
                    len += 1;
                }
                if to_left {
                    r = left;
                    continue;
                }
            }
            if len == 0 {
                break;
            }
            len -= 1;
            r = match &deep {
                Some(deep) if len >= SHALLOW => deep[len],
                _ => stack[len],
            };
        }
    }

    /// The closest triangle hit by `origin + t dir`, `0 <= t <= max_t` (local voxel units):
    /// `(t, triangle)`, ties to the lower triangle. Visits the near half first and skips any
    /// segment that starts beyond the best hit.
    ///
    /// The walk descends straight into the near half (keeping the far one when the ray reaches
    /// it), tests a range of up to [`BATCH`] triangles at once, and finds a node's segments
    /// with the direction's reciprocals computed once: one subtraction and one multiplication
    /// per plane. The planes' slack
    /// ([`RAY_SLACK`], 1e-3 voxel) dwarfs the reciprocal's extra rounding (a few 1e-8 of the
    /// distance to the plane, under 1e-3 voxel for any ray inside the largest bounds).
    pub fn cast_ray(&self, mesh: &ChunkMesh, origin: Vec3, dir: Vec3, max_t: f32) -> Option<(f32, usize)> {
        self.cast_ray_inv(mesh, origin, dir, Vec3::ONE / dir, max_t)
    }

    /// [`KdTree::cast_ray`] with the direction's reciprocals `inv = 1 / dir` given, for a
    /// caller that casts one direction into many trees (the world walk).
    #[inline]
    pub(crate) fn cast_ray_inv(
        &self,
        mesh: &ChunkMesh,
        origin: Vec3,
        dir: Vec3,
        inv: Vec3,
        max_t: f32,
    ) -> Option<(f32, usize)> {
        if self.triangles == 0 {
            return None;
        }
        let (t0, t1) = slab_inv(&self.bounds.grown(RAY_SLACK), origin, dir, inv, 0.0, max_t)?;
        // Pending far halves: the first SHALLOW in a small array, the rest (deep, unbalanced
        // trees only) in a full-depth one made when first needed, so a query does not clear a
        // kilobyte of stack it almost never uses.
        let mut stack = [(Range::default(), 0.0f32, 0.0f32); SHALLOW];
        let mut deep: Option<[(Range, f32, f32); STACK]> = None;
        let mut len = 0;
        // The best hit so far: its `t` starts at the limit (a hit there still counts) and its
        // triangle past every index, so ties need no Option.
        let (mut best_t, mut best_i) = (max_t, usize::MAX);
        let ray4 = Ray4::new(origin, dir);
        // Per axis: does the ray run towards lower values (a zero component counts by the sign
        // of its reciprocal, an infinity of that sign)?
        let (o, inv) = (origin.to_array(), inv.to_array());
        let negative = inv.map(|i| i < 0.0);
        let (mut r, mut tmin, mut tmax) = (Range { node: 0, lo: 0, hi: self.triangles }, t0, t1);
        loop {
            if tmin <= best_t {
                let n = (r.hi - r.lo) as usize;
                if n <= BATCH {
                    let lo = r.lo as usize;
                    if let Some((th, k)) = ray_triangles4(&ray4, mesh.corners4(lo, n), n, best_t)
                        && (th < best_t || lo + k < best_i)
                    {
                        (best_t, best_i) = (th, lo + k);
                    }
                } else {
                    let (node, left, right) = self.children(r);
                    let a = node.axis();
                    // Where the ray crosses the two planes (slack added). With a zero direction
                    // component the reciprocal is infinite and these are ±inf, or NaN when the
                    // origin is on the plane, which `min`/`max` below ignore: the half holding
                    // the origin keeps [tmin, tmax] and the other gets an empty segment.
                    let t_below = (node.left_max + RAY_SLACK - o[a]) * inv[a];
                    let t_above = (node.right_min - RAY_SLACK - o[a]) * inv[a];
                    // Parts of [tmin, tmax] where the ray is at or below `left_max` / at or
                    // above `right_min`; the near one (the side the ray starts on) first.
                    let (near, far) = if negative[a] {
                        ((right, tmin, tmax.min(t_above)), (left, tmin.max(t_below), tmax))
                    } else {
                        ((left, tmin, tmax.min(t_below)), (right, tmin.max(t_above), tmax))
                    };
                    // The far half is written whether or not the ray reaches it and counted
                    // only if it does, and a near half the ray misses falls through to the pop
                    // (which may take the far half back at once): one hard-to-predict branch
                    // per node rather than a four-way one.
                    let far_reached = usize::from(far.1 <= far.2);
                    if len < SHALLOW {
                        stack[len] = far;
                        len += far_reached;
                    } else if far_reached == 1 {
                        deep.get_or_insert([(Range::default(), 0.0, 0.0); STACK])[len] = far;
                        len += 1;
                    }
                    if near.1 <= near.2 {
                        (r, tmin, tmax) = near;
                        continue;
                    }
                }
            }
            if len == 0 {
                break;
            }
            len -= 1;
            (r, tmin, tmax) = match &deep {
                Some(deep) if len >= SHALLOW => deep[len],
                _ => stack[len],
            };
        }
        (best_i != usize::MAX).then_some((best_t, best_i))
    }
}

/// The part of `[t0, t1]` where `origin + t dir` lies in `b`.
pub(crate) fn slab(b: &Aabb, origin: Vec3, dir: Vec3, mut t0: f32, mut t1: f32) -> Option<(f32, f32)> {
    for a in 0..3 {
        let (o, d) = (origin[a], dir[a]);
        if d == 0.0 {
            if o < b.min[a] || o > b.max[a] {
                return None;
            }
            continue;
        }
        let (ta, tb) = ((b.min[a] - o) / d, (b.max[a] - o) / d);
        t0 = t0.max(ta.min(tb));
        t1 = t1.min(ta.max(tb));
    }
    (t0 <= t1).then_some((t0, t1))
}

/// [`slab`] with the direction's reciprocals `inv` given: multiplications instead of
/// divisions, for callers that test many boxes with one ray. The result can differ from
/// [`slab`]'s by a few ulps of the distances, so the boxes must carry slack for it.
#[inline]
pub(crate) fn slab_inv(
    b: &Aabb,
    origin: Vec3,
    dir: Vec3,
    inv: Vec3,
    mut t0: f32,
    mut t1: f32,
) -> Option<(f32, f32)> {
    for a in 0..3 {
        let o = origin[a];
        if dir[a] == 0.0 {
            if o < b.min[a] || o > b.max[a] {
                return None;
            }
            continue;
        }
        let (ta, tb) = ((b.min[a] - o) * inv[a], (b.max[a] - o) * inv[a]);
        t0 = t0.max(ta.min(tb));
        t1 = t1.min(ta.max(tb));
    }
    (t0 <= t1).then_some((t0, t1))
}

/// Möller–Trumbore's terms for one triangle (`f32`) or four (`f32x4`, one per lane): the
/// determinant and `u`, `v` and `t` times it. Generic, so the kD walk's four-wide test and the
/// one-triangle [`ray_triangle`] (the brute-force reference) run the same IEEE operations in
/// the same order (no fused multiply-add) and agree bit for bit.
#[inline(always)]
fn mt_terms<L>(o: [L; 3], d: [L; 3], [a, b, c]: [[L; 3]; 3]) -> [L; 4]
where
    L: Copy + Add<Output = L> + Sub<Output = L> + Mul<Output = L>,
{
    let sub = |x: [L; 3], y: [L; 3]| [x[0] - y[0], x[1] - y[1], x[2] - y[2]];
    let cross = |x: [L; 3], y: [L; 3]| {
        [x[1] * y[2] - y[1] * x[2], x[2] * y[0] - y[2] * x[0], x[0] * y[1] - y[0] * x[1]]
    };
    let dot = |x: [L; 3], y: [L; 3]| x[0] * y[0] + x[1] * y[1] + x[2] * y[2];
    let (e1, e2) = (sub(b, a), sub(c, a));
    let p = cross(d, e2);
    let s = sub(o, a);
    let q = cross(s, e1);
    [dot(e1, p), dot(s, p), dot(d, q), dot(e2, q)]
}

/// Möller–Trumbore, two-sided: `t` of the hit with triangle `[a, b, c]` in `[0, max_t]`.
/// Edges count as inside, so a ray through a shared edge hits one of its triangles.
///
/// The barycentric bounds are tested on `u det` and `v det` (signs flipped with `det`'s), so
/// a miss, which most tests are, costs no division; only a ray that meets the triangle
/// divides, once, for `t`.
#[inline]
pub fn ray_triangle(origin: Vec3, dir: Vec3, [a, b, c]: [Vec3; 3], max_t: f32) -> Option<f32> {
    let corners = [a.to_array(), b.to_array(), c.to_array()];
    let [det, mut u, mut v, t_det] = mt_terms(origin.to_array(), dir.to_array(), corners);
    if det < 0.0 {
        (u, v) = (-u, -v);
    }
    let size = det.abs();
    // A zero, infinite or NaN det has no meaningful t.
    if size == 0.0 || !size.is_finite() || u < 0.0 || v < 0.0 || u + v > size {
        return None;
    }
    let t = t_det / det;
    (t >= 0.0 && t <= max_t).then_some(t)
}

/// A ray in four lanes for [`ray_triangles4`].
#[derive(Clone, Copy)]
struct Ray4 {
    origin: [f32x4; 3],
    dir: [f32x4; 3],
}

impl Ray4 {
    fn new(origin: Vec3, dir: Vec3) -> Ray4 {
        Ray4 { origin: origin.to_array().map(f32x4::splat), dir: dir.to_array().map(f32x4::splat) }
    }
}

/// [`ray_triangle`] on the triangles in the first `n` lanes of `corners` at once: the closest
/// hit in `[0, max_t]` as `(t, lane)`, ties to the lower lane. Every lane computes exactly
/// what [`ray_triangle`] does, and the lanes need no branch until the (rare) hit.
#[inline]
fn ray_triangles4(ray: &Ray4, corners: [[f32x4; 3]; 3], n: usize, max_t: f32) -> Option<(f32, usize)> {
    let zero = f32x4::ZERO;
    let [det, u, v, t_det] = mt_terms(ray.origin, ray.dir, corners);
    let flip = det.simd_lt(zero);
    let (u, v) = (flip.bitselect(-u, u), flip.bitselect(-v, v));
    let size = det.abs();
    let inside = size.simd_gt(zero)
        & size.simd_ne(f32x4::splat(f32::INFINITY))
        & u.simd_ge(zero)
        & v.simd_ge(zero)
        & (u + v).simd_le(size);
    let mut lanes = inside.to_bitmask() & ((1 << n) - 1);
    if lanes == 0 {
        return None;
    }
    let t = t_det / det;
    lanes &= (t.simd_ge(zero) & t.simd_le(f32x4::splat(max_t))).to_bitmask();
    let t = t.to_array();
    let mut best: Option<(f32, usize)> = None;
    while lanes != 0 {
        let k = lanes.trailing_zeros() as usize;
        lanes &= lanes - 1;
        if best.is_none_or(|(bt, _)| t[k] < bt) {
            best = Some((t[k], k));
        }
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each lane of the four-wide test is the one-triangle reference, bit for bit, including
    /// degenerate (repeated-corner) triangles, rays in their planes and hits at `max_t`.
    #[test]
    fn four_lanes_equal_the_reference() {
        let mut seed = 0x9e37_79b9_u32;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed
        };
        // Corners on the mesh's quantisation grid, few enough values that corners repeat.
        let mut point = || Vec3::from_array([(); 3].map(|_| (next() % 9) as f32 * 0.25 - 1.0));
        let mut hits = 0;
        for i in 0..20_000 {
            let tris: [[Vec3; 3]; 4] = std::array::from_fn(|_| [point(), point(), point()]);
            let (origin, dir) = (point() * 2.0, point() - point());
            let max_t = if i % 2 == 0 { 3.0 } else { f32::MAX };
            let lanes = |k: usize, a: usize| f32x4::from(std::array::from_fn::<f32, 4, _>(|l| tris[l][k][a]));
            let corners = std::array::from_fn(|k| std::array::from_fn(|a| lanes(k, a)));
            for n in 1..=4 {
                let mut expected: Option<(f32, usize)> = None;
                for (l, tri) in tris.iter().enumerate().take(n) {
                    if let Some(t) = ray_triangle(origin, dir, *tri, max_t)
                        && expected.is_none_or(|(bt, _)| t < bt)
                    {
                        expected = Some((t, l));
                    }
                }
                let got = ray_triangles4(&Ray4::new(origin, dir), corners, n, max_t);
                assert_eq!(got.map(|(t, l)| (t.to_bits(), l)), expected.map(|(t, l)| (t.to_bits(), l)));
                hits += usize::from(got.is_some());
            }
        }
        assert!(hits > 1000, "{hits}");
    }
}
