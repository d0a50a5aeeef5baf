//! The point of a shape nearest to a point, and how far it is: `World::closest_point` asks it
//! of each body near the query point. Exact, by the closed forms of `closest.rs`.

use super::closest::{closest_on_box, closest_on_poly, closest_on_segment};
use super::polytope::BoxPoly;
use crate::math::{Transform, Vec3};
use crate::shape::Shape;

/// The point of `shape` posed at `xf` nearest to world point `p` (on its surface), and the
/// signed distance from it to `p`: negative when `p` lies inside.
pub(crate) fn closest_on_shape(shape: &Shape, xf: &Transform, p: Vec3) -> (Vec3, f32) {
    let q = xf.inverse_transform_point(p);
    let (local, distance) = match shape {
        Shape::Sphere { radius } => round_closest(Vec3::ZERO, *radius, q),
        Shape::Capsule { half_height, radius } => {
            let axis = Vec3::new(0.0, *half_height, 0.0);
            round_closest(closest_on_segment(-axis, axis, q), *radius, q)
        }
        Shape::Cuboid { half_extents } => {
            let c = closest_on_box(&BoxPoly::new(*half_extents), *half_extents, q);
            (c.on_poly, c.distance)
        }
        Shape::Hull(h) => {
            let c = closest_on_poly(&**h, q);
            (c.on_poly, c.distance)
        }
    };
    (xf.transform_point(local), distance)
}

/// The nearest point to `q` of the ball of `radius` about `center` (a sphere, or a capsule's
/// nearest point of its segment), and the signed distance. At the centre itself any direction
/// is nearest: +Y is taken.
fn round_closest(center: Vec3, radius: f32, q: Vec3) -> (Vec3, f32) {
    let offset = q - center;
    let length = offset.length();
    let direction = if length > 0.0 { offset / length } else { Vec3::Y };
    (center + direction * radius, length - radius)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    #[test]
    fn each_shape_gives_its_nearest_surface_point() {
        let xf = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
        let p = Vec3::new(5.0, 2.0, 3.0);
        // A ball of radius 1: 3 away, its surface toward p.
        let (point, d) = closest_on_shape(&Shape::sphere(1.0).unwrap(), &xf, p);
        assert!((d - 3.0).abs() < 1e-5 && (point - Vec3::new(2.0, 2.0, 3.0)).length() < 1e-5);
        // A capsule along local Y, turned onto world -X: its tip reaches x = 1 + 2 + 0.5.
        let (point, d) = closest_on_shape(&Shape::capsule(2.0, 0.5).unwrap(), &xf, p);
        assert!((d - 1.5).abs() < 1e-5 && (point - Vec3::new(3.5, 2.0, 3.0)).length() < 1e-5, "{point} {d}");
        // A box of half extents (1, 3, 1) turned so its long side lies along world X.
        let (point, d) = closest_on_shape(&Shape::cuboid(Vec3::new(1.0, 3.0, 1.0)).unwrap(), &xf, p);
        assert!((d - 1.0).abs() < 1e-5 && (point - Vec3::new(4.0, 2.0, 3.0)).length() < 1e-5, "{point} {d}");
        // Inside: negative, the nearest face.
        let (point, d) = closest_on_shape(
            &Shape::cuboid(Vec3::ONE).unwrap(),
            &Transform::IDENTITY,
            Vec3::new(0.0, 0.75, 0.0),
        );
        assert!((d + 0.25).abs() < 1e-6 && (point - Vec3::Y).length() < 1e-6);
        // A hull cube agrees with the box off a corner.
        let corners: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new([-1.0, 1.0][i & 1], [-1.0, 1.0][(i >> 1) & 1], [-1.0, 1.0][i >> 2]))
            .collect();
        let hull = Shape::hull(&corners).unwrap();
        let (point, d) = closest_on_shape(&hull, &Transform::IDENTITY, Vec3::splat(2.0));
        assert!((d - 3f32.sqrt()).abs() < 1e-5 && (point - Vec3::ONE).length() < 1e-5);
    }
}
