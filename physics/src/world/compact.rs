//! Compact state: exactly what stepping reads to go on bit for bit, without what a world is made
//! of (shapes, materials, masses, joint frames, the terrain) or what a step rebuilds (solver
//! arrays, tree nodes, pair lookups). A history keeps thousands of these, where a [`Snapshot`]
//! (a whole world) would not fit: see `docs/ARCHITECTURE.md` for the bytes per body.
//!
//! A compact state restores only onto a world of the same structure (the stamp
//! [`World::structure_stamp`] names), which is what a history of one world's steps needs:
//! every body and joint it names is there, in the same slot.
//!
//! [`Snapshot`]: crate::Snapshot

use super::step::{SensorOverlaps, StepScratch};
use super::{
    BodyFault, SensorEvent, SleepEvent, StepSettings, TouchEvent, WaterEvent, World, terrain::BodyTerrain,
};
use crate::bitset::BitSet;
use crate::body::BodyId;
use crate::body::EdgeLink;
use crate::broadphase::BroadphasePending;
use crate::error::AtollError;
use crate::island::{IslandLink, IslandStore};
use crate::joint::{JointEvent, JointImpulses};
use crate::math::{Aabb, Transform, Vec3};
use crate::narrowphase::{ContactsDelta, ContactsState};
use crate::recording::tape::TapeMark;
use std::mem::size_of;

/// The state of a world at one step that stepping needs to continue exactly as it would have.
/// Captured by [`World::capture`], put back by [`World::restore_compact`].
#[derive(Clone, Debug)]
pub struct CompactState {
    /// Per body slot (dead slots included, so slots line up).
    bodies: Vec<BodyMotion>,
    /// Per child slot of compound bodies (dead slots included), its fat box: its pose and
    /// tight box follow from its body's.
    children: Vec<Aabb>,
    contacts: ContactsState,
    /// Everything else: small beside the bodies and contacts, and kept whole by a change.
    small: SmallState,
}

/// The parts of a compact state other than the bodies and contacts.
#[derive(Clone, Debug)]
struct SmallState {
    structure: u64,
    step_count: u64,
    time: f64,
    settings: StepSettings,
    /// Body slots whose terrain state is not the default.
    body_terrain: Vec<(u32, BodyTerrain)>,
    /// Per joint slot.
    joints: Vec<JointMotion>,
    islands: IslandStore,
    awake_bodies: BitSet,
    awake_contacts: BitSet,
    awake_joints: BitSet,
    began_bits: BitSet,
    ended_bits: BitSet,
    touch_events: Vec<TouchEvent>,
    sleep_events: Vec<SleepEvent>,
    water_events: Vec<WaterEvent>,
    joint_events: Vec<JointEvent>,
    body_faults: Vec<BodyFault>,
    detached: Vec<BodyId>,
    refiltered: Vec<u32>,
    sensor_overlaps: Vec<SensorOverlaps>,
    sensor_events: Vec<SensorEvent>,
    broadphase: BroadphasePending,
    contact_status: Vec<u8>,
    wet: bool,
    /// Where the state is on the world's tape, when it is recorded.
    tape: Option<TapeMark>,
}

/// What of a body changes as the world steps.
#[derive(Clone, Copy, Debug, PartialEq)]
struct BodyMotion {
    transform: Transform,
    linear_velocity: Vec3,
    angular_velocity: Vec3,
    force: Vec3,
    torque: Vec3,
    tight: Aabb,
    fat: Aabb,
    island: IslandLink,
    sleep_timer: f32,
    awake: bool,
    contact_head: u32,
    joint_head: u32,
}

/// What of a joint changes as the world steps (breaking disables it).
#[derive(Clone, Copy, Debug)]
struct JointMotion {
    enabled: bool,
    edges: [EdgeLink; 2],
    island: IslandLink,
    impulses: JointImpulses,
    force: Vec3,
    torque: Vec3,
    motor_load: f32,
    limit_active: bool,
}

impl BodyMotion {
    /// The same motion bit for bit (`==` takes −0.0 for +0.0, which a change must not).
    fn same_bits(&self, other: &BodyMotion) -> bool {
        fn floats(m: &BodyMotion) -> impl Iterator<Item = u32> + '_ {
            let t = &m.transform;
            let vectors = [t.position, m.linear_velocity, m.angular_velocity, m.force, m.torque];
            let boxes = [m.tight.min, m.tight.max, m.fat.min, m.fat.max];
            (vectors.into_iter().chain(boxes))
                .flat_map(|v| v.to_array())
                .chain(t.rotation.to_array())
                .chain([m.sleep_timer])
                .map(f32::to_bits)
        }
        self == other && floats(self).eq(floats(other))
    }
}

impl CompactState {
    /// The step count it was captured at.
    pub fn step_count(&self) -> u64 {
        self.small.step_count
    }

    /// The structure stamp of the world it was captured from.
    pub fn structure_stamp(&self) -> u64 {
        self.small.structure
    }

    /// Bytes it holds, heap included (terrain chunk data it shares with the world is not
    /// counted).
    pub fn bytes(&self) -> usize {
        size_of::<Self>()
            + self.bodies.len() * size_of::<BodyMotion>()
            + self.children.len() * size_of::<Aabb>()
            + self.contacts.bytes()
            + self.small.heap_bytes()
    }
}

impl SmallState {
    /// Bytes on the heap.
    fn heap_bytes(&self) -> usize {
        let bits = [
            &self.awake_bodies,
            &self.awake_contacts,
            &self.awake_joints,
            &self.began_bits,
            &self.ended_bits,
        ];
        self.body_terrain.len() * size_of::<(u32, BodyTerrain)>()
            + self.joints.len() * size_of::<JointMotion>()
            + self.islands.bytes()
            + bits.iter().map(|b| b.bytes()).sum::<usize>()
            + self.touch_events.len() * size_of::<TouchEvent>()
            + self.sleep_events.len() * size_of::<SleepEvent>()
            + self.water_events.len() * size_of::<WaterEvent>()
            + self.joint_events.len() * size_of::<JointEvent>()
            + self.body_faults.len() * size_of::<BodyFault>()
            + self.detached.len() * size_of::<BodyId>()
            + self.refiltered.len() * size_of::<u32>()
            + (self.sensor_overlaps.iter())
                .map(|o| size_of::<SensorOverlaps>() + o.visitors.len() * size_of::<BodyId>())
                .sum::<usize>()
            + self.sensor_events.len() * size_of::<SensorEvent>()
            + self.broadphase.bytes()
            + self.contact_status.len()
    }
}

/// A compact state as the change from another of the same world (the incremental form): the
/// bodies and contacts that differ, and the small parts whole. In a settled pile, where
/// sleeping islands do not change, it is a small part of the state it stands for.
#[derive(Clone, Debug)]
pub struct StateDelta {
    /// The state's small parts, whole.
    small: SmallState,
    bodies: Vec<(u32, BodyMotion)>,
    /// The children's fat boxes that differ, by child slot.
    children: Vec<(u32, Aabb)>,
    contacts: ContactsDelta,
}

impl StateDelta {
    /// Bytes it holds.
    pub fn bytes(&self) -> usize {
        size_of::<Self>()
            + self.small.heap_bytes()
            + self.bodies.len() * size_of::<(u32, BodyMotion)>()
            + self.children.len() * size_of::<(u32, Aabb)>()
            + self.contacts.bytes()
    }

    /// The step count of the state it stands for.
    pub fn step_count(&self) -> u64 {
        self.small.step_count
    }

    /// The state it stands for, from the one it was taken against.
    pub fn apply(&self, anchor: &CompactState) -> CompactState {
        let mut bodies = anchor.bodies.clone();
        for (slot, m) in &self.bodies {
            bodies[*slot as usize] = *m;
        }
        let mut children = anchor.children.clone();
        for (slot, fat) in &self.children {
            children[*slot as usize] = *fat;
        }
        CompactState {
            bodies,
            children,
            contacts: self.contacts.apply(&anchor.contacts),
            small: self.small.clone(),
        }
    }
}

impl CompactState {
    /// This state as its change from `anchor`, when both are of the same structure (else
    /// `None`: only a whole state stands for it).
    pub fn delta_from(&self, anchor: &CompactState) -> Option<StateDelta> {
        if self.small.structure != anchor.small.structure
            || self.bodies.len() != anchor.bodies.len()
            || self.children.len() != anchor.children.len()
        {
            return None;
        }
        let box_bits = |b: &Aabb| [b.min.to_array(), b.max.to_array()].map(|v| v.map(f32::to_bits));
        let children = (self.children.iter().zip(&anchor.children).enumerate())
            .filter(|(_, (new, old))| box_bits(new) != box_bits(old))
            .map(|(slot, (new, _))| (slot as u32, *new))
            .collect();
        let bodies = (self.bodies.iter().zip(&anchor.bodies).enumerate())
            .filter(|(_, (new, old))| !new.same_bits(old))
            .map(|(slot, (new, _))| (slot as u32, *new))
            .collect();
        Some(StateDelta {
            small: self.small.clone(),
            bodies,
            children,
            contacts: self.contacts.delta_from(&anchor.contacts),
        })
    }
}

impl World {
    /// Captures the compact state (see [`CompactState`]).
    pub fn capture(&self) -> CompactState {
        let mut state = CompactState {
            bodies: Vec::new(),
            children: Vec::new(),
            contacts: ContactsState::default(),
            small: self.small_state(),
        };
        self.capture_bodies_and_contacts(&mut state);
        state
    }

    /// Captures the compact state over `state`, reusing its arrays: a history that keeps the
    /// last steps' states recycles the oldest, so a capture is a copy without allocating the
    /// bodies' and contacts' megabytes again.
    pub fn capture_into(&self, state: &mut CompactState) {
        state.small = self.small_state();
        self.capture_bodies_and_contacts(state);
    }

    fn capture_bodies_and_contacts(&self, state: &mut CompactState) {
        state.bodies.clear();
        state.bodies.extend(self.bodies.bodies.iter().map(|b| BodyMotion {
            transform: b.transform,
            linear_velocity: b.linear_velocity,
            angular_velocity: b.angular_velocity,
            force: b.force,
            torque: b.torque,
            tight: b.tight,
            fat: b.fat,
            island: b.island,
            sleep_timer: b.sleep_timer,
            awake: b.awake,
            contact_head: b.contact_head,
            joint_head: b.joint_head,
        }));
        state.children.clear();
        state.children.extend(self.bodies.children.children.iter().map(|c| c.fat));
        self.contacts.capture_into(&mut state.contacts);
    }

    /// The parts of the compact state other than the bodies and contacts.
    ///
    /// This is the one list of the world's fields: it takes the world apart without `..`, so a
    /// field added to [`World`] (or to the step's scratch) does not compile until it is placed
    /// here, as state the capture keeps or as something it need not keep, with the reason.
    /// [`World::restore_compact`] puts back exactly what this keeps; a [`Snapshot`] keeps the
    /// whole world by `Clone`, and `state_hash` reads the bodies' and joints' motion.
    fn small_state(&self) -> SmallState {
        let World {
            settings,
            // Kept per body slot and per contact (`capture_bodies_and_contacts`); the rest of
            // a body and of a contact (shape, material, mass, frames) is the structure.
            bodies: _,
            contacts: _,
            // Kept per joint slot below; the joints' descriptions are the structure.
            joints,
            // The proxies' boxes come back from the bodies' fat boxes; what is pending for the
            // next step (moves, a due rebuild) is kept.
            broadphase,
            scratch,
            islands,
            awake_bodies,
            awake_contacts,
            awake_joints,
            began_bits,
            ended_bits,
            touch_events,
            sleep_events,
            water_events,
            joint_events,
            body_faults,
            refiltered,
            sensor_overlaps,
            sensor_events,
            // What a debugger watches, and what it saw: no state of the world's.
            contact_tracer: _,
            step_count,
            time,
            // Timings of the last step: read, never stepped from.
            profile: _,
            // How many threads step the world: the result is the same on any number.
            threads: _,
            // The terrain and its stamp are the structure (`structure` names them).
            terrain: _,
            terrain_stamp: _,
            body_terrain,
            detached,
            // Counts edits; a restore is one more.
            edits: _,
            structure,
            // False between steps, when a capture is taken.
            stepping: _,
            // The tape is the world's record, not its state: the capture keeps its place on it.
            tape: _,
        } = self;
        let StepScratch {
            // Every stage's buffers are written by the step before they are read, or only order
            // or number the work (the solve's parts' guide, the sleep passes' count), which
            // changes no result; except the contacts' status bytes (read for the contacts the
            // step does not update) and the water's flag, which are kept.
            broadphase: _,
            pairs: _,
            narrowphase,
            // Read only with the stamp of the step that wrote them; a compact state leaves the
            // stamp counting on, so no record from before its restore is read after it.
            reach: _,
            water,
            solve: _,
            finalize: _,
            kinematic_wake: _,
            sleep_timers: _,
            continuous: _,
            sensors: _,
            candidates: _,
        } = scratch;
        let joints = joints.joints.iter().map(|j| JointMotion {
            enabled: j.enabled,
            edges: j.edges,
            island: j.island,
            impulses: j.impulses,
            force: j.force,
            torque: j.torque,
            motor_load: j.motor_load,
            limit_active: j.limit_active,
        });
        let default_terrain = BodyTerrain::default();
        let body_terrain = (body_terrain.iter().enumerate())
            .filter(|(_, t)| !t.same_as(&default_terrain))
            .map(|(slot, t)| (slot as u32, *t));
        SmallState {
            structure: *structure,
            step_count: *step_count,
            time: *time,
            settings: *settings,
            body_terrain: body_terrain.collect(),
            joints: joints.collect(),
            islands: islands.clone(),
            awake_bodies: awake_bodies.clone(),
            awake_contacts: awake_contacts.clone(),
            awake_joints: awake_joints.clone(),
            began_bits: began_bits.clone(),
            ended_bits: ended_bits.clone(),
            touch_events: touch_events.clone(),
            sleep_events: sleep_events.clone(),
            water_events: water_events.clone(),
            joint_events: joint_events.clone(),
            body_faults: body_faults.clone(),
            detached: detached.clone(),
            refiltered: refiltered.clone(),
            sensor_overlaps: sensor_overlaps.clone(),
            sensor_events: sensor_events.clone(),
            broadphase: broadphase.pending(),
            contact_status: narrowphase.contact_status.clone(),
            wet: water.wet,
            tape: self.tape_mark(),
        }
    }

    /// Puts back a compact state captured from this world (or one of the same structure):
    /// stepping on then gives, bit for bit, what stepping on from the capture gave. A state of
    /// another structure (a body or joint created, destroyed or changed since, another
    /// terrain) is refused and nothing changes. Counts as an edit ([`World::edit_count`]).
    pub fn restore_compact(&mut self, state: &CompactState) -> Result<(), AtollError> {
        let small = &state.small;
        if small.structure != self.structure
            || state.bodies.len() != self.bodies.bodies.len()
            || state.children.len() != self.bodies.children.children.len()
            || small.joints.len() != self.joints.joints.len()
        {
            return Err(AtollError::invalid(
                "compact state",
                "captured from a world of another structure (bodies, joints or terrain changed since)",
            ));
        }
        self.settings = small.settings;
        self.step_count = small.step_count;
        self.time = small.time;
        for (b, m) in self.bodies.bodies.iter_mut().zip(&state.bodies) {
            b.transform = m.transform;
            b.linear_velocity = m.linear_velocity;
            b.angular_velocity = m.angular_velocity;
            b.force = m.force;
            b.torque = m.torque;
            b.tight = m.tight;
            b.fat = m.fat;
            b.island = m.island;
            b.sleep_timer = m.sleep_timer;
            b.awake = m.awake;
            b.contact_head = m.contact_head;
            b.joint_head = m.joint_head;
            if b.alive {
                self.broadphase.place_proxy(b.proxy, m.fat);
            }
        }
        for k in 0..self.bodies.children.compounds().len() {
            let slot = self.bodies.children.compounds()[k];
            let pose = self.bodies.bodies[slot as usize].transform;
            self.bodies.children.place(slot, &pose);
            for k in 0..self.bodies.children.of(slot).len() {
                let c = self.bodies.children.of(slot)[k];
                let child = &mut self.bodies.children.children[c as usize];
                child.fat = state.children[c as usize];
                self.broadphase.place_proxy(child.proxy, child.fat);
            }
        }
        self.broadphase.set_pending(&small.broadphase);
        self.body_terrain.fill(BodyTerrain::default());
        for (slot, t) in &small.body_terrain {
            self.body_terrain[*slot as usize] = *t;
        }
        self.contacts.restore(&state.contacts);
        for (j, m) in self.joints.joints.iter_mut().zip(&small.joints) {
            j.enabled = m.enabled;
            j.edges = m.edges;
            j.island = m.island;
            j.impulses = m.impulses;
            j.force = m.force;
            j.torque = m.torque;
            j.motor_load = m.motor_load;
            j.limit_active = m.limit_active;
        }
        self.islands.clone_from(&small.islands);
        self.awake_bodies.clone_from(&small.awake_bodies);
        self.awake_contacts.clone_from(&small.awake_contacts);
        self.awake_joints.clone_from(&small.awake_joints);
        self.began_bits.clone_from(&small.began_bits);
        self.ended_bits.clone_from(&small.ended_bits);
        self.touch_events.clone_from(&small.touch_events);
        self.sleep_events.clone_from(&small.sleep_events);
        self.water_events.clone_from(&small.water_events);
        self.joint_events.clone_from(&small.joint_events);
        self.body_faults.clone_from(&small.body_faults);
        self.detached.clone_from(&small.detached);
        self.refiltered.clone_from(&small.refiltered);
        self.sensor_overlaps.clone_from(&small.sensor_overlaps);
        self.sensor_events.clone_from(&small.sensor_events);
        self.scratch.narrowphase.contact_status.clone_from(&small.contact_status);
        self.scratch.water.wet = small.wet;
        self.seek_tape(small.tape);
        self.edits += 1;
        Ok(())
    }
}
