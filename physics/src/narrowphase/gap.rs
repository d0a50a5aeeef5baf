//! How far apart two shapes are, with the witness point on the second and its outward normal:
//! what a shape cast advances by (`World::cast_shape`). A manifold's smallest separation is
//! not always a lower bound of the distance between two polyhedra (a clipped face's points
//! can lie farther along the normal than an edge beside the face), so separated polyhedra take
//! the exact closest pair; round shapes' manifolds are exact already.

use super::dispatch::collide;
use super::polyhedron::closest_pair;
use super::polytope::{BoxPoly, Polyhedron, Posed};
use super::{CollideCache, Manifold};
use crate::math::{Transform, Vec3};
use crate::shape::Shape;

/// How far apart two shapes are, and where.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Gap {
    /// The distance between them, or the deepest penetration (below zero) when they overlap.
    pub(crate) distance: f32,
    /// The nearest (or deepest) point on B's surface, world space.
    pub(crate) on_b: Vec3,
    /// B's outward unit normal there, toward A.
    pub(crate) normal: Vec3,
}

/// The gap between `a` at `xa` and `b` at `xb`, or `None` when it exceeds `reach`.
pub(crate) fn gap(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform, reach: f32) -> Option<Gap> {
    let polyhedra = !matches!(a, Shape::Sphere { .. } | Shape::Capsule { .. })
        && !matches!(b, Shape::Sphere { .. } | Shape::Capsule { .. });
    // For polyhedra, the manifold at reach 0 is the exact overlap test (every separating axis
    // is tried); for round shapes, the manifold at any reach gives the exact distance.
    let m = collide(a, xa, b, xb, if polyhedra { 0.0 } else { reach }, &mut CollideCache::default());
    if let Some(g) = manifold_gap(&m) {
        return Some(g);
    }
    if !polyhedra {
        return None;
    }
    let (on_a, on_b, distance) = match (a, b) {
        (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
            pair(&BoxPoly::new(*ha), xa, &BoxPoly::new(*hb), xb)
        }
        (Shape::Cuboid { half_extents }, Shape::Hull(h)) => pair(&BoxPoly::new(*half_extents), xa, &**h, xb),
        (Shape::Hull(h), Shape::Cuboid { half_extents }) => pair(&**h, xa, &BoxPoly::new(*half_extents), xb),
        (Shape::Hull(p), Shape::Hull(q)) => pair(&**p, xa, &**q, xb),
        _ => unreachable!("both are polyhedra"),
    };
    (distance <= reach).then(|| Gap { distance, on_b, normal: (on_a - on_b).normalize_or(Vec3::Y) })
}

/// The exact closest points of two separated polyhedra, world space, and their distance.
fn pair<P: Polyhedron + ?Sized, Q: Polyhedron + ?Sized>(
    p: &P,
    xp: &Transform,
    q: &Q,
    xq: &Transform,
) -> (Vec3, Vec3, f32) {
    let (on_p, on_q, distance) = closest_pair(&Posed::at_identity(p), &Posed::new(q, xp.inverse_mul(xq)));
    (xp.transform_point(on_p), xp.transform_point(on_q), distance)
}

/// A manifold's deepest point as a gap (its points lie midway between the surfaces, its
/// normal from A to B), or `None` when it has no point.
pub(crate) fn manifold_gap(m: &Manifold) -> Option<Gap> {
    let deepest =
        m.points().iter().reduce(|best, p| if p.separation < best.separation { p } else { best })?;
    Some(Gap {
        distance: deepest.separation,
        on_b: deepest.position + m.normal * (0.5 * deepest.separation),
        normal: -m.normal,
    })
}
