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

    /// The same body placed by `pose` into a parent frame: the centre moved, the inertia
    /// turned (`R I Rᵀ`), still about the centre of mass.
    pub fn transformed(&self, pose: &crate::math::Transform) -> MassProperties {
        let r = Mat3::from_quat(pose.rotation);
        MassProperties {
            mass: self.mass,
            local_center: pose.transform_point(self.local_center),
            inertia: r * self.inertia * r.transpose(),
        }
    }

    /// The mass properties of parts rigidly joined, each given in the common frame: the masses
    /// summed, the centre their mass-weighted mean, and the inertia about it by the parallel
    /// axis theorem (each part's own, plus `m (|d|² 1 − d dᵀ)` for its centre's offset `d`).
    /// Sums run in `f64`: the offsets' squares of parts far apart cancel against each other.
    /// `None` when the parts hold no mass.
    pub fn combined(parts: &[MassProperties]) -> Option<MassProperties> {
        let mass: f64 = parts.iter().map(|p| f64::from(p.mass)).sum();
        if !mass.is_finite() || mass <= 0.0 {
            return None;
        }
        let moment = parts.iter().fold([0.0f64; 3], |acc, p| {
            let c = p.local_center.as_dvec3() * f64::from(p.mass);
            [acc[0] + c.x, acc[1] + c.y, acc[2] + c.z]
        });
        let center = glam::DVec3::from_array(moment) / mass;
        let mut inertia = glam::DMat3::ZERO;
        for p in parts {
            let d = p.local_center.as_dvec3() - center;
            let m = f64::from(p.mass);
            let shift = glam::DMat3::from_diagonal(glam::DVec3::splat(d.length_squared()))
                - glam::DMat3::from_cols(d * d.x, d * d.y, d * d.z);
            inertia += p.inertia.as_dmat3() + shift * m;
        }
        Some(MassProperties { mass: mass as f32, local_center: center.as_vec3(), inertia: inertia.as_mat3() })
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
    fn boxes_joined_weigh_and_turn_as_the_box_they_make() {
        // Two 1 × 1 × 1 cubes side by side along X make a 2 × 1 × 1 box; a third turned a
        // quarter about Y on top makes no difference to a cube's own inertia.
        let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap().mass_properties(2.0);
        let at = |x: f32, y: f32, turn: f32| {
            cube.transformed(&crate::math::Transform::new(
                Vec3::new(x, y, 0.0),
                crate::math::Quat::from_rotation_y(turn),
            ))
        };
        let pair = MassProperties::combined(&[at(-0.5, 0.0, 0.0), at(0.5, 0.0, 0.9)]).unwrap();
        let slab = Shape::cuboid(Vec3::new(1.0, 0.5, 0.5)).unwrap().mass_properties(2.0);
        assert!(close(pair.mass, slab.mass) && pair.local_center.length() < 1e-6);
        for (a, b) in pair.inertia.to_cols_array().iter().zip(slab.inertia.to_cols_array()) {
            assert!(close(*a, b), "{:?} against {:?}", pair.inertia, slab.inertia);
        }
        // A T of three cubes: centre a third of the way up, inertia by hand.
        let tee = MassProperties::combined(&[
            at(-1.0, 1.0, 0.0),
            at(0.0, 1.0, 0.0),
            at(1.0, 1.0, 0.0),
            at(0.0, 0.0, 0.3),
        ])
        .unwrap();
        assert!((tee.local_center - Vec3::new(0.0, 0.75, 0.0)).length() < 1e-6);
        let own = 2.0 / 6.0; // a cube of mass 2 and side 1: m s² / 6
        let ixx = 4.0 * own + 2.0 * (3.0 * 0.25 * 0.25 + 0.75 * 0.75);
        let iyy = 4.0 * own + 2.0 * 2.0;
        assert!(close(tee.inertia.x_axis.x, ixx) && close(tee.inertia.y_axis.y, iyy), "{:?}", tee.inertia);
        assert!(MassProperties::combined(&[]).is_none());
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
