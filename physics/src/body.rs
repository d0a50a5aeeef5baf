//! Body storage: dense arrays named by generational [`BodyId`]s.

use crate::broadphase::ProxyKey;
use crate::child::{ChildDesc, validate_children};
use crate::child_store::ChildStore;
pub(crate) use crate::error::validate_rotation;
use crate::error::{AtollError, check_finite, check_non_negative, check_vec3};
use crate::filter::CollisionFilter;
use crate::island::list::IslandLink;
pub use crate::material::Material;
use crate::math::{Aabb, Mat3, Quat, Transform, Vec3};
use crate::sensor::Sensor;
pub(crate) use crate::shape::validate_shape;
use crate::shape::{MassProperties, Shape};
use crate::shape_key::is_child_key;

crate::id::generational_id!(
    /// Names a body: an index into the dense body array plus the generation of that slot, so an
    /// id kept after its body was destroyed is recognised as stale instead of naming a newcomer.
    BodyId
);

impl BodyId {
    /// Stands for the voxel terrain where a body id is expected (the other side of a terrain
    /// contact or touch event). No body ever has this id.
    pub const TERRAIN: BodyId = BodyId::new(u32::MAX - 1, u32::MAX);

    /// True for [`BodyId::TERRAIN`].
    pub fn is_terrain(self) -> bool {
        self == BodyId::TERRAIN
    }
}

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
pub enum BodyType {
    /// Never moves unless teleported; infinite mass.
    Static,
    /// Moves with the velocity it is given; infinite mass; pushes dynamic bodies.
    Kinematic,
    /// Moved by forces and contacts.
    Dynamic,
}

/// Everything needed to create a body.
#[derive(Clone, Debug, PartialEq)]
pub struct BodyDesc {
    /// Static, kinematic or dynamic.
    pub body_type: BodyType,
    /// The collision shape, in the body's frame.
    pub shape: Shape,
    /// Pose of the body's frame (not of its centre of mass).
    pub transform: Transform,
    /// Velocity of the centre of mass, m/s.
    pub linear_velocity: Vec3,
    /// rad/s about the centre of mass, world axes.
    pub angular_velocity: Vec3,
    /// Density, friction and restitution.
    pub material: Material,
    /// Which other bodies it may collide with.
    pub filter: CollisionFilter,
    /// A sensor reports what overlaps it and pushes nothing (see [`Sensor`]).
    pub sensor: Option<Sensor>,
    /// The body's further shapes, for a compound body (`shape` and the fields above are its
    /// first, at the body frame); empty for a body of one shape.
    pub children: Vec<ChildDesc>,
    /// Linear damping rate, 1/s (0 = none): with no other force the velocity decays about as
    /// `e^(-rate · t)` (applied implicitly every substep, `v / (1 + h · rate)`, so any rate is
    /// stable).
    pub linear_damping: f32,
    /// Angular damping rate, 1/s (0 = none), applied like the linear one.
    pub angular_damping: f32,
    /// Multiplies gravity for this body.
    pub gravity_scale: f32,
    /// Whether the body may fall asleep (used by island sleeping).
    pub can_sleep: bool,
    /// A scripted motion for a kinematic body (for example a rotating container).
    pub motion: Option<KinematicMotion>,
}

/// A motion the engine drives a kinematic body along, step after step.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum KinematicMotion {
    /// Turn about a fixed world point at a constant angular velocity (rad/s, world axes): the
    /// body's velocities are set each step so it lands exactly where the rotation takes it.
    Rotate {
        /// The fixed point.
        pivot: Vec3,
        /// Axis times speed.
        angular_velocity: Vec3,
    },
}

impl KinematicMotion {
    /// Where the motion takes a body at `position` with `rotation` after `seconds`.
    pub fn moved(&self, position: Vec3, rotation: Quat, seconds: f32) -> (Vec3, Quat) {
        match *self {
            KinematicMotion::Rotate { pivot, angular_velocity } => {
                let turn = Quat::from_scaled_axis(angular_velocity * seconds);
                (pivot + turn * (position - pivot), turn * rotation)
            }
        }
    }

    /// The angular velocity the motion gives a body.
    pub fn angular_velocity(&self) -> Vec3 {
        match *self {
            KinematicMotion::Rotate { angular_velocity, .. } => angular_velocity,
        }
    }

    fn validate(&self) -> Result<(), AtollError> {
        match self {
            KinematicMotion::Rotate { pivot, angular_velocity } => {
                check_vec3("motion pivot", *pivot)?;
                check_vec3("motion angular velocity", *angular_velocity)?;
                Ok(())
            }
        }
    }
}

impl BodyDesc {
    /// A dynamic body with default material at `position`.
    pub fn dynamic(shape: Shape, position: Vec3) -> Self {
        Self::new(BodyType::Dynamic, shape, position)
    }

    /// A static body at `position`.
    pub fn fixed(shape: Shape, position: Vec3) -> Self {
        Self::new(BodyType::Static, shape, position)
    }

    /// A body of the given type at rest at `position`.
    pub fn new(body_type: BodyType, shape: Shape, position: Vec3) -> Self {
        Self {
            body_type,
            shape,
            transform: Transform::from_position(position),
            linear_velocity: Vec3::ZERO,
            angular_velocity: Vec3::ZERO,
            material: Material::default(),
            filter: CollisionFilter::DEFAULT,
            sensor: None,
            children: Vec::new(),
            linear_damping: 0.0,
            angular_damping: 0.0,
            gravity_scale: 1.0,
            can_sleep: true,
            motion: None,
        }
    }

    /// Sets the rotation.
    pub fn with_rotation(mut self, rotation: Quat) -> Self {
        self.transform.rotation = rotation;
        self
    }

    /// Sets the material.
    pub fn with_material(mut self, material: Material) -> Self {
        self.material = material;
        self
    }

    /// Sets the collision filter.
    pub fn with_filter(mut self, filter: CollisionFilter) -> Self {
        self.filter = filter;
        self
    }

    /// Makes it a sensor.
    pub fn with_sensor(mut self, sensor: Sensor) -> Self {
        self.sensor = Some(sensor);
        self
    }

    /// Adds a further shape: the body becomes a compound.
    pub fn with_child(mut self, child: ChildDesc) -> Self {
        self.children.push(child);
        self
    }

    /// The whole body's mass, centre of mass (in the body's frame) and inertia about it: its
    /// own shape's and its children's, each at its own density, summed exactly (parallel
    /// axes). A sensor shape weighs nothing. For a body of one shape, the shape's own.
    pub fn mass_properties(&self) -> MassProperties {
        let own = self.shape.mass_properties(self.material.density);
        if self.children.is_empty() {
            return own;
        }
        let own = if self.sensor.is_some() {
            MassProperties { mass: 0.0, inertia: own.inertia * 0.0, ..own }
        } else {
            own
        };
        let parts: Vec<MassProperties> =
            std::iter::once(own).chain(self.children.iter().map(ChildDesc::mass_properties)).collect();
        // Every part a sensor: no mass anywhere, the own shape's centre and a zero inertia.
        MassProperties::combined(&parts).unwrap_or(own)
    }

    /// Sets the initial linear velocity.
    pub fn with_linear_velocity(mut self, v: Vec3) -> Self {
        self.linear_velocity = v;
        self
    }

    /// Checks every field; the error names the first bad one.
    pub fn validate(&self) -> Result<(), AtollError> {
        check_vec3("position", self.transform.position)?;
        validate_rotation(self.transform.rotation)?;
        check_vec3("linear velocity", self.linear_velocity)?;
        check_vec3("angular velocity", self.angular_velocity)?;
        self.material.validate()?;
        check_non_negative("linear damping", self.linear_damping)?;
        check_non_negative("angular damping", self.angular_damping)?;
        check_finite("gravity scale", self.gravity_scale)?;
        if let Some(motion) = &self.motion {
            if self.body_type != BodyType::Kinematic {
                return Err(AtollError::invalid(
                    "motion",
                    "only a kinematic body can follow a scripted motion",
                ));
            }
            motion.validate()?;
        }
        validate_shape(&self.shape)?;
        validate_children(&self.children)?;
        // A sensor part weighs nothing (`mass_properties`): a dynamic body needs one solid shape.
        let solid = self.sensor.is_none() || self.children.iter().any(|c| c.sensor.is_none());
        if self.body_type == BodyType::Dynamic && !self.children.is_empty() && !solid {
            return Err(AtollError::invalid(
                "sensor",
                "every shape of this dynamic compound body is a sensor, so it has no mass: make one solid",
            ));
        }
        Ok(())
    }
}

/// One body's state. Kept private: the world exposes it through query methods.
///
/// `repr(C)`, what the narrowphase's quick check of a near but apart pair reads first (pose,
/// shape, both boxes, bounding radius, velocities: bytes 0–124): every awake contact reads both
/// its bodies every step, in contact order, so out of any order of the body array. Laid out by
/// the compiler, the bounding radius sat at byte 264, a line of its own. Callgrind's cache
/// simulation (`step_count <scene>`): 4–7 % fewer first-level data misses on the rain, the
/// tumbler, the free fall and the terrain rain, the same instructions.
#[derive(Clone, Debug)]
#[repr(C)]
pub(crate) struct Body {
    /// Pose of the body frame.
    pub transform: Transform,
    pub shape: Shape,
    /// World bounds at the current pose, refreshed whenever the pose changes outside the
    /// solver and at the start of each step for awake bodies.
    pub tight: Aabb,
    /// The proxy's fat box in the broadphase, kept here too so that the narrowphase reads it
    /// with the rest of the body instead of from a tree node elsewhere in memory.
    pub fat: Aabb,
    /// The shape's bounding radius about the body origin ([`crate::Shape::bounding_radius`]),
    /// computed once: every contact needs it every step, and a hull's costs a pass over its
    /// vertices.
    pub bounding_radius: f32,
    pub linear_velocity: Vec3,
    pub angular_velocity: Vec3,
    pub body_type: BodyType,
    /// Simulated this step (static bodies never are).
    pub awake: bool,
    pub alive: bool,
    pub can_sleep: bool,
    pub generation: u32,
    pub material: Material,
    /// Centre of mass in the body frame.
    pub local_center: Vec3,
    pub force: Vec3,
    pub torque: Vec3,
    pub mass: f32,
    pub inv_mass: f32,
    /// Inertia about the centre of mass in body axes.
    pub inertia_local: Mat3,
    pub inv_inertia_local: Mat3,
    pub linear_damping: f32,
    pub angular_damping: f32,
    pub gravity_scale: f32,
    pub motion: Option<KinematicMotion>,
    /// Broadphase proxy key.
    pub proxy: ProxyKey,
    /// The island of a dynamic body and its place in the island's body list
    /// ([`IslandLink::NONE`] for static and kinematic bodies).
    pub island: IslandLink,
    /// Seconds the body has been slow enough to sleep.
    pub sleep_timer: f32,
    /// First edge of the body's contact list (`contact << 1 | side`), or [`NONE`].
    pub contact_head: u32,
    /// First edge of the body's joint list (`joint << 1 | side`), or [`NONE`].
    pub joint_head: u32,
}

// What the narrowphase's quick check reads stays within the body's first 128 bytes (see
// `Body`): a field added before it would push it on.
const _: () = assert!(
    std::mem::offset_of!(Body, transform) == 0
        && std::mem::offset_of!(Body, angular_velocity) + std::mem::size_of::<Vec3>() <= 128
        && std::mem::offset_of!(Body, bounding_radius) < 128
        && std::mem::offset_of!(Body, fat) < 128
);

pub(crate) use crate::id::NONE;

/// Neighbours of an edge (a contact or a joint) in one body's list of its kind (`graph.rs`), as edge keys (`edge << 1 | side`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct EdgeLink {
    pub prev: u32,
    pub next: u32,
}

impl Default for EdgeLink {
    fn default() -> Self {
        EdgeLink { prev: NONE, next: NONE }
    }
}

impl Body {
    pub fn from_desc(desc: &BodyDesc, generation: u32) -> Body {
        let mp = desc.mass_properties();
        let dynamic = desc.body_type == BodyType::Dynamic;
        let (mass, inv_mass) = if dynamic { (mp.mass, 1.0 / mp.mass) } else { (0.0, 0.0) };
        let inv_inertia_local = if dynamic { mp.inertia.inverse() } else { Mat3::ZERO };
        let moving = desc.body_type != BodyType::Static;
        Body {
            generation,
            alive: true,
            body_type: desc.body_type,
            shape: desc.shape.clone(),
            material: desc.material,
            transform: Transform::new(desc.transform.position, desc.transform.rotation.normalize()),
            local_center: mp.local_center,
            linear_velocity: if moving { desc.linear_velocity } else { Vec3::ZERO },
            angular_velocity: if moving { desc.angular_velocity } else { Vec3::ZERO },
            force: Vec3::ZERO,
            torque: Vec3::ZERO,
            mass,
            inv_mass,
            inertia_local: if dynamic { mp.inertia } else { Mat3::ZERO },
            inv_inertia_local,
            linear_damping: desc.linear_damping,
            angular_damping: desc.angular_damping,
            gravity_scale: desc.gravity_scale,
            can_sleep: desc.can_sleep,
            motion: desc.motion,
            tight: desc.shape.world_aabb(&desc.transform),
            fat: desc.shape.world_aabb(&desc.transform),
            bounding_radius: desc.shape.bounding_radius(),
            proxy: ProxyKey::NONE,
            island: IslandLink::NONE,
            sleep_timer: 0.0,
            awake: moving,
            contact_head: NONE,
            joint_head: NONE,
        }
    }

    /// World position of the centre of mass.
    pub fn center(&self) -> Vec3 {
        self.transform.transform_point(self.local_center)
    }

    /// Inverse inertia in world axes: `R · I⁻¹ · Rᵀ`. Spheres' and boxes' local inverse
    /// inertias are diagonal (a sphere's the same on every axis, where turning changes nothing),
    /// so those skip the full products: every step gathers this for every awake body, and the
    /// products were 5 % of a free fall's instructions.
    pub fn inv_inertia_world(&self) -> Mat3 {
        let m = &self.inv_inertia_local;
        let diagonal = [m.x_axis.y, m.x_axis.z, m.y_axis.x, m.y_axis.z, m.z_axis.x, m.z_axis.y] == [0.0; 6];
        if !diagonal {
            let r = Mat3::from_quat(self.transform.rotation);
            return r * *m * r.transpose();
        }
        let d = Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z);
        if d.x == d.y && d.y == d.z {
            return *m;
        }
        // Σ_k d_k · c_k c_kᵀ over the rotation's columns c_k, which is symmetric.
        let r = Mat3::from_quat(self.transform.rotation);
        let (c0, c1, c2) = (r.x_axis, r.y_axis, r.z_axis);
        let entry = |i: usize, j: usize| d.x * c0[i] * c0[j] + d.y * c1[i] * c1[j] + d.z * c2[i] * c2[j];
        let (xx, yy, zz) = (entry(0, 0), entry(1, 1), entry(2, 2));
        let (xy, xz, yz) = (entry(0, 1), entry(0, 2), entry(1, 2));
        Mat3::from_cols(Vec3::new(xx, xy, xz), Vec3::new(xy, yy, yz), Vec3::new(xz, yz, zz))
    }
}

/// The dense body array with a free list of destroyed slots.
#[derive(Clone, Debug, Default)]
pub(crate) struct BodyStore {
    pub bodies: Vec<Body>,
    free: Vec<u32>,
    live: usize,
    /// Slots of the live bodies with a scripted motion, ascending. A body's motion is set only
    /// when it is made or replaced (`insert`, `replace`), so the step drives these without
    /// reading every awake body's motion, a cache line each.
    scripted: Vec<u32>,
    /// Each slot's collision filter ([`CollisionFilter::DEFAULT`] for a free slot), beside the
    /// bodies rather than in them: only finding pairs reads it, and [`Body`] stays as it was
    /// for every stage that walks the bodies.
    filters: Vec<CollisionFilter>,
    /// Live bodies whose filter is not [`CollisionFilter::DEFAULT`]. While there are none, every
    /// pair may collide and the pair finding reads no filter (default filters allow each
    /// other), so a world without filters pays one test a step for them.
    filtered: usize,
    /// Each slot's sensor, if it is one (`None` for a free slot), beside the bodies as the
    /// filters are.
    sensor_of: Vec<Option<Sensor>>,
    /// Slots of the live sensors, ascending.
    sensors: Vec<u32>,
    /// The further shapes of compound bodies, beside the bodies as the filters are.
    pub children: ChildStore,
}

impl BodyStore {
    pub fn insert(&mut self, desc: &BodyDesc) -> BodyId {
        self.live += 1;
        let id = if let Some(index) = self.free.pop() {
            let generation = self.bodies[index as usize].generation + 1;
            self.bodies[index as usize] = Body::from_desc(desc, generation);
            BodyId::new(index, generation)
        } else {
            let index = self.bodies.len() as u32;
            self.bodies.push(Body::from_desc(desc, 0));
            BodyId::new(index, 0)
        };
        self.list_scripted(id.index, desc.motion.is_some());
        if self.filters.len() < self.bodies.len() {
            self.filters.resize(self.bodies.len(), CollisionFilter::DEFAULT);
            self.sensor_of.resize(self.bodies.len(), None);
        }
        self.set_filter(id.index, desc.filter);
        self.set_sensor(id.index, desc.sensor);
        // Placed at the body's pose as the body holds it (its rotation normalised).
        let pose = self.bodies[id.index as usize].transform;
        self.children.insert(id.index, &desc.shape, &desc.children, &pose);
        id
    }

    /// Puts `body`, with `filter` and `sensor`, in live slot `slot`, in place of the body there.
    pub fn replace(&mut self, slot: u32, body: Body, filter: CollisionFilter, sensor: Option<Sensor>) {
        let scripted = body.motion.is_some();
        self.set_filter(slot, filter);
        self.set_sensor(slot, sensor);
        self.bodies[slot as usize] = body;
        self.list_scripted(slot, scripted);
    }

    /// Makes the body in slot `slot` a sensor, or not.
    fn set_sensor(&mut self, slot: u32, sensor: Option<Sensor>) {
        self.sensor_of[slot as usize] = sensor;
        match (self.sensors.binary_search(&slot), sensor.is_some()) {
            (Err(at), true) => self.sensors.insert(at, slot),
            (Ok(at), false) => {
                self.sensors.remove(at);
            }
            _ => {}
        }
    }

    /// The sensor of the body in slot `slot`, if it is one.
    #[inline]
    pub fn sensor(&self, slot: u32) -> Option<Sensor> {
        self.sensor_of[slot as usize]
    }

    /// Whether any live shape, a body's own or a child, is a sensor.
    #[inline]
    pub fn any_sensor(&self) -> bool {
        !self.sensors.is_empty() || !self.children.sensors().is_empty()
    }

    /// Every live sensor shape as (body slot, part, shape key), by body slot and then part:
    /// the bodies' own sensor shapes merged with the children's.
    pub fn sensor_shapes(&self) -> impl Iterator<Item = (u32, u32, u32)> + '_ {
        let mut own = self.sensors.iter().map(|&slot| (slot, 0, slot)).peekable();
        let mut parts = (self.children.sensors().iter())
            .map(|&c| {
                let child = &self.children.children[c as usize];
                (child.body, child.part, crate::shape_key::child_key(c))
            })
            .peekable();
        std::iter::from_fn(move || match (own.peek(), parts.peek()) {
            (Some(a), Some(b)) if (b.0, b.1) < (a.0, a.1) => parts.next(),
            (Some(_), _) => own.next(),
            (None, _) => parts.next(),
        })
    }

    /// The shape key of part `part` of the body in live slot `slot` (0 its own shape), if it
    /// has that part.
    pub fn key_of(&self, slot: u32, part: u32) -> Option<u32> {
        if part == 0 { Some(slot) } else { self.children.key_of(slot, part) }
    }

    /// Whether the shapes of keys `a` and `b` (a body's own by its slot, or a child's) may have
    /// a contact: they belong to two bodies, neither is a sensor and their filters allow each
    /// other. Only worth asking when [`BodyStore::any_pair_rules`].
    #[inline]
    pub fn may_touch(&self, a: u32, b: u32) -> bool {
        if is_child_key(a | b) {
            return self.may_touch_parts(a, b);
        }
        self.sensor_of[a as usize].is_none()
            && self.sensor_of[b as usize].is_none()
            && self.filter(a).allows(self.filter(b))
    }

    /// Whether some live body has a filter of its own, is a sensor or has children (whose
    /// shapes never touch each other): otherwise every pair of shapes may touch.
    pub fn any_pair_rules(&self) -> bool {
        self.filtered != 0 || self.any_sensor() || !self.children.compounds().is_empty()
    }

    /// Gives the body in slot `slot` the filter `filter`.
    pub fn set_filter(&mut self, slot: u32, filter: CollisionFilter) {
        let old = &mut self.filters[slot as usize];
        self.filtered = self.filtered + usize::from(!filter.is_default()) - usize::from(!old.is_default());
        *old = filter;
    }

    /// The collision filter of the body in slot `slot`.
    #[inline]
    pub fn filter(&self, slot: u32) -> &CollisionFilter {
        &self.filters[slot as usize]
    }

    /// Lists slot `slot` among the scripted bodies, or takes it out.
    fn list_scripted(&mut self, slot: u32, scripted: bool) {
        match (self.scripted.binary_search(&slot), scripted) {
            (Err(at), true) => self.scripted.insert(at, slot),
            (Ok(at), false) => {
                self.scripted.remove(at);
            }
            _ => {}
        }
    }

    /// Slots of the live bodies with a scripted motion (`Body::motion`), ascending.
    pub fn scripted(&self) -> &[u32] {
        &self.scripted
    }

    /// Frees the body's slot (and its children's); returns its broadphase proxy keys, its
    /// own first.
    pub fn remove(&mut self, id: BodyId) -> Result<Vec<ProxyKey>, AtollError> {
        self.get(id)?;
        self.set_filter(id.index, CollisionFilter::DEFAULT);
        self.set_sensor(id.index, None);
        let slot = self.get_mut(id)?;
        slot.alive = false;
        let mut proxies = vec![slot.proxy];
        proxies.extend(self.children.remove(id.index));
        self.list_scripted(id.index, false);
        self.free.push(id.index);
        self.live -= 1;
        Ok(proxies)
    }

    /// The body slot of shape key `key` (a body's slot, or a child's key).
    #[inline]
    pub fn body_of(&self, key: u32) -> u32 {
        if is_child_key(key) { self.children.by_key(key).body } else { key }
    }

    /// The shape, world pose and material of shape key `key`.
    #[inline]
    pub fn part(&self, key: u32) -> (&Shape, &Transform, &Material) {
        if is_child_key(key) {
            let c = self.children.by_key(key);
            (&c.shape, &c.transform, &c.material)
        } else {
            let b = &self.bodies[key as usize];
            (&b.shape, &b.transform, &b.material)
        }
    }

    /// The collision filter and sensor of shape key `key`.
    #[inline]
    pub fn rules_of(&self, key: u32) -> (&CollisionFilter, Option<Sensor>) {
        if is_child_key(key) {
            let c = self.children.by_key(key);
            (&c.filter, c.sensor)
        } else {
            (self.filter(key), self.sensor_of[key as usize])
        }
    }

    /// [`BodyStore::may_touch`] when a key names a child: two shapes of one body never touch.
    #[inline(never)]
    fn may_touch_parts(&self, a: u32, b: u32) -> bool {
        if self.body_of(a) == self.body_of(b) {
            return false;
        }
        let ((fa, sa), (fb, sb)) = (self.rules_of(a), self.rules_of(b));
        sa.is_none() && sb.is_none() && fa.allows(fb)
    }

    pub fn get(&self, id: BodyId) -> Result<&Body, AtollError> {
        match self.bodies.get(id.index as usize) {
            Some(b) if b.alive && b.generation == id.generation => Ok(b),
            _ => Err(AtollError::StaleBodyId),
        }
    }

    pub fn get_mut(&mut self, id: BodyId) -> Result<&mut Body, AtollError> {
        match self.bodies.get_mut(id.index as usize) {
            Some(b) if b.alive && b.generation == id.generation => Ok(b),
            _ => Err(AtollError::StaleBodyId),
        }
    }

    /// The id of the live body in slot `index`.
    pub fn id_at(&self, index: u32) -> BodyId {
        BodyId::new(index, self.bodies[index as usize].generation)
    }

    pub fn live_count(&self) -> usize {
        self.live
    }

    /// Ids of live bodies in slot order.
    pub fn ids(&self) -> impl Iterator<Item = BodyId> + '_ {
        self.bodies
            .iter()
            .enumerate()
            .filter(|(_, b)| b.alive)
            .map(|(i, b)| BodyId::new(i as u32, b.generation))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn world_inverse_inertia_matches_the_full_product() {
        // A sphere (the same on every axis), a box and a capsule (diagonal), and a hull off
        // its centre (not diagonal in general), each turned many ways: the short cuts agree
        // with R · I⁻¹ · Rᵀ, and the diagonal one is symmetric.
        let points = [
            Vec3::new(0.0, 0.0, 0.0),
            Vec3::new(1.0, 0.2, 0.0),
            Vec3::new(0.1, 1.5, 0.3),
            Vec3::new(0.4, 0.1, 0.9),
            Vec3::new(-0.3, 0.5, 0.2),
        ];
        let shapes = [
            Shape::sphere(0.4).unwrap(),
            Shape::cuboid(Vec3::new(0.3, 0.7, 1.1)).unwrap(),
            Shape::capsule(0.3, 0.8).unwrap(),
            Shape::hull(&points).unwrap(),
        ];
        for shape in shapes {
            let mut body = Body::from_desc(&BodyDesc::new(BodyType::Dynamic, shape, Vec3::ZERO), 0);
            for k in 0..50 {
                let axis = Vec3::new((k as f32 * 0.7).sin(), (k as f32 * 1.3).cos(), 0.5).normalize();
                body.transform.rotation = Quat::from_axis_angle(axis, k as f32 * 0.41);
                let r = Mat3::from_quat(body.transform.rotation);
                let full = r * body.inv_inertia_local * r.transpose();
                let fast = body.inv_inertia_world();
                let scale = full.to_cols_array().iter().fold(0.0f32, |m, x| m.max(x.abs()));
                for (a, b) in fast.to_cols_array().iter().zip(full.to_cols_array()) {
                    assert!((a - b).abs() <= 1e-5 * scale, "{fast:?} against {full:?}");
                }
                let m = body.inv_inertia_local;
                if m == Mat3::from_diagonal(Vec3::new(m.x_axis.x, m.y_axis.y, m.z_axis.z)) {
                    assert_eq!(fast, fast.transpose());
                }
            }
        }
    }

    #[test]
    fn the_scripted_list_holds_the_live_bodies_with_a_motion_in_slot_order() {
        let shape = Shape::cuboid(Vec3::splat(0.5)).unwrap();
        let plain = BodyDesc::new(BodyType::Kinematic, shape.clone(), Vec3::ZERO);
        let mut turning = plain.clone();
        turning.motion = Some(KinematicMotion::Rotate { pivot: Vec3::ZERO, angular_velocity: Vec3::Y });
        let mut store = BodyStore::default();
        let ids: Vec<BodyId> = [&plain, &turning, &plain, &turning].iter().map(|d| store.insert(d)).collect();
        assert_eq!(store.scripted(), [1, 3]);
        // Removed: out; its slot reused by another scripted body: back in order.
        store.remove(ids[1]).unwrap();
        assert_eq!(store.scripted(), [3]);
        let again = store.insert(&turning);
        assert_eq!((again.index, store.scripted()), (1, &[1, 3][..]));
        // Replaced by a body without a motion and the other way round.
        store.replace(3, Body::from_desc(&plain, 0), CollisionFilter::DEFAULT, None);
        store.replace(0, Body::from_desc(&turning, 0), CollisionFilter::DEFAULT, None);
        assert_eq!(store.scripted(), [0, 1]);
        store.replace(0, Body::from_desc(&turning, 0), CollisionFilter::DEFAULT, None);
        assert_eq!(store.scripted(), [0, 1], "listed once");
    }

    #[test]
    fn the_store_counts_its_live_bodies_with_a_filter_of_their_own() {
        let shape = Shape::sphere(0.5).unwrap();
        let plain = BodyDesc::dynamic(shape, Vec3::ZERO);
        let apart = CollisionFilter { category: 2, mask: 1, group: 0 };
        let mut store = BodyStore::default();
        let a = store.insert(&plain);
        assert!(!store.any_pair_rules());
        let b = store.insert(&plain.clone().with_filter(apart));
        assert!(store.any_pair_rules());
        assert_eq!(*store.filter(b.index), apart);
        // Removed: its slot's filter is the default again, for the next body there.
        store.remove(b).unwrap();
        assert!(!store.any_pair_rules());
        let c = store.insert(&plain);
        assert_eq!((c.index, *store.filter(c.index)), (b.index, CollisionFilter::DEFAULT));
        store.set_filter(a.index, apart);
        store.replace(c.index, Body::from_desc(&plain, 1), apart, None);
        store.set_filter(a.index, CollisionFilter::DEFAULT);
        assert!(store.any_pair_rules(), "one left");
        store.replace(c.index, Body::from_desc(&plain, 1), CollisionFilter::DEFAULT, None);
        assert!(!store.any_pair_rules());
    }
}
