//! The point of the terrain's surface nearest to a point (`World::closest_point`): the
//! triangles of the chunks within reach, each by its closed form, and which side of the
//! surface the point is on.

use super::Terrain;
use super::voxel::ChunkCoord;
use crate::error::AtollError;
use crate::math::{Aabb, Vec3};

/// The terrain's surface point nearest to a query point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TerrainPoint {
    /// The chunk whose triangle holds it.
    pub chunk: ChunkCoord,
    /// The point, world space.
    pub point: Vec3,
    /// Its distance from the query point.
    pub distance: f32,
    /// Whether the query point lies inside the solid, behind the surface.
    pub inside: bool,
    /// The surface's outward unit normal there (the nearest feature's angle-weighted normal).
    pub normal: Vec3,
}

/// Nearest candidates closer to each other than this share the nearest feature (an edge or a
/// vertex of several triangles), in metres, plus [`SAME_FEATURE_ROUNDING`] of the point's
/// distance from the origin: two triangles work out the point on their shared edge by
/// different sums, a few `f32` steps apart (4e-6 m at 32 m).
const SAME_FEATURE: f32 = 1e-6;

/// See [`SAME_FEATURE`]: eight `f32` steps.
const SAME_FEATURE_ROUNDING: f32 = 8.0 * f32::EPSILON;

impl Terrain {
    /// The surface point nearest to `p` no farther than `max_distance`, ties to the lower chunk
    /// and then to the triangle its kD tree lists first; `None` when no surface is that near. Whether `p` lies
    /// inside is decided by the angle-weighted normal of the nearest feature (Bærentzen and
    /// Aanæs): a face's own normal, the sum of an edge's two faces', the sum of a vertex's
    /// faces' normals each weighted by its angle there. One face's normal alone misjudges
    /// points beyond a sharp ridge.
    pub fn closest_point(&self, p: Vec3, max_distance: f32) -> Result<Option<TerrainPoint>, AtollError> {
        let reach = Aabb::from_center_half_extents(p, Vec3::splat(max_distance));
        let voxel = self.voxel_size();
        // (chunk, point, distance, angle-weighted normal)
        let mut found: Vec<(ChunkCoord, Vec3, f32, Vec3)> = Vec::new();
        self.overlap_chunks(&reach, |c, o| {
            if !o.solid {
                return true;
            }
            let Some(data) = self.chunk_collision(c) else { return true };
            let origin = self.chunk_origin(c);
            let local = Aabb::new((reach.min - origin) / voxel, (reach.max - origin) / voxel);
            data.tree.query_aabb(&data.mesh, &local, |t| {
                let v = data.mesh.triangle(t).map(|corner| origin + corner * voxel);
                let n = (v[1] - v[0]).cross(v[2] - v[0]);
                if n.length_squared() == 0.0 {
                    return;
                }
                let (q, region) = closest_on_triangle(p, v);
                let weight = feature_weight(v, region);
                let distance = (p - q).length();
                if distance <= max_distance {
                    found.push((c, q, distance, n.normalize() * weight));
                }
            });
            true
        })?;
        let Some(&(chunk, point, distance, _)) = found.iter().min_by(|a, b| a.2.total_cmp(&b.2)) else {
            return Ok(None);
        };
        let same = SAME_FEATURE + SAME_FEATURE_ROUNDING * point.abs().max_element();
        let normal: Vec3 = found.iter().filter(|f| f.1.distance(point) <= same).map(|f| f.3).sum();
        let normal = normal.normalize_or(Vec3::Y);
        Ok(Some(TerrainPoint { chunk, point, distance, inside: normal.dot(p - point) < 0.0, normal }))
    }

    /// Whether world point `p` lies inside the solid: by the nearest surface's side when a
    /// surface lies within two voxels, otherwise by the voxel holding `p` (that far from any
    /// surface, the voxel's side is the point's: the surface runs within a voxel of where the
    /// samples change side).
    pub fn is_inside(&self, p: Vec3) -> Result<bool, AtollError> {
        Ok(match self.closest_point(p, 2.0 * self.voxel_size())? {
            Some(near) => near.inside,
            None => self.voxel(self.voxel_at(p)).is_solid(),
        })
    }
}

/// Where on a triangle its closest point to a query point lies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Region {
    Face,
    /// Edge `k`, from vertex `k` to vertex `k + 1`.
    Edge(usize),
    Vertex(usize),
}

/// The weight of a triangle's normal in the angle-weighted normal of the feature `region`
/// names: its angle at a vertex, π on an edge (both faces alike), 2π inside the face (alone).
fn feature_weight([a, b, c]: [Vec3; 3], region: Region) -> f32 {
    use std::f32::consts::PI;
    let angle = |at: Vec3, u: Vec3, w: Vec3| (u - at).angle_between(w - at);
    match region {
        Region::Face => 2.0 * PI,
        Region::Edge(_) => PI,
        Region::Vertex(0) => angle(a, b, c),
        Region::Vertex(1) => angle(b, c, a),
        Region::Vertex(_) => angle(c, a, b),
    }
}

/// The point of triangle `[a, b, c]` closest to `p`, and where on the triangle it lies.
/// Ericson, *Real-Time Collision Detection*, 5.1.5, by Voronoi regions. (The terrain contacts
/// use it too, `narrowphase/terrain.rs`.)
pub(crate) fn closest_on_triangle(p: Vec3, [a, b, c]: [Vec3; 3]) -> (Vec3, Region) {
    let (ab, ac, ap) = (b - a, c - a, p - a);
    let (d1, d2) = (ab.dot(ap), ac.dot(ap));
    if d1 <= 0.0 && d2 <= 0.0 {
        return (a, Region::Vertex(0));
    }
    let bp = p - b;
    let (d3, d4) = (ab.dot(bp), ac.dot(bp));
    if d3 >= 0.0 && d4 <= d3 {
        return (b, Region::Vertex(1));
    }
    let vc = d1 * d4 - d3 * d2;
    if vc <= 0.0 && d1 >= 0.0 && d3 <= 0.0 {
        return (a + ab * (d1 / (d1 - d3)), Region::Edge(0));
    }
    let cp = p - c;
    let (d5, d6) = (ab.dot(cp), ac.dot(cp));
    if d6 >= 0.0 && d5 <= d6 {
        return (c, Region::Vertex(2));
    }
    let vb = d5 * d2 - d1 * d6;
    if vb <= 0.0 && d2 >= 0.0 && d6 <= 0.0 {
        return (a + ac * (d2 / (d2 - d6)), Region::Edge(2));
    }
    let va = d3 * d6 - d5 * d4;
    if va <= 0.0 && (d4 - d3) >= 0.0 && (d5 - d6) >= 0.0 {
        return (b + (c - b) * ((d4 - d3) / ((d4 - d3) + (d5 - d6))), Region::Edge(1));
    }
    let denom = 1.0 / (va + vb + vc);
    (a + ab * (vb * denom) + ac * (vc * denom), Region::Face)
}

#[cfg(test)]
mod tests {
    use super::closest_on_triangle;
    use crate::math::Vec3;

    #[test]
    fn a_triangles_nearest_point_is_in_the_right_region() {
        let v = [Vec3::ZERO, Vec3::X, Vec3::Y];
        // Above the face: straight down.
        assert_eq!(closest_on_triangle(Vec3::new(0.25, 0.25, 2.0), v).0, Vec3::new(0.25, 0.25, 0.0));
        // Beyond each vertex and each edge.
        assert_eq!(closest_on_triangle(Vec3::new(-1.0, -1.0, 1.0), v).0, Vec3::ZERO);
        assert_eq!(closest_on_triangle(Vec3::new(3.0, -0.5, 0.0), v).0, Vec3::X);
        assert_eq!(closest_on_triangle(Vec3::new(-0.5, 3.0, 0.0), v).0, Vec3::Y);
        assert_eq!(closest_on_triangle(Vec3::new(0.5, -1.0, 0.0), v).0, Vec3::new(0.5, 0.0, 0.0));
        assert_eq!(closest_on_triangle(Vec3::new(-1.0, 0.5, 0.0), v).0, Vec3::new(0.0, 0.5, 0.0));
        let q = closest_on_triangle(Vec3::new(1.0, 1.0, 0.0), v).0;
        assert!((q - Vec3::new(0.5, 0.5, 0.0)).length() < 1e-6);
        // Brute force over a grid of the triangle's points, from points all around it.
        let mut seed = 7u32;
        let mut next = || {
            seed = seed.wrapping_mul(1664525).wrapping_add(1013904223);
            (seed >> 8) as f32 / (1u32 << 24) as f32 * 4.0 - 2.0
        };
        let v = [Vec3::new(0.1, -0.3, 0.2), Vec3::new(1.2, 0.4, -0.5), Vec3::new(-0.4, 1.1, 0.3)];
        for _ in 0..200 {
            let p = Vec3::new(next(), next(), next());
            let q = closest_on_triangle(p, v).0;
            let steps = 60;
            let mut best = f32::MAX;
            for i in 0..=steps {
                for j in 0..=steps - i {
                    let (s, t) = (i as f32 / steps as f32, j as f32 / steps as f32);
                    best = best.min((v[0] + (v[1] - v[0]) * s + (v[2] - v[0]) * t).distance(p));
                }
            }
            let d = q.distance(p);
            assert!(d <= best + 1e-5 && d >= best - 0.05, "{p}: {d} against {best}");
        }
    }
}
