//! The Box3D side: the same `atoll_physics::Scene` turned into a Box3D world through the
//! `boxddd` bindings (Box3D's C sources, compiled by the `cc` crate; feature `box3d`).
//!
//! Every scene body becomes one Box3D body with one shape of the same geometry, density,
//! friction and restitution; the terrain becomes one static triangle mesh of the triangles
//! Atoll collides with; joints become Box3D's joints of the same kind. What Box3D has no
//! equivalent for is refused as [`BuildError::Unsupported`], which the report shows as "n/a".
//! Values cross over as plain numbers: boxddd has its own math types.

use crate::engine::{BuildError, Engine, Pose};
use crate::terrain::data::TerrainData;
use atoll_physics::scene::{BodyRef, SceneJoint, SceneTerrain};
use atoll_physics::world::{TERRAIN_FRICTION, TERRAIN_RESTITUTION};
use atoll_physics::{
    BodyType, JointFrame, JointKind, KinematicMotion, Limits, Material, Quat, Scene, SceneBody, SceneShape,
    Spring, Vec3,
};
use boxddd as b3;
use std::f32::consts::{FRAC_PI_2, PI};

/// Box3D's most hull vertices (`B3_MAX_HULL_VERTICES`, box3d/constants.h), the most
/// `b3CreateHull` is asked to keep.
const MAX_HULL_VERTICES: i32 = 128;
/// The widest angle boxddd accepts for revolute limits and twist ranges (Box3D clamps to
/// ±0.99 π itself; boxddd refuses what it would clamp).
const MAX_LIMIT_ANGLE: f32 = 0.99 * PI;
/// Box3D's shortest distance joint (`B3_LINEAR_SLOP`, which `b3DistanceJoint_SetLength`
/// clamps to); boxddd refuses a length of 0, which Box3D would clamp up to this.
const MIN_DISTANCE_LENGTH: f32 = 0.005;
/// Vertices of the terrain mesh closer than this (m) are merged, as Rapier's trimesh merges
/// the duplicates that chunk seams leave, so that Box3D finds the edges shared across seams.
const TERRAIN_WELD_TOLERANCE: f32 = 1.0e-4;

/// The process's Box3D foundation (its global settings: 1 length unit per metre, no stall
/// reports), initialised on first use; later calls return the same one.
fn foundation() -> Result<&'static b3::Foundation, BuildError> {
    b3::Foundation::initialize_default().map_err(|e| BuildError::Failed(format!("Box3D foundation: {e}")))
}

/// Bytes Box3D holds through its own allocator (C memory the counting global allocator never
/// sees), over every Box3D world alive in the process.
pub fn native_bytes() -> i64 {
    foundation().ok().and_then(|_| b3::allocated_byte_count().ok()).map_or(0, i64::from)
}

/// A kinematic body driven along a [`KinematicMotion`]: before each step Box3D is given the
/// pose the motion reaches at the step's end (`b3Body_SetTargetTransform`, which sets the
/// velocities that land it there), as Atoll drives its kinematic bodies.
struct DrivenBody {
    id: b3::BodyId,
    start_position: Vec3,
    start_rotation: Quat,
    motion: KinematicMotion,
}

/// A Box3D world holding a scene, and the ids of its bodies in scene order.
pub struct Box3dWorld {
    world: b3::World,
    ids: Vec<b3::BodyId>,
    driven: Vec<DrivenBody>,
    dt: f32,
    substeps: i32,
    steps: u64,
}

impl Box3dWorld {
    /// Builds the scene: gravity, sleeping and continuous collision from its settings, `dt` and
    /// the substep count (Box3D's `subStepCount`) for every step, and `threads` workers (one:
    /// Box3D's serial path; more: its own scheduler with `threads - 1` threads beside the
    /// caller's).
    pub fn build(scene: &Scene, threads: usize) -> Result<Self, BuildError> {
        let settings = &scene.settings;
        let foundation = foundation()?;
        let workers = u32::try_from(threads).map_err(|_| failed("threads", "too many"))?;
        let def = foundation
            .world_def_builder()
            .gravity(to_vec(settings.gravity))
            .enable_sleep(settings.sleep_enabled)
            .enable_continuous(settings.continuous_collision)
            .worker_count(workers)
            // The scene's contact and joint stiffness, as Atoll and Rapier get them (Box3D's
            // defaults are 30 Hz for contacts and 60 Hz for joints).
            .contact_tuning(
                settings.contact_hertz,
                settings.contact_damping_ratio,
                settings.max_push_out_speed,
            )
            .build()
            .map_err(|e| failed("world", e))?;
        let mut world = foundation.create_world(def).map_err(|e| failed("world", e))?;
        let joint_tuning = b3::JointTuning::new(settings.joint_hertz, settings.joint_damping_ratio);

        let mut ids = Vec::with_capacity(scene.bodies.len());
        let mut driven = Vec::new();
        for (index, body) in scene.bodies.iter().enumerate() {
            let can_sleep = body.can_sleep && settings.sleep_enabled;
            let what = format!("body {index}");
            let def = body_def(foundation, body, can_sleep).map_err(|e| failed(&what, e))?;
            let id = world.create_body(def).map_err(|e| failed(&what, e))?;
            add_shape(&mut world, foundation, id, &body.shape, body.material, None)
                .map_err(|e| failed(&what, e))?;
            // A compound body's further shapes: shapes on the same body, placed in its frame.
            for child in &body.children {
                let pose = Some((child.position, child.rotation));
                add_shape(&mut world, foundation, id, &child.shape, child.material, pose)
                    .map_err(|e| failed(&what, e))?;
            }
            if let (BodyType::Kinematic, Some(motion)) = (body.body_type, body.motion) {
                driven.push(DrivenBody {
                    id,
                    start_position: body.position,
                    start_rotation: body.rotation,
                    motion,
                });
            }
            ids.push(id);
        }
        if let Some(terrain) = &scene.terrain {
            add_terrain(&mut world, foundation, terrain)?;
        }

        // Joints to the world hang from one static body at the origin without a shape (an
        // Atoll world side is the identity frame), as in the Rapier world.
        let mut world_anchor = None;
        for (index, joint) in scene.joints.iter().enumerate() {
            let what = format!("joint {index}");
            let id_of = |r: &BodyRef| -> Result<b3::BodyId, BuildError> {
                let i = match r {
                    BodyRef::Index(i) => *i,
                    BodyRef::Name(n) => scene
                        .bodies
                        .iter()
                        .position(|b| &b.name == n)
                        .ok_or_else(|| failed(&what, format!("unknown body {n:?}")))?,
                };
                ids.get(i).copied().ok_or_else(|| failed(&what, format!("no body {i}")))
            };
            let body_a = match &joint.body_a {
                Some(r) => id_of(r)?,
                None => match world_anchor {
                    Some(id) => id,
                    None => {
                        let id = world.create_body(foundation.body_def()).map_err(|e| failed(&what, e))?;
                        *world_anchor.insert(id)
                    }
                },
            };
            let body_b = id_of(&joint.body_b)?;
            add_joint(&mut world, body_a, body_b, joint, joint_tuning).map_err(|e| match e {
                BuildError::Unsupported(why) => BuildError::Unsupported(format!("{what}: {why}")),
                BuildError::Failed(why) => BuildError::Failed(format!("{what}: {why}")),
            })?;
        }

        let substeps = i32::try_from(settings.substeps).map_err(|_| failed("substeps", "too many"))?;
        Ok(Box3dWorld { world, ids, driven, dt: settings.dt, substeps, steps: 0 })
    }
}

impl Engine for Box3dWorld {
    fn step(&mut self) {
        self.steps += 1;
        let time = self.steps as f32 * self.dt;
        for d in &self.driven {
            let (position, rotation) = d.motion.moved(d.start_position, d.start_rotation, time);
            let target = b3::WorldTransform::new(to_vec(position).into(), to_quat(rotation));
            self.world
                .set_body_target_transform(d.id, target, self.dt, true)
                .expect("a driven body of this world takes a target pose");
        }
        self.world.step(self.dt, self.substeps).expect("Box3D refused a step of a world it built");
    }

    fn pose(&self, index: usize) -> Pose {
        let t = self.world.body_transform(self.ids[index]).expect("scene bodies are never removed");
        Pose { position: [t.p.x, t.p.y, t.p.z], rotation: [t.q.v.x, t.q.v.y, t.q.v.z, t.q.s] }
    }
}

/// The body definition of a scene body: type, pose, velocities, damping, gravity scale,
/// sleeping. Box3D's body origin is the body frame's origin, as Atoll's.
fn body_def(foundation: &b3::Foundation, body: &SceneBody, can_sleep: bool) -> b3::Result<b3::BodyDef> {
    let body_type = match body.body_type {
        BodyType::Static => b3::BodyType::Static,
        BodyType::Kinematic => b3::BodyType::Kinematic,
        BodyType::Dynamic => b3::BodyType::Dynamic,
    };
    foundation
        .body_def_builder()
        .body_type(body_type)
        .position(to_vec(body.position))
        .rotation(to_quat(body.rotation))
        .linear_velocity(to_vec(body.linear_velocity))
        .angular_velocity(to_vec(body.angular_velocity))
        // The damping formulas differ (Box3D divides by 1 + h·c like Rapier), but every
        // benchmarked body has none.
        .linear_damping(body.linear_damping)
        .angular_damping(body.angular_damping)
        .gravity_scale(body.gravity_scale)
        .enable_sleep(can_sleep)
        .build()
}

/// Attaches the scene body's shape: a sphere, a capsule along local Y (`half_height` the
/// segment's half, as in Atoll), a box as Box3D's box hull, or the hull of the scene's points.
/// Box3D combines friction by the geometric mean and restitution by the maximum by default,
/// Atoll's rules, so no mixing callback is needed.
fn add_shape(
    world: &mut b3::World,
    foundation: &b3::Foundation,
    id: b3::BodyId,
    shape: &SceneShape,
    material: Material,
    pose: Option<(Vec3, Quat)>,
) -> b3::Result<b3::ShapeId> {
    let m = material;
    let place = |p: Vec3| pose.map_or(p, |(at, turn)| at + turn * p);
    let def = foundation
        .shape_def_builder()
        .density(m.density)
        .friction(m.friction)
        .restitution(m.restitution)
        .build()?;
    match shape {
        SceneShape::Sphere { radius } => {
            world.create_sphere_shape(id, &def, &b3::Sphere::new(to_vec(place(Vec3::ZERO)), *radius))
        }
        SceneShape::Capsule { half_height, radius } => {
            let (low, high) =
                (place(Vec3::new(0.0, -half_height, 0.0)), place(Vec3::new(0.0, *half_height, 0.0)));
            let capsule = b3::Capsule::new(to_vec(low), to_vec(high), *radius);
            world.create_capsule_shape(id, &def, &capsule)
        }
        SceneShape::Box { half_extents: h } => {
            let hull = match pose {
                None => b3::BoxHull::new(h.x, h.y, h.z)?,
                Some((at, turn)) => b3::BoxHull::transformed(
                    h.x,
                    h.y,
                    h.z,
                    b3::Transform { p: to_vec(at), q: to_quat(turn) },
                )?,
            };
            world.create_hull_shape(id, &def, &hull)
        }
        SceneShape::Hull { points } => {
            let points: Vec<b3::Vec3> = points.iter().map(|&p| to_vec(place(p))).collect();
            // The world copies the hull into its own hull store, so this one can go.
            let hull = b3::Hull::from_points(&points, MAX_HULL_VERTICES)?;
            world.create_created_hull_shape(id, &def, &hull)
        }
    }
}

/// The scene's terrain as one static Box3D mesh of the very triangles Atoll collides with
/// (every chunk's mesh at its world position, counter-clockwise seen from outside, which is
/// Box3D's front face), with the terrain's friction and restitution. Seam duplicates are
/// welded and Box3D identifies the shared edges, its answer to ghost bumps on internal edges.
/// Degenerate triangles (no area: nothing to collide with) are left out, as boxddd refuses
/// them.
fn add_terrain(
    world: &mut b3::World,
    foundation: &b3::Foundation,
    terrain: &SceneTerrain,
) -> Result<(), BuildError> {
    let terrain = terrain.to_terrain().map_err(|e| failed("terrain", e))?;
    let triangles = TerrainData::new(terrain).all_triangles();
    let vertices: Vec<b3::Vec3> = triangles.vertices.iter().map(|v| b3::Vec3::from(v.to_array())).collect();
    let area_squared = |t: &[u32; 3]| {
        let [a, b, c] = t.map(|i| Vec3::from_array(triangles.vertices[i as usize].to_array()));
        (b - a).cross(c - a).length_squared()
    };
    let mut indices = Vec::with_capacity(3 * triangles.indices.len());
    for t in triangles.indices.iter().filter(|t| area_squared(t) > f32::MIN_POSITIVE) {
        for &i in t {
            indices.push(i32::try_from(i).map_err(|_| failed("terrain", "too many vertices"))?);
        }
    }
    let mesh = b3::MeshData::builder(vertices, indices)
        .weld_vertices(true)
        .weld_tolerance(TERRAIN_WELD_TOLERANCE)
        .identify_edges(true)
        .build()
        .map_err(|e| failed("terrain mesh", e))?;
    let ground = world.create_body(foundation.body_def()).map_err(|e| failed("terrain", e))?;
    let def = foundation
        .shape_def_builder()
        .friction(TERRAIN_FRICTION)
        .restitution(TERRAIN_RESTITUTION)
        .build()
        .map_err(|e| failed("terrain", e))?;
    world
        .create_mesh_shape(ground, &def, mesh, b3::Vec3::new(1.0, 1.0, 1.0))
        .map_err(|e| failed("terrain mesh", e))?;
    Ok(())
}

/// Turns Box3D's hinge and ball-joint axis (its frames' Z: revolute about Z, spherical cone
/// about A's Z and twist about B's Z) onto Atoll's joint axis (the frames' X); Y stays Y.
fn hinge_axes() -> Quat {
    Quat::from_rotation_y(FRAC_PI_2)
}

/// Turns Box3D's wheel axes onto Atoll's: Box3D spins a wheel about its frames' Z and lets it
/// travel along A's X, Atoll spins about X and travels along A's Y; so Box3D's Z goes to X
/// and its X to Y (a third of a turn about the diagonal).
fn wheel_axes() -> Quat {
    Quat::from_axis_angle(Vec3::ONE.normalize(), 2.0 * PI / 3.0)
}

/// Box3D's joint frame for an Atoll joint frame: the same anchor, the rotation turned by
/// `axes` so that Box3D's axis for the joint lies along Atoll's.
fn frame(f: &JointFrame, axes: Quat) -> b3::Transform {
    b3::Transform::new(to_vec(f.anchor), to_quat((f.rotation * axes).normalize()))
}

/// Box3D's joint for a scene joint, of the same kind with the same frames (turned so the
/// joint axes agree), limits, motors and springs. An Atoll spring of 0 Hz is no spring, so it
/// is left off. Box3D's joint softness, 60 Hz at damping ratio 2, stays its default.
fn add_joint(
    world: &mut b3::World,
    a: b3::BodyId,
    b: b3::BodyId,
    joint: &SceneJoint,
    stiffness: b3::JointTuning,
) -> Result<b3::JointId, BuildError> {
    if !joint.enabled {
        return Err(BuildError::Unsupported("disabled joints are not benchmarked".into()));
    }
    if joint.break_force.is_some() || joint.break_torque.is_some() {
        // Box3D's force and torque thresholds only raise events; nothing breaks.
        return Err(BuildError::Unsupported("Box3D joints do not break".into()));
    }
    let frames = |axes: Quat| (frame(&joint.frame_a, axes), frame(&joint.frame_b, axes));
    let active = |s: Option<Spring>| s.filter(Spring::is_active);
    let collide = joint.collide_connected;
    let created = match joint.kind {
        JointKind::Revolute(j) => {
            let (fa, fb) = frames(hinge_axes());
            let mut d = b3::RevoluteJointDef::new(a, b)
                .local_frame_a(fa)
                .local_frame_b(fb)
                .collide_connected(collide)
                .constraint_tuning(stiffness);
            if let Some(l) = j.limits {
                let (lower, upper) = clamp_angles(l);
                d = d.limit(true, lower, upper);
            }
            if let Some(m) = j.motor {
                // A hinge's friction is a motor at speed 0 in both engines.
                d = d.motor(true, m.speed, m.max_force);
            }
            if let Some(s) = active(j.spring) {
                // Atoll's spring pulls the wrapped angle difference to zero; Box3D's takes
                // the target within ±π, the same angle.
                d = d.spring(true, s.hertz, s.damping_ratio).target_angle(wrap_angle(j.target_angle));
            }
            world.create_revolute_joint(d)
        }
        JointKind::Spherical(j) => {
            let (fa, fb) = frames(hinge_axes());
            let mut d = b3::SphericalJointDef::new(a, b)
                .local_frame_a(fa)
                .local_frame_b(fb)
                .collide_connected(collide)
                .constraint_tuning(stiffness);
            if let Some(cone) = j.swing_limit {
                if cone > FRAC_PI_2 {
                    return Err(BuildError::Unsupported(format!(
                        "a swing cone of {cone} rad (Box3D's widest is π/2)"
                    )));
                }
                d = d.cone_limit(true, cone);
            }
            if let Some(l) = j.twist_limits {
                let (lower, upper) = clamp_angles(l);
                d = d.twist_limit(true, lower, upper);
            }
            if let Some(s) = active(j.spring) {
                // The target is B's frame in A's; the frames were turned by the same
                // rotation, so the target turns by it on both sides.
                let axes = hinge_axes();
                let target = (axes.conjugate() * j.target_rotation * axes).normalize();
                d = d.spring(true, s.hertz, s.damping_ratio).target_rotation(to_quat(target));
            }
            if j.friction > 0.0 {
                // Atoll's ball-joint friction caps the length of a three-axis angular
                // impulse holding the relative rotation still; Box3D's spherical motor at
                // zero velocity does exactly that (its cap is on the impulse's length too).
                d = d.motor(true, b3::Vec3::ZERO, j.friction);
            }
            world.create_spherical_joint(d)
        }
        JointKind::Prismatic(j) => {
            // Box3D slides along A's frame X, Atoll's axis: no turn needed.
            let (fa, fb) = frames(Quat::IDENTITY);
            let mut d = b3::PrismaticJointDef::new(a, b)
                .local_frame_a(fa)
                .local_frame_b(fb)
                .collide_connected(collide)
                .constraint_tuning(stiffness);
            if let Some(l) = j.limits {
                d = d.limit(true, l.lower, l.upper);
            }
            if let Some(m) = j.motor {
                d = d.motor(true, m.speed, m.max_force);
            }
            if let Some(s) = active(j.spring) {
                d = d.spring(true, s.hertz, s.damping_ratio).target_translation(j.target_translation);
            }
            world.create_prismatic_joint(d)
        }
        JointKind::Fixed(j) => {
            // Box3D's weld is rigid at 0 Hz, springy above: Atoll's rule for its springs.
            let tuning = |s: Option<Spring>| active(s).map_or((0.0, 0.0), |s| (s.hertz, s.damping_ratio));
            let (linear_hertz, linear_damping) = tuning(j.linear_spring);
            let (angular_hertz, angular_damping) = tuning(j.angular_spring);
            let (fa, fb) = frames(Quat::IDENTITY);
            let d = b3::WeldJointDef::new(a, b)
                .local_frame_a(fa)
                .local_frame_b(fb)
                .collide_connected(collide)
                .constraint_tuning(stiffness)
                .linear_tuning(linear_hertz, linear_damping)
                .angular_tuning(angular_hertz, angular_damping);
            world.create_weld_joint(d)
        }
        JointKind::Distance(j) => {
            let (fa, fb) = frames(Quat::IDENTITY);
            let mut d = b3::DistanceJointDef::new(a, b)
                .local_frame_a(fa)
                .local_frame_b(fb)
                .collide_connected(collide)
                .constraint_tuning(stiffness)
                .length(j.length.max(MIN_DISTANCE_LENGTH));
            d = match (active(j.spring), j.limits) {
                // Atoll: a spring towards the length, within the limits if any.
                (Some(s), limits) => {
                    let d = d.spring(true, s.hertz, s.damping_ratio);
                    match limits {
                        Some(l) => d.limit(true, l.lower, l.upper),
                        None => d,
                    }
                }
                // Atoll: a rigid rod.
                (None, None) => d.spring(false, 0.0, 0.0),
                // Atoll: free within the limits (a rope). Box3D: a spring of 0 Hz is no
                // force, so only the limits act.
                (None, Some(l)) => d.spring(true, 0.0, 0.0).limit(true, l.lower, l.upper),
            };
            world.create_distance_joint(d)
        }
        JointKind::Wheel(j) => {
            let (fa, fb) = frames(wheel_axes());
            let mut d = b3::WheelJointDef::new(a, b)
                .local_frame_a(fa)
                .local_frame_b(fb)
                .collide_connected(collide)
                .constraint_tuning(stiffness)
                // Atoll's wheels do not steer: Box3D holds the steering straight without it.
                .steering(false, 0.0, 0.0);
            d = match active(j.suspension) {
                Some(s) => d.suspension(true, s.hertz, s.damping_ratio),
                // No spring: free travel (within the limits), in both engines.
                None => d.suspension(false, 0.0, 0.0),
            };
            if let Some(l) = j.suspension_limits {
                d = d.suspension_limit(true, l.lower, l.upper);
            }
            if let Some(m) = j.motor {
                d = d.spin_motor(true, m.speed, m.max_force);
            }
            world.create_wheel_joint(d)
        }
    };
    created.map_err(|e| BuildError::Failed(e.to_string()))
}

/// An angle range within the ±0.99 π Box3D takes (Atoll allows ±π; the last 1.8° of a turn
/// either way are the difference).
fn clamp_angles(l: Limits) -> (f32, f32) {
    (l.lower.clamp(-MAX_LIMIT_ANGLE, MAX_LIMIT_ANGLE), l.upper.clamp(-MAX_LIMIT_ANGLE, MAX_LIMIT_ANGLE))
}

/// `angle` moved by whole turns into -π..=π.
fn wrap_angle(angle: f32) -> f32 {
    let wrapped = (angle + PI).rem_euclid(2.0 * PI) - PI;
    if wrapped < -PI { wrapped + 2.0 * PI } else { wrapped }
}

/// A build failure of `what`.
fn failed(what: &str, error: impl std::fmt::Display) -> BuildError {
    BuildError::Failed(format!("{what}: {error}"))
}

fn to_vec(v: Vec3) -> b3::Vec3 {
    b3::Vec3::new(v.x, v.y, v.z)
}

fn to_quat(q: Quat) -> b3::Quat {
    let [x, y, z, w] = q.to_array();
    b3::Quat::new(b3::Vec3::new(x, y, z), w)
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::scene::builtin;
    use atoll_physics::{
        DistanceJoint, FixedJoint, PrismaticJoint, RevoluteJoint, SphericalJoint, Transform, WheelJoint,
    };

    fn close(a: Vec3, b: Vec3) -> bool {
        (a - b).length() < 1e-6
    }

    #[test]
    fn hinge_axes_put_box3d_z_on_atoll_x() {
        let q = hinge_axes();
        assert!(close(q * Vec3::Z, Vec3::X));
        assert!(close(q * Vec3::Y, Vec3::Y));
    }

    #[test]
    fn wheel_axes_put_spin_and_travel_on_atoll_axes() {
        let q = wheel_axes();
        // Box3D's spin axis (Z) on Atoll's (X), its travel (A's X) on Atoll's (A's Y).
        assert!(close(q * Vec3::Z, Vec3::X));
        assert!(close(q * Vec3::X, Vec3::Y));
    }

    #[test]
    fn turned_frames_keep_relative_rotations() {
        // A hinge turned by 0.7 rad about Atoll's axis is turned by 0.7 rad about Box3D's Z
        // once both frames are turned: the joint angle is the same number.
        let axes = hinge_axes();
        let relative = Quat::from_rotation_x(0.7);
        let in_box3d = axes.conjugate() * relative * axes;
        let (axis, angle) = in_box3d.to_axis_angle();
        assert!(close(axis, Vec3::Z));
        assert!((angle - 0.7).abs() < 1e-5);
    }

    #[test]
    fn wraps_angles_into_one_turn() {
        assert!((wrap_angle(0.5) - 0.5).abs() < 1e-6);
        assert!((wrap_angle(2.0 * PI + 0.5) - 0.5).abs() < 1e-5);
        assert!((wrap_angle(-PI - 0.5) - (PI - 0.5)).abs() < 1e-5);
    }

    /// One dynamic 0.2 m box at `at`, joined to the world by `kind`: the world's frame at the
    /// origin with its X axis along `axis`, the box's the same frame seen from the box.
    fn one_joint(kind: JointKind, at: Vec3, axis: Vec3) -> Scene {
        let world = JointFrame::with_axis(Vec3::ZERO, axis).unwrap();
        let body = world.in_body(&Transform::new(at, Quat::IDENTITY));
        on_frames(kind, at, (world, body))
    }

    fn on_frames(kind: JointKind, at: Vec3, frames: (JointFrame, JointFrame)) -> Scene {
        let mut scene = Scene::new("one joint");
        scene.settings.sleep_enabled = false;
        let shape = SceneShape::Box { half_extents: Vec3::splat(0.1) };
        scene.bodies.push(SceneBody::new(BodyType::Dynamic, shape, at));
        scene.joints.push(SceneJoint::new(kind, None, BodyRef::Index(0), frames));
        scene
    }

    /// `scene` built in Box3D and stepped `steps` times.
    fn stepped(scene: &Scene, steps: usize) -> Box3dWorld {
        let mut world = Box3dWorld::build(scene, 1).unwrap_or_else(|e| panic!("{}: {e:?}", scene.name));
        for _ in 0..steps {
            world.step();
        }
        world
    }

    fn position(world: &Box3dWorld, index: usize) -> Vec3 {
        Vec3::from_array(world.pose(index).position)
    }

    #[test]
    fn a_hinge_about_z_swings_down_to_its_lower_limit() {
        // Hinged at the origin about Z, the box starts level at +X and falls: a negative turn
        // about Z. Limits -0.3..1.0 stop it 0.3 rad down (a flipped sign would let it reach
        // 1.0 rad, a wrong axis would not let it fall).
        let kind =
            JointKind::Revolute(RevoluteJoint { limits: Some(Limits::new(-0.3, 1.0)), ..Default::default() });
        let p = position(&stepped(&one_joint(kind, Vec3::X, Vec3::Z), 120), 0);
        assert!(p.z.abs() < 1e-3, "left the hinge's plane: {p}");
        assert!((p.y - -(0.3f32.sin())).abs() < 0.05, "not on the lower limit: {p}");
    }

    #[test]
    fn a_ball_joint_holds_its_cone() {
        // The cone (0.3 rad) is about the frames' X, which points at the box: it may droop
        // 0.3 rad and no more.
        let kind = JointKind::Spherical(SphericalJoint { swing_limit: Some(0.3), ..Default::default() });
        let p = position(&stepped(&one_joint(kind, Vec3::X, Vec3::X), 120), 0);
        let swing = p.angle_between(Vec3::X);
        assert!(p.y < -0.2 && swing < 0.35, "cone not held: {p}, {swing} rad");
    }

    #[test]
    fn a_slider_falls_along_its_axis_to_its_limit() {
        let kind = JointKind::Prismatic(PrismaticJoint {
            limits: Some(Limits::new(-0.5, 0.0)),
            ..Default::default()
        });
        let p = position(&stepped(&one_joint(kind, Vec3::ZERO, Vec3::Y), 120), 0);
        assert!((p - Vec3::new(0.0, -0.5, 0.0)).length() < 0.02, "not at the limit: {p}");
    }

    #[test]
    fn a_weld_holds_a_cantilever() {
        let kind = JointKind::Fixed(FixedJoint::default());
        let p = position(&stepped(&one_joint(kind, Vec3::X, Vec3::X), 60), 0);
        assert!((p - Vec3::X).length() < 0.05, "the weld gave: {p}");
    }

    #[test]
    fn a_rope_stops_at_its_length_and_a_rod_keeps_its_own() {
        let centres = (JointFrame::at(Vec3::ZERO), JointFrame::at(Vec3::ZERO));
        let rope = JointKind::Distance(DistanceJoint::rope(1.0));
        let p = position(&stepped(&on_frames(rope, Vec3::new(0.0, -0.5, 0.0), centres), 120), 0);
        assert!((p.y - -1.0).abs() < 0.05, "rope: {p}");
        let rod = JointKind::Distance(DistanceJoint::rigid(0.5));
        let p = position(&stepped(&on_frames(rod, Vec3::new(0.5, 0.0, 0.0), centres), 60), 0);
        assert!(p.y < -0.1 && (p.length() - 0.5).abs() < 0.02, "rod: {p}");
    }

    #[test]
    fn the_vehicle_drives_forward_on_its_wheels() {
        // Rear motors asking -10 rad/s roll the car along +X (`builtin::add_vehicle`); the
        // suspension keeps the chassis up.
        let scene = builtin::vehicle();
        let chassis = scene.bodies.iter().position(|b| b.name == "car chassis").unwrap();
        let start = scene.bodies[chassis].position;
        let p = position(&stepped(&scene, 180), chassis);
        assert!(p.x > start.x + 1.0 && p.y > 0.3, "chassis went from {start} to {p}");
    }

    #[test]
    fn a_wheel_hangs_on_its_suspension() {
        // A wheel on an axle along Z whose suspension (A's Y) is a 1 Hz spring, critically
        // damped: it settles g / (2π · 1 Hz)² = 0.25 m below its hub. Sideways travel (a wrong
        // suspension axis) would not let it sink at all.
        let kind = JointKind::Wheel(WheelJoint {
            motor: None,
            suspension: Some(Spring::new(1.0, 1.0)),
            suspension_limits: Some(Limits::new(-1.0, 1.0)),
        });
        let axle = JointFrame::with_axes(Vec3::ZERO, Vec3::Z, Vec3::Y).unwrap();
        let mut scene = on_frames(kind, Vec3::ZERO, (axle, axle));
        scene.bodies[0].shape = SceneShape::Sphere { radius: 0.3 };
        let p = position(&stepped(&scene, 240), 0);
        let sag = 9.81 / (2.0 * PI).powi(2);
        assert!((p - Vec3::new(0.0, -sag, 0.0)).length() < 0.03, "wheel at {p}, expected {sag} m down");
    }

    #[test]
    fn a_cone_wider_than_box3d_takes_is_not_built() {
        let kind = JointKind::Spherical(SphericalJoint { swing_limit: Some(2.0), ..Default::default() });
        let result = Box3dWorld::build(&one_joint(kind, Vec3::X, Vec3::X), 1);
        assert!(matches!(result, Err(BuildError::Unsupported(_))));
    }
}
