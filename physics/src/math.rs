//! Math types: glam re-exports, rigid [`Transform`] and axis-aligned [`Aabb`].

use glam::Vec3A;
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
    ///
    /// The six comparisons run as two of four lanes and one mask test: written per axis, each
    /// became a branch of its own, and in the narrowphase's quick check of a pile's pairs and
    /// the tree's queries their outcomes are hard to predict.
    #[inline]
    pub fn overlaps(&self, other: &Aabb) -> bool {
        let (min, max) = (Vec3A::from(self.min), Vec3A::from(self.max));
        let (other_min, other_max) = (Vec3A::from(other.min), Vec3A::from(other.max));
        (min.cmple(other_max) & other_min.cmple(max)).all()
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
        let center = Vec3A::from(xf.transform_point(local.center()));
        // Each world axis's half extent is the sum over the box's axes of their component
        // along it: a column at a time in four lanes, each lane the same sum in the same
        // order as written out per axis (the step's boxes are the same to the bit).
        let m = glam::Mat3A::from_quat(xf.rotation);
        let h = local.half_extents();
        let world_half = m.x_axis.abs() * h.x + m.y_axis.abs() * h.y + m.z_axis.abs() * h.z;
        Aabb { min: (center - world_half).into(), max: (center + world_half).into() }
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

    /// The four-lane overlap test says what the six comparisons say, touching boxes and NaN
    /// bounds included: corners on a coarse grid, so shared faces are common.
    #[test]
    fn boxes_overlap_as_their_six_bounds_say() {
        let mut state = 7u32;
        let mut coordinate = move || {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            match state >> 28 {
                0 => f32::NAN,
                k => (k % 5) as f32 * 0.5,
            }
        };
        let mut corner = || Vec3::new(coordinate(), coordinate(), coordinate());
        let mut aabb = || {
            let min = corner();
            Aabb::new(min, min + corner().abs())
        };
        let (mut overlapping, mut apart) = (0, 0);
        for _ in 0..20_000 {
            let (a, b) = (aabb(), aabb());
            let per_axis = (0..3).all(|i| a.min[i] <= b.max[i] && b.min[i] <= a.max[i]);
            assert_eq!(a.overlaps(&b), per_axis, "{a:?} {b:?}");
            assert_eq!(b.overlaps(&a), per_axis, "{b:?} {a:?}");
            if per_axis { overlapping += 1 } else { apart += 1 }
        }
        assert!(overlapping > 1000 && apart > 1000, "{overlapping} overlapping, {apart} apart");
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
