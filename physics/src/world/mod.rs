//! The [`World`]: bodies, broadphase, contacts and the step pipeline, with query methods for
//! everything the editor shows.

mod compact;
mod contact_trace;
mod divergence;
mod energy;
mod faults;
mod filters;
mod islands;
mod joints;
mod pair_key;
mod query;
mod recording;
mod sensors;
mod shape_queries;
pub use contact_trace::MAX_TRACED_CONTACTS;
pub use sensors::SensorEvent;
pub(crate) mod settings;
mod snapshot;
mod step;
mod terrain;
#[cfg(feature = "test-support")]
mod test_support;
#[cfg(feature = "test-support")]
pub use crate::solver::SolverLanes;
mod wake;
mod water;

pub use crate::island::id::IslandId;
pub use crate::island::wake_cause::WakeCause;
pub use compact::{CompactState, StateDelta};
pub use divergence::{Divergence, IslandDivergence, MAX_DIVERGENT_ISLANDS};
pub use energy::Energy;
pub use faults::{BodyFault, BodyFaultKind};
pub use islands::{IslandView, SleepEvent};
pub use pair_key::PairKey;
pub use settings::StepSettings;
pub use terrain::{FRAGMENT_DENSITY, TERRAIN_FILTER, TERRAIN_FRICTION, TERRAIN_RESTITUTION};
pub use wake::Restless;
pub use water::{WaterContact, WaterEvent};

use crate::bitset::BitSet;
use crate::body::{
    Body, BodyDesc, BodyId, BodyStore, BodyType, KinematicMotion, Material, validate_rotation,
};
use crate::broadphase::{Broadphase, Path, ProxyType, TreeStats, fat_aabb};
use crate::error::{AtollError, check_vec3};
use crate::graph;
use crate::island::IslandStore;
use crate::joint::{JointEvent, JointId, JointStore};
use crate::math::{Aabb, Mat3, Transform, Vec3};
use crate::narrowphase::{ContactId, ContactStore, Manifold, PointImpulse};
use crate::profile::Profile;
use crate::recording::input::Input;
use crate::scene::SceneBody;
use crate::shape::Shape;
use crate::shape_key::child_key;
use crate::terrain::ChunkCoord;
use std::sync::Arc;
use step::StepScratch;
pub use step::TouchEvent;

/// The body graph of a world (`crate::island::Graph`), borrowing only its body, contact and
/// joint arrays so the islands can be borrowed beside it.
macro_rules! body_graph {
    ($world:expr) => {
        crate::island::Graph {
            bodies: &mut $world.bodies.bodies,
            contacts: &mut $world.contacts.contacts,
            joints: &mut $world.joints.joints,
        }
    };
}
pub(crate) use body_graph;

/// A body's state as the world reports it.
#[derive(Clone, Debug)]
pub struct BodyView<'a> {
    /// Static, kinematic or dynamic.
    pub body_type: BodyType,
    /// The collision shape in the body frame.
    pub shape: &'a Shape,
    /// Density, friction, restitution.
    pub material: Material,
    /// Pose of the body frame.
    pub transform: Transform,
    /// Velocity of the centre of mass.
    pub linear_velocity: Vec3,
    /// Angular velocity, world axes.
    pub angular_velocity: Vec3,
    /// Mass in kg (0 for static and kinematic bodies).
    pub mass: f32,
    /// Inertia about the centre of mass in body axes (zero for static and kinematic bodies).
    pub inertia: Mat3,
    /// World position of the centre of mass.
    pub center_of_mass: Vec3,
    /// Linear damping rate, 1/s (0 = none): with no other force the velocity decays about as
    /// `e^(-rate · t)` (applied implicitly every substep, `v / (1 + h · rate)`, so any rate is
    /// stable).
    pub linear_damping: f32,
    /// Angular damping rate, 1/s (0 = none), applied like the linear one.
    pub angular_damping: f32,
    /// Multiplies gravity.
    pub gravity_scale: f32,
    /// May fall asleep.
    pub can_sleep: bool,
    /// Scripted motion of a kinematic body.
    pub motion: Option<KinematicMotion>,
}

/// A contact pair as the world reports it.
#[derive(Clone, Copy, Debug)]
pub struct ContactView {
    /// The contact pair's id (valid while the pair lives).
    pub id: ContactId,
    /// First body; the normal points away from it.
    pub body_a: BodyId,
    /// Second body, or [`BodyId::TERRAIN`].
    pub body_b: BodyId,
    /// Which of body A's shapes touches: 0 its own shape, `k` its child `k - 1`
    /// ([`BodyDesc::children`]).
    pub part_a: u32,
    /// Which of body B's shapes touches, as `part_a` (0 for the terrain).
    pub part_b: u32,
    /// The terrain chunk of a terrain contact.
    pub chunk: Option<ChunkCoord>,
    /// The manifold from the last step.
    pub manifold: Manifold,
    /// Impulses of each manifold point from the last solve.
    pub impulses: [PointImpulse; crate::narrowphase::MAX_MANIFOLD_POINTS],
    /// The manifold's friction impulse from the last solve (applied at the points' centre), N·s.
    pub friction_impulse: Vec3,
    /// The manifold's friction impulse about the normal from the last solve, N·m·s.
    pub twist_impulse: f32,
    /// Combined friction.
    pub friction: f32,
    /// Combined restitution.
    pub restitution: f32,
    /// The manifold has points.
    pub touching: bool,
    /// Began touching in the last step.
    pub began: bool,
    /// Stopped touching in the last step.
    pub ended: bool,
}

/// Statistics of both broadphase trees.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct BroadphaseStats {
    /// The tree of static bodies.
    pub static_tree: TreeStats,
    /// The tree of kinematic and dynamic bodies.
    pub movable_tree: TreeStats,
    /// Proxies re-inserted during the last step.
    pub reinsertions_last_step: u32,
}

/// The simulation: bodies, contacts, broadphase and settings.
#[derive(Clone, Debug, Default)]
pub struct World {
    settings: StepSettings,
    bodies: BodyStore,
    broadphase: Broadphase,
    contacts: ContactStore,
    /// The joints; see `world/joints.rs`.
    joints: JointStore,
    scratch: StepScratch,
    islands: IslandStore,
    /// Dynamic and kinematic bodies simulated this step, by slot.
    awake_bodies: BitSet,
    /// Contacts updated this step (at least one body awake), by contact id.
    awake_contacts: BitSet,
    /// Joints solved this step (at least one body awake), by joint slot.
    awake_joints: BitSet,
    /// Contacts that began / stopped touching in this step's narrowphase.
    began_bits: BitSet,
    ended_bits: BitSet,
    touch_events: Vec<TouchEvent>,
    sleep_events: Vec<SleepEvent>,
    water_events: Vec<WaterEvent>,
    joint_events: Vec<JointEvent>,
    /// Bodies the last step slowed to a speed cap or stopped (`faults.rs`).
    body_faults: Vec<BodyFault>,
    /// Slots of the bodies whose filter changed since the last step (`filters.rs`).
    refiltered: Vec<u32>,
    /// Each sensor's overlapping bodies after the last step, by sensor slot
    /// (`step/sensors.rs`).
    sensor_overlaps: Vec<step::SensorOverlaps>,
    /// Sensors' begin and end overlap events of the last step.
    sensor_events: Vec<SensorEvent>,
    /// The contacts watched and their traces of the last step (`world/contact_trace.rs`).
    contact_tracer: crate::solver::ContactTracer,
    step_count: u64,
    time: f64,
    profile: Profile,
    /// Helper threads for the parallel stages, one fewer than the world's threads (the
    /// caller's thread is the other); `None` runs everything on the caller's thread. Results
    /// are identical either way.
    threads: Option<Arc<rayon::ThreadPool>>,
    /// The voxel terrain (empty unless a scene or the editor sets one); see `world/terrain.rs`.
    terrain: crate::terrain::Terrain,
    /// Per body slot, its terrain state (contacts' box, water); see `world/terrain.rs`.
    body_terrain: Vec<terrain::BodyTerrain>,
    /// Bodies the last terrain edit cut loose from the terrain.
    detached: Vec<BodyId>,
    /// Names the terrain's content: 0 for the empty default, a fresh process-wide number after
    /// every change (see [`World::terrain_stamp`]).
    terrain_stamp: u64,
    /// Changes made other than by stepping (see [`World::edit_count`]).
    edits: u64,
    /// Names what the world is made of (see [`World::structure_stamp`]).
    structure: u64,
    /// Inside [`World::step`] (a wake then belongs to the step being taken).
    stepping: bool,
    /// The inputs and steps that led here, when the world is recorded (see `recording.rs`).
    pub(crate) tape: Option<crate::recording::tape::Tape>,
}

impl World {
    /// An empty world with the given settings.
    pub fn new(settings: StepSettings) -> Result<World, AtollError> {
        settings.validate()?;
        Ok(World { settings, ..Default::default() })
    }

    /// Runs the parallel stages on `count` threads: the caller's and `count - 1` helpers (1 =
    /// the caller's thread only). The result of every step is bit-identical for any count.
    pub fn set_thread_count(&mut self, count: usize) -> Result<(), AtollError> {
        if count == 0 || count > 256 {
            return Err(AtollError::invalid("thread count", format!("must be 1..=256, got {count}")));
        }
        self.threads = if count == 1 {
            None
        } else {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(count - 1)
                .thread_name(|i| format!("atoll-helper-{i}"))
                .build()
                .map_err(|e| AtollError::invalid("thread count", e.to_string()))?;
            Some(Arc::new(pool))
        };
        Ok(())
    }

    /// How many changes the world has had other than by stepping: every call that changed it
    /// (a body created, moved, pushed or woken, a joint or setting changed, the terrain
    /// painted, a state restored) counted at least one. A history of steps compares it across
    /// a step to know whether something was edited in between.
    pub fn edit_count(&self) -> u64 {
        self.edits
    }

    /// Names what the world is made of, apart from where things are and how they move: its
    /// bodies and joints as created (slots, shapes, materials, masses, types, frames, limits)
    /// and its terrain. Every change of those takes a stamp unique in the process; stepping,
    /// moving, pushing, waking or changing settings keeps it, and a cloned world has it too.
    /// A [`CompactState`] restores only onto a world with its stamp.
    pub fn structure_stamp(&self) -> u64 {
        self.structure
    }

    /// Counts an edit; one that changes what the world is made of takes a fresh structure
    /// stamp.
    pub(crate) fn note_edit(&mut self, structural: bool) {
        self.edits += 1;
        if structural {
            self.structure = crate::id::fresh_stamp();
        }
    }

    /// Threads the parallel stages use.
    pub fn thread_count(&self) -> usize {
        self.threads.as_ref().map_or(1, |p| p.current_num_threads() + 1)
    }

    /// The step settings.
    pub fn settings(&self) -> &StepSettings {
        &self.settings
    }

    /// Replaces the step settings (validated first; the world is unchanged on error).
    /// Turning sleeping off wakes every island, so what the user sees is what is simulated.
    pub fn set_settings(&mut self, settings: StepSettings) -> Result<(), AtollError> {
        settings.validate()?;
        let wake_all = self.settings.sleep_enabled && !settings.sleep_enabled;
        self.settings = settings;
        self.note_edit(false);
        if wake_all {
            self.unlogged(World::wake_all);
        }
        self.log_input(|| Input::SetSettings(settings));
        Ok(())
    }

    /// Wakes every sleeping island.
    pub fn wake_all(&mut self) {
        self.note_edit(false);
        for id in 0..self.islands.islands.len() as u32 {
            if self.islands.islands[id as usize].alive {
                self.wake_island(id, WakeCause::All);
            }
        }
        self.log_input(|| Input::WakeAll);
    }

    /// Sets gravity (m/s²).
    pub fn set_gravity(&mut self, gravity: Vec3) -> Result<(), AtollError> {
        self.settings.gravity = check_vec3("gravity", gravity)?;
        self.note_edit(false);
        self.log_input(|| Input::SetGravity(gravity));
        Ok(())
    }

    /// Adds a body; the description is validated first.
    pub fn create_body(&mut self, desc: &BodyDesc) -> Result<BodyId, AtollError> {
        desc.validate()?;
        self.note_edit(true);
        let id = self.bodies.insert(desc);
        self.attach_body(id);
        self.log_input(|| Input::CreateBody(SceneBody::from_desc(desc)));
        Ok(id)
    }

    /// Rebuilds a live body from a new description in place: the id stays valid and the body
    /// keeps its slot (so slot-ordered iteration, and with it the step, is unchanged for every
    /// other body). Its contacts are dropped and found again by the next step; the island it
    /// leaves wakes. The editor uses this for property edits; a refused description changes
    /// nothing.
    pub fn replace_body(&mut self, id: BodyId, desc: &BodyDesc) -> Result<(), AtollError> {
        desc.validate()?;
        self.bodies.get(id)?;
        self.note_edit(true);
        let slot = id.index() as usize;
        self.detach_body(id.index());
        self.broadphase.destroy_proxy(self.bodies.bodies[slot].proxy);
        for proxy in self.bodies.children.remove(id.index()) {
            self.broadphase.destroy_proxy(proxy);
        }
        // Its joints stay, with their frames in the body's frame.
        let mut body = Body::from_desc(desc, id.generation());
        body.joint_head = self.bodies.bodies[slot].joint_head;
        self.bodies.replace(id.index(), body, desc.filter, desc.sensor);
        let pose = self.bodies.bodies[slot].transform;
        self.bodies.children.insert(id.index(), &desc.shape, &desc.children, &pose);
        self.attach_body(id);
        self.relink_joints(id.index());
        self.log_input(|| Input::ReplaceBody { body: id, desc: SceneBody::from_desc(desc) });
        Ok(())
    }

    /// Everything needed to create this body again as it is now (pose, velocities, material,
    /// filter, damping, motion).
    pub fn body_desc(&self, id: BodyId) -> Result<BodyDesc, AtollError> {
        let b = self.bodies.get(id)?;
        Ok(BodyDesc {
            body_type: b.body_type,
            shape: b.shape.clone(),
            transform: b.transform,
            linear_velocity: b.linear_velocity,
            angular_velocity: b.angular_velocity,
            material: b.material,
            filter: *self.bodies.filter(id.index()),
            sensor: self.bodies.sensor(id.index()),
            children: self
                .bodies
                .children
                .of(id.index())
                .iter()
                .map(|&c| self.bodies.children.children[c as usize].desc())
                .collect(),
            linear_damping: b.linear_damping,
            angular_damping: b.angular_damping,
            gravity_scale: b.gravity_scale,
            can_sleep: b.can_sleep,
            motion: b.motion,
        })
    }

    /// Gives a freshly written body slot its terrain state, broadphase proxy, island and awake
    /// bit.
    fn attach_body(&mut self, id: BodyId) {
        // A reused slot must not keep its last body's terrain state.
        let slot = id.index() as usize;
        if self.body_terrain.len() <= slot {
            self.body_terrain.resize(slot + 1, Default::default());
        }
        self.body_terrain[slot] = Default::default();
        let body = &self.bodies.bodies[slot];
        let kind = if body.body_type == BodyType::Static { ProxyType::Static } else { ProxyType::Movable };
        let fat = body_fat_aabb(body, &tight_aabb(body), &self.settings);
        let body_type = body.body_type;
        let key = self.broadphase.create_proxy(fat, kind, id.index());
        self.bodies.bodies[slot].proxy = key;
        self.bodies.bodies[slot].fat = fat;
        for k in 0..self.bodies.children.of(id.index()).len() {
            let c = self.bodies.children.of(id.index())[k];
            let child = &self.bodies.children.children[c as usize];
            let fat = body_fat_aabb(&self.bodies.bodies[slot], &child.tight, &self.settings);
            let key = self.broadphase.create_proxy(fat, kind, child_key(c));
            let child = &mut self.bodies.children.children[c as usize];
            (child.proxy, child.fat) = (key, fat);
        }
        match body_type {
            BodyType::Dynamic => {
                self.islands.create_for(&mut self.bodies.bodies, id.index());
                self.awake_bodies.set(slot);
            }
            BodyType::Kinematic => self.awake_bodies.set(slot),
            BodyType::Static => {}
        }
    }

    /// Takes a body out of the simulation's structures (contacts, island, awake set), waking
    /// its neighbours; its joints leave their islands but stay in its list. The slot and proxy
    /// are left to the caller.
    fn detach_body(&mut self, index: u32) {
        self.wake(index, WakeCause::Edit { body: self.bodies.id_at(index) });
        while self.bodies.bodies[index as usize].contact_head != crate::body::NONE {
            let (contact, _) = graph::edge_parts(self.bodies.bodies[index as usize].contact_head);
            self.destroy_contact(contact);
        }
        self.unlink_joints(index);
        self.islands.remove_body(&mut self.bodies.bodies, index);
        self.awake_bodies.clear(index as usize);
    }

    /// Removes a body with its contacts, joints and proxy; its island wakes (its neighbours
    /// lose their support) and may split. Returns the joints destroyed with it, in the order
    /// they were listed (each is also reported as a [`crate::JointEventKind::Destroyed`]
    /// event).
    pub fn destroy_body(&mut self, id: BodyId) -> Result<Vec<JointId>, AtollError> {
        self.bodies.get(id)?;
        self.note_edit(true);
        let destroyed = self.destroy_body_joints(id.index());
        self.detach_body(id.index());
        for proxy in self.bodies.remove(id)? {
            self.broadphase.destroy_proxy(proxy);
        }
        self.log_input(|| Input::DestroyBody(id));
        Ok(destroyed)
    }

    /// Destroys a contact, unlinking it from its island and its bodies' lists.
    fn destroy_contact(&mut self, contact: u32) {
        let c = &self.contacts.contacts[contact as usize];
        if c.touching {
            self.touch_events.push(step::touch_event(
                &self.bodies,
                c,
                self.contacts.chunk(contact as usize),
                false,
            ));
        }
        self.remove_contact(contact);
    }

    /// Destroys every contact between the bodies in slots `a` and `b` (one per pair of their
    /// shapes that had one), in contact order.
    pub(crate) fn destroy_contacts_between(&mut self, a: u32, b: u32) {
        let mut between = Vec::new();
        graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, a, |id, other| {
            if other == b {
                between.push(id);
            }
        });
        between.sort_unstable();
        for id in between {
            self.destroy_contact(id);
        }
    }

    /// Destroys a contact as [`World::destroy_contact`] does, without its touch event (the
    /// narrowphase's blocks make the events of the contacts they separate).
    fn remove_contact(&mut self, contact: u32) {
        self.islands.unlink(&mut self.contacts.contacts, contact);
        graph::detach(&mut self.bodies.bodies, &mut self.contacts.contacts, contact);
        self.awake_contacts.clear(contact as usize);
        self.contacts.destroy(contact);
    }

    /// Number of live bodies.
    pub fn body_count(&self) -> usize {
        self.bodies.live_count()
    }

    /// Ids of live bodies in slot order.
    pub fn body_ids(&self) -> impl Iterator<Item = BodyId> + '_ {
        self.bodies.ids()
    }

    /// The id of the live body in slot `index` (slots come from [`BodyId::index`] and the
    /// broadphase's user data).
    pub(crate) fn body_id_at(&self, index: u32) -> BodyId {
        self.bodies.id_at(index)
    }

    /// Everything about one body.
    pub fn body(&self, id: BodyId) -> Result<BodyView<'_>, AtollError> {
        let b = self.bodies.get(id)?;
        Ok(BodyView {
            body_type: b.body_type,
            shape: &b.shape,
            material: b.material,
            transform: b.transform,
            linear_velocity: b.linear_velocity,
            angular_velocity: b.angular_velocity,
            mass: b.mass,
            inertia: b.inertia_local,
            center_of_mass: b.center(),
            linear_damping: b.linear_damping,
            angular_damping: b.angular_damping,
            gravity_scale: b.gravity_scale,
            can_sleep: b.can_sleep,
            motion: b.motion,
        })
    }

    /// Every shape of a body at its world pose: its own shape first, then its children
    /// ([`BodyDesc::children`]) in order. What a renderer draws of a compound body.
    pub fn body_shapes(
        &self,
        id: BodyId,
    ) -> Result<impl Iterator<Item = (&Shape, Transform)> + '_, AtollError> {
        let b = self.bodies.get(id)?;
        let children = self.bodies.children.of(id.index()).iter().map(move |&c| {
            let child = &self.bodies.children.children[c as usize];
            (&child.shape, b.transform.mul(&child.local))
        });
        Ok(std::iter::once((&b.shape, b.transform)).chain(children))
    }

    /// Pose of a body's frame.
    pub fn transform(&self, id: BodyId) -> Result<Transform, AtollError> {
        Ok(self.bodies.get(id)?.transform)
    }

    /// Teleports a body. Its contacts keep their impulses; the broadphase refits at once.
    pub fn set_transform(&mut self, id: BodyId, transform: Transform) -> Result<(), AtollError> {
        check_vec3("position", transform.position)?;
        validate_rotation(transform.rotation)?;
        let settings = self.settings;
        let b = self.edit_body(id, false)?;
        b.transform = Transform::new(transform.position, transform.rotation.normalize());
        b.tight = tight_aabb(b);
        let fat = body_fat_aabb(b, &b.tight, &settings);
        b.fat = fat;
        let key = b.proxy;
        self.broadphase.move_proxy(key, fat);
        self.refit_children(id.index());
        let (position, rotation) = (transform.position, transform.rotation);
        self.log_input(|| Input::SetTransform { body: id, position, rotation });
        Ok(())
    }

    /// Places the children of the body in slot `slot` where the body is now and moves their
    /// proxies to their new fat boxes (a body placed outside the step).
    fn refit_children(&mut self, slot: u32) {
        let body = &self.bodies.bodies[slot as usize];
        let pose = body.transform;
        self.bodies.children.place(slot, &pose);
        for k in 0..self.bodies.children.of(slot).len() {
            let c = self.bodies.children.of(slot)[k] as usize;
            let fat = body_fat_aabb(
                &self.bodies.bodies[slot as usize],
                &self.bodies.children.children[c].tight,
                &self.settings,
            );
            let child = &mut self.bodies.children.children[c];
            child.fat = fat;
            self.broadphase.move_proxy(child.proxy, fat);
        }
    }

    /// A live body about to be edited: its island wakes first (an edit is a disturbance).
    fn edit_body(&mut self, id: BodyId, force: bool) -> Result<&mut Body, AtollError> {
        self.bodies.get(id)?;
        self.note_edit(false);
        let cause = if force { WakeCause::Force { body: id } } else { WakeCause::Edit { body: id } };
        self.wake(id.index(), cause);
        Ok(&mut self.bodies.bodies[id.index() as usize])
    }

    /// Velocity of a body's centre of mass.
    pub fn linear_velocity(&self, id: BodyId) -> Result<Vec3, AtollError> {
        Ok(self.bodies.get(id)?.linear_velocity)
    }

    /// Angular velocity of a body (world axes).
    pub fn angular_velocity(&self, id: BodyId) -> Result<Vec3, AtollError> {
        Ok(self.bodies.get(id)?.angular_velocity)
    }

    /// Sets the linear velocity (ignored for static bodies).
    pub fn set_linear_velocity(&mut self, id: BodyId, v: Vec3) -> Result<(), AtollError> {
        check_vec3("linear velocity", v)?;
        let b = self.edit_body(id, false)?;
        if b.body_type != BodyType::Static {
            b.linear_velocity = v;
        }
        self.log_input(|| Input::SetLinearVelocity { body: id, velocity: v });
        Ok(())
    }

    /// Sets the angular velocity (ignored for static bodies).
    pub fn set_angular_velocity(&mut self, id: BodyId, w: Vec3) -> Result<(), AtollError> {
        check_vec3("angular velocity", w)?;
        let b = self.edit_body(id, false)?;
        if b.body_type != BodyType::Static {
            b.angular_velocity = w;
        }
        self.log_input(|| Input::SetAngularVelocity { body: id, velocity: w });
        Ok(())
    }

    /// Adds a force (N) at the centre of mass for the next step.
    pub fn apply_force(&mut self, id: BodyId, force: Vec3) -> Result<(), AtollError> {
        check_vec3("force", force)?;
        self.edit_body(id, true)?.force += force;
        self.log_input(|| Input::ApplyForce { body: id, force });
        Ok(())
    }

    /// Adds a force (N) at a world point for the next step.
    pub fn apply_force_at_point(&mut self, id: BodyId, force: Vec3, point: Vec3) -> Result<(), AtollError> {
        check_vec3("force", force)?;
        check_vec3("point", point)?;
        let b = self.edit_body(id, true)?;
        b.force += force;
        b.torque += (point - b.center()).cross(force);
        self.log_input(|| Input::ApplyForceAtPoint { body: id, force, point });
        Ok(())
    }

    /// Adds a torque (N·m) for the next step.
    pub fn apply_torque(&mut self, id: BodyId, torque: Vec3) -> Result<(), AtollError> {
        check_vec3("torque", torque)?;
        self.edit_body(id, true)?.torque += torque;
        self.log_input(|| Input::ApplyTorque { body: id, torque });
        Ok(())
    }

    /// Applies an impulse (N·s) at the centre of mass now.
    pub fn apply_impulse(&mut self, id: BodyId, impulse: Vec3) -> Result<(), AtollError> {
        check_vec3("impulse", impulse)?;
        let b = self.edit_body(id, true)?;
        b.linear_velocity += impulse * b.inv_mass;
        self.log_input(|| Input::ApplyImpulse { body: id, impulse });
        Ok(())
    }

    /// Applies an impulse (N·s) at a world point now.
    pub fn apply_impulse_at_point(
        &mut self,
        id: BodyId,
        impulse: Vec3,
        point: Vec3,
    ) -> Result<(), AtollError> {
        check_vec3("impulse", impulse)?;
        check_vec3("point", point)?;
        let b = self.edit_body(id, true)?;
        b.linear_velocity += impulse * b.inv_mass;
        let inv_i = b.inv_inertia_world();
        b.angular_velocity += inv_i * (point - b.center()).cross(impulse);
        self.log_input(|| Input::ApplyImpulseAtPoint { body: id, impulse, point });
        Ok(())
    }

    /// The body's tight world AABB.
    pub fn aabb(&self, id: BodyId) -> Result<Aabb, AtollError> {
        Ok(tight_aabb(self.bodies.get(id)?))
    }

    /// The body's fat AABB in the broadphase.
    pub fn fat_aabb(&self, id: BodyId) -> Result<Aabb, AtollError> {
        Ok(self.broadphase.fat_aabb(self.bodies.get(id)?.proxy))
    }

    /// Every live contact pair, in contact id order.
    pub fn contacts(&self) -> impl Iterator<Item = ContactView> + '_ {
        self.contact_views(|c| c.alive)
    }

    /// The contact pairs whose manifolds have points, in contact order. Filters before it copies
    /// a view, so a busy pile's many near-but-apart pairs cost nothing (the editor's contact
    /// overlay walks this every frame).
    pub fn touching_contacts(&self) -> impl Iterator<Item = ContactView> + '_ {
        self.contact_views(|c| c.alive && c.touching)
    }

    fn contact_views(
        &self,
        keep: impl Fn(&crate::narrowphase::Contact) -> bool + 'static,
    ) -> impl Iterator<Item = ContactView> + '_ {
        let contacts = &self.contacts.contacts;
        (0..contacts.len()).filter(move |&i| keep(&contacts[i])).map(|i| self.contact_view(i))
    }

    /// The view of the contact in slot `i`.
    fn contact_view(&self, i: usize) -> ContactView {
        let c = &self.contacts.contacts[i];
        ContactView {
            id: self.contacts.id_at(i as u32),
            body_a: self.bodies.id_at(c.body_a),
            body_b: step::other_id(&self.bodies, c),
            part_a: self.bodies.children.part_of(c.shape_a),
            part_b: if c.body_b == crate::narrowphase::TERRAIN {
                0
            } else {
                self.bodies.children.part_of(c.shape_b)
            },
            chunk: self.contacts.chunk(i),
            manifold: c.manifold,
            impulses: c.impulses,
            friction_impulse: c.friction_impulse,
            twist_impulse: c.twist_impulse,
            friction: c.friction,
            restitution: c.restitution,
            touching: c.touching,
            began: c.began,
            ended: c.ended,
        }
    }

    /// One contact pair; a stale id (the pair was destroyed) is refused.
    pub fn contact(&self, id: ContactId) -> Result<ContactView, AtollError> {
        let slot = self.contacts.slot(id)?;
        Ok(self.contact_view(slot))
    }

    /// Number of live contact pairs.
    pub fn contact_count(&self) -> usize {
        self.contacts.live_count()
    }

    /// Pairs that began or stopped touching in the last step, in contact order.
    pub fn touch_events(&self) -> &[TouchEvent] {
        &self.touch_events
    }

    /// Statistics of both broadphase trees.
    pub fn broadphase_stats(&self) -> BroadphaseStats {
        BroadphaseStats {
            static_tree: self.broadphase.tree(ProxyType::Static).stats(),
            movable_tree: self.broadphase.tree(ProxyType::Movable).stats(),
            reinsertions_last_step: self.broadphase.reinsertions_last_step(),
        }
    }

    /// The broadphase, for drawing its trees.
    pub fn broadphase(&self) -> &Broadphase {
        &self.broadphase
    }

    /// Timings and counters of the last step.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Steps taken so far.
    pub fn step_count(&self) -> u64 {
        self.step_count
    }

    /// Simulated seconds so far.
    pub fn time(&self) -> f64 {
        self.time
    }

    /// An estimate of the bytes the world holds in its main arrays (bodies, contacts, joints,
    /// islands, trees, per-body terrain state and the step's scratch); shapes' hull data and
    /// the terrain are not counted.
    pub fn heap_estimate(&self) -> usize {
        use std::mem::size_of;
        self.bodies.bodies.len() * size_of::<Body>()
            + self.contacts.contacts.len() * size_of::<crate::narrowphase::Contact>()
            + self.joints.joints.len() * size_of::<crate::joint::Joint>()
            + self.islands.bytes()
            + self.broadphase.bytes()
            + self.body_terrain.len() * size_of::<terrain::BodyTerrain>()
            + self.scratch.bytes()
    }
}

/// The body's tight world AABB.
pub(crate) fn tight_aabb(b: &Body) -> Aabb {
    b.shape.world_aabb(&b.transform)
}

/// The fat box for body `b` with tight box `tight`: swept over the path gravity and its
/// velocity take it on in the next few steps (kinematic and static bodies keep their velocity).
pub(crate) fn body_fat_aabb(b: &Body, tight: &Aabb, settings: &StepSettings) -> Aabb {
    let acceleration =
        if b.body_type == BodyType::Dynamic { settings.gravity * b.gravity_scale } else { Vec3::ZERO };
    // No contact (not even a fat-box overlap) and no joint: nothing pushes it off its path.
    let free = b.contact_head == crate::body::NONE && b.joint_head == crate::body::NONE;
    fat_aabb(tight, Path::ahead(b.linear_velocity, acceleration, settings.dt, free), settings.aabb_margin)
}
