//! [`Stage::Narrowphase`]: every awake contact's manifold updated, in blocks the world's threads
//! share; then, in contact order, the flagged contacts' events and island bits kept and the
//! separated pairs destroyed.

use super::contact_status::{BEGAN, ENDED, QUIET, SEPARATED, contact_status, status_bits};
use super::flagged::FlaggedBlock;
use super::shape_reach::{ShapeReach, ShapeReaches, reach_stays_quiet_four, records_out_of_reach};
use crate::body::Body;
use crate::child_store::ChildStore;
use crate::math::{Aabb, Transform, Vec3};
use crate::narrowphase::{
    Contact, Manifold, SPHERE_REACH_MARGIN, TERRAIN, TerrainLink, boxes_out_of_reach,
    boxes_out_of_reach_by_axes, carry_manifold, collide, collide_terrain, update_manifold,
};
use crate::parallel::prefetch::prefetch_at;
use crate::parallel::{Claims, SharedSlice, run_team};
#[cfg(doc)]
use crate::profile::Stage;
use crate::shape::Shape;
use crate::shape_key::is_child_key;
use crate::team_policy::{CONTACT_BLOCK, MIN_CONTACTS_FOR_TEAM, REBUILD_AS_CONTACTS, helpers_for};
use crate::terrain::Terrain;
use crate::world::{StepSettings, World};
use glam::Mat3A;
use std::sync::Mutex;

/// How many full contact updates ahead the narrowphase requests a contact's cache lines: one
/// update takes longer than a load from memory, so two keep each contact's lines arriving
/// before it is read.
const PREFETCH_AHEAD: usize = 2;

/// Contacts ahead for whose pair the quick checks ask the cache for the shapes' records.
const REACH_AHEAD: usize = 8;

/// Separated contacts ahead for which the narrowphase's destroying pass, in contact order, asks
/// the cache for the contact and its pair's lookup slot (twice this far) and its neighbours in
/// its bodies' lists (this far).
const END_AHEAD: usize = 4;

// The full update and the quick check send terrain pairs and pairs with a child out of the
// body pairs' path by one test of the child bit, which the terrain's key must have.
const _: () = assert!(is_child_key(TERRAIN));

/// The narrowphase stage's buffers, and the status bytes it leaves for the stages after it.
#[derive(Clone, Debug, Default)]
pub(crate) struct NarrowphaseScratch {
    /// Collide every touching pair afresh instead of carrying its manifold while it barely
    /// moved (`World::set_manifold_carrying`, for tests that hold the carry to the collision).
    pub(crate) collide_every_pair: bool,
    /// Per contact id, its flags after this step's narrowphase (valid for awake contacts).
    pub(crate) contact_status: Vec<u8>,
    /// A claim word per block of contacts.
    claims: Claims,
    /// The contacts the blocks flagged, a list per block of contacts.
    flagged_blocks: Vec<FlaggedBlock>,
    /// The separated contacts of every block, in contact order, for destroying.
    separated: Vec<u32>,
}

impl NarrowphaseScratch {
    /// Bytes of the arrays a step fills.
    pub(super) fn bytes(&self) -> usize {
        self.contact_status.len()
            + self.flagged_blocks.iter().map(FlaggedBlock::bytes).sum::<usize>()
            + self.separated.len() * 4
    }

    /// Records the status of contact `id`, which just joined the awake set, so the passes that
    /// read the status bytes see it as it is.
    pub(crate) fn note_woken_contact(&mut self, id: u32, c: &Contact) {
        // A pending contact's flags are not its own until the narrowphase makes it ready; no
        // island wakes between creating one and that.
        debug_assert!(!c.pending, "contact {id} woken while pending");
        let id = id as usize;
        if self.contact_status.len() <= id {
            self.contact_status.resize(id + 1, 0);
        }
        self.contact_status[id] = contact_status(c);
    }
}

impl World {
    /// [`Stage::Narrowphase`]: update the awake contacts' manifolds, in blocks the world's
    /// threads share: each contact reads the bodies and writes only itself, so the result does
    /// not depend on scheduling; each block notes its contacts that separated, began or ended
    /// touching, and their touch events ([`FlaggedBlock`]). Then, in contact order (block
    /// order), the events are kept, begin and end of touching become bits, and pairs whose fat
    /// boxes separated are destroyed.
    pub(super) fn update_contacts(&mut self) {
        let settings = self.settings;
        let (bodies, awake, terrain) = (&self.bodies.bodies, &self.awake_contacts, &self.terrain);
        let (links, pairs) = (&self.contacts.links, &self.contacts.shapes);
        let children = &self.bodies.children;
        let reaches = &self.scratch.reach;
        // Only pairs with a compound body's shape have records (a world of single shapes asks
        // the cache for none).
        let any_compound = !children.compounds().is_empty();
        let carry = !self.scratch.narrowphase.collide_every_pair;
        let update_contact = |(id, c): (usize, &mut Contact)| {
            // The terrain's key has the child bit too: one test sends both kinds out of the
            // body pairs' path.
            if is_child_key(c.shape_a | c.shape_b) {
                let pa = Part::of(bodies, children, c.shape_a);
                if c.shape_b == TERRAIN {
                    update_terrain_contact(c, links[id].as_ref(), pa, terrain, &settings, carry);
                } else {
                    // A pair with a child of a compound body: the same update, of two shapes.
                    let pb = Part::of(bodies, children, c.shape_b);
                    let records = reaches.current(c.shape_a).zip(reaches.current(c.shape_b));
                    update_parts_contact(c, pa, pb, records, &settings, carry);
                }
                return;
            }
            let (ba, bb) = (&bodies[c.body_a as usize], &bodies[c.body_b as usize]);
            c.separated = !ba.fat.overlaps(&bb.fat);
            if c.separated {
                return;
            }
            let speculative = settings.speculative_distance + settings.dt * approach_speed_bound(ba, bb);
            // A touching pair that barely moved relative to itself keeps its points.
            if carry && c.touching && carry_manifold(c, &ba.transform, &bb.transform, speculative) {
                return;
            }
            // Most pairs in a busy pile are near but apart: their bounds rule them out cheaply.
            let manifold = if within_reach(ba, bb, speculative) {
                collide(&ba.shape, &ba.transform, &bb.shape, &bb.transform, speculative, &mut c.cache)
            } else {
                Manifold::default()
            };
            update_manifold(c, manifold, &ba.transform, &bb.transform);
        };
        // Most pairs of a busy pile were apart last step and still are: their bounds tell
        // (`within_reach`), and nothing of the contact changes (what the full update below
        // would find, from the same bounds), so its 384 bytes are not read. The quick checks
        // below are of contacts whose status byte says `QUIET`: in a world with compounds by
        // `RecordChecks`, in one without by this, through the bodies.
        let stays_quiet = |id: usize| stays_quiet_without_records(pairs[id], bodies, children, &settings);
        // Each update also leaves the contact's flags in one byte of a dense array, so the
        // passes below read 1 byte a contact instead of the contact's cache lines.
        let update = |(id, (c, status)): (usize, (&mut Contact, &mut u8))| {
            c.make_ready();
            update_contact((id, c));
            *status = contact_status(c);
        };
        let count = self.contacts.contacts.len();
        // The movable tree, when a rebuild is due, is built anew beside the updates: they
        // read the bodies' boxes, never the tree.
        let rebuild = self.broadphase.rebuild_due();
        let awake_count = self.awake_contacts.count();
        let work = awake_count + if rebuild { awake_count.min(REBUILD_AS_CONTACTS) } else { 0 };
        let helpers = helpers_for(&self.threads, work, MIN_CONTACTS_FOR_TEAM);
        let status = &mut self.scratch.narrowphase.contact_status;
        status.resize(count, 0);
        let claims = &mut self.scratch.narrowphase.claims;
        claims.reset(count.div_ceil(CONTACT_BLOCK) + 1);
        let claims = claims.words();
        let (contacts, status) = (SharedSlice::new(&mut self.contacts.contacts), SharedSlice::new(status));
        let flagged_blocks = &mut self.scratch.narrowphase.flagged_blocks;
        flagged_blocks.resize_with(count.div_ceil(CONTACT_BLOCK), FlaggedBlock::default);
        let flagged_blocks = SharedSlice::new(flagged_blocks);
        let body_store = &self.bodies;
        let broadphase = Mutex::new(&mut self.broadphase);
        let record_checks = RecordChecks { pairs, reaches, bodies, children, settings: &settings };
        // Blocks of whole words of the awake set: a member visits the awake contacts of its
        // blocks only, so a sleeping pile costs nothing here.
        run_team(helpers, |team| {
            // Only the member that claims the stage's first block locks it, once.
            let rebuild = || broadphase.lock().expect("no member panicked while rebuilding").rebuild_if_due();
            team.for_blocks_beside(count, CONTACT_BLOCK, claims, rebuild, |block| {
                // SAFETY: each block of contacts and their status bytes is one member's in this
                // stage; each update reads the bodies and writes only its own contact.
                let (block_contacts, block_status) =
                    unsafe { (contacts.slice_mut(block.clone()), status.slice_mut(block.clone())) };
                // The quick checks first, on the dense arrays; then the full updates, each
                // contact's cache lines requested a few updates ahead: the contacts that need
                // one are scattered among the quiet ones, which the hardware's own prefetching
                // does not follow, and the first read of each was a fifth of a tumbling pile's
                // narrowphase.
                // (A member alone gets the whole range: it goes a block's length at a time.)
                for start in block.clone().step_by(CONTACT_BLOCK) {
                    let chunk = start..(start + CONTACT_BLOCK).min(block.end);
                    // SAFETY: a chunk is a whole block of the stage (or of a team of one's
                    // range), so its list of flagged contacts is this member's alone.
                    let flagged = unsafe {
                        &mut flagged_blocks.slice_mut(start / CONTACT_BLOCK..start / CONTACT_BLOCK + 1)[0]
                    };
                    flagged.clear();
                    // A word of contacts at a time: which are quiet comes from their status
                    // bytes as one mask, and the quick check's verdict joins the mask of those
                    // that need the full update, rather than two branches a contact whose
                    // outcomes follow no pattern (the rain's step: 5.5 % fewer mispredicted
                    // branches). A chunk starts a word: blocks and chunks are whole blocks.
                    let mut full = [0u32; CONTACT_BLOCK];
                    let mut count = 0;
                    awake.for_each_word_in(chunk, |word_start, awake_word| {
                        let local = word_start - block.start;
                        let word_status = &block_status[local..block_status.len().min(local + 64)];
                        let quiet = status_bits(word_status, |s| s == QUIET);
                        let mut need = awake_word & !quiet;
                        let mut candidates = awake_word & quiet;
                        if any_compound {
                            need |= record_checks.loud(candidates, word_start);
                        } else {
                            // A world without compounds has no records: one pair at a time.
                            while candidates != 0 {
                                let j = candidates.trailing_zeros();
                                candidates &= candidates - 1;
                                need |= u64::from(!stays_quiet(word_start + j as usize)) << j;
                            }
                        }
                        while need != 0 {
                            full[count] = local as u32 + need.trailing_zeros();
                            count += 1;
                            need &= need - 1;
                        }
                    });
                    let full = &full[..count];
                    for (k, &local) in full.iter().enumerate() {
                        if let Some(&ahead) = full.get(k + PREFETCH_AHEAD) {
                            let address = std::ptr::from_ref(&block_contacts[ahead as usize]) as usize;
                            prefetch_at(address, 0..std::mem::size_of::<Contact>());
                        }
                        let (local, id) = (local as usize, block.start + local as usize);
                        update((id, (&mut block_contacts[local], &mut block_status[local])));
                        // Most updates flag nothing: the status byte just written says so.
                        if block_status[local] & (SEPARATED | BEGAN | ENDED) != 0 {
                            flagged.note(id, &block_contacts[local], links, body_store);
                        }
                    }
                }
            });
        });
        debug_assert!(
            !self.broadphase.rebuild_due(),
            "the movable tree is rebuilt in the narrowphase's team"
        );
        debug_assert!(
            self.awake_contacts.iter().all(|id| !self.contacts.contacts[id].pending),
            "every awake contact made ready"
        );
        // The blocks' flagged contacts in block order, which is contact order: their events,
        // the islands' bits, and the separated contacts to destroy. Destroying one unlinks it
        // from both bodies' lists (its neighbours' links) and the pair lookup, cache misses in a
        // row a few hundred times a step in a tumbling pile: each pass asks the cache for what
        // the ones a few places on will read.
        let mut separated = std::mem::take(&mut self.scratch.narrowphase.separated);
        separated.clear();
        for block in &self.scratch.narrowphase.flagged_blocks {
            self.touch_events.extend_from_slice(&block.events);
            block.began.iter().for_each(|&id| self.began_bits.set(id as usize));
            block.ended.iter().for_each(|&id| self.ended_bits.set(id as usize));
            separated.extend_from_slice(&block.separated);
        }
        for (i, &id) in separated.iter().enumerate() {
            if let Some(&ahead) = separated.get(i + 2 * END_AHEAD) {
                self.contacts.prefetch_for_end(ahead);
            }
            if let Some(&near) = separated.get(i + END_AHEAD) {
                self.contacts.prefetch_neighbours(near);
            }
            self.remove_contact(id);
        }
        self.scratch.narrowphase.separated = separated;
    }
}

/// The quick check of the quiet pair of shapes `(a, b)` through its bodies (and children):
/// whether it stays quiet (see `World::update_contacts`).
#[inline(always)]
fn stays_quiet_without_records(
    (a, b): (u32, u32),
    bodies: &[Body],
    children: &ChildStore,
    settings: &StepSettings,
) -> bool {
    // A terrain pair (whose key has the child bit) or one with a child of a compound.
    if is_child_key(a | b) {
        return b != TERRAIN
            && parts_stay_quiet(Part::of(bodies, children, a), Part::of(bodies, children, b), settings);
    }
    let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
    if !ba.fat.overlaps(&bb.fat) {
        return false;
    }
    let speculative = settings.speculative_distance + settings.dt * approach_speed_bound(ba, bb);
    !within_reach(ba, bb, speculative)
}

/// The quick checks of a word's quiet pairs in a world with compounds: pairs whose shapes both
/// have this step's records (a pair with a child, or of two compounds' own shapes; both bodies
/// awake compounds, not one woken since) four at a time in lanes (`reach_stays_quiet_four`),
/// the others (with the ground, the terrain or a body of one shape) one by one. Out of line,
/// so that the loop of a world without compounds is compiled as it was before them (inlined,
/// it cost the rain 0.25 % and the 3D pyramid 0.13 % more instructions).
struct RecordChecks<'a> {
    pairs: &'a [(u32, u32)],
    reaches: &'a ShapeReaches,
    bodies: &'a [Body],
    children: &'a ChildStore,
    settings: &'a StepSettings,
}

impl RecordChecks<'_> {
    /// The bits of `candidates` (quiet pairs of the word of contacts from `word_start`) whose
    /// pair needs the full update.
    #[inline(never)]
    fn loud(&self, mut candidates: u64, word_start: usize) -> u64 {
        let (pairs, reaches) = (self.pairs, self.reaches);
        let mut loud = 0;
        // Pairs with both records wait in fours for the lanes' check.
        let spare = ShapeReach::default();
        let mut four = [(0u32, &spare, &spare); 4];
        let mut waiting = 0;
        while candidates != 0 {
            let j = candidates.trailing_zeros();
            candidates &= candidates - 1;
            // The records of the pair a few contacts on: they are scattered, and waiting for
            // them was a fifth of the quick checks' time. (A key without a record, as the
            // terrain's, asks for nothing.)
            if let Some(&(a, b)) = pairs.get(word_start + j as usize + REACH_AHEAD) {
                reaches.prefetch(a);
                reaches.prefetch(b);
            }
            let (a, b) = pairs[word_start + j as usize];
            match reaches.current(a).zip(reaches.current(b)) {
                Some((ra, rb)) => {
                    four[waiting] = (j, ra, rb);
                    waiting += 1;
                    if waiting == 4 {
                        loud |= self.loud_of_four(&four, 4, word_start);
                        waiting = 0;
                    }
                }
                None => {
                    let quiet =
                        stays_quiet_without_records((a, b), self.bodies, self.children, self.settings);
                    loud |= u64::from(!quiet) << j;
                }
            }
        }
        if waiting > 0 {
            loud |= self.loud_of_four(&four, waiting, word_start);
        }
        loud
    }

    /// The quick checks of up to four pairs with records (`(place in the word, records)`, the
    /// first `n` filled) in lanes: the bits of those that need the full update.
    #[inline(always)]
    fn loud_of_four(&self, four: &[(u32, &ShapeReach, &ShapeReach); 4], n: usize, word_start: usize) -> u64 {
        let lanes = std::array::from_fn(|k| (four[k.min(n - 1)].1, four[k.min(n - 1)].2));
        let quiet = reach_stays_quiet_four(lanes, self.settings);
        let mut loud = 0u64;
        for (k, &(j, _, _)) in four[..n].iter().enumerate() {
            let quiet = quiet >> k & 1 != 0;
            // The records are the shapes as they are: the same verdict as through them.
            let (a, b) = self.pairs[word_start + j as usize];
            debug_assert_eq!(
                quiet,
                parts_stay_quiet(
                    Part::of(self.bodies, self.children, a),
                    Part::of(self.bodies, self.children, b),
                    self.settings
                ),
                "pair ({a}, {b})'s records"
            );
            loud |= u64::from(!quiet) << j;
        }
        loud
    }
}

/// The narrowphase of a terrain contact: a shape of a body (`part`) against its chunk's
/// triangles. Carried like
/// a body pair's while the body barely moves (the terrain is the identity-posed side B). Kept
/// out of line so the body pairs' loop is compiled as it was before terrain contacts.
#[inline(never)]
fn update_terrain_contact(
    c: &mut Contact,
    link: Option<&TerrainLink>,
    part: Part<'_>,
    terrain: &Terrain,
    settings: &StepSettings,
    carry: bool,
) {
    let body = part.body;
    let speed = body.linear_velocity.length() + body.angular_velocity.length() * part.speed_radius;
    let speculative = settings.speculative_distance + settings.dt * speed;
    c.separated = false;
    if carry && c.touching && carry_manifold(c, part.transform, &Transform::IDENTITY, speculative) {
        return;
    }
    let Some(link) = link else { return };
    let manifold = collide_terrain(
        part.shape,
        part.transform,
        part.transform.transform_point(part.centroid),
        part.tight,
        &link.data,
        terrain.chunk_origin(link.chunk),
        terrain.voxel_size(),
        speculative,
    );
    update_manifold(c, manifold, part.transform, &Transform::IDENTITY);
}

/// One shape of a body as the narrowphase reads it: a body's own or a compound's child.
#[derive(Clone, Copy)]
pub(crate) struct Part<'a> {
    pub body: &'a Body,
    pub shape: &'a Shape,
    /// The shape's world pose.
    pub transform: &'a Transform,
    pub tight: &'a Aabb,
    pub fat: &'a Aabb,
    /// The shape's bounding radius about its own origin.
    pub radius: f32,
    /// The shape's bounding radius about its body's origin: how far its points may be from
    /// what the body turns about, for the bound on their speed.
    pub speed_radius: f32,
    /// The shape's centroid in the frame of [`Part::transform`] (a body of one shape: its
    /// centre of mass), turned into the world's only where a collision with the terrain needs
    /// it: every pair with a compound's child builds two parts, most of which never collide.
    pub centroid: Vec3,
}

impl<'a> Part<'a> {
    /// The shape of key `key` (`crate::shape_key`).
    #[inline]
    pub fn of(bodies: &'a [Body], children: &'a ChildStore, key: u32) -> Part<'a> {
        if is_child_key(key) {
            let child = children.by_key(key);
            let body = &bodies[child.body as usize];
            Part {
                body,
                shape: &child.shape,
                transform: &child.transform,
                tight: &child.tight,
                fat: &child.fat,
                radius: child.bounding_radius,
                speed_radius: child.body_radius,
                centroid: child.local_center,
            }
        } else {
            let body = &bodies[key as usize];
            let compound = !children.of(key).is_empty();
            Part {
                body,
                shape: &body.shape,
                transform: &body.transform,
                tight: &body.tight,
                fat: &body.fat,
                radius: body.bounding_radius,
                speed_radius: body.bounding_radius,
                centroid: if compound { children.own_center(key) } else { body.local_center },
            }
        }
    }
}

/// The narrowphase of a pair with a child of a compound body: a body pair's update (in
/// `World::update_contacts`), of the two shapes at their own poses. Out of line, so the body
/// pairs' loop is compiled as it was before compound bodies.
#[inline(never)]
fn update_parts_contact(
    c: &mut Contact,
    a: Part<'_>,
    b: Part<'_>,
    records: Option<(&ShapeReach, &ShapeReach)>,
    settings: &StepSettings,
    carry: bool,
) {
    c.separated = !a.fat.overlaps(b.fat);
    if c.separated {
        return;
    }
    let speculative = settings.speculative_distance + settings.dt * parts_approach_speed_bound(a, b);
    if carry && c.touching && carry_manifold(c, a.transform, b.transform, speculative) {
        return;
    }
    // The shapes' records, where the step wrote them, give the same bounds without turning
    // the rotations into matrices again.
    let within_reach = match records {
        Some((ra, rb)) => {
            let within = !records_out_of_reach(ra, rb, speculative);
            debug_assert_eq!(within, parts_within_reach(a, b, speculative), "the records' bounds");
            within
        }
        None => parts_within_reach(a, b, speculative),
    };
    let manifold = if within_reach {
        collide(a.shape, a.transform, b.shape, b.transform, speculative, &mut c.cache)
    } else {
        Manifold::default()
    };
    update_manifold(c, manifold, a.transform, b.transform);
}

/// The quick check of a quiet pair with a child of a compound body (see `stays_quiet` in
/// `World::update_contacts`).
#[inline(never)]
fn parts_stay_quiet(a: Part<'_>, b: Part<'_>, settings: &StepSettings) -> bool {
    if !a.fat.overlaps(b.fat) {
        return false;
    }
    let speculative = settings.speculative_distance + settings.dt * parts_approach_speed_bound(a, b);
    !parts_within_reach(a, b, speculative)
}

/// [`within_reach`] of two shapes of bodies: the tight boxes', the bounding spheres' and two
/// boxes' bounds (a pile of tables is mostly legs and tops beside each other, as a stack's
/// layer is boxes), the last both ways round: a compound's quiet pairs are many, and the
/// second way spares the full update of those apart along one of B's faces. (Bodies of one
/// shape keep the one way: the second cost the tumbler and the 3D pyramid 0.7 and 1 % more
/// instructions than it saved them.)
fn parts_within_reach(a: Part<'_>, b: Part<'_>, speculative: f32) -> bool {
    if !a.tight.grown(speculative).overlaps(b.tight) {
        return false;
    }
    let reach = a.radius + b.radius + speculative + SPHERE_REACH_MARGIN;
    if a.transform.position.distance_squared(b.transform.position) > reach * reach {
        return false;
    }
    match (a.shape, b.shape) {
        (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
            // Both ways round, from the axes, as the shapes' records give them to the quick
            // check (`reach_stays_quiet`), so the two reach one verdict.
            !boxes_out_of_reach_by_axes(
                (*ha).into(),
                &Mat3A::from_quat(a.transform.rotation),
                a.transform.position.into(),
                (*hb).into(),
                &Mat3A::from_quat(b.transform.rotation),
                b.transform.position.into(),
                speculative,
            )
        }
        _ => true,
    }
}

/// [`approach_speed_bound`] of two shapes of bodies.
fn parts_approach_speed_bound(a: Part<'_>, b: Part<'_>) -> f32 {
    (a.body.linear_velocity - b.body.linear_velocity).length()
        + a.body.angular_velocity.length() * a.speed_radius
        + b.body.angular_velocity.length() * b.speed_radius
}

/// Whether `a` and `b` may lie within `speculative` of each other, by cheap lower bounds on
/// their distance: the gap between their tight boxes, the gap between their bounding spheres
/// (about each body's origin), and for two boxes the gap between one and the box around the
/// other in its axes. A collision gives no point to a pair farther apart than `speculative`,
/// so a pair beyond any of the bounds needs none. The bounds fail on different pairs: boxes
/// are loose around a turned body and along diagonals, spheres along the axes. In a rain of
/// boxes and balls the spheres rule out a third of the pairs the tight boxes let through.
///
/// Inlined into both callers (the quick check of the quiet pairs and the full update), with
/// the two boxes' bound out of line: callgrind, `step_count <scene> 120 30`, the rain −0.65 %,
/// the tumbler −0.39 %, against one call for all of it.
#[inline(always)]
fn within_reach(a: &Body, b: &Body, speculative: f32) -> bool {
    if !a.tight.grown(speculative).overlaps(&b.tight) {
        return false;
    }
    // A hair beyond the reach, so that rounding never rules out a pair a collision would give
    // a point: a box corner lies on its bounding sphere, and the capsules' routines work in
    // world coordinates, whose rounding grows with the distance from the world's origin.
    let reach = a.bounding_radius + b.bounding_radius + speculative + SPHERE_REACH_MARGIN;
    if a.transform.position.distance_squared(b.transform.position) > reach * reach {
        return false;
    }
    // Two boxes: the gap between one and the box around the other in its axes, which rules out
    // the diagonal neighbours of a stack's layer (three of four of the 3D pyramid's collisions,
    // every step) before their contacts are read.
    match (&a.shape, &b.shape) {
        (Shape::Cuboid { half_extents: ha }, Shape::Cuboid { half_extents: hb }) => {
            !boxes_out_of_reach(*ha, &a.transform, *hb, &b.transform, speculative)
        }
        _ => true,
    }
}

/// Upper bound on how fast any point of `a` can approach any point of `b`.
fn approach_speed_bound(a: &Body, b: &Body) -> f32 {
    (a.linear_velocity - b.linear_velocity).length()
        + a.angular_velocity.length() * a.bounding_radius
        + b.angular_velocity.length() * b.bounding_radius
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyDesc;
    use crate::math::{Quat, Vec3};
    use crate::scene::builtin;
    use crate::world::step::shape_reach::reach_stays_quiet;

    /// A pair [`within_reach`] rules out gets no manifold point from a full collision: over
    /// random poses of every kind of shape against every other, near enough that their tight
    /// boxes mostly overlap, and with the speculative distances the step uses. Also that the
    /// spheres and the two boxes' closed form do rule out pairs the tight boxes let through, so
    /// the test checks both.
    #[test]
    fn a_pair_out_of_reach_has_no_manifold_point() {
        let mut state = 12345u32;
        let mut uniform = move || {
            state = state.wrapping_mul(1664525).wrapping_add(1013904223);
            (state >> 8) as f32 / (1u32 << 24) as f32
        };
        let tetra =
            [Vec3::ZERO, Vec3::new(0.6, 0.0, 0.0), Vec3::new(0.0, 0.5, 0.0), Vec3::new(0.1, 0.1, 0.7)];
        let shapes = [
            Shape::sphere(0.3).unwrap(),
            Shape::capsule(0.4, 0.15).unwrap(),
            Shape::cuboid(Vec3::new(0.5, 0.2, 0.3)).unwrap(),
            Shape::hull(&tetra).unwrap(),
        ];
        let (mut ruled_out_by_spheres, mut ruled_out_by_box_bounds, mut compared) = (0, 0, 0);
        for round in 0..8000 {
            let mut pose = || {
                let axis = Vec3::new(uniform() - 0.5, uniform() - 0.5, uniform() - 0.5).normalize_or(Vec3::Y);
                let rotation = Quat::from_axis_angle(axis, 6.3 * uniform());
                let position = Vec3::new(uniform(), uniform(), uniform()) * 1.6 - Vec3::splat(0.8);
                Transform::new(position, rotation)
            };
            // A third of the pairs far from the world's origin, where rounding is coarser.
            let far = if round % 3 == 0 { Vec3::new(250.0, -40.0, 130.0) } else { Vec3::ZERO };
            let (xa, xb) = (pose(), pose());
            let (xa, xb) = (
                Transform::new(xa.position + far, xa.rotation),
                Transform::new(xb.position + far, xb.rotation),
            );
            let (sa, sb) = (&shapes[round % 4], &shapes[(round / 4) % 4]);
            let body = |shape: &Shape, transform: Transform| {
                let desc =
                    BodyDesc::dynamic(shape.clone(), transform.position).with_rotation(transform.rotation);
                Body::from_desc(&desc, 0)
            };
            let (ba, bb) = (body(sa, xa), body(sb, xb));
            let speculative = 0.02 + 0.1 * uniform();
            if within_reach(&ba, &bb, speculative) {
                continue;
            }
            compared += 1;
            if ba.tight.grown(speculative).overlaps(&bb.tight) {
                let reach = ba.bounding_radius + bb.bounding_radius + speculative;
                if xa.position.distance(xb.position) > reach {
                    ruled_out_by_spheres += 1;
                } else {
                    ruled_out_by_box_bounds += 1;
                }
            }
            let manifold = collide(sa, &xa, sb, &xb, speculative, &mut Default::default());
            assert_eq!(manifold.count, 0, "round {round}: {sa:?} at {xa:?} and {sb:?} at {xb:?}");
        }
        assert!(ruled_out_by_spheres > 200, "the spheres ruled out {ruled_out_by_spheres} of {compared}");
        assert!(
            ruled_out_by_box_bounds > 20,
            "the box bounds ruled out {ruled_out_by_box_bounds} of {compared}"
        );
    }

    /// Every awake contact whose status byte says [`QUIET`] is apart and settled, as the
    /// narrowphase's quick path takes it to be.
    fn assert_quiet_contacts_are_apart(world: &World, when: &str) {
        for id in world.awake_contacts.iter() {
            if world.scratch.narrowphase.contact_status.get(id) == Some(&QUIET) {
                let c = &world.contacts.contacts[id];
                assert!(
                    !c.touching && !c.began && !c.ended && !c.separated && c.manifold.count == 0,
                    "{when}: contact {id} is quiet by its byte but not by its flags"
                );
                assert_eq!(world.contacts.bodies[id], (c.body_a, c.body_b), "{when}: contact {id}'s bodies");
            }
        }
    }

    /// A quiet pair that comes within reach gets its full update: two balls drifting together
    /// are a quiet pair for many steps (their fat boxes overlap, their bounds keep them out of
    /// reach), then begin touching rather than pass through each other.
    #[test]
    fn a_quiet_pair_that_comes_within_reach_begins_touching() {
        let settings = StepSettings {
            gravity: Vec3::ZERO,
            sleep_enabled: false,
            aabb_margin: 0.1,
            ..StepSettings::default()
        };
        let mut world = World::new(settings).expect("valid settings");
        let ball = Shape::sphere(0.5).expect("a ball");
        world.create_body(&BodyDesc::dynamic(ball.clone(), Vec3::ZERO)).expect("ball a");
        // 0.15 m apart: within the fat boxes' margins of 0.1 m (set above, so the test does not
        // follow the default), beyond the speculative reach.
        let mut drifting = BodyDesc::dynamic(ball, Vec3::new(1.15, 0.0, 0.0));
        drifting.linear_velocity = Vec3::new(-0.3, 0.0, 0.0);
        world.create_body(&drifting).expect("ball b");
        let (mut quiet_steps, mut touched) = (0, false);
        for _ in 0..60 {
            world.step();
            let status = world.scratch.narrowphase.contact_status.first().copied();
            quiet_steps += usize::from(status == Some(QUIET));
            touched |= world.contacts.contacts.first().is_some_and(|c| c.touching);
        }
        assert!(quiet_steps >= 10, "the pair was quiet for {quiet_steps} steps only");
        assert!(touched, "the balls never touched");
    }

    #[test]
    fn a_quiet_status_byte_always_means_an_apart_contact() {
        // A tumbler of 300 boxes: pairs begin and end touching, a compact state of the past is
        // restored, bodies are destroyed (their contacts' slots taken by new pairs with the
        // bytes of the old); after every step the quick path's premise holds, and many pairs
        // take it.
        let (mut world, ids) = builtin::tumbler(300).build_world().expect("scene builds");
        let mut past = None;
        let mut quiet_seen = 0;
        for step in 0..90 {
            world.step();
            assert_quiet_contacts_are_apart(&world, &format!("step {step}"));
            quiet_seen += world.scratch.narrowphase.contact_status.iter().filter(|&&s| s == QUIET).count();
            if step == 20 {
                past = Some(world.capture());
            }
            if step == 35 {
                world.restore_compact(past.as_ref().expect("captured")).expect("same structure");
                assert_quiet_contacts_are_apart(&world, "after the restore");
            }
            if step == 50 {
                for &id in ids.iter().rev().take(40) {
                    world.destroy_body(id).expect("a live body");
                }
            }
        }
        assert!(quiet_seen > 1000, "only {quiet_seen} quiet pairs over the run");
    }

    /// The step's quick checks of a word of contacts in a world with compounds
    /// (`RecordChecks::loud`: from the shapes' records, `ShapeReach`, four pairs at a time in
    /// lanes) reach the verdict of the check through the bodies and children
    /// (`parts_stay_quiet`) on every live pair, and of the one-pair form from the records on
    /// every pair of shapes that both have one: a
    /// pile of tables and chairs as it lands and settles, its bodies spun every few steps, so
    /// the speeds and turns the records carry matter. (The step itself checks the same of the
    /// records it wrote, in debug builds, on every pair it reads them for.)
    #[test]
    fn records_and_parts_reach_the_same_verdict() {
        let mut scene = builtin::table_pile(60);
        scene.bodies.extend(builtin::furniture_room().bodies.into_iter().filter(|b| !b.children.is_empty()));
        let (mut world, ids) = scene.build_world().expect("scene builds");
        let (mut compared, mut quiet) = (0, 0);
        for step in 0..150 {
            if step % 7 == 3 {
                for (k, &id) in ids.iter().enumerate().step_by(5) {
                    let spin = Vec3::new(k as f32 % 3.0, 1.0, -2.0) * (step as f32 * 0.01);
                    world.set_angular_velocity(id, spin).expect("a live body");
                }
            }
            world.step();
            // Records of every compound as it is after the step (the solve, finalising and the
            // continuous stage moved them since the step's own were written).
            let settings = world.settings;
            let mut reaches = world.scratch.reach.clone();
            let store = &world.bodies;
            let compounds = store.children.compounds();
            let slots = compounds.last().map_or(0, |&l| l as usize + 1);
            let stamp = reaches.begin(slots, compounds.len(), store.children.children.len());
            for (place, &slot) in compounds.iter().enumerate() {
                let body = &store.bodies[slot as usize];
                reaches.set_body(slot as usize, place, ShapeReach::of_body(body, slot, stamp));
                for &c in store.children.of(slot) {
                    let child = &store.children.children[c as usize];
                    reaches.set_child(c as usize, ShapeReach::of_child(child, c, body, stamp));
                }
            }
            // Every live pair, through the step's own quick checks (`RecordChecks::loud`) a
            // word of contacts at a time: those both of whose shapes have records (with a child,
            // or two compounds' own shapes) in lanes, in fours as they come; the others (with
            // the ground, a body of one shape that keeps no record) through the bodies, as in
            // the step.
            let shapes = &world.contacts.shapes;
            let checks = RecordChecks {
                pairs: shapes,
                reaches: &reaches,
                bodies: &store.bodies,
                children: &store.children,
                settings: &settings,
            };
            for word_start in (0..shapes.len()).step_by(64) {
                let live = (word_start..shapes.len().min(word_start + 64))
                    .filter(|&id| world.contacts.contacts[id].alive)
                    .fold(0u64, |m, id| m | 1 << (id - word_start));
                let loud = checks.loud(live, word_start);
                for j in (0..64).filter(|j| live >> j & 1 != 0) {
                    let (a, b) = shapes[word_start + j];
                    let by_records = loud >> j & 1 == 0;
                    let Some((ra, rb)) = reaches.current(a).zip(reaches.current(b)) else {
                        let by_bodies =
                            stays_quiet_without_records((a, b), &store.bodies, &store.children, &settings);
                        assert_eq!(by_records, by_bodies, "step {step}: pair ({a}, {b}) without records");
                        continue;
                    };
                    let by_parts = parts_stay_quiet(
                        Part::of(&store.bodies, &store.children, a),
                        Part::of(&store.bodies, &store.children, b),
                        &settings,
                    );
                    assert_eq!(by_records, by_parts, "step {step}: pair ({a}, {b})");
                    assert_eq!(
                        by_records,
                        reach_stays_quiet(ra, rb, &settings),
                        "step {step}: pair ({a}, {b})"
                    );
                    compared += 1;
                    quiet += usize::from(by_records);
                }
            }
        }
        assert!(compared > 100_000 && quiet > compared / 2, "{quiet} of {compared} pairs quiet");
    }
}
