//! Hand-checked narrowphase cases for every shape pair, argument-order symmetry, feature-id
//! stability under small motions, and degenerate input.

use atoll_physics::narrowphase::{CollideCache, Manifold, collide, flip_feature};
use atoll_physics::{ConvexHull, Quat, Shape, Transform, Vec3};
use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, SQRT_2};
use std::sync::Arc;

const SPEC: f32 = 0.05;

fn sphere(r: f32) -> Shape {
    Shape::sphere(r).unwrap()
}
fn capsule(hh: f32, r: f32) -> Shape {
    Shape::capsule(hh, r).unwrap()
}
fn cuboid(x: f32, y: f32, z: f32) -> Shape {
    Shape::cuboid(Vec3::new(x, y, z)).unwrap()
}
fn hull_box(x: f32, y: f32, z: f32) -> Shape {
    Shape::Hull(Arc::new(ConvexHull::cuboid(Vec3::new(x, y, z))))
}
fn at(x: f32, y: f32, z: f32) -> Transform {
    Transform::from_position(Vec3::new(x, y, z))
}
fn posed(p: Vec3, q: Quat) -> Transform {
    Transform::new(p, q)
}

/// Collides in the given order and checks the reverse order agrees: negated normal, the same
/// positions and separations, flipped feature ids. Also checks the basic invariants.
fn collide_checked(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform, spec: f32) -> Manifold {
    let m = collide(a, xa, b, xb, spec, &mut CollideCache::default());
    let r = collide(b, xb, a, xa, spec, &mut CollideCache::default());
    check_invariants(&m, spec);
    check_invariants(&r, spec);
    assert_eq!(m.count, r.count, "reversed order changed the point count: {m:?} vs {r:?}");
    if m.count > 0 {
        assert!((m.normal + r.normal).length() < 1e-3, "normals {:?} vs {:?}", m.normal, r.normal);
        assert_same_points(&m, &r);
    }
    // Different kinds go through one routine and a flip: ids must be exactly flipped.
    if a.kind() != b.kind() {
        for (p, q) in m.points().iter().zip(r.points()) {
            assert_eq!(flip_feature(p.feature), q.feature);
        }
    }
    m
}

fn check_invariants(m: &Manifold, spec: f32) {
    assert!(m.count <= 4);
    if m.count > 0 {
        assert!((m.normal.length() - 1.0).abs() < 1e-4, "normal not unit: {:?}", m.normal);
    }
    for p in m.points() {
        assert!(p.position.is_finite() && p.separation.is_finite(), "non-finite point {p:?}");
        assert!(p.separation <= spec + 1e-5, "point beyond speculative distance: {p:?}");
    }
}

/// Every point of `a` has a point of `b` at the same place with the same separation.
fn assert_same_points(a: &Manifold, b: &Manifold) {
    for p in a.points() {
        let close = b
            .points()
            .iter()
            .any(|q| (p.position - q.position).length() < 2e-3 && (p.separation - q.separation).abs() < 2e-3);
        assert!(close, "point {p:?} has no match in {:?}", b.points());
    }
}

fn assert_vec(v: Vec3, want: Vec3) {
    assert!((v - want).length() < 1e-3, "got {v:?}, want {want:?}");
}

fn assert_all_sep(m: &Manifold, want: f32) {
    for p in m.points() {
        assert!((p.separation - want).abs() < 1e-3, "separation {} want {want}: {m:?}", p.separation);
    }
}

fn ids(m: &Manifold) -> Vec<u32> {
    let mut v: Vec<u32> = m.points().iter().map(|p| p.feature).collect();
    v.sort_unstable();
    v
}

/// The configuration moved by small translations and rotations (1 mm, 0.5°) keeps its ids.
fn assert_stable_ids(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) {
    let base = collide(a, xa, b, xb, SPEC, &mut CollideCache::default());
    assert!(base.count > 0);
    let d = 0.001;
    let r = 0.5f32.to_radians();
    let nudges = [
        Transform::from_position(Vec3::new(d, 0.0, 0.0)),
        Transform::from_position(Vec3::new(0.0, -d, d)),
        Transform::from_position(Vec3::new(-d, d * 0.5, -d)),
        Transform::new(Vec3::ZERO, Quat::from_rotation_y(r)),
        Transform::new(Vec3::ZERO, Quat::from_rotation_x(r)),
        Transform::new(Vec3::ZERO, Quat::from_rotation_z(-r)),
    ];
    for n in nudges {
        // Rotate B about its own centre, then translate.
        let moved = Transform::new(xb.position + n.position, n.rotation * xb.rotation);
        let m = collide(a, xa, b, &moved, SPEC, &mut CollideCache::default());
        assert_eq!(ids(&m), ids(&base), "ids changed under nudge {n:?}: {m:?} vs {base:?}");
    }
}

// ---------------------------------------------------------------- sphere pairs

#[test]
fn sphere_sphere() {
    let s = sphere(0.5);
    let m = collide_checked(&s, &at(0.0, 0.0, 0.0), &s, &at(0.9, 0.0, 0.0), SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, Vec3::X);
    assert_all_sep(&m, -0.1);
    assert_vec(m.points[0].position, Vec3::new(0.45, 0.0, 0.0));
    // Apart by 0.03: inside the speculative distance, positive separation; 0.08 is beyond it.
    let m = collide_checked(&s, &at(0.0, 0.0, 0.0), &s, &at(0.0, 1.03, 0.0), SPEC);
    assert_eq!(m.count, 1);
    assert_all_sep(&m, 0.03);
    assert_eq!(collide_checked(&s, &at(0.0, 0.0, 0.0), &s, &at(0.0, 1.08, 0.0), SPEC).count, 0);
}

#[test]
fn sphere_capsule() {
    let s = sphere(0.5);
    let c = capsule(1.0, 0.5);
    // Beside the standing capsule's side: normal from the sphere towards the axis.
    let m = collide_checked(&s, &at(0.9, 0.3, 0.0), &c, &at(0.0, 0.0, 0.0), SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::X);
    assert_all_sep(&m, -0.1);
    assert_vec(m.points[0].position, Vec3::new(0.45, 0.3, 0.0));
    // On top of the cap.
    let m = collide_checked(&s, &at(0.0, 1.98, 0.0), &c, &at(0.0, 0.0, 0.0), SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.02);
    // A lying capsule (axis along X) under the sphere.
    let lying = posed(Vec3::ZERO, Quat::from_rotation_z(FRAC_PI_2));
    let m = collide_checked(&s, &at(0.7, 1.02, 0.0), &c, &lying, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, 0.02);
}

#[test]
fn sphere_box() {
    let s = sphere(0.5);
    let b = cuboid(1.0, 1.0, 1.0);
    let o = at(0.0, 0.0, 0.0);
    // Face.
    let m = collide_checked(&s, &at(0.2, 1.4, -0.3), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.1);
    assert_vec(m.points[0].position, Vec3::new(0.2, 0.95, -0.3));
    // Edge (along Z) at 45°.
    let k = 0.45 / SQRT_2;
    let m = collide_checked(&s, &at(1.0 + k, 1.0 + k, 0.2), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::new(1.0, 1.0, 0.0).normalize());
    assert_all_sep(&m, -0.05);
    // Corner.
    let k = 0.52 / 3f32.sqrt();
    let m = collide_checked(&s, &at(1.0 + k, 1.0 + k, 1.0 + k), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::ONE.normalize());
    assert_all_sep(&m, 0.02);
    // Deep inside: out through the nearest face (+X), full depth.
    let m = collide_checked(&s, &at(0.8, 0.1, 0.0), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::X);
    assert_all_sep(&m, -0.7);
    // Rotated box: face normal follows the rotation.
    let rot = Quat::from_rotation_z(0.3);
    let m = collide_checked(
        &s,
        &posed(rot * Vec3::new(1.45, 0.0, 0.0), Quat::IDENTITY),
        &b,
        &posed(Vec3::ZERO, rot),
        SPEC,
    );
    assert_vec(m.normal, -(rot * Vec3::X));
    assert_all_sep(&m, -0.05);
    assert_eq!(collide_checked(&s, &at(0.0, 1.6, 0.0), &b, &o, SPEC).count, 0);
}

#[test]
fn sphere_hull() {
    let s = sphere(0.5);
    let h = hull_box(1.0, 1.0, 1.0);
    let rot = Quat::from_rotation_y(FRAC_PI_4);
    let xh = posed(Vec3::new(0.0, -1.0, 0.0), rot);
    let m = collide_checked(&s, &at(0.1, 0.48, 0.1), &h, &xh, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.02);
    // The same as the equivalent box.
    let mb =
        collide(&s, &at(0.1, 0.48, 0.1), &cuboid(1.0, 1.0, 1.0), &xh, SPEC, &mut CollideCache::default());
    assert_eq!(m, mb);
}

// ---------------------------------------------------------------- capsule pairs

#[test]
fn capsule_capsule_crossing_and_parallel() {
    let c = capsule(1.0, 0.5);
    let along_x = Quat::from_rotation_z(FRAC_PI_2);
    let along_z = Quat::from_rotation_x(FRAC_PI_2);
    // Crossed: one point.
    let m = collide_checked(
        &c,
        &posed(Vec3::ZERO, along_x),
        &c,
        &posed(Vec3::new(0.2, 0.95, 0.1), along_z),
        SPEC,
    );
    assert_eq!(m.count, 1);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.05);
    assert_vec(m.points[0].position, Vec3::new(0.2, 0.475, 0.0));
    // Parallel, overlapping from x = -0.5 to 1: two points at the ends of the overlap.
    let m = collide_checked(
        &c,
        &posed(Vec3::ZERO, along_x),
        &c,
        &posed(Vec3::new(0.5, 0.95, 0.0), along_x),
        SPEC,
    );
    assert_eq!(m.count, 2);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.05);
    let mut xs: Vec<f32> = m.points().iter().map(|p| p.position.x).collect();
    xs.sort_by(f32::total_cmp);
    assert!((xs[0] + 0.5).abs() < 1e-3 && (xs[1] - 1.0).abs() < 1e-3, "{xs:?}");
    // End to end (standing on top of each other): one point.
    let m = collide_checked(&c, &at(0.0, 0.0, 0.0), &c, &at(0.0, 2.99, 0.0), SPEC);
    assert_eq!(m.count, 1);
    assert_all_sep(&m, -0.01);
    assert_stable_ids(&c, &posed(Vec3::ZERO, along_x), &c, &posed(Vec3::new(0.5, 0.95, 0.0), along_x));
    // Apart.
    assert_eq!(collide_checked(&c, &at(0.0, 0.0, 0.0), &c, &at(1.1, 0.0, 0.0), SPEC).count, 0);
}

#[test]
fn capsule_box() {
    let c = capsule(0.5, 0.25);
    let b = cuboid(2.0, 0.5, 2.0);
    let o = at(0.0, 0.0, 0.0);
    let lying = Quat::from_rotation_z(FRAC_PI_2);
    // Lying on the top face, 0.01 deep: two points at the segment ends.
    let m = collide_checked(&c, &posed(Vec3::new(0.3, 0.74, 0.2), lying), &b, &o, SPEC);
    assert_eq!(m.count, 2);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.01);
    let mut xs: Vec<f32> = m.points().iter().map(|p| p.position.x).collect();
    xs.sort_by(f32::total_cmp);
    assert!((xs[0] + 0.2).abs() < 1e-3 && (xs[1] - 0.8).abs() < 1e-3, "{xs:?}");
    assert!(m.points().iter().all(|p| (p.position.y - 0.495).abs() < 1e-3));
    assert_stable_ids(&c, &posed(Vec3::new(0.3, 0.74, 0.2), lying), &b, &o);
    // Lying 0.03 above: still two, with positive separation; 0.08 above: nothing.
    let m = collide_checked(&c, &posed(Vec3::new(0.3, 0.78, 0.2), lying), &b, &o, SPEC);
    assert_eq!(m.count, 2);
    assert_all_sep(&m, 0.03);
    assert_eq!(collide_checked(&c, &posed(Vec3::new(0.3, 0.83, 0.2), lying), &b, &o, SPEC).count, 0);
    // Half hanging over the edge at x = 2: the points are clipped to the face.
    let m = collide_checked(&c, &posed(Vec3::new(2.0, 0.74, 0.0), lying), &b, &o, SPEC);
    assert_eq!(m.count, 2);
    assert!(m.points().iter().all(|p| p.position.x <= 2.0 + 1e-4));
    // Standing: one point.
    let m = collide_checked(&c, &at(0.5, 1.24, 0.0), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_vec(m.points[0].position, Vec3::new(0.5, 0.495, 0.0));
    // Lying along Z against the box's top edge at x = 2: one point, diagonal normal.
    let k = 0.24 / SQRT_2;
    let m = collide_checked(
        &c,
        &posed(Vec3::new(2.0 + k, 0.5 + k, 0.0), Quat::from_rotation_x(FRAC_PI_2)),
        &b,
        &o,
        SPEC,
    );
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::new(1.0, 1.0, 0.0).normalize());
    assert_all_sep(&m, -0.01);
    // Sloping down across the same edge with the core inside the box near it: the edge axis
    // separates least, one point, diagonal normal; the core is 0.06/√2 inside the edge.
    let slope = Quat::from_rotation_z(-3.0 * FRAC_PI_4);
    let m = collide_checked(&c, &posed(Vec3::new(1.97, 0.47, 0.0), slope), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, -Vec3::new(1.0, 1.0, 0.0).normalize());
    assert_all_sep(&m, -0.06 / SQRT_2 - 0.25);
    // Lying across the top face but tilted 30°: one point at the lower end.
    let tilted = Quat::from_rotation_z(FRAC_PI_2 - 0.52);
    let m =
        collide_checked(&c, &posed(Vec3::new(0.0, 0.74 + 0.5 * 0.52f32.sin(), 0.0), tilted), &b, &o, SPEC);
    assert_eq!(m.count, 1);
    assert_all_sep(&m, -0.01);
}

#[test]
fn capsule_hull() {
    let c = capsule(0.5, 0.25);
    let h = hull_box(2.0, 0.5, 2.0);
    let xh = posed(Vec3::ZERO, Quat::from_rotation_y(0.7));
    let lying = Quat::from_rotation_z(FRAC_PI_2);
    let m = collide_checked(&c, &posed(Vec3::new(0.3, 0.74, 0.2), lying), &h, &xh, SPEC);
    assert_eq!(m.count, 2);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.01);
    let m = collide_checked(&c, &at(0.0, 1.24, 0.0), &h, &xh, SPEC);
    assert_eq!(m.count, 1);
    assert_all_sep(&m, -0.01);
}

// ---------------------------------------------------------------- polyhedra

fn ground() -> (Shape, Transform) {
    (cuboid(5.0, 0.5, 5.0), at(0.0, -0.5, 0.0))
}

#[test]
fn box_resting_on_box() {
    let (g, xg) = ground();
    let b = cuboid(0.5, 0.5, 0.5);
    let xb = at(0.3, 0.49, -0.2);
    let m = collide_checked(&g, &xg, &b, &xb, SPEC);
    assert_eq!(m.count, 4);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    for p in m.points() {
        assert!((p.position.y + 0.005).abs() < 1e-4);
        assert!(
            ((p.position.x - 0.3).abs() - 0.5).abs() < 1e-4
                && ((p.position.z + 0.2).abs() - 0.5).abs() < 1e-4
        );
    }
    assert_stable_ids(&g, &xg, &b, &xb);
    // Rotated 45° about Y: still four points.
    let xr = posed(Vec3::new(0.3, 0.49, -0.2), Quat::from_rotation_y(FRAC_PI_4));
    let m = collide_checked(&g, &xg, &b, &xr, SPEC);
    assert_eq!(m.count, 4);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_stable_ids(&g, &xg, &b, &xr);
    // Within the speculative distance: four points with positive separation; beyond: none.
    let m = collide_checked(&g, &xg, &b, &at(0.3, 0.53, -0.2), SPEC);
    assert_eq!(m.count, 4);
    assert_all_sep(&m, 0.03);
    assert_eq!(collide_checked(&g, &xg, &b, &at(0.3, 0.58, -0.2), SPEC).count, 0);
}

#[test]
fn identical_boxes_stacked_flush() {
    // Congruent aligned faces: every patch corner is a vertex of both boxes at once.
    let b = cuboid(0.5, 0.5, 0.5);
    let (xa, xb) = (at(0.0, 0.0, 0.0), at(0.0, 0.99, 0.0));
    let m = collide_checked(&b, &xa, &b, &xb, SPEC);
    assert_eq!(m.count, 4);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_stable_ids(&b, &xa, &b, &xb);
    let m = collide_checked(&b, &xb, &b, &xa, SPEC);
    assert_vec(m.normal, -Vec3::Y);
}

#[test]
fn box_on_edge_and_on_corner() {
    let (g, xg) = ground();
    let b = cuboid(0.5, 0.5, 0.5);
    // Balanced on an edge (along Z): two points.
    let xe = posed(Vec3::new(0.0, 0.5 * SQRT_2 - 0.01, 0.0), Quat::from_rotation_z(FRAC_PI_4));
    let m = collide_checked(&g, &xg, &b, &xe, SPEC);
    assert_eq!(m.count, 2);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_stable_ids(&g, &xg, &b, &xe);
    // Corner down: the box diagonal (1,1,1) turned to -Y.
    let q = Quat::from_rotation_arc(Vec3::ONE.normalize(), -Vec3::Y);
    let xc = posed(Vec3::new(0.0, 0.5 * 3f32.sqrt() - 0.01, 0.0), q);
    let m = collide_checked(&g, &xg, &b, &xc, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_vec(m.points[0].position, Vec3::new(0.0, -0.005, 0.0));
}

#[test]
fn crossing_box_edges() {
    // A long along X with an edge on top, B long along Z with an edge at the bottom.
    let a = cuboid(1.0, 0.1, 0.1);
    let b = cuboid(0.1, 0.1, 1.0);
    let xa = posed(Vec3::ZERO, Quat::from_rotation_x(FRAC_PI_4));
    let xb = posed(Vec3::new(0.0, 0.2 * SQRT_2 - 0.01, 0.0), Quat::from_rotation_z(FRAC_PI_4));
    let m = collide_checked(&a, &xa, &b, &xb, SPEC);
    assert_eq!(m.count, 1);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_vec(m.points[0].position, Vec3::new(0.0, 0.1 * SQRT_2 - 0.005, 0.0));
    assert_stable_ids(&a, &xa, &b, &xb);
    // Apart by 0.02: speculative edge point; by 0.1: nothing.
    let xb2 = posed(Vec3::new(0.0, 0.2 * SQRT_2 + 0.02, 0.0), xb.rotation);
    let m = collide_checked(&a, &xa, &b, &xb2, SPEC);
    assert_eq!(m.count, 1);
    assert_all_sep(&m, 0.02);
    let xb3 = posed(Vec3::new(0.0, 0.2 * SQRT_2 + 0.1, 0.0), xb.rotation);
    assert_eq!(collide_checked(&a, &xa, &b, &xb3, SPEC).count, 0);
}

#[test]
fn box_hull_matches_box_box() {
    let (_, xg) = ground();
    let gh = hull_box(5.0, 0.5, 5.0);
    let b = cuboid(0.5, 0.5, 0.5);
    let xb = posed(Vec3::new(0.3, 0.49, -0.2), Quat::from_rotation_y(0.4));
    let m = collide_checked(&b, &xb, &gh, &xg, SPEC);
    assert_eq!(m.count, 4);
    assert_vec(m.normal, -Vec3::Y);
    assert_all_sep(&m, -0.01);
    // Box–box orders same-kind pairs by pose, so the ground may be the reference there and the
    // box here: the same points and ids either way.
    let boxes = collide(&b, &xb, &cuboid(5.0, 0.5, 5.0), &xg, SPEC, &mut CollideCache::default());
    assert_vec(boxes.normal, m.normal);
    assert_same_points(&m, &boxes);
    assert_eq!(ids(&m), ids(&boxes));
    assert_stable_ids(&gh, &xg, &b, &xb);
}

#[test]
fn hull_hull() {
    let (_, xg) = ground();
    let gh = hull_box(5.0, 0.5, 5.0);
    let h = hull_box(0.5, 0.25, 0.5);
    let xh = posed(Vec3::new(0.0, 0.24, 1.0), Quat::from_rotation_y(0.2));
    let m = collide_checked(&gh, &xg, &h, &xh, SPEC);
    assert_eq!(m.count, 4);
    assert_vec(m.normal, Vec3::Y);
    assert_all_sep(&m, -0.01);
    assert_stable_ids(&gh, &xg, &h, &xh);
    // Hull on an edge, two points.
    let tall = hull_box(0.5, 0.5, 0.5);
    let xe = posed(Vec3::new(0.0, 0.5 * SQRT_2 - 0.02, 0.0), Quat::from_rotation_x(FRAC_PI_4));
    let m = collide_checked(&gh, &xg, &tall, &xe, SPEC);
    assert_eq!(m.count, 2);
    assert_all_sep(&m, -0.02);
}

#[test]
fn cache_only_skips_work() {
    let b = cuboid(0.5, 0.5, 0.5);
    let mut cache = CollideCache::default();
    let far = collide(&b, &at(0.0, 0.0, 0.0), &b, &at(0.0, 1.2, 0.0), SPEC, &mut cache);
    assert_eq!(far.count, 0);
    assert_ne!(cache.axis, 0);
    // Touching again with a stale cache: the same result as a fresh one.
    let near = collide(&b, &at(0.0, 0.0, 0.0), &b, &at(0.0, 0.99, 0.0), SPEC, &mut cache);
    let fresh = collide(&b, &at(0.0, 0.0, 0.0), &b, &at(0.0, 0.99, 0.0), SPEC, &mut CollideCache::default());
    assert_eq!(near, fresh);
    assert_eq!(near.count, 4);
}

// ---------------------------------------------------------------- degenerate input and fuzz

fn all_shapes() -> Vec<Shape> {
    vec![sphere(0.4), capsule(0.6, 0.3), cuboid(0.5, 0.3, 0.7), hull_box(0.6, 0.4, 0.3)]
}

#[test]
fn coincident_and_identical_placements_stay_finite() {
    for a in &all_shapes() {
        for b in &all_shapes() {
            for xb in [at(0.0, 0.0, 0.0), posed(Vec3::ZERO, Quat::from_rotation_y(FRAC_PI_2))] {
                let m = collide(a, &Transform::IDENTITY, b, &xb, SPEC, &mut CollideCache::default());
                assert!(m.count >= 1, "{a:?} {b:?}");
                check_invariants(&m, SPEC);
            }
        }
    }
}

/// A tiny deterministic generator (no dependency, reproducible everywhere).
struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        ((self.0 >> 40) as f32) / ((1u64 << 24) as f32)
    }
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next()
    }
    fn transform(&mut self) -> Transform {
        let p = Vec3::new(self.range(-0.8, 0.8), self.range(-0.8, 0.8), self.range(-0.8, 0.8));
        let axis = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
        let q = Quat::from_axis_angle(axis.normalize_or(Vec3::Y), self.range(-3.2, 3.2));
        Transform::new(p, q)
    }
}

#[test]
fn random_poses_are_symmetric_and_finite() {
    let shapes = all_shapes();
    let mut rng = Lcg(7);
    for _ in 0..400 {
        let (xa, xb) = (rng.transform(), rng.transform());
        for a in &shapes {
            for b in &shapes {
                collide_checked(a, &xa, b, &xb, SPEC);
            }
        }
    }
}

#[test]
fn random_poses_box_equals_hull_box() {
    let mut rng = Lcg(11);
    let (ba, bb) = (cuboid(0.5, 0.3, 0.7), cuboid(0.4, 0.4, 0.2));
    let (ha, hb) = (hull_box(0.5, 0.3, 0.7), hull_box(0.4, 0.4, 0.2));
    for _ in 0..300 {
        let (xa, xb) = (rng.transform(), rng.transform());
        let boxes = collide(&ba, &xa, &bb, &xb, SPEC, &mut CollideCache::default());
        let hulls = collide(&ha, &xa, &hb, &xb, SPEC, &mut CollideCache::default());
        assert_eq!(boxes, hulls);
    }
}

/// True when world point `p` lies in (or within `tol` of) the shape at `x`.
fn inside(shape: &Shape, x: &Transform, p: Vec3, tol: f32) -> bool {
    let l = x.inverse_transform_point(p);
    match shape {
        Shape::Sphere { radius } => l.length() <= radius + tol,
        Shape::Capsule { half_height, radius } => {
            let axis = Vec3::new(0.0, l.y.clamp(-half_height, *half_height), 0.0);
            (l - axis).length() <= radius + tol
        }
        Shape::Cuboid { half_extents } => (l.abs() - *half_extents).max_element() <= tol,
        Shape::Hull(h) => h.faces().iter().all(|f| f.normal.dot(l) - f.offset <= tol),
    }
}

#[test]
fn random_poses_witness_points_lie_on_both_shapes() {
    // Each point is midway between the surfaces: half a separation back along the normal is on
    // A, half forward is on B (within the speculative reach when they are apart).
    let shapes = all_shapes();
    let mut rng = Lcg(23);
    for _ in 0..400 {
        let (xa, xb) = (rng.transform(), rng.transform());
        for a in &shapes {
            for b in &shapes {
                let m = collide(a, &xa, b, &xb, SPEC, &mut CollideCache::default());
                for p in m.points() {
                    let on_a = p.position - m.normal * (0.5 * p.separation);
                    let on_b = p.position + m.normal * (0.5 * p.separation);
                    assert!(
                        inside(a, &xa, on_a, 2e-3),
                        "A witness off {:?} {:?} {xa:?} {xb:?} {m:?}",
                        a.kind(),
                        b.kind()
                    );
                    assert!(
                        inside(b, &xb, on_b, 2e-3),
                        "B witness off {:?} {:?} {xa:?} {xb:?} {m:?}",
                        a.kind(),
                        b.kind()
                    );
                }
            }
        }
    }
}
