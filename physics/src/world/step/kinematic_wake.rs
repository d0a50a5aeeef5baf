//! A moving kinematic body keeps what it touches or is jointed to awake: finalising marks the
//! kinematic bodies that moved, and this pass restarts the timers of the dynamic bodies they
//! touch, waking a sleeping one in body order (so the recorded wake causes are the same on any
//! number of threads).

use crate::body::BodyType;
use crate::graph;
use crate::narrowphase::TERRAIN;
use crate::solver::FIXED_SLOT;
use crate::world::{WakeCause, World};

/// The kinematic wake's buffers.
#[derive(Clone, Debug, Default)]
pub(crate) struct KinematicWakeScratch {
    /// Per awake body, whether it is a moving kinematic body touching a sleeping dynamic
    /// body: only those walk their contact lists ([`World::keep_touched_awake`]).
    touches_sleeper: Vec<bool>,
    /// The moving kinematic bodies with their awake index, in body order.
    moving_bodies: Vec<(u32, usize)>,
}

impl KinematicWakeScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.touches_sleeper.len()
    }
}

impl World {
    /// Keeps the dynamic bodies that moving kinematic bodies touch or are jointed to awake:
    /// their sleep timers start again, and a sleeping one wakes.
    ///
    /// The awake ones are found from the solve's list of touching contacts, in contact order
    /// (a kinematic body is always awake, so its touching contacts are all there). Only a
    /// kinematic body that touches a sleeping one walks its contact list, so waking follows
    /// list order and the recorded causes are the walk's. Each wall of a tumbler walked its
    /// thousand-odd contacts every step, a cache miss each, for the few dozen it touches.
    pub(super) fn keep_touched_awake(&mut self) {
        let scratch = &mut self.scratch;
        let count = scratch.solve.awake.len();
        scratch.kinematic_wake.touches_sleeper.clear();
        scratch.kinematic_wake.touches_sleeper.resize(count, false);
        let (solver_index, moving) = (&scratch.solve.solver_index, &scratch.finalize.moving_kinematic);
        // The awake index of `body` when it is a moving kinematic body (solver index 0, the
        // fixed slot, is no awake body).
        let moving_at = |body: u32| {
            let k = (solver_index[body as usize] as usize).checked_sub(1)?;
            moving[k].then_some(k)
        };
        for &id in &scratch.solve.touching {
            let (a, b) = self.contacts.bodies[id as usize];
            if b == TERRAIN {
                continue;
            }
            for (kinematic, other) in [(a, b), (b, a)] {
                let Some(k) = moving_at(kinematic) else { continue };
                let other_body = &mut self.bodies.bodies[other as usize];
                if other_body.body_type != BodyType::Dynamic {
                    continue;
                }
                if other_body.awake {
                    other_body.sleep_timer = 0.0;
                    // As in `restart_sleep_timer` (the bodies are borrowed here).
                    let slot = solver_index[other as usize];
                    if slot != FIXED_SLOT {
                        scratch.sleep_timers.timers[slot as usize - 1] = 0.0;
                    }
                } else {
                    scratch.kinematic_wake.touches_sleeper[k] = true;
                }
            }
        }
        #[cfg(debug_assertions)]
        self.assert_touching_lists_agree();
        // In body order, whatever order the solve's parts put the awake list in: what wakes
        // first decides the causes recorded and the order of the woken bodies.
        let scratch = &mut self.scratch;
        let mut moving = std::mem::take(&mut scratch.kinematic_wake.moving_bodies);
        moving.clear();
        let (awake, flags) = (&scratch.solve.awake, &scratch.finalize.moving_kinematic);
        moving.extend((0..awake.len()).filter(|&k| flags[k]).map(|k| (awake[k], k)));
        moving.sort_unstable();
        for &(body, k) in &moving {
            if self.scratch.kinematic_wake.touches_sleeper[k] {
                self.keep_touching_awake(body);
            }
            self.keep_jointed_awake(body);
        }
        self.scratch.kinematic_wake.moving_bodies = moving;
    }

    /// Checks that every moving kinematic body's touching contacts, as its contact list has
    /// them, are in the solve's list of touching contacts.
    #[cfg(debug_assertions)]
    fn assert_touching_lists_agree(&self) {
        let listed: std::collections::HashSet<u32> = self.scratch.solve.touching.iter().copied().collect();
        for k in 0..self.scratch.solve.awake.len() {
            if !self.scratch.finalize.moving_kinematic[k] {
                continue;
            }
            let body = self.scratch.solve.awake[k];
            graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, body, |c, other| {
                let touching = other != TERRAIN && self.contacts.contacts[c as usize].touching;
                debug_assert!(
                    !touching || listed.contains(&c),
                    "touching contact {c} of kinematic body {body}"
                );
            });
        }
    }

    /// Resets the sleep timers of the dynamic bodies that kinematic body `body` touches (waking
    /// any that slept).
    fn keep_touching_awake(&mut self, body: u32) {
        let mut touched = std::mem::take(&mut self.scratch.candidates);
        touched.clear();
        graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, body, |c, other| {
            if other != TERRAIN && self.contacts.contacts[c as usize].touching {
                touched.push(other);
            }
        });
        for &other in &touched {
            if self.bodies.bodies[other as usize].body_type == BodyType::Dynamic {
                let cause =
                    WakeCause::Kinematic { body: self.cause_body(other), kinematic: self.cause_body(body) };
                self.wake(other, cause);
                self.restart_sleep_timer(other);
            }
        }
        self.scratch.candidates = touched;
    }
}
