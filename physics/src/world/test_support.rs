//! Checks and shortcuts that only tests need, behind the `test-support` feature so they stay
//! out of the public API (the engine's own tests turn it on through a dev-dependency).

use super::World;
use crate::body::{BodyType, NONE};
use crate::narrowphase::TERRAIN;
use crate::solver::SolverLanes;

impl World {
    /// Sets a body's velocity behind the tape's back, as a solver fault would: no input is
    /// logged, so a history sees an unexplained change (tests of `History::find_blow_up`).
    pub fn inject_velocity_for_test(&mut self, id: crate::body::BodyId, velocity: crate::math::Vec3) {
        let slot = id.index() as usize;
        self.bodies.bodies[slot].linear_velocity = velocity;
    }

    /// Runs the contact and plain ball joint passes the widest way up to `widest` the CPU
    /// allows.
    pub fn set_solver_lanes(&mut self, widest: SolverLanes) {
        self.scratch.solve.contact_solver.set_widest_lanes(widest);
        self.scratch.solve.joint_solver.set_widest_lanes(widest);
    }

    /// Solves every joint through the general scalar rows (`true`), none through the wide
    /// revolute, spherical and plain ball batches; `false`, the default, gives each joint its
    /// fast path. Tests hold the fast paths to the general rows' behaviour.
    pub fn set_general_joints_only(&mut self, general_only: bool) {
        self.scratch.solve.joint_solver.set_general_only(general_only);
    }

    /// Carries a touching pair's manifold along while the pair barely moves (`true`, the
    /// default), or collides every touching pair afresh each step (`false`): tests hold the
    /// carry to the collision it stands in for.
    pub fn set_manifold_carrying(&mut self, carry: bool) {
        self.scratch.narrowphase.collide_every_pair = !carry;
    }

    /// Solves groups directly above mass ratio `ratio` across a contact or joint
    /// (`solver::direct`'s `MASS_RATIO` by default; infinite: never), for tests that show
    /// what the passes alone do.
    pub fn set_direct_mass_ratio(&mut self, ratio: f32) {
        self.scratch.solve.direct_solver.set_mass_ratio(ratio);
    }

    /// Whether every joint is solved through the general scalar rows.
    pub fn general_joints_only(&self) -> bool {
        self.scratch.solve.joint_solver.general_only()
    }

    /// Sets body `id`'s velocities without the checks `set_linear_velocity` makes: a test that
    /// needs a non-finite state to see the step stop and isolate it makes one here.
    pub fn set_velocities_unchecked(&mut self, id: crate::BodyId, linear: crate::Vec3, angular: crate::Vec3) {
        let b = self.bodies.get_mut(id).expect("a live body");
        b.linear_velocity = linear;
        b.angular_velocity = angular;
    }

    /// The way the contact and plain ball joint passes run.
    pub fn solver_lanes(&self) -> SolverLanes {
        self.scratch.solve.contact_solver.lanes_in_use()
    }

    /// The parts the last step's substeps ran as a pipeline of (`Team::pipeline`), or 0 when
    /// they ran colour by colour (alone, or with joints).
    pub fn pipelined_parts(&self) -> usize {
        self.scratch.solve.contact_solver.pipelined_parts()
    }

    /// Runs every pending split now (tests compare islands with the reference builder after it).
    pub fn split_all_islands(&mut self) {
        self.note_edit(false);
        while let Some(id) = self.islands.split_candidate(f32::MIN) {
            self.islands.split(&mut super::body_graph!(self), id);
        }
        // Sleeping islands that were flagged wait for their next wake; split them too.
        for id in 0..self.islands.islands.len() as u32 {
            let island = &self.islands.islands[id as usize];
            if island.alive && island.may_split {
                self.islands.split(&mut super::body_graph!(self), id);
            }
        }
    }

    /// Checks the island bookkeeping against the bodies and contacts: list membership and
    /// counts, awake flags and awake sets agree. For tests and debugging; costs O(world).
    pub fn validate_islands(&self) -> Result<(), String> {
        let bodies = &self.bodies.bodies;
        let contacts = &self.contacts.contacts;
        let joints = &self.joints.joints;
        let mut listed = vec![false; bodies.len()];
        for (id, island) in self.islands.islands.iter().enumerate().filter(|(_, i)| i.alive) {
            let (mut count, mut prev, mut body) = (0, NONE, island.bodies.head);
            while body != NONE {
                let b = &bodies[body as usize];
                if b.island.id != id as u32 || b.island.prev != prev || !b.alive {
                    return Err(format!(
                        "island {id}: body {body} has island {} prev {}",
                        b.island.id, b.island.prev
                    ));
                }
                if b.awake != island.awake || self.awake_bodies.get(body as usize) != island.awake {
                    return Err(format!(
                        "island {id} (awake {}): body {body} awake {}",
                        island.awake, b.awake
                    ));
                }
                listed[body as usize] = true;
                count += 1;
                prev = body;
                body = b.island.next;
            }
            if count != island.bodies.count || prev != island.bodies.tail {
                return Err(format!("island {id}: {count} bodies listed, {} counted", island.bodies.count));
            }
            let (mut count, mut contact) = (0, island.contacts.head);
            while contact != NONE {
                let c = &contacts[contact as usize];
                if c.island.id != id as u32 || !c.alive || !c.touching {
                    return Err(format!("island {id}: contact {contact} is not one of its edges"));
                }
                if bodies[c.body_a as usize].island.id != id as u32
                    || bodies[c.body_b as usize].island.id != id as u32
                {
                    return Err(format!("island {id}: contact {contact} joins bodies of other islands"));
                }
                count += 1;
                contact = c.island.next;
            }
            if count != island.contacts.count {
                return Err(format!(
                    "island {id}: {count} contacts listed, {} counted",
                    island.contacts.count
                ));
            }
            let (mut count, mut joint) = (0, island.joints.head);
            while joint != NONE {
                let j = &joints[joint as usize];
                if j.island.id != id as u32 || !j.alive || !j.enabled {
                    return Err(format!("island {id}: joint {joint} is not one of its edges"));
                }
                if j.body_a == NONE
                    || bodies[j.body_a as usize].island.id != id as u32
                    || bodies[j.body_b as usize].island.id != id as u32
                {
                    return Err(format!("island {id}: joint {joint} joins bodies of other islands"));
                }
                count += 1;
                joint = j.island.next;
            }
            if count != island.joints.count {
                return Err(format!("island {id}: {count} joints listed, {} counted", island.joints.count));
            }
        }
        for (i, b) in bodies.iter().enumerate().filter(|(_, b)| b.alive) {
            let dynamic = b.body_type == BodyType::Dynamic;
            if dynamic != listed[i] {
                return Err(format!("body {i} (dynamic {dynamic}) listed in an island: {}", listed[i]));
            }
            if b.body_type == BodyType::Kinematic && !self.awake_bodies.get(i) {
                return Err(format!("kinematic body {i} is not awake"));
            }
        }
        for (i, c) in contacts.iter().enumerate().filter(|(_, c)| c.alive) {
            let awake =
                bodies[c.body_a as usize].awake || (c.body_b != TERRAIN && bodies[c.body_b as usize].awake);
            if awake && !self.awake_contacts.get(i) {
                return Err(format!("contact {i} touches an awake body but is not in the awake set"));
            }
        }
        for (i, j) in joints.iter().enumerate().filter(|(_, j)| j.alive) {
            let dynamic = |b: u32| b != NONE && bodies[b as usize].body_type == BodyType::Dynamic;
            let edge = j.enabled && dynamic(j.body_a) && dynamic(j.body_b);
            if edge != (j.island.id != NONE) {
                return Err(format!("joint {i} (an edge: {edge}) has island {}", j.island.id));
            }
            let awake =
                (j.body_a != NONE && bodies[j.body_a as usize].awake) || bodies[j.body_b as usize].awake;
            if awake && !self.awake_joints.get(i) {
                return Err(format!("joint {i} links an awake body but is not in the awake set"));
            }
        }
        Ok(())
    }
}
