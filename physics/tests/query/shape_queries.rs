//! Shape casts, shape overlaps and closest points against bodies and terrain, checked against
//! brute force: every body tried, and distances from the shapes' support functions alone (the
//! largest gap along any direction), independent of the narrowphase the queries use.

use super::{flat_ground_world, world_on_flat_terrain};
use atoll_physics::terrain::{Voxel, VoxelMaterial};
use atoll_physics::{
    AtollError, BodyDesc, BodyId, CAST_TOLERANCE, CollisionFilter, PlacedShape, Quat, QueryFilter, Sensor,
    Shape, ShapeCast, StepSettings, Terrain, TerrainSettings, Transform, Vec3, World,
};
use proptest::prelude::*;
use proptest::test_runner::RngSeed;

/// The point of `shape` at `xf` farthest along world direction `n`.
fn support(shape: &Shape, xf: &Transform, n: Vec3) -> Vec3 {
    xf.transform_point(shape.support(xf.inverse_transform_vector(n)))
}

/// Directions spread evenly over the sphere (a Fibonacci lattice).
fn directions(count: usize) -> Vec<Vec3> {
    let golden = std::f32::consts::PI * (3.0 - 5f32.sqrt());
    (0..count)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / count as f32;
            let r = (1.0 - y * y).sqrt();
            let a = golden * i as f32;
            Vec3::new(r * a.cos(), y, r * a.sin())
        })
        .collect()
}

/// The largest of `gap(n)` over the directions, refined by a local search around the best: for
/// two convex sets, the largest gap along a direction is their distance when they are apart
/// and below zero when they overlap. The separating axis theorem's axes (`extra`, either way
/// round) are tried too, so two polyhedra's sign is exact.
fn largest_gap(extra: &[Vec3], gap: impl Fn(Vec3) -> f32) -> f32 {
    let mut best = (f32::MIN, Vec3::Y);
    // A separating axis may separate either way round: both signs of each are tried.
    let negated: Vec<Vec3> = extra.iter().map(|n| -*n).collect();
    for &n in directions(2000).iter().chain(extra).chain(&negated) {
        if n.length_squared() > 1e-8 {
            let n = n.normalize();
            let g = gap(n);
            if g > best.0 {
                best = (g, n);
            }
        }
    }
    // A compass search on the sphere, in 24 directions turning a little each round: the gap is
    // not smooth (ridges where a support point jumps), and four directions stall on a ridge.
    let mut step = 0.1;
    for round in 0..120 {
        let (u, v) = best.1.any_orthonormal_pair();
        let mut improved = false;
        for k in 0..24 {
            let angle = (k as f32 + 0.37 * round as f32) * std::f32::consts::TAU / 24.0;
            let n = (best.1 + (u * angle.cos() + v * angle.sin()) * step).normalize();
            let g = gap(n);
            if g > best.0 {
                best = (g, n);
                improved = true;
            }
        }
        if !improved {
            step *= 0.7;
        }
    }
    best.0
}

/// A polyhedron's face normals in the world, none for round shapes.
fn axes(shape: &Shape, xf: &Transform) -> Vec<Vec3> {
    match shape {
        Shape::Cuboid { .. } => vec![xf.rotation * Vec3::X, xf.rotation * Vec3::Y, xf.rotation * Vec3::Z],
        Shape::Hull(h) => h.faces().iter().map(|f| xf.rotation * f.normal).collect(),
        _ => Vec::new(),
    }
}

/// A polyhedron's edge directions in the world, none for round shapes.
fn edges(shape: &Shape, xf: &Transform) -> Vec<Vec3> {
    match shape {
        Shape::Cuboid { .. } => axes(shape, xf),
        Shape::Hull(h) => h
            .edges()
            .iter()
            .map(|e| {
                xf.rotation * (h.vertices()[e.vertices[1] as usize] - h.vertices()[e.vertices[0] as usize])
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The distance between two shapes, below zero when they overlap, by brute force. Two
/// polyhedra get every face normal and every cross product of their edges too: their
/// separating axis theorem's axes, so the sign is exact.
fn brute_distance(a: &Shape, xa: &Transform, b: &Shape, xb: &Transform) -> f32 {
    let mut extra: Vec<Vec3> = axes(a, xa).into_iter().chain(axes(b, xb)).collect();
    for u in edges(a, xa) {
        for v in edges(b, xb) {
            extra.push(u.cross(v));
        }
    }
    largest_gap(&extra, |n| n.dot(support(b, xb, -n)) - n.dot(support(a, xa, n)))
}

/// The distance from a point to a shape, below zero inside, by brute force.
fn brute_point_distance(p: Vec3, b: &Shape, xb: &Transform) -> f32 {
    largest_gap(&axes(b, xb), |n| n.dot(p) - n.dot(support(b, xb, n)))
}

fn shape_strategy() -> impl Strategy<Value = Shape> {
    prop_oneof![
        (0.2f32..1.0).prop_map(|r| Shape::sphere(r).unwrap()),
        (0.2f32..1.0, 0.2f32..1.0, 0.2f32..1.0)
            .prop_map(|(x, y, z)| Shape::cuboid(Vec3::new(x, y, z)).unwrap()),
        (0.1f32..1.0, 0.2f32..0.6).prop_map(|(h, r)| Shape::capsule(h, r).unwrap()),
        prop::collection::vec((-0.8f32..0.8, -0.8f32..0.8, -0.8f32..0.8), 8..14).prop_filter_map(
            "a hull with volume",
            |points| {
                let points: Vec<Vec3> = points.into_iter().map(|(x, y, z)| Vec3::new(x, y, z)).collect();
                Shape::hull(&points).ok().filter(|h| h.min_half_extent() > 0.15)
            }
        ),
    ]
}

fn pose_strategy(spread: f32) -> impl Strategy<Value = Transform> {
    (-spread..spread, -spread..spread, -spread..spread, -1f32..1.0, -1f32..1.0, -1f32..1.0, -1f32..1.0)
        .prop_filter_map("a rotation", |(x, y, z, a, b, c, d)| {
            let q = Quat::from_xyzw(a, b, c, d);
            (q.length() > 0.1).then(|| Transform::new(Vec3::new(x, y, z), q.normalize()))
        })
}

/// A world of static bodies of every shape kind, scattered and turned.
fn scene_strategy() -> impl Strategy<Value = Vec<(Shape, Transform)>> {
    prop::collection::vec((shape_strategy(), pose_strategy(5.0)), 4..14)
}

fn build(bodies: &[(Shape, Transform)]) -> (World, Vec<BodyId>) {
    let mut world = World::new(StepSettings::default()).unwrap();
    let ids = bodies
        .iter()
        .map(|(shape, xf)| {
            world
                .create_body(&BodyDesc::fixed(shape.clone(), xf.position).with_rotation(xf.rotation))
                .unwrap()
        })
        .collect();
    (world, ids)
}

/// How far brute force's distances may be from the queries' (the local search's own error,
/// rounding): pairs within this of touching are not judged.
const BAND: f32 = 3e-3;

proptest! {
    // A fixed seed: the test command checks the same 40 cases every run (2000 random cases of
    // each passed before this was written).
    #![proptest_config(ProptestConfig { cases: 40, rng_seed: RngSeed::Fixed(66), ..ProptestConfig::default() })]

    #[test]
    fn overlap_shape_agrees_with_brute_force(
        bodies in scene_strategy(),
        shape in shape_strategy(),
        pose in pose_strategy(5.0),
    ) {
        let (world, ids) = build(&bodies);
        let mut found = Vec::new();
        world.overlap_shape(&PlacedShape::new(shape.clone(), pose).unwrap(), &QueryFilter::ALL, &mut found);
        prop_assert!(found.windows(2).all(|w| w[0].index() < w[1].index()), "slot order: {found:?}");
        for (id, (body_shape, xf)) in ids.iter().zip(&bodies) {
            let d = brute_distance(&shape, &pose, body_shape, xf);
            if d < -BAND {
                prop_assert!(found.contains(id), "{id:?} overlaps by {d} but was not found");
            } else if d > BAND {
                prop_assert!(!found.contains(id), "{id:?} is {d} away but was found");
            }
        }
    }

    #[test]
    fn cast_shape_agrees_with_brute_force(
        bodies in scene_strategy(),
        shape in shape_strategy(),
        pose in pose_strategy(6.0),
        target in (-4f32..4.0, -4f32..4.0, -4f32..4.0),
    ) {
        let (world, ids) = build(&bodies);
        let translation = Vec3::new(target.0, target.1, target.2) - pose.position;
        prop_assume!(translation.length() > 0.5);
        let cast = ShapeCast::new(PlacedShape::new(shape.clone(), pose).unwrap(), translation).unwrap();
        let hit = world.cast_shape(&cast, &QueryFilter::ALL);
        let end = hit.map_or(1.0, |h| h.fraction);
        // Nothing is overlapped on the way to the hit (or all the way, when there is none).
        let samples = 96;
        for k in 0..=samples {
            let s = end * k as f32 / samples as f32 - if k == samples && hit.is_some() { CAST_TOLERANCE / translation.length() } else { 0.0 };
            let at = cast.pose_at(s.max(0.0));
            for (id, (body_shape, xf)) in ids.iter().zip(&bodies) {
                let d = brute_distance(&shape, &at, body_shape, xf);
                prop_assert!(d > -BAND || (s <= 0.0 && hit.is_some_and(|h| h.fraction == 0.0)),
                    "at {s} the shape overlaps {id:?} by {d} before the hit {hit:?}");
            }
        }
        if let Some(hit) = hit {
            let k = ids.iter().position(|&id| id == hit.body).expect("a body of the scene");
            let (body_shape, xf) = &bodies[k];
            let at = cast.pose_at(hit.fraction);
            let d = brute_distance(&shape, &at, body_shape, xf);
            prop_assert!(d <= CAST_TOLERANCE + BAND, "at the hit the gap is {d}: {hit:?}");
            prop_assert!((0.0..=1.0).contains(&hit.fraction));
            // The point lies on the body's surface and the normal points out of it.
            let surface = brute_point_distance(hit.point, body_shape, xf);
            prop_assert!(surface.abs() <= BAND + CAST_TOLERANCE, "the point is {surface} off the surface: {hit:?}");
            prop_assert!((hit.normal.length() - 1.0).abs() < 1e-4);
            let outside = hit.point + hit.normal * 0.01;
            prop_assert!(brute_point_distance(outside, body_shape, xf) > 0.0, "the normal points inward: {hit:?}");
        }
    }

    #[test]
    fn closest_point_agrees_with_brute_force(
        bodies in scene_strategy(),
        point in (-6f32..6.0, -6f32..6.0, -6f32..6.0),
        max_distance in 0.0f32..4.0,
    ) {
        let (world, ids) = build(&bodies);
        let p = Vec3::new(point.0, point.1, point.2);
        let answer = world.closest_point(p, max_distance, &QueryFilter::ALL).unwrap();
        let brute: Vec<f32> = bodies.iter().map(|(s, xf)| brute_point_distance(p, s, xf).max(0.0)).collect();
        let nearest = brute.iter().copied().fold(f32::MAX, f32::min);
        match answer {
            None => prop_assert!(nearest > max_distance - BAND, "nothing found, but a body is {nearest} away"),
            Some(c) => {
                let k = ids.iter().position(|&id| id == c.body).expect("a body of the scene");
                prop_assert!((c.distance - brute[k]).abs() <= BAND, "{c:?} against {}", brute[k]);
                prop_assert!(c.distance <= nearest + BAND && c.distance <= max_distance, "{c:?}: another is {nearest} away");
                prop_assert!((c.point.distance(p) - c.distance).abs() <= 1e-4);
                if c.distance > 0.0 {
                    let (s, xf) = &bodies[k];
                    prop_assert!(brute_point_distance(c.point, s, xf).abs() <= BAND, "{c:?} is off the surface");
                } else {
                    prop_assert_eq!(c.point, p);
                }
            }
        }
    }
}

#[test]
fn a_ball_cast_down_rests_on_what_is_below() {
    let mut world = World::new(StepSettings::default()).unwrap();
    let floor = world
        .create_body(&BodyDesc::fixed(Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap(), Vec3::ZERO))
        .unwrap();
    let crate_ = world
        .create_body(&BodyDesc::fixed(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::new(3.0, 1.0, 0.0)))
        .unwrap();
    let ball =
        PlacedShape::new(Shape::sphere(0.25).unwrap(), Transform::from_position(Vec3::new(0.0, 5.0, 0.0)))
            .unwrap();
    let down = ShapeCast::new(ball.clone(), Vec3::new(0.0, -10.0, 0.0)).unwrap();
    let hit = world.cast_shape(&down, &QueryFilter::ALL).unwrap();
    // The floor's top is at 0.5: the ball's centre stops 0.25 above it, 4.25 of 10 down.
    assert_eq!(hit.body, floor);
    assert!((hit.fraction - 0.425).abs() <= CAST_TOLERANCE / 10.0 + 1e-6, "{hit:?}");
    assert!(
        (hit.point - Vec3::new(0.0, 0.5, 0.0)).length() < 1e-3 && (hit.normal - Vec3::Y).length() < 1e-4,
        "{hit:?}"
    );
    // Sideways into the crate: its face at x = 2.5, the ball's centre stops at 2.25.
    let low =
        PlacedShape::new(Shape::sphere(0.25).unwrap(), Transform::from_position(Vec3::new(0.0, 1.0, 0.0)))
            .unwrap();
    let hit = world
        .cast_shape(&ShapeCast::new(low.clone(), Vec3::new(5.0, 0.0, 0.0)).unwrap(), &QueryFilter::ALL)
        .unwrap();
    assert_eq!(hit.body, crate_);
    assert!((hit.fraction * 5.0 - 2.25).abs() < 2.0 * CAST_TOLERANCE, "{hit:?}");
    assert!((hit.normal - Vec3::NEG_X).length() < 1e-4);
    // A cast that starts overlapping the floor hits it at once; one too short reaches nothing.
    let sunk =
        PlacedShape::new(Shape::sphere(0.25).unwrap(), Transform::from_position(Vec3::new(0.0, 0.6, 0.0)))
            .unwrap();
    let hit = world.cast_shape(&ShapeCast::new(sunk, Vec3::X).unwrap(), &QueryFilter::ALL).unwrap();
    assert_eq!((hit.body, hit.fraction), (floor, 0.0));
    assert_eq!(
        world.cast_shape(&ShapeCast::new(ball, Vec3::new(0.0, -1.0, 0.0)).unwrap(), &QueryFilter::ALL),
        None
    );
    // Passing through the crate, the cast goes on to nothing.
    let through = QueryFilter::ALL.excluding(crate_);
    assert_eq!(world.cast_shape(&ShapeCast::new(low, Vec3::new(5.0, 0.0, 0.0)).unwrap(), &through), None);
}

#[test]
fn shape_queries_meet_the_terrain() {
    // Flat ground at y = 1 (see `world_on_flat_terrain`).
    let world = world_on_flat_terrain();
    let ball = |y: f32| {
        PlacedShape::new(Shape::sphere(0.5).unwrap(), Transform::from_position(Vec3::new(0.3, y, 0.2)))
            .unwrap()
    };
    let hit = world
        .cast_shape(&ShapeCast::new(ball(6.0), Vec3::new(0.0, -10.0, 0.0)).unwrap(), &QueryFilter::ALL)
        .unwrap();
    assert!(hit.body.is_terrain() && hit.chunk.is_some(), "{hit:?}");
    // The centre stops half a metre above the ground: 4.5 of the 10 metres down.
    assert!((hit.fraction * 10.0 - 4.5).abs() < 0.02, "{hit:?}");
    assert!((hit.point.y - 1.0).abs() < 0.02 && hit.normal.y > 0.99, "{hit:?}");
    assert_eq!(
        world.cast_shape(
            &ShapeCast::new(ball(6.0), Vec3::new(0.0, -10.0, 0.0)).unwrap(),
            &QueryFilter::BODIES
        ),
        None
    );
    // Overlaps: above the ground nothing, dipping into it the terrain, buried deep too.
    let mut found = Vec::new();
    for (y, overlaps) in [(1.6, false), (1.3, true), (-3.0, true)] {
        world.overlap_shape(&ball(y), &QueryFilter::ALL, &mut found);
        assert_eq!(found == [BodyId::TERRAIN], overlaps, "at {y}: {found:?}");
    }
    // The nearest point: straight below when above, the point itself when underground.
    let above = world.closest_point(Vec3::new(0.3, 3.0, 0.2), 5.0, &QueryFilter::ALL).unwrap().unwrap();
    assert!(above.body.is_terrain() && (above.distance - 2.0).abs() < 0.02, "{above:?}");
    assert!((above.point - Vec3::new(0.3, 1.0, 0.2)).length() < 0.02, "{above:?}");
    for depth in [0.9, 0.2, -4.0] {
        let p = Vec3::new(0.3, depth, 0.2);
        let below = world.closest_point(p, 0.5, &QueryFilter::ALL).unwrap().unwrap();
        assert_eq!((below.distance, below.point), (0.0, p), "{below:?}");
    }
    assert_eq!(world.closest_point(Vec3::new(0.3, 3.0, 0.2), 1.5, &QueryFilter::ALL).unwrap(), None);
}

#[test]
fn queries_follow_the_collision_filter_and_skip_sensors_when_asked() {
    let mut world = World::new(StepSettings::default()).unwrap();
    let cube = Shape::cuboid(Vec3::splat(0.5)).unwrap();
    let red = CollisionFilter { category: 0b10, mask: u64::MAX, group: 0 };
    let wall =
        world.create_body(&BodyDesc::fixed(cube.clone(), Vec3::new(2.0, 0.0, 0.0)).with_filter(red)).unwrap();
    let gate = world
        .create_body(&BodyDesc::fixed(cube.clone(), Vec3::new(4.0, 0.0, 0.0)).with_sensor(Sensor::default()))
        .unwrap();
    let back = world.create_body(&BodyDesc::fixed(cube, Vec3::new(6.0, 0.0, 0.0))).unwrap();
    let ball = PlacedShape::new(Shape::sphere(0.25).unwrap(), Transform::IDENTITY).unwrap();
    let cast = ShapeCast::new(ball, Vec3::new(10.0, 0.0, 0.0)).unwrap();
    let first = |filter: QueryFilter| world.cast_shape(&cast, &filter).map(|h| h.body);
    assert_eq!(first(QueryFilter::ALL), Some(wall));
    // A query that does not collide with category 2 passes the wall; one that skips sensors
    // passes the gate too.
    let blue = QueryFilter::ALL.colliding_as(CollisionFilter { category: 1, mask: 0b01, group: 0 });
    assert_eq!(first(blue), Some(gate));
    assert_eq!(first(QueryFilter { sensors: false, ..blue }), Some(back));
    // The same filter holds for rays, overlaps and closest points.
    let ray = atoll_physics::Ray::new(Vec3::ZERO, Vec3::X, 10.0).unwrap();
    assert_eq!(world.cast_ray(&ray, &blue).map(|h| h.body), Some(gate));
    let mut found = Vec::new();
    let long = PlacedShape::new(
        Shape::cuboid(Vec3::new(5.0, 0.2, 0.2)).unwrap(),
        Transform::from_position(Vec3::new(4.0, 0.0, 0.0)),
    )
    .unwrap();
    world.overlap_shape(&long, &QueryFilter { sensors: false, ..blue }, &mut found);
    assert_eq!(found, [back]);
    let near = world.closest_point(Vec3::new(2.0, 2.0, 0.0), 5.0, &blue).unwrap().unwrap();
    assert_eq!(near.body, gate);
    // A group shared with the wall, negative, keeps the query off it whatever the bits.
    let apart = CollisionFilter { group: -3, ..CollisionFilter::DEFAULT };
    world.set_filter(wall, CollisionFilter { group: -3, ..red }).unwrap();
    let hit = world.cast_shape(&cast, &QueryFilter::ALL.colliding_as(apart));
    assert_eq!(hit.map(|h| h.body), Some(gate));
}

#[test]
fn bad_shape_query_arguments_are_refused() {
    let ball = Shape::sphere(0.5).unwrap();
    let field = |e: AtollError| e.to_string();
    let nan = Transform::from_position(Vec3::new(f32::NAN, 0.0, 0.0));
    assert!(field(PlacedShape::new(ball.clone(), nan).unwrap_err()).contains("shape position"));
    let stretched = Transform::new(Vec3::ZERO, Quat::from_xyzw(0.0, 0.0, 0.0, 2.0));
    assert!(field(PlacedShape::new(ball.clone(), stretched).unwrap_err()).contains("rotation"));
    assert!(PlacedShape::new(Shape::Sphere { radius: -1.0 }, Transform::IDENTITY).is_err());
    assert!(
        PlacedShape::new(
            Shape::Cuboid { half_extents: Vec3::new(1.0, f32::INFINITY, 1.0) },
            Transform::IDENTITY
        )
        .is_err()
    );
    let placed = PlacedShape::new(ball, Transform::IDENTITY).unwrap();
    assert!(field(ShapeCast::new(placed.clone(), Vec3::ZERO).unwrap_err()).contains("cast translation"));
    assert!(ShapeCast::new(placed.clone(), Vec3::new(0.0, f32::NAN, 0.0)).is_err());
    assert!(ShapeCast::new(placed, Vec3::splat(3e38)).is_err(), "a length past f32");
    let world = World::new(StepSettings::default()).unwrap();
    assert!(
        field(world.closest_point(Vec3::splat(f32::NAN), 1.0, &QueryFilter::ALL).unwrap_err())
            .contains("query point")
    );
    assert!(world.closest_point(Vec3::ZERO, -1.0, &QueryFilter::ALL).is_err());
    assert!(world.closest_point(Vec3::ZERO, f32::INFINITY, &QueryFilter::ALL).is_err());
}

#[test]
fn a_cast_skimming_the_terrain_goes_on_to_what_stands_beyond() {
    // Flat ground at y = 1: a ball of radius 0.5 two centimetres above it, cast 6 m along X.
    let mut world = world_on_flat_terrain();
    let ball =
        PlacedShape::new(Shape::sphere(0.5).unwrap(), Transform::from_position(Vec3::new(-3.0, 1.52, 0.2)))
            .unwrap();
    let along = ShapeCast::new(ball, Vec3::new(6.0, 0.0, 0.0)).unwrap();
    assert_eq!(world.cast_shape(&along, &QueryFilter::ALL), None, "skimming is not touching");
    let post = world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(0.2, 1.0, 0.2)).unwrap(),
            Vec3::new(2.0, 1.5, 0.2),
        ))
        .unwrap();
    let hit = world.cast_shape(&along, &QueryFilter::ALL).unwrap();
    assert_eq!(hit.body, post, "{hit:?}");
    // The post's face at x = 1.8: the centre stops at 1.3, 4.3 of the 6 metres.
    assert!((hit.fraction * 6.0 - 4.3).abs() < 2.0 * CAST_TOLERANCE, "{hit:?}");
}

#[test]
fn a_cast_kilometres_long_still_stops_at_the_face() {
    // Far along a 5 km cast one step of the fraction is 0.3 mm of path, more than the
    // tolerance, and positions there round to 0.2 mm: from any of these starts the cast must
    // still stop at the box. (None of them reaches `advance`'s guard for a step below the
    // fraction's rounding; Newton's steps land within the tolerance first.)
    let mut world = World::new(StepSettings::default()).unwrap();
    let post =
        world.create_body(&BodyDesc::fixed(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::ZERO)).unwrap();
    for k in 0..64 {
        let start = -2500.0 - k as f32 * 0.013;
        let ball = PlacedShape::new(
            Shape::sphere(0.25).unwrap(),
            Transform::from_position(Vec3::new(start, 0.0, 0.0)),
        )
        .unwrap();
        let hit =
            world.cast_shape(&ShapeCast::new(ball, Vec3::new(5000.0, 0.0, 0.0)).unwrap(), &QueryFilter::ALL);
        let hit = hit.unwrap_or_else(|| panic!("from {start}: missed"));
        assert_eq!(hit.body, post);
        // The centre stops at x = -0.75, within the positions' rounding there.
        let stop = start + hit.fraction * 5000.0;
        assert!((stop + 0.75).abs() < 2e-3, "from {start}: stopped at {stop}");
    }
}

#[test]
fn a_cast_through_a_kilometre_and_a_half_of_open_air_meets_the_terrain() {
    // Flat ground at y = 1, a ball 1.5 km above it: a voxel a step (the terrain's half-metre
    // cap) took 3000 steps and ran out; open air now jumps to the nearest solid chunk.
    let world = world_on_flat_terrain();
    let hit = ball_cast_down(&world, 1500.0, 1600.0);
    // The centre stops half a metre above the ground: 1498.5 of the 1600 metres down, within
    // the tolerance and the positions' rounding a kilometre up (0.1 mm).
    let stop = 1500.0 - hit.fraction * 1600.0;
    assert!((stop - 1.5).abs() < 0.02, "stopped at {stop}: {hit:?}");
    // Sideways above the ground's bounds, the same cast misses (nothing solid ahead).
    let beside = PlacedShape::new(
        Shape::sphere(0.5).unwrap(),
        Transform::from_position(Vec3::new(300.0, 1500.0, 0.2)),
    )
    .unwrap();
    let miss =
        world.cast_shape(&ShapeCast::new(beside, Vec3::new(0.0, -1600.0, 0.0)).unwrap(), &QueryFilter::ALL);
    assert_eq!(miss, None);
}

/// A hill for [`hilly_world`]: a cone about `(x, z)` or a ridge along Z through `x` (convex
/// peaks and edges, where a box's face clipped to each slope's triangles is not what it meets
/// first), `height` above the ground at y = 1, falling by `slope` a metre.
#[derive(Clone, Debug)]
struct Hill {
    x: f32,
    z: f32,
    height: f32,
    slope: f32,
    ridge: bool,
}

fn hill_strategy() -> impl Strategy<Value = Hill> {
    (-3f32..3.0, -3f32..3.0, 0.5f32..2.5, 0.6f32..2.5, any::<bool>())
        .prop_map(|(x, z, height, slope, ridge)| Hill { x, z, height, slope, ridge })
}

/// Ground at y = 1 with `hills` on it, and every terrain triangle in world space.
fn hilly_world(hills: &[Hill]) -> (World, Vec<[Vec3; 3]>) {
    let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [-2, -1, -2], max_chunk: [1, 1, 1] };
    let terrain = Terrain::from_fn(settings, |v| {
        let p = (v.as_vec3() + Vec3::splat(0.5)) * 0.5;
        let top = hills.iter().fold(1.0f32, |top, h| {
            let away = if h.ridge { (p.x - h.x).abs() } else { (p.x - h.x).hypot(p.z - h.z) };
            top.max(1.0 + h.height - h.slope * away)
        });
        let fill = ((0.5 + (top - p.y) / 0.5).clamp(0.0, 1.0) * 255.0).round() as u8;
        if fill == 0 { Voxel::AIR } else { Voxel { material: VoxelMaterial::Rock, occupancy: fill } }
    })
    .unwrap();
    let mut world = World::new(StepSettings::default()).unwrap();
    world.set_terrain(terrain);
    let t = world.terrain();
    let mut triangles = Vec::new();
    for (c, _) in t.masks() {
        let Some(data) = t.chunk_collision(c) else { continue };
        let origin = t.chunk_origin(c);
        for k in 0..data.mesh.triangle_count() {
            let ids = data.mesh.triangle_indices(k);
            triangles.push(ids.map(|i| origin + data.mesh.position(i as usize) * t.voxel_size()));
        }
    }
    (world, triangles)
}

/// The distance from `shape` at `xf` to triangle `tri`, below zero when they cross, by brute
/// force (the triangle's normal, and its sides crossed with a polyhedron's edges, are tried
/// too: the separating axes, so a polyhedron's sign is exact).
fn brute_triangle_distance(shape: &Shape, xf: &Transform, tri: &[Vec3; 3]) -> f32 {
    let sides = [tri[1] - tri[0], tri[2] - tri[1], tri[0] - tri[2]];
    let mut extra = axes(shape, xf);
    extra.push(sides[0].cross(sides[1]));
    for u in edges(shape, xf) {
        extra.extend(sides.iter().map(|s| u.cross(*s)));
    }
    largest_gap(&extra, |n| {
        let highest = tri.iter().map(|v| n.dot(*v)).fold(f32::MIN, f32::max);
        n.dot(support(shape, xf, -n)) - highest
    })
}

/// The triangles whose boxes come within `margin` of `shape` at `xf`.
fn triangles_near<'a>(
    triangles: &'a [[Vec3; 3]],
    shape: &Shape,
    xf: &Transform,
    margin: f32,
) -> impl Iterator<Item = &'a [Vec3; 3]> {
    let b = shape.world_aabb(xf).grown(margin);
    triangles.iter().filter(move |t| {
        let (lo, hi) = (t[0].min(t[1]).min(t[2]), t[0].max(t[1]).max(t[2]));
        lo.cmple(b.max).all() && hi.cmpge(b.min).all()
    })
}

proptest! {
    // A fixed seed: the test command checks the same cases every run (3000 random cases passed
    // before this was written).
    #![proptest_config(ProptestConfig { cases: 32, rng_seed: RngSeed::Fixed(67), ..ProptestConfig::default() })]

    /// Casts over hills, ridges and their convex edges never pass into the terrain, and stop
    /// touching it.
    #[test]
    fn terrain_casts_agree_with_brute_force(
        hills in prop::collection::vec(hill_strategy(), 1..4),
        shape in shape_strategy(),
        pose in pose_strategy(3.0),
        target in (-4f32..4.0, 0f32..2.5, -4f32..4.0),
    ) {
        let (world, triangles) = hilly_world(&hills);
        let start = Transform::new(Vec3::new(pose.position.x, 6.0 + pose.position.y.abs(), pose.position.z), pose.rotation);
        let translation = Vec3::new(target.0, target.1, target.2) - start.position;
        let cast = ShapeCast::new(PlacedShape::new(shape.clone(), start).unwrap(), translation).unwrap();
        let hit = world.cast_shape(&cast, &QueryFilter::ALL);
        let end = hit.map_or(1.0, |h| h.fraction);
        let samples = 64;
        for k in 0..=samples {
            let s = end * k as f32 / samples as f32
                - if k == samples && hit.is_some() { CAST_TOLERANCE / translation.length() } else { 0.0 };
            let at = cast.pose_at(s.max(0.0));
            for tri in triangles_near(&triangles, &shape, &at, BAND) {
                let d = brute_triangle_distance(&shape, &at, tri);
                prop_assert!(d > -BAND, "at {s} the shape crosses {tri:?} by {d} before the hit {hit:?}");
            }
        }
        if let Some(hit) = hit {
            prop_assert!(hit.body.is_terrain() && hit.chunk.is_some(), "{hit:?}");
            let at = cast.pose_at(hit.fraction);
            let nearest = triangles_near(&triangles, &shape, &at, 0.1)
                .map(|tri| brute_triangle_distance(&shape, &at, tri))
                .fold(f32::MAX, f32::min);
            prop_assert!(nearest <= CAST_TOLERANCE + BAND, "at the hit the gap is {nearest}: {hit:?}");
            // The point lies on the surface, and the shape is the gap away along the normal.
            let on_surface = triangles_near(&triangles, &shape, &at, 0.1)
                .map(|tri| brute_point_triangle(hit.point, tri))
                .fold(f32::MAX, f32::min);
            prop_assert!(on_surface < 1e-3, "the point is {on_surface} off the surface: {hit:?}");
            prop_assert!((hit.normal.length() - 1.0).abs() < 1e-4);
            prop_assert!(hit.normal.dot(translation) < 0.0, "the normal faces the way the cast came: {hit:?}");
        }
    }
}

/// The distance from `p` to triangle `tri`, by brute force over its plane and sides.
fn brute_point_triangle(p: Vec3, tri: &[Vec3; 3]) -> f32 {
    let n = (tri[1] - tri[0]).cross(tri[2] - tri[0]).normalize();
    let on_plane = p - n * n.dot(p - tri[0]);
    let inside = (0..3).all(|k| (tri[(k + 1) % 3] - tri[k]).cross(on_plane - tri[k]).dot(n) >= 0.0);
    if inside {
        return n.dot(p - tri[0]).abs();
    }
    (0..3)
        .map(|k| {
            let (a, b) = (tri[k], tri[(k + 1) % 3]);
            let t = ((p - a).dot(b - a) / (b - a).length_squared()).clamp(0.0, 1.0);
            p.distance(a + (b - a) * t)
        })
        .fold(f32::MAX, f32::min)
}

#[test]
fn a_box_cast_skimming_forty_metres_of_ground_meets_the_post_beyond() {
    // Long flat ground at y = 1; a turned box a centimetre above it, cast 40 m along X: a cast
    // moving by the gap alone would crawl a centimetre a step (4000 steps). Newton's steps on
    // each triangle's exact distance see the gap is not closing.
    let mut world = flat_ground_world([-4, -1, -1], [3, 1, 0]);
    let turned = Quat::from_rotation_y(0.4);
    let block = PlacedShape::new(
        Shape::cuboid(Vec3::new(0.5, 0.25, 0.3)).unwrap(),
        Transform::new(Vec3::new(-20.0, 1.26, 0.0), turned),
    )
    .unwrap();
    let along = ShapeCast::new(block, Vec3::new(40.0, 0.0, 0.0)).unwrap();
    assert_eq!(world.cast_shape(&along, &QueryFilter::ALL), None, "skimming is not touching");
    let post = world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(0.2, 2.0, 0.2)).unwrap(),
            Vec3::new(18.0, 2.0, 0.0),
        ))
        .unwrap();
    let hit = world.cast_shape(&along, &QueryFilter::ALL).unwrap();
    assert_eq!(hit.body, post, "{hit:?}");
    // The box's corner nearest +X reaches 0.5 cos 0.4 + 0.3 sin 0.4 ahead of its centre.
    let reach = 0.5 * 0.4f32.cos() + 0.3 * 0.4f32.sin();
    assert!((hit.fraction * 40.0 - (37.8 - reach)).abs() < 2e-3, "{hit:?}");
}

#[test]
fn a_hull_whose_box_centre_lies_outside_it_is_judged_by_the_hull() {
    // A cube's corner cut off: its slanted face turned to face down, 0.2 m above the ground
    // at y = 1. Its box centre lies 0.38 m below the ground, its centroid 0.49 m above.
    let world = world_on_flat_terrain();
    let corner = [Vec3::ZERO, Vec3::new(2.0, 0.0, 0.0), Vec3::new(0.0, 2.0, 0.0), Vec3::new(0.0, 0.0, 2.0)];
    let hull = Shape::hull(&corner).unwrap();
    let slant = Vec3::ONE.normalize();
    let turn = Quat::from_rotation_arc(slant, Vec3::NEG_Y);
    let face_drop = 2.0 / 3f32.sqrt();
    let at = |y: f32| {
        PlacedShape::new(hull.clone(), Transform::new(Vec3::new(0.3, y + face_drop, 0.2), turn)).unwrap()
    };
    let mut found = Vec::new();
    world.overlap_shape(&at(1.2), &QueryFilter::ALL, &mut found);
    assert!(found.is_empty(), "0.2 m above the ground: {found:?}");
    let up = ShapeCast::new(at(1.2), Vec3::new(0.0, 5.0, 0.0)).unwrap();
    assert_eq!(world.cast_shape(&up, &QueryFilter::ALL), None);
    let down = ShapeCast::new(at(1.2), Vec3::new(0.0, -1.0, 0.0)).unwrap();
    let hit = world.cast_shape(&down, &QueryFilter::ALL).expect("the ground below");
    assert!((hit.fraction - 0.2).abs() < 2e-3 && hit.normal.y > 0.99, "{hit:?}");
    // Sunk so its face is 0.1 m under: it overlaps, and a cast from there hits at once.
    world.overlap_shape(&at(0.9), &QueryFilter::ALL, &mut found);
    assert_eq!(found, vec![BodyId::TERRAIN]);
    let hit = world.cast_shape(&ShapeCast::new(at(0.9), Vec3::Y).unwrap(), &QueryFilter::ALL).unwrap();
    assert_eq!(hit.fraction, 0.0);
    assert!(hit.normal.y > 0.99, "the terrain's own outward normal: {hit:?}");
}

#[test]
fn a_cast_longer_than_the_fraction_can_resolve_still_ends() {
    // 140 000 km down onto the ground: near it one of the terrain search's pieces (4 m) is
    // below half a step of the fraction's rounding there, so the rest of the path is searched
    // at once; positions round to metres this far out, so only the answer is checked.
    let hit = ball_cast_down(&world_on_flat_terrain(), 7.0e7, 1.4e8);
    assert!((hit.fraction - 0.5).abs() < 1e-6, "{hit:?}");
}

/// A ball of radius 0.5 m cast `length` straight down from `height` onto `world`'s terrain,
/// which it must meet.
fn ball_cast_down(world: &World, height: f32, length: f32) -> atoll_physics::ShapeCastHit {
    let ball =
        PlacedShape::new(Shape::sphere(0.5).unwrap(), Transform::from_position(Vec3::new(0.3, height, 0.2)))
            .unwrap();
    let cast = ShapeCast::new(ball, Vec3::new(0.0, -length, 0.0)).unwrap();
    let hit = world.cast_shape(&cast, &QueryFilter::ALL).expect("the ground is met");
    assert!(hit.body.is_terrain(), "{hit:?}");
    hit
}
