//! The joints overlay: for every joint its two anchors, the line between them, the lines from
//! each body's centre to its anchor, the joint's axes and its limits (an arc for a hinge, a cone
//! and a twist arc for a ball joint, marks on the axis for a slider or a wheel, marks on the
//! line for a distance joint), coloured by what the joint is doing.
//!
//! Joints are drawn over the bodies (the renderer draws these lines without the depth test): an
//! anchor usually sits on or inside a body's surface, where a depth-tested line would vanish.

use super::lines::{LineVertex, push, push_cross, rgba};
use super::view::ViewOptions;
use atoll_physics::{JointDesc, JointId, JointKind, JointView, Limits, Vec3, World};
use std::f32::consts::{PI, TAU};

/// What a joint is doing, by how much it matters: a broken joint hides a limit, a limit hides
/// a working motor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum JointState {
    /// Solved, nothing at a bound.
    Free,
    /// Its motor pushed in the last step.
    MotorWorking,
    /// A limit pushed in the last step.
    AtLimit,
    /// Its force or torque in the last step passed [`NEAR_BREAKING`] of its threshold.
    NearBreaking,
    /// Disabled: broken, or switched off.
    Broken,
}

/// The fraction of a breaking threshold from which a joint shows as near breaking.
pub const NEAR_BREAKING: f32 = 0.8;

/// A motor load below this (N or N·m) counts as idle: a motor holding its speed with no load
/// does not show as working.
const IDLE_MOTOR_LOAD: f32 = 1e-3;

impl JointState {
    /// The state of `view`, whose description is `desc`.
    pub fn of(view: &JointView, desc: &JointDesc) -> JointState {
        let near = |limit: Option<f32>, value: f32| limit.is_some_and(|l| value >= NEAR_BREAKING * l);
        if !view.enabled {
            JointState::Broken
        } else if near(desc.break_force, view.force.length()) || near(desc.break_torque, view.torque.length())
        {
            JointState::NearBreaking
        } else if view.limit_active {
            JointState::AtLimit
        } else if view.motor_load.abs() > IDLE_MOTOR_LOAD {
            JointState::MotorWorking
        } else {
            JointState::Free
        }
    }

    /// The overlay colour (sRGB) of this state.
    pub fn colour(self) -> [u8; 3] {
        match self {
            JointState::Free => [70, 220, 255],
            JointState::MotorWorking => [90, 240, 110],
            JointState::AtLimit => [255, 150, 40],
            JointState::NearBreaking => [255, 50, 60],
            JointState::Broken => [150, 150, 150],
        }
    }

    /// A short name for legends and the Inspector.
    pub fn label(self) -> &'static str {
        match self {
            JointState::Free => "free",
            JointState::MotorWorking => "motor working",
            JointState::AtLimit => "at a limit",
            JointState::NearBreaking => "near breaking",
            JointState::Broken => "disabled",
        }
    }
}

/// Colour of the selected joints, whatever their state (the selection's orange).
const SELECTED: [u8; 3] = [255, 170, 60];

/// Segments per full circle of an arc or a cone's rim.
const CIRCLE_SEGMENTS: usize = 32;
/// Lines from a cone's apex to its rim.
const CONE_SIDES: usize = 8;

/// Appends what `view` asks of joints: every joint when the overlay is on, and the selected
/// joint in the selection colour in any case.
pub fn append_view(out: &mut Vec<LineVertex>, world: &World, view: &ViewOptions) {
    let highlight = |joint: &JointView| {
        view.selected_joint == Some(joint.id)
            || (joint.island.is_some() && joint.island == view.highlighted_island)
    };
    if view.overlays.joints {
        append(out, world, highlight);
    } else if let Some(joint) = view.selected_joint.and_then(|id| world.joint(id).ok()) {
        draw_one(out, world, &joint, true);
    }
}

/// Appends every joint's lines to `out`; joints for which `highlight` holds are drawn in the
/// selection colour.
pub fn append(out: &mut Vec<LineVertex>, world: &World, highlight: impl Fn(&JointView) -> bool) {
    for view in world.joints() {
        draw_one(out, world, &view, highlight(&view));
    }
}

fn draw_one(out: &mut Vec<LineVertex>, world: &World, view: &JointView, highlighted: bool) {
    let Ok(desc) = world.joint_desc(view.id) else { return };
    let srgb = if highlighted { SELECTED } else { JointState::of(view, &desc).colour() };
    let mut draw = Drawing { out, colour: rgba(srgb, 1.0), faint: rgba(srgb, 0.45) };
    draw.joint(world, view, &desc);
}

/// The size a joint is drawn at: half the middle extent of body B's box (B is the body a
/// joint moves: a door on its post, a limb on its torso, a link on the one before), within 8 cm
/// and 50 cm, so a chain link's joint stays about the link's size and a thin door's hinge is
/// drawn at the door's.
fn joint_size(world: &World, view: &JointView) -> f32 {
    world.aabb(view.body_b).map_or(0.25, |b| {
        let e = b.max - b.min;
        let middle = e.x.max(e.y).min(e.x.min(e.y).max(e.z));
        (middle * 0.5).clamp(0.08, 0.5)
    })
}

/// A unit vector perpendicular to both `axis` and `normal` (the frame's Z).
fn binormal(axis: Vec3, normal: Vec3) -> Vec3 {
    axis.cross(normal).normalize_or_zero()
}

/// The lines of one joint in one colour, and a fainter one for what only places it.
struct Drawing<'a> {
    out: &'a mut Vec<LineVertex>,
    colour: [u8; 4],
    faint: [u8; 4],
}

impl Drawing<'_> {
    fn joint(&mut self, world: &World, view: &JointView, desc: &JointDesc) {
        let size = joint_size(world, view);
        let (a, b) = (view.anchor_a, view.anchor_b);
        // Which bodies it links: faint lines from each centre of mass to its anchor.
        for (body, anchor) in [(view.body_a, a), (Some(view.body_b), b)] {
            if let Some(centre) = body.and_then(|id| world.body(id).ok()).map(|b| b.center_of_mass) {
                push(self.out, centre, anchor, self.faint);
            }
        }
        push_cross(self.out, a, size * 0.25, self.colour);
        push_cross(self.out, b, size * 0.18, self.colour);
        if a.distance_squared(b) > 1e-8 {
            push(self.out, a, b, self.colour);
        }
        let (axis, normal) = (view.axis, view.normal);
        match desc.kind {
            JointKind::Revolute(hinge) => {
                self.axis_line(a, axis, size);
                self.angle_arc(a, axis, normal, size, hinge.limits, view.position);
            }
            JointKind::Spherical(ball) => {
                if let Some(cone) = ball.swing_limit {
                    self.cone(a, axis, normal, size, cone);
                } else {
                    self.axis_line(a, axis, size * 0.6);
                }
                if let Some(twist) = ball.twist_limits {
                    self.angle_arc(a, axis, normal, size * 0.6, Some(twist), view.position);
                }
            }
            JointKind::Prismatic(slider) => {
                self.travel(a, axis, normal, size, slider.limits);
            }
            JointKind::Wheel(wheel) => {
                self.axis_line(b, axis, size);
                self.travel(a, normal, axis, size, wheel.suspension_limits);
            }
            JointKind::Distance(rope) => {
                let direction = (b - a).normalize_or_zero();
                let direction = if direction == Vec3::ZERO { normal } else { direction };
                for length in rope.limits.map_or([rope.length; 2], |l| [l.lower, l.upper]) {
                    self.tick(a + direction * length, direction, normal, size * 0.3);
                }
            }
            JointKind::Fixed(_) => {
                self.axis_line(a, axis, size * 0.6);
                push(self.out, a, a + normal * size * 0.4, self.faint);
            }
        }
    }

    /// The joint axis as a line through `at`, `length` each way.
    fn axis_line(&mut self, at: Vec3, axis: Vec3, length: f32) {
        push(self.out, at - axis * length, at + axis * length, self.colour);
    }

    /// A small mark across `direction` at `at`.
    fn tick(&mut self, at: Vec3, direction: Vec3, normal: Vec3, half: f32) {
        let across = direction.cross(normal).normalize_or(normal);
        push(self.out, at - normal * half, at + normal * half, self.colour);
        push(self.out, at - across * half, at + across * half, self.colour);
    }

    /// The range of an angle about `axis` measured from `normal` as an arc of radius `radius`
    /// (a full faint circle when there is no range), with spokes at the bounds and a line at
    /// the current `angle`.
    fn angle_arc(
        &mut self,
        at: Vec3,
        axis: Vec3,
        normal: Vec3,
        radius: f32,
        range: Option<Limits>,
        angle: f32,
    ) {
        let side = binormal(axis, normal);
        let point = |theta: f32| at + (normal * theta.cos() + side * theta.sin()) * radius;
        let (from, to, colour) = match range {
            Some(l) => (l.lower, l.upper, self.colour),
            None => (-PI, PI, self.faint),
        };
        let steps = (((to - from) / TAU) * CIRCLE_SEGMENTS as f32).ceil().max(1.0) as usize;
        for k in 0..steps {
            let (t0, t1) = (k as f32 / steps as f32, (k + 1) as f32 / steps as f32);
            push(self.out, point(from + (to - from) * t0), point(from + (to - from) * t1), colour);
        }
        if range.is_some() {
            push(self.out, at, point(from), self.colour);
            push(self.out, at, point(to), self.colour);
        }
        push(self.out, at, at + (point(angle) - at) * 1.25, self.colour);
    }

    /// A swing cone of half angle `half_angle` about `axis` with its apex at `at`: the rim on a
    /// sphere of radius `radius` and lines from the apex to it.
    fn cone(&mut self, at: Vec3, axis: Vec3, normal: Vec3, radius: f32, half_angle: f32) {
        let side = binormal(axis, normal);
        let (along, across) = (half_angle.cos() * radius, half_angle.sin() * radius);
        let rim = |phi: f32| at + axis * along + (normal * phi.cos() + side * phi.sin()) * across;
        for k in 0..CIRCLE_SEGMENTS {
            let phi = |k: usize| k as f32 / CIRCLE_SEGMENTS as f32 * TAU;
            push(self.out, rim(phi(k)), rim(phi(k + 1)), self.colour);
        }
        for k in 0..CONE_SIDES {
            push(self.out, at, rim(k as f32 / CONE_SIDES as f32 * TAU), self.faint);
        }
        push(self.out, at, at + axis * radius, self.colour);
    }

    /// A line along `direction` through `at` with marks at the travel limits (or a plain line
    /// `size` each way without limits).
    fn travel(&mut self, at: Vec3, direction: Vec3, normal: Vec3, size: f32, limits: Option<Limits>) {
        match limits {
            Some(l) => {
                push(self.out, at + direction * l.lower, at + direction * l.upper, self.colour);
                for bound in [l.lower, l.upper] {
                    self.tick(at + direction * bound, direction, normal, size * 0.3);
                }
            }
            None => push(self.out, at - direction * size, at + direction * size, self.colour),
        }
    }
}

/// The joint whose anchor is nearest `pixel` on screen, within `reach` pixels, as `project`
/// places world points (`None` behind the camera).
pub fn joint_near(
    world: &World,
    pixel: glam::Vec2,
    reach: f32,
    project: impl Fn(Vec3) -> Option<glam::Vec2>,
) -> Option<JointId> {
    let mut best: Option<(f32, JointId)> = None;
    for view in world.joints() {
        for anchor in [view.anchor_a, view.anchor_b] {
            let Some(p) = project(anchor) else { continue };
            let d = p.distance(pixel);
            if d <= reach && best.is_none_or(|(bd, _)| d < bd) {
                best = Some((d, view.id));
            }
        }
    }
    best.map(|(_, id)| id)
}

/// The legend of the overlay's colours, in the order of [`JointState`].
pub fn legend() -> [(JointState, [u8; 3]); 5] {
    [
        JointState::Free,
        JointState::MotorWorking,
        JointState::AtLimit,
        JointState::NearBreaking,
        JointState::Broken,
    ]
    .map(|s| (s, s.colour()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::scene::builtin;

    fn world_of(scene: atoll_physics::Scene) -> World {
        scene.build_world().unwrap().0
    }

    #[test]
    fn every_joint_of_the_bridge_draws_its_anchors_and_limits() {
        let world = world_of(builtin::bridge());
        let mut out = Vec::new();
        append(&mut out, &world, |_| false);
        assert_eq!(out.len() % 2, 0, "segments come in pairs of vertices");
        // Each joint draws at least its two anchor crosses (three segments each).
        assert!(
            out.len() >= world.joint_count() * 12,
            "{} vertices for {} joints",
            out.len(),
            world.joint_count()
        );
        let free = rgba(JointState::Free.colour(), 1.0);
        assert!(out.iter().any(|v| v.colour == free));
    }

    #[test]
    fn the_state_follows_what_the_joint_did() {
        let mut world = world_of(builtin::motor_door());
        for _ in 0..120 {
            world.step();
        }
        let states: Vec<JointState> =
            world.joints().map(|view| JointState::of(&view, &world.joint_desc(view.id).unwrap())).collect();
        assert!(
            states.iter().any(|s| matches!(s, JointState::MotorWorking | JointState::AtLimit)),
            "the motorised door drives or rests on its limit: {states:?}"
        );
        let id = world.joint_ids().next().unwrap();
        world.set_joint_enabled(id, false).unwrap();
        let view = world.joint(id).unwrap();
        assert_eq!(JointState::of(&view, &world.joint_desc(id).unwrap()), JointState::Broken);
    }

    #[test]
    fn a_joint_is_found_near_its_anchor_on_screen() {
        let world = world_of(builtin::bridge());
        let first = world.joints().next().unwrap();
        // A projection that drops depth: x and y in metres, scaled to pixels.
        let project = |p: Vec3| Some(glam::Vec2::new(p.x, p.y) * 100.0);
        let at = project(first.anchor_a).unwrap();
        let found = joint_near(&world, at + glam::Vec2::new(2.0, 1.0), 8.0, project);
        assert!(found.is_some());
        let found = world.joint(found.unwrap()).unwrap();
        let d = (project(found.anchor_a).unwrap() - at)
            .length()
            .min((project(found.anchor_b).unwrap() - at).length());
        assert!(d < 1e-3, "the nearest anchor is the clicked one");
        assert_eq!(joint_near(&world, glam::Vec2::new(-1e5, -1e5), 8.0, project), None);
    }
}
