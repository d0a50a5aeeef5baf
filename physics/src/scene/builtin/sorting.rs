//! A sorting machine of collision filters and sensors: balls of three categories fall through
//! two tilted chutes, each of which only its own colour collides with, and are counted by a
//! sensor over the floor where their chute drops them.

use super::ground;
use crate::body::BodyType;
use crate::filter::CollisionFilter;
use crate::math::{Quat, Vec3};
use crate::scene::{Scene, SceneBody, SceneShape, SceneView};
use crate::sensor::Sensor;

/// The balls' categories (bits 1 to 3; the ground and the walls are category 1), with the
/// colour each is drawn in and the name of its kind.
pub const SORTED_KINDS: [(u64, [u8; 3], &str); 3] =
    [(1 << 1, [220, 70, 60], "red"), (1 << 2, [70, 190, 90], "green"), (1 << 3, [70, 110, 230], "blue")];

/// Where each kind lands, as the x range its counting sensor covers (red off the first chute
/// to +x, green off the second to -x, blue straight through to the middle; dividers at
/// x = ±3.1 and a fence at ±14.5 keep them there).
pub const SORTED_BINS: [(f32, f32); 3] = [(3.2, 14.25), (-14.25, -3.2), (-3.0, 3.0)];

/// `count` balls of the three kinds over two chutes: the red chute (only red balls collide
/// with it) tips them to +x, the green chute below to -x, and blue balls fall through both.
/// Three sensors over the floor, each seeing only its kind, count the arrivals.
pub fn sorting_machine(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Sorting machine: filters and sensors ({count} balls)"));
    ground(&mut scene);
    // The whole machine, from the drop to the bins, from the front and a little above.
    scene.view = Some(SceneView { target: Vec3::new(0.0, 4.5, 0.0), yaw: 0.35, pitch: 0.4, distance: 34.0 });
    let chute = |name: &str, y: f32, tilt: f32, kind: usize| {
        let (category, colour, _) = SORTED_KINDS[kind];
        let mut c = SceneBody::new(
            BodyType::Static,
            SceneShape::Box { half_extents: Vec3::new(3.0, 0.1, 3.0) },
            Vec3::new(0.0, y, 0.0),
        );
        c.name = name.into();
        c.rotation = Quat::from_rotation_z(tilt);
        // Only its own kind: the chute's mask holds that one category.
        c.filter = CollisionFilter { category: 1 << 4, mask: category, group: 0 };
        c.colour = Some(colour.map(|v| v / 2 + 60));
        c
    };
    scene.bodies.push(chute("red chute", 9.0, -0.3, 0));
    scene.bodies.push(chute("green chute", 5.0, 0.3, 1));
    // A fence round the floor and two low dividers between the middle bin and the outer ones,
    // so that a ball stays in the bin it rolled into.
    let walls = [
        ("fence +x", Vec3::new(14.5, 0.5, 0.0), Vec3::new(0.25, 0.5, 6.75)),
        ("fence -x", Vec3::new(-14.5, 0.5, 0.0), Vec3::new(0.25, 0.5, 6.75)),
        ("fence +z", Vec3::new(0.0, 0.5, 6.5), Vec3::new(14.25, 0.5, 0.25)),
        ("fence -z", Vec3::new(0.0, 0.5, -6.5), Vec3::new(14.25, 0.5, 0.25)),
        ("divider +x", Vec3::new(3.1, 0.3, 0.0), Vec3::new(0.1, 0.3, 6.25)),
        ("divider -x", Vec3::new(-3.1, 0.3, 0.0), Vec3::new(0.1, 0.3, 6.25)),
    ];
    for (name, at, half) in walls {
        let mut w = SceneBody::new(BodyType::Static, SceneShape::Box { half_extents: half }, at);
        w.name = name.into();
        scene.bodies.push(w);
    }
    for (kind, &(category, colour, name)) in SORTED_KINDS.iter().enumerate() {
        let (from, to) = SORTED_BINS[kind];
        let half = Vec3::new((to - from) / 2.0, 1.0, 6.0);
        let mut bin = SceneBody::new(
            BodyType::Static,
            SceneShape::Box { half_extents: half },
            Vec3::new((from + to) / 2.0, 1.0, 0.0),
        );
        bin.name = format!("{name} counter");
        bin.sensor = Some(Sensor::default());
        // It sees its kind only.
        bin.filter = CollisionFilter { category: 1 << 5, mask: category, group: 0 };
        bin.colour = Some(colour);
        scene.bodies.push(bin);
    }
    for i in 0..count {
        let kind = (i % 3) as usize;
        let (category, colour, name) = SORTED_KINDS[kind];
        let (x, z, layer) = ((i % 6) as f32, ((i / 6) % 6) as f32, (i / 36) as f32);
        let at = Vec3::new(x * 0.9 - 2.25, 13.0 + layer * 0.9, z * 0.9 - 2.25);
        let mut ball = SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.3 }, at);
        ball.name = format!("{name} ball {i}");
        ball.filter = CollisionFilter { category, mask: u64::MAX, group: 0 };
        // A little damping, so the balls come to rest in their bins rather than roll on.
        ball.linear_damping = 0.4;
        ball.angular_damping = 0.4;
        ball.colour = Some(colour);
        scene.bodies.push(ball);
    }
    scene
}
