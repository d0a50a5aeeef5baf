//! Scenes about motion: a rotating tumbler and a ramp of balls.

use super::ground;
use crate::body::{BodyType, KinematicMotion, Material};
use crate::math::{Quat, Vec3};
use crate::scene::{Scene, SceneBody, SceneShape};

/// Inner half width (m) of the hollow box of [`tumbler`].
pub const TUMBLER_HALF_WIDTH: f32 = 6.0;
/// The point the box of [`tumbler`] turns about: its centre, 2 m above its resting height.
pub const TUMBLER_PIVOT: Vec3 = Vec3::new(0.0, TUMBLER_HALF_WIDTH + 2.0, 0.0);
/// The tumbler's angular velocity (rad/s) about Z.
pub const TUMBLER_SPIN: f32 = 0.25;

/// `count` small boxes inside a closed hollow box (six kinematic walls) that turns about Z at
/// a steady 0.25 rad/s: islands merge and split all the time.
pub fn tumbler(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Tumbler ({count} boxes)"));
    ground(&mut scene);
    let inner = TUMBLER_HALF_WIDTH;
    let wall = 0.25f32;
    let pivot = TUMBLER_PIVOT;
    let outer = inner + 2.0 * wall;
    let walls = [
        ("wall -x", Vec3::new(-(inner + wall), 0.0, 0.0), Vec3::new(wall, outer, outer)),
        ("wall +x", Vec3::new(inner + wall, 0.0, 0.0), Vec3::new(wall, outer, outer)),
        ("wall -y", Vec3::new(0.0, -(inner + wall), 0.0), Vec3::new(inner, wall, inner)),
        ("wall +y", Vec3::new(0.0, inner + wall, 0.0), Vec3::new(inner, wall, inner)),
        ("wall -z", Vec3::new(0.0, 0.0, -(inner + wall)), Vec3::new(inner, outer, wall)),
        ("wall +z", Vec3::new(0.0, 0.0, inner + wall), Vec3::new(inner, outer, wall)),
    ];
    for (name, offset, half) in walls {
        let mut w =
            SceneBody::new(BodyType::Kinematic, SceneShape::Box { half_extents: half }, pivot + offset);
        w.name = name.into();
        w.motion =
            Some(KinematicMotion::Rotate { pivot, angular_velocity: Vec3::new(0.0, 0.0, TUMBLER_SPIN) });
        scene.bodies.push(w);
    }
    let (nx, ny) = (10u32, 20u32);
    for i in 0..count {
        let (x, y, z) = (i % nx, (i / nx) % ny, i / (nx * ny));
        let p = pivot + Vec3::new((x as f32 - 4.5) * 0.5, (y as f32 - 9.5) * 0.5, (z as f32 - 4.5) * 0.5);
        let mut b = SceneBody::new(BodyType::Dynamic, SceneShape::Box { half_extents: Vec3::splat(0.2) }, p);
        b.name = format!("box {i}");
        scene.bodies.push(b);
    }
    scene
}

/// A 20° ramp with balls of different friction and restitution side by side.
pub fn ramp() -> Scene {
    let mut scene = Scene::new("Ramp: friction and restitution");
    ground(&mut scene);
    let angle = 20f32.to_radians();
    let rotation = Quat::from_rotation_z(-angle);
    let half = Vec3::new(8.0, 0.25, 4.0);
    let center = Vec3::new(-2.0, 3.5, 0.0);
    let mut ramp = SceneBody::new(BodyType::Static, SceneShape::Box { half_extents: half }, center);
    ramp.name = "ramp".into();
    ramp.rotation = rotation;
    scene.bodies.push(ramp);
    let surface_normal = rotation * Vec3::Y;
    let uphill = rotation * Vec3::NEG_X;
    let settings = [(0.0, 0.0), (0.1, 0.3), (0.4, 0.6), (1.0, 0.9)];
    for (k, (friction, restitution)) in settings.into_iter().enumerate() {
        let radius = 0.4;
        let z = -3.0 + k as f32 * 2.0;
        let on_surface = center + surface_normal * (half.y + radius) + uphill * 6.0 + Vec3::new(0.0, 0.0, z);
        let mut ball = SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius }, on_surface);
        ball.name = format!("ball friction {friction} restitution {restitution}");
        ball.material = Material { density: 1000.0, friction, restitution };
        let material = ball.material;
        scene.bodies.push(ball);
        // A second ball of each kind dropped from above, to show the bounce.
        let mut dropped =
            SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius }, Vec3::new(8.0, 6.0, z));
        dropped.name = format!("dropped ball restitution {restitution}");
        dropped.material = material;
        scene.bodies.push(dropped);
    }
    scene
}
