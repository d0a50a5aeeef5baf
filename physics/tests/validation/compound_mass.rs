//! A compound body's mass, centre of mass and inertia against the exact sums worked by hand:
//! each part's closed form, moved to the common centre by the parallel axis theorem, in `f64`.

use atoll_physics::{BodyDesc, ChildDesc, Material, Quat, Sensor, Shape, Transform, Vec3};
use glam::{DMat3, DVec3};

/// A box's mass and inertia about its own centre, in `f64`: `m/3 (b² + c²)` and so on for half
/// extents `h`.
fn box_part(h: DVec3, density: f64, center: DVec3) -> (f64, DVec3, DMat3) {
    let m = 8.0 * h.x * h.y * h.z * density;
    let s = h * h;
    (m, center, DMat3::from_diagonal(DVec3::new(s.y + s.z, s.x + s.z, s.x + s.y) * (m / 3.0)))
}

/// The parts summed by hand: mass, centre, inertia about the centre.
fn by_hand(parts: &[(f64, DVec3, DMat3)]) -> (f64, DVec3, DMat3) {
    let mass: f64 = parts.iter().map(|p| p.0).sum();
    let center = parts.iter().map(|p| p.1 * p.0).sum::<DVec3>() / mass;
    let mut inertia = DMat3::ZERO;
    for (m, c, own) in parts {
        let d = *c - center;
        inertia += *own
            + (DMat3::from_diagonal(DVec3::splat(d.dot(d))) - DMat3::from_cols(d * d.x, d * d.y, d * d.z))
                * *m;
    }
    (mass, center, inertia)
}

fn assert_close(what: &str, engine: f32, exact: f64, relative: f64) {
    let error = (f64::from(engine) - exact).abs() / exact.abs().max(1e-9);
    println!("{what}: engine {engine}, exact {exact:.7}, relative error {error:.2e}");
    assert!(error <= relative, "{what}: {engine} against {exact}");
}

fn assert_matches(what: &str, desc: &BodyDesc, exact: (f64, DVec3, DMat3), relative: f64) {
    let mp = desc.mass_properties();
    assert_close(&format!("{what} mass"), mp.mass, exact.0, relative);
    let scale = exact.2.x_axis.x.abs().max(exact.2.y_axis.y.abs()).max(exact.2.z_axis.z.abs());
    for (k, (e, x)) in mp.local_center.to_array().iter().zip(exact.1.to_array()).enumerate() {
        assert!(
            (f64::from(*e) - x).abs() <= 1e-6 * (1.0 + x.abs()),
            "{what} centre [{k}]: {} against {}",
            mp.local_center,
            exact.1
        );
    }
    for (k, (e, x)) in mp.inertia.to_cols_array().iter().zip(exact.2.to_cols_array()).enumerate() {
        assert!(
            (f64::from(*e) - x).abs() <= relative * scale,
            "{what} inertia [{k}]: {:?} against {:?}",
            mp.inertia,
            exact.2
        );
    }
    // The inertia of a body is symmetric and positive definite.
    let i = mp.inertia;
    assert!(
        (i.x_axis.y - i.y_axis.x).abs() <= 1e-6 * scale as f32
            && (i.x_axis.z - i.z_axis.x).abs() <= 1e-6 * scale as f32
    );
    assert!(
        i.x_axis.x > 0.0 && i.x_axis.x * i.y_axis.y - i.x_axis.y * i.y_axis.x > 0.0 && i.determinant() > 0.0
    );
}

#[test]
fn a_table_weighs_and_turns_as_its_top_and_legs() {
    // A 1.6 × 0.06 × 0.9 m top of density 700 on four 0.06 × 0.74 × 0.06 m legs of density 900.
    let (top, leg) = (DVec3::new(0.8, 0.03, 0.45), DVec3::new(0.03, 0.37, 0.03));
    let corners = [(-0.74, -0.4), (0.74, -0.4), (-0.74, 0.4), (0.74, 0.4)];
    let mut desc = BodyDesc::dynamic(Shape::cuboid(top.as_vec3()).unwrap(), Vec3::new(3.0, 0.77, -2.0))
        .with_material(Material { density: 700.0, ..Material::default() });
    let mut parts = vec![box_part(top, 700.0, DVec3::ZERO)];
    for (x, z) in corners {
        let at = DVec3::new(x, -0.03 - 0.37, z);
        desc = desc.with_child(
            ChildDesc::new(Shape::cuboid(leg.as_vec3()).unwrap(), Transform::from_position(at.as_vec3()))
                .with_material(Material { density: 900.0, ..Material::default() }),
        );
        parts.push(box_part(leg, 900.0, at));
    }
    assert_matches("table", &desc, by_hand(&parts), 1e-5);
}

#[test]
fn two_halves_make_the_whole_box_and_a_turned_child_turns_its_inertia() {
    let whole = Shape::cuboid(Vec3::new(1.0, 0.25, 0.5)).unwrap().mass_properties(1000.0);
    let half = Shape::cuboid(Vec3::new(0.5, 0.25, 0.5)).unwrap();
    let desc = BodyDesc::dynamic(half.clone(), Vec3::ZERO)
        .with_child(ChildDesc::new(half, Transform::from_position(Vec3::new(1.0, 0.0, 0.0))));
    // The two halves' centre is their midpoint, 0.5 from the body origin (the first half's).
    let exact = (f64::from(whole.mass), DVec3::new(0.5, 0.0, 0.0), whole.inertia.as_dmat3());
    assert_matches("two halves", &desc, exact, 1e-6);

    // A long box turned a quarter about Y swaps its X and Z moments.
    let long = Shape::cuboid(Vec3::new(1.0, 0.1, 0.2)).unwrap();
    let turned = BodyDesc::dynamic(Shape::sphere(1e-3).unwrap(), Vec3::ZERO).with_child(ChildDesc::new(
        long.clone(),
        Transform::new(Vec3::ZERO, Quat::from_rotation_y(std::f32::consts::FRAC_PI_2)),
    ));
    let straight = long.mass_properties(1000.0).inertia;
    let mp = turned.mass_properties();
    let speck = Shape::sphere(1e-3).unwrap().mass_properties(1000.0).inertia.x_axis.x;
    assert!((mp.inertia.x_axis.x - straight.z_axis.z - speck).abs() <= 1e-4 * straight.z_axis.z);
    assert!((mp.inertia.z_axis.z - straight.x_axis.x - speck).abs() <= 1e-4 * straight.x_axis.x);
}

#[test]
fn densities_weigh_each_part_and_sensors_and_hull_children_are_exact() {
    // A heavy ball and a light one on a rod's ends: the centre sits nearer the heavy one.
    let ball = Shape::sphere(0.2).unwrap();
    let desc = BodyDesc::dynamic(ball.clone(), Vec3::ZERO)
        .with_material(Material { density: 3000.0, ..Material::default() })
        .with_child(
            ChildDesc::new(ball.clone(), Transform::from_position(Vec3::new(2.0, 0.0, 0.0)))
                .with_material(Material { density: 1000.0, ..Material::default() }),
        );
    assert!((desc.mass_properties().local_center.x - 0.5).abs() < 1e-6, "{:?}", desc.mass_properties());
    // A sensor child weighs nothing: the body is its own shape alone.
    let watched = BodyDesc::dynamic(ball.clone(), Vec3::ZERO).with_child(ChildDesc {
        sensor: Some(Sensor::default()),
        ..ChildDesc::new(Shape::cuboid(Vec3::ONE).unwrap(), Transform::from_position(Vec3::X * 3.0))
    });
    assert_eq!(watched.mass_properties(), ball.mass_properties(1000.0));
    // A hull cube as a child weighs as the box child does.
    let corners: Vec<Vec3> = (0..8)
        .map(|i| Vec3::new([-0.5, 0.5][i & 1], [-0.5, 0.5][(i >> 1) & 1], [-0.5, 0.5][i >> 2]))
        .collect();
    let at = Transform::new(Vec3::new(0.0, 1.0, 0.0), Quat::from_rotation_z(0.4));
    let with_box = BodyDesc::dynamic(ball.clone(), Vec3::ZERO)
        .with_child(ChildDesc::new(Shape::cuboid(Vec3::splat(0.5)).unwrap(), at));
    let with_hull =
        BodyDesc::dynamic(ball, Vec3::ZERO).with_child(ChildDesc::new(Shape::hull(&corners).unwrap(), at));
    let (a, b) = (with_box.mass_properties(), with_hull.mass_properties());
    assert!((a.mass - b.mass).abs() <= 1e-4 * a.mass && (a.local_center - b.local_center).length() < 1e-5);
    for (x, y) in a.inertia.to_cols_array().iter().zip(b.inertia.to_cols_array()) {
        assert!((x - y).abs() <= 1e-4 * a.inertia.x_axis.x, "{:?} against {:?}", a.inertia, b.inertia);
    }
}
