//! A hull's vertices (or its face normals) four to a row, for the two scans every polyhedron
//! contact asks of a hull many times a step: the vertex farthest along a direction (the support)
//! and the face most opposed to one (the incident face). A body resting on terrain asks both for
//! each triangle under it, a pair of hulls for each face normal of the other.
//!
//! Each row holds four entries' x, y and z on four lanes, and each lane keeps the best entry of
//! its own (the entries whose index is the lane's modulo four); the four lanes' bests then give
//! the answer. Every lane computes a dot product with the one-by-one scan's operations in its
//! order (`x * dx + y * dy + z * dz`, left to right), and compares as it does (strictly, so the
//! first of equal entries stays), so the answer is the one-by-one scan's bit for bit:
//! `the_rows_answer_what_the_scan_answers` checks it on random point sets and directions, ties,
//! zeros of both signs, huge and infinite products and NaN included.

use crate::math::Vec3;
use wide::f32x4;

/// Entries (vertices or unit normals) as rows of four lanes per coordinate. The last row is
/// padded with copies of entry 0, which tie with it at most and so never win over it.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct ScanRows {
    rows: Vec<[[f32; 4]; 3]>,
}

impl ScanRows {
    /// The rows of `entries` (at least one).
    pub(crate) fn new(entries: &[Vec3]) -> ScanRows {
        let first = entries.first().copied().unwrap_or(Vec3::ZERO);
        let rows = entries
            .chunks(4)
            .map(|chunk| {
                let at = |k: usize| chunk.get(k).copied().unwrap_or(first);
                [0, 1, 2].map(|axis| [0, 1, 2, 3].map(|k| at(k)[axis]))
            })
            .collect();
        ScanRows { rows }
    }

    /// Each lane's entries' dot products with `dir`, row by row, the scalar `Vec3::dot`'s
    /// operations on each lane.
    #[inline]
    fn dots(&self, dir: Vec3) -> impl Iterator<Item = f32x4> + '_ {
        let (dx, dy, dz) = (f32x4::splat(dir.x), f32x4::splat(dir.y), f32x4::splat(dir.z));
        self.rows
            .iter()
            .map(move |[x, y, z]| f32x4::from(*x) * dx + f32x4::from(*y) * dy + f32x4::from(*z) * dz)
    }

    /// The index of the first entry with the largest dot product with `dir`, among those above
    /// `f32::MIN` (entry 0 when none is): what scanning the entries in order with `d > best`
    /// from `best = f32::MIN` returns, for any `dir` (a NaN product never beats, as there).
    #[inline]
    pub(crate) fn first_max(&self, dir: Vec3) -> usize {
        self.first_by(dir, f32::MIN, |d, best| d.simd_gt(best), |a, b| a > b)
    }

    /// The index of the first entry with the smallest dot product with `dir`, among those below
    /// `f32::MAX` (entry 0 when none is): what scanning in order with `d < best` from
    /// `best = f32::MAX` returns, for any `dir`.
    #[inline]
    pub(crate) fn first_min(&self, dir: Vec3) -> usize {
        self.first_by(dir, f32::MAX, |d, best| d.simd_lt(best), |a, b| a < b)
    }

    /// The scan from `start` that keeps an entry when its dot product `beats` the best so far
    /// (`lane_beats` the same comparison on four lanes): each lane keeps its first best, then
    /// the lanes' bests give the scan's.
    #[inline]
    fn first_by(
        &self,
        dir: Vec3,
        start: f32,
        lane_beats: impl Fn(f32x4, f32x4) -> f32x4,
        beats: impl Fn(f32, f32) -> bool,
    ) -> usize {
        let mut best = f32x4::splat(start);
        let mut index = f32x4::ZERO;
        let (mut row_index, four) = (f32x4::from([0.0, 1.0, 2.0, 3.0]), f32x4::splat(4.0));
        for d in self.dots(dir) {
            let better = lane_beats(d, best);
            best = better.bitselect(d, best);
            index = better.bitselect(row_index, index);
            row_index += four;
        }
        first_best(best.to_array(), index.to_array(), beats)
    }
}

/// Of four lanes' bests (`value`, entry `index` as a float, exact below 2^24), the entry a scan
/// in index order keeps: the best value by `beats`, the lowest index among equal ones. A lane
/// that never beat its start keeps index 0 with the start's value, which loses or ties with
/// entry 0 itself.
#[inline]
fn first_best(value: [f32; 4], index: [f32; 4], beats: impl Fn(f32, f32) -> bool) -> usize {
    let mut best = 0;
    for lane in 1..4 {
        let (v, i) = (value[lane], index[lane]);
        if beats(v, value[best]) || (v == value[best] && i < index[best]) {
            best = lane;
        }
    }
    index[best] as usize
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one-by-one scans the rows stand for.
    fn scan_max(entries: &[Vec3], dir: Vec3) -> usize {
        let (mut best, mut best_dot) = (0, f32::MIN);
        for (i, v) in entries.iter().enumerate() {
            let d = v.dot(dir);
            if d > best_dot {
                best_dot = d;
                best = i;
            }
        }
        best
    }

    fn scan_min(entries: &[Vec3], dir: Vec3) -> usize {
        let (mut best, mut best_dot) = (0, f32::MAX);
        for (i, v) in entries.iter().enumerate() {
            let d = v.dot(dir);
            if d < best_dot {
                best_dot = d;
                best = i;
            }
        }
        best
    }

    /// A small deterministic generator (xorshift), so the test needs no crate.
    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> f32 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (self.0 >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        }
        fn vec(&mut self) -> Vec3 {
            Vec3::new(self.next(), self.next(), self.next())
        }
    }

    #[test]
    fn the_rows_answer_what_the_scan_answers() {
        let mut rng = Rng(0x5eed_1234_abcd);
        // Directions whose products overflow to infinities, or make NaN from one.
        let odd = [
            Vec3::new(f32::INFINITY, 0.0, 0.0),
            Vec3::new(f32::NEG_INFINITY, 1.0, 0.0),
            Vec3::new(f32::NAN, 0.0, 1.0),
            Vec3::new(0.5, f32::NAN, 0.5),
            Vec3::splat(f32::MAX),
            Vec3::splat(-f32::MAX),
        ];
        for n in 1..=64 {
            for round in 0..40 {
                // Every third set snapped to a coarse grid, so equal dot products (ties) and
                // zeros of both signs are common; every fifth with huge components, whose
                // products reach f32::MIN, f32::MAX and the infinities; the rest general.
                let snap = |v: Vec3| match round % 15 {
                    0 | 3 | 6 | 9 | 12 => (v * 2.0).round() * 0.5,
                    5 | 10 => v * f32::MAX,
                    _ => v,
                };
                let entries: Vec<Vec3> = (0..n).map(|_| snap(rng.vec())).collect();
                let rows = ScanRows::new(&entries);
                let mut dirs: Vec<Vec3> = (0..8).map(|_| snap(rng.vec())).collect();
                dirs.extend([Vec3::ZERO, -Vec3::ZERO, Vec3::X, -Vec3::Y, Vec3::new(0.0, -0.0, 1.0)]);
                dirs.extend(odd);
                for dir in dirs {
                    assert_eq!(rows.first_max(dir), scan_max(&entries, dir), "max {n} {dir} {entries:?}");
                    assert_eq!(rows.first_min(dir), scan_min(&entries, dir), "min {n} {dir} {entries:?}");
                }
            }
        }
    }
}
