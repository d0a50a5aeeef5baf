//! Scene files: round trips, and errors that name the line, column and field.

use atoll_physics::scene::{BodyRef, SceneJoint};
use atoll_physics::scene::{MAX_HULL_POINTS, SCENE_VERSION};
use atoll_physics::{
    BodyType, DistanceJoint, JointFrame, JointKind, Limits, RevoluteJoint, Scene, SceneBody, SceneError,
    SceneShape, Vec3,
};

fn sample() -> Scene {
    let mut scene = Scene::new("sample");
    scene.bodies.push(SceneBody::new(
        BodyType::Static,
        SceneShape::Box { half_extents: Vec3::new(10.0, 0.5, 10.0) },
        Vec3::new(0.0, -0.5, 0.0),
    ));
    let mut ball =
        SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.5 }, Vec3::new(0.1, 3.0, -0.2));
    ball.name = "ball".into();
    ball.linear_velocity = Vec3::new(1.0, 0.0, 0.25);
    ball.material.restitution = 0.5;
    scene.bodies.push(ball);
    scene.bodies.push(SceneBody::new(
        BodyType::Kinematic,
        SceneShape::Capsule { half_height: 0.5, radius: 0.25 },
        Vec3::new(3.0, 1.0, 0.0),
    ));
    scene
}

fn parse_error(text: &str) -> (usize, usize, String, String) {
    match Scene::from_ron_str(text) {
        Err(SceneError::Parse { line, column, field, message }) => (line, column, field, message),
        other => panic!("expected a parse error, got {other:?}"),
    }
}

#[test]
fn save_and_load_round_trip_exactly() {
    let scene = sample();
    let text = scene.to_ron_string();
    let back = Scene::from_ron_str(&text).unwrap();
    assert_eq!(back, scene);
    assert_eq!(back.to_ron_string(), text);
}

#[test]
fn odd_floats_round_trip_bit_for_bit() {
    let mut scene = sample();
    scene.bodies[1].position = Vec3::new(0.1 + 0.2, 1.0 / 3.0, f32::MIN_POSITIVE);
    scene.settings.dt = 1.0 / 144.0;
    let back = Scene::from_ron_str(&scene.to_ron_string()).unwrap();
    assert_eq!(
        back.bodies[1].position.to_array().map(f32::to_bits),
        scene.bodies[1].position.to_array().map(f32::to_bits)
    );
    assert_eq!(back.settings.dt.to_bits(), scene.settings.dt.to_bits());
}

#[test]
fn syntax_error_names_line_and_column() {
    let text = "(\n    version: 1,\n    bodies: [\n        (body_type: Dynamic shape: Sphere(radius: 1.0), position: (0.0, 0.0, 0.0)),\n    ],\n)\n";
    let (line, column, _, message) = parse_error(text);
    assert_eq!(line, 4);
    assert!(column > 20, "column {column}");
    assert!(!message.is_empty());
}

#[test]
fn negative_radius_names_the_field() {
    let text = "(\n    version: 1,\n    bodies: [\n        (body_type: Dynamic, position: (0.0, 1.0, 0.0), shape: Sphere(radius: 1.0)),\n        (body_type: Dynamic, position: (0.0, 1.0, 0.0), shape: Sphere(radius: -2.0)),\n    ],\n)\n";
    let (line, _, field, message) = parse_error(text);
    assert_eq!(line, 5);
    assert_eq!(field, "bodies[1].shape");
    assert!(message.contains("sphere radius") && message.contains("-2"), "{message}");
}

#[test]
fn non_finite_position_is_refused() {
    let text =
        "(version: 1, bodies: [(body_type: Dynamic, position: (0.0, NaN, 0.0), shape: Sphere(radius: 1.0))])";
    let (_, _, field, message) = parse_error(text);
    assert_eq!(field, "bodies[0].position");
    assert!(message.contains("non-finite"), "{message}");
}

#[test]
fn coplanar_hull_is_refused() {
    let text = "(version: 1, bodies: [(body_type: Dynamic, position: (0.0, 0.0, 0.0), shape: Hull(points: [(0.0, 0.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0), (1.0, 0.0, 1.0), (0.5, 0.0, 0.5)]))])";
    let (_, _, field, message) = parse_error(text);
    assert_eq!(field, "bodies[0].shape");
    assert!(message.contains("coplanar"), "{message}");
}

#[test]
fn bad_material_and_settings_are_refused() {
    let text = "(version: 1, bodies: [(body_type: Dynamic, position: (0.0, 0.0, 0.0), shape: Sphere(radius: 1.0), material: (density: 0.0, friction: 0.5, restitution: 0.0))])";
    let (_, _, field, message) = parse_error(text);
    assert_eq!(field, "bodies[0].material");
    assert!(message.contains("density"), "{message}");

    let text = "(version: 1, settings: (substeps: 0))";
    let (_, _, field, message) = parse_error(text);
    assert_eq!(field, "settings");
    assert!(message.contains("substeps"), "{message}");
}

#[test]
fn unknown_fields_and_versions_are_refused() {
    let (_, _, field, message) = parse_error("(version: 1, bodies: [], gravity: (0.0, 0.0, 0.0))");
    assert!(message.contains("gravity"), "{field}: {message}");
    let (_, _, field, message) = parse_error("(version: 99)");
    assert_eq!(field, "version");
    assert!(message.contains(&format!("versions 1 to {SCENE_VERSION}")), "{message}");
}

#[test]
fn oversized_hull_point_list_is_refused() {
    let points: Vec<String> =
        (0..MAX_HULL_POINTS + 1).map(|i| format!("({i}.0, {}.0, 0.5)", i % 7)).collect();
    let text = format!(
        "(version: 1, bodies: [(body_type: Dynamic, position: (0.0, 0.0, 0.0), shape: Hull(points: [{}]))])",
        points.join(", ")
    );
    let (_, _, field, message) = parse_error(&text);
    assert_eq!(field, "bodies[0].shape.Hull.points");
    assert!(message.contains(&format!("more than {MAX_HULL_POINTS}")), "{message}");
}

#[test]
fn saving_replaces_the_file_and_a_failed_save_keeps_it() {
    let dir = std::env::temp_dir().join(format!("atoll-scene-test-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("scene.ron");
    let first = sample();
    first.save(&path).unwrap();
    let mut second = sample();
    second.name = "second".into();
    second.save(&path).unwrap();
    assert_eq!(Scene::load(&path).unwrap().name, "second");
    // Saving into a directory that does not exist fails and leaves the old file whole.
    assert!(matches!(first.save(&dir.join("missing").join("scene.ron")), Err(SceneError::Io { .. })));
    // Saving over a path that is a directory fails before touching anything.
    let blocker = dir.join("blocker.ron");
    std::fs::create_dir_all(&blocker).unwrap();
    assert!(first.save(&blocker).is_err());
    assert_eq!(Scene::load(&path).unwrap().name, "second");
    let leftovers: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().ends_with(".saving"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn scene_builds_a_world_and_reads_back() {
    let scene = sample();
    let (world, ids) = scene.build_world().unwrap();
    assert_eq!(world.body_count(), 3);
    let names = ["", "ball", ""];
    let back = Scene::from_world(&world, "sample", |id| {
        names[ids.iter().position(|i| *i == id).unwrap()].to_string()
    });
    assert_eq!(back, scene);
}

#[test]
fn files_that_call_the_continuous_gap_linear_slop_still_load() {
    let mut scene = sample();
    scene.settings.continuous_gap = 0.0125;
    let text = scene.to_ron_string();
    assert!(text.contains("continuous_gap: 0.0125"), "{text}");
    // Files written before the setting was renamed.
    let old = text.replace("continuous_gap", "linear_slop");
    let loaded = Scene::from_ron_str(&old).unwrap();
    assert_eq!(loaded.settings.continuous_gap, 0.0125);
    assert_eq!(loaded, scene);
    // Both names at once is one field given twice: refused with its name.
    let both = text.replace("continuous_gap: 0.0125,", "continuous_gap: 0.0125,\n        linear_slop: 0.01,");
    let err = Scene::from_ron_str(&both).unwrap_err().to_string();
    assert!(err.contains("continuous_gap") || err.contains("linear_slop"), "{err}");
}

/// Two balls and a static post, with a hinge from the post to the first ball (by name) and a
/// rope between the balls (by index).
fn jointed() -> Scene {
    let mut scene = sample();
    let mut ball =
        SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.5 }, Vec3::new(2.0, 3.0, 0.0));
    ball.name = "second".into();
    scene.bodies.push(ball);
    let hinge =
        JointKind::Revolute(RevoluteJoint { limits: Some(Limits::new(-1.0, 1.0)), ..Default::default() });
    let frames = (JointFrame::at(Vec3::new(0.0, 1.0, 0.0)), JointFrame::at(Vec3::ZERO));
    scene.joints.push(SceneJoint::new(hinge, Some(BodyRef::Index(0)), BodyRef::Name("ball".into()), frames));
    let mut rope = SceneJoint::new(
        JointKind::Distance(DistanceJoint::rope(2.5)),
        Some(BodyRef::Index(1)),
        BodyRef::Index(3),
        frames,
    );
    rope.break_force = Some(500.0);
    scene.joints.push(rope);
    scene
}

#[test]
fn joints_round_trip_and_build_with_their_bodies() {
    let scene = jointed();
    let text = scene.to_ron_string();
    assert!(text.contains(&format!("version: {SCENE_VERSION}")), "{text}");
    let back = Scene::from_ron_str(&text).unwrap();
    assert_eq!(back, scene);
    let (world, ids) = back.build_world().unwrap();
    let joints: Vec<_> = world.joints().collect();
    assert_eq!(joints.len(), 2);
    assert_eq!((joints[0].body_a, joints[0].body_b), (Some(ids[0]), ids[1]));
    assert_eq!((joints[1].body_a, joints[1].body_b), (Some(ids[1]), ids[3]));
    assert_eq!(world.joint_desc(joints[1].id).unwrap().break_force, Some(500.0));
    // A world saved as a scene keeps its joints.
    let saved = Scene::from_world(&world, "saved", |_| String::new());
    assert_eq!(saved.joints.len(), 2);
    assert_eq!(saved.joints[0].body_b, BodyRef::Index(1));
    let (again, _) = saved.build_world().unwrap();
    assert_eq!(again.joint_count(), 2);
}

#[test]
fn version_one_files_still_load() {
    let text =
        "(version: 1, bodies: [(body_type: Dynamic, position: (0.0, 1.0, 0.0), shape: Sphere(radius: 1.0))])";
    let scene = Scene::from_ron_str(text).unwrap();
    assert_eq!(scene.bodies.len(), 1);
    assert!(scene.joints.is_empty());
    for entry in std::fs::read_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes")).unwrap() {
        let path = entry.unwrap().path();
        Scene::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

/// A scene's text with `joint` as its only joint entry.
fn with_joint(joint: &str) -> String {
    let mut scene = jointed();
    scene.joints.clear();
    let text = scene.to_ron_string();
    let end = text.rfind(')').unwrap();
    format!("{}    joints: [\n        {joint},\n    ],\n)\n", &text[..end])
}

#[test]
fn bad_joint_entries_name_line_column_and_field() {
    let good = "(kind: Spherical(()), body_a: Some(1), body_b: \"second\", frame_a: (anchor: (0.0, 0.0, 0.0)), frame_b: (anchor: (0.0, 0.0, 0.0)))";
    Scene::from_ron_str(&with_joint(good)).unwrap();
    let cases = [
        (good.replace("body_a: Some(1)", "body_a: Some(9)"), "joints[0].body_a", "no body has index 9"),
        (good.replace("\"second\"", "\"nobody\""), "joints[0].body_b", "no body is named"),
        (good.replace("body_a: Some(1)", "body_a: Some(3)"), "joints", "to itself"),
        (
            good.replace("body_a: Some(1), body_b: \"second\"", "body_a: Some(0), body_b: 2"),
            "joints",
            "dynamic",
        ),
        (
            good.replace("Spherical(())", "Revolute((limits: Some((lower: 1.0, upper: -1.0))))"),
            "joints[0].kind",
            "lower limit",
        ),
        (
            good.replace("Spherical(())", "Prismatic((spring: Some((hertz: -2.0, damping_ratio: 1.0))))"),
            "joints[0].kind",
            "spring hertz",
        ),
        (good.replace("anchor: (0.0, 0.0, 0.0))", "anchor: (0.0, NaN, 0.0))"), "joints[0].frame_a", "finite"),
        (good.replace("body_b:", "break_force: Some(-3.0), body_b:"), "joints[0].break_force", ">= 0"),
        (good.replace("body_b:", "strength: 3.0, body_b:"), "joints[0].strength", "strength"),
    ];
    for (entry, field, message_part) in cases {
        let text = with_joint(&entry);
        let (line, column, got_field, message) = parse_error(&text);
        assert_eq!(got_field, field, "{entry}: {message}");
        assert!(message.contains(message_part), "{entry}: {message}");
        let joints_line = text.lines().position(|l| l.contains("joints: [")).unwrap() + 1;
        assert!(line > joints_line && column > 0, "{entry}: line {line}, column {column}");
    }
}

#[test]
fn a_viewpoint_round_trips_and_a_bad_one_names_line_and_field() {
    let mut scene = sample();
    scene.view = Some(atoll_physics::SceneView {
        target: Vec3::new(1.0, 2.0, 3.0),
        yaw: 0.5,
        pitch: 0.3,
        distance: 12.0,
    });
    let back = Scene::from_ron_str(&scene.to_ron_string()).unwrap();
    assert_eq!(back.view, scene.view);
    let text = "(\n    version: 2,\n    bodies: [],\n    view: Some((\n        target: (0.0, 0.0, 0.0),\n        yaw: 0.0,\n        pitch: 0.2,\n        distance: -4.0,\n    )),\n)\n";
    let (line, _, field, message) = parse_error(text);
    assert!(line >= 4, "line {line}");
    assert_eq!(field, "view");
    assert!(message.contains("view distance") && message.contains("-4"), "{message}");
}

/// A table: a top and four legs, one body.
fn table() -> SceneBody {
    use atoll_physics::scene::SceneChild;
    let mut body = SceneBody::new(
        BodyType::Dynamic,
        SceneShape::Box { half_extents: Vec3::new(0.8, 0.03, 0.45) },
        Vec3::new(0.0, 0.77, 0.0),
    );
    body.name = "table".into();
    for (x, z) in [(-0.74, -0.4), (0.74, -0.4), (-0.74, 0.4), (0.74, 0.4)] {
        body.children.push(SceneChild {
            shape: SceneShape::Box { half_extents: Vec3::new(0.03, 0.37, 0.03) },
            position: Vec3::new(x, -0.4, z),
            rotation: atoll_physics::Quat::IDENTITY,
            material: atoll_physics::Material { density: 900.0, ..Default::default() },
            filter: Default::default(),
            sensor: None,
        });
    }
    body
}

#[test]
fn compound_bodies_round_trip_exactly_and_a_bad_child_names_its_field() {
    let mut scene = sample();
    let mut t = table();
    // -0.0 in a child's pose must come back as -0.0.
    t.children[0].position.y = -0.0;
    t.children[1].sensor = Some(atoll_physics::Sensor { detect_static: true });
    scene.bodies.push(t);
    let text = scene.to_ron_string();
    assert!(text.contains("children: ["), "{text}");
    let back = Scene::from_ron_str(&text).unwrap();
    assert_eq!(back, scene);
    assert_eq!(back.bodies[3].children[0].position.y.to_bits(), (-0.0f32).to_bits());
    assert_eq!(back.to_ron_string(), text);
    // The engine's description carries the children; their mass counts.
    let desc = back.bodies[3].to_desc().unwrap();
    assert_eq!(desc.children.len(), 4);
    assert!(desc.mass_properties().mass > desc.shape.mass_properties(desc.material.density).mass);
    // A child's bad radius, position or rotation is refused with its line and field.
    let bad = text.replacen("half_extents: (0.03, 0.37, 0.03)", "half_extents: (0.03, -0.37, 0.03)", 1);
    let (line, _, field, _) = parse_error(&bad);
    assert!(field.contains("children") && field.contains("shape"), "{field}");
    assert_eq!(line, bad.lines().position(|l| l.contains("-0.37")).unwrap() + 1);
    let bad = text.replacen("position: (-0.74, -0.0, -0.4)", "position: (-0.74, NaN, -0.4)", 1);
    assert!(parse_error(&bad).2.contains("position"));
    // More children than a body may hold.
    let child = "(shape: Sphere(radius: 0.1))";
    let many = format!(
        "(version: 4, bodies: [(body_type: Dynamic, shape: Sphere(radius: 0.5), position: (0.0, 1.0, 0.0), children: [{}])])",
        vec![child; atoll_physics::MAX_CHILDREN + 1].join(",")
    );
    assert!(parse_error(&many).2.contains("children"));
}

#[test]
fn a_compound_body_goes_into_a_world_and_back_into_a_scene_unchanged() {
    let mut scene = sample();
    scene.bodies.push(table());
    let (world, ids) = scene.build_world().unwrap();
    let back = SceneBody::from_world(&world, *ids.last().unwrap()).unwrap();
    assert_eq!(back.children, table().children);
    // A sensor part and a filtered part come back as they went in.
    let mut sensing = table();
    sensing.children[0].sensor = Some(atoll_physics::Sensor { detect_static: true });
    sensing.children[1].filter = atoll_physics::CollisionFilter { category: 4, mask: !2, group: -3 };
    let mut world = atoll_physics::World::new(Default::default()).unwrap();
    let id = world.create_body(&sensing.to_desc().unwrap()).unwrap();
    assert_eq!(SceneBody::from_world(&world, id).unwrap().children, sensing.children);
    assert_eq!(world.sensors().collect::<Vec<_>>(), [atoll_physics::ShapeId::new(id, 1)]);
}
