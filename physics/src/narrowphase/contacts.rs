//! Contact pairs that persist across steps: their manifolds, accumulated impulses for warm
//! starting, and begin/end touching flags. Contacts live in one dense array named by index,
//! walked in index order; a hash map is used only to look up a pair, never iterated.

use super::pair_map::PairMap;
use super::{CollideCache, MAX_MANIFOLD_POINTS, Manifold, ManifoldAnchors};
use crate::body::EdgeLink;
use crate::hash::FastMap;
use crate::island::IslandLink;
use crate::math::Vec3;
use crate::parallel::prefetch_at;
use crate::terrain::{ChunkCollision, ChunkCoord};
use std::sync::Arc;

crate::id::generational_id!(
    /// Names a contact pair: its slot in the contact array plus the slot's generation, so an id
    /// kept after the pair was destroyed (the bodies moved apart) is refused rather than naming
    /// whichever pair reuses the slot.
    ContactId
);

/// `body_b` of a contact with the terrain: not a body slot. The terrain is static, so the
/// solver sees it as the fixed slot and islands never link through it.
pub(crate) const TERRAIN: u32 = u32::MAX - 1;

/// What a terrain contact collides with: one chunk's triangles, held for the contact's life
/// (an edit that changes the chunk destroys the contact, so the mesh never goes stale).
#[derive(Clone, Debug)]
pub(crate) struct TerrainLink {
    pub chunk: ChunkCoord,
    pub data: Arc<ChunkCollision>,
}

/// Impulses a contact point accumulated in its last solve, kept to warm-start the next one.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PointImpulse {
    /// Normal impulse, N·s (never negative).
    pub normal: f32,
    /// Largest normal impulse during the last step's substeps (decides whether restitution
    /// applies, and shown in the editor).
    pub max_normal: f32,
}

/// A contact pair between two bodies whose fat AABBs overlap, or between a body and a terrain
/// chunk whose solid mask its fat AABB touches.
///
/// `repr(C)` with the fields the contact solver reads and writes first, in one run of bytes
/// ([`Contact::SOLVER_BYTES`]), and aligned to cache lines: the solver visits the contacts out
/// of order and asks the cache for each one's run ahead of time, three whole cache lines
/// instead of a whole contact (six).
#[derive(Clone, Debug, Default, PartialEq)]
#[repr(C, align(64))]
pub(crate) struct Contact {
    pub manifold: Manifold,
    pub impulses: [PointImpulse; MAX_MANIFOLD_POINTS],
    /// Friction impulse of the whole manifold, applied at its centre, as a world vector, N·s.
    /// A vector rather than per tangent because the tangent basis turns when the normal
    /// wobbles; a vector re-projects cleanly.
    pub friction_impulse: Vec3,
    /// Friction impulse about the normal (twist), N·m·s.
    pub twist_impulse: f32,
    pub friction: f32,
    pub restitution: f32,
    /// Body slot indices, in the order of the shape keys (`shape_a < shape_b`), or `body_b` =
    /// [`TERRAIN`]. The manifold normal points from A to B.
    pub body_a: u32,
    pub body_b: u32,
    pub cache: CollideCache,
    /// The shape keys of the pair (`crate::child_store`): A's and B's shape, or B's =
    /// [`TERRAIN`]. For bodies of one shape these are the body slots. In what was padding
    /// before the anchors, so the contact is no larger.
    pub shape_a: u32,
    pub shape_b: u32,
    /// The manifold's points fixed to the bodies, to carry it along while the pair barely moves.
    pub anchors: ManifoldAnchors,
    /// Links in each body's contact list: `edges[0]` for body A, `edges[1]` for body B.
    pub edges: [EdgeLink; 2],
    /// The island this contact is an edge of and its place in the island's contact list
    /// (touching contacts between dynamic bodies only; [`IslandLink::NONE`] otherwise).
    pub island: IslandLink,
    pub alive: bool,
    /// True while the manifold has points.
    pub touching: bool,
    /// Began touching during the last step.
    pub began: bool,
    /// Stopped touching during the last step (still overlapping fat AABBs).
    pub ended: bool,
    /// The fat AABBs no longer overlap: destroy the pair once the parallel update is done.
    pub separated: bool,
    /// Created this step with only its bookkeeping written ([`ContactStore::create_pending`]):
    /// the rest is what the slot held (a freed contact's) until the narrowphase makes it ready
    /// ([`Contact::make_ready`]), and nothing reads it before.
    pub pending: bool,
}

// The solver prefetches three cache lines per contact: its fields must start a line and fit
// in three. And the contact is six lines, as the docs count it.
const _: () = assert!(
    std::mem::align_of::<Contact>() == 64
        && std::mem::size_of::<Contact>() == 384
        && Contact::SOLVER_BYTES.start == 0
        && Contact::SOLVER_BYTES.end <= 3 * 64
        // The shape keys sit in what was padding: the anchors start where they did.
        && std::mem::offset_of!(Contact, shape_b) + 4 <= std::mem::offset_of!(Contact, anchors)
        && std::mem::offset_of!(Contact, anchors) == 192
);

// The carry reads the anchors' normal as one 16-byte load, which must not cross a cache line
// (see `ManifoldAnchors`: crossing one, it stalled the carry in about half of all processes).
const _: () = assert!(
    (std::mem::offset_of!(Contact, anchors) + ManifoldAnchors::NORMAL_OFFSET) % 64 + 16 <= 64,
    "the anchors' normal crosses a cache line"
);

impl Contact {
    /// The bytes [`ContactStore::create_pending`] writes, and `graph::attach` after it: the
    /// pair and its material; its list links, island and flags. Two of the six cache lines.
    const BOOKKEEPING: [std::ops::Range<usize>; 2] = [
        std::mem::offset_of!(Contact, friction)..std::mem::offset_of!(Contact, shape_b) + 4,
        std::mem::offset_of!(Contact, edges)..std::mem::size_of::<Contact>(),
    ];

    /// The terrain chunk of a terrain contact; none for a body pair. `link` looks up the
    /// contact's entry in [`ContactStore::links`], and is called only for a terrain contact (a
    /// body pair's entry is a freed slot's).
    #[inline]
    pub fn terrain_chunk<'a>(&self, link: impl FnOnce() -> Option<&'a TerrainLink>) -> Option<ChunkCoord> {
        if self.body_b != TERRAIN {
            return None;
        }
        link().map(|l| l.chunk)
    }

    /// A contact [`ContactStore::create_pending`] made gets the rest of what
    /// [`ContactStore::create`] writes: its pair, material, list links, island and `alive`
    /// kept, everything else as new. Nothing for any other contact.
    #[inline]
    pub fn make_ready(&mut self) {
        if self.pending {
            *self = Contact {
                friction: self.friction,
                restitution: self.restitution,
                body_a: self.body_a,
                body_b: self.body_b,
                shape_a: self.shape_a,
                shape_b: self.shape_b,
                edges: self.edges,
                island: self.island,
                alive: self.alive,
                ..Default::default()
            };
        }
    }

    /// The bytes of the fields the contact solver reads to fill its batches and writes to
    /// store the impulses: from the manifold to the bodies (the fill takes the bodies from
    /// its own list; they fit in the same lines).
    pub const SOLVER_BYTES: std::ops::Range<usize> =
        std::mem::offset_of!(Contact, manifold)..std::mem::offset_of!(Contact, body_b) + 4;
}

/// The contact array, its free list and the pair lookups (body pairs; body–chunk pairs).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactStore {
    pub contacts: Vec<Contact>,
    free: Vec<u32>,
    lookup: PairMap,
    terrain_lookup: FastMap<(u32, ChunkCoord), u32>,
    /// Per contact id, the chunk of a terrain contact. Kept beside the contacts rather than in
    /// them: the body pairs' hot loops then read contacts no larger than before terrain came.
    pub links: Vec<Option<TerrainLink>>,
    /// Per slot, bumped each time the slot is reused (kept beside the contacts, which the
    /// narrowphase streams through, rather than inside them).
    generations: Vec<u32>,
    /// Per slot, the contact's two shape keys as in [`Contact::shape_a`] and
    /// [`Contact::shape_b`] (a slot's last contact's when it is free): the narrowphase's quick
    /// checks read these, eight bytes a contact, instead of a cache line of each 384-byte
    /// contact. For bodies of one shape they are the bodies' slots.
    pub shapes: Vec<(u32, u32)>,
    /// Per slot, the contact's two bodies as in [`Contact::body_a`] and [`Contact::body_b`]
    /// (a slot's last contact's when it is free), for the passes over the touching contacts.
    pub bodies: Vec<(u32, u32)>,
}

impl ContactStore {
    /// Is there a contact between these shape keys (`a < b`)?
    pub fn contains(&self, a: u32, b: u32) -> bool {
        self.lookup.get(a, b).is_some()
    }

    /// The slot of the contact between shape keys `a < b`, if there is one.
    pub fn find(&self, a: u32, b: u32) -> Option<u32> {
        self.lookup.get(a, b)
    }

    /// The slot of the contact between shape key `shape` and terrain chunk `chunk`, if any.
    pub fn find_terrain(&self, shape: u32, chunk: ChunkCoord) -> Option<u32> {
        self.terrain_lookup.get(&(shape, chunk)).copied()
    }

    /// Asks the cache for what [`ContactStore::contains`] of `(a, b)` reads first.
    #[inline]
    pub fn prefetch_pair(&self, a: u32, b: u32) {
        self.lookup.prefetch(a, b);
    }

    /// Is there a contact between shape key `shape` and terrain chunk `chunk`?
    pub fn contains_terrain(&self, shape: u32, chunk: ChunkCoord) -> bool {
        self.terrain_lookup.contains_key(&(shape, chunk))
    }

    /// Asks the cache for the slot the `ahead`-th next [`ContactStore::create_pending`]
    /// (counting from 0) will fill: the lines it writes ([`Contact::BOOKKEEPING`]).
    #[inline]
    pub fn prefetch_slot(&self, ahead: usize) {
        let slot = match self.free.len().checked_sub(ahead + 1) {
            Some(k) => self.free[k] as usize,
            None => self.contacts.len() + ahead - self.free.len(),
        };
        if let Some(contact) = self.contacts.get(slot) {
            for bytes in Contact::BOOKKEEPING {
                prefetch_at(std::ptr::from_ref(contact) as usize, bytes);
            }
        }
    }

    /// Asks the cache for the links of contact `id` in its bodies' lists (which a new contact
    /// at the head of one of those lists writes).
    #[inline]
    pub fn prefetch_edges(&self, id: u32) {
        if let Some(contact) = self.contacts.get(id as usize) {
            let edges = std::mem::offset_of!(Contact, edges);
            prefetch_at(
                std::ptr::from_ref(contact) as usize,
                edges..edges + std::mem::size_of::<[EdgeLink; 2]>(),
            );
        }
    }

    /// Asks the cache for what destroying contact `id` reads of it (its bodies, island and list
    /// links) and, for a body pair, its slot in the pair lookup (which destroying it clears).
    #[inline]
    pub fn prefetch_for_end(&self, id: u32) {
        let Some(contact) = self.contacts.get(id as usize) else { return };
        let at = std::ptr::from_ref(contact) as usize;
        let bodies = std::mem::offset_of!(Contact, body_a);
        prefetch_at(at, bodies..bodies + 8);
        let tail = std::mem::offset_of!(Contact, edges);
        prefetch_at(at, tail..std::mem::offset_of!(Contact, separated) + 1);
        let (a, b) = self.shapes[id as usize];
        if b != TERRAIN {
            self.lookup.prefetch(a, b);
        }
    }

    /// Asks the cache for the links of contact `id`'s neighbours in its bodies' lists, which
    /// destroying it rewrites.
    #[inline]
    pub fn prefetch_neighbours(&self, id: u32) {
        let Some(contact) = self.contacts.get(id as usize) else { return };
        for link in contact.edges {
            for key in [link.prev, link.next] {
                if key != crate::body::NONE {
                    self.prefetch_edges(key >> 1);
                }
            }
        }
    }

    /// Creates the contact between shape keys `a < b` of the bodies in slots `bodies`.
    pub fn create(&mut self, (a, b): (u32, u32), bodies: (u32, u32), friction: f32, restitution: f32) -> u32 {
        debug_assert!(a < b && b != TERRAIN);
        let (body_a, body_b) = bodies;
        let contact =
            Contact { body_a, body_b, shape_a: a, shape_b: b, friction, restitution, ..Default::default() };
        let id = self.insert(contact);
        self.lookup.insert(a, b, id);
        id
    }

    /// [`ContactStore::create`] for a pair the narrowphase updates this step (an awake one),
    /// writing into a reused slot only its bookkeeping ([`Contact::BOOKKEEPING`], two of six
    /// cache lines): the narrowphase makes the rest ready on the world's threads
    /// ([`Contact::make_ready`]), where creating a contact is one thread's work. The slot's
    /// status byte must then not say quiet, or its update is skipped.
    pub fn create_pending(
        &mut self,
        (a, b): (u32, u32),
        bodies: (u32, u32),
        friction: f32,
        restitution: f32,
    ) -> u32 {
        debug_assert!(a < b && b != TERRAIN);
        let Some(id) = self.free.pop() else {
            return self.create((a, b), bodies, friction, restitution);
        };
        let c = &mut self.contacts[id as usize];
        (c.friction, c.restitution, c.body_a, c.body_b) = (friction, restitution, bodies.0, bodies.1);
        (c.shape_a, c.shape_b) = (a, b);
        (c.island, c.alive, c.pending) = (IslandLink::NONE, true, true);
        // In the same line: a new contact's flags, whoever reads them first.
        (c.touching, c.began, c.ended, c.separated) = (false, false, false, false);
        self.generations[id as usize] = self.generations[id as usize].wrapping_add(1);
        self.shapes[id as usize] = (a, b);
        self.bodies[id as usize] = bodies;
        self.lookup.insert(a, b, id);
        id
    }

    /// Creates the contact between shape key `shape` of the body in slot `body` and a terrain
    /// chunk.
    pub fn create_terrain(
        &mut self,
        (shape, body): (u32, u32),
        link: TerrainLink,
        friction: f32,
        restitution: f32,
    ) -> u32 {
        let key = (shape, link.chunk);
        let id = self.insert(Contact {
            body_a: body,
            body_b: TERRAIN,
            shape_a: shape,
            shape_b: TERRAIN,
            friction,
            restitution,
            ..Default::default()
        });
        self.links[id as usize] = Some(link);
        self.terrain_lookup.insert(key, id);
        id
    }

    fn insert(&mut self, contact: Contact) -> u32 {
        let contact = Contact { alive: true, island: IslandLink::NONE, ..contact };
        let (shapes, bodies) = ((contact.shape_a, contact.shape_b), (contact.body_a, contact.body_b));
        match self.free.pop() {
            Some(id) => {
                self.contacts[id as usize] = contact;
                self.generations[id as usize] = self.generations[id as usize].wrapping_add(1);
                self.shapes[id as usize] = shapes;
                self.bodies[id as usize] = bodies;
                id
            }
            None => {
                self.contacts.push(contact);
                self.links.push(None);
                self.generations.push(0);
                self.shapes.push(shapes);
                self.bodies.push(bodies);
                self.contacts.len() as u32 - 1
            }
        }
    }

    /// Destroys contact `id`.
    pub fn destroy(&mut self, id: u32) {
        let c = &mut self.contacts[id as usize];
        c.alive = false;
        // Body pairs never read the links (a cache miss per destroyed pair otherwise).
        if c.body_b == TERRAIN {
            if let Some(link) = self.links[id as usize].take() {
                self.terrain_lookup.remove(&(c.shape_a, link.chunk));
            }
        } else {
            self.lookup.remove(c.shape_a, c.shape_b);
        }
        self.free.push(id);
    }

    /// The chunk of contact `id` when it is a terrain contact.
    pub fn chunk(&self, id: usize) -> Option<ChunkCoord> {
        self.contacts[id].terrain_chunk(|| self.links[id].as_ref())
    }

    /// The id of contact slot `index` as it is now.
    pub fn id_at(&self, index: u32) -> ContactId {
        ContactId::new(index, self.generations[index as usize])
    }

    /// The slot of a live contact; a stale id is refused.
    pub fn slot(&self, id: ContactId) -> Result<usize, crate::AtollError> {
        let index = id.index() as usize;
        match self.contacts.get(index) {
            Some(c) if c.alive && self.generations[index] == id.generation() => Ok(index),
            _ => Err(crate::AtollError::StaleContactId),
        }
    }

    /// Number of live contacts.
    pub fn live_count(&self) -> usize {
        self.contacts.len() - self.free.len()
    }
}

/// Replaces a touching contact's manifold by its anchors carried to the bodies' current poses:
/// same points, same features, so the impulses stay where they are. Returns false (and changes
/// nothing) when the pair moved too far for that; then it needs a full collision.
pub(crate) fn carry_manifold(
    contact: &mut Contact,
    xa: &crate::math::Transform,
    xb: &crate::math::Transform,
    speculative: f32,
) -> bool {
    match contact.anchors.carry(&contact.manifold, xa, xb, speculative) {
        Some(manifold) => {
            contact.manifold = manifold;
            contact.began = false;
            contact.ended = false;
            true
        }
        None => false,
    }
}

/// Takes a freshly collided manifold for a contact whose bodies stand at `xa` and `xb`:
/// replaces the old one, carrying impulses over from points with the same feature id, and
/// records the anchors that let later steps carry it. Shared by body pairs and terrain pairs.
#[inline]
pub(crate) fn update_manifold(
    contact: &mut Contact,
    manifold: Manifold,
    xa: &crate::math::Transform,
    xb: &crate::math::Transform,
) {
    if manifold.count == 0 && !contact.touching {
        // Apart and still apart (most pairs of a busy pile): the manifold, impulses and
        // anchors are already empty, so nothing of the contact's hundreds of bytes is written
        // again.
        contact.began = false;
        contact.ended = false;
        return;
    }
    // Only a touching manifold is ever carried, so only it is captured.
    contact.anchors = if manifold.count > 0 {
        ManifoldAnchors::capture(&manifold, xa, xb)
    } else {
        ManifoldAnchors::default()
    };
    let old = contact.manifold;
    let old_impulses = contact.impulses;
    contact.impulses = Default::default();
    let mut kept_any = false;
    for (i, p) in manifold.points().iter().enumerate() {
        if let Some(j) = old.points().iter().position(|q| q.feature == p.feature) {
            contact.impulses[i] = old_impulses[j];
            kept_any = true;
        }
    }
    // The manifold's friction lives on while any of its points does.
    if !kept_any {
        contact.friction_impulse = Vec3::ZERO;
        contact.twist_impulse = 0.0;
    }
    let was_touching = contact.touching;
    contact.manifold = manifold;
    contact.touching = manifold.count > 0;
    contact.began = contact.touching && !was_touching;
    contact.ended = !contact.touching && was_touching;
}

/// The contact store as a compact state holds it ([`crate::world::CompactState`]): the slots'
/// generations and the free list, so contacts made after a restore take the same ids, and each
/// live contact by slot: apart (most of a pile's pairs: fat boxes overlap, no points) as its few
/// fields, touching whole. Both lists are flat arrays ascending by slot, so a capture into a
/// state kept from before is a copy without an allocation. The pair lookups are rebuilt on
/// restore: they are only ever looked up.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactsState {
    generations: Vec<u32>,
    free: Vec<u32>,
    links: Vec<(u32, TerrainLink)>,
    /// Live contacts without points, ascending by slot.
    apart: Vec<(u32, ApartContact)>,
    /// Live contacts kept whole (those with points, and the few without that still carry
    /// impulses, anchors or an island), ascending by slot: their slots and, apart from them,
    /// the contacts (a `(u32, Contact)` pair would pad each to 448 bytes, the contact being
    /// aligned to cache lines).
    touching_slots: Vec<u32>,
    touching: Vec<Contact>,
}

/// What [`ContactsState::delta_from`] keeps: the whole small parts, and the slots whose entry
/// changed (`None`: no live contact there any more).
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactsDelta {
    generations: Vec<u32>,
    free: Vec<u32>,
    links: Vec<(u32, TerrainLink)>,
    changed: Vec<(u32, Option<ContactEntry>)>,
}

/// One live contact of a compact state, as a change holds it.
#[derive(Clone, Debug, PartialEq)]
enum ContactEntry {
    Apart(ApartContact),
    Whole(Box<Contact>),
}

impl ContactEntry {
    fn bytes(&self) -> usize {
        std::mem::size_of::<(u32, ContactEntry)>()
            + match self {
                ContactEntry::Apart(_) => 0,
                ContactEntry::Whole(_) => std::mem::size_of::<Contact>(),
            }
    }
}

/// One live contact of a compact state, where it lies.
#[derive(Clone, Copy, Debug, PartialEq)]
enum EntryRef<'a> {
    Apart(&'a ApartContact),
    Whole(&'a Contact),
}

impl EntryRef<'_> {
    /// The same entry bit for bit (`==` takes −0.0 for +0.0, which a change must not).
    fn same_bits(self, other: EntryRef<'_>) -> bool {
        fn bits(floats: impl Iterator<Item = f32>) -> impl Iterator<Item = u32> {
            floats.map(f32::to_bits)
        }
        self == other
            && match (self, other) {
                (EntryRef::Apart(a), EntryRef::Apart(b)) => bits(a.floats()).eq(bits(b.floats())),
                (EntryRef::Whole(a), EntryRef::Whole(b)) => {
                    bits(contact_floats(a)).eq(bits(contact_floats(b)))
                }
                _ => false,
            }
    }

    fn to_owned(self) -> ContactEntry {
        match self {
            EntryRef::Apart(a) => ContactEntry::Apart(*a),
            EntryRef::Whole(c) => ContactEntry::Whole(Box::new(c.clone())),
        }
    }
}

/// A live contact without points, and without anything a contact with points carries
/// (impulses, anchors, an island): what is left of its 384 bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
struct ApartContact {
    body_a: u32,
    body_b: u32,
    shape_a: u32,
    shape_b: u32,
    friction: f32,
    restitution: f32,
    normal: Vec3,
    cache: CollideCache,
    began: bool,
    ended: bool,
    separated: bool,
    edges: [EdgeLink; 2],
}

/// Every float a contact holds, for comparisons bit for bit.
fn contact_floats(c: &Contact) -> impl Iterator<Item = f32> + '_ {
    let points =
        c.manifold.points.iter().flat_map(|p| p.position.to_array().into_iter().chain([p.separation]));
    let impulses = c.impulses.iter().flat_map(|i| [i.normal, i.max_normal]);
    [c.friction, c.restitution, c.twist_impulse]
        .into_iter()
        .chain(c.manifold.normal.to_array())
        .chain(points)
        .chain(impulses)
        .chain(c.friction_impulse.to_array())
        .chain(c.anchors.floats())
}

impl ApartContact {
    /// Every float it holds, for comparisons bit for bit.
    fn floats(&self) -> impl Iterator<Item = f32> {
        [self.friction, self.restitution].into_iter().chain(self.normal.to_array())
    }

    /// `c` as an apart contact, when rebuilding it from the result gives `c` back exactly.
    /// Compared bit for bit (a −0.0 impulse would come back as +0.0), cheapest tests first: a
    /// capture asks this of every live contact every step at the live end.
    fn of(c: &Contact) -> Option<ApartContact> {
        let zero = |v: Vec3| v.to_array().iter().all(|x| x.to_bits() == 0);
        let empty = !c.touching
            && c.manifold.count == 0
            && c.island == IslandLink::NONE
            && c.twist_impulse.to_bits() == 0
            && zero(c.friction_impulse)
            && (c.impulses.iter()).all(|i| i.normal.to_bits() == 0 && i.max_normal.to_bits() == 0)
            && (c.manifold.points.iter())
                .all(|p| zero(p.position) && p.separation.to_bits() == 0 && p.feature == 0)
            && c.anchors.is_unset();
        empty.then_some(ApartContact {
            body_a: c.body_a,
            body_b: c.body_b,
            shape_a: c.shape_a,
            shape_b: c.shape_b,
            friction: c.friction,
            restitution: c.restitution,
            normal: c.manifold.normal,
            cache: c.cache,
            began: c.began,
            ended: c.ended,
            separated: c.separated,
            edges: c.edges,
        })
    }

    fn contact(&self) -> Contact {
        Contact {
            alive: true,
            body_a: self.body_a,
            body_b: self.body_b,
            shape_a: self.shape_a,
            shape_b: self.shape_b,
            friction: self.friction,
            restitution: self.restitution,
            manifold: Manifold { normal: self.normal, ..Manifold::default() },
            cache: self.cache,
            began: self.began,
            ended: self.ended,
            separated: self.separated,
            edges: self.edges,
            island: IslandLink::NONE,
            ..Contact::default()
        }
    }
}

impl ContactsState {
    /// Bytes held (the terrain links' chunk data is shared, not counted).
    pub fn bytes(&self) -> usize {
        self.generations.len() * 4
            + self.free.len() * 4
            + self.links.len() * std::mem::size_of::<(u32, TerrainLink)>()
            + self.apart.len() * std::mem::size_of::<(u32, ApartContact)>()
            + self.touching_slots.len() * 4
            + self.touching.len() * std::mem::size_of::<Contact>()
    }

    /// The live contacts, ascending by slot.
    fn entries(&self) -> impl Iterator<Item = (u32, EntryRef<'_>)> + '_ {
        let mut apart = self.apart.iter().map(|(slot, a)| (*slot, EntryRef::Apart(a))).peekable();
        let mut touching = self
            .touching_slots
            .iter()
            .zip(&self.touching)
            .map(|(slot, c)| (*slot, EntryRef::Whole(c)))
            .peekable();
        std::iter::from_fn(move || match (apart.peek(), touching.peek()) {
            (Some((a, _)), Some((t, _))) if a < t => apart.next(),
            (Some(_), Some(_)) | (None, _) => touching.next(),
            (Some(_), None) => apart.next(),
        })
    }

    /// Appends a live contact (slots must come in ascending order within each list).
    fn push(&mut self, slot: u32, entry: EntryRef<'_>) {
        match entry {
            EntryRef::Apart(a) => self.apart.push((slot, *a)),
            EntryRef::Whole(c) => {
                self.touching_slots.push(slot);
                self.touching.push(c.clone());
            }
        }
    }

    /// What changed from `anchor` to this state.
    pub fn delta_from(&self, anchor: &ContactsState) -> ContactsDelta {
        let mut changed = Vec::new();
        let (mut old, mut new) = (anchor.entries().peekable(), self.entries().peekable());
        loop {
            match (old.peek().copied(), new.peek().copied()) {
                (None, None) => break,
                (Some((slot, _)), None) => {
                    changed.push((slot, None));
                    old.next();
                }
                (None, Some((slot, entry))) => {
                    changed.push((slot, Some(entry.to_owned())));
                    new.next();
                }
                (Some((a, old_entry)), Some((b, new_entry))) => {
                    if a < b {
                        changed.push((a, None));
                        old.next();
                    } else if b < a {
                        changed.push((b, Some(new_entry.to_owned())));
                        new.next();
                    } else {
                        if !old_entry.same_bits(new_entry) {
                            changed.push((b, Some(new_entry.to_owned())));
                        }
                        old.next();
                        new.next();
                    }
                }
            }
        }
        ContactsDelta {
            generations: self.generations.clone(),
            free: self.free.clone(),
            links: self.links.clone(),
            changed,
        }
    }
}

impl ContactsDelta {
    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.generations.len() * 4
            + self.free.len() * 4
            + self.links.len() * std::mem::size_of::<(u32, TerrainLink)>()
            + self.changed.iter().map(|(_, e)| 8 + e.as_ref().map_or(0, ContactEntry::bytes)).sum::<usize>()
    }

    /// The state this delta was taken of, from the state it was taken against.
    pub fn apply(&self, anchor: &ContactsState) -> ContactsState {
        let mut state = ContactsState {
            generations: self.generations.clone(),
            free: self.free.clone(),
            links: self.links.clone(),
            apart: Vec::with_capacity(anchor.apart.len()),
            touching_slots: Vec::with_capacity(anchor.touching.len()),
            touching: Vec::with_capacity(anchor.touching.len()),
        };
        let owned = |state: &mut ContactsState, slot: u32, entry: &ContactEntry| match entry {
            ContactEntry::Apart(a) => state.push(slot, EntryRef::Apart(a)),
            ContactEntry::Whole(c) => state.push(slot, EntryRef::Whole(c)),
        };
        let mut changes = self.changed.iter().peekable();
        for (slot, entry) in anchor.entries() {
            while let Some((c, change)) = changes.next_if(|(c, _)| *c < slot) {
                if let Some(e) = change {
                    owned(&mut state, *c, e);
                }
            }
            match changes.next_if(|(c, _)| *c == slot) {
                Some((_, Some(e))) => owned(&mut state, slot, e),
                Some((_, None)) => {}
                None => state.push(slot, entry),
            }
        }
        for (c, change) in changes {
            if let Some(e) = change {
                owned(&mut state, *c, e);
            }
        }
        state
    }
}

impl ContactStore {
    /// The store's state, compactly (see [`ContactsState`]), written over `state` (whose
    /// arrays are reused: a capture into a state kept from before allocates nothing).
    pub fn capture_into(&self, state: &mut ContactsState) {
        state.generations.clone_from(&self.generations);
        state.free.clone_from(&self.free);
        state.links.clear();
        state.apart.clear();
        state.touching_slots.clear();
        state.touching.clear();
        // Reserved up front: a fresh state would otherwise grow (and copy) its arrays.
        let touching = self.contacts.iter().filter(|c| c.alive && c.touching).count();
        let alive = self.contacts.len() - self.free.len();
        state.touching_slots.reserve(touching);
        state.touching.reserve(touching);
        state.apart.reserve(alive.saturating_sub(touching));
        for (id, c) in self.contacts.iter().enumerate().filter(|(_, c)| c.alive) {
            let id = id as u32;
            match ApartContact::of(c) {
                Some(apart) => state.apart.push((id, apart)),
                None => {
                    state.touching_slots.push(id);
                    state.touching.push(c.clone());
                }
            }
            if let Some(link) = &self.links[id as usize] {
                state.links.push((id, link.clone()));
            }
        }
    }

    /// Puts the store back as `state` captured it.
    pub fn restore(&mut self, state: &ContactsState) {
        let slots = state.generations.len();
        self.contacts.clear();
        self.contacts.resize(slots, Contact::default());
        self.links.clear();
        self.links.resize(slots, None);
        self.generations.clone_from(&state.generations);
        self.free.clone_from(&state.free);
        for (id, apart) in &state.apart {
            self.contacts[*id as usize] = apart.contact();
        }
        for (id, contact) in state.touching_slots.iter().zip(&state.touching) {
            self.contacts[*id as usize] = contact.clone();
        }
        for (id, link) in &state.links {
            self.links[*id as usize] = Some(link.clone());
        }
        self.shapes.clear();
        self.shapes.extend(self.contacts.iter().map(|c| (c.shape_a, c.shape_b)));
        self.bodies.clear();
        self.bodies.extend(self.contacts.iter().map(|c| (c.body_a, c.body_b)));
        self.lookup.clear();
        self.terrain_lookup.clear();
        for (id, c) in self.contacts.iter().enumerate().filter(|(_, c)| c.alive) {
            match &self.links[id] {
                Some(link) if c.body_b == TERRAIN => {
                    self.terrain_lookup.insert((c.shape_a, link.chunk), id as u32);
                }
                _ => {
                    self.lookup.insert(c.shape_a, c.shape_b, id as u32);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::narrowphase::ManifoldPoint;

    /// A store whose only slot is free again after a contact that touched, with a manifold,
    /// impulses and flags a new contact must not inherit.
    fn store_with_a_used_free_slot() -> (ContactStore, u32) {
        let mut store = ContactStore::default();
        let old = store.create((1, 2), (1, 2), 0.5, 0.1);
        let c = &mut store.contacts[old as usize];
        c.manifold.normal = Vec3::Y;
        c.manifold.push(ManifoldPoint { position: Vec3::X, separation: -0.01, feature: 7 });
        c.impulses[0] = PointImpulse { normal: 3.0, max_normal: 4.0 };
        c.friction_impulse = Vec3::Z;
        c.twist_impulse = 0.25;
        (c.touching, c.began, c.ended, c.separated) = (true, true, true, true);
        store.destroy(old);
        (store, old)
    }

    #[test]
    fn a_pending_contact_made_ready_is_the_contact_create_makes() {
        let (mut store, old) = store_with_a_used_free_slot();
        let id = store.create_pending((3, 4), (3, 4), 0.7, 0.2);
        assert_eq!(id, old, "the free slot is reused");
        assert!(store.contacts[id as usize].pending);
        assert_eq!(store.bodies[id as usize], (3, 4));
        assert_eq!(store.lookup.get(3, 4), Some(id));
        assert_eq!(store.lookup.get(1, 2), None);
        store.contacts[id as usize].make_ready();
        let (mut created, _) = store_with_a_used_free_slot();
        let expected = created.create((3, 4), (3, 4), 0.7, 0.2);
        assert_eq!(store.contacts[id as usize], created.contacts[expected as usize]);
        assert_eq!(store.generations, created.generations);
        // Ready is ready: a second call changes nothing.
        let ready = store.contacts[id as usize].clone();
        store.contacts[id as usize].make_ready();
        assert_eq!(store.contacts[id as usize], ready);
    }

    #[test]
    fn a_pending_contact_in_a_new_slot_is_created_whole() {
        let mut store = ContactStore::default();
        let id = store.create_pending((3, 4), (3, 4), 0.7, 0.2);
        let c = &store.contacts[id as usize];
        assert!(!c.pending && c.alive);
        assert_eq!((c.body_a, c.body_b, c.friction, c.restitution), (3, 4, 0.7, 0.2));
    }
}
