//! Scenes of joints: a bridge, a ragdoll pile, a motorised door, a vehicle on wheel joints, a
//! car with a compound chassis, a Newton's cradle, and the joint benchmark scenes (a joint
//! grid, a long chain bridge, a rain of ragdolls). Joints name their bodies by index in the
//! scene's body list.

use super::ground;
use crate::body::{BodyType, Material};
use crate::joint::{JointFrame, JointKind, Limits, Motor, RevoluteJoint, SphericalJoint, Spring, WheelJoint};
use crate::math::{Quat, Transform, Vec3};
use crate::scene::child::SceneChild;
use crate::scene::{BodyRef, Scene, SceneBody, SceneJoint, SceneShape, SceneView};
use std::f32::consts::PI;

/// Adds a body and returns its index.
fn add(scene: &mut Scene, name: String, body: SceneBody) -> usize {
    scene.bodies.push(SceneBody { name, ..body });
    scene.bodies.len() - 1
}

/// A dynamic body of `shape` at `position` turned by `rotation`.
fn dynamic(shape: SceneShape, position: Vec3, rotation: Quat) -> SceneBody {
    SceneBody { rotation, ..SceneBody::new(BodyType::Dynamic, shape, position) }
}

/// The pose of scene body `index` (the world's for `None`).
fn pose(scene: &Scene, body: Option<usize>) -> Transform {
    body.map_or(Transform::IDENTITY, |i| Transform::new(scene.bodies[i].position, scene.bodies[i].rotation))
}

/// Adds a joint of `kind` from body `a` (or the world) to body `b` whose frames meet at the
/// world frame `frame`; returns its index.
fn join(scene: &mut Scene, kind: JointKind, a: Option<usize>, b: usize, frame: JointFrame) -> usize {
    let frames = (frame.in_body(&pose(scene, a)), frame.in_body(&pose(scene, Some(b))));
    scene.joints.push(SceneJoint::new(kind, a.map(BodyRef::Index), BodyRef::Index(b), frames));
    scene.joints.len() - 1
}

/// A world frame at `anchor` with its X axis along `axis` (a unit vector the generators pass).
fn frame(anchor: Vec3, axis: Vec3) -> JointFrame {
    JointFrame::with_axis(anchor, axis).expect("generator axes are unit vectors")
}

fn with_density(body: SceneBody, density: f32) -> SceneBody {
    SceneBody { material: Material { density, ..body.material }, ..body }
}

/// Adds a bridge of `planks` boards 0.5 m long hinged edge to edge about Z, hung between two
/// world hinges at height `y`, sagging in a circular arc (each board turned a little more than
/// the one before) so it carries loads by its shape. Each hinge has a little friction (a motor
/// at speed 0): nothing else damps a bridge's sway. Returns the boards' indices.
pub fn add_bridge(scene: &mut Scene, planks: usize, y: f32, sag_angle: f32) -> Vec<usize> {
    let half_length = 0.25;
    let shape = SceneShape::Box { half_extents: Vec3::new(half_length, 0.05, 0.6) };
    let hinge =
        JointKind::Revolute(RevoluteJoint { motor: Some(Motor::new(0.0, 100.0)), ..Default::default() });
    let slope = |k: usize| -sag_angle * (1.0 - 2.0 * (k as f32 + 0.5) / planks as f32);
    let span: f32 = (0..planks).map(|k| 2.0 * half_length * slope(k).cos()).sum();
    let mut hinge_point = Vec3::new(-span / 2.0, y, 0.0);
    let mut boards: Vec<usize> = Vec::new();
    for k in 0..planks {
        let direction = Vec3::new(slope(k).cos(), slope(k).sin(), 0.0);
        let center = hinge_point + direction * half_length;
        let board =
            add(scene, format!("plank {k}"), dynamic(shape.clone(), center, Quat::from_rotation_z(slope(k))));
        join(scene, hinge, boards.last().copied(), board, frame(hinge_point, Vec3::Z));
        boards.push(board);
        hinge_point += direction * (2.0 * half_length);
    }
    join(scene, hinge, None, *boards.last().expect("a bridge has planks"), frame(hinge_point, Vec3::Z));
    boards
}

/// A 30-plank bridge with crates dropped on it.
pub fn bridge() -> Scene {
    let mut scene = Scene::new("Bridge (30 planks on hinges)");
    ground(&mut scene);
    add_bridge(&mut scene, 30, 5.0, 0.3);
    for k in 0..6 {
        let x = -5.0 + 2.0 * k as f32;
        let p = Vec3::new(x, 7.0 + 0.5 * k as f32, 0.0);
        let body = dynamic(SceneShape::Box { half_extents: Vec3::splat(0.3) }, p, Quat::IDENTITY);
        add(&mut scene, format!("crate {k}"), body);
    }
    scene.view = Some(SceneView { target: Vec3::new(0.0, 4.2, 0.0), yaw: 0.3, pitch: 0.22, distance: 12.5 });
    scene
}

/// Adds a ragdoll standing at `root`: a capsule torso, a ball head and capsule limbs;
/// spherical joints with a swing cone, a twist range and a little friction at the neck,
/// shoulders and hips; revolute joints with limits and friction at the elbows and knees.
/// Returns the indices of its 10 bodies and 9 joints.
pub fn add_ragdoll(scene: &mut Scene, root: Vec3, label: &str) -> (Vec<usize>, Vec<usize>) {
    let capsule = |half_height: f32, radius: f32| SceneShape::Capsule { half_height, radius };
    let sideways = Quat::from_rotation_z(PI / 2.0);
    let mut bodies = Vec::new();
    let mut joints = Vec::new();
    let mut body = |scene: &mut Scene, part: &str, shape, at: Vec3, rotation| {
        let i = add(scene, format!("{label} {part}"), dynamic(shape, root + at, rotation));
        bodies.push(i);
        i
    };
    let torso = body(scene, "torso", capsule(0.25, 0.15), Vec3::new(0.0, 1.2, 0.0), Quat::IDENTITY);
    let head =
        body(scene, "head", SceneShape::Sphere { radius: 0.12 }, Vec3::new(0.0, 1.75, 0.0), Quat::IDENTITY);
    let cone = |swing: f32, twist: f32| {
        JointKind::Spherical(SphericalJoint {
            swing_limit: Some(swing),
            twist_limits: Some(Limits::new(-twist, twist)),
            friction: 2.0,
            ..Default::default()
        })
    };
    let friction = Some(Motor::new(0.0, 2.0));
    let elbow = JointKind::Revolute(RevoluteJoint {
        limits: Some(Limits::new(0.0, 2.5)),
        motor: friction,
        ..Default::default()
    });
    let knee = JointKind::Revolute(RevoluteJoint {
        limits: Some(Limits::new(-2.5, 0.0)),
        motor: friction,
        ..Default::default()
    });
    let mut link = |scene: &mut Scene, kind, a, b, at: Vec3, axis| {
        joints.push(join(scene, kind, Some(a), b, frame(root + at, axis)));
    };
    link(scene, cone(0.6, 0.5), torso, head, Vec3::new(0.0, 1.62, 0.0), Vec3::Y);
    for (side, name) in [(-1.0f32, "left"), (1.0, "right")] {
        let upper_arm = body(
            scene,
            &format!("{name} upper arm"),
            capsule(0.13, 0.05),
            Vec3::new(side * 0.38, 1.45, 0.0),
            sideways,
        );
        let forearm = body(
            scene,
            &format!("{name} forearm"),
            capsule(0.12, 0.045),
            Vec3::new(side * 0.72, 1.45, 0.0),
            sideways,
        );
        link(scene, cone(1.2, 0.8), torso, upper_arm, Vec3::new(side * 0.2, 1.45, 0.0), Vec3::X * side);
        link(scene, elbow, upper_arm, forearm, Vec3::new(side * 0.55, 1.45, 0.0), Vec3::Z);
        let thigh = body(
            scene,
            &format!("{name} thigh"),
            capsule(0.18, 0.07),
            Vec3::new(side * 0.1, 0.7, 0.0),
            Quat::IDENTITY,
        );
        let shin = body(
            scene,
            &format!("{name} shin"),
            capsule(0.17, 0.06),
            Vec3::new(side * 0.1, 0.24, 0.0),
            Quat::IDENTITY,
        );
        link(scene, cone(0.9, 0.4), torso, thigh, Vec3::new(side * 0.1, 0.95, 0.0), -Vec3::Y);
        link(scene, knee, thigh, shin, Vec3::new(side * 0.1, 0.47, 0.0), Vec3::X);
    }
    (bodies, joints)
}

/// `count` ragdolls dropped in layers of four onto a flight of stairs, each turned its own
/// way, to pile up.
pub fn ragdoll_pile(count: usize) -> Scene {
    let mut scene = Scene::new(format!("Ragdoll pile ({count} ragdolls)"));
    ground(&mut scene);
    for step in 0..8 {
        let (w, h) = (0.5, 0.25);
        // Each stair rises `h` above the one before, from the ground up.
        let half = Vec3::new(w / 2.0, h * (step as f32 + 1.0) / 2.0, 2.5);
        let center = Vec3::new(2.0 + step as f32 * w, half.y, 0.0);
        let stair = SceneBody::new(BodyType::Static, SceneShape::Box { half_extents: half }, center);
        add(&mut scene, format!("stair {step}"), stair);
    }
    for k in 0..count {
        // A ragdoll fits in a ball of radius 1 about its hips, so 2.1 m apart they never
        // start overlapping, however each is turned.
        let (i, j, layer) = (k % 2, (k / 2) % 2, k / 4);
        let hips = Vec3::new(2.8 + 2.1 * i as f32, 3.5 + 2.1 * layer as f32, -1.05 + 2.1 * j as f32);
        let root = hips - Vec3::Y;
        let (bodies, _) = add_ragdoll(&mut scene, root, &format!("ragdoll {k}"));
        let turn = Quat::from_rotation_y(k as f32 * 2.1) * Quat::from_rotation_x(0.7 * k as f32);
        turn_about(&mut scene, &bodies, hips, turn);
    }
    scene.view = Some(SceneView { target: Vec3::new(3.6, 1.6, 0.0), yaw: 0.7, pitch: 0.35, distance: 10.0 });
    scene
}

/// Turns the bodies `bodies` (and so their joint frames, which are in the bodies' frames)
/// rigidly about `pivot`.
fn turn_about(scene: &mut Scene, bodies: &[usize], pivot: Vec3, turn: Quat) {
    for &i in bodies {
        let b = &mut scene.bodies[i];
        b.position = pivot + turn * (b.position - pivot);
        b.rotation = (turn * b.rotation).normalize();
    }
}

/// A door on a motorised hinge that swings open to its limit and pushes a row of balls, and a
/// spring-loaded door that a ball knocks open and that swings shut again.
pub fn motor_door() -> Scene {
    let mut scene = Scene::new("Doors: a motorised hinge and a spring hinge");
    ground(&mut scene);
    let door = SceneShape::Box { half_extents: Vec3::new(0.6, 1.0, 0.05) };
    for (k, x) in [(0, -3.0f32), (1, 3.0)] {
        let post = SceneBody::new(
            BodyType::Static,
            SceneShape::Box { half_extents: Vec3::new(0.1, 1.1, 0.1) },
            Vec3::new(x - 0.75, 1.1, 0.0),
        );
        let post = add(&mut scene, format!("post {k}"), post);
        let panel = add(
            &mut scene,
            format!("door {k}"),
            dynamic(door.clone(), Vec3::new(x, 1.05, 0.0), Quat::IDENTITY),
        );
        let kind = if k == 0 {
            JointKind::Revolute(RevoluteJoint {
                motor: Some(Motor::new(1.0, 150.0)),
                limits: Some(Limits::new(-0.1, 1.8)),
                ..Default::default()
            })
        } else {
            JointKind::Revolute(RevoluteJoint {
                spring: Some(Spring::new(1.0, 0.3)),
                limits: Some(Limits::new(-1.6, 1.6)),
                ..Default::default()
            })
        };
        join(&mut scene, kind, Some(post), panel, frame(Vec3::new(x - 0.65, 1.05, 0.0), Vec3::Y));
    }
    for k in 0..5 {
        let ball = dynamic(
            SceneShape::Sphere { radius: 0.2 },
            Vec3::new(-3.0 + 0.25 * k as f32, 0.2, -0.6 - 0.3 * (k % 2) as f32),
            Quat::IDENTITY,
        );
        add(&mut scene, format!("ball {k}"), ball);
    }
    let mut thrown = dynamic(SceneShape::Sphere { radius: 0.25 }, Vec3::new(3.2, 0.9, 3.0), Quat::IDENTITY);
    thrown.linear_velocity = Vec3::new(0.0, 1.0, -6.0);
    add(&mut scene, "thrown ball".into(), with_density(thrown, 3000.0));
    scene.view = Some(SceneView { target: Vec3::new(0.0, 1.0, 0.0), yaw: 0.45, pitch: 0.4, distance: 10.5 });
    scene
}

/// A four-wheeled vehicle: a box chassis on wheel joints (spin about the axle, suspension
/// springs with limits), the rear wheels driven, crossing a row of bumps.
pub fn vehicle() -> Scene {
    let mut scene = Scene::new("Vehicle on wheel joints over bumps");
    ground(&mut scene);
    for k in 0..6 {
        let bump = SceneBody {
            rotation: Quat::from_rotation_x(PI / 2.0),
            ..SceneBody::new(
                BodyType::Static,
                SceneShape::Capsule { half_height: 2.0, radius: 0.12 },
                Vec3::new(4.0 + 3.0 * k as f32, 0.0, 0.0),
            )
        };
        add(&mut scene, format!("bump {k}"), bump);
    }
    add_vehicle(&mut scene, Vec3::new(-4.0, 1.0, 0.0), "car", -10.0);
    scene.view = Some(SceneView { target: Vec3::new(2.0, 0.8, 0.0), yaw: 0.35, pitch: 0.3, distance: 12.0 });
    scene
}

/// Adds a vehicle whose chassis centre is at `at`, driving along +X with its rear wheels'
/// motors asking `spin` rad/s (negative rolls forward). Returns the chassis index.
pub fn add_vehicle(scene: &mut Scene, at: Vec3, label: &str, spin: f32) -> usize {
    let body = dynamic(SceneShape::Box { half_extents: Vec3::new(1.2, 0.25, 0.7) }, at, Quat::IDENTITY);
    // A light chassis (500 kg) on 180 kg wheels, like a buggy.
    add_wheels_to(scene, with_density(body, 300.0), label, spin)
}

/// A car whose chassis is one compound body of five shapes (a floor pan, a cabin, a sloping
/// windscreen and two bumpers) on four wheel joints, its rear wheels driven, running up a
/// ramp and into a wall of crates.
pub fn compound_car() -> Scene {
    let mut scene = Scene::new("Car: a compound chassis on four wheel joints");
    ground(&mut scene);
    let ramp = SceneBody {
        rotation: Quat::from_rotation_z(0.12),
        ..SceneBody::new(
            BodyType::Static,
            SceneShape::Box { half_extents: Vec3::new(2.5, 0.3, 2.0) },
            Vec3::new(4.0, 0.0, 0.0),
        )
    };
    add(&mut scene, "ramp".into(), ramp);
    for level in 0..3 {
        for k in 0..4 {
            let at = Vec3::new(12.0, 0.3 + 0.61 * level as f32, 0.61 * (k as f32 - 1.5));
            let crate_box = dynamic(SceneShape::Box { half_extents: Vec3::splat(0.3) }, at, Quat::IDENTITY);
            add(&mut scene, format!("crate {}", 4 * level + k), with_density(crate_box, 200.0));
        }
    }
    let steel = Material { density: 300.0, friction: 0.6, restitution: 0.0 };
    let part = |shape: SceneShape, position: Vec3, rotation: Quat| SceneChild {
        shape,
        position,
        rotation,
        material: steel,
        filter: Default::default(),
        sensor: None,
    };
    // A bumper is a capsule lying across the car (a capsule's axis is its y).
    let across = Quat::from_rotation_x(PI / 2.0);
    let bumper = SceneShape::Capsule { half_height: 0.55, radius: 0.1 };
    let mut chassis = dynamic(
        SceneShape::Box { half_extents: Vec3::new(1.2, 0.1, 0.7) },
        Vec3::new(-4.0, 0.9, 0.0),
        Quat::IDENTITY,
    );
    chassis.material = steel;
    chassis.children = vec![
        // The cabin is hollow: a lighter part than the pan and the bumpers.
        SceneChild {
            material: Material { density: 60.0, ..steel },
            ..part(
                SceneShape::Box { half_extents: Vec3::new(0.5, 0.25, 0.6) },
                Vec3::new(-0.35, 0.35, 0.0),
                Quat::IDENTITY,
            )
        },
        part(
            SceneShape::Box { half_extents: Vec3::new(0.3, 0.02, 0.6) },
            Vec3::new(0.33, 0.32, 0.0),
            Quat::from_rotation_z(-0.9),
        ),
        part(bumper.clone(), Vec3::new(1.3, 0.0, 0.0), across),
        part(bumper, Vec3::new(-1.3, 0.0, 0.0), across),
    ];
    add_wheels_to(&mut scene, chassis, "car", -12.0);
    scene.view = Some(SceneView { target: Vec3::new(5.5, 0.8, 0.0), yaw: 0.25, pitch: 0.35, distance: 17.0 });
    scene
}

/// Adds `chassis` (driving along +X) on four wheels, its rear wheels' motors asking `spin`
/// rad/s. Returns the chassis index.
fn add_wheels_to(scene: &mut Scene, chassis: SceneBody, label: &str, spin: f32) -> usize {
    let at = chassis.position;
    let chassis = add(scene, format!("{label} chassis"), chassis);
    for (k, (dx, dz)) in [(-0.9f32, -0.9f32), (-0.9, 0.9), (0.9, -0.9), (0.9, 0.9)].into_iter().enumerate() {
        let hub = at + Vec3::new(dx, -0.45, dz);
        let wheel = add(
            scene,
            format!("{label} wheel {k}"),
            dynamic(SceneShape::Sphere { radius: 0.35 }, hub, Quat::IDENTITY),
        );
        let rear = dx < 0.0;
        let kind = JointKind::Wheel(WheelJoint {
            motor: rear.then_some(Motor::new(spin, 800.0)),
            suspension: Some(Spring::new(4.0, 0.7)),
            suspension_limits: Some(Limits::new(-0.25, 0.1)),
        });
        let axle = JointFrame::with_axes(hub, Vec3::Z, Vec3::Y).expect("unit axes");
        let frames = (axle.in_body(&pose(scene, Some(chassis))), axle.in_body(&pose(scene, Some(wheel))));
        scene.joints.push(SceneJoint::new(
            kind,
            Some(BodyRef::Index(chassis)),
            BodyRef::Index(wheel),
            frames,
        ));
    }
    chassis
}

/// Five steel balls hung in a row from hinges, the first pulled back: a Newton's cradle. The
/// balls hang 3 cm apart rather than touching, so each collision is its own event that
/// restitution sees whole (touching balls share the blow in one solve and move off together).
pub fn newtons_cradle() -> Scene {
    let mut scene = Scene::new("Newton's cradle");
    ground(&mut scene);
    let (radius, length, top, gap) = (0.25f32, 1.5f32, 2.5f32, 0.03f32);
    let steel = Material { density: 7800.0, friction: 0.0, restitution: 1.0 };
    let hinge = JointKind::Revolute(RevoluteJoint::default());
    for k in 0..5 {
        let pivot = Vec3::new((k as f32 - 2.0) * (2.0 * radius + gap), top, 0.0);
        let angle = if k == 0 { -0.6f32 } else { 0.0 };
        let at = pivot + Vec3::new(length * angle.sin(), -length * angle.cos(), 0.0);
        let ball =
            SceneBody { material: steel, ..dynamic(SceneShape::Sphere { radius }, at, Quat::IDENTITY) };
        let ball = add(&mut scene, format!("ball {k}"), ball);
        join(&mut scene, hinge, None, ball, frame(pivot, Vec3::Z));
    }
    scene.view = Some(SceneView { target: Vec3::new(0.0, 1.6, 0.0), yaw: 0.25, pitch: 0.15, distance: 6.0 });
    scene
}

/// The joint grid benchmark: `n` × `n` balls in a vertical square (the XY plane), 1 m apart,
/// each joined to its right and upper neighbours by spherical joints (2·n·(n−1) joints); the
/// four corner balls are static, so the net hangs between them. (Laid flat, a net held only at
/// its corners falls freely until it is taut, tens of metres down, and then jerks: not a
/// steady load to measure.)
pub fn joint_grid(n: usize) -> Scene {
    let mut scene = Scene::new(format!("Joint grid ({n} × {n} balls)"));
    let at = |i: usize, j: usize| Vec3::new(i as f32 - (n - 1) as f32 / 2.0, 1.0 + j as f32, 0.0);
    let ball = SceneShape::Sphere { radius: 0.4 };
    for j in 0..n {
        for i in 0..n {
            let corner = (i == 0 || i == n - 1) && (j == 0 || j == n - 1);
            let body_type = if corner { BodyType::Static } else { BodyType::Dynamic };
            add(&mut scene, format!("ball {i},{j}"), SceneBody::new(body_type, ball.clone(), at(i, j)));
        }
    }
    let ball_joint = JointKind::Spherical(SphericalJoint::default());
    for j in 0..n {
        for i in 0..n {
            let here = j * n + i;
            if i + 1 < n {
                join(
                    &mut scene,
                    ball_joint,
                    Some(here),
                    here + 1,
                    frame((at(i, j) + at(i + 1, j)) / 2.0, Vec3::X),
                );
            }
            if j + 1 < n {
                join(
                    &mut scene,
                    ball_joint,
                    Some(here),
                    here + n,
                    frame((at(i, j) + at(i, j + 1)) / 2.0, Vec3::Y),
                );
            }
        }
    }
    scene
}

/// The long bridge benchmark: a bridge of `planks` hinged boards (0.5 m each) hung 40 m above
/// the ground, high enough that 400 of them, sagging and stretching, stay clear of it.
pub fn chain_bridge(planks: usize) -> Scene {
    let mut scene = Scene::new(format!("Chain bridge ({planks} planks)"));
    ground(&mut scene);
    add_bridge(&mut scene, planks, 40.0, 0.25);
    scene
}

/// The ragdoll rain benchmark: `count` ragdolls in a loose grid falling onto the ground.
pub fn ragdoll_rain(count: usize) -> Scene {
    let mut scene = Scene::new(format!("Ragdoll rain ({count} ragdolls)"));
    ground(&mut scene);
    let side = (count as f32).sqrt().ceil() as usize;
    for k in 0..count {
        let (i, j, layer) = (k % side, (k / side) % side, k / (side * side));
        let hips =
            Vec3::new(2.1 * i as f32 - side as f32, 2.0 + 2.1 * layer as f32, 2.1 * j as f32 - side as f32);
        let (bodies, _) = add_ragdoll(&mut scene, hips - Vec3::Y, &format!("ragdoll {k}"));
        turn_about(&mut scene, &bodies, hips, Quat::from_rotation_y(k as f32 * 0.7));
    }
    scene
}
