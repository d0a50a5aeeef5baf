//! Sensors: a ball falling through a sensor is reported entering and leaving at the steps its
//! shape first and last overlaps the sensor's, and is never pushed; sensors keep nothing awake
//! and still list sleeping visitors; static visitors only when asked; filters apply; destroyed
//! sensors end their overlaps; scene files keep sensors; any thread count gives the same events.
//! A compound body's part can be the sensor: it is named by its `ShapeId`, moves with its body,
//! weighs nothing, displaces no water and stops nothing.

use atoll_physics::scene::Scene;
use atoll_physics::{
    BodyDesc, BodyId, BodyType, ChildDesc, CollisionFilter, SceneBody, SceneShape, Sensor, SensorEvent,
    Shape, ShapeId, StepSettings, Transform, Vec3, World, state_hash,
};

fn world() -> World {
    World::new(StepSettings::default()).unwrap()
}

fn floor(world: &mut World) -> BodyId {
    world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap(),
            Vec3::new(0.0, -0.5, 0.0),
        ))
        .unwrap()
}

/// A static box sensor of half height `half_y` centred at height `y`.
fn sensor_box(world: &mut World, y: f32, half_y: f32, sensor: Sensor) -> BodyId {
    let shape = Shape::cuboid(Vec3::new(1.0, half_y, 1.0)).unwrap();
    world.create_body(&BodyDesc::fixed(shape, Vec3::new(0.0, y, 0.0)).with_sensor(sensor)).unwrap()
}

fn ball(world: &mut World, at: Vec3) -> BodyId {
    world.create_body(&BodyDesc::dynamic(Shape::sphere(0.25).unwrap(), at)).unwrap()
}

/// Drops the same ball from 8 m in `with` (which holds `sensor`, a 2 m tall box between
/// heights 3 and 5) and in `without`, 90 steps: the ball is never pushed, `sensor` reports it
/// entering at the first step its shape overlaps and leaving the step after the last, and
/// lists it exactly while it overlaps. Returns the ball in `with`.
fn drop_a_ball_through(with: &mut World, without: &mut World, sensor: ShapeId) -> BodyId {
    let b = ball(with, Vec3::new(0.0, 8.0, 0.0));
    let b_alone = ball(without, Vec3::new(0.0, 8.0, 0.0));
    let (mut began, mut ended) = (Vec::new(), Vec::new());
    let mut overlapping_steps = Vec::new();
    for step in 1..=90u64 {
        with.step();
        without.step();
        let (p, q) = (with.transform(b).unwrap().position, without.transform(b_alone).unwrap().position);
        assert_eq!(p.to_array().map(f32::to_bits), q.to_array().map(f32::to_bits), "pushed at step {step}");
        // Sphere against the box, centred above it: overlapping while the ball's span meets
        // the box's, 3 - 0.25 <= y <= 5 + 0.25.
        if (2.75..=5.25).contains(&p.y) {
            overlapping_steps.push(step);
        }
        for e in with.sensor_events() {
            assert_eq!((e.sensor, e.visitor), (sensor, b));
            if e.began { began.push(step) } else { ended.push(step) }
        }
        let listed = with.sensor_overlaps(sensor).unwrap();
        assert_eq!(listed.contains(&b), overlapping_steps.last() == Some(&step), "step {step}: {listed:?}");
    }
    assert!(overlapping_steps.len() > 5, "{overlapping_steps:?}");
    assert_eq!(began, [overlapping_steps[0]], "entered once, at the first overlapping step");
    assert_eq!(ended, [overlapping_steps.last().unwrap() + 1], "left once, the step after the last");
    b
}

#[test]
fn a_falling_ball_enters_and_leaves_at_the_steps_its_shape_overlaps_and_is_never_pushed() {
    // The same ball falls in two worlds, one with a sensor box between heights 3 and 5.
    let (mut with, mut without) = (world(), world());
    let sensor = sensor_box(&mut with, 4.0, 1.0, Sensor::default());
    drop_a_ball_through(&mut with, &mut without, sensor.into());
    assert!(with.contacts().all(|c| c.body_a != sensor && c.body_b != sensor), "a sensor has no contacts");
}

#[test]
fn a_sensor_keeps_nothing_awake_and_lists_its_sleeping_visitors() {
    let mut world = world();
    floor(&mut world);
    let sensor = sensor_box(&mut world, 0.5, 0.5, Sensor::default());
    let boxes: Vec<_> = (0..3)
        .map(|i| {
            let shape = Shape::cuboid(Vec3::splat(0.25)).unwrap();
            world.create_body(&BodyDesc::dynamic(shape, Vec3::new(i as f32 * 0.6 - 0.6, 0.3, 0.0))).unwrap()
        })
        .collect();
    for _ in 0..240 {
        world.step();
    }
    for &b in &boxes {
        assert!(!world.is_awake(b).unwrap(), "asleep inside the sensor");
    }
    assert_eq!(world.sensor_overlaps(sensor).unwrap(), boxes.as_slice(), "sleeping visitors stay listed");
    assert!(world.sensor_events().is_empty());
    // The sensor shares no island with them: it is static and has no contacts; none of them
    // wakes while the world steps on.
    for _ in 0..30 {
        world.step();
        assert!(boxes.iter().all(|&b| !world.is_awake(b).unwrap()));
    }
}

#[test]
fn static_visitors_only_when_asked_and_filters_apply() {
    let mut world = world();
    let ground = floor(&mut world);
    let plain = sensor_box(&mut world, 0.0, 1.0, Sensor::default());
    let seeing = sensor_box(&mut world, 0.0, 1.0, Sensor { detect_static: true });
    let mut refused = BodyDesc::dynamic(Shape::sphere(0.25).unwrap(), Vec3::new(0.5, 0.25, 0.0));
    refused.filter = CollisionFilter { category: 2, mask: 1, group: 0 };
    let filtered_out = world.create_body(&refused).unwrap();
    // The sensors are category 1 and accept everything, but the ball accepts only 1: it is
    // reported. Make the sensors refuse category 2 and it is not.
    world.step();
    assert_eq!(world.sensor_overlaps(plain).unwrap(), [filtered_out]);
    assert_eq!(world.sensor_overlaps(seeing).unwrap(), [ground, filtered_out]);
    for s in [plain, seeing] {
        world.set_filter(s, CollisionFilter { category: 1, mask: !2, group: 0 }).unwrap();
    }
    world.step();
    assert_eq!(world.sensor_overlaps(plain).unwrap(), [] as [BodyId; 0]);
    assert_eq!(world.sensor_overlaps(seeing).unwrap(), [ground]);
    let ends: Vec<_> =
        world.sensor_events().iter().filter(|e| !e.began).map(|e| (e.sensor.body, e.visitor)).collect();
    assert_eq!(ends, [(plain, filtered_out), (seeing, filtered_out)]);
    // Sensors never report each other; a body that is not a sensor is refused.
    assert!(world.sensor_overlaps(ground).is_err());
}

#[test]
fn a_destroyed_sensor_ends_its_overlaps() {
    let mut world = world();
    floor(&mut world);
    let sensor = sensor_box(&mut world, 0.5, 0.5, Sensor::default());
    let b = ball(&mut world, Vec3::new(0.0, 0.25, 0.0));
    world.step();
    assert_eq!(world.sensor_events(), [SensorEvent { sensor: sensor.into(), visitor: b, began: true }]);
    world.destroy_body(sensor).unwrap();
    world.step();
    assert_eq!(world.sensor_events(), [SensorEvent { sensor: sensor.into(), visitor: b, began: false }]);
    world.step();
    assert!(world.sensor_events().is_empty());
}

/// A row of sensors over a rain of balls: sensors of three kinds and filtered balls.
fn sorting_rain() -> Scene {
    let mut scene = Scene::new("sensors");
    scene.bodies.push(SceneBody::new(
        BodyType::Static,
        SceneShape::Box { half_extents: Vec3::new(8.0, 0.5, 8.0) },
        Vec3::new(0.0, -0.5, 0.0),
    ));
    for k in 0..3 {
        let mut s = SceneBody::new(
            BodyType::Static,
            SceneShape::Box { half_extents: Vec3::new(1.5, 1.0, 6.0) },
            Vec3::new(k as f32 * 3.2 - 3.2, 1.0, 0.0),
        );
        s.sensor = Some(Sensor { detect_static: k == 2 });
        s.filter = CollisionFilter { category: 1, mask: 1 | (2 << k), group: 0 };
        scene.bodies.push(s);
    }
    for i in 0..120u32 {
        let at = Vec3::new(
            (i % 8) as f32 * 1.1 - 3.9,
            2.0 + (i / 40) as f32 * 1.2,
            ((i / 8) % 5) as f32 * 1.1 - 2.2,
        );
        let mut b = SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.4 }, at);
        b.filter = CollisionFilter { category: 2 << (i % 3), mask: u64::MAX, group: 0 };
        scene.bodies.push(b);
    }
    scene
}

#[test]
fn sensors_round_trip_through_scene_files_and_report_the_same_on_one_to_four_threads() {
    let scene = sorting_rain();
    let text = scene.to_ron_string();
    assert!(text.contains("sensor: Some((detect_static: true))"), "{text}");
    let back = Scene::from_ron_str(&text).unwrap();
    assert_eq!(back, scene);
    let mut runs = Vec::new();
    for threads in 1..=4 {
        let (mut world, _) = back.build_world().unwrap();
        world.set_thread_count(threads).unwrap();
        let mut trace = Vec::new();
        for _ in 0..150 {
            world.step();
            trace.push((state_hash(&world), world.sensor_events().to_vec()));
        }
        let events: usize = trace.iter().map(|(_, e)| e.len()).sum();
        assert!(events > 30, "the rain falls into the sensors: {events} events");
        runs.push(trace);
    }
    assert!(runs.iter().all(|r| *r == runs[0]), "a thread count reported differently");
    // Saved from the world, the sensors come back.
    let (world, ids) = back.build_world().unwrap();
    let saved = Scene::from_world(&world, "again", |_| String::new());
    assert_eq!(saved.bodies[3].sensor, Some(Sensor { detect_static: true }));
    assert_eq!(world.sensors().map(|s| s.body).collect::<Vec<_>>(), ids[1..4]);
}

#[test]
fn a_ball_bouncing_across_a_sensor_edge_is_listed_exactly_while_it_overlaps() {
    // A bouncy floor turns the ball around within a step, off the path its fat box predicted:
    // the sensor (from 0.6 m up) must still list it exactly while its shape overlaps.
    let mut world = world();
    let bouncy = atoll_physics::Material { restitution: 1.0, ..Default::default() };
    let shape = Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap();
    world.create_body(&BodyDesc::fixed(shape, Vec3::new(0.0, -0.5, 0.0)).with_material(bouncy)).unwrap();
    let sensor = sensor_box(&mut world, 1.6, 1.0, Sensor::default());
    let b = world
        .create_body(
            &BodyDesc::dynamic(Shape::sphere(0.25).unwrap(), Vec3::new(0.0, 1.2, 0.0)).with_material(bouncy),
        )
        .unwrap();
    let mut changes = 0;
    for step in 1..=240 {
        world.step();
        let y = world.transform(b).unwrap().position.y;
        let overlapping = (0.35..=2.85).contains(&y);
        let listed = world.sensor_overlaps(sensor).unwrap().contains(&b);
        // Within a micrometre of the edge the exact test may fall either way.
        if (y - 0.35).abs() > 1e-4 {
            assert_eq!(listed, overlapping, "step {step}: ball at {y}");
        }
        changes += world.sensor_events().len();
    }
    assert!(changes >= 6, "the ball crossed the edge on several bounces: {changes} events");
}

#[test]
fn the_sorting_machine_counts_each_kind_in_its_own_bin() {
    use atoll_physics::scene::builtin::{SORTED_KINDS, sorting_machine};
    use std::collections::BTreeSet;
    let scene = sorting_machine(90);
    let (mut world, ids) = scene.build_world().unwrap();
    let counters: Vec<BodyId> = world.sensors().map(|s| s.body).collect();
    assert_eq!(counters.len(), 3);
    let kind_of = |id: BodyId| {
        let index = ids.iter().position(|&b| b == id).unwrap();
        let category = scene.bodies[index].filter.category;
        SORTED_KINDS.iter().position(|k| k.0 == category)
    };
    let mut counted: [BTreeSet<BodyId>; 3] = Default::default();
    for _ in 0..900 {
        world.step();
        for e in world.sensor_events().iter().filter(|e| e.began) {
            let bin = counters.iter().position(|&c| c == e.sensor.body).unwrap();
            assert_eq!(kind_of(e.visitor), Some(bin), "a counter saw a ball of another kind");
            counted[bin].insert(e.visitor);
        }
    }
    for (bin, (_, _, name)) in SORTED_KINDS.iter().enumerate() {
        let resting = world.sensor_overlaps(counters[bin]).unwrap().len();
        assert!(counted[bin].len() >= 27, "{name}: {} of 30 balls counted", counted[bin].len());
        assert!(resting >= 24, "{name}: {resting} of 30 balls rest in their bin");
    }
}

/// A static post (its own shape, solid) with a sensor box (part 1) of half height `half_y` at
/// height `y` beside it, and a second sensor part (part 2) far off to the side.
fn post_with_sensor_parts(world: &mut World, y: f32, half_y: f32) -> BodyId {
    let post = BodyDesc::fixed(Shape::cuboid(Vec3::new(0.2, 3.0, 0.2)).unwrap(), Vec3::new(-2.0, 3.0, 0.0));
    let region = ChildDesc::new(
        Shape::cuboid(Vec3::new(1.0, half_y, 1.0)).unwrap(),
        Transform::from_position(Vec3::new(2.0, y - 3.0, 0.0)),
    );
    let far = ChildDesc::new(
        Shape::cuboid(Vec3::splat(0.5)).unwrap(),
        Transform::from_position(Vec3::new(-8.0, 0.0, 0.0)),
    );
    let desc =
        post.with_child(region.with_sensor(Sensor::default())).with_child(far.with_sensor(Sensor::default()));
    world.create_body(&desc).unwrap()
}

#[test]
fn a_sensor_part_reports_a_falling_ball_at_the_steps_its_shape_overlaps_and_never_pushes_it() {
    // The same ball falls in two worlds; in one it passes through a compound's sensor part
    // between heights 3 and 5 (the part's body beside it: a solid post).
    let (mut with, mut without) = (world(), world());
    let post = post_with_sensor_parts(&mut with, 4.0, 1.0);
    let region = ShapeId::new(post, 1);
    assert_eq!(with.sensors().collect::<Vec<_>>(), [region, ShapeId::new(post, 2)]);
    assert_eq!(with.sensor(post).unwrap(), None, "the post's own shape is solid");
    assert!(with.sensor(ShapeId::new(post, 3)).is_err(), "the post has no part 3");
    assert!(with.sensor_overlaps(post).is_err(), "the post's own shape is not a sensor");
    drop_a_ball_through(&mut with, &mut without, region);
    assert_eq!(
        with.sensor_overlaps(ShapeId::new(post, 2)).unwrap(),
        [] as [BodyId; 0],
        "the far part saw nothing"
    );
}

#[test]
fn a_sensor_part_moves_with_its_body_weighs_nothing_and_stops_nothing() {
    // A dynamic crate (0.5 m cube of 1000 kg/m³: 125 kg) carrying a sensor box of the same
    // density below it, reaching 0.3 m into the floor: the crate rests on its own shape, and
    // the part reports the floor (detect_static) and the ball resting beside the crate.
    let mut world = world();
    let floor = floor(&mut world);
    let crate_desc = BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.25)).unwrap(), Vec3::new(0.0, 0.25, 0.0))
        .with_material(atoll_physics::Material { density: 1000.0, friction: 0.6, restitution: 0.0 })
        .with_child(
            ChildDesc::new(
                Shape::cuboid(Vec3::new(1.0, 0.25, 0.25)).unwrap(),
                Transform::from_position(Vec3::new(0.0, -0.2, 0.0)),
            )
            .with_material(atoll_physics::Material { density: 1000.0, friction: 0.6, restitution: 0.0 })
            .with_sensor(Sensor { detect_static: true }),
        );
    let crate_id = world.create_body(&crate_desc).unwrap();
    assert!((world.body(crate_id).unwrap().mass - 125.0).abs() < 1e-3, "the sensor part weighs nothing");
    let resting = ball(&mut world, Vec3::new(0.8, 0.25, 0.0));
    // A fast ball thrown at the part's far end: the part must not stop it (nor its sweep).
    let thrown = ball(&mut world, Vec3::new(-0.8, 3.0, 0.0));
    world.set_linear_velocity(thrown, Vec3::new(0.0, -30.0, 0.0)).unwrap();
    for _ in 0..120 {
        world.step();
    }
    let part = ShapeId::new(crate_id, 1);
    let height = world.transform(crate_id).unwrap().position.y;
    assert!((height - 0.25).abs() < 0.01, "the crate rests on its own shape, at {height}");
    let overlaps = world.sensor_overlaps(part).unwrap();
    assert_eq!(overlaps, [floor, resting, thrown], "the part reports the floor and both balls");
    let thrown_y = world.transform(thrown).unwrap().position.y;
    assert!(
        (thrown_y - 0.25).abs() < 0.01,
        "the thrown ball lands on the floor through the part, at {thrown_y}"
    );
    // Push the crate along: the part goes with it, and the resting ball is left behind.
    world.set_transform(crate_id, Transform::from_position(Vec3::new(5.0, 0.25, 0.0))).unwrap();
    world.step();
    let events: Vec<_> = world.sensor_events().iter().map(|e| (e.sensor, e.visitor, e.began)).collect();
    assert_eq!(events, [(part, resting, false), (part, thrown, false)]);
    assert_eq!(world.sensor_overlaps(part).unwrap(), [floor]);
}

#[test]
fn a_dynamic_compound_whose_every_shape_is_a_sensor_is_refused() {
    let mut world = world();
    let part = ChildDesc::new(Shape::sphere(0.2).unwrap(), Transform::from_position(Vec3::X))
        .with_sensor(Sensor::default());
    let desc = BodyDesc::dynamic(Shape::sphere(0.2).unwrap(), Vec3::ZERO)
        .with_sensor(Sensor::default())
        .with_child(part.clone());
    let error = world.create_body(&desc).unwrap_err().to_string();
    assert!(error.contains("sensor") && error.contains("mass"), "{error}");
    // Static, it is a region of two sensors; one solid shape makes the dynamic body valid.
    let mut fixed = desc.clone();
    fixed.body_type = BodyType::Static;
    world.create_body(&fixed).unwrap();
    let solid = BodyDesc::dynamic(Shape::sphere(0.2).unwrap(), Vec3::ZERO).with_child(part);
    world.create_body(&solid).unwrap();
}

#[test]
fn sensor_parts_report_in_body_then_part_order() {
    // Body 0 a post with sensor parts 1 and 2; body 1 a plain sensor; a ball dropped so that it
    // enters all three in one step: the events come (0, 1), (0, 2), (1, 0).
    let mut world = world();
    let post = BodyDesc::fixed(Shape::cuboid(Vec3::splat(0.1)).unwrap(), Vec3::new(0.0, 10.0, 0.0))
        .with_child(
            ChildDesc::new(
                Shape::cuboid(Vec3::splat(1.0)).unwrap(),
                Transform::from_position(Vec3::new(0.0, -9.0, 0.0)),
            )
            .with_sensor(Sensor::default()),
        )
        .with_child(
            ChildDesc::new(
                Shape::cuboid(Vec3::splat(1.0)).unwrap(),
                Transform::from_position(Vec3::new(0.0, -9.0, 0.0)),
            )
            .with_sensor(Sensor::default()),
        );
    let post = world.create_body(&post).unwrap();
    let plain = sensor_box(&mut world, 1.0, 1.0, Sensor::default());
    let b = ball(&mut world, Vec3::new(0.0, 2.3, 0.0));
    let mut events = Vec::new();
    for _ in 0..30 {
        world.step();
        events.extend(world.sensor_events().iter().filter(|e| e.began).map(|e| e.sensor));
        if !events.is_empty() {
            break;
        }
    }
    assert_eq!(events, [ShapeId::new(post, 1), ShapeId::new(post, 2), ShapeId::from(plain)]);
    let _ = b;
}

#[test]
fn a_fast_ball_passes_through_a_static_sensor_part_as_if_it_were_not_there() {
    // 60 m/s down: a metre a step, four times the ball's radius, so the continuous stage sweeps
    // it against the static shapes near its path. A sensor part is not one of them.
    let (mut with, mut without) = (world(), world());
    let post = post_with_sensor_parts(&mut with, 4.0, 1.0);
    let (b, b_alone) =
        (ball(&mut with, Vec3::new(0.0, 8.0, 0.0)), ball(&mut without, Vec3::new(0.0, 8.0, 0.0)));
    for (world, id) in [(&mut with, b), (&mut without, b_alone)] {
        world.set_linear_velocity(id, Vec3::new(0.0, -60.0, 0.0)).unwrap();
    }
    let mut entered = false;
    for step in 1..=8 {
        with.step();
        without.step();
        let (p, q) = (with.transform(b).unwrap().position, without.transform(b_alone).unwrap().position);
        assert_eq!(p.to_array().map(f32::to_bits), q.to_array().map(f32::to_bits), "stopped at step {step}");
        entered |= with.sensor_events().iter().any(|e| e.began && e.sensor == ShapeId::new(post, 1));
    }
    assert!(entered, "the part saw the ball pass");
}
