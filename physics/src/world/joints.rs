//! Joints in the world: creating, destroying, enabling and reading them, keeping them in the
//! body graph and the islands, the collision filter between jointed bodies, and breaking.

use super::World;
use crate::body::{Body, BodyId, BodyType, NONE};
use crate::error::AtollError;
use crate::graph;
use crate::island::wake_cause::WakeCause;

use crate::joint::{
    Joint, JointDesc, JointEvent, JointEventKind, JointFrame, JointId, JointKind, JointPose, JointView,
};
use crate::math::Vec3;
use crate::recording::input::Input;

impl World {
    /// Adds a joint; the description is checked first (and nothing changes when it is
    /// refused): live bodies, not a body to itself, at least one dynamic body, sound frames and
    /// parameters. The bodies wake; an enabled joint between two dynamic bodies joins their
    /// islands; unless `collide_connected`, a contact between the two is dropped.
    pub fn create_joint(&mut self, desc: &JointDesc) -> Result<JointId, AtollError> {
        desc.validate()?;
        let body_b = self.bodies.get(desc.body_b).map(|_| desc.body_b.index())?;
        let body_a = match desc.body_a {
            Some(a) => self.bodies.get(a).map(|_| a.index())?,
            None => NONE,
        };
        let dynamic =
            |slot: u32| slot != NONE && self.bodies.bodies[slot as usize].body_type == BodyType::Dynamic;
        if !dynamic(body_a) && !dynamic(body_b) {
            return Err(AtollError::invalid(
                "joint bodies",
                "at least one of a joint's bodies must be dynamic",
            ));
        }
        self.note_edit(true);
        let id = self.joints.insert(desc, body_a, body_b);
        let slot = id.index();
        graph::attach(&mut self.bodies.bodies, &mut self.joints.joints, slot);
        if !desc.collide_connected && body_a != NONE {
            self.destroy_contacts_between(body_a, body_b);
        }
        self.activate_joint(slot);
        self.log_input(|| Input::CreateJoint(*desc));
        Ok(id)
    }

    /// Changes a joint's parameters, frames and options in place, keeping its id, its island
    /// and, while its type stays the same, the impulses it warm starts from (an edit made while
    /// the simulation runs then does not jolt a loaded structure). The bodies cannot change
    /// here: a description naming other bodies is refused (destroy the joint and create
    /// another). Checked like [`World::create_joint`]; nothing changes when refused. Its bodies
    /// wake.
    pub fn set_joint_desc(&mut self, id: JointId, desc: &JointDesc) -> Result<(), AtollError> {
        let slot = self.joints.slot(id)?;
        desc.validate()?;
        let j = &self.joints.joints[slot as usize];
        let body_a = desc.body_a.map_or(Ok(NONE), |a| self.bodies.get(a).map(|_| a.index()))?;
        let body_b = self.bodies.get(desc.body_b).map(|_| desc.body_b.index())?;
        if (body_a, body_b) != (j.body_a, j.body_b) {
            return Err(AtollError::invalid(
                "joint bodies",
                "a joint's bodies cannot change; destroy it and create another",
            ));
        }
        let same_type = j.kind.joint_type() == desc.kind.joint_type();
        let was_filtering = j.enabled && !j.collide_connected;
        self.note_edit(true);
        // Enabling and disabling link and unlink the island; go through them with the old
        // options, then take the new ones.
        self.unlogged(|w| w.set_joint_enabled(id, desc.enabled))?;
        let j = &mut self.joints.joints[slot as usize];
        j.set_solve_inputs(desc.kind, desc.break_force, desc.break_torque);
        j.frame_a = desc.frame_a;
        j.frame_b = desc.frame_b;
        j.collide_connected = desc.collide_connected;
        if !same_type {
            j.clear_solution();
        }
        let filtering = j.enabled && !j.collide_connected;
        let joint = id;
        for body in [body_a, body_b] {
            if body != NONE {
                self.wake(body, WakeCause::Joint { body: self.cause_body(body), joint });
                if was_filtering && !filtering {
                    // The pair may collide now: let the broadphase look at it again.
                    self.broadphase.touch_proxy(self.bodies.bodies[body as usize].proxy);
                }
            }
        }
        if filtering && !was_filtering && body_a != NONE {
            self.destroy_contacts_between(body_a, body_b);
        }
        self.log_input(|| Input::SetJointDesc { joint: id, desc: *desc });
        Ok(())
    }

    /// Removes a joint. Its bodies wake, its island may split, and unless the joint let them
    /// collide the two bodies are checked for contact again.
    pub fn destroy_joint(&mut self, id: JointId) -> Result<(), AtollError> {
        let slot = self.joints.slot(id)?;
        self.note_edit(true);
        self.destroy_joint_slot(slot);
        self.log_input(|| Input::DestroyJoint(id));
        Ok(())
    }

    fn destroy_joint_slot(&mut self, slot: u32) {
        self.deactivate_joint(slot);
        self.awake_joints.clear(slot as usize);
        graph::detach(&mut self.bodies.bodies, &mut self.joints.joints, slot);
        self.joints.remove(slot);
    }

    /// Enables or disables a joint. A disabled joint is not solved, links no island and does
    /// not stop its bodies colliding; enabling it again starts it from rest.
    pub fn set_joint_enabled(&mut self, id: JointId, enabled: bool) -> Result<(), AtollError> {
        let slot = self.joints.slot(id)?;
        if self.joints.joints[slot as usize].enabled == enabled {
            return Ok(());
        }
        self.note_edit(false);
        if enabled {
            self.joints.joints[slot as usize].enabled = true;
            self.activate_joint(slot);
        } else {
            self.deactivate_joint(slot);
            self.joints.joints[slot as usize].enabled = false;
        }
        self.log_input(|| Input::SetJointEnabled { joint: id, enabled });
        Ok(())
    }

    /// Wakes a joint's bodies, links its island and puts it in the awake set.
    fn activate_joint(&mut self, slot: u32) {
        let (a, b) = (self.joints.joints[slot as usize].body_a, self.joints.joints[slot as usize].body_b);
        self.joints.joints[slot as usize].clear_solution();
        let joint = self.joints.id_at(slot);
        for body in [a, b] {
            if body != NONE {
                self.wake(body, WakeCause::Joint { body: self.cause_body(body), joint });
            }
        }
        self.link_joint(slot);
        self.awake_joints.set(slot as usize);
    }

    /// The opposite of [`World::activate_joint`]: the joint leaves its island (it stays in the
    /// awake set, which follows its bodies; the solve skips disabled joints), its bodies wake,
    /// and the pair is looked at again by the broadphase.
    fn deactivate_joint(&mut self, slot: u32) {
        let j = &self.joints.joints[slot as usize];
        let (a, b, filtered) = (j.body_a, j.body_b, j.enabled && !j.collide_connected);
        self.islands.unlink_joint(&mut self.joints.joints, slot);
        self.joints.joints[slot as usize].clear_solution();
        for body in [a, b] {
            if body == NONE {
                continue;
            }
            let joint = self.joints.id_at(slot);
            self.wake(body, WakeCause::Joint { body: self.cause_body(body), joint });
            // The broadphase only pairs proxies that moved; mark both so that bodies the
            // joint kept from colliding get their contact now.
            if filtered {
                self.broadphase.touch_proxy(self.bodies.bodies[body as usize].proxy);
            }
        }
    }

    /// Makes joint `slot` an island edge when it is enabled and links two dynamic bodies.
    fn link_joint(&mut self, slot: u32) {
        let j = &self.joints.joints[slot as usize];
        let dynamic = |s: u32| s != NONE && self.bodies.bodies[s as usize].body_type == BodyType::Dynamic;
        if j.enabled && j.island.id == NONE && dynamic(j.body_a) && dynamic(j.body_b) {
            self.islands.link_joint(&mut super::body_graph!(self), slot);
        }
    }

    /// Takes body `body`'s joints out of their islands (the body is leaving its island).
    pub(super) fn unlink_joints(&mut self, body: u32) {
        let mut key = self.bodies.bodies[body as usize].joint_head;
        while key != NONE {
            let (slot, side) = graph::edge_parts(key);
            self.islands.unlink_joint(&mut self.joints.joints, slot);
            key = self.joints.joints[slot as usize].edges[side].next;
        }
    }

    /// Puts body `body`'s joints back into islands and the awake set after the body was
    /// rebuilt (its type may have changed).
    pub(super) fn relink_joints(&mut self, body: u32) {
        let mut key = self.bodies.bodies[body as usize].joint_head;
        while key != NONE {
            let (slot, side) = graph::edge_parts(key);
            let other = self.joints.joints[slot as usize].other(body);
            if other != NONE {
                let joint = self.joints.id_at(slot);
                self.wake(other, WakeCause::Joint { body: self.cause_body(other), joint });
            }
            self.link_joint(slot);
            self.awake_joints.set(slot as usize);
            key = self.joints.joints[slot as usize].edges[side].next;
        }
    }

    /// Destroys every joint of body `body`, reporting each; returns their ids in list order.
    pub(super) fn destroy_body_joints(&mut self, body: u32) -> Vec<JointId> {
        let mut destroyed = Vec::new();
        while self.bodies.bodies[body as usize].joint_head != NONE {
            let (slot, _) = graph::edge_parts(self.bodies.bodies[body as usize].joint_head);
            let id = self.joints.id_at(slot);
            let event = self.joint_event(slot, JointEventKind::Destroyed);
            self.joint_events.push(event);
            self.destroy_joint_slot(slot);
            destroyed.push(id);
        }
        destroyed
    }

    fn joint_event(&self, slot: u32, kind: JointEventKind) -> JointEvent {
        let j = &self.joints.joints[slot as usize];
        JointEvent {
            joint: self.joints.id_at(slot),
            body_a: (j.body_a != NONE).then(|| self.bodies.id_at(j.body_a)),
            body_b: self.bodies.id_at(j.body_b),
            kind,
        }
    }

    /// Disables joint `slot` as the step does to a broken or isolated joint, reporting it as
    /// `kind`.
    pub(super) fn disable_joint_reporting(&mut self, slot: u32, kind: JointEventKind) {
        let event = self.joint_event(slot, kind);
        self.joint_events.push(event);
        self.deactivate_joint(slot);
        self.joints.joints[slot as usize].enabled = false;
    }

    /// After the solve: joints whose force or torque passed their threshold are reported and
    /// disabled, in joint order.
    pub(super) fn break_joints(&mut self) {
        if !self.scratch.solve.joint_solver.breakable() {
            return;
        }
        let mut broken = std::mem::take(&mut self.scratch.candidates);
        broken.clear();
        broken.extend(self.scratch.solve.joint_solver.joints().filter(|&slot| {
            let j = &self.joints.joints[slot as usize];
            j.force.length() > j.break_force || j.torque.length() > j.break_torque
        }));
        for &slot in &broken {
            let j = &self.joints.joints[slot as usize];
            let kind = JointEventKind::Broke { force: j.force.length(), torque: j.torque.length() };
            self.disable_joint_reporting(slot, kind);
        }
        self.scratch.candidates = broken;
    }

    /// Wakes the dynamic bodies joined to kinematic body `body` (a moving kinematic body
    /// drags what it is jointed to).
    pub(super) fn keep_jointed_awake(&mut self, body: u32) {
        let mut key = self.bodies.bodies[body as usize].joint_head;
        while key != NONE {
            let (slot, side) = graph::edge_parts(key);
            let j = &self.joints.joints[slot as usize];
            let other = j.other(body);
            if j.enabled && other != NONE && self.bodies.bodies[other as usize].body_type == BodyType::Dynamic
            {
                let cause =
                    WakeCause::Kinematic { body: self.cause_body(other), kinematic: self.cause_body(body) };
                self.wake(other, cause);
                self.restart_sleep_timer(other);
            }
            key = self.joints.joints[slot as usize].edges[side].next;
        }
    }

    /// A description of a joint of `kind` from `body_a` (or the world) to `body_b` whose
    /// frames meet at world point `anchor` with the joint axis along world `axis` (and A's Y
    /// along the shortest turn of the world's Y; see [`JointFrame::with_axis`]). Both frames
    /// coincide now, so the joint starts at rest at angle and translation 0.
    pub fn joint_desc_at(
        &self,
        kind: JointKind,
        body_a: Option<BodyId>,
        body_b: BodyId,
        anchor: Vec3,
        axis: Vec3,
    ) -> Result<JointDesc, AtollError> {
        crate::error::check_vec3("joint anchor", anchor)?;
        let world_frame = JointFrame::with_axis(anchor, axis)?;
        let local = |body: Option<BodyId>| -> Result<JointFrame, AtollError> {
            Ok(match body {
                None => world_frame,
                Some(id) => world_frame.in_body(&self.bodies.get(id)?.transform),
            })
        };
        let mut desc = JointDesc::new(kind, body_a, body_b);
        desc.frame_a = local(body_a)?;
        desc.frame_b = local(Some(body_b))?;
        Ok(desc)
    }

    /// Everything needed to create this joint again as it is now.
    pub fn joint_desc(&self, id: JointId) -> Result<JointDesc, AtollError> {
        let j = &self.joints.joints[self.joints.slot(id)? as usize];
        Ok(JointDesc {
            kind: j.kind,
            body_a: (j.body_a != NONE).then(|| self.bodies.id_at(j.body_a)),
            body_b: self.bodies.id_at(j.body_b),
            frame_a: j.frame_a,
            frame_b: j.frame_b,
            collide_connected: j.collide_connected,
            enabled: j.enabled,
            break_force: j.break_force.is_finite().then_some(j.break_force),
            break_torque: j.break_torque.is_finite().then_some(j.break_torque),
        })
    }

    /// Everything about one joint; a stale id is refused.
    pub fn joint(&self, id: JointId) -> Result<JointView, AtollError> {
        let slot = self.joints.slot(id)?;
        Ok(self.joint_view(slot))
    }

    fn joint_view(&self, slot: u32) -> JointView {
        let j = &self.joints.joints[slot as usize];
        let pose = JointPose::of(j, &self.bodies.bodies);
        let (position, swing) = j.kind.coordinates(&pose);
        let center = |body: u32| {
            if body == NONE { Vec3::ZERO } else { self.bodies.bodies[body as usize].center() }
        };
        let (axis, normal, _) = pose.axes_a();
        JointView {
            id: self.joints.id_at(slot),
            joint_type: j.kind.joint_type(),
            body_a: (j.body_a != NONE).then(|| self.bodies.id_at(j.body_a)),
            body_b: self.bodies.id_at(j.body_b),
            enabled: j.enabled,
            collide_connected: j.collide_connected,
            anchor_a: center(j.body_a) + pose.arm_a,
            anchor_b: center(j.body_b) + pose.arm_b,
            axis,
            normal,
            position,
            swing,
            force: j.force,
            torque: j.torque,
            motor_load: j.motor_load,
            limit_active: j.limit_active,
            island: (j.island.id != NONE).then(|| self.island_id(j.island.id)),
        }
    }

    /// Every live joint, in joint order.
    pub fn joints(&self) -> impl Iterator<Item = JointView> + '_ {
        let joints = &self.joints.joints;
        (0..joints.len() as u32).filter(|&i| joints[i as usize].alive).map(|i| self.joint_view(i))
    }

    /// Ids of the live joints, in joint order.
    pub fn joint_ids(&self) -> impl Iterator<Item = JointId> + '_ {
        let joints = &self.joints.joints;
        (0..joints.len() as u32).filter(|&i| joints[i as usize].alive).map(|i| self.joints.id_at(i))
    }

    /// Number of live joints.
    pub fn joint_count(&self) -> usize {
        self.joints.live_count()
    }

    /// The joints of a body, in its list's order (newest first).
    pub fn body_joints(&self, id: BodyId) -> Result<Vec<JointId>, AtollError> {
        self.bodies.get(id)?;
        let mut out = Vec::new();
        graph::for_each_joint(&self.bodies.bodies, &self.joints.joints, id.index(), |j, _| {
            out.push(self.joints.id_at(j))
        });
        Ok(out)
    }

    /// Feeds every live joint's slot, generation, enabled flag and impulses to `write`, in
    /// joint order (for the state hash).
    pub(crate) fn hash_joints(&self, mut write: impl FnMut(u32, u32, bool, &[f32])) {
        for (i, j) in self.joints.joints.iter().enumerate().filter(|(_, j)| j.alive) {
            write(i as u32, j.generation, j.enabled, &j.impulses.words());
        }
    }

    /// Joints that broke, or were destroyed with a body, since the last step began.
    pub fn joint_events(&self) -> &[JointEvent] {
        &self.joint_events
    }
}

/// Pushes onto `list` every body slot an enabled joint of body slot `body` keeps from colliding
/// with it (a body twice if two joints do; the world side of a joint to the world as
/// [`crate::body::NONE`]). Walks the body's joints: lists are short, and a body without joints
/// costs one load. A free function so the broadphase's pair filter can call it while the
/// world's pair list is borrowed.
pub(super) fn joints_blocking_collision(bodies: &[Body], joints: &[Joint], body: u32, list: &mut Vec<u32>) {
    graph::for_each_joint(bodies, joints, body, |j, other| {
        let j = &joints[j as usize];
        if j.enabled && !j.collide_connected {
            list.push(other);
        }
    });
}
