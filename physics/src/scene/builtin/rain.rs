//! Rain: many bodies dropped from a grid of heights onto a floor fenced by walls.

use super::{ground, ground_slab, static_wall};
use crate::body::BodyType;
use crate::math::{Quat, Vec3};
use crate::scene::{Scene, SceneBody, SceneShape};

/// A small deterministic generator (64-bit LCG) so scenes never depend on a random crate.
pub(super) struct Lcg(pub(super) u64);

impl Lcg {
    fn next_f32(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    pub(super) fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.next_f32()
    }

    pub(super) fn rotation(&mut self) -> Quat {
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
        scene.bodies.push(static_wall(name, half, position));
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
        scene.bodies.push(mixed_body(i, position, &mut rng));
    }
    scene
}

/// Body `i` of a mixed rain at `position`: a sphere, capsule, box or rock hull in turn, with
/// sizes and a rotation drawn from `rng`.
pub(super) fn mixed_body(i: u32, position: Vec3, rng: &mut Lcg) -> SceneBody {
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
        _ => ("rock", SceneShape::Hull { points: rock(rng) }),
    };
    let mut body = SceneBody::new(BodyType::Dynamic, shape, position);
    body.name = format!("{kind} {i}");
    body.rotation = rng.rotation();
    body
}

/// Inner half width (m) of the square bin of [`rain_boxes_balls`]: every body that stays in the
/// bin keeps its centre within this distance of the Y axis along X and Z.
pub const RAIN_BIN_HALF_WIDTH: f32 = 9.0;

/// `count` bodies, boxes and balls in turn, dropped from a grid of 12 × 12 columns into a
/// square bin with walls 8 m high (the benchmark rain: only the shapes both benchmarked
/// engines treat alike). Box half sizes and ball radii lie between 0.25 and 0.45 m; the layers
/// start 2 m up, 1.1 m apart, so 2000 bodies start up to 16.3 m high.
pub fn rain_boxes_balls(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Rain of boxes and balls ({count})"));
    ground(&mut scene);
    let (inner, wall, height) = (RAIN_BIN_HALF_WIDTH, 0.25f32, 4.0f32);
    let side = inner + wall;
    for (name, half, position) in [
        ("wall -x", Vec3::new(wall, height, side), Vec3::new(-side, height, 0.0)),
        ("wall +x", Vec3::new(wall, height, side), Vec3::new(side, height, 0.0)),
        ("wall -z", Vec3::new(inner, height, wall), Vec3::new(0.0, height, -side)),
        ("wall +z", Vec3::new(inner, height, wall), Vec3::new(0.0, height, side)),
    ] {
        scene.bodies.push(static_wall(name, half, position));
    }
    let mut rng = Lcg(0xba11_b0c5);
    let (per_side, pitch) = (12u32, 1.1f32);
    let offset = (per_side - 1) as f32 * 0.5;
    for i in 0..count {
        let (x, z, y) = (i % per_side, (i / per_side) % per_side, i / (per_side * per_side));
        let position = Vec3::new(
            (x as f32 - offset) * pitch + rng.range(-0.05, 0.05),
            2.0 + y as f32 * pitch,
            (z as f32 - offset) * pitch + rng.range(-0.05, 0.05),
        );
        let body = box_or_ball(&mut rng, i, position);
        scene.bodies.push(body);
    }
    scene
}

/// Half the width of the square [`free_fall`] scatters its bodies over (the ground's half width).
pub const FREE_FALL_HALF_WIDTH: f32 = 55.0;

/// `count` boxes and balls scattered far apart over a 110 m square, from 10 m to 300 m up,
/// thrown sideways and down at up to 15 m/s: bodies that move fast every step and rarely
/// touch, where finding pairs and updating proxies, not solving, is the step's work. The
/// lowest land on the ground within the first seconds; most are still falling after five. The
/// ground is a 10 m slab (top at 0), so a body landing at 60 m/s cannot pass through it in one
/// step even in an engine without continuous collision.
pub fn free_fall(count: u32) -> Scene {
    let mut scene = Scene::new(format!("Free fall ({count} bodies far apart)"));
    ground_slab(&mut scene, 5.0);
    let mut rng = Lcg(0xfa11_0f5e);
    let w = FREE_FALL_HALF_WIDTH;
    for i in 0..count {
        let position = Vec3::new(rng.range(-w, w), rng.range(10.0, 300.0), rng.range(-w, w));
        let mut body = box_or_ball(&mut rng, i, position);
        body.linear_velocity = Vec3::new(rng.range(-5.0, 5.0), rng.range(-15.0, 0.0), rng.range(-5.0, 5.0));
        body.angular_velocity = Vec3::new(rng.range(-2.0, 2.0), rng.range(-2.0, 2.0), rng.range(-2.0, 2.0));
        scene.bodies.push(body);
    }
    scene
}

/// Body number `i` of a rain of boxes and balls in turn, at `position`: a box (even `i`) or
/// a ball of 0.25–0.45 m, turned at random, named by its kind and number.
fn box_or_ball(rng: &mut Lcg, i: u32, position: Vec3) -> SceneBody {
    let (kind, shape) = if i.is_multiple_of(2) {
        let half = Vec3::new(rng.range(0.25, 0.45), rng.range(0.25, 0.45), rng.range(0.25, 0.45));
        ("box", SceneShape::Box { half_extents: half })
    } else {
        ("ball", SceneShape::Sphere { radius: rng.range(0.25, 0.45) })
    };
    let mut body = SceneBody::new(BodyType::Dynamic, shape, position);
    body.name = format!("{kind} {i}");
    body.rotation = rng.rotation();
    body
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
