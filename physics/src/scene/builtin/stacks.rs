//! Stacks and pyramids of unit boxes, and a row of dominoes.

use super::{BOX_HALF, GAP, ground, unit_box};
use crate::body::BodyType;
use crate::math::Vec3;
use crate::scene::{Scene, SceneBody, SceneShape};

/// A triangle of boxes in the XY plane with `base` boxes in its bottom row.
pub fn plane_pyramid(base: u32) -> Scene {
    let mut scene = Scene::new(format!("Plane pyramid (base {base})"));
    ground(&mut scene);
    let pitch = 2.0 * BOX_HALF + GAP;
    for row in 0..base {
        let count = base - row;
        for i in 0..count {
            let x = (i as f32 - (count - 1) as f32 * 0.5) * pitch;
            let y = BOX_HALF + row as f32 * 2.0 * BOX_HALF;
            scene.bodies.push(unit_box(format!("box r{row} i{i}"), Vec3::new(x, y, 0.0)));
        }
    }
    scene
}

/// A grid of `columns × rows` plane pyramids of base `base`, far enough apart that each is its
/// own island: the island-management benchmark (14 × 13 of base 10 is 10 010 boxes).
pub fn pyramid_field(columns: u32, rows: u32, base: u32) -> Scene {
    let mut scene = Scene::new(format!("{} plane pyramids of base {base}", columns * rows));
    let pitch = 2.0 * BOX_HALF + GAP;
    let spacing = base as f32 * pitch + 3.0;
    let half = Vec3::new(columns as f32 * spacing * 0.5 + 10.0, 0.5, rows as f32 * 2.0 + 10.0);
    let mut floor =
        SceneBody::new(BodyType::Static, SceneShape::Box { half_extents: half }, Vec3::new(0.0, -0.5, 0.0));
    floor.name = "ground".into();
    scene.bodies.push(floor);
    for c in 0..columns {
        for r in 0..rows {
            let origin = Vec3::new(
                (c as f32 - (columns - 1) as f32 * 0.5) * spacing,
                0.0,
                (r as f32 - (rows - 1) as f32 * 0.5) * 4.0,
            );
            for row in 0..base {
                let count = base - row;
                for i in 0..count {
                    let x = (i as f32 - (count - 1) as f32 * 0.5) * pitch;
                    let p = origin + Vec3::new(x, BOX_HALF + row as f32 * 2.0 * BOX_HALF, 0.0);
                    scene.bodies.push(unit_box(format!("pyramid {c},{r} box r{row} i{i}"), p));
                }
            }
        }
    }
    scene
}

/// 500 bodies: 48 stacks of 10 boxes that settle and sleep, and 20 balls that never may, so the
/// step's cost with sleeping shows against the same scene without it.
pub fn resting_stacks() -> Scene {
    let mut scene = Scene::new("48 resting stacks and 20 restless balls");
    ground(&mut scene);
    for s in 0..48u32 {
        let base = Vec3::new((s % 8) as f32 * 3.0 - 10.5, 0.0, (s / 8) as f32 * 3.0 - 7.5);
        for i in 0..10 {
            let p = base + Vec3::new(0.0, BOX_HALF + i as f32 * 2.0 * BOX_HALF, 0.0);
            scene.bodies.push(unit_box(format!("stack {s} box {i}"), p));
        }
    }
    for b in 0..20u32 {
        let p = Vec3::new(b as f32 * 1.5 - 14.25, 0.5, 12.0);
        let mut ball = SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.5 }, p);
        ball.name = format!("restless ball {b}");
        ball.can_sleep = false;
        ball.linear_velocity = Vec3::new(0.0, 0.0, if b % 2 == 0 { 1.0 } else { -1.0 });
        scene.bodies.push(ball);
    }
    scene
}

/// A square pyramid of boxes: layer k holds (layers - k)² boxes.
pub fn pyramid_3d(layers: u32) -> Scene {
    let mut scene = Scene::new(format!("3D pyramid ({layers} layers)"));
    ground(&mut scene);
    let pitch = 2.0 * BOX_HALF + GAP;
    for layer in 0..layers {
        let n = layers - layer;
        let offset = (n - 1) as f32 * 0.5;
        for i in 0..n {
            for k in 0..n {
                let p = Vec3::new(
                    (i as f32 - offset) * pitch,
                    BOX_HALF + layer as f32 * 2.0 * BOX_HALF,
                    (k as f32 - offset) * pitch,
                );
                scene.bodies.push(unit_box(format!("box l{layer} {i},{k}"), p));
            }
        }
    }
    scene
}

/// A single column of `count` boxes.
pub fn tower(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Tower ({count} boxes)"));
    ground(&mut scene);
    for i in 0..count {
        scene
            .bodies
            .push(unit_box(format!("box {i}"), Vec3::new(0.0, BOX_HALF + i as f32 * 2.0 * BOX_HALF, 0.0)));
    }
    scene
}

/// A row of `count` dominoes along +X; the first one is tipped over.
pub fn dominoes(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Domino row ({count})"));
    ground(&mut scene);
    let half = Vec3::new(0.1, 1.0, 0.5);
    for i in 0..count {
        let mut d = SceneBody::new(
            BodyType::Dynamic,
            SceneShape::Box { half_extents: half },
            Vec3::new(i as f32 * 1.0 - count as f32 * 0.5, half.y, 0.0),
        );
        d.name = format!("domino {i}");
        if i == 0 {
            d.angular_velocity = Vec3::new(0.0, 0.0, -2.0);
        }
        scene.bodies.push(d);
    }
    scene
}
