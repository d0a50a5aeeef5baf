//! Compound bodies: tables, chairs and shelves, each one rigid body of several boxes
//! (`SceneBody::children`): a room of them knocked over by a rolling ball, and the benchmark's
//! pile of tables.

use super::ground;
use crate::body::BodyType;
use crate::material::Material;
use crate::math::{Quat, Vec3};
use crate::scene::child::SceneChild;
use crate::scene::{Scene, SceneBody, SceneShape, SceneView};

/// Wood, as the furniture is made of: 700 kg/m³.
const WOOD: Material = Material { density: 700.0, friction: 0.6, restitution: 0.0 };

/// A box part at `position` in its body's frame, of wood.
fn part(half_extents: Vec3, position: Vec3) -> SceneChild {
    SceneChild {
        shape: SceneShape::Box { half_extents },
        position,
        rotation: Quat::IDENTITY,
        material: WOOD,
        filter: Default::default(),
        sensor: None,
    }
}

/// A dynamic wooden body whose own shape is a box of `half_extents`, with `parts` beside it.
fn furniture(
    name: String,
    half_extents: Vec3,
    parts: Vec<SceneChild>,
    position: Vec3,
    rotation: Quat,
) -> SceneBody {
    let mut body = SceneBody::new(BodyType::Dynamic, SceneShape::Box { half_extents }, position);
    body.name = name;
    body.rotation = rotation;
    body.material = WOOD;
    body.children = parts;
    body
}

/// Height of a table's top above its feet, to the top's middle.
pub const TABLE_HEIGHT: f32 = 0.75;

/// A table of five boxes: a 1.2 × 0.06 × 0.8 m top (the body's own shape, at its origin) on
/// four legs 0.72 m long. `position` is the top's middle.
pub fn table(name: impl Into<String>, position: Vec3, rotation: Quat) -> SceneBody {
    let leg = Vec3::new(0.03, 0.36, 0.03);
    let legs = [(-0.55, -0.35), (0.55, -0.35), (-0.55, 0.35), (0.55, 0.35)]
        .map(|(x, z)| part(leg, Vec3::new(x, -(0.03 + 0.36), z)))
        .to_vec();
    furniture(name.into(), Vec3::new(0.6, 0.03, 0.4), legs, position, rotation)
}

/// A chair of six boxes: a 0.45 m square seat at 0.45 m (its own shape), four legs and a back.
/// `position` is the seat's middle; the back is towards −z in its frame.
pub fn chair(name: impl Into<String>, position: Vec3, rotation: Quat) -> SceneBody {
    let leg = Vec3::new(0.02, 0.215, 0.02);
    let mut parts: Vec<SceneChild> = [(-0.2, -0.2), (0.2, -0.2), (-0.2, 0.2), (0.2, 0.2)]
        .map(|(x, z)| part(leg, Vec3::new(x, -(0.02 + 0.215), z)))
        .to_vec();
    parts.push(part(Vec3::new(0.225, 0.25, 0.02), Vec3::new(0.0, 0.02 + 0.25, -0.205)));
    furniture(name.into(), Vec3::new(0.225, 0.02, 0.225), parts, position, rotation)
}

/// A shelf of five boxes: a middle board (its own shape), a board above and below it, between
/// two uprights 1.6 m tall. `position` is the middle board's middle, 0.8 m above the feet.
pub fn shelf(name: impl Into<String>, position: Vec3, rotation: Quat) -> SceneBody {
    let board = Vec3::new(0.5, 0.02, 0.15);
    let upright = Vec3::new(0.02, 0.8, 0.15);
    let parts = vec![
        part(board, Vec3::new(0.0, -0.7, 0.0)),
        part(board, Vec3::new(0.0, 0.7, 0.0)),
        part(upright, Vec3::new(-0.52, 0.0, 0.0)),
        part(upright, Vec3::new(0.52, 0.0, 0.0)),
    ];
    furniture(name.into(), board, parts, position, rotation)
}

/// A room of furniture (two tables, six chairs, two shelves with books on them) and a heavy
/// ball rolling into it at 7 m/s.
pub fn furniture_room() -> Scene {
    let mut scene = Scene::new("Furniture room");
    ground(&mut scene);
    let turn = |angle: f32| Quat::from_rotation_y(angle);
    for (k, x) in [0.0f32, 2.6].into_iter().enumerate() {
        scene.bodies.push(table(format!("table {k}"), Vec3::new(x, TABLE_HEIGHT, 0.0), Quat::IDENTITY));
        for (j, (dz, angle)) in [(-0.75f32, 0.0f32), (0.75, std::f32::consts::PI)].into_iter().enumerate() {
            let name = format!("chair {}", 2 * k + j);
            scene.bodies.push(chair(name, Vec3::new(x, 0.45, dz), turn(angle)));
        }
    }
    for (k, x) in [-0.9f32, 3.5].into_iter().enumerate() {
        let name = format!("chair {}", 4 + k);
        scene.bodies.push(chair(
            name,
            Vec3::new(x, 0.45, 0.0),
            turn(std::f32::consts::FRAC_PI_2 * (1.0 - 2.0 * k as f32)),
        ));
    }
    for (k, x) in [0.3f32, 2.3].into_iter().enumerate() {
        scene.bodies.push(shelf(format!("shelf {k}"), Vec3::new(x, 0.8, -1.8), Quat::IDENTITY));
        for (j, y) in [0.12f32, 0.82, 1.52].into_iter().enumerate() {
            let mut book = SceneBody::new(
                BodyType::Dynamic,
                SceneShape::Box { half_extents: Vec3::new(0.1, 0.1, 0.08) },
                Vec3::new(x - 0.2 + 0.2 * j as f32, y + 0.1 + 0.002, -1.8),
            );
            book.name = format!("book {}", 3 * k + j);
            scene.bodies.push(book);
        }
    }
    let mut ball =
        SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.35 }, Vec3::new(-7.0, 0.35, 0.0));
    ball.name = "ball".into();
    ball.material = Material { density: 4000.0, ..Material::default() };
    ball.linear_velocity = Vec3::new(7.0, 0.0, 0.0);
    ball.angular_velocity = Vec3::new(0.0, 0.0, -7.0 / 0.35);
    scene.bodies.push(ball);
    // From in front and to the ball's side, the room and the ball's run-up in view.
    scene.view =
        Some(SceneView { target: Vec3::new(0.9, 0.5, -0.9), yaw: -0.45, pitch: 0.42, distance: 6.0 });
    scene
}

/// `count` tables dropped in a pile: columns on a square grid, ten tables high, each turned
/// its own way so they land on each other's edges and legs (the benchmark's compound scene).
pub fn table_pile(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Table pile ({count} tables)"));
    ground(&mut scene);
    let columns = count.div_ceil(10).max(1);
    let side = (columns as f32).sqrt().ceil() as u32;
    for i in 0..count {
        let (column, layer) = (i % columns, i / columns);
        let (cx, cz) = (column % side, column / side);
        let position = Vec3::new(
            (cx as f32 - 0.5 * (side - 1) as f32) * 1.6,
            1.0 + layer as f32 * 0.9,
            (cz as f32 - 0.5 * (side - 1) as f32) * 1.6,
        );
        // A golden-angle turn about a tilted axis: no two tables alike, the same every run.
        let angle = i as f32 * 2.399_963;
        let axis = Vec3::new(angle.cos() * 0.3, 1.0, angle.sin() * 0.3).normalize();
        scene.bodies.push(table(format!("table {i}"), position, Quat::from_axis_angle(axis, angle)));
    }
    scene
}
