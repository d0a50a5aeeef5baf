//! Reducing a contact patch to at most four points: the deepest, the farthest from it, the one
//! making the largest triangle with those two, then the one adding the most area outside that
//! triangle.
//!
//! Each of the last three picks scores every point; the scores are computed four points at a
//! time on lanes, each lane with the operations the one-by-one form uses in the same order (no
//! fused multiply-add, `max` with `f32::max`'s NaN rule), and the best is then chosen one point
//! at a time in index order, so the same points are kept, bit for bit. A box on a terrain floor
//! clipped against a dozen triangles brings twenty or more points, and scoring them one by one
//! was a twentieth of the terrain rain's instructions.

use super::{MAX_MANIFOLD_POINTS, ManifoldPoint};
use crate::math::Vec3;
use wide::f32x4;

/// Most points scored on lanes; a larger patch (a big hull face over many terrain triangles)
/// is reduced one point at a time, with the same result.
const LANE_CAPACITY: usize = 64;

/// Lane groups of [`LANE_CAPACITY`] points.
const GROUPS: usize = LANE_CAPACITY / 4;

/// Picks at most four of `points` that keep the deepest point and span the most area: the
/// deepest, the farthest from it, the one making the largest triangle with those two, then the
/// one adding the most area outside that triangle. Ties go to the lower index, so the choice is
/// deterministic. `n` is the contact normal (for signed areas).
pub(crate) fn reduce(
    points: &[ManifoldPoint],
    n: Vec3,
    out: &mut [ManifoldPoint; MAX_MANIFOLD_POINTS],
) -> usize {
    if points.len() <= MAX_MANIFOLD_POINTS {
        out[..points.len()].copy_from_slice(points);
        return points.len();
    }
    if points.len() > LANE_CAPACITY {
        return reduce_one_by_one(points, n, out);
    }
    let lanes = PointLanes::new(points);
    let p = |i: usize| points[i].position;
    let i0 = arg_max(points.len(), f32::MIN, |i| -points[i].separation).unwrap_or(0);
    let Some(i1) = lanes.arg_max(|x, y, z| {
        let (dx, dy, dz) = lanes_minus(x, y, z, p(i0));
        dx * dx + dy * dy + dz * dz
    }) else {
        out[0] = points[i0];
        return 1;
    };
    let Some(i2) = lanes.arg_max(|x, y, z| area_lanes(p(i0), p(i1), (x, y, z), n).abs()) else {
        out[0] = points[i0];
        out[1] = points[i1];
        return 2;
    };
    let (a, b, c) =
        if area(p(i0), p(i1), p(i2), n) >= 0.0 { (p(i0), p(i1), p(i2)) } else { (p(i0), p(i2), p(i1)) };
    let i3 = lanes.arg_max(|x, y, z| {
        let q = (x, y, z);
        (-area_lanes(a, b, q, n)).max(-area_lanes(b, c, q, n)).max(-area_lanes(c, a, q, n))
    });
    finish(points, [i0, i1, i2], i3, out)
}

/// [`reduce`] one point at a time: for patches beyond [`LANE_CAPACITY`], and the reference the
/// lanes are held to.
fn reduce_one_by_one(
    points: &[ManifoldPoint],
    n: Vec3,
    out: &mut [ManifoldPoint; MAX_MANIFOLD_POINTS],
) -> usize {
    let len = points.len();
    let p = |i: usize| points[i].position;
    let i0 = arg_max(len, f32::MIN, |i| -points[i].separation).unwrap_or(0);
    let Some(i1) = arg_max(len, 0.0, |i| (p(i) - p(i0)).length_squared()) else {
        out[0] = points[i0];
        return 1;
    };
    let Some(i2) = arg_max(len, 0.0, |i| area(p(i0), p(i1), p(i), n).abs()) else {
        out[0] = points[i0];
        out[1] = points[i1];
        return 2;
    };
    // Orient the triangle counter-clockwise about n, then measure how far outside each edge.
    let (a, b, c) =
        if area(p(i0), p(i1), p(i2), n) >= 0.0 { (p(i0), p(i1), p(i2)) } else { (p(i0), p(i2), p(i1)) };
    let i3 = arg_max(len, 0.0, |i| {
        let q = p(i);
        (-area(a, b, q, n)).max(-area(b, c, q, n)).max(-area(c, a, q, n))
    });
    finish(points, [i0, i1, i2], i3, out)
}

/// Writes the three points of a triangle and, if any point lies outside it, the fourth.
fn finish(
    points: &[ManifoldPoint],
    triangle: [usize; 3],
    fourth: Option<usize>,
    out: &mut [ManifoldPoint; MAX_MANIFOLD_POINTS],
) -> usize {
    for (slot, i) in out.iter_mut().zip(triangle) {
        *slot = points[i];
    }
    match fourth {
        Some(i3) => {
            out[3] = points[i3];
            4
        }
        None => 3,
    }
}

/// Signed area (times two) of triangle `a b c` seen along `n`.
#[inline]
fn area(a: Vec3, b: Vec3, c: Vec3, n: Vec3) -> f32 {
    (b - a).cross(c - a).dot(n)
}

/// [`area`] with `c` on lanes: glam's cross and dot, term by term.
#[inline]
fn area_lanes(a: Vec3, b: Vec3, (cx, cy, cz): (f32x4, f32x4, f32x4), n: Vec3) -> f32x4 {
    let u = b - a;
    let (vx, vy, vz) = lanes_minus(cx, cy, cz, a);
    let (ux, uy, uz) = (f32x4::splat(u.x), f32x4::splat(u.y), f32x4::splat(u.z));
    let cross_x = uy * vz - vy * uz;
    let cross_y = uz * vx - vz * ux;
    let cross_z = ux * vy - vx * uy;
    cross_x * f32x4::splat(n.x) + cross_y * f32x4::splat(n.y) + cross_z * f32x4::splat(n.z)
}

/// Lanes `(x, y, z)` less the point `a`.
#[inline]
fn lanes_minus(x: f32x4, y: f32x4, z: f32x4, a: Vec3) -> (f32x4, f32x4, f32x4) {
    (x - f32x4::splat(a.x), y - f32x4::splat(a.y), z - f32x4::splat(a.z))
}

/// Index of the maximum of `score` over `0..len` (first on ties), or `None` when no score is
/// above `floor`.
fn arg_max(len: usize, floor: f32, mut score: impl FnMut(usize) -> f32) -> Option<usize> {
    let mut best = None;
    let mut best_score = floor;
    for i in 0..len {
        let s = score(i);
        if s > best_score {
            best_score = s;
            best = Some(i);
        }
    }
    best
}

/// Up to [`LANE_CAPACITY`] points' positions, four to a lane group (the last group's spare
/// lanes repeat the last point and are never chosen).
struct PointLanes {
    x: [f32x4; GROUPS],
    y: [f32x4; GROUPS],
    z: [f32x4; GROUPS],
    len: usize,
}

impl PointLanes {
    fn new(points: &[ManifoldPoint]) -> PointLanes {
        debug_assert!(!points.is_empty() && points.len() <= LANE_CAPACITY, "{} points", points.len());
        let mut lanes = PointLanes {
            x: [f32x4::ZERO; GROUPS],
            y: [f32x4::ZERO; GROUPS],
            z: [f32x4::ZERO; GROUPS],
            len: points.len(),
        };
        let last = points.len() - 1;
        for g in 0..points.len().div_ceil(4) {
            let p = |k: usize| points[(4 * g + k).min(last)].position;
            let (p0, p1, p2, p3) = (p(0), p(1), p(2), p(3));
            lanes.x[g] = f32x4::new([p0.x, p1.x, p2.x, p3.x]);
            lanes.y[g] = f32x4::new([p0.y, p1.y, p2.y, p3.y]);
            lanes.z[g] = f32x4::new([p0.z, p1.z, p2.z, p3.z]);
        }
        lanes
    }

    /// [`arg_max`] above zero of `score` (the points' positions as lanes to four scores).
    #[inline]
    fn arg_max(&self, score: impl Fn(f32x4, f32x4, f32x4) -> f32x4) -> Option<usize> {
        let mut best = None;
        let mut best_score = 0.0;
        for g in 0..self.len.div_ceil(4) {
            let scores = score(self.x[g], self.y[g], self.z[g]);
            // Most groups have no score above the best so far: one compare of the four skips
            // them, and the lanes of the others are taken in order as one by one.
            if scores.simd_gt(f32x4::splat(best_score)).to_bitmask() == 0 {
                continue;
            }
            for (k, s) in scores.to_array().into_iter().enumerate().take(self.len - 4 * g) {
                if s > best_score {
                    best_score = s;
                    best = Some(4 * g + k);
                }
            }
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reduced(
        points: &[ManifoldPoint],
        n: Vec3,
        how: fn(&[ManifoldPoint], Vec3, &mut [ManifoldPoint; 4]) -> usize,
    ) -> Vec<u32> {
        let mut out = [ManifoldPoint::default(); MAX_MANIFOLD_POINTS];
        let count = how(points, n, &mut out);
        out[..count].iter().map(|p| p.feature).collect()
    }

    #[test]
    fn reduction_keeps_deepest_and_spans_area() {
        let mut pts = [ManifoldPoint::default(); 8];
        for (i, pt) in pts.iter_mut().enumerate() {
            let a = i as f32 * std::f32::consts::TAU / 8.0;
            pt.position = Vec3::new(a.cos(), 0.0, a.sin());
            pt.separation = if i == 5 { -0.2 } else { -0.1 };
            pt.feature = i as u32;
        }
        let ids = reduced(&pts, Vec3::Y, reduce);
        assert_eq!(ids.len(), 4);
        assert_eq!(ids[..2], [5, 1]);
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(sorted, vec![1, 3, 5, 7]);
    }

    /// Patches of every size up to past the lanes' capacity: grids (a box face over terrain
    /// triangles, full of exact ties), rings, points in a line or all in one place, and
    /// scattered ones, each reduced on lanes and one by one.
    #[test]
    fn the_lanes_keep_the_points_one_by_one_keeps() {
        let mut seed = 0x2545_f491_u32;
        let mut random = move || {
            seed ^= seed << 13;
            seed ^= seed >> 17;
            seed ^= seed << 5;
            seed as f32 / u32::MAX as f32 - 0.5
        };
        let normals = [Vec3::Y, Vec3::new(0.3, 0.9, -0.2).normalize(), -Vec3::Z];
        let mut cases = 0;
        for len in 5..=LANE_CAPACITY + 6 {
            for shape in 0..5 {
                let points: Vec<ManifoldPoint> = (0..len)
                    .map(|i| {
                        let t = i as f32;
                        let position = match shape {
                            0 => Vec3::new((i % 5) as f32 * 0.25, 0.0, (i / 5) as f32 * 0.25),
                            1 => {
                                let a = t * std::f32::consts::TAU / len as f32;
                                Vec3::new(a.cos(), 0.01 * random(), a.sin())
                            }
                            2 => Vec3::new(t * 0.1, 0.0, 0.0),
                            3 => Vec3::new(1.5, -2.0, 0.25),
                            _ => Vec3::new(random(), random() * 0.1, random()) * 3.0 + Vec3::splat(100.0),
                        };
                        let separation = if shape == 0 { -0.01 } else { -0.05 * random().abs() };
                        ManifoldPoint { position, separation, feature: i as u32 }
                    })
                    .collect();
                for n in normals {
                    assert_eq!(
                        reduced(&points, n, reduce),
                        reduced(&points, n, reduce_one_by_one),
                        "{len} points of shape {shape} along {n}"
                    );
                    cases += 1;
                }
            }
        }
        assert_eq!(cases, (LANE_CAPACITY + 2) * 5 * 3);
    }
}
