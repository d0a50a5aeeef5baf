//! Bit broadphase masks: per chunk, which voxels lie within one voxel (26 directions) of a
//! solid or a water voxel. One u64 per Y slice, bit `x + 8 z`.
//!
//! A voxel counts as solid when its material is a solid kind and its occupancy is at least
//! [`SURFACE_LEVEL`], the mesher's inside test. Every triangle the mesher emits lies in voxels
//! within one voxel of an inside voxel (a surface-nets vertex sits between the samples of its
//! cell, and a quad spans the cells around an edge that has an inside end), so the dilated mask
//! covers the mesh.

#[cfg(doc)]
use super::voxel::SURFACE_LEVEL;
use super::voxel::{CHUNK_VOXELS, Chunk};

/// One bit per voxel of a chunk, one u64 per Y slice, bit `x + 8 z`.
pub type SliceMask = [u64; 8];

/// Every bit set.
pub const FULL: SliceMask = [u64::MAX; 8];
/// No bit set.
pub const EMPTY: SliceMask = [0; 8];

/// The masks of a chunk, by class. Chunks whose masks are both empty have no entry at all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChunkMask {
    /// The solid mask is full and the water mask empty: nothing stored.
    Solid,
    /// The water mask is full and the solid mask empty: nothing stored.
    Water,
    /// Anything else: both masks stored (128 bytes).
    Mixed {
        /// Dilated solid voxels.
        solid: SliceMask,
        /// Dilated water voxels.
        water: SliceMask,
    },
}

impl ChunkMask {
    /// Classifies a pair of dilated masks; `None` when both are empty.
    pub fn classify(solid: SliceMask, water: SliceMask) -> Option<ChunkMask> {
        match (solid, water) {
            (EMPTY, EMPTY) => None,
            (FULL, EMPTY) => Some(ChunkMask::Solid),
            (EMPTY, FULL) => Some(ChunkMask::Water),
            _ => Some(ChunkMask::Mixed { solid, water }),
        }
    }

    /// The dilated solid mask.
    pub fn solid(&self) -> SliceMask {
        match self {
            ChunkMask::Solid => FULL,
            ChunkMask::Water => EMPTY,
            ChunkMask::Mixed { solid, .. } => *solid,
        }
    }

    /// The dilated water mask.
    pub fn water(&self) -> SliceMask {
        match self {
            ChunkMask::Solid => EMPTY,
            ChunkMask::Water => FULL,
            ChunkMask::Mixed { water, .. } => *water,
        }
    }

    /// True when any solid bit is set.
    pub fn has_solid(&self) -> bool {
        !matches!(self, ChunkMask::Water)
    }

    /// Bytes of mask payload this class keeps (the figure the issue budgets).
    pub fn payload_bytes(&self) -> usize {
        match self {
            ChunkMask::Mixed { .. } => 2 * std::mem::size_of::<SliceMask>(),
            _ => 0,
        }
    }
}

/// The undilated solid and water bits of a chunk.
pub fn raw_bits(chunk: &Chunk) -> (SliceMask, SliceMask) {
    let mut solid = EMPTY;
    let mut water = EMPTY;
    // Voxel order is slice-major with bit order inside a slice, so index i is bit i % 64 of
    // slice i / 64.
    for i in 0..CHUNK_VOXELS {
        let v = chunk.voxels()[i];
        solid[i >> 6] |= (v.is_solid() as u64) << (i & 63);
        water[i >> 6] |= (v.is_water() as u64) << (i & 63);
    }
    (solid, water)
}

/// Bits with x = 0 in every row.
const COL0: u64 = 0x0101_0101_0101_0101;
/// Bits with x = 7 in every row.
const COL7: u64 = 0x8080_8080_8080_8080;

/// Dilates along x: every bit spreads to x ± 1, with the edge bits of the x − 1 and x + 1
/// neighbour slices coming in from the sides.
#[inline]
fn dilate_x(c: u64, left: u64, right: u64) -> u64 {
    c | ((c << 1) & !COL0) | ((c >> 1) & !COL7) | ((left >> 7) & COL0) | ((right << 7) & COL7)
}

/// Dilates along z (rows of 8 bits), with the edge rows of the z − 1 and z + 1 neighbours.
#[inline]
fn dilate_z(c: u64, below: u64, above: u64) -> u64 {
    c | (c << 8) | (c >> 8) | (below >> 56) | (above << 56)
}

/// The mask of one chunk dilated by one voxel in all 26 directions, from the raw masks of its
/// 3×3×3 neighbourhood: `raw(dx, dy, dz)` gives the raw mask of the chunk at that offset
/// (−1..=1 each). Whole slices are shifted and ORed: first along x, then z, then across slices.
pub fn dilate(raw: impl Fn(i32, i32, i32) -> SliceMask) -> SliceMask {
    let mut n = [[[EMPTY; 3]; 3]; 3];
    for (dy, plane) in n.iter_mut().enumerate() {
        for (dz, row) in plane.iter_mut().enumerate() {
            for (dx, m) in row.iter_mut().enumerate() {
                *m = raw(dx as i32 - 1, dy as i32 - 1, dz as i32 - 1);
            }
        }
    }
    // XZ-dilated slice `ly` of the chunk layer `dy` (0..3).
    let xz = |dy: usize, ly: usize| {
        let col = |dz: usize| dilate_x(n[dy][dz][1][ly], n[dy][dz][0][ly], n[dy][dz][2][ly]);
        dilate_z(col(1), col(0), col(2))
    };
    // Slices -1..=8: the top slice of the layer below, our eight, the bottom of the layer above.
    let mut s = [0u64; 10];
    s[0] = xz(0, 7);
    for (y, slot) in s[1..9].iter_mut().enumerate() {
        *slot = xz(1, y);
    }
    s[9] = xz(2, 0);
    let mut out = EMPTY;
    for (y, o) in out.iter_mut().enumerate() {
        *o = s[y] | s[y + 1] | s[y + 2];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn bit(m: &SliceMask, x: i32, y: i32, z: i32) -> bool {
        m[y as usize] >> (x + 8 * z) & 1 == 1
    }

    /// Per voxel: set when any of the 27 voxels around it is set in the neighbourhood.
    fn naive(n: &[SliceMask; 27]) -> SliceMask {
        let get = |x: i32, y: i32, z: i32| {
            let c = |v: i32| v.div_euclid(8) + 1;
            let m = &n[(c(x) + 3 * c(y) + 9 * c(z)) as usize];
            bit(m, x.rem_euclid(8), y.rem_euclid(8), z.rem_euclid(8))
        };
        let mut out = EMPTY;
        for y in 0..8 {
            for z in 0..8 {
                for x in 0..8 {
                    let mut any = false;
                    for dy in -1..=1 {
                        for dz in -1..=1 {
                            for dx in -1..=1 {
                                any |= get(x + dx, y + dy, z + dz);
                            }
                        }
                    }
                    if any {
                        out[y as usize] |= 1 << (x + 8 * z);
                    }
                }
            }
        }
        out
    }

    fn sparse_mask() -> impl Strategy<Value = SliceMask> {
        // ANDing random words keeps the masks sparse, so dilation has room to show.
        (any::<[u64; 8]>(), any::<[u64; 8]>(), any::<[u64; 8]>(), 0..4u8).prop_map(|(a, b, c, k)| {
            let mut m = a;
            for i in 0..8 {
                m[i] = match k {
                    0 => 0,
                    1 => a[i] & b[i] & c[i],
                    2 => a[i] & b[i],
                    _ => a[i],
                };
            }
            m
        })
    }

    proptest! {
        #[test]
        fn dilation_equals_naive(n in proptest::collection::vec(sparse_mask(), 27)) {
            let n: [SliceMask; 27] = n.try_into().unwrap();
            let fast = dilate(|dx, dy, dz| n[((dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)) as usize]);
            prop_assert_eq!(fast, naive(&n));
        }
    }

    #[test]
    fn single_bits_spread_to_a_cube() {
        let mut n = [EMPTY; 27];
        n[13][3] = 1 << (4 + 8 * 5); // x 4, y 3, z 5
        let d = dilate(|dx, dy, dz| n[((dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)) as usize]);
        assert_eq!(d.iter().map(|s| s.count_ones()).sum::<u32>(), 27);
        assert!(bit(&d, 3, 2, 4) && bit(&d, 5, 4, 6));
        // A corner bit of the diagonal neighbour reaches our corner voxel only.
        let mut n = [EMPTY; 27];
        n[0][7] = 1 << 63; // chunk (-1, -1, -1), voxel (7, 7, 7)
        let d = dilate(|dx, dy, dz| n[((dx + 1) + 3 * (dy + 1) + 9 * (dz + 1)) as usize]);
        assert_eq!(d, {
            let mut e = EMPTY;
            e[0] = 1;
            e
        });
    }
}
