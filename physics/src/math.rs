//! Math types: glam re-exports, rigid [`Transform`] and axis-aligned [`Aabb`].

pub use glam::{Mat3, Quat, Vec3};

/// A rigid transform: rotation followed by translation.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Transform {
    /// Translation in metres.
    pub position: Vec3,
    /// Unit quaternion rotation.
    pub rotation: Quat,
}

impl Default for Transform {
    fn default() -> Self {
        Self::IDENTITY
    }
}

impl Transform {
    /// No rotation, no translation.
    pub const IDENTITY: Self = Self { position: Vec3::ZERO, rotation: Quat::IDENTITY };

    /// A transform from a position and a rotation.
    pub fn new(position: Vec3, rotation: Quat) -> Self {
        Self { position, rotation }
    }

    /// A pure translation.
    pub fn from_position(position: Vec3) -> Self {
        Self { position, rotation: Quat::IDENTITY }
    }

    /// Maps a point from local to world space.
    #[inline]
    pub fn transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation * p + self.position
    }

    /// Maps a direction from local to world space.
    #[inline]
    pub fn transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation * v
    }

    /// Maps a point from world to local space.
    #[inline]
    pub fn inverse_transform_point(&self, p: Vec3) -> Vec3 {
        self.rotation.inverse() * (p - self.position)
    }

    /// Maps a direction from world to local space.
    #[inline]
    pub fn inverse_transform_vector(&self, v: Vec3) -> Vec3 {
        self.rotation.inverse() * v
    }

    /// The transform that maps `other`'s local space into this one's local space.
    #[inline]
    pub fn inverse_mul(&self, other: &Transform) -> Transform {
        let inv = self.rotation.inverse();
        Transform { position: inv * (other.position - self.position), rotation: inv * other.rotation }
    }

    /// `self * other`: apply `other` first, then `self`.
    #[inline]
    pub fn mul(&self, other: &Transform) -> Transform {
        Transform {
            position: self.rotation * other.position + self.position,
            rotation: self.rotation * other.rotation,
        }
    }

    /// True when every component is finite.
    pub fn is_finite(&self) -> bool {
        self.position.is_finite() && self.rotation.is_finite()
    }
}

/// An axis-aligned bounding box.
#[derive(Clone, Copy, Debug, PartialEq, Default, serde::Serialize, serde::Deserialize)]
pub struct Aabb {
    /// Smallest corner.
    pub min: Vec3,
    /// Largest corner.
    pub max: Vec3,
}

impl Aabb {
    /// An AABB from its corners.
    #[inline]
    pub fn new(min: Vec3, max: Vec3) -> Self {
        Self { min, max }
    }

    /// The AABB of a point grown by `radius` on every side.
    #[inline]
    pub fn from_center_half_extents(center: Vec3, half: Vec3) -> Self {
        Self { min: center - half, max: center + half }
    }

    /// The smallest AABB containing both.
    #[inline]
    pub fn union(&self, other: &Aabb) -> Aabb {
        Aabb { min: self.min.min(other.min), max: self.max.max(other.max) }
    }

    /// True when `other` lies entirely inside (or on) this box.
    #[inline]
    pub fn contains(&self, other: &Aabb) -> bool {
        self.min.cmple(other.min).all() && self.max.cmpge(other.max).all()
    }

    /// True when the boxes overlap or touch.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        self.min.cmple(other.max).all() && other.min.cmple(self.max).all()
    }

    /// Surface area, the cost measure of the tree.
    #[inline]
    pub fn surface_area(&self) -> f32 {
        let d = self.max - self.min;
        2.0 * (d.x * d.y + d.y * d.z + d.z * d.x)
    }

    /// Grown by `margin` on every side.
    #[inline]
    pub fn grown(&self, margin: f32) -> Aabb {
        Aabb { min: self.min - Vec3::splat(margin), max: self.max + Vec3::splat(margin) }
    }

    /// Extended along `displacement` (the box swept by that translation).
    #[inline]
    pub fn swept(&self, displacement: Vec3) -> Aabb {
        Aabb { min: self.min + displacement.min(Vec3::ZERO), max: self.max + displacement.max(Vec3::ZERO) }
    }

    /// Centre point.
    #[inline]
    pub fn center(&self) -> Vec3 {
        (self.min + self.max) * 0.5
    }

    /// Half of the size along each axis.
    #[inline]
    pub fn half_extents(&self) -> Vec3 {
        (self.max - self.min) * 0.5
    }

    /// Distance between the boxes (0 when they overlap or touch).
    #[inline]
    pub fn distance(&self, other: &Aabb) -> f32 {
        let gap = (other.min - self.max).max(self.min - other.max).max(Vec3::ZERO);
        gap.length()
    }

    /// True when min and max are finite.
    pub fn is_finite(&self) -> bool {
        self.min.is_finite() && self.max.is_finite()
    }

    /// The box around `local` after rotating and translating it by `xf`.
    pub fn transformed(local: &Aabb, xf: &Transform) -> Aabb {
        let center = xf.transform_point(local.center());
        let m = Mat3::from_quat(xf.rotation);
        let h = local.half_extents();
        let world_half = Vec3::new(
            m.x_axis.x.abs() * h.x + m.y_axis.x.abs() * h.y + m.z_axis.x.abs() * h.z,
            m.x_axis.y.abs() * h.x + m.y_axis.y.abs() * h.y + m.z_axis.y.abs() * h.z,
            m.x_axis.z.abs() * h.x + m.y_axis.z.abs() * h.y + m.z_axis.z.abs() * h.z,
        );
        Aabb::from_center_half_extents(center, world_half)
    }
}

/// Two unit vectors perpendicular to `n` and to each other, chosen without branches on sign so
/// that the same normal always gives the same basis (Duff et al., "Building an Orthonormal Basis,
/// Revisited").
#[inline]
pub fn orthonormal_basis(n: Vec3) -> (Vec3, Vec3) {
    let sign = 1.0f32.copysign(n.z);
    let a = -1.0 / (sign + n.z);
    let b = n.x * n.y * a;
    (Vec3::new(1.0 + sign * n.x * n.x * a, sign * b, -sign * n.x), Vec3::new(b, sign + n.y * n.y * a, -n.y))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn transform_round_trip() {
        let xf = Transform::new(Vec3::new(1.0, 2.0, 3.0), Quat::from_rotation_y(0.7));
        let p = Vec3::new(-0.5, 4.0, 2.0);
        let q = xf.inverse_transform_point(xf.transform_point(p));
        assert!((p - q).length() < 1e-5);
    }

    #[test]
    fn box_distance() {
        let a = Aabb::new(Vec3::ZERO, Vec3::ONE);
        let b = Aabb::new(Vec3::new(2.0, 0.0, 3.0), Vec3::new(3.0, 1.0, 4.0));
        assert!((a.distance(&b) - 5f32.sqrt()).abs() < 1e-6);
        assert_eq!(a.distance(&a.grown(-0.1)), 0.0);
    }

    #[test]
    fn basis_is_orthonormal() {
        for n in [Vec3::X, Vec3::Y, Vec3::Z, -Vec3::Z, Vec3::new(0.3, -0.5, 0.8).normalize()] {
            let (t1, t2) = orthonormal_basis(n);
            assert!(t1.dot(n).abs() < 1e-5 && t2.dot(n).abs() < 1e-5 && t1.dot(t2).abs() < 1e-5);
            assert!((t1.length() - 1.0).abs() < 1e-5 && (t2.length() - 1.0).abs() < 1e-5);
        }
    }

    #[test]
    fn rotated_aabb_contains_corners() {
        let local = Aabb::new(Vec3::new(-1.0, -2.0, -0.5), Vec3::new(1.0, 2.0, 0.5));
        let xf = Transform::new(Vec3::X, Quat::from_euler(glam::EulerRot::XYZ, 0.3, 0.9, -0.4));
        let world = Aabb::transformed(&local, &xf);
        for i in 0..8 {
            let c = Vec3::new(
                if i & 1 == 0 { local.min.x } else { local.max.x },
                if i & 2 == 0 { local.min.y } else { local.max.y },
                if i & 4 == 0 { local.min.z } else { local.max.z },
            );
            let w = xf.transform_point(c);
            assert!(world.grown(1e-5).contains(&Aabb::new(w, w)));
        }
    }
}
