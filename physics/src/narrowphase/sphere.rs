//! Pairs with a sphere first: sphere–sphere, sphere–capsule, sphere–polyhedron (box or hull).
//!
//! A sphere touches anything at one point, so each routine finds the closest point of the other
//! shape to the sphere's centre and emits a single point (feature id "whole shape" on both sides,
//! which stays valid however the sphere rolls).

use super::closest::{closest_on_polyhedron, closest_on_segment};
use super::feature;
use super::polytope::Polyhedron;
use super::{Manifold, ManifoldPoint};
use crate::math::{Transform, Vec3};

/// Distances below this count as coincident centres, where no direction is defined.
const COINCIDENT: f32 = 1e-7;

/// A one-point manifold between two round cores: `ca` on A's core (a point of a segment or the
/// centre) with radius `ra`, `cb` likewise; normal from A to B, `fallback` when they coincide.
pub(crate) fn round_point(
    ca: Vec3,
    ra: f32,
    cb: Vec3,
    rb: f32,
    fallback: Vec3,
    speculative: f32,
    id: u32,
) -> Manifold {
    let d = cb - ca;
    let dist = d.length();
    let separation = dist - ra - rb;
    if separation > speculative {
        return Manifold::default();
    }
    let normal = if dist > COINCIDENT { d / dist } else { fallback };
    let mut m = Manifold { normal, ..Manifold::default() };
    // Midway between the two surface points.
    let position = ((ca + normal * ra) + (cb - normal * rb)) * 0.5;
    m.push(ManifoldPoint { position, separation, feature: id });
    m
}

/// Sphere against sphere; coincident centres push along +Y.
pub(crate) fn sphere_sphere(ra: f32, xa: &Transform, rb: f32, xb: &Transform, speculative: f32) -> Manifold {
    round_point(xa.position, ra, xb.position, rb, Vec3::Y, speculative, feature::round(0, 0))
}

/// Sphere (A) against capsule (B): the sphere against the closest point of the capsule's segment.
pub(crate) fn sphere_capsule(
    ra: f32,
    xa: &Transform,
    half_height: f32,
    rb: f32,
    xb: &Transform,
    speculative: f32,
) -> Manifold {
    let b0 = xb.transform_point(Vec3::new(0.0, -half_height, 0.0));
    let b1 = xb.transform_point(Vec3::new(0.0, half_height, 0.0));
    let cb = closest_on_segment(b0, b1, xa.position);
    // Centre on the axis: any direction across the axis is a shortest way out; take the
    // capsule's local X so the choice is deterministic.
    let fallback = -xb.transform_vector(Vec3::X);
    round_point(xa.position, ra, cb, rb, fallback, speculative, feature::round(0, 0))
}

/// Sphere (A) against a polyhedron (B), computed in B's frame. A centre inside the polyhedron
/// is pushed out through the face of least penetration.
pub(crate) fn sphere_poly<P: Polyhedron + ?Sized>(
    radius: f32,
    xa: &Transform,
    poly: &P,
    xb: &Transform,
    speculative: f32,
) -> Manifold {
    let c = xb.inverse_transform_point(xa.position);
    let q = closest_on_polyhedron(poly, c);
    let separation = q.distance - radius;
    if separation > speculative {
        return Manifold::default();
    }
    // q.normal points from the polyhedron to the sphere: the A-to-B normal is its opposite.
    let n_local = q.normal;
    let position = (q.on_poly + (c - n_local * radius)) * 0.5;
    let mut m = Manifold { normal: -xb.transform_vector(n_local), ..Manifold::default() };
    m.push(ManifoldPoint {
        position: xb.transform_point(position),
        separation,
        feature: feature::round(0, 0),
    });
    m
}
