//! Grabbing a body while the simulation plays: a soft spring from the grabbed point of the body
//! to the point under the pointer pulls it along, so piles can be poked, doors swung and bridges
//! loaded by hand. Releasing drops it.
//!
//! The pull is a force the editor applies before every step (a damped spring at the grabbed
//! point, scaled by the body's mass so its strength is a frequency: light and heavy bodies
//! follow the pointer alike; grabbed off its centre a body also turns, and follows a little
//! faster), never a move: the body is not teleported, it takes
//! part in every contact and joint on the way, and grabbing is not an edit, so it makes no undo
//! step. Forces are capped, so a grab cannot fling a body through a wall.

use atoll_physics::{BodyId, BodyType, Vec3, World};
use std::f32::consts::TAU;

/// How strongly grabbed bodies follow the pointer (the Settings panel edits these).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GrabSettings {
    /// The spring's natural frequency, Hz: how quickly the body follows.
    pub hertz: f32,
    /// The spring's damping ratio (1 = critical: follows without overshooting).
    pub damping_ratio: f32,
    /// The largest acceleration the spring gives the body, m/s² (a multiple of g keeps heavy
    /// and light bodies alike).
    pub max_acceleration: f32,
}

impl Default for GrabSettings {
    fn default() -> Self {
        GrabSettings { hertz: 3.0, damping_ratio: 0.7, max_acceleration: 100.0 }
    }
}

impl GrabSettings {
    /// The settings checked: finite, the frequency above 0, the rest not negative.
    pub fn validate(&self) -> Result<(), String> {
        let finite = [self.hertz, self.damping_ratio, self.max_acceleration].iter().all(|v| v.is_finite());
        if !finite || self.hertz <= 0.0 || self.damping_ratio < 0.0 || self.max_acceleration < 0.0 {
            return Err(format!(
                "grab spring: {} Hz, damping {}, {} m/s² (the frequency must be above 0, the rest at least 0)",
                self.hertz, self.damping_ratio, self.max_acceleration
            ));
        }
        Ok(())
    }
}

/// A body being pulled towards the pointer.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Grab {
    /// The grabbed body.
    pub body: BodyId,
    /// The grabbed point in the body's frame.
    local_point: Vec3,
    /// Where the pointer holds it, world space.
    pub target: Vec3,
    /// The grabbed point's distance from the view ray's origin when grabbed: the target stays
    /// at this distance from it, on a sphere about the eye.
    depth: f32,
}

impl Grab {
    /// Grabs `body` of `world` at world point `point`, seen from `eye`; `None` unless the body
    /// is dynamic.
    pub fn begin(world: &World, body: BodyId, point: Vec3, eye: Vec3) -> Option<Grab> {
        let view = world.body(body).ok()?;
        if view.body_type != BodyType::Dynamic {
            return None;
        }
        let local_point = view.transform.inverse_transform_point(point);
        Some(Grab { body, local_point, target: point, depth: point.distance(eye) })
    }

    /// Follows the view ray from `eye` along unit `dir` (the pointer moved).
    pub fn aim(&mut self, eye: Vec3, dir: Vec3) {
        let target = eye + dir * self.depth;
        if target.is_finite() {
            self.target = target;
        }
    }

    /// The grabbed point in world space, where the body is now.
    pub fn point(&self, world: &World) -> Option<Vec3> {
        world.transform(self.body).ok().map(|t| t.transform_point(self.local_point))
    }

    /// The spring force on the grabbed point for the next step, capped (zero once the body is
    /// gone).
    pub fn force(&self, world: &World, settings: &GrabSettings) -> Vec3 {
        let (Ok(view), Some(point)) = (world.body(self.body), self.point(world)) else { return Vec3::ZERO };
        let omega = TAU * settings.hertz;
        let velocity = view.linear_velocity + view.angular_velocity.cross(point - view.center_of_mass);
        let acceleration =
            (self.target - point) * omega * omega - velocity * (2.0 * settings.damping_ratio * omega);
        acceleration.clamp_length_max(settings.max_acceleration) * view.mass
    }

    /// Applies the spring for the next step; the body wakes. A gone body ends the grab.
    pub fn apply(&self, world: &mut World, settings: &GrabSettings) -> bool {
        let Some(point) = self.point(world) else { return false };
        let force = self.force(world, settings);
        world.apply_force_at_point(self.body, force, point).is_ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyDesc, Shape, StepSettings};

    fn world_with_box() -> (World, BodyId) {
        let mut world = World::new(StepSettings::default()).unwrap();
        let body = world
            .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::ZERO))
            .unwrap();
        (world, body)
    }

    #[test]
    fn a_grabbed_box_follows_the_target_and_falls_when_released() {
        let (mut world, body) = world_with_box();
        let eye = Vec3::new(0.0, 0.0, 10.0);
        let mut grab = Grab::begin(&world, body, Vec3::new(0.0, 0.5, 0.0), eye).unwrap();
        grab.aim(eye, (Vec3::new(2.0, 2.5, 0.0) - eye).normalize());
        let settings = GrabSettings::default();
        for _ in 0..180 {
            assert!(grab.apply(&mut world, &settings));
            world.step();
        }
        let held = grab.point(&world).unwrap();
        assert!(held.distance(grab.target) < 0.15, "held at {held}, target {}", grab.target);
        let height = world.transform(body).unwrap().position.y;
        for _ in 0..30 {
            world.step();
        }
        assert!(world.transform(body).unwrap().position.y < height - 0.5, "released, it falls");
    }

    #[test]
    fn the_pull_is_capped_and_only_dynamic_bodies_are_grabbed() {
        let (world, body) = world_with_box();
        let mut grab = Grab::begin(&world, body, Vec3::ZERO, Vec3::Z * 10.0).unwrap();
        grab.target = Vec3::new(1.0e6, 0.0, 0.0);
        let settings = GrabSettings::default();
        let mass = world.body(body).unwrap().mass;
        let force = grab.force(&world, &settings);
        assert!((force.length() - settings.max_acceleration * mass).abs() < 1e-2 * force.length());
        let mut fixed = World::new(StepSettings::default()).unwrap();
        let wall = fixed.create_body(&BodyDesc::fixed(Shape::sphere(1.0).unwrap(), Vec3::ZERO)).unwrap();
        assert!(Grab::begin(&fixed, wall, Vec3::ZERO, Vec3::Z).is_none());
        assert!(GrabSettings { hertz: 0.0, ..settings }.validate().is_err());
        assert!(GrabSettings { damping_ratio: f32::NAN, ..settings }.validate().is_err());
    }
}
