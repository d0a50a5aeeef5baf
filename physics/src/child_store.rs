//! [`ChildStore`]: the further shapes of compound bodies as a world simulates them, beside the
//! bodies (a [`crate::body::Body`] keeps its own shape and is not one byte larger). A child is
//! named by its shape key (`crate::shape_key`): the child bit and its slot here.

use crate::broadphase::ProxyKey;
use crate::child::ChildDesc;
use crate::filter::CollisionFilter;
use crate::material::Material;
use crate::math::{Aabb, Transform, Vec3};
use crate::sensor::Sensor;
use crate::shape::Shape;
use crate::shape_key::{MAX_CHILD_SLOTS, child_slot};

/// One child of a compound body, placed in the world.
#[derive(Clone, Debug)]
pub(crate) struct Child {
    /// The slot of the body it belongs to.
    pub body: u32,
    /// Its pose in the body's frame.
    pub local: Transform,
    pub shape: Shape,
    pub material: Material,
    pub filter: CollisionFilter,
    pub sensor: Option<Sensor>,
    /// Its pose in the world, refreshed with its body's tight box (at each step's start for an
    /// awake body, and whenever the body is placed).
    pub transform: Transform,
    /// World bounds at [`Child::transform`].
    pub tight: Aabb,
    /// Its proxy's fat box in the broadphase.
    pub fat: Aabb,
    /// The shape's bounding radius about its own origin.
    pub bounding_radius: f32,
    /// Its bounding radius about its body's origin (for the bound on its points' speed).
    pub body_radius: f32,
    /// The shape's centroid in its own frame.
    pub local_center: Vec3,
    pub proxy: ProxyKey,
    /// Its place among its body's shapes: 1 for the first child (0 is the body's own shape).
    pub part: u32,
    pub alive: bool,
}

impl Child {
    fn new(body: u32, part: u32, desc: &ChildDesc, body_pose: &Transform) -> Child {
        let local = Transform::new(desc.pose.position, desc.pose.rotation.normalize());
        let transform = body_pose.mul(&local);
        let tight = desc.shape.world_aabb(&transform);
        Child {
            body,
            local,
            shape: desc.shape.clone(),
            material: desc.material,
            filter: desc.filter,
            sensor: desc.sensor,
            transform,
            tight,
            fat: tight,
            bounding_radius: desc.shape.bounding_radius(),
            body_radius: local.position.length() + desc.shape.bounding_radius(),
            local_center: desc.shape.mass_properties(1.0).local_center,
            proxy: ProxyKey::NONE,
            part,
            alive: true,
        }
    }

    /// Its pose, tight box and the world pose of its body at `body_pose`.
    #[inline]
    pub fn place(&mut self, body_pose: &Transform) {
        self.transform = body_pose.mul(&self.local);
        self.tight = self.shape.world_aabb(&self.transform);
    }

    /// The description it was made from.
    pub fn desc(&self) -> ChildDesc {
        ChildDesc {
            shape: self.shape.clone(),
            pose: self.local,
            material: self.material,
            filter: self.filter,
            sensor: self.sensor,
        }
    }
}

/// The children of every compound body: a dense array with a free list, and per body slot the
/// list of its children's slots (empty for a body of one shape).
#[derive(Clone, Debug, Default)]
pub(crate) struct ChildStore {
    pub children: Vec<Child>,
    free: Vec<u32>,
    /// Per body slot, its children's slots in the order they were described.
    of_body: Vec<Vec<u32>>,
    /// Slots of the live bodies with children, ascending: the step walks these, so a world of
    /// single-shape bodies spends nothing on children.
    compounds: Vec<u32>,
    /// Per body slot, a compound body's own shape's centroid in the body frame (a body of one
    /// shape uses its centre of mass, which is that).
    own_centers: Vec<Vec3>,
    /// Slots of the live children that are sensors, by body slot and then part: the order the
    /// sensors stage reports them in.
    sensors: Vec<u32>,
    /// Per body slot, a compound body's extent for the continuous stage's quick test.
    extents: Vec<CompoundExtent>,
}

/// What the continuous stage's quick test (`may_reach_static`) reads of a compound body in
/// place of its own shape's: the reach and the thinnest half extent of all its solid shapes.
/// A body whose own shape is thick but whose legs are thin tunnels by its legs.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct CompoundExtent {
    /// The farthest any of its solid shapes reaches from the body origin.
    pub radius: f32,
    /// The smallest half extent of its solid shapes (`Shape::min_half_extent`).
    pub thinnest: f32,
}

impl ChildStore {
    /// Adds the children of the body in slot `body`, posed at `body_pose`.
    pub fn insert(&mut self, body: u32, own: &Shape, descs: &[ChildDesc], body_pose: &Transform) {
        debug_assert!(self.of(body).is_empty(), "body {body} already has children");
        if descs.is_empty() {
            return;
        }
        if self.of_body.len() <= body as usize {
            self.of_body.resize_with(body as usize + 1, Vec::new);
            self.own_centers.resize(body as usize + 1, Vec3::ZERO);
            self.extents.resize(body as usize + 1, CompoundExtent::default());
        }
        self.own_centers[body as usize] = own.mass_properties(1.0).local_center;
        // Sensor parts stop at nothing, so they are not swept: the solid ones count (the own
        // shape always, conservatively).
        let solid = descs.iter().filter(|d| d.sensor.is_none());
        self.extents[body as usize] = solid.fold(
            CompoundExtent { radius: own.bounding_radius(), thinnest: own.min_half_extent() },
            |e, d| CompoundExtent {
                radius: e.radius.max(d.pose.position.length() + d.shape.bounding_radius()),
                thinnest: e.thinnest.min(d.shape.min_half_extent()),
            },
        );
        let mut slots = Vec::with_capacity(descs.len());
        for (k, desc) in descs.iter().enumerate() {
            let child = Child::new(body, k as u32 + 1, desc, body_pose);
            let slot = match self.free.pop() {
                Some(slot) => {
                    self.children[slot as usize] = child;
                    slot
                }
                None => {
                    self.children.push(child);
                    self.children.len() as u32 - 1
                }
            };
            assert!(slot < MAX_CHILD_SLOTS, "more than {MAX_CHILD_SLOTS} child shapes in one world");
            slots.push(slot);
        }
        for &slot in &slots {
            if self.children[slot as usize].sensor.is_some() {
                let order = |s: &u32| (self.children[*s as usize].body, self.children[*s as usize].part);
                let at = self.sensors.partition_point(|s| order(s) < order(&slot));
                self.sensors.insert(at, slot);
            }
        }
        self.of_body[body as usize] = slots;
        if let Err(at) = self.compounds.binary_search(&body) {
            self.compounds.insert(at, body);
        }
    }

    /// Removes the children of the body in slot `body`; returns their proxies.
    pub fn remove(&mut self, body: u32) -> Vec<ProxyKey> {
        let Some(slots) = self.of_body.get_mut(body as usize).map(std::mem::take) else { return Vec::new() };
        if let Ok(at) = self.compounds.binary_search(&body) {
            self.compounds.remove(at);
        }
        if slots.iter().any(|&s| self.children[s as usize].sensor.is_some()) {
            let children = &self.children;
            self.sensors.retain(|&s| children[s as usize].body != body);
        }
        let mut proxies = Vec::with_capacity(slots.len());
        for slot in slots {
            let child = &mut self.children[slot as usize];
            child.alive = false;
            proxies.push(std::mem::replace(&mut child.proxy, ProxyKey::NONE));
            self.free.push(slot);
        }
        proxies
    }

    /// The child slots of the body in slot `body`.
    #[inline]
    pub fn of(&self, body: u32) -> &[u32] {
        self.of_body.get(body as usize).map_or(&[], Vec::as_slice)
    }

    /// Slots of the live bodies with children, ascending.
    #[inline]
    pub fn compounds(&self) -> &[u32] {
        &self.compounds
    }

    /// Slots of the live children that are sensors, by body slot and then part.
    #[inline]
    pub fn sensors(&self) -> &[u32] {
        &self.sensors
    }

    /// The key of part `part` (from 1) of the body in slot `body`, if it has that many.
    pub fn key_of(&self, body: u32, part: u32) -> Option<u32> {
        let index = usize::try_from(part.checked_sub(1)?).ok()?;
        self.of(body).get(index).map(|&slot| crate::shape_key::child_key(slot))
    }

    /// A compound body's extent, `None` for a body of one shape.
    #[inline]
    pub fn extent(&self, body: u32) -> Option<CompoundExtent> {
        (!self.of(body).is_empty()).then(|| self.extents[body as usize])
    }

    /// `own` (the body's own shape's box) grown around the body's children where they were
    /// last placed (the step's start, during a step).
    pub fn tight_around(&self, body: u32, own: Aabb) -> Aabb {
        (self.of(body).iter()).fold(own, |t, &c| t.union(&self.children[c as usize].tight))
    }

    /// The child named by shape key `key` (a child's).
    #[inline]
    pub fn by_key(&self, key: u32) -> &Child {
        &self.children[child_slot(key)]
    }

    /// Live children in the world.
    pub fn live_count(&self) -> usize {
        self.children.len() - self.free.len()
    }

    /// The place of shape key `key` among its body's shapes: 0 for a body's own shape, `k` for
    /// its child `k - 1`.
    #[inline]
    pub fn part_of(&self, key: u32) -> u32 {
        if crate::shape_key::is_child_key(key) { self.by_key(key).part } else { 0 }
    }

    /// The centroid of compound body `body`'s own shape, in the body frame.
    #[inline]
    pub fn own_center(&self, body: u32) -> Vec3 {
        self.own_centers[body as usize]
    }

    /// Places the children of the body in slot `body` at the body's pose `body_pose`.
    pub fn place(&mut self, body: u32, body_pose: &Transform) {
        let Some(slots) = self.of_body.get(body as usize) else { return };
        for &slot in slots {
            self.children[slot as usize].place(body_pose);
        }
    }
}
