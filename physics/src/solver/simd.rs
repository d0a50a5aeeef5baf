//! Four lanes at a time: `f32x4` from the `wide` crate (SSE on x86-64, NEON on AArch64, plain
//! arrays elsewhere) and a 3-vector of them. Every operation here is an IEEE add, subtract,
//! multiply, divide, square root, compare or select per lane, with no fused multiply-add, so a
//! lane computes bit for bit what the same scalar code would.

use super::{Vec3Pair, Velocity};
use crate::math::{Mat3, Vec3};
use std::ops::{Add, AddAssign, Mul, Sub, SubAssign};
pub(crate) use wide::f32x4;

/// Four 3-vectors, one per lane, stored as three `f32x4` (x, y, z).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Vec3x4 {
    pub x: f32x4,
    pub y: f32x4,
    pub z: f32x4,
}

impl Vec3x4 {
    /// All lanes zero.
    pub const ZERO: Vec3x4 = Vec3x4 { x: f32x4::ZERO, y: f32x4::ZERO, z: f32x4::ZERO };

    /// Lane-wise dot product.
    #[inline(always)]
    pub fn dot(self, o: Vec3x4) -> f32x4 {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Lane-wise cross product.
    #[inline(always)]
    pub fn cross(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    /// Reads lane `k` back as a `Vec3`.
    #[inline(always)]
    pub fn lane(&self, k: usize) -> Vec3 {
        Vec3::new(self.x.as_array()[k], self.y.as_array()[k], self.z.as_array()[k])
    }

    /// Writes `v` into lane `k`.
    #[inline(always)]
    pub fn set_lane(&mut self, k: usize, v: Vec3) {
        self.x.as_mut_array()[k] = v.x;
        self.y.as_mut_array()[k] = v.y;
        self.z.as_mut_array()[k] = v.z;
    }

    /// The four vectors `v[0..4]` as lanes.
    #[cfg(test)]
    pub fn from_lanes(v: [Vec3; 4]) -> Vec3x4 {
        Vec3x4 {
            x: f32x4::new([v[0].x, v[1].x, v[2].x, v[3].x]),
            y: f32x4::new([v[0].y, v[1].y, v[2].y, v[3].y]),
            z: f32x4::new([v[0].z, v[1].z, v[2].z, v[3].z]),
        }
    }

    /// The lanes as four vectors.
    #[cfg(test)]
    pub fn to_lanes(self) -> [Vec3; 4] {
        let (x, y, z) = (self.x.to_array(), self.y.to_array(), self.z.to_array());
        std::array::from_fn(|k| Vec3::new(x[k], y[k], z[k]))
    }
}

/// Four 3 × 3 matrices, one per lane, as three columns of [`Vec3x4`].
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Mat3x4 {
    pub cols: [Vec3x4; 3],
}

impl Mat3x4 {
    /// Lane-wise matrix times vector.
    #[inline(always)]
    pub fn mul_vec(&self, v: Vec3x4) -> Vec3x4 {
        self.cols[0] * v.x + self.cols[1] * v.y + self.cols[2] * v.z
    }

    /// Writes `m` into lane `k`.
    pub fn set_lane(&mut self, k: usize, m: &Mat3) {
        for (col, c) in self.cols.iter_mut().zip([m.x_axis, m.y_axis, m.z_axis]) {
            col.set_lane(k, c);
        }
    }
}

/// Four bodies' pairs (velocities or motions) as lanes: two loads and a transpose per half.
#[inline(always)]
pub(crate) fn gather(pairs: &[Vec3Pair], bodies: &[u32; 4]) -> (Vec3x4, Vec3x4) {
    let body = |k: usize| &pairs[bodies[k] as usize];
    let (b0, b1, b2, b3) = (body(0), body(1), body(2), body(3));
    let [ax, ay, az, _] = f32x4::transpose([b0.first, b1.first, b2.first, b3.first].map(f32x4::new));
    let [bx, by, bz, _] = f32x4::transpose([b0.second, b1.second, b2.second, b3.second].map(f32x4::new));
    (Vec3x4 { x: ax, y: ay, z: az }, Vec3x4 { x: bx, y: by, z: bz })
}

/// Writes four lanes of velocities back to their bodies, in lane order.
#[inline(always)]
pub(crate) fn scatter(velocities: &mut [Velocity], bodies: &[u32; 4], v: Vec3x4, w: Vec3x4) {
    let linear = f32x4::transpose([v.x, v.y, v.z, f32x4::ZERO]);
    let angular = f32x4::transpose([w.x, w.y, w.z, f32x4::ZERO]);
    for k in 0..4 {
        velocities[bodies[k] as usize] =
            Velocity { first: linear[k].to_array(), second: angular[k].to_array() };
    }
}

impl Add for Vec3x4 {
    type Output = Vec3x4;
    #[inline(always)]
    fn add(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

impl Sub for Vec3x4 {
    type Output = Vec3x4;
    #[inline(always)]
    fn sub(self, o: Vec3x4) -> Vec3x4 {
        Vec3x4 { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
}

impl Mul<f32x4> for Vec3x4 {
    type Output = Vec3x4;
    #[inline(always)]
    fn mul(self, s: f32x4) -> Vec3x4 {
        Vec3x4 { x: self.x * s, y: self.y * s, z: self.z * s }
    }
}

impl AddAssign for Vec3x4 {
    #[inline(always)]
    fn add_assign(&mut self, o: Vec3x4) {
        *self = *self + o;
    }
}

impl SubAssign for Vec3x4 {
    #[inline(always)]
    fn sub_assign(&mut self, o: Vec3x4) {
        *self = *self - o;
    }
}

/// Lane-wise `if mask { a } else { b }`, where `mask` lanes are all ones or all zeros (the
/// result of a comparison).
#[inline(always)]
pub(crate) fn select(mask: f32x4, a: f32x4, b: f32x4) -> f32x4 {
    mask.bitselect(a, b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_round_trip_and_match_scalar_dot() {
        let v = [Vec3::new(1.0, 2.0, 3.0), Vec3::X, Vec3::new(-0.5, 0.25, 8.0), Vec3::ZERO];
        let w = [Vec3::Y, Vec3::new(0.1, 0.2, 0.3), Vec3::new(3.0, -1.0, 0.5), Vec3::ONE];
        let (a, b) = (Vec3x4::from_lanes(v), Vec3x4::from_lanes(w));
        assert_eq!(a.to_lanes(), v);
        let dots = a.dot(b).to_array();
        for k in 0..4 {
            assert_eq!(dots[k], v[k].x * w[k].x + v[k].y * w[k].y + v[k].z * w[k].z);
            assert_eq!(a.lane(k), v[k]);
        }
        let mut c = a;
        c.set_lane(3, Vec3::NEG_ONE);
        assert_eq!(c.lane(3), Vec3::NEG_ONE);
    }

    #[test]
    fn select_picks_per_lane() {
        let a = f32x4::new([1.0, 2.0, 3.0, 4.0]);
        let mask = a.simd_gt(f32x4::splat(2.5));
        assert_eq!(select(mask, a, f32x4::ZERO).to_array(), [0.0, 0.0, 3.0, 4.0]);
    }
}
