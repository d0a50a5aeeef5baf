//! The orbit camera: it circles a target point at a distance, and knows how to frame a world.

use atoll_physics::{Aabb, BodyType, World};
use glam::{Mat4, Vec2, Vec3, Vec4};

/// An orbit camera looking at `target` from `distance` metres away.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// Rotation about +Y, in radians; 0 looks along -Z.
    pub yaw: f32,
    /// Elevation above the horizontal plane, in radians (positive looks down on the target).
    pub pitch: f32,
    /// Distance from the eye to the target, in metres.
    pub distance: f32,
    /// The point the camera orbits and looks at.
    pub target: Vec3,
    /// Vertical field of view, in radians.
    pub fov_y: f32,
}

/// Closest distance to the target, so zooming in never passes through it.
const MIN_DISTANCE: f32 = 0.2;
/// Pitch limit just short of the poles, where the look-at basis would flip.
const MAX_PITCH: f32 = 1.55;
/// Near plane; the projection has no far plane (reversed depth, infinite).
const NEAR: f32 = 0.05;

impl Default for OrbitCamera {
    fn default() -> Self {
        Self { yaw: 0.6, pitch: 0.45, distance: 20.0, target: Vec3::ZERO, fov_y: 45f32.to_radians() }
    }
}

impl OrbitCamera {
    /// A camera at a scene's saved viewpoint (the pitch kept short of the poles).
    pub fn from_view(view: &atoll_physics::SceneView) -> OrbitCamera {
        OrbitCamera {
            target: view.target,
            yaw: view.yaw,
            pitch: view.pitch.clamp(-MAX_PITCH, MAX_PITCH),
            distance: view.distance.max(MIN_DISTANCE),
            ..OrbitCamera::default()
        }
    }

    /// The viewpoint this camera looks from, for a saved scene to open on.
    pub fn to_view(&self) -> atoll_physics::SceneView {
        atoll_physics::SceneView {
            target: self.target,
            yaw: self.yaw,
            pitch: self.pitch,
            distance: self.distance,
        }
    }

    /// The eye position in world space.
    pub fn eye(&self) -> Vec3 {
        self.target + self.forward() * -self.distance
    }

    /// Unit direction the camera looks along.
    pub fn forward(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        Vec3::new(-sy * cp, -sp, -cy * cp)
    }

    /// World-to-view matrix.
    pub fn view(&self) -> Mat4 {
        let eye = self.eye();
        let f = self.forward();
        let s = f.cross(Vec3::Y).normalize();
        let u = s.cross(f);
        Mat4::from_cols(
            Vec4::new(s.x, u.x, -f.x, 0.0),
            Vec4::new(s.y, u.y, -f.y, 0.0),
            Vec4::new(s.z, u.z, -f.z, 0.0),
            Vec4::new(-s.dot(eye), -u.dot(eye), f.dot(eye), 1.0),
        )
    }

    /// View-to-clip matrix: infinite far plane with reversed depth (1 at the near plane, 0 at
    /// infinity), which keeps depth precise far away so the grid never fights the ground.
    pub fn projection(&self, aspect: f32) -> Mat4 {
        // glam 0.34 has no camera matrices; this is the usual right-handed one with clip depth
        // near / distance: 1 at the near plane, tending to 0 far away.
        let f = 1.0 / (self.fov_y * 0.5).tan();
        Mat4::from_cols(
            Vec4::new(f / aspect.max(1e-3), 0.0, 0.0, 0.0),
            Vec4::new(0.0, f, 0.0, 0.0),
            Vec4::new(0.0, 0.0, 0.0, -1.0),
            Vec4::new(0.0, 0.0, NEAR, 0.0),
        )
    }

    /// World-to-clip matrix.
    pub fn view_projection(&self, aspect: f32) -> Mat4 {
        self.projection(aspect) * self.view()
    }

    /// Where a world point lands in a `size`-pixel image (origin top left), or `None` when it is
    /// behind the camera.
    pub fn project(&self, point: Vec3, size: Vec2) -> Option<Vec2> {
        let clip = self.view_projection(size.x / size.y) * point.extend(1.0);
        if clip.w <= 0.0 {
            return None;
        }
        let ndc = clip.truncate() / clip.w;
        Some(Vec2::new((ndc.x * 0.5 + 0.5) * size.x, (0.5 - ndc.y * 0.5) * size.y))
    }

    /// The world-space ray (origin, unit direction) through a pixel of a `size`-pixel image.
    pub fn ray_through(&self, pixel: Vec2, size: Vec2) -> (Vec3, Vec3) {
        let ndc = Vec2::new(pixel.x / size.x * 2.0 - 1.0, 1.0 - pixel.y / size.y * 2.0);
        let inverse = self.view_projection(size.x / size.y).inverse();
        let near = inverse * Vec4::new(ndc.x, ndc.y, 1.0, 1.0);
        let mid = inverse * Vec4::new(ndc.x, ndc.y, 0.5, 1.0);
        let (near, mid) = (near.truncate() / near.w, mid.truncate() / mid.w);
        (near, (mid - near).normalize())
    }

    /// Turns the camera by a mouse drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        const RADIANS_PER_PIXEL: f32 = 0.008;
        self.yaw -= delta.x * RADIANS_PER_PIXEL;
        self.pitch = (self.pitch + delta.y * RADIANS_PER_PIXEL).clamp(-MAX_PITCH, MAX_PITCH);
    }

    /// Slides the target in the view plane so the scene follows a drag of `delta` pixels in a
    /// view `viewport_height` pixels tall.
    pub fn pan(&mut self, delta: Vec2, viewport_height: f32) {
        let metres_per_pixel = 2.0 * self.distance * (self.fov_y * 0.5).tan() / viewport_height.max(1.0);
        let right = self.forward().cross(Vec3::Y).normalize_or_zero();
        let up = right.cross(self.forward());
        self.target += (-right * delta.x + up * delta.y) * metres_per_pixel;
    }

    /// Flies the camera (eye and target together) for `seconds`: `direction.x` to the right,
    /// `direction.y` up along world +Y and `direction.z` forward along the view direction, each
    /// -1..=1. The speed scales with the orbit distance, so a small scene and a large one take
    /// the same time to cross; `fast` multiplies it by four.
    pub fn fly(&mut self, direction: Vec3, seconds: f32, fast: bool) {
        // Half the orbit distance per second: a framed scene is crossed in about four seconds.
        let speed = (0.5 * self.distance).max(1.0) * if fast { 4.0 } else { 1.0 };
        let forward = self.forward();
        let right = forward.cross(Vec3::Y).normalize_or_zero();
        let step = right * direction.x + Vec3::Y * direction.y + forward * direction.z;
        self.target += step.normalize_or_zero() * speed * seconds;
    }

    /// Moves towards (positive `steps`) or away from the target, by a constant factor per step.
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.9f32.powf(steps)).max(MIN_DISTANCE);
    }

    /// Aims at the bodies that move (all bodies when none moves; a huge static ground would
    /// otherwise push the camera far away) and backs off until their bounding sphere fits the
    /// view at `aspect`. Keeps yaw and pitch.
    pub fn frame_world(&mut self, world: &World, aspect: f32) {
        let boxes = |want_static: bool| {
            world
                .body_ids()
                .filter_map(|id| {
                    let moving = world.body(id).ok()?.body_type != BodyType::Static;
                    (moving != want_static).then(|| world.aabb(id).ok()).flatten()
                })
                .reduce(|a: Aabb, b| a.union(&b))
        };
        // Without moving bodies, the ground: static bodies and the terrain's stored chunks.
        let terrain = world.terrain();
        let ground = || {
            let chunks = terrain.chunks().map(|(c, _)| terrain.chunk_aabb(c)).reduce(|a, b| a.union(&b));
            match (boxes(true), chunks) {
                (Some(a), Some(b)) => Some(a.union(&b)),
                (a, b) => a.or(b),
            }
        };
        if let Some(bounds) = boxes(false).or_else(ground) {
            self.frame_aabb(&bounds, aspect);
        }
    }

    /// Centres on `bounds` and backs off until its bounding sphere fits the view at `aspect`.
    pub fn frame_aabb(&mut self, bounds: &Aabb, aspect: f32) {
        let radius = bounds.half_extents().length().max(0.1);
        let half_fov_y = self.fov_y * 0.5;
        let half_fov_x = (half_fov_y.tan() * aspect).atan();
        let half_fov = half_fov_y.min(half_fov_x);
        self.target = bounds.center();
        // 1.1: a margin so the outermost bodies do not touch the image border.
        self.distance = (radius / half_fov.sin() * 1.1).max(MIN_DISTANCE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn target_projects_to_the_image_centre() {
        let camera = OrbitCamera { target: Vec3::new(1.0, 2.0, 3.0), ..Default::default() };
        let p = camera.project(camera.target, Vec2::new(640.0, 480.0)).unwrap();
        assert!((p - Vec2::new(320.0, 240.0)).length() < 1e-3, "{p}");
    }

    #[test]
    fn ray_through_centre_hits_the_target() {
        let camera = OrbitCamera::default();
        let (origin, dir) = camera.ray_through(Vec2::new(50.0, 50.0), Vec2::new(100.0, 100.0));
        let closest = origin + dir * (camera.target - origin).dot(dir);
        assert!(closest.distance(camera.target) < 1e-3);
    }

    #[test]
    fn flying_forward_moves_eye_and_target_along_the_view() {
        let mut camera = OrbitCamera::default();
        let (eye, target) = (camera.eye(), camera.target);
        camera.fly(Vec3::Z, 0.5, false);
        let moved = camera.target - target;
        assert!((camera.eye() - eye - moved).length() < 1e-4, "eye and target move together");
        assert!(moved.normalize().dot(camera.forward()) > 0.999, "{moved}");
        // Half the distance (20 m) per second, for half a second.
        assert!((moved.length() - 5.0).abs() < 1e-3, "{}", moved.length());
        let before = camera.target;
        camera.fly(Vec3::X, 0.5, true);
        let right = camera.target - before;
        assert!(right.dot(camera.forward()).abs() < 1e-4 && right.y.abs() < 1e-4);
        assert!((right.length() - 20.0).abs() < 1e-3, "fast is four times as quick");
    }

    #[test]
    fn framing_fits_the_box() {
        let mut camera = OrbitCamera::default();
        let bounds = Aabb::new(Vec3::splat(-2.0), Vec3::splat(2.0));
        camera.frame_aabb(&bounds, 1.5);
        let size = Vec2::new(300.0, 200.0);
        for corner in [Vec3::splat(-2.0), Vec3::splat(2.0), Vec3::new(2.0, -2.0, 2.0)] {
            let p = camera.project(corner, size).unwrap();
            assert!(p.x > 0.0 && p.y > 0.0 && p.x < size.x && p.y < size.y, "{corner} at {p}");
        }
    }
}
