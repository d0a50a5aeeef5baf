//! Reusing a manifold while a pair barely moved relative to itself.
//!
//! After a full collision a contact records each point as two anchors, one fixed on each body
//! (the point on A's surface in A's frame, the point on B's in B's), the normal in A's frame and
//! the pair's relative pose. While the relative pose stays within a small tolerance of that
//! pose, the next manifold is the anchors carried along by the bodies: the separation is the
//! anchors' offset along the carried normal. That is exact for a point on B resting on a face of
//! A, and off by at most the tolerance otherwise, well inside the solver's linear slop. Resting
//! piles, where nearly every pair barely moves, then skip the separating-axis tests entirely.
//!
//! The tolerance is measured against the pose of the last full collision, never the last
//! step's, so slow drift cannot accumulate: once it adds up, the pair is collided again.

use super::{MAX_MANIFOLD_POINTS, Manifold, ManifoldPoint};
use crate::math::{Transform, Vec3};

/// Largest change of B's position in A's frame (metres) before a pair is collided again. A
/// carried point stays fixed on B and the normal on A, so its separation stays exact as B slides
/// over A's face; what drifts is where along the face the point sits (the solver's lever arm),
/// by at most this much. Bullet keeps points until they drift 2 cm; a pile tumbling in a drum
/// spends 9 % less per step at 1 cm than at 5 mm.
const MAX_SHIFT: f32 = 0.01;
/// Largest relative rotation (radians) before a pair is collided again. At the 0.5 m half
/// extent of a unit box this moves a corner by 3 mm.
const MAX_TURN: f32 = 0.006;

/// A manifold's points fixed to the two bodies, and the relative pose they were taken at.
///
/// `repr(C)`, in the order written: the normal right after the relative pose (32 bytes with
/// glam's SIMD quaternion, as on x86-64 and AArch64), so that the carry's first read of it
/// (one 16-byte load, the normal and the float after it) stays inside one cache line
/// ([`ManifoldAnchors::NORMAL_OFFSET`]; a layout check beside `Contact` fails the build
/// otherwise, whatever the quaternion's layout). Laid out by the compiler, the normal
/// straddled the contact's fifth and sixth lines, and in about half of all processes, by where
/// the stack happened to start, that load stalled the whole carry: the 3D pyramid's
/// narrowphase took about 3 ms a step instead of about 1.2.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[repr(C)]
pub(crate) struct ManifoldAnchors {
    /// `xa⁻¹ · xb` when the manifold was computed.
    relative: Transform,
    /// The normal in A's frame.
    normal: Vec3,
    /// Per point: the point on A's surface in A's frame and on B's surface in B's frame.
    anchors: [(Vec3, Vec3); MAX_MANIFOLD_POINTS],
    /// How many anchors are valid; 0 means there is nothing to reuse.
    count: u32,
}

impl ManifoldAnchors {
    /// Where the normal starts, in bytes from the start of the anchors.
    pub const NORMAL_OFFSET: usize = std::mem::offset_of!(ManifoldAnchors, normal);

    /// Every float it holds, for comparisons bit for bit.
    pub fn floats(&self) -> impl Iterator<Item = f32> + '_ {
        let relative = self.relative.position.to_array().into_iter().chain(self.relative.rotation.to_array());
        let anchors = self.anchors.iter().flat_map(|(a, b)| a.to_array().into_iter().chain(b.to_array()));
        relative.chain(self.normal.to_array()).chain(anchors)
    }

    /// Nothing recorded, bit for bit as [`ManifoldAnchors::default`] is.
    pub fn is_unset(&self) -> bool {
        let zero = |v: Vec3| v.to_array().iter().all(|x| x.to_bits() == 0);
        let identity = Transform::IDENTITY.rotation.to_array().map(f32::to_bits);
        self.count == 0
            && zero(self.relative.position)
            && self.relative.rotation.to_array().map(f32::to_bits) == identity
            && zero(self.normal)
            && self.anchors.iter().all(|(a, b)| zero(*a) && zero(*b))
    }

    /// Records `manifold`, computed with A at `xa` and B at `xb`.
    pub fn capture(manifold: &Manifold, xa: &Transform, xb: &Transform) -> ManifoldAnchors {
        let mut anchors = [(Vec3::ZERO, Vec3::ZERO); MAX_MANIFOLD_POINTS];
        let n = manifold.normal;
        for (slot, p) in anchors.iter_mut().zip(manifold.points()) {
            // The manifold position lies midway between the surfaces.
            let half = n * (0.5 * p.separation);
            *slot = (
                xa.inverse_transform_point(p.position - half),
                xb.inverse_transform_point(p.position + half),
            );
        }
        ManifoldAnchors {
            relative: xa.inverse_mul(xb),
            normal: xa.inverse_transform_vector(n),
            anchors,
            count: manifold.count as u32,
        }
    }

    /// The manifold carried along to poses `xa` and `xb`, or `None` when there is nothing to
    /// carry, the pair moved too far relative to itself since it was captured, or a point
    /// drifted beyond the `speculative` distance (a full collision would drop it).
    pub fn carry(
        &self,
        previous: &Manifold,
        xa: &Transform,
        xb: &Transform,
        speculative: f32,
    ) -> Option<Manifold> {
        if self.count == 0 || self.count as usize != previous.count {
            return None;
        }
        let relative = xa.inverse_mul(xb);
        if relative.position.distance_squared(self.relative.position) > MAX_SHIFT * MAX_SHIFT {
            return None;
        }
        // |cos(θ/2)| of the rotation between the two relative orientations.
        let cos_half = relative.rotation.dot(self.relative.rotation).abs();
        if cos_half < (0.5 * MAX_TURN).cos() {
            return None;
        }
        let normal = xa.transform_vector(self.normal);
        let count = self.count as usize;
        let mut manifold = Manifold { normal, count, ..Default::default() };
        for ((on_a, on_b), (out, old)) in
            self.anchors[..count].iter().zip(manifold.points.iter_mut().zip(previous.points()))
        {
            let (pa, pb) = (xa.transform_point(*on_a), xb.transform_point(*on_b));
            let separation = normal.dot(pb - pa);
            if separation > speculative {
                return None;
            }
            *out = ManifoldPoint { position: (pa + pb) * 0.5, separation, feature: old.feature };
        }
        Some(manifold)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::math::Quat;

    fn resting_manifold() -> (Manifold, Transform, Transform) {
        // B's bottom corner 1 mm into the top face of A (at y = 0.5), normal up.
        let xa = Transform::from_position(Vec3::ZERO);
        let xb = Transform::from_position(Vec3::new(0.2, 0.999, 0.0));
        let mut m = Manifold { normal: Vec3::Y, ..Default::default() };
        m.push(ManifoldPoint { position: Vec3::new(0.0, 0.4995, 0.1), separation: -0.001, feature: 7 });
        (m, xa, xb)
    }

    #[test]
    fn unmoved_pair_gets_its_manifold_back() {
        let (m, xa, xb) = resting_manifold();
        let carried = ManifoldAnchors::capture(&m, &xa, &xb).carry(&m, &xa, &xb, 0.02).unwrap();
        assert_eq!(carried.count, 1);
        assert!((carried.points[0].position - m.points[0].position).length() < 1e-6);
        assert!((carried.points[0].separation - m.points[0].separation).abs() < 1e-6);
        assert_eq!(carried.points[0].feature, 7);
    }

    #[test]
    fn a_pair_moving_together_keeps_its_separation() {
        let (m, xa, xb) = resting_manifold();
        let anchors = ManifoldAnchors::capture(&m, &xa, &xb);
        // Both bodies turned and moved as one: the manifold turns with them.
        let motion = Transform::new(Vec3::new(3.0, -1.0, 2.0), Quat::from_rotation_z(0.7));
        let carried = anchors.carry(&m, &motion.mul(&xa), &motion.mul(&xb), 0.02).unwrap();
        assert!((carried.normal - motion.transform_vector(Vec3::Y)).length() < 1e-5);
        assert!((carried.points[0].separation + 0.001).abs() < 1e-5);
    }

    #[test]
    fn b_sinking_by_a_millimetre_deepens_the_point() {
        let (m, xa, xb) = resting_manifold();
        let anchors = ManifoldAnchors::capture(&m, &xa, &xb);
        let lower = Transform::from_position(xb.position - Vec3::Y * 0.001);
        let carried = anchors.carry(&m, &xa, &lower, 0.02).unwrap();
        assert!((carried.points[0].separation + 0.002).abs() < 1e-5, "{}", carried.points[0].separation);
    }

    #[test]
    fn moving_or_turning_past_the_tolerance_asks_for_a_new_collision() {
        let (m, xa, xb) = resting_manifold();
        let anchors = ManifoldAnchors::capture(&m, &xa, &xb);
        let slid = Transform::from_position(xb.position + Vec3::X * 0.011);
        assert!(anchors.carry(&m, &xa, &slid, 0.02).is_none());
        let turned = Transform::new(xb.position, Quat::from_rotation_y(0.007));
        assert!(anchors.carry(&m, &xa, &turned, 0.02).is_none());
        assert!(anchors.carry(&Manifold::default(), &xa, &xb, 0.02).is_none(), "point count changed");
        let higher = Transform::from_position(xb.position + Vec3::Y * 0.004);
        assert!(anchors.carry(&m, &xa, &higher, 0.002).is_none(), "drifted past the speculative distance");
        assert!(ManifoldAnchors::default().carry(&m, &xa, &xb, 0.02).is_none(), "nothing captured");
    }
}
