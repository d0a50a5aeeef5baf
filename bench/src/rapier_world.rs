//! The Rapier side: the same `atoll_physics::Scene` turned into a Rapier world.
//!
//! Every scene body becomes one rigid body with one collider of the same shape, size, density,
//! friction and restitution. Rapier's math is glam 0.33 through its own types and Atoll's is
//! glam 0.34, so values cross over as arrays.

use crate::engine::{Engine, Pose};
use crate::terrain::data::TerrainData;
use atoll_physics::scene::{BodyRef, SceneJoint, SceneTerrain};
use atoll_physics::world::{TERRAIN_FRICTION, TERRAIN_RESTITUTION};
use atoll_physics::{BodyType, KinematicMotion, Material, Quat, Scene, SceneBody, SceneShape, Vec3};
use atoll_physics::{JointFrame, JointKind};
use rapier3d::parry::shape::TriMeshFlags;
use rapier3d::prelude::{
    CoefficientCombineRule, ColliderBuilder, GenericJoint, GenericJointBuilder, JointAxesMask, JointAxis,
    PhysicsWorld, RigidBodyBuilder, RigidBodyHandle,
};

type RVec = rapier3d::math::Vector;
type RQuat = rapier3d::math::Rotation;
type RPose = rapier3d::math::Pose;

/// A kinematic body driven along a [`KinematicMotion`] by setting its next pose every step
/// (Rapier's position-based kinematic bodies), so it follows the same path as in Atoll.
struct DrivenBody {
    handle: RigidBodyHandle,
    start_position: Vec3,
    start_rotation: Quat,
    motion: KinematicMotion,
}

impl DrivenBody {
    /// The pose after `time` seconds of the motion: a rigid turn about the pivot. Atoll drives
    /// its bodies each step so they land on this pose (`World::step`, kinematic motions).
    fn pose_at(&self, time: f32) -> RPose {
        let (position, rotation) = self.motion.moved(self.start_position, self.start_rotation, time);
        to_pose(position, rotation)
    }
}

/// A Rapier world holding a scene, and the handles of its bodies in scene order.
pub struct RapierWorld {
    world: PhysicsWorld,
    handles: Vec<RigidBodyHandle>,
    driven: Vec<DrivenBody>,
    steps: u64,
}

impl RapierWorld {
    /// Builds the scene: gravity, `dt` and solver substeps from its settings; no sleeping when
    /// the scene turns sleeping off. With the `rapier-parallel` feature the world gets its own
    /// pool of `threads` threads (one included, so it never falls back on rayon's global
    /// pool); without it Rapier steps on the caller's thread and `threads` must be 1 (see
    /// `EngineKind::can_thread`).
    pub fn build(scene: &Scene, threads: usize) -> Result<Self, String> {
        let settings = &scene.settings;
        let mut world = PhysicsWorld::new();
        #[cfg(feature = "rapier-parallel")]
        world.configure_thread_pool(threads).map_err(|e| format!("Rapier thread pool: {e}"))?;
        #[cfg(not(feature = "rapier-parallel"))]
        if threads != 1 {
            return Err(format!(
                "Rapier was built without `rapier-parallel`: one thread only, not {threads}"
            ));
        }
        world.gravity = to_vec(settings.gravity);
        world.integration_parameters.dt = settings.dt;
        // Rapier's "solver iterations" are substeps: its solver divides `dt` by this count and
        // runs integrate / solve / relax once per part, as Atoll's soft step does per substep
        // (each with one velocity iteration and one relaxation iteration, Rapier's defaults).
        world.integration_parameters.num_solver_iterations = settings.substeps as usize;
        let mut handles = Vec::with_capacity(scene.bodies.len());
        let mut driven = Vec::new();
        for (index, body) in scene.bodies.iter().enumerate() {
            let can_sleep = body.can_sleep && settings.sleep_enabled;
            let degenerate = || format!("body {index}: degenerate hull");
            let own = collider(&body.shape, body.material).ok_or_else(degenerate)?;
            let handle = world.insert(rigid_body(body, can_sleep), own).0;
            // A compound body's further shapes: colliders on the same rigid body, at their poses.
            for child in &body.children {
                let part = collider(&child.shape, child.material).ok_or_else(degenerate)?;
                world.insert_collider(part.position(to_pose(child.position, child.rotation)), Some(handle));
            }
            if let (BodyType::Kinematic, Some(motion)) = (body.body_type, body.motion) {
                driven.push(DrivenBody {
                    handle,
                    start_position: body.position,
                    start_rotation: body.rotation,
                    motion,
                });
            }
            handles.push(handle);
        }
        if let Some(terrain) = &scene.terrain {
            world.insert(RigidBodyBuilder::fixed(), terrain_collider(terrain)?);
        }
        // Joints to the world hang from one fixed body at the origin without a collider (an
        // Atoll world side is the identity frame).
        let mut world_anchor = None;
        for (index, joint) in scene.joints.iter().enumerate() {
            let handle_of = |r: &BodyRef| -> Result<RigidBodyHandle, String> {
                let i = match r {
                    BodyRef::Index(i) => *i,
                    BodyRef::Name(n) => {
                        scene.bodies.iter().position(|b| &b.name == n).ok_or("unknown body")?
                    }
                };
                handles.get(i).copied().ok_or_else(|| format!("joint {index}: no body {i}"))
            };
            let body_a = match &joint.body_a {
                Some(r) => handle_of(r)?,
                None => *world_anchor.get_or_insert_with(|| world.bodies.insert(RigidBodyBuilder::fixed())),
            };
            let body_b = handle_of(&joint.body_b)?;
            let data = rapier_joint(joint).map_err(|e| format!("joint {index}: {e}"))?;
            world.impulse_joints.insert(body_a, body_b, data, true);
        }
        Ok(RapierWorld { world, handles, driven, steps: 0 })
    }
}

impl Engine for RapierWorld {
    fn step(&mut self) {
        self.steps += 1;
        let time = self.steps as f32 * self.world.integration_parameters.dt;
        for d in &self.driven {
            let pose = d.pose_at(time);
            self.world.bodies[d.handle].set_next_kinematic_position(pose);
        }
        self.world.step();
    }

    fn pose(&self, index: usize) -> Pose {
        let p = self.world.bodies[self.handles[index]].position();
        Pose { position: p.translation.to_array(), rotation: p.rotation.to_array() }
    }
}

/// The rigid body of a scene body: type, pose, velocities, damping, gravity scale.
fn rigid_body(body: &SceneBody, can_sleep: bool) -> RigidBodyBuilder {
    let builder = match body.body_type {
        BodyType::Static => RigidBodyBuilder::fixed(),
        BodyType::Kinematic if body.motion.is_some() => RigidBodyBuilder::kinematic_position_based(),
        BodyType::Kinematic => RigidBodyBuilder::kinematic_velocity_based(),
        BodyType::Dynamic => RigidBodyBuilder::dynamic(),
    };
    builder
        .pose(to_pose(body.position, body.rotation))
        .linvel(to_vec(body.linear_velocity))
        .angvel(to_vec(body.angular_velocity))
        // Both engines default to zero damping; the scenes benchmarked here use none, so the
        // different damping formulas never come into play.
        .linear_damping(body.linear_damping)
        .angular_damping(body.angular_damping)
        .gravity_scale(body.gravity_scale)
        .can_sleep(can_sleep)
}

/// Rapier's impulse joint for a scene joint: the same frames (Rapier's joint axis is its
/// frames' X axis, as Atoll's), the same locked axes, limits on the same axes, and motors
/// (velocity motors with a force cap; a joint's friction is a motor at speed 0). A spherical
/// joint's swing cone becomes limits on the two swing axes (Rapier has no cone).
fn rapier_joint(joint: &SceneJoint) -> Result<GenericJoint, String> {
    // A velocity motor's damping: large, so the cap on the force is what limits it, as an
    // Atoll motor's impulse cap does.
    const MOTOR_DAMPING: f32 = 1.0e4;
    let builder = match joint.kind {
        JointKind::Revolute(j) => {
            let mut b = GenericJointBuilder::new(JointAxesMask::LOCKED_REVOLUTE_AXES);
            if let Some(l) = j.limits {
                b = b.limits(JointAxis::AngX, [l.lower, l.upper]);
            }
            if let Some(m) = j.motor {
                b = b
                    .motor_velocity(JointAxis::AngX, m.speed, MOTOR_DAMPING)
                    .motor_max_force(JointAxis::AngX, m.max_force);
            }
            if j.spring.is_some() {
                return Err("revolute springs are not benchmarked".into());
            }
            b
        }
        JointKind::Spherical(j) => {
            let mut b = GenericJointBuilder::new(JointAxesMask::LOCKED_SPHERICAL_AXES);
            if let Some(cone) = j.swing_limit {
                b = b.limits(JointAxis::AngY, [-cone, cone]).limits(JointAxis::AngZ, [-cone, cone]);
            }
            if let Some(l) = j.twist_limits {
                b = b.limits(JointAxis::AngX, [l.lower, l.upper]);
            }
            if j.friction > 0.0 {
                for axis in [JointAxis::AngX, JointAxis::AngY, JointAxis::AngZ] {
                    b = b.motor_velocity(axis, 0.0, MOTOR_DAMPING).motor_max_force(axis, j.friction);
                }
            }
            if j.spring.is_some() {
                return Err("spherical springs are not benchmarked".into());
            }
            b
        }
        JointKind::Fixed(j) if j.linear_spring.is_none() && j.angular_spring.is_none() => {
            GenericJointBuilder::new(JointAxesMask::LOCKED_FIXED_AXES)
        }
        other => return Err(format!("{:?} joints are not benchmarked", other.joint_type())),
    };
    Ok(builder
        .local_frame1(to_frame(&joint.frame_a))
        .local_frame2(to_frame(&joint.frame_b))
        .contacts_enabled(joint.collide_connected)
        .build())
}

fn to_frame(frame: &JointFrame) -> RPose {
    to_pose(frame.anchor, frame.rotation)
}

/// The collider of a shape of `material`, `None` for a hull Rapier cannot build.
fn collider(shape: &SceneShape, material: Material) -> Option<ColliderBuilder> {
    let builder = match shape {
        SceneShape::Sphere { radius } => ColliderBuilder::ball(*radius),
        // Both engines' capsules lie along local Y with `half_height` the inner segment's half.
        SceneShape::Capsule { half_height, radius } => ColliderBuilder::capsule_y(*half_height, *radius),
        SceneShape::Box { half_extents } => {
            ColliderBuilder::cuboid(half_extents.x, half_extents.y, half_extents.z)
        }
        SceneShape::Hull { points } => {
            let points: Vec<RVec> = points.iter().map(|&p| to_vec(p)).collect();
            ColliderBuilder::convex_hull(&points)?
        }
    };
    let m = material;
    // Atoll combines friction by the geometric mean and restitution by the maximum; Rapier has
    // both rules, and a pair uses them when either collider asks for them.
    Some(
        builder
            .density(m.density)
            .friction(m.friction)
            .friction_combine_rule(CoefficientCombineRule::GeometricMean)
            .restitution(m.restitution)
            .restitution_combine_rule(CoefficientCombineRule::Max),
    )
}

/// The scene's terrain as one fixed trimesh collider of the very triangles Atoll collides
/// with (every chunk's mesh at its world position), with Rapier's own treatment of internal
/// edges (`FIX_INTERNAL_EDGES`, after merging the vertices that chunk seams duplicate) and
/// the terrain's friction and restitution.
fn terrain_collider(terrain: &SceneTerrain) -> Result<ColliderBuilder, String> {
    let terrain = terrain.to_terrain().map_err(|e| e.to_string())?;
    let triangles = TerrainData::new(terrain).all_triangles();
    let flags = TriMeshFlags::FIX_INTERNAL_EDGES | TriMeshFlags::MERGE_DUPLICATE_VERTICES;
    let builder = ColliderBuilder::trimesh_with_flags(triangles.vertices, triangles.indices, flags)
        .map_err(|e| format!("terrain trimesh: {e:?}"))?;
    Ok(builder
        .friction(TERRAIN_FRICTION)
        .friction_combine_rule(CoefficientCombineRule::GeometricMean)
        .restitution(TERRAIN_RESTITUTION)
        .restitution_combine_rule(CoefficientCombineRule::Max))
}

fn to_vec(v: Vec3) -> RVec {
    RVec::from_array(v.to_array())
}

fn to_pose(position: Vec3, rotation: Quat) -> RPose {
    RPose::from_parts(to_vec(position), RQuat::from_array(rotation.to_array()))
}
