//! Convex hulls from point clouds and ray casts against every shape, through the public API.

use atoll_physics::shape::{ConvexHull, MAX_HULL_VERTICES, RayHit};
use atoll_physics::{AtollError, Quat, Shape, Transform, Vec3};
use std::sync::Arc;

/// A deterministic 64-bit LCG (Knuth's MMIX constants), so the tests need no random crate.
struct Lcg(u64);

impl Lcg {
    /// Uniform in [0, 1).
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in [-1, 1)^3.
    fn in_cube(&mut self) -> Vec3 {
        Vec3::new(self.unit(), self.unit(), self.unit()) * 2.0 - Vec3::ONE
    }

    /// Uniform on the unit sphere (rejection sampling, then projection).
    fn on_sphere(&mut self) -> Vec3 {
        loop {
            let v = self.in_cube();
            if v.length_squared() > 0.01 && v.length_squared() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

fn close(a: f32, b: f32, tol: f32) -> bool {
    (a - b).abs() <= tol * a.abs().max(b.abs()).max(1.0)
}

/// Checks the hull is a closed convex polyhedron: Euler's formula, every vertex on or behind every
/// face plane, each face planar, and every edge shared by two faces.
fn assert_valid(hull: &ConvexHull) {
    let (v, e, f) = (hull.vertices().len(), hull.edges().len(), hull.faces().len());
    assert_eq!(v as i64 - e as i64 + f as i64, 2, "Euler: V={v} E={e} F={f}");
    let scale = hull.vertices().iter().map(|p| p.length()).fold(1.0, f32::max);
    for (i, face) in hull.faces().iter().enumerate() {
        for p in hull.vertices() {
            assert!(face.normal.dot(*p) - face.offset <= 1e-4 * scale, "vertex in front of face {i}");
        }
        for &k in hull.face_vertex_indices(i) {
            let p = hull.vertices()[k as usize];
            assert!((face.normal.dot(p) - face.offset).abs() <= 1e-4 * scale, "face {i} is not planar");
        }
    }
    let half_edges: usize = (0..f).map(|i| hull.face_vertex_indices(i).len()).sum();
    assert_eq!(half_edges, 2 * e);
}

/// Asserts the hull holds every point (within `tol` of each face plane).
fn assert_contains(hull: &ConvexHull, points: &[Vec3], tol: f32) {
    for (i, face) in hull.faces().iter().enumerate() {
        for (k, p) in points.iter().enumerate() {
            let d = face.normal.dot(*p) - face.offset;
            assert!(d <= tol, "point {k} is {d} in front of face {i}");
        }
    }
}

fn cube_cloud(h: Vec3, rng: &mut Lcg) -> Vec<Vec3> {
    let corners: Vec<Vec3> = (0..8).map(|i| h * Vec3::new(sign(i & 1), sign(i & 2), sign(i & 4))).collect();
    let mut points = Vec::new();
    for k in 0..200 {
        points.push(rng.in_cube() * h * 0.999); // interior
        if k % 10 == 0 {
            points.push(corners[k / 10 % 8]); // duplicates of corners
        }
    }
    points.extend(corners.iter().rev());
    points
}

fn sign(bit: usize) -> f32 {
    if bit == 0 { -1.0 } else { 1.0 }
}

#[test]
fn cube_cloud_with_interior_points_and_duplicates() {
    let h = Vec3::new(0.5, 1.0, 2.0);
    let points = cube_cloud(h, &mut Lcg(1));
    let hull = ConvexHull::from_points(&points).unwrap();
    assert_eq!(hull.vertices().len(), 8);
    assert_eq!(hull.faces().len(), 6);
    assert_eq!(hull.edges().len(), 12);
    assert!(hull.faces().iter().all(|f| f.count == 4));
    assert_valid(&hull);
    let exact = Shape::Cuboid { half_extents: h }.mass_properties(2.0);
    let from_hull = Shape::Hull(Arc::new(hull)).mass_properties(2.0);
    assert!(close(exact.mass, from_hull.mass, 1e-5));
    assert!(from_hull.local_center.length() < 1e-5);
    for (a, b) in exact.inertia.to_cols_array().iter().zip(from_hull.inertia.to_cols_array()) {
        assert!(close(*a, b, 1e-4), "{:?} vs {:?}", exact.inertia, from_hull.inertia);
    }
}

#[test]
fn rotated_offset_cube_still_merges_to_quads() {
    let xf =
        Transform::new(Vec3::new(30.0, -4.0, 7.0), Quat::from_euler(glam::EulerRot::XYZ, 0.4, 1.1, -0.3));
    let points: Vec<Vec3> =
        cube_cloud(Vec3::new(1.0, 0.3, 0.7), &mut Lcg(5)).iter().map(|p| xf.transform_point(*p)).collect();
    let hull = ConvexHull::from_points(&points).unwrap();
    assert_eq!((hull.vertices().len(), hull.faces().len(), hull.edges().len()), (8, 6, 12));
    assert_valid(&hull);
}

#[test]
fn tetrahedron_volume_is_exact() {
    let points = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 3.0, 0.0), Vec3::new(0.0, 0.0, 4.0)];
    let hull = ConvexHull::from_points(&points).unwrap();
    assert_eq!((hull.vertices().len(), hull.faces().len(), hull.edges().len()), (4, 4, 6));
    assert!(close(hull.unit_mass().mass, 2.0 * 3.0 * 4.0 / 6.0, 1e-6));
    assert!((hull.unit_mass().local_center - Vec3::new(0.5, 0.75, 1.0)).length() < 1e-6);
    assert_valid(&hull);
}

#[test]
fn sphere_points_lie_inside_every_face() {
    let mut rng = Lcg(42);
    // Few enough hull vertices that no simplification happens, plus interior points.
    let mut points: Vec<Vec3> = (0..60).map(|_| rng.on_sphere() * 3.0).collect();
    points.extend((0..500).map(|_| rng.on_sphere() * 1.5 * rng.unit()));
    let hull = ConvexHull::from_points(&points).unwrap();
    assert_eq!(hull.vertices().len(), 60);
    assert_valid(&hull);
    assert_contains(&hull, &points, 5e-4);
}

#[test]
fn dense_sphere_is_capped_and_stays_close() {
    let mut rng = Lcg(9);
    let points: Vec<Vec3> = (0..2000).map(|_| rng.on_sphere()).collect();
    let hull = ConvexHull::from_points(&points).unwrap();
    assert!(hull.vertices().len() <= MAX_HULL_VERTICES, "{} vertices", hull.vertices().len());
    assert!(hull.vertices().len() >= MAX_HULL_VERTICES - 4, "the cap should be used, not wasted");
    assert_valid(&hull);
    // Every vertex is an input point, so the simplified hull lies inside the exact one...
    assert!(hull.vertices().iter().all(|v| points.contains(v)));
    // ...and the spread-out choice keeps it close: no input point far outside.
    assert_contains(&hull, &points, 0.15);
    // Same input, same hull.
    assert_eq!(hull, ConvexHull::from_points(&points).unwrap());
}

#[test]
fn thousands_of_points_in_a_box() {
    let mut rng = Lcg(11);
    let mut points: Vec<Vec3> = (0..5000).map(|_| rng.in_cube() * 0.9).collect();
    points.extend((0..8).map(|i| Vec3::new(sign(i & 1), sign(i & 2), sign(i & 4))));
    let hull = ConvexHull::from_points(&points).unwrap();
    assert_eq!((hull.vertices().len(), hull.faces().len()), (8, 6));
    assert_contains(&hull, &points, 1e-5);
}

fn reason(result: Result<ConvexHull, AtollError>) -> String {
    match result {
        Err(AtollError::InvalidInput { what, reason }) => {
            assert_eq!(what, "convex hull");
            reason
        }
        other => panic!("expected InvalidInput, got {other:?}"),
    }
}

#[test]
fn degenerate_clouds_are_rejected_with_reasons() {
    let too_few = reason(ConvexHull::from_points(&[Vec3::ZERO, Vec3::X, Vec3::Y]));
    assert!(too_few.contains("at least 4 points"), "{too_few}");

    let mut nan = vec![Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z];
    nan[2].y = f32::NAN;
    let nan = reason(ConvexHull::from_points(&nan));
    assert!(nan.contains("point 2") && nan.contains("non-finite"), "{nan}");

    let same = reason(ConvexHull::from_points(&[Vec3::ONE; 5]));
    assert!(same.contains("coincident"), "{same}");

    let line: Vec<Vec3> = (0..10).map(|i| Vec3::new(1.0, 2.0, 3.0) * i as f32 * 0.1).collect();
    let line = reason(ConvexHull::from_points(&line));
    assert!(line.contains("collinear"), "{line}");

    let mut rng = Lcg(2);
    let tilt = Quat::from_rotation_x(0.3);
    let plane: Vec<Vec3> = (0..50).map(|_| tilt * (rng.in_cube() * Vec3::new(1.0, 0.0, 1.0))).collect();
    let plane = reason(ConvexHull::from_points(&plane));
    assert!(plane.contains("coplanar") && plane.contains("of one plane"), "{plane}");

    // A barely thick slab is still a valid hull.
    let mut slab = vec![Vec3::ZERO, Vec3::X, Vec3::Z, Vec3::X + Vec3::Z];
    slab.push(Vec3::new(0.5, 1e-3, 0.5));
    assert!(ConvexHull::from_points(&slab).is_ok());
}

fn assert_hit(hit: Option<RayHit>, t: f32, normal: Vec3) {
    let hit = hit.unwrap_or_else(|| panic!("expected a hit at t = {t}"));
    assert!((hit.t - t).abs() < 1e-5, "t {} vs {t}", hit.t);
    assert!((hit.normal - normal).length() < 1e-5, "normal {} vs {normal}", hit.normal);
}

#[test]
fn sphere_rays() {
    let s = Shape::sphere(2.0).unwrap();
    assert_hit(s.cast_ray(Vec3::new(0.0, 0.0, 5.0), -Vec3::Z, 10.0), 3.0, Vec3::Z);
    // Off-centre: enters at x = 1.2, z = 1.6 (a 3-4-5 triangle scaled by 0.4).
    assert_hit(
        s.cast_ray(Vec3::new(1.2, 0.0, 5.0), Vec3::new(0.0, 0.0, -0.5), 10.0),
        6.8,
        Vec3::new(0.6, 0.0, 0.8),
    );
    assert!(s.cast_ray(Vec3::new(2.1, 0.0, 5.0), -Vec3::Z, 10.0).is_none());
    assert!(s.cast_ray(Vec3::new(0.0, 0.0, 5.0), Vec3::Z, 10.0).is_none());
    assert!(s.cast_ray(Vec3::new(0.0, 0.0, 5.0), -Vec3::Z, 2.9).is_none());
    assert_hit(
        s.cast_ray(Vec3::new(0.5, 0.0, 0.0), Vec3::new(0.0, 3.0, 4.0), 1.0),
        0.0,
        Vec3::new(0.0, -0.6, -0.8),
    );
}

#[test]
fn capsule_rays() {
    let c = Shape::capsule(1.0, 0.5).unwrap();
    assert_hit(c.cast_ray(Vec3::new(0.0, 0.9, -3.0), Vec3::Z, 10.0), 2.5, -Vec3::Z);
    assert_hit(c.cast_ray(Vec3::new(0.0, -4.0, 0.0), Vec3::Y, 10.0), 2.5, -Vec3::Y);
    // Grazing the top sphere: from (0.3, 5, 0) down, the cap surface is at y = 1 + 0.4.
    assert_hit(c.cast_ray(Vec3::new(0.3, 5.0, 0.0), -Vec3::Y, 10.0), 3.6, Vec3::new(0.6, 0.8, 0.0));
    // Beside the cap, outside the radius: miss; a ray parallel to the axis, outside: miss.
    assert!(c.cast_ray(Vec3::new(0.0, 1.6, -3.0), Vec3::Z, 10.0).is_none());
    assert!(c.cast_ray(Vec3::new(0.6, -5.0, 0.0), Vec3::Y, 100.0).is_none());
    assert_hit(c.cast_ray(Vec3::new(0.0, 1.2, 0.0), Vec3::X * 3.0, 1.0), 0.0, -Vec3::X);
}

#[test]
fn cuboid_rays() {
    let b = Shape::cuboid(Vec3::new(1.0, 2.0, 3.0)).unwrap();
    assert_hit(b.cast_ray(Vec3::new(-4.0, 0.5, 0.5), Vec3::X, 10.0), 3.0, -Vec3::X);
    assert_hit(b.cast_ray(Vec3::new(0.0, 0.0, 9.0), Vec3::new(0.0, 0.0, -2.0), 10.0), 3.0, Vec3::Z);
    // Diagonal in the xy plane: the y slab is entered last, at t = 1 (y = -2).
    assert_hit(b.cast_ray(Vec3::new(-1.5, -3.0, 0.0), Vec3::new(1.0, 1.0, 0.0), 10.0), 1.0, -Vec3::Y);
    assert!(b.cast_ray(Vec3::new(-4.0, 2.5, 0.0), Vec3::X, 10.0).is_none());
    assert!(b.cast_ray(Vec3::new(-4.0, 0.0, 0.0), -Vec3::X, 10.0).is_none());
    assert_hit(b.cast_ray(Vec3::new(0.9, 1.9, 2.9), -Vec3::Z, 10.0), 0.0, Vec3::Z);
}

#[test]
fn hull_rays() {
    let tet = ConvexHull::from_points(&[Vec3::ZERO, Vec3::X, Vec3::Y, Vec3::Z]).unwrap();
    let shape = Shape::Hull(Arc::new(tet));
    let n = Vec3::ONE.normalize();
    // The slanted face x + y + z = 1 seen along -(1,1,1) from (1,1,1): reached at t = 2/3.
    assert_hit(shape.cast_ray(Vec3::ONE, -Vec3::ONE, 10.0), 2.0 / 3.0, n);
    assert_hit(shape.cast_ray(Vec3::new(0.2, 0.2, -1.0), Vec3::Z, 10.0), 1.0, -Vec3::Z);
    assert!(shape.cast_ray(Vec3::new(0.6, 0.6, -1.0), Vec3::Z, 10.0).is_none());
    assert_hit(shape.cast_ray(Vec3::splat(0.1), Vec3::X, 10.0), 0.0, -Vec3::X);
    // Limited by max_t.
    assert!(shape.cast_ray(Vec3::new(0.2, 0.2, -1.0), Vec3::Z, 0.5).is_none());
}

#[test]
fn hull_and_cuboid_rays_agree() {
    let h = Vec3::new(0.5, 1.5, 1.0);
    let cuboid = Shape::cuboid(h).unwrap();
    let hull = Shape::Hull(Arc::new(ConvexHull::from_points(&cube_cloud(h, &mut Lcg(3))).unwrap()));
    let mut rng = Lcg(77);
    let mut hits = 0;
    for _ in 0..2000 {
        // Aim at a point near the box, with a random length, so that most rays hit.
        let origin = rng.in_cube() * 4.0;
        let dir = (rng.in_cube() * h * 1.3 - origin) * (0.2 + rng.unit());
        let (a, b) = (cuboid.cast_ray(origin, dir, 5.0), hull.cast_ray(origin, dir, 5.0));
        match (a, b) {
            (Some(a), Some(b)) => {
                hits += 1;
                assert!((a.t - b.t).abs() < 1e-4, "{origin} {dir}: {a:?} vs {b:?}");
                // Normals differ only if the ray meets an edge (ties pick different faces).
                let grazes =
                    (origin + dir * a.t).abs().cmpge(h - Vec3::splat(1e-3)).bitmask().count_ones() > 1;
                assert!(grazes || (a.normal - b.normal).length() < 1e-4, "{origin} {dir}: {a:?} vs {b:?}");
            }
            (None, None) => {}
            _ => {
                // Only near-tangent rays may disagree, through rounding at an edge.
                let near = a.or(b).unwrap();
                let p = origin + dir * near.t;
                assert!(
                    (p.abs() - h).abs().cmple(Vec3::splat(1e-4)).bitmask().count_ones() >= 2,
                    "{a:?} {b:?}"
                );
            }
        }
    }
    assert!(hits > 1000, "too few hits ({hits}) to compare");
}

#[test]
fn world_rays_use_the_transform() {
    let shape = Shape::capsule(1.0, 0.5).unwrap();
    // Lay the capsule along world X, then cast down onto its middle.
    let xf = Transform::new(Vec3::new(3.0, 1.0, 0.0), Quat::from_rotation_z(std::f32::consts::FRAC_PI_2));
    assert_hit(shape.cast_ray_world(&xf, Vec3::new(3.8, 4.0, 0.0), -Vec3::Y, 10.0), 2.5, Vec3::Y);
    // 1.4 along the axis is past the segment end (1.0), so the ray meets the end cap, at
    // sqrt(0.25 - 0.16) = 0.3 above the axis.
    assert_hit(
        shape.cast_ray_world(&xf, Vec3::new(4.4, 4.0, 0.0), -Vec3::Y, 10.0),
        2.7,
        Vec3::new(0.8, 0.6, 0.0),
    );
    let hull = Shape::Hull(Arc::new(ConvexHull::cuboid(Vec3::ONE)));
    let spin = Transform::new(Vec3::new(0.0, 0.0, -5.0), Quat::from_rotation_y(std::f32::consts::FRAC_PI_2));
    assert_hit(hull.cast_ray_world(&spin, Vec3::ZERO, -Vec3::Z, 10.0), 4.0, Vec3::Z);
}

#[test]
fn invalid_rays_never_hit() {
    let s = Shape::sphere(1.0).unwrap();
    assert!(s.cast_ray(Vec3::new(0.0, 0.0, 5.0), Vec3::ZERO, 10.0).is_none());
    assert!(s.cast_ray(Vec3::new(0.0, 0.0, 5.0), Vec3::new(0.0, 0.0, f32::NAN), 10.0).is_none());
    assert!(s.cast_ray(Vec3::ZERO, -Vec3::Z, -1.0).is_none());
    assert!(s.cast_ray(Vec3::new(0.0, 0.0, 5.0), -Vec3::Z, f32::INFINITY).is_some());
}

#[test]
fn world_boxes_of_round_shapes_are_exact_and_hold_the_shape() {
    let mut rng = Lcg(5);
    for _ in 0..200 {
        let rotation = Quat::from_axis_angle(rng.on_sphere(), rng.unit() * 6.3);
        let xf = Transform::new(rng.in_cube() * 10.0, rotation);
        for shape in [
            Shape::Sphere { radius: 0.3 },
            Shape::Capsule { half_height: 0.5, radius: 0.2 },
            Shape::Cuboid { half_extents: Vec3::new(0.3, 0.4, 0.5) },
        ] {
            let aabb = shape.world_aabb(&xf);
            // Every face of the box touches the shape: the support point along each world
            // axis lies on it (exactly for round shapes, by the corner for a box).
            for axis in [Vec3::X, Vec3::Y, Vec3::Z] {
                for dir in [axis, -axis] {
                    let far = xf.transform_point(shape.support(xf.rotation.inverse() * dir));
                    let face = if dir.max_element() > 0.0 { aabb.max.dot(dir) } else { aabb.min.dot(dir) };
                    assert!(close(far.dot(dir), face, 1e-4), "{shape:?}: {} vs {face}", far.dot(dir));
                }
            }
        }
    }
}
