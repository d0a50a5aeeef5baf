//! Mass properties: exact for sphere, capsule and box; convex hulls by decomposition into
//! tetrahedra (the covariance method of Blow and Binstock).

use super::Shape;
use crate::math::{Mat3, Vec3};
use std::f32::consts::PI;

/// Mass, centre of mass and inertia of a shape at some density.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MassProperties {
    /// Mass in kilograms.
    pub mass: f32,
    /// Centre of mass in the shape's local frame.
    pub local_center: Vec3,
    /// Inertia tensor about the centre of mass, in the local frame's axes.
    pub inertia: Mat3,
}

impl MassProperties {
    /// Scales mass and inertia by a density (the stored values are for density 1).
    pub fn scaled(&self, density: f32) -> MassProperties {
        MassProperties {
            mass: self.mass * density,
            local_center: self.local_center,
            inertia: self.inertia * density,
        }
    }
}

impl Shape {
    /// Volume in cubic metres.
    pub fn volume(&self) -> f32 {
        self.mass_properties(1.0).mass
    }

    /// Mass properties at `density` (kg/m³).
    pub fn mass_properties(&self, density: f32) -> MassProperties {
        let unit = match self {
            Shape::Sphere { radius } => {
                let m = 4.0 / 3.0 * PI * radius.powi(3);
                diagonal(m, Vec3::splat(0.4 * m * radius * radius))
            }
            Shape::Cuboid { half_extents: h } => {
                let m = 8.0 * h.x * h.y * h.z;
                let s = *h * *h;
                diagonal(m, Vec3::new(s.y + s.z, s.x + s.z, s.x + s.y) * (m / 3.0))
            }
            Shape::Capsule { half_height: h, radius: r } => {
                let (h, r) = (*h, *r);
                let cylinder = PI * r * r * 2.0 * h;
                let caps = 4.0 / 3.0 * PI * r * r * r;
                let axial = cylinder * r * r * 0.5 + caps * 0.4 * r * r;
                // Two hemispheres, each shifted from the centre by h plus its own centroid
                // offset 3r/8 (parallel axis theorem, derived in the module docs' reference).
                let across =
                    cylinder * (r * r / 4.0 + h * h / 3.0) + caps * (0.4 * r * r + h * h + 0.75 * h * r);
                diagonal(cylinder + caps, Vec3::new(across, axial, across))
            }
            Shape::Hull(hull) => *hull.unit_mass(),
        };
        unit.scaled(density)
    }
}

fn diagonal(mass: f32, moments: Vec3) -> MassProperties {
    MassProperties { mass, local_center: Vec3::ZERO, inertia: Mat3::from_diagonal(moments) }
}

/// Mass properties at density 1 of a closed convex polyhedron given as triangles fanned from
/// each face polygon (`faces` yields vertex index loops, counter-clockwise seen from outside).
pub(crate) fn polyhedron_unit_mass<'a>(
    vertices: &[Vec3],
    faces: impl Iterator<Item = &'a [u16]>,
) -> MassProperties {
    // Work relative to a point inside so the sums stay well conditioned far from the origin.
    let origin = vertices.iter().copied().sum::<Vec3>() / vertices.len() as f32;
    let canonical =
        Mat3::from_cols(Vec3::new(2.0, 1.0, 1.0), Vec3::new(1.0, 2.0, 1.0), Vec3::new(1.0, 1.0, 2.0))
            * (1.0 / 120.0);
    let mut volume = 0.0f32;
    let mut weighted_center = Vec3::ZERO;
    let mut covariance = Mat3::ZERO;
    for face in faces {
        let a = vertices[face[0] as usize] - origin;
        for k in 1..face.len() - 1 {
            let b = vertices[face[k] as usize] - origin;
            let c = vertices[face[k + 1] as usize] - origin;
            let basis = Mat3::from_cols(a, b, c);
            let det = basis.determinant();
            volume += det / 6.0;
            weighted_center += (a + b + c) * (det / 24.0);
            covariance += basis * canonical * basis.transpose() * det;
        }
    }
    let center = weighted_center / volume;
    // Move the covariance from `origin` to the centroid, then turn it into an inertia tensor.
    let shift = Mat3::from_cols(center * center.x, center * center.y, center * center.z) * volume;
    let c = covariance - shift;
    let trace = c.x_axis.x + c.y_axis.y + c.z_axis.z;
    let inertia = Mat3::from_diagonal(Vec3::splat(trace)) - c;
    MassProperties { mass: volume, local_center: center + origin, inertia }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shape::ConvexHull;

    fn close(a: f32, b: f32) -> bool {
        (a - b).abs() <= 1e-4 * a.abs().max(b.abs()).max(1.0)
    }

    #[test]
    fn box_hull_matches_exact_box() {
        let h = Vec3::new(0.5, 1.0, 2.0);
        let exact = Shape::Cuboid { half_extents: h }.mass_properties(3.0);
        let hull = ConvexHull::cuboid(h);
        let from_tets = hull.unit_mass().scaled(3.0);
        assert!(close(exact.mass, from_tets.mass));
        assert!(from_tets.local_center.length() < 1e-5);
        for (e, t) in exact.inertia.to_cols_array().iter().zip(from_tets.inertia.to_cols_array()) {
            assert!(close(*e, t), "{:?} vs {:?}", exact.inertia, from_tets.inertia);
        }
    }

    #[test]
    fn capsule_reduces_to_sphere() {
        let r = 0.7;
        let capsule = Shape::Capsule { half_height: 1e-6, radius: r }.mass_properties(1.0);
        let sphere = Shape::Sphere { radius: r }.mass_properties(1.0);
        assert!(close(capsule.mass, sphere.mass));
        assert!(close(capsule.inertia.x_axis.x, sphere.inertia.x_axis.x));
        assert!(close(capsule.inertia.y_axis.y, sphere.inertia.y_axis.y));
    }

    #[test]
    fn offset_box_hull_centroid() {
        let hull = ConvexHull::cuboid(Vec3::splat(1.0));
        let shifted: Vec<Vec3> = hull.vertices().iter().map(|v| *v + Vec3::new(10.0, -3.0, 2.0)).collect();
        let loops: Vec<Vec<u16>> =
            (0..hull.faces().len()).map(|f| hull.face_vertex_indices(f).to_vec()).collect();
        let m = polyhedron_unit_mass(&shifted, loops.iter().map(|l| l.as_slice()));
        assert!(close(m.mass, 8.0));
        assert!((m.local_center - Vec3::new(10.0, -3.0, 2.0)).length() < 1e-4);
        assert!(close(m.inertia.x_axis.x, 8.0 * 2.0 / 3.0));
    }
}
