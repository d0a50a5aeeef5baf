//! [`Stage::Finalize`]: the solved motion written back into the awake bodies, forces cleared,
//! speed caps and non-finite states caught (`world/faults.rs` reports them), sleep timers
//! advanced (`sleep_timers.rs`), the continuous stage's quick test taken, and what moving
//! kinematic bodies touch kept awake (`kinematic_wake.rs`).

use super::continuous::may_reach_static;
use crate::body::{BodyType, NONE};
use crate::math::{Transform, Vec3};
use crate::parallel::{Claims, SharedSlice, run_team};
#[cfg(doc)]
use crate::profile::Stage;
use crate::solver::SpeedCaps;
use crate::team_policy::{BODY_BLOCK, MIN_SOLVER_BODIES_FOR_TEAM, helpers_for};
use crate::world::World;
use crate::world::faults::FaultMark;
use std::sync::atomic::{AtomicBool, Ordering};

/// The finalising stage's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct FinalizeScratch {
    /// A claim word per block of the awake list.
    claims: Claims,
    /// Per awake body, whether it is a kinematic body that moved this step (so the pass that
    /// keeps what such bodies touch awake reads a byte a body).
    pub(super) moving_kinematic: Vec<bool>,
    /// Per awake body, whether finalising capped or stopped it (`faults.rs` reports them).
    pub(crate) fault_marks: Vec<FaultMark>,
}

impl FinalizeScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.moving_kinematic.len() + self.fault_marks.len()
    }
}

impl World {
    /// Writes the solved motion back into the awake bodies, clears applied forces and advances
    /// sleep timers. A moving kinematic body keeps what it touches awake. A body the solver
    /// drove past a speed cap is slowed to it, and one whose state turned non-finite stays
    /// where the step began, at rest; both are marked (`StepScratch::fault_marks`), and the
    /// return says whether any was.
    pub(super) fn finalize_bodies(&mut self) -> bool {
        let s = self.settings;
        let helpers = helpers_for(&self.threads, self.scratch.solve.awake.len(), MIN_SOLVER_BODIES_FOR_TEAM);
        let static_bounds = if s.continuous_collision { self.static_bounds() } else { None };
        let scratch = &mut self.scratch;
        let count = scratch.solve.awake.len();
        scratch.finalize.claims.reset(count.div_ceil(BODY_BLOCK));
        scratch.finalize.moving_kinematic.resize(count, false);
        scratch.continuous.may_reach_static.resize(count, false);
        scratch.sleep_timers.timers.resize(count, 0.0);
        scratch.sleep_timers.body_islands.resize(count, NONE);
        scratch.finalize.fault_marks.resize(count, FaultMark::None);
        let caps = SpeedCaps { linear: s.max_linear_speed, angular: s.max_angular_speed };
        let faulted = AtomicBool::new(false);
        let (claims, awake) = (scratch.finalize.claims.words(), &scratch.solve.awake);
        let (solver_bodies, motions, velocities) =
            (&scratch.solve.solver_bodies, &scratch.solve.motions, &scratch.solve.velocities);
        // A world of one-shape bodies looks up no extents.
        let children = Some(&self.bodies.children).filter(|c| !c.compounds().is_empty());
        let bodies = SharedSlice::new(&mut self.bodies.bodies);
        let moving_kinematic = SharedSlice::new(&mut scratch.finalize.moving_kinematic);
        let may_reach = SharedSlice::new(&mut scratch.continuous.may_reach_static);
        let sleep_timers = SharedSlice::new(&mut scratch.sleep_timers.timers);
        let body_islands = SharedSlice::new(&mut scratch.sleep_timers.body_islands);
        let fault_marks = SharedSlice::new(&mut scratch.finalize.fault_marks);
        // In blocks of the awake list the world's threads share: each body is written once.
        run_team(helpers, |team| {
            team.for_blocks(count, BODY_BLOCK, claims, |block| {
                // SAFETY: each block of the awake list is one member's in this stage.
                let (moving_kinematic, may_reach, sleep_timers, body_islands, fault_marks) = unsafe {
                    (
                        moving_kinematic.slice_mut(block.clone()),
                        may_reach.slice_mut(block.clone()),
                        sleep_timers.slice_mut(block.clone()),
                        body_islands.slice_mut(block.clone()),
                        fault_marks.slice_mut(block.clone()),
                    )
                };
                let mut block_faulted = false;
                for k in block.clone() {
                    let sb = &solver_bodies[k + 1];
                    // SAFETY: the awake list holds each body once, and each block of it is one
                    // member's in this stage.
                    let b = unsafe { &mut bodies.slice_mut(awake[k] as usize..awake[k] as usize + 1)[0] };
                    let center = b.center() + motions[k + 1].first();
                    let rotation = (sb.dq * b.transform.rotation).normalize();
                    let transform = Transform::new(center - rotation * b.local_center, rotation);
                    let velocity = &velocities[k + 1];
                    // The last relax and restitution may have driven it past a cap again.
                    let (linear, linear_capped) = cap(velocity.first(), caps.linear);
                    let (angular, angular_capped) = cap(velocity.second(), caps.angular);
                    let local = k - block.start;
                    let finite = transform.position.is_finite()
                        && transform.rotation.is_finite()
                        && linear.is_finite()
                        && angular.is_finite();
                    fault_marks[local] = if !finite {
                        // Stopped where the step began: nothing of it may reach the world.
                        b.linear_velocity = Vec3::ZERO;
                        b.angular_velocity = Vec3::ZERO;
                        FaultMark::NonFinite
                    } else {
                        b.transform = transform;
                        b.linear_velocity = linear;
                        b.angular_velocity = angular;
                        if sb.capped || linear_capped || angular_capped {
                            FaultMark::Capped
                        } else {
                            FaultMark::None
                        }
                    };
                    block_faulted |= fault_marks[local] != FaultMark::None;
                    b.force = Vec3::ZERO;
                    b.torque = Vec3::ZERO;
                    let restless = !b.can_sleep
                        || b.linear_velocity.length_squared()
                            > s.sleep_linear_threshold * s.sleep_linear_threshold
                        || b.angular_velocity.length_squared()
                            > s.sleep_angular_threshold * s.sleep_angular_threshold;
                    b.sleep_timer = if restless { 0.0 } else { b.sleep_timer + s.dt };
                    sleep_timers[local] = b.sleep_timer;
                    body_islands[local] = b.island.id;
                    moving_kinematic[local] = b.body_type == BodyType::Kinematic && restless;
                    // The continuous stage's quick test, here where the body's lines are at
                    // hand: it reads nothing finalising changes.
                    may_reach[local] = finite
                        && static_bounds.is_some_and(|bounds| {
                            let compound = children.map(|c| (c, awake[k]));
                            may_reach_static(
                                b,
                                compound,
                                sb,
                                motions[k + 1].first(),
                                &bounds,
                                s.continuous_gap,
                            )
                        });
                }
                if block_faulted {
                    faulted.store(true, Ordering::Relaxed);
                }
            });
        });
        if self.scratch.finalize.moving_kinematic.contains(&true) {
            self.keep_touched_awake();
        }
        faulted.into_inner()
    }
}

/// `v` scaled down to length `max` where it is longer, and whether it was (as the position
/// stage caps a velocity, on three lanes; the squares compared, so no square root below it).
#[inline]
fn cap(v: Vec3, max: f32) -> (Vec3, bool) {
    let squared = v.length_squared();
    if squared > max * max { (v * (max / squared.sqrt()), true) } else { (v, false) }
}
