//! Four lanes at a time: `f32x4` from the `wide` crate (SSE on x86-64, NEON on AArch64, plain
//! arrays elsewhere) and a 3-vector of them. Every operation here is an IEEE add, subtract,
//! multiply, divide, square root, compare or select per lane, with no fused multiply-add, so a
//! lane computes bit for bit what the same scalar code would.
//!
//! [`Lanes`] names those operations for code written once for four lanes and for eight (two
//! contact or plain ball joint batches side by side on AVX, `avx.rs`); [`Vec3Lanes`],
//! [`SymMatLanes`] and [`QuatLanes`] are 3-vectors, symmetric matrices and rotations of either.

use super::{Vec3Pair, Velocity};
use crate::math::{Mat3, Quat, Vec3};
use crate::parallel::SharedSlice;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};
pub(crate) use wide::f32x4;

/// A register of `f32` lanes as the solver's lane-wise code uses it: IEEE arithmetic, square
/// root, compare and select per lane, and `max`/`min` as x86's `maxps`/`minps` define them
/// (the second operand where either is NaN; on x86-64, where the eight lanes exist), so four
/// lanes and eight compute the same bits.
/// It has no constructor: eight lanes need proof that the CPU has AVX, so constants come from
/// whoever holds that proof.
pub(crate) trait Lanes:
    Copy
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
{
    /// Lane-wise `if self > o { self } else { o }`.
    fn fast_max(self, o: Self) -> Self;
    /// Lane-wise `if self < o { self } else { o }`.
    fn fast_min(self, o: Self) -> Self;
    /// Lane-wise square root.
    fn sqrt(self) -> Self;
    /// All ones in the lanes where `self > o`, zeros elsewhere.
    fn simd_gt(self, o: Self) -> Self;
    /// Lane-wise `if mask { a } else { b }`, `mask` the result of a comparison.
    fn select(mask: Self, a: Self, b: Self) -> Self;
    /// Lane-wise `1.0f32.copysign(self)`: one with each lane's sign bit (-1 for -0.0).
    fn one_with_sign(self) -> Self;
    /// Lane-wise absolute value: the sign bit cleared.
    fn abs(self) -> Self;
    /// `v` in every lane of a register of `self`'s kind: generic code makes its constants
    /// this way, since eight lanes need the proof of AVX that an existing value carries.
    fn splat_like(self, v: f32) -> Self;
    /// Whether some lane of `mask` (the result of a comparison) is set.
    fn any(self) -> bool;
    /// All ones in every lane of each batch (each four lanes) where some lane of `mask` is
    /// set, zeros elsewhere: a decision a four-lane pass makes for its batch as a whole, made
    /// for each batch alone where two share a register.
    fn any_per_batch(self) -> Self;
}

impl Lanes for f32x4 {
    #[inline(always)]
    fn fast_max(self, o: f32x4) -> f32x4 {
        f32x4::fast_max(self, o)
    }

    #[inline(always)]
    fn fast_min(self, o: f32x4) -> f32x4 {
        f32x4::fast_min(self, o)
    }

    #[inline(always)]
    fn sqrt(self) -> f32x4 {
        f32x4::sqrt(self)
    }

    #[inline(always)]
    fn simd_gt(self, o: f32x4) -> f32x4 {
        f32x4::simd_gt(self, o)
    }

    #[inline(always)]
    fn select(mask: f32x4, a: f32x4, b: f32x4) -> f32x4 {
        select(mask, a, b)
    }

    #[inline(always)]
    fn one_with_sign(self) -> f32x4 {
        f32x4::ONE | (self & f32x4::splat(-0.0))
    }

    #[inline(always)]
    fn abs(self) -> f32x4 {
        f32x4::abs(self)
    }

    #[inline(always)]
    fn splat_like(self, v: f32) -> f32x4 {
        f32x4::splat(v)
    }

    #[inline(always)]
    fn any(self) -> bool {
        f32x4::any(self)
    }

    #[inline(always)]
    fn any_per_batch(self) -> f32x4 {
        // The batch is the four lanes: all of them, or none.
        if f32x4::any(self) { f32x4::ZERO.simd_eq(f32x4::ZERO) } else { f32x4::ZERO }
    }
}

/// A 3-vector per lane, stored as three registers of lanes (x, y, z).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Vec3Lanes<L> {
    pub x: L,
    pub y: L,
    pub z: L,
}

/// Four 3-vectors, one per lane.
pub(crate) type Vec3x4 = Vec3Lanes<f32x4>;

impl<L: Lanes> Vec3Lanes<L> {
    /// `s` in every component.
    #[inline(always)]
    pub fn splat(s: L) -> Vec3Lanes<L> {
        Vec3Lanes { x: s, y: s, z: s }
    }

    /// Lane-wise dot product.
    #[inline(always)]
    pub fn dot(self, o: Vec3Lanes<L>) -> L {
        self.x * o.x + self.y * o.y + self.z * o.z
    }

    /// Lane-wise cross product.
    #[inline(always)]
    pub fn cross(self, o: Vec3Lanes<L>) -> Vec3Lanes<L> {
        Vec3Lanes {
            x: self.y * o.z - self.z * o.y,
            y: self.z * o.x - self.x * o.z,
            z: self.x * o.y - self.y * o.x,
        }
    }

    /// [`crate::math::orthonormal_basis`] of each lane's unit vector, `one` 1.0 in every
    /// lane: the same operations in the same order, so the same bits. The contact solver keeps
    /// no friction directions: each pass makes them from the normal again, which on the large
    /// scenes, whose passes wait on memory, costs less than reading them.
    #[inline(always)]
    pub fn orthonormal_basis(self, one: L) -> (Vec3Lanes<L>, Vec3Lanes<L>) {
        let n = self;
        let sign = n.z.one_with_sign();
        let a = -one / (sign + n.z);
        let b = n.x * n.y * a;
        (
            Vec3Lanes { x: one + sign * n.x * n.x * a, y: sign * b, z: -sign * n.x },
            Vec3Lanes { x: b, y: sign + n.y * n.y * a, z: -n.y },
        )
    }
}

impl Vec3x4 {
    /// All lanes zero.
    pub const ZERO: Vec3x4 = Vec3x4 { x: f32x4::ZERO, y: f32x4::ZERO, z: f32x4::ZERO };

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
    #[inline(always)]
    pub fn from_lanes(v: [Vec3; 4]) -> Vec3x4 {
        Vec3x4 {
            x: f32x4::new([v[0].x, v[1].x, v[2].x, v[3].x]),
            y: f32x4::new([v[0].y, v[1].y, v[2].y, v[3].y]),
            z: f32x4::new([v[0].z, v[1].z, v[2].z, v[3].z]),
        }
    }

    /// Lane-wise length.
    #[inline(always)]
    pub fn length(self) -> f32x4 {
        self.dot(self).sqrt()
    }

    /// Each lane's vector where `mask` is set, zero elsewhere.
    #[inline(always)]
    pub fn masked(self, mask: f32x4) -> Vec3x4 {
        Vec3x4 {
            x: select(mask, self.x, f32x4::ZERO),
            y: select(mask, self.y, f32x4::ZERO),
            z: select(mask, self.z, f32x4::ZERO),
        }
    }

    /// Lane-wise division by `s`.
    #[inline(always)]
    pub fn div(self, s: f32x4) -> Vec3x4 {
        Vec3x4 { x: self.x / s, y: self.y / s, z: self.z / s }
    }

    /// The lanes as four vectors.
    #[cfg(test)]
    pub fn to_lanes(self) -> [Vec3; 4] {
        let (x, y, z) = (self.x.to_array(), self.y.to_array(), self.z.to_array());
        std::array::from_fn(|k| Vec3::new(x[k], y[k], z[k]))
    }
}

/// Eight lanes stored as two fours, `[lanes 0–3, lanes 4–7]`: how a pair of contact batches
/// keeps each field of its two batches side by side in memory (`contact.rs`), so that eight
/// lanes load in one instruction and four lanes (either half) in one too.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C, align(32))]
pub(crate) struct Halves(pub [f32x4; 2]);

impl Halves {
    /// Half `h` (0: lanes 0–3, 1: lanes 4–7) as four lanes.
    #[inline(always)]
    pub fn half(&self, h: usize) -> f32x4 {
        self.0[h]
    }

    /// Writes `v` into half `h`.
    #[inline(always)]
    pub fn set_half(&mut self, h: usize, v: f32x4) {
        self.0[h] = v;
    }

    /// Lane `j` (0–7).
    #[inline(always)]
    pub fn lane(&self, j: usize) -> f32 {
        self.0[j / 4].as_array()[j % 4]
    }

    /// Writes `v` into lane `j` (0–7).
    #[cfg(test)]
    pub fn set_lane(&mut self, j: usize, v: f32) {
        self.0[j / 4].as_mut_array()[j % 4] = v;
    }
}

impl Vec3Lanes<Halves> {
    /// Half `h` (0: lanes 0–3, 1: lanes 4–7) as four lanes.
    #[inline(always)]
    pub fn half(&self, h: usize) -> Vec3x4 {
        Vec3x4 { x: self.x.0[h], y: self.y.0[h], z: self.z.0[h] }
    }

    /// Writes `v` into half `h`.
    #[inline(always)]
    pub fn set_half(&mut self, h: usize, v: Vec3x4) {
        self.x.0[h] = v.x;
        self.y.0[h] = v.y;
        self.z.0[h] = v.z;
    }

    /// Lane `j` (0–7) as a `Vec3`.
    #[inline(always)]
    pub fn lane(&self, j: usize) -> Vec3 {
        Vec3::new(self.x.lane(j), self.y.lane(j), self.z.lane(j))
    }

    /// Writes `v` into lane `j` (0–7).
    #[cfg(test)]
    pub fn set_lane(&mut self, j: usize, v: Vec3) {
        self.x.set_lane(j, v.x);
        self.y.set_lane(j, v.y);
        self.z.set_lane(j, v.z);
    }
}

/// Four general 3 × 3 matrices, one per lane, by columns: products with them compute exactly
/// what `Mat3 * Vec3` computes per lane (the same sums in the same order).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Mat3x4 {
    /// First column.
    pub x_axis: Vec3x4,
    /// Second column.
    pub y_axis: Vec3x4,
    /// Third column.
    pub z_axis: Vec3x4,
}

impl Mat3x4 {
    /// The matrices `m[0..4]` as lanes.
    #[inline(always)]
    pub fn from_lanes(m: [&Mat3; 4]) -> Mat3x4 {
        Mat3x4 {
            x_axis: Vec3x4::from_lanes(m.map(|m| m.x_axis)),
            y_axis: Vec3x4::from_lanes(m.map(|m| m.y_axis)),
            z_axis: Vec3x4::from_lanes(m.map(|m| m.z_axis)),
        }
    }

    /// Lane-wise matrix times vector.
    #[inline(always)]
    pub fn mul_vec(&self, v: Vec3x4) -> Vec3x4 {
        self.x_axis * v.x + self.y_axis * v.y + self.z_axis * v.z
    }
}

/// Symmetric 3 × 3 matrices (inverse inertias and the masses built from them), one per lane,
/// as their six distinct entries: a third less to stream than full matrices, and the products
/// with cross-product matrices below skip the zeros a general product multiplies.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct SymMatLanes<L> {
    pub xx: L,
    pub yy: L,
    pub zz: L,
    pub xy: L,
    pub xz: L,
    pub yz: L,
}

/// Four symmetric 3 × 3 matrices, one per lane.
pub(crate) type SymMat3x4 = SymMatLanes<f32x4>;

impl<L: Lanes> SymMatLanes<L> {
    /// `s` times the identity in every lane.
    #[inline(always)]
    pub fn diagonal(s: L) -> SymMatLanes<L> {
        let zero = s.splat_like(0.0);
        SymMatLanes { xx: s, yy: s, zz: s, xy: zero, xz: zero, yz: zero }
    }

    /// Lane-wise bound on the largest eigenvalue's magnitude: the largest row sum of the
    /// entries' magnitudes (Gershgorin's circles), exact for a diagonal matrix.
    #[inline(always)]
    pub fn largest_row_sum(&self) -> L {
        let rows = [
            self.xx.abs() + self.xy.abs() + self.xz.abs(),
            self.xy.abs() + self.yy.abs() + self.yz.abs(),
            self.xz.abs() + self.yz.abs() + self.zz.abs(),
        ];
        rows[0].fast_max(rows[1]).fast_max(rows[2])
    }

    /// Lane-wise matrix times vector.
    #[inline(always)]
    pub fn mul_vec(&self, v: Vec3Lanes<L>) -> Vec3Lanes<L> {
        Vec3Lanes {
            x: self.xx * v.x + self.xy * v.y + self.xz * v.z,
            y: self.xy * v.x + self.yy * v.y + self.yz * v.z,
            z: self.xz * v.x + self.yz * v.y + self.zz * v.z,
        }
    }

    /// `[r]×ᵀ M [r]×` per lane (`[r]×` the matrix of `r ×`): what an inverse inertia `M` adds to
    /// the inverse mass of a point `r` from the centre.
    #[inline(always)]
    pub fn about_arm(&self, r: Vec3Lanes<L>) -> SymMatLanes<L> {
        let Vec3Lanes { x, y, z } = r;
        // The columns of M [r]×; [r]×'s columns are (0, z, -y), (-z, 0, x) and (y, -x, 0).
        let a0 = Vec3Lanes {
            x: z * self.xy - y * self.xz,
            y: z * self.yy - y * self.yz,
            z: z * self.yz - y * self.zz,
        };
        let a1 = Vec3Lanes {
            x: x * self.xz - z * self.xx,
            y: x * self.yz - z * self.xy,
            z: x * self.zz - z * self.xz,
        };
        let a2 = Vec3Lanes {
            x: y * self.xx - x * self.xy,
            y: y * self.xy - x * self.yy,
            z: y * self.xz - x * self.yz,
        };
        // Entry (i, j) is [r]×'s column i dotted with column j above.
        SymMatLanes {
            xx: z * a0.y - y * a0.z,
            yy: x * a1.z - z * a1.x,
            zz: y * a2.x - x * a2.y,
            xy: z * a1.y - y * a1.z,
            xz: z * a2.y - y * a2.z,
            yz: x * a2.z - z * a2.x,
        }
    }

    /// Each lane's inverse, or zero where the matrix is singular: the cofactors over the
    /// determinant.
    #[inline(always)]
    pub fn inverse_or_zero(&self) -> SymMatLanes<L> {
        let SymMatLanes { xx, yy, zz, xy, xz, yz } = *self;
        let c_xx = yy * zz - yz * yz;
        let c_xy = xz * yz - xy * zz;
        let c_xz = xy * yz - xz * yy;
        let det = xx * c_xx + xy * c_xy + xz * c_xz;
        let usable = det.abs().simd_gt(det.splat_like(f32::MIN_POSITIVE * 1e6));
        // Singular lanes' 1 / det is replaced before it is used.
        let inv_det = L::select(usable, det.splat_like(1.0) / det, det.splat_like(0.0));
        SymMatLanes {
            xx: c_xx * inv_det,
            yy: (xx * zz - xz * xz) * inv_det,
            zz: (xx * yy - xy * xy) * inv_det,
            xy: c_xy * inv_det,
            xz: c_xz * inv_det,
            yz: (xy * xz - xx * yz) * inv_det,
        }
    }

    /// Each entry `a` where `mask` is set, `b` elsewhere.
    #[inline(always)]
    pub fn select(mask: L, a: &SymMatLanes<L>, b: &SymMatLanes<L>) -> SymMatLanes<L> {
        SymMatLanes {
            xx: L::select(mask, a.xx, b.xx),
            yy: L::select(mask, a.yy, b.yy),
            zz: L::select(mask, a.zz, b.zz),
            xy: L::select(mask, a.xy, b.xy),
            xz: L::select(mask, a.xz, b.xz),
            yz: L::select(mask, a.yz, b.yz),
        }
    }
}

impl SymMat3x4 {
    /// Writes the upper triangle of `m` (a symmetric matrix) into lane `k`.
    pub fn set_lane(&mut self, k: usize, m: &Mat3) {
        let set = |entry: &mut f32x4, value: f32| entry.as_mut_array()[k] = value;
        set(&mut self.xx, m.x_axis.x);
        set(&mut self.yy, m.y_axis.y);
        set(&mut self.zz, m.z_axis.z);
        set(&mut self.xy, m.y_axis.x);
        set(&mut self.xz, m.z_axis.x);
        set(&mut self.yz, m.z_axis.y);
    }
}

impl<L: Lanes> Add for SymMatLanes<L> {
    type Output = SymMatLanes<L>;
    #[inline(always)]
    fn add(self, o: SymMatLanes<L>) -> SymMatLanes<L> {
        SymMatLanes {
            xx: self.xx + o.xx,
            yy: self.yy + o.yy,
            zz: self.zz + o.zz,
            xy: self.xy + o.xy,
            xz: self.xz + o.xz,
            yz: self.yz + o.yz,
        }
    }
}

/// Rotations (unit quaternions), one per lane: the vector part and the scalar part.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct QuatLanes<L> {
    pub xyz: Vec3Lanes<L>,
    pub w: L,
}

/// Four rotations, one per lane. The default is the identity in every lane (a lane without a
/// rotation of its own turns nothing).
pub(crate) type Quatx4 = QuatLanes<f32x4>;

impl Default for Quatx4 {
    fn default() -> Self {
        Quatx4 { xyz: Vec3x4::ZERO, w: f32x4::splat(1.0) }
    }
}

impl<L: Lanes> QuatLanes<L> {
    /// Each lane's vector turned by its rotation: `v + 2w (q × v) + 2 q × (q × v)`.
    #[inline(always)]
    pub fn rotate(&self, v: Vec3Lanes<L>) -> Vec3Lanes<L> {
        let t = self.xyz.cross(v) * self.w.splat_like(2.0);
        v + t * self.w + self.xyz.cross(t)
    }

    /// The product `self * o` per lane (`o` first, then `self`).
    #[inline(always)]
    pub fn mul(&self, o: &QuatLanes<L>) -> QuatLanes<L> {
        QuatLanes {
            xyz: o.xyz * self.w + self.xyz * o.w + self.xyz.cross(o.xyz),
            w: self.w * o.w - self.xyz.dot(o.xyz),
        }
    }
}

impl Quatx4 {
    /// The rotations `q[0..4]` as lanes.
    #[inline(always)]
    pub fn from_lanes(q: [Quat; 4]) -> Quatx4 {
        // Four loads and a transpose rather than sixteen scalar inserts.
        let [x, y, z, w] = f32x4::transpose(q.map(|q| f32x4::new(q.to_array())));
        Quatx4 { xyz: Vec3x4 { x, y, z }, w }
    }

    /// Writes `q` into lane `k`.
    pub fn set_lane(&mut self, k: usize, q: Quat) {
        self.xyz.set_lane(k, Vec3::new(q.x, q.y, q.z));
        self.w.as_mut_array()[k] = q.w;
    }

    /// The rotated X, Y and Z axes: the columns of each lane's rotation matrix.
    #[inline(always)]
    pub fn axes(&self) -> (Vec3x4, Vec3x4, Vec3x4) {
        let Vec3x4 { x, y, z } = self.xyz;
        let (one, two) = (f32x4::splat(1.0), f32x4::splat(2.0));
        let (xx, yy, zz) = (x * x, y * y, z * z);
        let (xy, xz, yz) = (x * y, x * z, y * z);
        let (wx, wy, wz) = (self.w * x, self.w * y, self.w * z);
        (
            Vec3x4 { x: one - two * (yy + zz), y: two * (xy + wz), z: two * (xz - wy) },
            Vec3x4 { x: two * (xy - wz), y: one - two * (xx + zz), z: two * (yz + wx) },
            Vec3x4 { x: two * (xz + wy), y: two * (yz - wx), z: one - two * (xx + yy) },
        )
    }

    /// The rotated X axis.
    #[inline(always)]
    pub fn x_axis(&self) -> Vec3x4 {
        let Vec3x4 { x, y, z } = self.xyz;
        let (one, two) = (f32x4::splat(1.0), f32x4::splat(2.0));
        Vec3x4 {
            x: one - two * (y * y + z * z),
            y: two * (x * y + self.w * z),
            z: two * (x * z - self.w * y),
        }
    }

    /// The angle `o` has turned about X relative to `self`, both world rotations: the twist of
    /// `self⁻¹ o` (as `JointPose::twist`), in -π..=π.
    #[inline(always)]
    pub fn twist_to(&self, o: &Quatx4) -> f32x4 {
        // Only the X and W parts of the relative rotation are needed.
        let w = self.w * o.w + self.xyz.dot(o.xyz);
        let x = self.w * o.xyz.x - o.w * self.xyz.x - (self.xyz.y * o.xyz.z - self.xyz.z * o.xyz.y);
        wrap_angle(f32x4::splat(2.0) * x.atan2(w))
    }
}

/// Each lane's `angle` wrapped into -π..=π (from within -2π..=2π).
#[inline(always)]
pub(crate) fn wrap_angle(angle: f32x4) -> f32x4 {
    use std::f32::consts::{PI, TAU};
    let (pi, tau) = (f32x4::splat(PI), f32x4::splat(TAU));
    let above = select(angle.simd_gt(pi), angle - tau, angle);
    select(above.simd_lt(-pi), above + tau, above)
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

/// Four bodies' pairs as lanes, from an array the team shares ([`gather`] otherwise).
///
/// # Safety
/// Every index in `bodies` is below `pairs.len()`, and no other thread writes these four
/// bodies' pairs until the stage is over.
#[inline(always)]
pub(crate) unsafe fn gather_shared(pairs: &SharedSlice<Vec3Pair>, bodies: &[u32; 4]) -> (Vec3x4, Vec3x4) {
    // SAFETY: in bounds and no concurrent write of these four elements, as the caller
    // guarantees.
    let body = |k: usize| unsafe { pairs.read(bodies[k] as usize) };
    let (b0, b1, b2, b3) = (body(0), body(1), body(2), body(3));
    let [ax, ay, az, _] = f32x4::transpose([b0.first, b1.first, b2.first, b3.first].map(f32x4::new));
    let [bx, by, bz, _] = f32x4::transpose([b0.second, b1.second, b2.second, b3.second].map(f32x4::new));
    (Vec3x4 { x: ax, y: ay, z: az }, Vec3x4 { x: bx, y: by, z: bz })
}

/// Writes back the velocities of the lanes whose body the solver moves (`inv_mass` above
/// zero), in lane order. An immovable body (the fixed slot, a kinematic body) may sit in many
/// lanes of a colour and is never written: no impulse changes its velocity, and two threads
/// must not write one element even with the same value.
///
/// # Safety
/// Every index in `bodies` is below `velocities.len()`, and no other thread reads or writes
/// the moving lanes' velocities until the stage is over.
#[inline(always)]
pub(crate) unsafe fn scatter_moving(
    velocities: &SharedSlice<Velocity>,
    bodies: &[u32; 4],
    inv_mass: f32x4,
    v: Vec3x4,
    w: Vec3x4,
) {
    let linear = f32x4::transpose([v.x, v.y, v.z, f32x4::ZERO]);
    let angular = f32x4::transpose([w.x, w.y, w.z, f32x4::ZERO]);
    let moving = inv_mass.simd_gt(f32x4::ZERO).to_bitmask();
    let write = |k: usize| {
        let velocity = Velocity { first: linear[k].to_array(), second: angular[k].to_array() };
        // SAFETY: in bounds, and this thread alone accesses the moving lanes' bodies, as the
        // caller guarantees.
        unsafe { velocities.write(bodies[k] as usize, velocity) };
    };
    // Most batches move all four lanes' bodies: one branch for them.
    if moving == 0b1111 {
        (0..4).for_each(write);
    } else {
        (0..4).filter(|k| moving & (1 << k) != 0).for_each(write);
    }
}

impl<L: Lanes> Add for Vec3Lanes<L> {
    type Output = Vec3Lanes<L>;
    #[inline(always)]
    fn add(self, o: Vec3Lanes<L>) -> Vec3Lanes<L> {
        Vec3Lanes { x: self.x + o.x, y: self.y + o.y, z: self.z + o.z }
    }
}

impl<L: Lanes> Sub for Vec3Lanes<L> {
    type Output = Vec3Lanes<L>;
    #[inline(always)]
    fn sub(self, o: Vec3Lanes<L>) -> Vec3Lanes<L> {
        Vec3Lanes { x: self.x - o.x, y: self.y - o.y, z: self.z - o.z }
    }
}

impl<L: Lanes> Mul<L> for Vec3Lanes<L> {
    type Output = Vec3Lanes<L>;
    #[inline(always)]
    fn mul(self, s: L) -> Vec3Lanes<L> {
        Vec3Lanes { x: self.x * s, y: self.y * s, z: self.z * s }
    }
}

impl<L: Lanes> AddAssign for Vec3Lanes<L> {
    #[inline(always)]
    fn add_assign(&mut self, o: Vec3Lanes<L>) {
        *self = *self + o;
    }
}

impl<L: Lanes> SubAssign for Vec3Lanes<L> {
    #[inline(always)]
    fn sub_assign(&mut self, o: Vec3Lanes<L>) {
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
    fn symmetric_lanes_match_the_scalar_products_and_inverse() {
        let m =
            Mat3::from_cols(Vec3::new(2.0, 0.3, -0.2), Vec3::new(0.3, 1.5, 0.1), Vec3::new(-0.2, 0.1, 3.0));
        let r = Vec3::new(0.4, -0.7, 1.1);
        let mut wide = SymMat3x4::default();
        for k in 0..4 {
            wide.set_lane(k, &m);
        }
        let skew =
            Mat3::from_cols(Vec3::new(0.0, r.z, -r.y), Vec3::new(-r.z, 0.0, r.x), Vec3::new(r.y, -r.x, 0.0));
        let expected = skew.transpose() * m * skew;
        let arm = Vec3x4::from_lanes([r; 4]);
        let got = wide.about_arm(arm);
        let inverse = wide.inverse_or_zero();
        let v = Vec3::new(0.5, -1.0, 2.0);
        for k in 0..4 {
            let column = |e: Vec3| got.mul_vec(Vec3x4::from_lanes([e; 4])).lane(k);
            for (e, want) in
                [(Vec3::X, expected.x_axis), (Vec3::Y, expected.y_axis), (Vec3::Z, expected.z_axis)]
            {
                assert!((column(e) - want).length() < 1e-5, "{} vs {want}", column(e));
            }
            let undone = m * inverse.mul_vec(Vec3x4::from_lanes([v; 4])).lane(k);
            assert!((undone - v).length() < 1e-5, "{undone} vs {v}");
        }
        assert_eq!(SymMat3x4::default().inverse_or_zero(), SymMat3x4::default());
    }

    #[test]
    fn general_lanes_match_the_scalar_product_bit_for_bit() {
        let m = [
            Mat3::from_cols(Vec3::new(2.0, 0.3, -0.2), Vec3::new(0.31, 1.5, 0.1), Vec3::new(-0.2, 0.11, 3.0)),
            Mat3::from_quat(Quat::from_rotation_y(0.7)),
            Mat3::ZERO,
            Mat3::from_diagonal(Vec3::new(0.1, 7.0, 1e-3)),
        ];
        let v =
            [Vec3::new(0.3, -1.7, 2.2), Vec3::new(1e-3, 5.0, -0.25), Vec3::ONE, Vec3::new(9.0, 0.5, -3.0)];
        let got = Mat3x4::from_lanes([&m[0], &m[1], &m[2], &m[3]]).mul_vec(Vec3x4::from_lanes(v));
        for k in 0..4 {
            assert_eq!(got.lane(k), m[k] * v[k]);
        }
        let masked = Vec3x4::from_lanes(v).masked(f32x4::new([1.0, 0.0, 1.0, 0.0]).simd_gt(f32x4::ZERO));
        assert_eq!(masked.to_lanes(), [v[0], Vec3::ZERO, v[2], Vec3::ZERO]);
        assert_eq!(Vec3x4::from_lanes(v).length().to_array()[1], v[1].length());
    }

    #[test]
    fn select_picks_per_lane() {
        let a = f32x4::new([1.0, 2.0, 3.0, 4.0]);
        let mask = a.simd_gt(f32x4::splat(2.5));
        assert_eq!(select(mask, a, f32x4::ZERO).to_array(), [0.0, 0.0, 3.0, 4.0]);
    }
}
