//! Sutherland–Hodgman clipping of an incident polygon against the side planes of a reference
//! face, with feature tracking (the patch is then reduced to four points in `reduce.rs`).
//!
//! Everything here uses fixed-size stack buffers: no allocation in the contact hot path.

use super::feature;
use super::polytope::loop_next;
use crate::math::Vec3;
use crate::shape::MAX_HULL_VERTICES;

/// Capacity of a clip polygon: an incident face has at most every hull vertex, and each side
/// plane adds at most one vertex to a convex polygon; a little headroom on top.
pub(crate) const CLIP_CAPACITY: usize = 2 * MAX_HULL_VERTICES + 8;

/// Tag of a clip-polygon edge that is (part of) an incident-polygon edge.
const CODE_INCIDENT: u16 = 0;
/// Tag of a clip-polygon edge that lies on a reference side plane.
const CODE_SIDE: u16 = 1 << 14;

/// An edge code: kind bit and the edge's unordered vertex pair.
#[inline]
pub(crate) fn incident_edge_code(a: u16, b: u16) -> u16 {
    CODE_INCIDENT | feature::vertex_pair(a, b) as u16
}

/// An edge code for a reference face side.
#[inline]
pub(crate) fn side_code(a: u16, b: u16) -> u16 {
    CODE_SIDE | feature::vertex_pair(a, b) as u16
}

/// A clip-polygon vertex with the codes of the polygon edges entering and leaving it: the pair
/// names the vertex's features whatever order the clipping ran in.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClipVertex {
    pub(crate) p: Vec3,
    pub(crate) in_code: u16,
    pub(crate) out_code: u16,
}

/// A convex polygon on the stack.
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClipPolygon {
    pub(crate) v: [ClipVertex; CLIP_CAPACITY],
    pub(crate) len: usize,
}

impl Default for ClipPolygon {
    fn default() -> Self {
        ClipPolygon { v: [ClipVertex::default(); CLIP_CAPACITY], len: 0 }
    }
}

impl ClipPolygon {
    /// Appends a vertex; beyond capacity (impossible for valid hulls) it is dropped.
    #[inline]
    pub(crate) fn push(&mut self, v: ClipVertex) {
        if self.len < CLIP_CAPACITY {
            self.v[self.len] = v;
            self.len += 1;
        }
    }

    /// The valid vertices.
    pub(crate) fn vertices(&self) -> &[ClipVertex] {
        &self.v[..self.len]
    }

    /// Makes this the polygon of an incident face's loop `lp` (vertex ids), its vertex `k`
    /// (id `lp[k]`) at `point(k, lp[k])`, each tagged with its two edges.
    #[inline]
    pub(crate) fn set_face_loop(&mut self, lp: &[u16], mut point: impl FnMut(usize, u16) -> Vec3) {
        self.len = 0;
        let Some(&last) = lp.last() else { return };
        // Each edge's code once: a vertex enters by the edge the one before it leaves by.
        let mut in_code = incident_edge_code(last, lp[0]);
        for (k, &cur) in lp.iter().enumerate() {
            let next = lp[loop_next(k, lp.len())];
            let out_code = incident_edge_code(cur, next);
            self.push(ClipVertex { p: point(k, cur), in_code, out_code });
            in_code = out_code;
        }
    }
}

/// Keeps the part of `input` with `normal.dot(x) <= offset`, writing it to `out`. New vertices
/// where an edge crosses the plane get `code` (the plane's side code) on the plane's side.
pub(crate) fn clip_polygon(input: &ClipPolygon, normal: Vec3, offset: f32, code: u16, out: &mut ClipPolygon) {
    out.len = 0;
    if input.len == 0 {
        return;
    }
    let mut prev = input.v[input.len - 1];
    let mut d_prev = normal.dot(prev.p) - offset;
    for &cur in input.vertices() {
        let d_cur = normal.dot(cur.p) - offset;
        let edge = prev.out_code;
        if d_prev <= 0.0 && d_cur <= 0.0 {
            out.push(cur);
        } else if d_prev <= 0.0 {
            // Leaving: the signs differ, so the denominator is not zero.
            let p = prev.p + (cur.p - prev.p) * (d_prev / (d_prev - d_cur));
            out.push(ClipVertex { p, in_code: edge, out_code: code });
        } else if d_cur <= 0.0 {
            let p = prev.p + (cur.p - prev.p) * (d_prev / (d_prev - d_cur));
            out.push(ClipVertex { p, in_code: code, out_code: edge });
            out.push(cur);
        }
        prev = cur;
        d_prev = d_cur;
    }
}

/// The common vertex of two edges given as 14-bit vertex pairs (the first of `a` if none).
fn common_vertex(a: u16, b: u16) -> u16 {
    let (a0, a1) = ((a >> 7) & 0x7f, a & 0x7f);
    let (b0, b1) = ((b >> 7) & 0x7f, b & 0x7f);
    if a1 == b0 || a1 == b1 { a1 } else { a0 }
}

/// The feature id of a clipped vertex; `ref_is_b` says which polyhedron gave the reference face.
pub(crate) fn clip_vertex_id(v: &ClipVertex, ref_is_b: bool) -> u32 {
    let pair_mask = 0x3fff;
    let (si, so) = (v.in_code & CODE_SIDE == CODE_SIDE, v.out_code & CODE_SIDE == CODE_SIDE);
    let (pi, po) = (v.in_code & pair_mask, v.out_code & pair_mask);
    let incident_is_b = !ref_is_b;
    match (si, so) {
        (false, false) => feature::vertex(incident_is_b, common_vertex(pi, po)),
        (true, true) => feature::vertex(ref_is_b, common_vertex(pi, po)),
        _ => {
            let (inc, side) = if si { (po as u32, pi as u32) } else { (pi as u32, po as u32) };
            if ref_is_b { feature::edges(inc, side) } else { feature::edges(side, inc) }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn square(code_base: u16) -> ClipPolygon {
        let mut poly = ClipPolygon::default();
        let c = [
            Vec3::new(-1.0, 0.0, -1.0),
            Vec3::new(-1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, 1.0),
            Vec3::new(1.0, 0.0, -1.0),
        ];
        for i in 0..4u16 {
            let prev = (i + 3) % 4;
            poly.push(ClipVertex {
                p: c[i as usize],
                in_code: incident_edge_code(code_base + prev, code_base + i),
                out_code: incident_edge_code(code_base + i, code_base + (i + 1) % 4),
            });
        }
        poly
    }

    #[test]
    fn clipping_a_square_by_a_plane_tags_new_vertices() {
        let poly = square(0);
        let mut out = ClipPolygon::default();
        clip_polygon(&poly, Vec3::X, 0.5, side_code(20, 21), &mut out);
        assert_eq!(out.len, 4);
        let ids: Vec<u32> = out.vertices().iter().map(|v| clip_vertex_id(v, false)).collect();
        // Two original vertices (x = -1, incident = B) and two cut points on x = 0.5.
        assert_eq!(ids.iter().filter(|&&id| id >> 29 == 1).count(), 2);
        assert_eq!(ids.iter().filter(|&&id| id >> 30 == 1).count(), 2);
        assert!(out.vertices().iter().all(|v| v.p.x <= 0.5 + 1e-6));
    }
}
