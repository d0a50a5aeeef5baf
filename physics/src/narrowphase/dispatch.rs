//! Chooses the routine for a pair of shape kinds.
//!
//! Each routine is written for one ordered pair (the lower [`ShapeKind`](crate::shape::ShapeKind)
//! first); the reverse order calls it with the arguments swapped and flips the result, so
//! `collide(b, a)` is exactly `collide(a, b)` with the normal negated and feature ids flipped.
//!
//! Same-kind pairs are put in a canonical order too (by relative position, see
//! [`swap_to_canonical`]), because
//! their routines break ties in favour of the first shape (the reference face of two resting
//! boxes, the axis a parallel capsule pair is measured along): without it the two orders could
//! give different, if equally valid, manifolds.

use super::capsule::{capsule_capsule, capsule_poly};
use super::feature::flip_feature;
use super::polyhedron::collide_polyhedra;
use super::polytope::BoxPoly;
use super::sphere::{sphere_capsule, sphere_poly, sphere_sphere};
use super::{CollideCache, Manifold};
use crate::math::{Transform, Vec3};
use crate::shape::Shape;
use std::cmp::Ordering;

/// Computes the manifold between `a` at `xa` and `b` at `xb`, keeping points whose separation is
/// at most `speculative`. The normal points from A to B.
///
/// Degenerate input (coincident centres, parallel edges) gets a deterministic fallback normal
/// rather than NaN. `cache` only lets separated polyhedra skip work; the manifold itself never
/// depends on it.
pub fn collide(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
    speculative: f32,
    cache: &mut CollideCache,
) -> Manifold {
    if swap_to_canonical(a, xa, b, xb) {
        flip(ordered(b, xb, a, xa, speculative, cache))
    } else {
        ordered(a, xa, b, xb, speculative, cache)
    }
}

/// [`collide`] for a pair already in canonical order.
fn ordered(
    a: &Shape,
    xa: &Transform,
    b: &Shape,
    xb: &Transform,
    speculative: f32,
    cache: &mut CollideCache,
) -> Manifold {
    use Shape::{Capsule, Cuboid, Hull, Sphere};
    let m = match (a, b) {
        (Sphere { radius: ra }, Sphere { radius: rb }) => sphere_sphere(*ra, xa, *rb, xb, speculative),
        (Sphere { radius }, Capsule { half_height, radius: rb }) => {
            sphere_capsule(*radius, xa, *half_height, *rb, xb, speculative)
        }
        (Sphere { radius }, Cuboid { half_extents }) => {
            sphere_poly(*radius, xa, &BoxPoly::new(*half_extents), xb, speculative)
        }
        (Sphere { radius }, Hull(h)) => sphere_poly(*radius, xa, &**h, xb, speculative),
        (Capsule { half_height: ha, radius: ra }, Capsule { half_height: hb, radius: rb }) => {
            capsule_capsule((*ha, *ra, xa), (*hb, *rb, xb), speculative)
        }
        (Capsule { half_height, radius }, Cuboid { half_extents }) => {
            capsule_poly((*half_height, *radius, xa), &BoxPoly::new(*half_extents), xb, speculative)
        }
        (Capsule { half_height, radius }, Hull(h)) => {
            capsule_poly((*half_height, *radius, xa), &**h, xb, speculative)
        }
        (Cuboid { half_extents: ha }, Cuboid { half_extents: hb }) => {
            collide_polyhedra(&BoxPoly::new(*ha), xa, &BoxPoly::new(*hb), xb, speculative, cache)
        }
        (Cuboid { half_extents }, Hull(h)) => {
            collide_polyhedra(&BoxPoly::new(*half_extents), xa, &**h, xb, speculative, cache)
        }
        (Hull(ha), Hull(hb)) => collide_polyhedra(&**ha, xa, &**hb, xb, speculative, cache),
        // Reverse orders (not reached from `collide`): the routine above for (b, a), flipped.
        (Capsule { .. } | Cuboid { .. } | Hull(_), Sphere { .. })
        | (Cuboid { .. } | Hull(_), Capsule { .. })
        | (Hull(_), Cuboid { .. }) => return flip(ordered(b, xb, a, xa, speculative, cache)),
    };
    sanitize(m)
}

/// True when `(b, a)` is the canonical order: the lower kind first. For equal kinds, the shape
/// whose centre is lower along the axis where the centres differ most comes first: for shapes in
/// contact that difference is about the size of the shapes, so jitter does not flip the order
/// (a fixed x-then-y-then-z order would flip for a stack whose centres share an x). Identical
/// centres fall back to the rotations, then the shape data (total order on floats throughout,
/// so it is deterministic).
fn swap_to_canonical(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> bool {
    if a.kind() != b.kind() {
        return a.kind() > b.kind();
    }
    let d = xb.position - xa.position;
    let abs = d.abs();
    let major = if abs.x >= abs.y && abs.x >= abs.z {
        d.x
    } else if abs.y >= abs.z {
        d.y
    } else {
        d.z
    };
    if major != 0.0 {
        return major < 0.0;
    }
    match cmp_floats(&xa.rotation.to_array(), &xb.rotation.to_array()) {
        Ordering::Equal => cmp_shapes(a, b) == Ordering::Greater,
        o => o == Ordering::Greater,
    }
}

/// Lexicographic order of two float slices by `total_cmp`.
fn cmp_floats(a: &[f32], b: &[f32]) -> Ordering {
    a.iter().zip(b).map(|(x, y)| x.total_cmp(y)).find(|o| o.is_ne()).unwrap_or(a.len().cmp(&b.len()))
}

/// Orders two shapes of the same kind by their data (only reached for identical poses).
fn cmp_shapes(a: &Shape, b: &Shape) -> Ordering {
    match (a, b) {
        (Shape::Hull(ha), Shape::Hull(hb)) => {
            let (va, vb) = (ha.vertices(), hb.vertices());
            va.iter()
                .zip(vb)
                .map(|(x, y)| cmp_floats(&x.to_array(), &y.to_array()))
                .find(|o| o.is_ne())
                .unwrap_or(va.len().cmp(&vb.len()))
        }
        _ => cmp_floats(&scalar_data(a), &scalar_data(b)),
    }
}

/// The size parameters of a primitive shape.
fn scalar_data(s: &Shape) -> [f32; 3] {
    match s {
        Shape::Sphere { radius } => [*radius, 0.0, 0.0],
        Shape::Capsule { half_height, radius } => [*half_height, *radius, 0.0],
        Shape::Cuboid { half_extents } => half_extents.to_array(),
        Shape::Hull(_) => [0.0; 3],
    }
}

/// The same manifold seen from the other shape: normal negated, feature ids flipped; positions
/// and separations do not depend on the order.
fn flip(mut m: Manifold) -> Manifold {
    m.normal = -m.normal;
    for p in &mut m.points[..m.count] {
        p.feature = flip_feature(p.feature);
    }
    m
}

/// Last line of defence against NaN from non-finite input transforms: a manifold with a
/// non-finite value is dropped instead of poisoning the solver.
fn sanitize(m: Manifold) -> Manifold {
    let finite =
        m.normal.is_finite() && m.points().iter().all(|p| p.position.is_finite() && p.separation.is_finite());
    if finite || m.count == 0 { m } else { Manifold { normal: Vec3::Y, ..Manifold::default() } }
}
