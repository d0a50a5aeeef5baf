//! The built-in scenes, generated here and written to `scenes/` by `atoll generate-scenes`.
//! A test checks the committed files equal what these functions produce.

use atoll_physics::{BodyType, KinematicMotion, Material, Quat, Scene, SceneBody, SceneShape, Vec3};
use std::path::Path;

/// Every built-in scene with its file name.
pub fn all() -> Vec<(&'static str, Scene)> {
    vec![
        ("plane_pyramid.ron", plane_pyramid(20)),
        ("pyramid_3d.ron", pyramid_3d(10)),
        ("tower.ron", tower(20)),
        ("rain.ron", rain(500)),
        ("dominoes.ron", dominoes(40)),
        ("ramp.ron", ramp()),
        ("pyramids_182.ron", pyramid_field(14, 13, 10)),
        ("stacks_500.ron", resting_stacks()),
        ("tumbler.ron", tumbler(2000)),
    ]
}

/// Writes every built-in scene into `dir`.
pub fn write_all(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, scene) in all() {
        let path = dir.join(file);
        scene.save(&path).map_err(|e| e.to_string())?;
        println!("wrote {} ({} bodies)", path.display(), scene.bodies.len());
    }
    Ok(())
}

const BOX_HALF: f32 = 0.5;
/// Gap between neighbouring boxes in a row, so rows rest on the row below rather than
/// leaning on their neighbours.
const GAP: f32 = 0.02;

fn ground(scene: &mut Scene) {
    let mut floor = SceneBody::new(
        BodyType::Static,
        SceneShape::Box { half_extents: Vec3::new(60.0, 0.5, 60.0) },
        Vec3::new(0.0, -0.5, 0.0),
    );
    floor.name = "ground".into();
    scene.bodies.push(floor);
}

fn unit_box(name: String, position: Vec3) -> SceneBody {
    let mut b =
        SceneBody::new(BodyType::Dynamic, SceneShape::Box { half_extents: Vec3::splat(BOX_HALF) }, position);
    b.name = name;
    b
}

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

/// `count` small boxes inside a closed hollow box (six kinematic walls) that turns about Z at
/// a steady 0.25 rad/s: islands merge and split all the time.
pub fn tumbler(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Tumbler ({count} boxes)"));
    ground(&mut scene);
    let inner = 6.0f32;
    let wall = 0.25f32;
    let pivot = Vec3::new(0.0, inner + 2.0, 0.0);
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
        w.motion = Some(KinematicMotion::Rotate { pivot, angular_velocity: Vec3::new(0.0, 0.0, 0.25) });
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

/// A small deterministic generator (64-bit LCG) so scenes never depend on a random crate.
struct Lcg(u64);

impl Lcg {
    fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    fn rotation(&mut self) -> Quat {
        let axis = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
        Quat::from_axis_angle(axis.normalize_or(Vec3::Y), self.range(0.0, std::f32::consts::TAU))
    }
}

/// `count` mixed shapes (spheres, capsules, boxes, rock hulls) dropped on a floor.
pub fn rain(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Rain ({count} mixed shapes)"));
    ground(&mut scene);
    // A low wall around the drop zone keeps rolling balls in view (nothing damps rolling).
    for (name, half, position) in [
        ("wall -x", Vec3::new(0.25, 1.0, 12.0), Vec3::new(-12.25, 1.0, 0.0)),
        ("wall +x", Vec3::new(0.25, 1.0, 12.0), Vec3::new(12.25, 1.0, 0.0)),
        ("wall -z", Vec3::new(12.5, 1.0, 0.25), Vec3::new(0.0, 1.0, -12.25)),
        ("wall +z", Vec3::new(12.5, 1.0, 0.25), Vec3::new(0.0, 1.0, 12.25)),
    ] {
        let mut wall = SceneBody::new(BodyType::Static, SceneShape::Box { half_extents: half }, position);
        wall.name = name.into();
        scene.bodies.push(wall);
    }
    let mut rng = Lcg(0x5eed_a7011);
    let per_side = 10;
    for i in 0..count {
        let (x, z, y) = (i % per_side, (i / per_side) % per_side, i / (per_side * per_side));
        let position = Vec3::new(
            (x as f32 - 4.5) * 1.6 + rng.range(-0.2, 0.2),
            4.0 + y as f32 * 1.6,
            (z as f32 - 4.5) * 1.6 + rng.range(-0.2, 0.2),
        );
        let (kind, shape) = match i % 4 {
            0 => ("sphere", SceneShape::Sphere { radius: rng.range(0.25, 0.5) }),
            1 => (
                "capsule",
                SceneShape::Capsule { half_height: rng.range(0.2, 0.4), radius: rng.range(0.15, 0.3) },
            ),
            2 => (
                "box",
                SceneShape::Box {
                    half_extents: Vec3::new(rng.range(0.2, 0.5), rng.range(0.2, 0.5), rng.range(0.2, 0.5)),
                },
            ),
            _ => ("rock", SceneShape::Hull { points: rock(&mut rng) }),
        };
        let mut body = SceneBody::new(BodyType::Dynamic, shape, position);
        body.name = format!("{kind} {i}");
        body.rotation = rng.rotation();
        scene.bodies.push(body);
    }
    scene
}

/// A rough rock: points on a sphere of radius 0.4 pushed in and out.
fn rock(rng: &mut Lcg) -> Vec<Vec3> {
    (0..14)
        .map(|_| {
            let dir = Vec3::new(rng.range(-1.0, 1.0), rng.range(-1.0, 1.0), rng.range(-1.0, 1.0))
                .normalize_or(Vec3::X);
            dir * rng.range(0.3, 0.45)
        })
        .collect()
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_scenes_match_the_generators() {
        let dir = crate::cli::scenes_dir();
        for (file, scene) in all() {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                text,
                scene.to_ron_string(),
                "{file} is stale: run `cargo run -- generate-scenes scenes`"
            );
            assert_eq!(Scene::from_ron_str(&text).unwrap(), scene, "{file} does not round-trip");
        }
    }

    #[test]
    fn scene_sizes() {
        assert_eq!(plane_pyramid(20).bodies.len(), 1 + 210);
        assert_eq!(pyramid_3d(10).bodies.len(), 1 + 385);
        assert_eq!(tower(20).bodies.len(), 21);
        assert_eq!(rain(500).bodies.len(), 505);
        assert_eq!(pyramid_field(14, 13, 10).bodies.len(), 1 + 10_010);
        assert_eq!(resting_stacks().bodies.len(), 1 + 500);
        assert_eq!(tumbler(2000).bodies.len(), 1 + 6 + 2000);
    }
}
