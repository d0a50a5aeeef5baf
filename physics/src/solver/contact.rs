//! Contact constraints, four at a time: non-penetration per manifold point with soft position
//! feedback and speculative distance, Coulomb friction per manifold (two directions at the
//! manifold's centre plus a twist about the normal), restitution and warm starting.
//!
//! Contacts are coloured into batches of four that share no movable body ([`Batches`]), and
//! the batches are stored two by two: a [`BatchPair`]'s fields hold its eight lanes side by
//! side, so an iteration is the scalar algorithm run on four contacts (a half) or eight (both
//! halves, `contact/pair.rs`) at once. Each point keeps its Jacobian's angular parts and their
//! images under the inverse inertia, computed once per step. Where the CPU has AVX, the passes
//! run both batches of a pair at once on eight lanes (the fill gives a colour's pairs of two
//! point counts the larger for both, [`BatchPair::match_point_counts`]), with the same result
//! bit for bit as one half after the other.

mod fill;
mod lanes;
#[cfg(target_arch = "x86_64")]
mod pair;
mod passes;

#[cfg(feature = "test-support")]
use super::SolverLanes;
#[cfg(target_arch = "x86_64")]
use super::avx::Avx;
use super::body_parts::BodyParts;
use super::colour_schedule::{ColourParts, colour_claims};
use super::colouring::{Batches, EMPTY_LANE};
use super::simd::{Halves, Lanes, Vec3Lanes, Vec3x4, f32x4};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::math::{Vec3, orthonormal_basis};
use crate::narrowphase::{Contact, MAX_MANIFOLD_POINTS};
use crate::parallel::SharedSlice;
use crate::parallel::sync::AtomicU32;
use crate::parallel::{Claims, Team, Unit, prefetch_at};
use fill::{LaneBody, LaneInput, empty_contact, empty_lane, fill_batch};
use lanes::HalfLanes;
use passes::{Pass, SolvePass, WarmStart, restitute_half};
use std::ops::Range;

/// One manifold point of four lanes (as a pair stores it, `WidePoint<Halves>`, and as the
/// eight-lane passes read it, `WidePoint<F8>`: eight).
#[derive(Clone, Copy, Debug, Default)]
struct WidePoint<L = f32x4> {
    /// Separation at the start of the step; the bodies' motion since then is added to it
    /// (linearised in the rotation) to know the current separation without re-running collision.
    separation: L,
    /// `r_a × n` and `r_b × n`: how each body's spin moves the point along the normal.
    arm_a: Vec3Lanes<L>,
    arm_b: Vec3Lanes<L>,
    /// The same through each body's inverse inertia: the spin a unit impulse gives.
    spin_a: Vec3Lanes<L>,
    spin_b: Vec3Lanes<L>,
    /// Zero in lanes where the manifold has fewer points, so those lanes never push.
    mass: L,
    impulse: L,
    max_impulse: L,
}

/// One friction direction at the manifold's centre, four lanes or eight, as the passes see it:
/// made from the normal and the stored [`WideFriction`] each time it is read.
#[derive(Clone, Copy, Debug, Default)]
struct WideFrictionRow<L = f32x4> {
    direction: Vec3Lanes<L>,
    arm_a: Vec3Lanes<L>,
    arm_b: Vec3Lanes<L>,
    spin_a: Vec3Lanes<L>,
    spin_b: Vec3Lanes<L>,
    mass: L,
    impulse: L,
}

/// The friction at the manifold's centre as a pair stores it (`WideFriction<Halves>`) and as
/// the passes load it: the two directions and their angular parts (`r × t`) are not kept, as
/// the passes make them again from the normal and the centre's offsets
/// ([`WideFriction::rows`]), with the fill's operations and so its bits. A pair is read whole
/// by every pass of every substep, and on the large scenes the passes wait on memory: twelve
/// fewer values a lane, with the softness and the restitution's values out of the pair (a
/// sixth of its bytes), made the 3D pyramid's solve about 4 % faster (paired runs) for 2 %
/// more instructions (see `docs/ARCHITECTURE.md`, *What a pair keeps*).
#[derive(Clone, Copy, Debug, Default)]
struct WideFriction<L = f32x4> {
    /// The manifold's centre from each body's centre of mass.
    offset_a: Vec3Lanes<L>,
    offset_b: Vec3Lanes<L>,
    /// Each row's spins a unit impulse gives each body.
    spin_a: [Vec3Lanes<L>; 2],
    spin_b: [Vec3Lanes<L>; 2],
    /// Each row's effective mass and accumulated impulse.
    mass: [L; 2],
    impulse: [L; 2],
}

impl<L: Lanes> WideFriction<L> {
    /// The two rows about `normal`, `one` 1.0 in every lane. Made by methods, not closures:
    /// a closure does not take on the eight-lane passes' target features, and each AVX
    /// intrinsic in one stays a call.
    #[inline(always)]
    fn rows(&self, normal: Vec3Lanes<L>, one: L) -> [WideFrictionRow<L>; 2] {
        let (t1, t2) = normal.orthonormal_basis(one);
        [self.row(0, t1), self.row(1, t2)]
    }

    /// Row `k`, along `direction`.
    #[inline(always)]
    fn row(&self, k: usize, direction: Vec3Lanes<L>) -> WideFrictionRow<L> {
        WideFrictionRow {
            direction,
            arm_a: self.offset_a.cross(direction),
            arm_b: self.offset_b.cross(direction),
            spin_a: self.spin_a[k],
            spin_b: self.spin_b[k],
            mass: self.mass[k],
            impulse: self.impulse[k],
        }
    }
}

/// What only restitution reads of a pair, once a step, kept beside the pairs rather than in
/// them so that the substeps' passes do not stream it.
#[derive(Clone, Debug, Default)]
pub(crate) struct PairBounce {
    /// Each lane's restitution coefficient.
    restitution: Halves,
    /// Each point's normal relative velocity before the substeps (zero in a batch where no
    /// lane has restitution: nothing reads it there). A slot past a batch's own points (the
    /// smaller half of a matched pair) holds what an earlier fill left: restitution never lets
    /// it through, as the point has no mass and no largest impulse.
    approach: [Halves; MAX_MANIFOLD_POINTS],
}

/// Two batches of four contacts prepared for this step's substeps, one contact per lane,
/// stored field by field side by side ([`Halves`]): lanes 0–3 are batch `2j` of the colouring
/// and lanes 4–7 batch `2j + 1`. Either half loads as four lanes in one instruction, and on a
/// CPU with AVX both load as eight in one (two batches side by side in separate structs took
/// two loads and a shuffle per field, and the joined values spilled).
#[derive(Clone, Debug, Default)]
pub(crate) struct BatchPair {
    /// Solver body indices per half and lane (slot 0, the fixed body, in empty lanes).
    body_a: [[u32; 4]; 2],
    body_b: [[u32; 4]; 2],
    normal: Vec3Lanes<Halves>,
    /// Each body's inverse mass; zero on either side also picks the stiffer softness against
    /// immovable bodies ([`ContactSoftness`]), which the pair does not store.
    inv_mass_a: Halves,
    inv_mass_b: Halves,
    friction: Halves,
    /// Friction times the points' mean distance from the centre: the twist limit per unit of
    /// total normal impulse.
    twist_friction: Halves,
    /// Most points of any lane, per half, or the pair's most where the eight-lane passes run
    /// ([`BatchPair::match_point_counts`]): zero in a half of empty lanes (a colour with an odd
    /// number of batches pads its last pair with one), and only there, as every touching
    /// contact has a point; the passes skip such a half ([`BatchPair::filled_halves`]).
    point_counts: [usize; 2],
    points: [WidePoint<Halves>; MAX_MANIFOLD_POINTS],
    friction_centre: WideFriction<Halves>,
    /// Twist about the normal: each body's spin per unit impulse, effective mass, impulse.
    twist_spin_a: Vec3Lanes<Halves>,
    twist_spin_b: Vec3Lanes<Halves>,
    twist_mass: Halves,
    twist_impulse: Halves,
}

// A pair is read whole by every pass of every substep: what it keeps is what the passes cannot
// make cheaply (see `WideFriction` and `PairBounce`). It was 3 968 bytes with the friction's
// directions and arms, the softness and restitution's values in it.
const _: () = assert!(std::mem::size_of::<BatchPair>() == 3328, "a contact pair's bytes changed");

impl WidePoint<Halves> {
    /// Half `h` as a point no lane has: no mass, no impulse, every value zero, so solving it
    /// changes no velocity.
    fn clear_half(&mut self, h: usize) {
        for lanes in [&mut self.separation, &mut self.mass, &mut self.impulse, &mut self.max_impulse] {
            lanes.set_half(h, f32x4::ZERO);
        }
        for arm in [&mut self.arm_a, &mut self.arm_b, &mut self.spin_a, &mut self.spin_b] {
            arm.set_half(h, Vec3x4::ZERO);
        }
    }
}

impl BatchPair {
    /// Gives both filled halves the larger point count, the other half's extra points cleared
    /// ([`WidePoint::clear_half`]): both then run as eight lanes at once, where batches of
    /// two point counts ran one after the other (a colour's batches go by point count, so
    /// the pair at each change of point count may straddle two). A half of empty lanes keeps
    /// none. The cleared points add zeros to the lanes' velocities, which change no velocity
    /// the solver moves (see the determinism notes in `docs/ARCHITECTURE.md`); only the
    /// colours' pairs on eight lanes are matched, so the four-lane passes, which would gain
    /// nothing, compute the same without them (a test compares the two ways on every scene).
    fn match_point_counts(&mut self) {
        let [a, b] = self.point_counts;
        if a == b || a == 0 || b == 0 {
            return;
        }
        let (half, low, high) = if a < b { (0, a, b) } else { (1, b, a) };
        for point in &mut self.points[low..high] {
            point.clear_half(half);
        }
        self.point_counts[half] = high;
    }

    /// The halves that hold a batch (0, 1 or both, in order): a half of empty lanes, which
    /// pads a colour to whole pairs, has no points and is skipped.
    #[inline(always)]
    fn filled_halves(&self) -> impl Iterator<Item = usize> + use<> {
        let counts = self.point_counts;
        (0..2).filter(move |&h| counts[h] > 0)
    }
}

/// How contacts are prepared this step: softness between two movable bodies and (stiffer)
/// against immovable ones, and whether last step's impulses are reused.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ContactSoftness {
    pub movable: Softness,
    pub fixed: Softness,
    pub warm_starting: bool,
}

/// The contact solver's state for one step: the colouring and the prepared batches.
#[derive(Clone, Debug, Default)]
pub(crate) struct ContactSolver {
    batches: Batches,
    /// Solver body indices of each touching contact, in contact order.
    pairs: Vec<(u32, u32)>,
    /// Manifold points of each touching contact, in contact order.
    point_counts: Vec<u8>,
    /// The batches, two by two.
    wide: Vec<BatchPair>,
    /// What restitution reads of each pair of `wide` (same indices).
    bounce: Vec<PairBounce>,
    /// Each colour's pairs: the colouring's batch ranges halved (each colour has whole pairs).
    pair_colours: Vec<Range<usize>>,
    /// The solver bodies' parts the colouring ordered each colour by.
    part_count: usize,
    /// Per colour, per part, the pair where the part's contacts begin
    /// ([`Batches::part_starts`] halved).
    pair_part_starts: Vec<usize>,
    /// Per colour, per part, the pair where the part's inner contacts begin
    /// ([`Batches::inner_starts`] halved).
    pair_inner_starts: Vec<usize>,
    /// The first solver index of each part of the bodies after the first ([`BodyParts`]).
    body_part_starts: Vec<u32>,
    /// The parts the last solve's substeps ran as a pipeline of, or 0.
    pipelined: usize,
    /// The overflow's pairs, after every colour's.
    pair_serial: Range<usize>,
    /// Per solver body, the warm start a relax pass leaves for the next substep.
    pending: Vec<Velocity>,
    /// A claim word per block of the colours, for the team.
    claims: Claims,
    softness: ContactSoftness,
    /// The widest way the passes may run, below what the CPU allows (tests compare the ways).
    #[cfg(feature = "test-support")]
    widest: SolverLanes,
}

impl ContactSolver {
    /// The touching contacts' solver bodies, in contact order, as the step listed them.
    pub fn touching_pairs(&self) -> &[(u32, u32)] {
        &self.pairs
    }

    /// The touching contacts' solver bodies and manifold points, in contact order, for the
    /// step to fill before [`ContactSolver::prepare`].
    pub fn touching_mut(&mut self) -> (&mut Vec<(u32, u32)>, &mut Vec<u8>) {
        (&mut self.pairs, &mut self.point_counts)
    }

    /// Colours the touching contacts given through [`ContactSolver::touching_mut`] into
    /// batches, to be filled by the solve's team ([`SharedContacts::fill`]); `movable` has an
    /// entry per solver body, true where the solver moves it (and so does the pending warm
    /// start, [`SharedContacts::pending`]). Each colour's contacts go part
    /// by part of `parts`, where the team's members start ([`BodyParts`]).
    pub fn prepare(&mut self, movable: &[bool], softness: ContactSoftness, parts: BodyParts) {
        self.softness = softness;
        // Every lane's bodies index the solver arrays; the solve reads them unchecked.
        let n = movable.len() as u32;
        assert!(self.pairs.iter().all(|&(a, b)| a < n && b < n), "a contact's solver body out of range");
        // A half with no points is padding (`point_counts`): every touching contact has one.
        debug_assert!(self.point_counts.iter().all(|&n| n > 0), "a touching contact without points");
        self.batches.build_in_pairs(&self.pairs, movable, &self.point_counts, parts);
        let in_pairs = |batches: &Range<usize>| {
            debug_assert!(
                batches.start.is_multiple_of(2) && batches.end.is_multiple_of(2),
                "{batches:?} is not whole pairs"
            );
            batches.start / 2..batches.end / 2
        };
        self.pair_colours.clear();
        self.pair_colours.extend(self.batches.colours.iter().map(in_pairs));
        self.pair_serial = in_pairs(&self.batches.serial);
        self.part_count = parts.count();
        self.pair_part_starts.clear();
        self.pair_part_starts.extend(self.batches.part_starts.iter().map(|&batch| batch / 2));
        self.pair_inner_starts.clear();
        self.pair_inner_starts.extend(self.batches.inner_starts.iter().map(|&batch| batch / 2));
        self.body_part_starts.clear();
        self.body_part_starts.extend_from_slice(parts.starts());
        let pair_count = self.batches.lanes.len() / 2;
        // A word for each of the colours' blocks, which the fill and the store share too.
        self.claims.reset(colour_claims(&self.pair_colours, self.part_count, 0));
        // Filled in place: the batches of the last step are overwritten, not reallocated.
        self.wide.resize_with(pair_count, BatchPair::default);
        self.bounce.resize_with(pair_count, PairBounce::default);
        // Zeroed by the first substep's body stage.
        self.pending.resize(movable.len(), Velocity::ZERO);
    }

    /// Runs the passes (and the fill) no wider than `widest`, even where the CPU allows more:
    /// the result is the same bit for bit, so this is for tests that check it.
    #[cfg(feature = "test-support")]
    pub fn set_widest_lanes(&mut self, widest: SolverLanes) {
        self.widest = widest;
    }

    /// The eight-lane passes' proof of AVX, if they run (it tells whether they use AVX-512).
    #[cfg(target_arch = "x86_64")]
    fn eight_lanes(&self) -> Option<Avx> {
        #[cfg(feature = "test-support")]
        return Avx::detect_up_to(self.widest);
        #[cfg(not(feature = "test-support"))]
        Avx::detect()
    }

    /// The way the passes run.
    #[cfg(feature = "test-support")]
    pub fn lanes_in_use(&self) -> SolverLanes {
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = self.eight_lanes() {
            return if avx.has_avx512() { SolverLanes::Avx512 } else { SolverLanes::Avx };
        }
        SolverLanes::Four
    }

    /// Manifold points over this step's touching contacts (counted while preparing them, so
    /// the profile does not walk the contacts again).
    pub fn manifold_points(&self) -> u32 {
        self.point_counts.iter().map(|&n| n as u32).sum()
    }

    /// Batches prepared this step (with the empty ones that pad colours to whole pairs).
    pub fn batch_count(&self) -> usize {
        self.batches.lanes.len()
    }

    /// Number of graph colours this step's contacts needed.
    pub fn colour_count(&self) -> usize {
        self.batches.colour_count()
    }

    /// The parts a pipelined solve would run the colours' pairs by (`Team::pipeline`): the
    /// colouring's parts, when there are more than one and no serial batches (which may share
    /// bodies with any part).
    pub fn pipeline_parts(&self) -> Option<usize> {
        let coloured = !self.pair_colours.is_empty() && self.pair_serial.is_empty();
        (self.part_count > 1 && coloured).then_some(self.part_count)
    }

    /// Notes the parts the substeps run as a pipeline of (0: colour by colour), for tests.
    pub fn note_pipelined(&mut self, parts: usize) {
        self.pipelined = parts;
    }

    /// The parts the last solve's substeps ran as a pipeline of, or 0.
    #[cfg(feature = "test-support")]
    pub fn pipelined_parts(&self) -> usize {
        self.pipelined
    }

    /// The batches as the solve's team shares them, to be filled from `contacts` (the
    /// touching ones `touching` lists, in the order of the pairs given through
    /// [`ContactSolver::touching_mut`]) with the solver bodies' centres `centers`, and to store
    /// their impulses back there.
    pub fn share<'a>(
        &'a mut self,
        contacts: &'a mut [Contact],
        touching: &'a [u32],
        centers: &'a [Vec3],
    ) -> SharedContacts<'a> {
        #[cfg(target_arch = "x86_64")]
        let eight_lanes = self.eight_lanes();
        SharedContacts {
            pending: SharedSlice::new(&mut self.pending),
            wide: SharedSlice::new(&mut self.wide),
            bounce: SharedSlice::new(&mut self.bounce),
            colours: &self.pair_colours,
            parts: ColourParts::new(self.part_count.max(1), &self.pair_part_starts),
            inner_starts: &self.pair_inner_starts,
            body_parts: BodyParts::new(&self.body_part_starts),
            serial: self.pair_serial.clone(),
            claims: self.claims.words(),
            #[cfg(target_arch = "x86_64")]
            eight_lanes,
            fill: FillInputs {
                lanes: &self.batches.lanes,
                pairs: &self.pairs,
                point_counts: &self.point_counts,
                contacts: SharedSlice::new(contacts),
                touching,
                centers,
                softness: self.softness,
            },
        }
    }
}

/// The contact batches of one solve, shared by the members of its team: each pass works on
/// one colour at a time, split across the team in blocks of pairs ([`Team::for_each_colour`]),
/// or, in a pipelined solve, a part's unit of a colour at a time ([`SharedContacts::run_unit`]);
/// the fill and the store take the colours' blocks part by part as one stage
/// ([`Team::for_each_part`]).
pub(crate) struct SharedContacts<'a> {
    wide: SharedSlice<'a, BatchPair>,
    /// What restitution reads of each pair (same indices).
    bounce: SharedSlice<'a, PairBounce>,
    /// Each colour's pairs.
    colours: &'a [Range<usize>],
    /// Where each colour's parts begin, for the members to start at their own.
    parts: ColourParts<'a>,
    /// Per colour and part, the first pair of the part's inner contacts
    /// ([`Batches::inner_starts`]), for a pipelined solve.
    inner_starts: &'a [usize],
    /// The solver bodies' parts the colouring ordered each colour by.
    body_parts: BodyParts<'a>,
    /// The overflow's pairs, after the colours'.
    serial: Range<usize>,
    claims: &'a [AtomicU32],
    fill: FillInputs<'a>,
    /// Per solver body, the warm start a relax pass leaves for the next substep (the body
    /// stage adds it to the velocity and zeroes it).
    pending: SharedSlice<'a, Velocity>,
    /// Proof of AVX when the passes may run two batches at a time on eight lanes and the fill
    /// is compiled for AVX.
    #[cfg(target_arch = "x86_64")]
    eight_lanes: Option<Avx>,
}

/// Where a watched contact sits in the batches this step (`solver/contact_trace.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct TracedLane {
    /// Its index in the trace list.
    pub trace: usize,
    /// The batch, and its lane there.
    pub batch: usize,
    pub lane: usize,
    /// Its index in the touching list.
    pub touching: u32,
}

/// What filling the batches reads besides the solver bodies and velocities.
struct FillInputs<'a> {
    /// Each batch's lanes (indices into `touching`): pair `j` holds batches `2j` and `2j + 1`.
    lanes: &'a [[u32; 4]],
    /// Each touching contact's solver bodies.
    pairs: &'a [(u32, u32)],
    /// Each touching contact's manifold points.
    point_counts: &'a [u8],
    /// Every contact: read to fill the batches, written by [`SharedContacts::store`].
    contacts: SharedSlice<'a, Contact>,
    touching: &'a [u32],
    centers: &'a [Vec3],
    softness: ContactSoftness,
}

/// How many batches ahead the fill asks for its contacts' memory: a batch's fill takes about as
/// long as a cache miss (1, 2 and 4 measured the same on the 3D pyramid).
const FILL_PREFETCH_AHEAD: usize = 2;

/// How many batches ahead the store asks for its contacts' memory: storing a batch is quick.
const STORE_PREFETCH_AHEAD: usize = 8;

/// What the fill reads besides [`FillInputs`]: the solver bodies and velocities, every
/// contact, and the contact of an empty lane.
struct FillSources<'a> {
    bodies: &'a [SolverBody],
    velocities: &'a [Velocity],
    contacts: &'a [Contact],
    empty: &'a Contact,
}

impl FillInputs<'_> {
    /// What lane `lane` of a batch fills from (an index into `touching`, or [`EMPTY_LANE`]).
    #[inline(always)]
    fn lane_input<'s>(&self, sources: &FillSources<'s>, lane: u32) -> LaneInput<'s> {
        if lane == EMPTY_LANE {
            return empty_lane(sources.empty);
        }
        let (a, b) = self.pairs[lane as usize];
        LaneInput {
            contact: &sources.contacts[self.touching[lane as usize] as usize],
            a: self.lane_body(sources, a),
            b: self.lane_body(sources, b),
        }
    }

    /// A lane's view of solver body `slot`.
    #[inline(always)]
    fn lane_body<'s>(&self, sources: &FillSources<'s>, slot: u32) -> LaneBody<'s> {
        LaneBody {
            slot,
            body: &sources.bodies[slot as usize],
            velocity: sources.velocities[slot as usize],
            center: self.centers[slot as usize],
        }
    }

    /// Fills `pairs` and their `bounces`, the block of pairs that starts at pair `start`;
    /// those before pair `matched_before` get their point counts matched
    /// ([`BatchPair::match_point_counts`]).
    #[inline(always)]
    fn fill_block(
        &self,
        sources: &FillSources,
        start: usize,
        pairs: &mut [BatchPair],
        bounces: &mut [PairBounce],
        matched_before: usize,
    ) {
        for (j, (pair, bounce)) in pairs.iter_mut().zip(bounces.iter_mut()).enumerate() {
            for h in 0..2 {
                let batch = 2 * (start + j) + h;
                self.prefetch_contacts(batch + FILL_PREFETCH_AHEAD);
                // Spelled out rather than `each_ref().map(...)`: the array map and its closure
                // were not inlined, and the four inputs went through memory and a copy (callgrind:
                // the rain −1.3 % with them inlined).
                let lanes = &self.lanes[batch];
                let inputs = [
                    self.lane_input(sources, lanes[0]),
                    self.lane_input(sources, lanes[1]),
                    self.lane_input(sources, lanes[2]),
                    self.lane_input(sources, lanes[3]),
                ];
                fill_batch(pair, bounce, h, inputs, self.softness.warm_starting);
            }
            if start + j < matched_before {
                pair.match_point_counts();
            }
        }
    }

    /// Starts loading the parts of batch `batch`'s contacts that the fill reads and the store
    /// writes (nothing past the last batch).
    #[inline(always)]
    fn prefetch_contacts(&self, batch: usize) {
        let Some(lanes) = self.lanes.get(batch) else { return };
        for &lane in lanes.iter().filter(|&&l| l != EMPTY_LANE) {
            let address = self.contacts.address(self.touching[lane as usize] as usize);
            prefetch_at(address, Contact::SOLVER_BYTES);
        }
    }
}

impl SharedContacts<'_> {
    /// Fills every batch from its contacts and their bodies at the start of the step, in the
    /// colours' blocks taken part by part (`Team::for_each_part`): each member with a part
    /// writes the batches it then solves (each pair is written by one member).
    pub fn fill(&self, team: &Team, bodies: &SharedSlice<SolverBody>, velocities: &SharedSlice<Velocity>) {
        // SAFETY: solver bodies, velocities and contacts are only read in this stage.
        let (bodies, velocities, contacts) =
            unsafe { (bodies.as_slice(), velocities.as_slice(), self.fill.contacts.as_slice()) };
        let empty = empty_contact();
        let sources = FillSources { bodies, velocities, contacts, empty: &empty };
        debug_assert!(
            self.colours.iter().chain([&self.serial]).all(|r| r.end <= self.wide.len()),
            "the colours and the serial batches lie within the pairs"
        );
        team.for_each_part(self.colours, self.parts, self.serial.clone(), self.claims, |block| {
            // SAFETY: each block of pairs (and their bounces) is one member's in this stage.
            let (pairs, bounces) =
                unsafe { (self.wide.slice_mut(block.clone()), self.bounce.slice_mut(block.clone())) };
            #[cfg(target_arch = "x86_64")]
            if let Some(avx) = self.eight_lanes {
                // The colours' pairs run on eight lanes; the serial ones, after, on four.
                fill_block_avx(avx, &self.fill, &sources, block.start, pairs, bounces, self.serial.start);
                return;
            }
            self.fill.fill_block(&sources, block.start, pairs, bounces, 0);
        });
    }

    /// Runs `pass` on every pair of this member's share, colour by colour: both batches at
    /// once on eight lanes where the CPU has AVX (the fill matched their point counts), else
    /// one after the other on four (a half of empty lanes is skipped).
    fn run_pass(&self, team: &Team, pass: &impl Pass) {
        team.for_each_colour(self.colours, self.parts, self.serial.clone(), self.claims, |range| {
            // SAFETY: `for_each_colour` gives each block of a stage to one member, and a stage
            // begins when the one before is done.
            unsafe { self.run_pairs(pass, range) }
        });
    }

    /// Runs `pass` on the pairs `range`: those of a colour both batches at once on eight
    /// lanes where the CPU has AVX, the serial ones one after another on four.
    ///
    /// # Safety
    /// No other thread touches the pairs meanwhile, nor the bodies they move or read (as
    /// [`Pass::run`] has it), until the pass over them is over.
    #[inline(always)]
    unsafe fn run_pairs(&self, pass: &impl Pass, range: Range<usize>) {
        // The serial batches may share bodies: they run one after another, in order. They
        // come after every colour (`Batches::build_in_pairs`), so a range before them is a
        // colour's.
        #[cfg(target_arch = "x86_64")]
        let in_colour = range.start < self.serial.start;
        // SAFETY: as the caller guarantees.
        let pairs = unsafe { self.wide.slice_mut(range) };
        #[cfg(target_arch = "x86_64")]
        if let Some(avx) = self.eight_lanes.filter(|_| in_colour) {
            // SAFETY: the batches of a colour share no moving body, and the caller keeps the
            // others' work off their bodies; `avx` proves the CPU has AVX.
            unsafe { pair::run_pairs(avx, pairs, pass) };
            return;
        }
        for pair in pairs {
            for h in pair.filled_halves() {
                // SAFETY: as above; a serial batch's bodies are this member's alone.
                unsafe { pass.run(&mut HalfLanes::new(pair, h)) };
            }
        }
    }

    /// The solver bodies of part `part` of a pipelined solve over `count` solver bodies: its
    /// run of solver indices, less the fixed body (index 0, which no stage changes).
    pub fn part_bodies(&self, part: usize, count: usize) -> Range<usize> {
        let bodies = self.body_parts.range(part, count);
        bodies.start.max(1).min(bodies.end)..bodies.end
    }

    /// Colours of the passes.
    pub fn colour_count(&self) -> usize {
        self.colours.len()
    }

    /// The pairs of part `part`'s unit `unit` of colour `colour`: the pairs of its contacts
    /// that reach another part's bodies, or those of its inner contacts.
    fn unit_pairs(&self, colour: usize, part: usize, unit: Unit) -> Range<usize> {
        let pairs = self.parts.part_items(colour, &self.colours[colour], part);
        let inner = self.inner_starts[colour * self.parts.count() + part].clamp(pairs.start, pairs.end);
        match unit {
            Unit::Edge => pairs.start..inner,
            Unit::Inner => inner..pairs.end,
        }
    }

    /// The passes of a pipelined solve, made once for all its units: the warm start, the
    /// solve, the relax that leaves the next substep's warm start and the last relax.
    pub fn passes<'s>(
        &'s self,
        motions: &'s SharedSlice<'s, Motion>,
        velocities: &'s SharedSlice<'s, Velocity>,
        inv_h: f32,
        max_push_out_speed: f32,
    ) -> ContactPasses<'s> {
        let solve = |kind| self.solve_pass(motions, velocities, inv_h, max_push_out_speed, kind);
        ContactPasses {
            warm: WarmStart { velocities },
            solve: solve(SolveKind::Solve),
            relax_leaving: solve(SolveKind::RelaxLeavingWarmStart),
            relax: solve(SolveKind::Relax),
        }
    }

    /// Runs one unit of a pipelined solve: pass `pass` (of `passes`) on part `part`'s pairs of
    /// colour `colour` of unit `unit`.
    ///
    /// # Safety
    /// The team runs the units by the pipeline's rule (`Team::pipeline`): the colouring puts in
    /// a part's edge unit of each colour every contact of the part that touches another part's
    /// body or a movable body another part's contacts touch, so no other thread writes what
    /// this unit reads, or touches what it writes, until it is over.
    pub unsafe fn run_unit(
        &self,
        passes: &ContactPasses,
        pass: PassKind,
        colour: usize,
        part: usize,
        unit: Unit,
    ) {
        let range = self.unit_pairs(colour, part, unit);
        if range.is_empty() {
            return;
        }
        // SAFETY: as the caller guarantees.
        unsafe {
            match pass {
                PassKind::WarmStart => self.run_pairs(&passes.warm, range),
                PassKind::Solve(SolveKind::Solve) => self.run_pairs(&passes.solve, range),
                PassKind::Solve(SolveKind::RelaxLeavingWarmStart) => {
                    self.run_pairs(&passes.relax_leaving, range)
                }
                PassKind::Solve(SolveKind::Relax) => self.run_pairs(&passes.relax, range),
            }
        }
    }

    /// Copies the accumulated impulses back into the contacts for next step's warm start, in
    /// the blocks of the fill (each contact is in one lane of one batch).
    pub fn store(&self, team: &Team) {
        let f = &self.fill;
        team.for_each_part(self.colours, self.parts, self.serial.clone(), self.claims, |block| {
            // SAFETY: each block of pairs is one member's in this stage, and so are the
            // contacts in their lanes (a contact is in one lane of one batch).
            let pairs = unsafe { self.wide.slice_mut(block.clone()) };
            for (j, pair) in pairs.iter().enumerate() {
                for h in 0..2 {
                    let batch = 2 * (block.start + j) + h;
                    f.prefetch_contacts(batch + STORE_PREFETCH_AHEAD);
                    let lanes = f.lanes[batch].iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE);
                    for (k, &lane) in lanes {
                        let id = f.touching[lane as usize] as usize;
                        // SAFETY: as above.
                        let c = unsafe { &mut f.contacts.slice_mut(id..id + 1)[0] };
                        // The point count from the solver's own array: the writes below then
                        // wait on no read of the contact.
                        let count = f.point_counts[lane as usize] as usize;
                        // The lane's place among the pair's eight.
                        let j = 4 * h + k;
                        for (i, stored) in c.impulses[..count].iter_mut().enumerate() {
                            let p = &pair.points[i];
                            stored.normal = p.impulse.lane(j);
                            stored.max_normal = p.max_impulse.lane(j);
                        }
                        // The directions the passes made from the normal, made the same way.
                        let (t1, t2) = orthonormal_basis(pair.normal.lane(j));
                        let impulse = &pair.friction_centre.impulse;
                        c.friction_impulse = t1 * impulse[0].lane(j) + t2 * impulse[1].lane(j);
                        c.twist_impulse = pair.twist_impulse.lane(j);
                    }
                }
            }
        });
    }

    /// Where the touching contacts the trace asks for sit in the batches (for the contact
    /// trace, `solver/contact_trace.rs`): one entry per lane that holds one, naming the place
    /// `place` gives its slot (`None`: not asked for). Read by the only member of a team of
    /// one, between stages.
    pub(crate) fn traced_lanes(&self, place: impl Fn(u32) -> Option<usize>) -> Vec<TracedLane> {
        let f = &self.fill;
        let mut found = Vec::new();
        for (batch, lanes) in f.lanes.iter().enumerate() {
            for (lane, &touching) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
                let slot = f.touching[touching as usize];
                if let Some(trace) = place(slot) {
                    found.push(TracedLane { trace, batch, lane, touching });
                }
            }
        }
        found
    }

    /// The accumulated impulses in lane `traced` now: the point count, each point's normal
    /// impulse, the friction along the two tangents and the twist, as `store` reads them.
    pub(crate) fn lane_impulses(
        &self,
        traced: &TracedLane,
    ) -> (u8, [f32; MAX_MANIFOLD_POINTS], [f32; 2], f32) {
        let pair_index = traced.batch / 2;
        // SAFETY: the trace reads between stages on the only member of a team of one
        // (`World::solve` runs the solve alone while a contact is watched): nothing writes the
        // pairs meanwhile.
        let pair = unsafe { &self.wide.slice(pair_index..pair_index + 1)[0] };
        let j = 4 * (traced.batch % 2) + traced.lane;
        let count = self.fill.point_counts[traced.touching as usize];
        let mut normal = [0.0; MAX_MANIFOLD_POINTS];
        for (i, n) in normal.iter_mut().enumerate().take(count as usize) {
            *n = pair.points[i].impulse.lane(j);
        }
        let impulse = &pair.friction_centre.impulse;
        (count, normal, [impulse[0].lane(j), impulse[1].lane(j)], pair.twist_impulse.lane(j))
    }

    /// Each point's normal relative velocity in lane `traced` now, m/s (positive: its two
    /// sides part), from the bodies' velocities as the passes compute it; and the points.
    pub(crate) fn lane_normal_speeds(
        &self,
        traced: &TracedLane,
        velocities: &SharedSlice<Velocity>,
    ) -> (u8, [f32; MAX_MANIFOLD_POINTS]) {
        let pair_index = traced.batch / 2;
        // SAFETY: as in `lane_impulses`: the trace reads between stages on the only member of
        // a team of one, so nothing writes the pairs or the velocities meanwhile.
        let pair = unsafe { &self.wide.slice(pair_index..pair_index + 1)[0] };
        let (half, lane) = (traced.batch % 2, traced.lane);
        let j = 4 * half + lane;
        let (a, b) = (pair.body_a[half][lane] as usize, pair.body_b[half][lane] as usize);
        // SAFETY: as above.
        let (va, vb) = unsafe { (velocities.slice(a..a + 1)[0], velocities.slice(b..b + 1)[0]) };
        let vec = |v: [f32; 4]| Vec3::new(v[0], v[1], v[2]);
        let normal = pair.normal.lane(j);
        let count = self.fill.point_counts[traced.touching as usize];
        let mut speeds = [0.0; MAX_MANIFOLD_POINTS];
        for (i, speed) in speeds.iter_mut().enumerate().take(count as usize) {
            let p = &pair.points[i];
            *speed = normal.dot(vec(vb.first) - vec(va.first)) + p.arm_b.lane(j).dot(vec(vb.second))
                - p.arm_a.lane(j).dot(vec(va.second));
        }
        (count, speeds)
    }

    /// Applies the accumulated impulses (the first substep's warm start).
    pub fn warm_start(&self, team: &Team, velocities: &SharedSlice<Velocity>) {
        self.run_pass(team, &WarmStart { velocities });
    }

    /// Per solver body, the warm start the last relax pass left for this substep, for the
    /// body stage to add (as long as the solver arrays).
    pub fn pending(&self) -> &SharedSlice<'_, Velocity> {
        &self.pending
    }

    /// Whether there is no contact to solve (no batch in any colour or the overflow).
    pub fn is_empty(&self) -> bool {
        self.wide.len() == 0
    }

    /// One pass over all contacts of kind `kind`: a solve, whose soft position feedback pushes
    /// overlapping bodies apart, or a relax, which only makes the velocities consistent.
    pub fn solve(
        &self,
        team: &Team,
        motions: &SharedSlice<Motion>,
        velocities: &SharedSlice<Velocity>,
        inv_h: f32,
        max_push_out_speed: f32,
        kind: SolveKind,
    ) {
        // Motions are written only while integrating positions, a stage of its own.
        self.run_pass(team, &self.solve_pass(motions, velocities, inv_h, max_push_out_speed, kind));
    }

    /// The pass of kind `kind`.
    fn solve_pass<'s>(
        &'s self,
        motions: &'s SharedSlice<'s, Motion>,
        velocities: &'s SharedSlice<'s, Velocity>,
        inv_h: f32,
        max_push_out_speed: f32,
        kind: SolveKind,
    ) -> SolvePass<'s, 's> {
        let (use_bias, pending) = match kind {
            SolveKind::Solve => (true, None),
            SolveKind::Relax => (false, None),
            SolveKind::RelaxLeavingWarmStart => (false, Some(&self.pending)),
        };
        let softness = self.fill.softness;
        SolvePass {
            motions,
            velocities,
            inv_h,
            max_push_out: -max_push_out_speed,
            use_bias,
            movable: softness.movable,
            fixed: softness.fixed,
            pending,
        }
    }

    /// Restitution, once after the substeps: points that approached faster than `threshold`
    /// and carried load get a normal velocity of `-restitution` times their approach speed.
    pub fn apply_restitution(&self, team: &Team, velocities: &SharedSlice<Velocity>, threshold: f32) {
        let threshold = f32x4::splat(-threshold);
        // Once a step, with few bouncing contacts: four lanes at a time.
        team.for_each_colour(self.colours, self.parts, self.serial.clone(), self.claims, |range| {
            // SAFETY: as in `run_pass`; the bounces are only read in this stage.
            let (pairs, bounces) = unsafe { (self.wide.slice_mut(range.clone()), self.bounce.as_slice()) };
            for (pair, bounce) in pairs.iter_mut().zip(&bounces[range]) {
                for h in pair.filled_halves() {
                    // SAFETY: as in `run_pass`.
                    unsafe { restitute_half(&mut HalfLanes::new(pair, h), bounce, velocities, threshold) };
                }
            }
        });
    }
}

/// The passes of a pipelined solve ([`SharedContacts::passes`]).
pub(crate) struct ContactPasses<'s> {
    warm: WarmStart<'s, 's>,
    solve: SolvePass<'s, 's>,
    relax_leaving: SolvePass<'s, 's>,
    relax: SolvePass<'s, 's>,
}

/// A contact pass of a pipelined solve's stage.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PassKind {
    /// The first substep's warm start.
    WarmStart,
    /// A solve or relax pass.
    Solve(SolveKind),
}

/// The kinds of pass [`SharedContacts::solve`] runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SolveKind {
    /// With the soft position feedback.
    Solve,
    /// Without it: the last substep's relax.
    Relax,
    /// A relax with a substep after it: each contact also adds the warm start of the impulses
    /// it ends with to its moving bodies' [`SharedContacts::pending`].
    RelaxLeavingWarmStart,
}

/// [`FillInputs::fill_block`] compiled for AVX: the same four-lane operations, in the
/// three-operand encoding, which spares the register copies of the two-operand one (the
/// plane pyramid's fill ran a sixth fewer instructions).
#[cfg(target_arch = "x86_64")]
fn fill_block_avx(
    _: Avx,
    inputs: &FillInputs,
    sources: &FillSources,
    start: usize,
    pairs: &mut [BatchPair],
    bounces: &mut [PairBounce],
    matched_before: usize,
) {
    #[target_feature(enable = "avx")]
    fn fill(
        inputs: &FillInputs,
        sources: &FillSources,
        start: usize,
        pairs: &mut [BatchPair],
        bounces: &mut [PairBounce],
        matched_before: usize,
    ) {
        inputs.fill_block(sources, start, pairs, bounces, matched_before)
    }
    // SAFETY: the proof says the CPU has AVX.
    unsafe { fill(inputs, sources, start, pairs, bounces, matched_before) }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pair whose every point of both halves holds ones, with these point counts.
    fn pair_of(point_counts: [usize; 2]) -> BatchPair {
        let ones = Halves([f32x4::splat(1.0); 2]);
        let ones3 = Vec3Lanes { x: ones, y: ones, z: ones };
        let point = WidePoint {
            separation: ones,
            arm_a: ones3,
            arm_b: ones3,
            spin_a: ones3,
            spin_b: ones3,
            mass: ones,
            impulse: ones,
            max_impulse: ones,
        };
        BatchPair { point_counts, points: [point; MAX_MANIFOLD_POINTS], ..BatchPair::default() }
    }

    /// Every value of half `h` of a point, as bits.
    fn half_bits(p: &WidePoint<Halves>, h: usize) -> Vec<u32> {
        let lanes = |l: &Halves| l.0[h].to_array();
        let vec3 = |v: &Vec3Lanes<Halves>| [lanes(&v.x), lanes(&v.y), lanes(&v.z)];
        let mut all = vec![lanes(&p.separation), lanes(&p.mass), lanes(&p.impulse), lanes(&p.max_impulse)];
        for v in [&p.arm_a, &p.arm_b, &p.spin_a, &p.spin_b] {
            all.extend(vec3(v));
        }
        all.into_iter().flatten().map(f32::to_bits).collect()
    }

    #[test]
    fn a_pair_of_two_point_counts_runs_the_larger_with_the_smaller_half_s_extra_points_cleared() {
        let (ones, zeros) = ([1.0f32.to_bits(); 64], [0.0f32.to_bits(); 64]);
        // Either half the smaller.
        for (counts, small) in [([3, 1], 1), ([1, 4], 0)] {
            let mut pair = pair_of(counts);
            pair.match_point_counts();
            let (low, high) = (counts[small], counts[1 - small]);
            assert_eq!(pair.point_counts, [high; 2]);
            for (i, point) in pair.points.iter().enumerate() {
                // The larger batch keeps its points; the smaller keeps its own and has the
                // ones up to the larger count cleared, every value +0.0; past that, untouched.
                assert_eq!(half_bits(point, 1 - small), ones, "{counts:?}, point {i}, larger half");
                let cleared = i >= low && i < high;
                let want = if cleared { zeros } else { ones };
                assert_eq!(half_bits(point, small), want, "{counts:?}, point {i}, smaller half");
            }
        }
        // Equal counts, and a half of empty lanes, stay as they are.
        for counts in [[2, 2], [0, 4], [3, 0]] {
            let mut pair = pair_of(counts);
            pair.match_point_counts();
            assert_eq!(pair.point_counts, counts);
            assert!(pair.points.iter().all(|p| half_bits(p, 0) == ones && half_bits(p, 1) == ones));
        }
    }
}
