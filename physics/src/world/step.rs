//! The step pipeline, stage by stage in [`Stage`] order (`docs/ARCHITECTURE.md`, "The step").
//! Every stage walks the awake sets only, so a step's cost follows the awake work, not the size
//! of the world.

use super::continuous::time_of_impact;
use super::faults::FaultMark;
use super::flagged::FlaggedBlock;
use super::islands::IslandTimers;
use super::joints::joints_blocking_collision;
use super::solver_parts::SolverParts;
use super::touching::TouchingBlock;
use super::wake::WakeCause;
use super::{StepSettings, TouchEvent, WaterContact, World, body_fat_aabb, graph, tight_aabb};
use crate::body::{Body, BodyId, BodyStore, BodyType, NONE};
use crate::broadphase::{ProxyKey, ProxyType};
use crate::math::{Aabb, Quat, Transform, Vec3};
use crate::narrowphase::{
    Contact, Manifold, TERRAIN, TerrainLink, boxes_out_of_reach, carry_manifold, collide, collide_terrain,
    update_manifold,
};
use crate::parallel::prefetch::prefetch_at;
use crate::parallel::{Claims, SharedSlice, helpers_lingering, run_team};
use crate::profile::{Counters, Stage, StageTimer};
use crate::query::Ray;
use crate::shape::Shape;
use crate::solver::{
    BodyParts, ContactSoftness, ContactSolver, DirectSolver, Feedback, GroupInputs, JointSolver,
    MIN_BATCHES_FOR_TEAM, Motion, Softness, SolverBody, SpeedCaps, SubstepSettings, TouchingContacts,
    Velocity, gyroscopic_step, solve_substeps,
};
use crate::terrain::{ChunkCoord, Terrain};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

pub(super) use crate::solver::FIXED_SLOT;

/// Contacts in a block of the narrowphase (whole words of the awake set): a few dozen
/// microseconds of work in a busy pile.
const CONTACT_BLOCK: usize = 256;

/// Awake contacts before the narrowphase runs on the world's threads: below this, waking them
/// costs about what they would save.
const MIN_CONTACTS_FOR_TEAM: usize = 512;

/// How many full contact updates ahead the narrowphase requests a contact's cache lines: one
/// update takes longer than a load from memory, so two keep each contact's lines arriving
/// before it is read.
const PREFETCH_AHEAD: usize = 2;

/// Awake bodies before the proxy update runs on the world's threads (with the helpers
/// lingering between teams, sharing them also keeps a helper awake for the narrowphase after
/// it), and bodies to sweep before the continuous stage does when its helpers have gone to
/// sleep.
const MIN_BODIES_FOR_TEAM: usize = 1024;

/// Bodies to sweep before the continuous stage runs on the world's threads while they linger
/// from a team before it (finalising's, from 1024 awake bodies, or the solve's). Each sweep is
/// a fast body's time of impact against what static lies near its path, about a microsecond
/// (the 5000-body free fall sweeps about 95 a step).
const MIN_SWEEPS_FOR_TEAM: usize = 32;

/// Bodies to sweep in each block of the continuous stage's team: about 8 µs of work, enough
/// for a block's claim to cost little beside it and few enough for both members to share
/// the free fall's hundred.
const SWEEP_BLOCK: usize = 8;

/// Awake bodies before gathering the solver's arrays and finalising run on the world's
/// threads: they do more per body than the proxy update (the rain's 2005 bodies on two threads:
/// finalising 0.028 → 0.018 ms, where the proxy update was 0.015 ms slower shared).
pub(super) const MIN_SOLVER_BODIES_FOR_TEAM: usize = 1024;

/// What a due rebuild of the movable tree counts as, in awake contacts, towards sharing the
/// narrowphase stage it runs beside: a rebuild takes about as long as updating this many
/// (a few hundred microseconds for the free fall's 5000 leaves). It counts only as far as
/// there are contacts to update beside it: alone, one member would do it while the other
/// waited (the chain bridge, with no contacts, rebuilt on a team of two in most steps).
const REBUILD_AS_CONTACTS: usize = MIN_CONTACTS_FOR_TEAM;

/// New pairs ahead for which contact creation asks the cache for the pair lookup, the slot and
/// the bodies' list heads (and twice as far ahead, for the bodies).
const CREATE_AHEAD: usize = 4;

/// Separated contacts ahead for which the narrowphase's destroying pass, in contact order, asks
/// the cache for the contact and its pair's lookup slot (twice this far) and its neighbours in
/// its bodies' lists (this far).
const END_AHEAD: usize = 4;

/// Moved proxies before the pair queries run on the world's threads: two blocks. A query in a
/// pile costs a few microseconds (a hundred-odd tree nodes, a dozen-odd pair lookups), so the
/// rain's 15 moved proxies of a quiet step took 0.05–0.07 ms; from 128, as before, its mean pair
/// query per step on two threads was 0.077–0.088 ms, from 32 it is 0.072–0.078.
const MIN_MOVED_FOR_TEAM: usize = 32;

/// Moved proxies before the pair queries run on the world's threads when the helpers are no
/// longer lingering from a team before (`helpers_lingering`): waking them costs more than
/// [`MIN_MOVED_FOR_TEAM`]'s queries save. The chain bridge's 401 moved links, whose queries
/// find only their neighbours (20 µs in all), took 49–179 µs on two threads on the Intel Xeon,
/// with the helper asleep after the serial solve; 44–50 µs with the team's door (which spares
/// the caller the wait for a helper woken too late), 16–21 µs with this threshold too.
const MIN_MOVED_TO_WAKE_TEAM: usize = 1024;

/// The world's helper threads `threads`, for a stage of `work` items that needs `min` to be
/// worth sharing (`None`: the caller's thread alone).
pub(super) fn helpers_for(
    threads: &Option<Arc<rayon::ThreadPool>>,
    work: usize,
    min: usize,
) -> Option<&rayon::ThreadPool> {
    threads.as_deref().filter(|_| work >= min)
}

/// Body slots in a block of the proxy update (whole words of the awake set).
pub(super) const BODY_BLOCK: usize = 512;

/// Bits of a contact's status byte after the narrowphase ([`contact_status`]).
pub(super) const TOUCHING: u8 = 1;
const BEGAN: u8 = 2;
const ENDED: u8 = 4;
const SEPARATED: u8 = 8;
/// Apart and settled: not touching, not begun or ended, not separated. Only the narrowphase
/// sets it, for the contact it has just updated, so a contact whose byte has it is in that
/// state (creating a pending contact in a slot zeroes its byte: its update may not be skipped,
/// it makes the contact ready, [`Contact::make_ready`]). The next update of
/// such a pair that is still apart changes nothing in the contact, and is done from the bodies
/// alone ([`World::update_contacts`]).
const QUIET: u8 = 16;
/// The manifold's point count (0 to 4) sits in the status byte's top bits, so the solver's
/// preparation reads no contact.
pub(super) const POINTS_SHIFT: u8 = 5;

/// Bit `j` set where `wanted(status[j])` (of at most 64 status bytes): the tests are
/// independent, so they run without a branch each, where a branch a contact on whether it is
/// quiet or touching follows no pattern from one contact to the next.
#[inline(always)]
pub(super) fn status_bits(status: &[u8], wanted: impl Fn(u8) -> bool) -> u64 {
    debug_assert!(status.len() <= 64);
    status.iter().enumerate().fold(0, |bits, (j, &s)| bits | u64::from(wanted(s)) << j)
}

/// The contact's flags after its update, as bits, and its manifold's point count.
fn contact_status(c: &Contact) -> u8 {
    let flags = (c.touching as u8 * TOUCHING)
        | (c.began as u8 * BEGAN)
        | (c.ended as u8 * ENDED)
        | (c.separated as u8 * SEPARATED);
    let flags = if flags == 0 { QUIET } else { flags };
    flags | (c.manifold.count as u8) << POINTS_SHIFT
}

/// Buffers reused by every step so the steady state allocates nothing.
#[derive(Clone, Debug, Default)]
pub(crate) struct StepScratch {
    /// Collide every touching pair afresh instead of carrying its manifold while it barely
    /// moved (`World::set_manifold_carrying`, for tests that hold the carry to the collision).
    pub(super) collide_every_pair: bool,
    pairs: Vec<(u32, u32)>,
    /// The solve's touching contacts, in contact order ([`World::list_touching_contacts`]).
    pub(super) touching: Vec<u32>,
    /// Each block's part of [`Self::touching`] while it is being found.
    pub(super) touching_blocks: Vec<TouchingBlock>,
    /// Per contact id, its flags after this step's narrowphase (valid for awake contacts).
    pub(super) contact_status: Vec<u8>,
    /// Body slots simulated this step; solver index `k + 1` is `awake[k]`.
    pub(super) awake: Vec<u32>,
    /// Solver index per body slot (`FIXED_SLOT` unless awake this step).
    pub(super) solver_index: Vec<u32>,
    solver_bodies: Vec<SolverBody>,
    /// Per solver body, whether the solver moves it (it has an inverse mass): what the
    /// colourings read, made once per step with the solver indices (on a team before the
    /// gather, [`World::index_solver_bodies`]; alone by it, [`World::gather_solver_bodies`]).
    pub(super) movable: Vec<bool>,
    /// Velocities of the solver bodies (same indices).
    velocities: Vec<Velocity>,
    /// Motion of the solver bodies since the step began (same indices).
    motions: Vec<Motion>,
    centers: Vec<Vec3>,
    pub(super) contact_solver: ContactSolver,
    pub(super) joint_solver: JointSolver,
    /// The groups of widely differing masses solved directly this step.
    pub(super) direct_solver: DirectSolver,
    /// A claim word per block of solver bodies, for the threads of the solve.
    body_claims: Claims,
    /// A claim word per block of contacts, for the threads of the narrowphase (and then of
    /// the touching list's pass).
    pub(super) narrowphase_claims: Claims,
    /// A claim word per block of body slots, of the awake list or of the bodies to sweep, for
    /// the threads of the proxy update, the gather (one more word, the colouring's), the
    /// finalisation and the continuous stage (the solver indices' passes have their own,
    /// [`SolverParts`]).
    body_block_claims: Claims,
    /// Per block of the proxy update, the proxies of its bodies whose tight box left the fat
    /// one, with their new fat boxes, in body order.
    moved_blocks: Vec<Vec<(ProxyKey, Aabb)>>,
    pub(super) candidates: Vec<u32>,
    /// Per awake body, whether its move this step may have reached something static
    /// ([`may_reach_static`], worked out while finalising).
    may_reach_static: Vec<bool>,
    /// The awake indices `may_reach_static` marks, ascending: the continuous stage's bodies.
    sweeps: Vec<u32>,
    /// Per body of [`Self::sweeps`], the fraction of its move at which it first touched
    /// something static.
    impacts: Vec<f32>,
    /// Per awake body, whether it is a kinematic body that moved this step (set while
    /// finalising, so the pass that keeps what such bodies touch awake reads a byte a body).
    moving_kinematic: Vec<bool>,
    /// Per awake body, its sleep timer after finalising, kept equal to the body's by
    /// [`World::restart_sleep_timer`]: the sleep stage reads these and [`Self::body_islands`]
    /// (8 bytes a body, in order) instead of walking each island's bodies, whose cache lines
    /// finalising left in the other threads' caches.
    pub(super) sleep_timers: Vec<f32>,
    /// Per awake body, its island (`NONE` for a kinematic body).
    pub(super) body_islands: Vec<u32>,
    /// Per awake body, whether finalising capped or stopped it (`faults.rs` reports them).
    pub(super) fault_marks: Vec<FaultMark>,
    /// Per island slot, the smallest and largest sleep timer of its bodies in the awake list
    /// (the sleep stage's, for the sleep pass each entry names).
    pub(super) island_timers: Vec<IslandTimers>,
    /// Sleep stages run with these arrays, the number [`Self::island_timers`] entries carry.
    pub(super) sleep_pass: u64,
    /// Per awake body, whether it is a moving kinematic body touching a sleeping dynamic
    /// body: only those walk their contact lists ([`World::keep_touched_awake`]).
    touches_sleeper: Vec<bool>,
    /// The moving kinematic bodies with their awake index, in body order, for
    /// [`World::keep_touched_awake`].
    moving_kinematic_bodies: Vec<(u32, usize)>,
    /// The awake bodies cut into a part per thread of the solve, on a team.
    pub(super) solver_parts: SolverParts,
    /// The contacts the narrowphase's blocks flagged, a list per block of contacts.
    flagged_blocks: Vec<FlaggedBlock>,
    /// The separated contacts of every block, in contact order, for destroying.
    separated: Vec<u32>,
    pub(super) water_block: crate::terrain::WaterBlock,
    /// Some awake body got a water contact since the water last went inert.
    pub(super) wet: bool,
}

impl StepScratch {
    /// Bytes of the arrays a step fills (their lengths, not capacities).
    pub(crate) fn bytes(&self) -> usize {
        use std::mem::size_of;
        self.pairs.len() * 8
            + self.movable.len()
            + (self.touching.len() + self.awake.len() + self.solver_index.len() + self.candidates.len()) * 4
            + self.contact_status.len()
            + self.moving_kinematic.len()
            + self.may_reach_static.len()
            + (self.sweeps.len() + self.impacts.len()) * 4
            + (self.sleep_timers.len() + self.body_islands.len()) * 4
            + self.island_timers.len() * size_of::<IslandTimers>()
            + self.touching_blocks.iter().map(|b| b.len() * (4 + 8 + 1)).sum::<usize>()
            + self.moved_blocks.iter().map(|b| b.len() * size_of::<(ProxyKey, Aabb)>()).sum::<usize>()
            + self.touches_sleeper.len()
            + self.flagged_blocks.iter().map(FlaggedBlock::bytes).sum::<usize>()
            + self.solver_parts.bytes()
            + self.separated.len() * 4
            + self.solver_bodies.len() * size_of::<SolverBody>()
            + (self.velocities.len() + self.motions.len()) * size_of::<Velocity>()
            + self.centers.len() * size_of::<Vec3>()
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
    /// Advances the simulation by one step of `settings().dt`.
    pub fn step(&mut self) {
        self.stepping = true;
        let start = std::time::Instant::now();
        let mut timer = StageTimer::start();
        self.touch_events.clear();
        self.sleep_events.clear();
        self.water_events.clear();
        self.joint_events.clear();
        self.body_faults.clear();
        self.drive_kinematic_motions();
        let mut counters = Counters { reinsertions: self.update_proxies(), ..Default::default() };
        timer.lap(&mut self.profile, Stage::Broadphase);
        counters.new_pairs = self.create_pairs() + self.update_terrain_pairs();
        timer.lap(&mut self.profile, Stage::Pairs);
        self.update_contacts();
        timer.lap(&mut self.profile, Stage::Narrowphase);
        self.update_islands();
        timer.lap(&mut self.profile, Stage::Islands);
        self.apply_water();
        timer.lap(&mut self.profile, Stage::Water);
        self.solve();
        self.break_joints();
        timer.lap(&mut self.profile, Stage::Solve);
        if self.finalize_bodies() {
            (counters.capped_bodies, counters.non_finite_bodies) = self.report_body_faults();
        }
        timer.lap(&mut self.profile, Stage::Finalize);
        counters.continuous_hits =
            if self.settings.continuous_collision { self.clip_fast_bodies() } else { 0 };
        timer.lap(&mut self.profile, Stage::Continuous);
        self.sleep_islands();
        timer.lap(&mut self.profile, Stage::Sleep);
        self.split_one_island();
        timer.lap(&mut self.profile, Stage::Split);

        // Forget this step's solver indices so sleeping bodies read as fixed next time.
        for &body in &self.scratch.awake {
            self.scratch.solver_index[body as usize] = FIXED_SLOT;
        }
        self.step_count += 1;
        self.stepping = false;
        self.time += self.settings.dt as f64;
        counters.bodies = self.bodies.live_count() as u32;
        counters.awake_bodies = self.awake_bodies.count() as u32;
        counters.proxies = counters.bodies;
        counters.contact_pairs = self.contacts.live_count() as u32;
        counters.touching_contacts = self.scratch.touching.len() as u32;
        counters.manifold_points = self.scratch.contact_solver.manifold_points();
        counters.colours = self.scratch.contact_solver.colour_count() as u32;
        counters.joints = self.joints.live_count() as u32;
        counters.solved_joints = self.scratch.joint_solver.len() as u32;
        (counters.direct_groups, counters.direct_rows) = self.scratch.direct_solver.counts();
        counters.islands = self.islands.live_count() as u32;
        counters.awake_islands = self.islands.awake_count() as u32;
        self.profile.counters = counters;
        self.profile.total_ms = start.elapsed().as_secs_f64() * 1e3;
        self.log_step();
    }

    /// Sets the velocities of kinematic bodies with a scripted motion so this step takes them
    /// exactly where the motion says (a chord of the circle, landing on it).
    fn drive_kinematic_motions(&mut self) {
        let dt = self.settings.dt;
        for k in 0..self.bodies.scripted().len() {
            let i = self.bodies.scripted()[k] as usize;
            if !self.awake_bodies.get(i) {
                continue;
            }
            let b = &mut self.bodies.bodies[i];
            let Some(motion) = b.motion else { continue };
            let center = b.center();
            let (target, _) = motion.moved(center, Quat::IDENTITY, dt);
            b.linear_velocity = (target - center) / dt;
            b.angular_velocity = motion.angular_velocity();
        }
    }

    /// [`Stage::Broadphase`]: re-insert a proxy only when its body's tight box left the fat one.
    /// The boxes are computed in blocks of bodies the world's threads share, each listing its
    /// moved proxies with their new boxes (so the moves after need not read the bodies again,
    /// whose lines the blocks left in their members' caches); the proxies move afterwards on
    /// the caller's thread, since they change the tree: one after another in body
    /// order, or, when a twelfth of the movable tree moved, by giving the leaves their boxes in
    /// place and growing their ancestors
    /// ([`crate::broadphase::Broadphase::move_proxies`]); once due, the tree is rebuilt beside
    /// the narrowphase ([`crate::broadphase::Broadphase::rebuild_if_due`]).
    fn update_proxies(&mut self) -> u32 {
        let settings = self.settings;
        let count = self.bodies.bodies.len();
        let blocks = count.div_ceil(BODY_BLOCK);
        let moved = &mut self.scratch.moved_blocks;
        if moved.len() < blocks {
            moved.resize_with(blocks, Vec::new);
        }
        moved[..blocks].iter_mut().for_each(Vec::clear);
        let claims = &mut self.scratch.body_block_claims;
        claims.reset(blocks);
        let claims = claims.words();
        let (bodies, moved) =
            (SharedSlice::new(&mut self.bodies.bodies), SharedSlice::new(&mut moved[..blocks]));
        let awake = &self.awake_bodies;
        run_team(helpers_for(&self.threads, self.awake_bodies.count(), MIN_BODIES_FOR_TEAM), |team| {
            team.for_blocks(count, BODY_BLOCK, claims, |block| {
                // Alone, the whole range comes as one block: its moves go to the first list.
                let list = block.start / BODY_BLOCK;
                // SAFETY: each block of bodies and its list of moves are one member's in this
                // stage.
                let (block_bodies, moves) =
                    unsafe { (bodies.slice_mut(block.clone()), &mut moved.slice_mut(list..list + 1)[0]) };
                awake.for_each_in(block.clone(), |i| {
                    let b = &mut block_bodies[i - block.start];
                    let tight = tight_aabb(b);
                    b.tight = tight;
                    if !b.fat.contains(&tight) {
                        b.fat = body_fat_aabb(b, &tight, &settings);
                        moves.push((b.proxy, b.fat));
                    }
                });
            });
        });
        let moved = &self.scratch.moved_blocks[..blocks];
        let reinserted: usize = moved.iter().map(Vec::len).sum();
        self.broadphase.move_proxies(moved.iter().flatten().copied(), reinserted);
        #[cfg(debug_assertions)]
        for i in self.awake_bodies.iter() {
            let b = &self.bodies.bodies[i];
            debug_assert_eq!(b.fat, self.broadphase.fat_aabb(b.proxy));
        }
        reinserted as u32
    }

    /// [`Stage::Pairs`]: contact pairs for new overlaps of moved proxies, in sorted pair order.
    fn create_pairs(&mut self) -> u32 {
        // Pairs that already have a contact are dropped before the sort; no contact is made
        // until the list is complete, so the list is exactly the new pairs, in the same order.
        // Jointed pairs that may not collide are dropped here too: a net or grid of jointed
        // bodies reports each of its neighbour pairs every step a proxy moves, and they never
        // get a contact.
        let (contacts, bodies, joints) = (&self.contacts, &self.bodies.bodies, &self.joints.joints);
        let keep = |a, b| !contacts.contains(a, b);
        let apart = |body, list: &mut Vec<u32>| joints_blocking_collision(bodies, joints, body, list);
        // (One thread reads no clock.)
        let lingering = self.threads.is_some() && helpers_lingering();
        let min_moved = if lingering { MIN_MOVED_FOR_TEAM } else { MIN_MOVED_TO_WAKE_TEAM };
        let helpers = helpers_for(&self.threads, self.broadphase.moved_count(), min_moved);
        let warm = |a, b| contacts.prefetch_pair(a, b);
        self.broadphase.update_pairs_on(helpers, &mut self.scratch.pairs, warm, keep, apart);
        let mut created = 0;
        let pairs = &self.scratch.pairs;
        for (i, &(a, b)) in pairs.iter().enumerate() {
            // Each creation reads both bodies, fills a contact slot, probes the pair lookup and
            // links the contact at the head of both bodies' lists: cache misses in a row a few
            // hundred times a step in a tumbling pile, so they are asked for ahead.
            if let Some(&(a, b)) = pairs.get(i + 2 * CREATE_AHEAD) {
                prefetch_body_for_contact(&self.bodies.bodies[a as usize]);
                prefetch_body_for_contact(&self.bodies.bodies[b as usize]);
            }
            if let Some(&(a, b)) = pairs.get(i + CREATE_AHEAD) {
                self.contacts.prefetch_pair(a, b);
                self.contacts.prefetch_slot(CREATE_AHEAD);
                for body in [a, b] {
                    let head = self.bodies.bodies[body as usize].contact_head;
                    if head != NONE {
                        self.contacts.prefetch_edges(head >> 1);
                    }
                }
            }
            let (ba, bb) = (&self.bodies.bodies[a as usize], &self.bodies.bodies[b as usize]);
            let any_dynamic = ba.body_type == BodyType::Dynamic || bb.body_type == BodyType::Dynamic;
            // The list holds only distinct pairs without a contact that may collide.
            debug_assert!(!self.contacts.contains(a, b), "pair ({a}, {b}) listed with a contact");
            if any_dynamic {
                let friction = (ba.material.friction * bb.material.friction).sqrt();
                let restitution = ba.material.restitution.max(bb.material.restitution);
                // An awake pair is updated by this step's narrowphase, which makes the rest of
                // its contact ready on the world's threads; its status byte, the slot's last
                // contact's, must not say quiet.
                let awake = ba.awake || bb.awake;
                let id = if awake {
                    let id = self.contacts.create_pending(a, b, friction, restitution);
                    if let Some(status) = self.scratch.contact_status.get_mut(id as usize) {
                        *status = 0;
                    }
                    id
                } else {
                    self.contacts.create(a, b, friction, restitution)
                };
                graph::attach(&mut self.bodies.bodies, &mut self.contacts.contacts, id);
                if awake {
                    self.awake_contacts.set(id as usize);
                }
                created += 1;
            }
        }
        created
    }

    /// [`Stage::Narrowphase`]: update the awake contacts' manifolds, in blocks the world's
    /// threads share: each contact reads the bodies and writes only itself, so the result does
    /// not depend on scheduling; each block notes its contacts that separated, began or ended
    /// touching, and their touch events ([`FlaggedBlock`]). Then, in contact order (block
    /// order), the events are kept, begin and end of touching become bits, and pairs whose fat
    /// boxes separated are destroyed.
    fn update_contacts(&mut self) {
        let settings = self.settings;
        let (bodies, awake, terrain) = (&self.bodies.bodies, &self.awake_contacts, &self.terrain);
        let (links, pairs) = (&self.contacts.links, &self.contacts.bodies);
        let carry = !self.scratch.collide_every_pair;
        let update_contact = |(id, c): (usize, &mut Contact)| {
            if c.body_b == TERRAIN {
                let link = links[id].as_ref();
                update_terrain_contact(c, link, &bodies[c.body_a as usize], terrain, &settings, carry);
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
        // would find, from the same bounds), so its 384 bytes are not read.
        // For a contact whose status byte says `QUIET` (the caller picks those).
        let stays_quiet = |id: usize| {
            let (a, b) = pairs[id];
            if b == TERRAIN {
                return false;
            }
            let (ba, bb) = (&bodies[a as usize], &bodies[b as usize]);
            if !ba.fat.overlaps(&bb.fat) {
                return false;
            }
            let speculative = settings.speculative_distance + settings.dt * approach_speed_bound(ba, bb);
            !within_reach(ba, bb, speculative)
        };
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
        let status = &mut self.scratch.contact_status;
        status.resize(count, 0);
        let claims = &mut self.scratch.narrowphase_claims;
        claims.reset(count.div_ceil(CONTACT_BLOCK) + 1);
        let claims = claims.words();
        let (contacts, status) = (SharedSlice::new(&mut self.contacts.contacts), SharedSlice::new(status));
        let flagged_blocks = &mut self.scratch.flagged_blocks;
        flagged_blocks.resize_with(count.div_ceil(CONTACT_BLOCK), FlaggedBlock::default);
        let flagged_blocks = SharedSlice::new(flagged_blocks);
        let body_store = &self.bodies;
        let broadphase = Mutex::new(&mut self.broadphase);
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
                        while candidates != 0 {
                            let j = candidates.trailing_zeros();
                            candidates &= candidates - 1;
                            need |= u64::from(!stays_quiet(word_start + j as usize)) << j;
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
        let mut separated = std::mem::take(&mut self.scratch.separated);
        separated.clear();
        for block in &self.scratch.flagged_blocks {
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
        self.scratch.separated = separated;
    }

    /// [`Stage::Solve`]: the soft step over the awake bodies and their touching contacts.
    fn solve(&mut self) {
        let s = self.settings;
        let h = s.dt / s.substeps as f32;
        let softness = ContactSoftness {
            movable: Softness::new(s.contact_hertz.min(0.25 / h), s.contact_damping_ratio, h),
            fixed: Softness::new((2.0 * s.contact_hertz).min(0.25 / h), s.contact_damping_ratio, h),
            warm_starting: s.warm_starting,
        };
        self.size_solver_arrays();
        // On a team the contacts are coloured beside the gather, and the touching list, which
        // the colouring reads, needs the solver indices first: they come in a pass of their
        // own. Alone, the gather writes them, in its one pass over the bodies. A solve of too
        // few constraints for a team (`MIN_BATCHES_FOR_TEAM`) is prepared alone too, without
        // the parts' cut (58 µs of the free fall's 5000 bodies on two threads): an estimate
        // before the touching list exists, the awake contacts and joints four to a batch (at
        // least as many constraints as it will solve, though the colourings' batches may
        // differ). Either path gives the same result; the substeps decide their team from
        // the batches they have.
        let constraint_batches = (self.awake_contacts.count() + self.awake_joints.count()).div_ceil(4);
        let shared = constraint_batches >= MIN_BATCHES_FOR_TEAM
            && helpers_for(&self.threads, self.scratch.awake.len(), MIN_SOLVER_BODIES_FOR_TEAM).is_some();
        if shared {
            self.index_solver_bodies();
            self.list_touching_contacts();
            self.gather_solver_bodies(h, Some(softness));
        } else {
            self.gather_solver_bodies(h, None);
            self.list_touching_contacts();
            self.scratch.solver_parts.make_whole();
            self.scratch.contact_solver.prepare(&self.scratch.movable, softness, BodyParts::WHOLE);
        }
        let scratch = &mut self.scratch;
        // The colourings check their lanes' bodies against the flags; the solve then reads the
        // solver arrays, which are as long, unchecked.
        assert_eq!(scratch.movable.len(), scratch.solver_bodies.len(), "a flag per solver body");
        let joint_softness = Softness::new(s.joint_hertz.min(0.25 / h), s.joint_damping_ratio, h);
        let joints = &mut scratch.joint_solver;
        joints.prepare(
            self.threads.as_deref(),
            &self.joints.joints,
            &self.awake_joints,
            &self.bodies.bodies,
            &scratch.solver_index,
            &scratch.solver_bodies,
            &scratch.movable,
            joint_softness,
            h,
            s.warm_starting,
        );
        let feedback = Feedback {
            contact_movable: softness.movable.bias_rate,
            contact_fixed: softness.fixed.bias_rate,
            joint: joint_softness.bias_rate,
            max_push_out_speed: s.max_push_out_speed,
            h,
        };
        let groups = GroupInputs {
            solver_bodies: &scratch.solver_bodies,
            centers: &scratch.centers,
            touching: &scratch.touching,
            pairs: scratch.contact_solver.touching_pairs(),
            contacts: &self.contacts.contacts,
            joints: &self.joints.joints,
            bodies: &self.bodies.bodies,
            solver_index: &scratch.solver_index,
        };
        scratch.direct_solver.prepare(&groups, joints.joints(), feedback);
        let substeps = SubstepSettings {
            substeps: s.substeps,
            h,
            caps: SpeedCaps { linear: s.max_linear_speed, angular: s.max_angular_speed },
            max_push_out_speed: s.max_push_out_speed,
            restitution_threshold: s.restitution_threshold,
        };
        solve_substeps(
            self.threads.as_deref(),
            &substeps,
            &mut scratch.solver_bodies,
            &mut scratch.motions,
            &mut scratch.velocities,
            &mut scratch.body_claims,
            joints,
            &mut scratch.contact_solver,
            &mut scratch.direct_solver,
            TouchingContacts {
                contacts: &mut self.contacts.contacts,
                ids: &scratch.touching,
                centers: &scratch.centers,
                joints: &mut self.joints.joints,
                bodies: &self.bodies.bodies,
            },
        );
        let (bodies, motions) = (&scratch.solver_bodies, &scratch.motions);
        joints.store_general(bodies, motions, &mut self.joints.joints);
        scratch.direct_solver.store(&mut self.contacts.contacts, &mut self.joints.joints);
    }

    /// The awake list and the solver arrays' lengths for this step: solver index `k + 1` is
    /// awake body `k`, slot 0 the fixed body (written here). The rest is written by
    /// [`World::index_solver_bodies`] and [`World::gather_solver_bodies`].
    fn size_solver_arrays(&mut self) {
        let scratch = &mut self.scratch;
        scratch.awake.clear();
        scratch.awake.extend(self.awake_bodies.iter().map(|i| i as u32));
        if scratch.solver_index.len() < self.bodies.bodies.len() {
            scratch.solver_index.resize(self.bodies.bodies.len(), FIXED_SLOT);
        }
        // Every entry past the fixed slot is written by the index pass or the gather; only the
        // lengths need setting.
        let count = scratch.awake.len() + 1;
        scratch.solver_bodies.resize(count, SolverBody::FIXED);
        scratch.movable.resize(count, false);
        scratch.velocities.resize(count, Velocity::ZERO);
        scratch.motions.resize(count, Motion::ZERO);
        scratch.centers.resize(count, Vec3::ZERO);
        scratch.solver_bodies[0] = SolverBody::FIXED;
        scratch.movable[0] = false;
        scratch.velocities[0] = Velocity::ZERO;
        scratch.motions[0] = Motion::ZERO;
        scratch.centers[0] = Vec3::ZERO;
    }

    /// Fills the solver arrays [`World::size_solver_arrays`] sized (mass, forces, velocities
    /// and centre of each awake body), in blocks of the awake list the world's threads share.
    /// With `colour_beside`, one member colours the touching contacts meanwhile, from the
    /// indices and flags [`World::index_solver_bodies`] wrote: the colouring is the solve's one
    /// long serial part (the 3D pyramid's 15 000 contacts take about 0.12 ms), and the gather
    /// about as long again. Without, the gather writes the indices and flags too.
    fn gather_solver_bodies(&mut self, h: f32, colour_beside: Option<ContactSoftness>) {
        let (gravity, dt) = (self.settings.gravity, self.settings.dt);
        let scratch = &mut self.scratch;
        let awake_count = scratch.awake.len();
        let helpers = helpers_for(&self.threads, awake_count, MIN_SOLVER_BODIES_FOR_TEAM);
        // One claim for the colouring, then one per block.
        scratch.body_block_claims.reset(awake_count.div_ceil(BODY_BLOCK) + 1);
        let (claims, awake) = (scratch.body_block_claims.words(), &scratch.awake);
        let (bodies, body_terrain) = (&self.bodies.bodies, &self.body_terrain);
        let contacts = Mutex::new(&mut scratch.contact_solver);
        let parts = &scratch.solver_parts;
        let solver_index = SharedSlice::new(&mut scratch.solver_index);
        let movable = SharedSlice::new(&mut scratch.movable);
        let solver_bodies = SharedSlice::new(&mut scratch.solver_bodies[1..]);
        let velocities = SharedSlice::new(&mut scratch.velocities[1..]);
        let motions = SharedSlice::new(&mut scratch.motions[1..]);
        let centers = SharedSlice::new(&mut scratch.centers[1..]);
        run_team(helpers, |team| {
            // Only the member that claims the stage's first block locks it, once.
            let colour = || {
                if let Some(softness) = colour_beside {
                    // SAFETY: with a colouring beside, no block writes the flags.
                    let movable = unsafe { movable.as_slice() };
                    let mut contacts = contacts.lock().expect("no member panicked while colouring");
                    contacts.prepare(movable, softness, parts.body_parts());
                }
            };
            team.for_blocks_beside(awake_count, BODY_BLOCK, claims, colour, |block| {
                // SAFETY: each block of the awake list (and of the solver arrays, one entry
                // per awake body) is one member's in this stage.
                let (solver_bodies, velocities, motions, centers) = unsafe {
                    (
                        solver_bodies.slice_mut(block.clone()),
                        velocities.slice_mut(block.clone()),
                        motions.slice_mut(block.clone()),
                        centers.slice_mut(block.clone()),
                    )
                };
                for k in block.clone() {
                    let (body, local) = (awake[k] as usize, k - block.start);
                    let b = &bodies[body];
                    let water = body_terrain[body].water.as_ref();
                    solver_bodies[local] = solver_body(b, water, gravity, h);
                    let moves = solver_bodies[local].inv_mass > 0.0;
                    if colour_beside.is_none() {
                        // SAFETY: the awake list holds each body once, so its solver index
                        // and flag are written by this block alone; the index array has an
                        // entry per body slot, the flags one per awake body and the fixed one.
                        unsafe {
                            solver_index.write(body, k as u32 + 1);
                            movable.write(k + 1, moves);
                        }
                    } else {
                        // SAFETY: with a colouring beside, the flags are only read.
                        debug_assert_eq!(unsafe { movable.read(k + 1) }, moves, "movable as indexed");
                    }
                    // The gyroscopic term, once a step before the substeps (see
                    // `solver/gyroscopic.rs`): a moving body keeps its angular momentum.
                    let spin = if moves {
                        gyroscopic_step(b.transform.rotation, &b.inertia_local, b.angular_velocity, dt)
                    } else {
                        b.angular_velocity
                    };
                    velocities[local] = Velocity::new(b.linear_velocity, spin);
                    motions[local] = Motion::ZERO;
                    centers[local] = b.center();
                }
            });
        });
    }

    /// Writes the solved motion back into the awake bodies, clears applied forces and advances
    /// sleep timers. A moving kinematic body keeps what it touches awake. A body the solver
    /// drove past a speed cap is slowed to it, and one whose state turned non-finite stays
    /// where the step began, at rest; both are marked (`StepScratch::fault_marks`), and the
    /// return says whether any was.
    fn finalize_bodies(&mut self) -> bool {
        let s = self.settings;
        let helpers = helpers_for(&self.threads, self.scratch.awake.len(), MIN_SOLVER_BODIES_FOR_TEAM);
        let static_bounds = if s.continuous_collision { self.static_bounds() } else { None };
        let scratch = &mut self.scratch;
        let count = scratch.awake.len();
        scratch.body_block_claims.reset(count.div_ceil(BODY_BLOCK));
        scratch.moving_kinematic.resize(count, false);
        scratch.may_reach_static.resize(count, false);
        scratch.sleep_timers.resize(count, 0.0);
        scratch.body_islands.resize(count, NONE);
        scratch.fault_marks.resize(count, FaultMark::None);
        let caps = SpeedCaps { linear: s.max_linear_speed, angular: s.max_angular_speed };
        let faulted = AtomicBool::new(false);
        let (claims, awake) = (scratch.body_block_claims.words(), &scratch.awake);
        let (solver_bodies, motions, velocities) =
            (&scratch.solver_bodies, &scratch.motions, &scratch.velocities);
        let bodies = SharedSlice::new(&mut self.bodies.bodies);
        let moving_kinematic = SharedSlice::new(&mut scratch.moving_kinematic);
        let may_reach = SharedSlice::new(&mut scratch.may_reach_static);
        let sleep_timers = SharedSlice::new(&mut scratch.sleep_timers);
        let body_islands = SharedSlice::new(&mut scratch.body_islands);
        let fault_marks = SharedSlice::new(&mut scratch.fault_marks);
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
                            may_reach_static(b, sb, motions[k + 1].first(), &bounds, s.continuous_gap)
                        });
                }
                if block_faulted {
                    faulted.store(true, Ordering::Relaxed);
                }
            });
        });
        if self.scratch.moving_kinematic.contains(&true) {
            self.keep_touched_awake();
        }
        faulted.into_inner()
    }

    /// Keeps the dynamic bodies that moving kinematic bodies touch or are jointed to awake:
    /// their sleep timers start again, and a sleeping one wakes.
    ///
    /// The awake ones are found from the solve's list of touching contacts, in contact order
    /// (a kinematic body is always awake, so its touching contacts are all there). Only a
    /// kinematic body that touches a sleeping one walks its contact list, so waking follows
    /// list order and the recorded causes are the walk's. Each wall of a tumbler walked its
    /// thousand-odd contacts every step, a cache miss each, for the few dozen it touches.
    fn keep_touched_awake(&mut self) {
        let scratch = &mut self.scratch;
        let count = scratch.awake.len();
        scratch.touches_sleeper.clear();
        scratch.touches_sleeper.resize(count, false);
        let (solver_index, moving) = (&scratch.solver_index, &scratch.moving_kinematic);
        // The awake index of `body` when it is a moving kinematic body (solver index 0, the
        // fixed slot, is no awake body).
        let moving_at = |body: u32| {
            let k = (solver_index[body as usize] as usize).checked_sub(1)?;
            moving[k].then_some(k)
        };
        for &id in &scratch.touching {
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
                        scratch.sleep_timers[slot as usize - 1] = 0.0;
                    }
                } else {
                    scratch.touches_sleeper[k] = true;
                }
            }
        }
        #[cfg(debug_assertions)]
        self.assert_touching_lists_agree();
        // In body order, whatever order the solve's parts put the awake list in: what wakes
        // first decides the causes recorded and the order of the woken bodies.
        let scratch = &mut self.scratch;
        let mut moving = std::mem::take(&mut scratch.moving_kinematic_bodies);
        moving.clear();
        let (awake, flags) = (&scratch.awake, &scratch.moving_kinematic);
        moving.extend((0..awake.len()).filter(|&k| flags[k]).map(|k| (awake[k], k)));
        moving.sort_unstable();
        for &(body, k) in &moving {
            if self.scratch.touches_sleeper[k] {
                self.keep_touching_awake(body);
            }
            self.keep_jointed_awake(body);
        }
        self.scratch.moving_kinematic_bodies = moving;
    }

    /// Checks that every moving kinematic body's touching contacts, as its contact list has
    /// them, are in the solve's list of touching contacts.
    #[cfg(debug_assertions)]
    fn assert_touching_lists_agree(&self) {
        let listed: std::collections::HashSet<u32> = self.scratch.touching.iter().copied().collect();
        for k in 0..self.scratch.awake.len() {
            if !self.scratch.moving_kinematic[k] {
                continue;
            }
            let body = self.scratch.awake[k];
            graph::for_each_contact(&self.bodies.bodies, &self.contacts.contacts, body, |c, other| {
                let touching = other != TERRAIN && self.contacts.contacts[c as usize].touching;
                debug_assert!(
                    !touching || listed.contains(&c),
                    "touching contact {c} of kinematic body {body}"
                );
            });
        }
    }

    /// Sets body slot `body`'s sleep timer to zero, and its copy for the sleep stage when it
    /// is in this step's awake list (a body woken since has none: its island is walked).
    pub(super) fn restart_sleep_timer(&mut self, body: u32) {
        self.bodies.bodies[body as usize].sleep_timer = 0.0;
        let slot = self.scratch.solver_index[body as usize];
        if slot != FIXED_SLOT {
            self.scratch.sleep_timers[slot as usize - 1] = 0.0;
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

    /// Time of impact for dynamic bodies that moved farther than half their thickness this step,
    /// against static bodies: such a body is put back where it first touches. Its velocity is
    /// kept; next step's speculative contact stops it. Finalising marked the bodies whose move
    /// may have reached something static ([`may_reach_static`]), while it had each body at
    /// hand; their times are found in blocks the world's threads share (each reads the world
    /// and writes only its own entry), and the bodies move afterwards, in order.
    fn clip_fast_bodies(&mut self) -> u32 {
        if self.static_bounds().is_none() {
            return 0;
        }
        let scratch = &mut self.scratch;
        let may_reach = &scratch.may_reach_static[..scratch.awake.len()];
        scratch.sweeps.clear();
        scratch.sweeps.extend((0..may_reach.len()).filter(|&k| may_reach[k]).map(|k| k as u32));
        let count = scratch.sweeps.len();
        // (One thread reads no clock.)
        let lingering = self.threads.is_some() && helpers_lingering();
        let min_sweeps = if lingering { MIN_SWEEPS_FOR_TEAM } else { MIN_BODIES_FOR_TEAM };
        let helpers = helpers_for(&self.threads, count, min_sweeps);
        scratch.impacts.clear();
        scratch.impacts.resize(count, 1.0);
        scratch.body_block_claims.reset(count.div_ceil(SWEEP_BLOCK));
        let claims = scratch.body_block_claims.words();
        let impacts = SharedSlice::new(&mut scratch.impacts);
        let list = &scratch.sweeps;
        let sweeps = FastSweeps {
            awake: &scratch.awake,
            solver_bodies: &scratch.solver_bodies,
            centers: &scratch.centers,
            bodies: &self.bodies.bodies,
            static_tree: self.broadphase.tree(ProxyType::Static),
            terrain: &self.terrain,
            gap: self.settings.continuous_gap,
        };
        run_team(helpers, |team| {
            team.for_blocks(count, SWEEP_BLOCK, claims, |block| {
                // SAFETY: each block of the impacts is one member's in this stage.
                let out = unsafe { impacts.slice_mut(block.clone()) };
                for j in block.clone() {
                    out[j - block.start] = sweeps.first_impact(list[j] as usize);
                }
            });
        });
        let mut hits = 0;
        for j in 0..count {
            let (k, first) = (self.scratch.sweeps[j] as usize, self.scratch.impacts[j]);
            if first < 1.0 {
                let (start, end) = self.awake_sweep(k);
                let b = &mut self.bodies.bodies[self.scratch.awake[k] as usize];
                b.transform = super::continuous::interpolate(&start, &end, b.local_center, first);
                hits += 1;
            }
        }
        hits
    }

    /// What static there is, for the continuous stage: the static bodies' bounds, or everywhere
    /// when there is terrain; none when there is neither.
    fn static_bounds(&self) -> Option<Aabb> {
        if self.terrain.chunk_count() > 0 {
            Some(Aabb::new(Vec3::splat(f32::MIN), Vec3::splat(f32::MAX)))
        } else {
            self.broadphase.tree(ProxyType::Static).root_aabb()
        }
    }

    /// Awake body `k`'s pose at the start and at the end of this step's move.
    fn awake_sweep(&self, k: usize) -> (Transform, Transform) {
        let b = &self.bodies.bodies[self.scratch.awake[k] as usize];
        sweep_ends(b, &self.scratch.solver_bodies[k + 1], self.scratch.centers[k + 1])
    }
}

/// The body's pose where this step's move began (its centre was `start_center`, its turn `sb.dq`)
/// and where it ended (now).
fn sweep_ends(b: &Body, sb: &SolverBody, start_center: Vec3) -> (Transform, Transform) {
    let end = b.transform;
    let start_rotation = (sb.dq.inverse() * end.rotation).normalize();
    (Transform::new(start_center - start_rotation * b.local_center, start_rotation), end)
}

/// What the continuous stage reads to find when the awake bodies first touched something static.
struct FastSweeps<'a> {
    awake: &'a [u32],
    solver_bodies: &'a [SolverBody],
    centers: &'a [Vec3],
    bodies: &'a [Body],
    static_tree: &'a crate::broadphase::DynamicTree,
    terrain: &'a Terrain,
    gap: f32,
}

/// Whether a dynamic body's move this step (`motion` of its centre and `sb.dq` of its turn,
/// from where its tight box was) needs the continuous stage's sweep: it moved at least half its
/// thickness and may have come within `gap` of something static, inside `static_bounds`.
///
/// Most fast bodies fly far from anything static: a box around the step's motion (the start
/// box moved, grown by the most a turn can move a point: the angle is at most π |dq.xyz|)
/// rules them out before the exact sweep is worked out. The impact counts within the gap, so
/// the box is grown by it too (the static bodies' fat boxes need not cover it: the margin may
/// be zero).
fn may_reach_static(b: &Body, sb: &SolverBody, motion: Vec3, static_bounds: &Aabb, gap: f32) -> bool {
    if b.body_type != BodyType::Dynamic {
        return false;
    }
    let turn_reach =
        std::f32::consts::PI * sb.dq.xyz().length() * (b.bounding_radius + b.local_center.length());
    if !static_bounds.overlaps(&b.tight.swept(motion).grown(turn_reach + gap)) {
        return false;
    }
    let angle = 2.0 * sb.dq.xyz().length().min(1.0).asin();
    motion.length() + angle * b.bounding_radius >= 0.5 * b.shape.min_half_extent()
}

impl FastSweeps<'_> {
    /// The fraction of its move at which awake body `k`, one [`may_reach_static`] let through,
    /// first touches something static: 1 when it never does.
    fn first_impact(&self, k: usize) -> f32 {
        let b = &self.bodies[self.awake[k] as usize];
        let sb = &self.solver_bodies[k + 1];
        let (start, end) = sweep_ends(b, sb, self.centers[k + 1]);
        let swept = b.shape.world_aabb(&start).union(&tight_aabb(b));
        let mut first = 1.0f32;
        self.static_tree.query(&swept, |_, other| {
            if let Some(t) = time_of_impact(b, &start, &end, &self.bodies[other as usize], self.gap) {
                first = first.min(t);
            }
            true
        });
        first.min(terrain_time_of_impact(self.terrain, b, self.centers[k + 1]))
    }
}

/// When a fast body's centre, moving from `start_center` to where it is now, first comes
/// within its thinnest half extent of solid terrain, as a fraction of the move (1 when never):
/// its centre's path is cast as a ray, and the body stops short of the hit by that half extent,
/// so a ball dropped from high up lands on a shelf one voxel thick instead of passing through.
/// The next step's contacts take it from there.
fn terrain_time_of_impact(terrain: &Terrain, b: &Body, start_center: Vec3) -> f32 {
    if terrain.chunk_count() == 0 {
        return 1.0;
    }
    let path = b.center() - start_center;
    let length = path.length();
    if length == 0.0 {
        return 1.0;
    }
    let Ok(ray) = Ray::new(start_center, path, 1.0) else { return 1.0 };
    match terrain.cast_ray(&ray) {
        Some(hit) => (hit.t - b.shape.min_half_extent() / length).max(0.0),
        None => 1.0,
    }
}

/// The event for contact `c` (of terrain chunk `chunk`, if any) beginning or ending.
pub(crate) fn touch_event(
    bodies: &BodyStore,
    c: &Contact,
    chunk: Option<ChunkCoord>,
    began: bool,
) -> TouchEvent {
    TouchEvent { body_a: bodies.id_at(c.body_a), body_b: other_id(bodies, c), chunk, began }
}

/// The id of contact `c`'s second side: a body, or [`BodyId::TERRAIN`].
pub(crate) fn other_id(bodies: &BodyStore, c: &Contact) -> BodyId {
    if c.body_b == TERRAIN { BodyId::TERRAIN } else { bodies.id_at(c.body_b) }
}

/// The narrowphase of a terrain contact: the body against its chunk's triangles. Carried like
/// a body pair's while the body barely moves (the terrain is the identity-posed side B). Kept
/// out of line so the body pairs' loop is compiled as it was before terrain contacts.
#[inline(never)]
fn update_terrain_contact(
    c: &mut Contact,
    link: Option<&TerrainLink>,
    body: &Body,
    terrain: &Terrain,
    settings: &StepSettings,
    carry: bool,
) {
    let speed = body.linear_velocity.length() + body.angular_velocity.length() * body.bounding_radius;
    let speculative = settings.speculative_distance + settings.dt * speed;
    c.separated = false;
    if carry && c.touching && carry_manifold(c, &body.transform, &Transform::IDENTITY, speculative) {
        return;
    }
    let Some(link) = link else { return };
    let manifold = collide_terrain(
        &body.shape,
        &body.transform,
        body.center(),
        &body.tight,
        &link.data,
        terrain.chunk_origin(link.chunk),
        terrain.voxel_size(),
        speculative,
    );
    update_manifold(c, manifold, &body.transform, &Transform::IDENTITY);
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

/// How far (metres) [`within_reach`] widens the bounding spheres' reach for rounding: far above
/// what a collision's single-precision world coordinates round by within kilometres of the
/// world's origin (a few parts in ten million of them, 6e-5 m a kilometre out), and far below
/// anything that would let through many more pairs. A constant, so it costs nothing.
const SPHERE_REACH_MARGIN: f32 = 1e-3;

/// Upper bound on how fast any point of `a` can approach any point of `b`.
fn approach_speed_bound(a: &Body, b: &Body) -> f32 {
    (a.linear_velocity - b.linear_velocity).length()
        + a.angular_velocity.length() * a.bounding_radius
        + b.angular_velocity.length() * b.bounding_radius
}

/// The solver's view of an awake body for substep length `h` (its velocities go separately).
fn solver_body(b: &Body, water: Option<&WaterContact>, gravity: Vec3, h: f32) -> SolverBody {
    let mut sb = SolverBody::FIXED;
    if b.body_type == BodyType::Dynamic {
        let inv_inertia = b.inv_inertia_world();
        sb.inv_mass = b.inv_mass;
        sb.inv_inertia = inv_inertia;
        // Plus +0.0, which turns a -0.0 into +0.0: then no velocity the solver moves is ever
        // -0.0 (a sum is -0.0 only when both terms are), so the zero impulses of a batch's
        // padding point slots, which lanes get or not depending on the team's parts, change
        // no velocity's bits.
        sb.dv = (h * (gravity * b.gravity_scale + b.force * b.inv_mass) + Vec3::ZERO).extend(0.0).to_array();
        sb.dw = (h * (inv_inertia * b.torque) + Vec3::ZERO).extend(0.0).to_array();
        let (water_linear, water_angular) =
            water.map_or((0.0, 0.0), |w| (w.linear_damping, w.angular_damping));
        sb.linear_retention = 1.0 / (1.0 + h * (b.linear_damping + water_linear));
        sb.angular_retention = 1.0 / (1.0 + h * (b.angular_damping + water_angular));
    }
    sb
}

/// `v` scaled down to length `max` where it is longer, and whether it was (as the position
/// stage caps a velocity, on three lanes; the squares compared, so no square root below it).
#[inline]
fn cap(v: Vec3, max: f32) -> (Vec3, bool) {
    let squared = v.length_squared();
    if squared > max * max { (v * (max / squared.sqrt()), true) } else { (v, false) }
}

/// Asks the cache for what creating a contact reads of body `b`: its type, material, awake
/// flag and the head of its contact list.
#[inline]
fn prefetch_body_for_contact(b: &Body) {
    let at = std::ptr::from_ref(b) as usize;
    for offset in [
        std::mem::offset_of!(Body, body_type),
        std::mem::offset_of!(Body, material),
        std::mem::offset_of!(Body, awake),
        std::mem::offset_of!(Body, contact_head),
    ] {
        prefetch_at(at, offset..offset + 1);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyDesc;
    use crate::scene::builtin;

    #[test]
    fn status_bits_mark_the_wanted_bytes() {
        let status: Vec<u8> = (0..64).map(|j| if j % 3 == 0 { QUIET } else { TOUCHING }).collect();
        let quiet = status_bits(&status, |s| s == QUIET);
        assert_eq!(quiet, (0..64).filter(|j| j % 3 == 0).fold(0, |bits, j| bits | 1u64 << j));
        assert_eq!(status_bits(&status[..5], |s| s == TOUCHING), 0b10110);
        assert_eq!(status_bits(&[], |_| true), 0);
    }

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
            if world.scratch.contact_status.get(id) == Some(&QUIET) {
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
            let status = world.scratch.contact_status.first().copied();
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
            quiet_seen += world.scratch.contact_status.iter().filter(|&&s| s == QUIET).count();
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
}
