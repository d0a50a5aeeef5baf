//! Point containment: does a point lie inside a shape (its surface included)? Water sampling
//! asks it of every sample point, and point queries ask it of the bodies under a point.

use super::Shape;
use crate::math::{Transform, Vec3};

impl Shape {
    /// True when local point `p` lies inside the shape or on its surface.
    pub fn contains_local_point(&self, p: Vec3) -> bool {
        match self {
            Shape::Sphere { radius } => p.length_squared() <= radius * radius,
            Shape::Capsule { half_height, radius } => {
                let y = p.y.clamp(-half_height, *half_height);
                (p - Vec3::new(0.0, y, 0.0)).length_squared() <= radius * radius
            }
            Shape::Cuboid { half_extents } => p.abs().cmple(*half_extents).all(),
            Shape::Hull(h) => h.faces().iter().all(|f| f.normal.dot(p) <= f.offset),
        }
    }

    /// True when world point `p` lies inside the shape posed at `xf`, or on its surface.
    pub fn contains_point(&self, xf: &Transform, p: Vec3) -> bool {
        self.contains_local_point(xf.inverse_transform_point(p))
    }
}

#[cfg(test)]
mod tests {
    use crate::math::{Quat, Transform, Vec3};
    use crate::shape::Shape;

    #[test]
    fn each_shape_holds_points_inside_and_not_outside() {
        let corners: Vec<Vec3> = (0..8)
            .map(|i| Vec3::new([-1.0, 1.0][i & 1], [-1.0, 1.0][(i >> 1) & 1], [-1.0, 1.0][i >> 2]))
            .collect();
        let cube = Shape::hull(&corners).unwrap();
        let shapes = [
            Shape::sphere(1.0).unwrap(),
            Shape::capsule(0.5, 1.0).unwrap(),
            Shape::cuboid(Vec3::ONE).unwrap(),
            cube,
        ];
        for shape in &shapes {
            assert!(shape.contains_local_point(Vec3::ZERO), "{shape:?}: centre");
            assert!(shape.contains_local_point(Vec3::new(0.0, 0.99, 0.0)), "{shape:?}: just inside");
            assert!(!shape.contains_local_point(Vec3::new(0.0, 1.6, 0.0)), "{shape:?}: above");
            assert!(!shape.contains_local_point(Vec3::new(1.01, 0.0, 0.0)), "{shape:?}: beside");
        }
        // The capsule's caps reach past a sphere's; the box's corner past the sphere's.
        assert!(shapes[1].contains_local_point(Vec3::new(0.0, 1.4, 0.0)));
        assert!(!shapes[0].contains_local_point(Vec3::splat(0.9)));
        assert!(shapes[2].contains_local_point(Vec3::splat(0.9)));
        assert!(shapes[3].contains_local_point(Vec3::splat(0.9)));
        // Posed: a box turned 45° about Y and moved reaches 1.41 along X from its centre.
        let xf = Transform::new(Vec3::new(5.0, 0.0, 0.0), Quat::from_rotation_y(std::f32::consts::FRAC_PI_4));
        assert!(shapes[2].contains_point(&xf, Vec3::new(6.4, 0.0, 0.0)));
        assert!(!shapes[2].contains_point(&xf, Vec3::new(6.0, 0.0, 1.0)));
    }
}
