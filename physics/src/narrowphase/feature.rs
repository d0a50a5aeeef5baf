//! Feature ids: which features (vertices, edges, capsule ends) made a contact point, packed in a
//! `u32` so the solver can match a point with last step's and warm-start it.
//!
//! Points are named by the features of A and B that meet there, never by which face happened to
//! be the reference, which incident face was picked or in which order clipping ran. So a box
//! resting flat keeps its ids when the reference face flips from the ground to the box (the SAT
//! separations of the two faces tie there), a box balanced on an edge keeps them when the
//! incident face flips between the two faces at the edge, and an edge crossing keeps its id
//! when the manifold switches between a face contact and an edge–edge contact.
//!
//! Layout, from the top bits down:
//!
//! * bits 31–30, the kind of point:
//!   * `0` a vertex of one polyhedron: bit 29 says whose (`0` A, `1` B), bits 6–0 its index.
//!     (An incident vertex inside the reference face, a corner of the reference face that
//!     lies over the incident face, or any patch corner within a centimetre of a face vertex
//!     measured across the normal, A's vertex first: see `SNAP_DISTANCE` in `snap.rs`.)
//!   * `1` an edge of A crossing an edge of B (a clipped incident edge against a reference
//!     side, or an edge–edge contact): A's edge as its vertex pair (lower index first, 7 bits
//!     each) in bits 13–0, B's in bits 27–14.
//!   * `3` a contact of a round shape (sphere, capsule): a small code for A's feature in bits
//!     14–0 and for B's in bits 29–15 (`0` the whole shape, `1`/`2` a capsule's end at local
//!     −Y/+Y that bounds a segment clipped for a two-point contact).
//!
//! Vertex indices are stored in 7 bits (hulls hold at most 64 vertices); a larger hull would only
//! make two ids coincide, which costs a warm start, never correctness.

/// Kind: a vertex of A or B.
const VERTEX: u32 = 0;
/// Kind: an edge of A crossing an edge of B.
const EDGES: u32 = 1;
/// Kind: a round shape is involved.
const ROUND: u32 = 3;

const KIND_SHIFT: u32 = 30;
const BODY_B_BIT: u32 = 1 << 29;
const MASK7: u32 = 0x7f;
const MASK14: u32 = 0x3fff;
const MASK15: u32 = 0x7fff;

/// The unordered vertex pair `(a, b)` as 14 bits.
#[inline]
pub(crate) fn vertex_pair(a: u16, b: u16) -> u32 {
    let (lo, hi) = if a <= b { (a as u32, b as u32) } else { (b as u32, a as u32) };
    (lo & MASK7) << 7 | (hi & MASK7)
}

/// Vertex `v` of B (`on_b`) or of A.
#[inline]
pub(crate) fn vertex(on_b: bool, v: u16) -> u32 {
    VERTEX << KIND_SHIFT | if on_b { BODY_B_BIT } else { 0 } | (v as u32 & MASK7)
}

/// A's edge (vertex pair from [`vertex_pair`]) crossing B's.
#[inline]
pub(crate) fn edges(pair_a: u32, pair_b: u32) -> u32 {
    EDGES << KIND_SHIFT | (pair_b & MASK14) << 14 | (pair_a & MASK14)
}

/// A round-shape id from A's and B's feature codes.
#[inline]
pub(crate) fn round(code_a: u32, code_b: u32) -> u32 {
    ROUND << KIND_SHIFT | (code_b & MASK15) << 15 | (code_a & MASK15)
}

/// The id the same point gets when the pair is taken in the other order (A and B swapped).
/// Applying it twice gives the id back.
pub fn flip_feature(id: u32) -> u32 {
    let rest = id & !(3 << KIND_SHIFT);
    match id >> KIND_SHIFT {
        VERTEX => id ^ BODY_B_BIT,
        EDGES => EDGES << KIND_SHIFT | (rest & MASK14) << 14 | (rest >> 14 & MASK14),
        ROUND => ROUND << KIND_SHIFT | (rest & MASK15) << 15 | (rest >> 15 & MASK15),
        _ => id,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flip_is_an_involution() {
        for id in
            [edges(vertex_pair(3, 1), vertex_pair(5, 7)), vertex(true, 6), vertex(false, 2), round(1, 2)]
        {
            assert_eq!(flip_feature(flip_feature(id)), id);
            assert_ne!(flip_feature(id), id);
        }
        assert_eq!(flip_feature(edges(11, 4)), edges(4, 11));
        assert_eq!(flip_feature(vertex(false, 5)), vertex(true, 5));
        assert_eq!(flip_feature(round(1, 2)), round(2, 1));
        assert_eq!(vertex_pair(3, 1), vertex_pair(1, 3));
    }
}
