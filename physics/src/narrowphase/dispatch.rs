//! Chooses the routine for a pair of shape kinds.

use super::{CollideCache, Manifold};
use crate::math::Transform;
use crate::shape::Shape;

/// Computes the manifold between `a` at `xa` and `b` at `xb`, keeping points whose separation is
/// at most `speculative`. The normal points from A to B.
pub fn collide(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
    speculative: f32,
    cache: &mut CollideCache,
) -> Manifold {
    let _ = (a, xa, b, xb, speculative, cache);
    Manifold::default()
}
