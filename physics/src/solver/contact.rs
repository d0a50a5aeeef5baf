//! Contact constraints, four at a time: non-penetration per manifold point with soft position
//! feedback and speculative distance, Coulomb friction per manifold (two directions at the
//! manifold's centre plus a twist about the normal), restitution and warm starting.
//!
//! Contacts are coloured into batches of four that share no movable body ([`Batches`]); each
//! batch is one [`WideContact`] whose fields hold the four lanes side by side, so an iteration
//! is the scalar algorithm run on four contacts at once. Each point keeps its Jacobian's angular
//! parts and their images under the inverse inertia, computed once per step. Where the CPU has
//! AVX, the passes run two batches of a colour at once on eight lanes (`contact/pair.rs`), with
//! the same result bit for bit.

mod fill;
mod lanes;
#[cfg(target_arch = "x86_64")]
mod pair;
mod passes;

#[cfg(target_arch = "x86_64")]
use super::avx::Avx;
use super::colouring::{Batches, EMPTY_LANE};
use super::simd::{Vec3Lanes, Vec3x4, f32x4};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::math::Vec3;
use crate::narrowphase::{Contact, MAX_MANIFOLD_POINTS};
use crate::parallel::SharedSlice;
use crate::parallel::team::BLOCK_BATCHES;
use crate::parallel::{Claims, Team, colour_claims, prefetch_at};
use fill::{LaneBody, LaneInput, empty_contact, empty_lane, fill_batch};
use passes::{Pass, SolvePass, WarmStart, restitute_batch};
use std::ops::Range;
use std::sync::atomic::AtomicU32;

/// One manifold point of four lanes (or, as `WidePoint<F8>`, of two batches' eight).
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
    /// Normal relative velocity before solving (for restitution).
    relative_velocity: L,
}

/// One friction direction at the manifold's centre, four lanes (or eight, as
/// `WideFrictionRow<F8>`).
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

/// Four contacts prepared for this step's substeps, one per lane.
#[derive(Clone, Debug, Default)]
pub(crate) struct WideContact {
    /// Solver body indices per lane (slot 0, the fixed body, in empty lanes).
    body_a: [u32; 4],
    body_b: [u32; 4],
    normal: Vec3x4,
    inv_mass_a: f32x4,
    inv_mass_b: f32x4,
    friction: f32x4,
    /// Friction times the points' mean distance from the centre: the twist limit per unit of
    /// total normal impulse.
    twist_friction: f32x4,
    restitution: f32x4,
    bias_rate: f32x4,
    mass_scale: f32x4,
    impulse_scale: f32x4,
    /// Most points of any lane.
    point_count: usize,
    points: [WidePoint; MAX_MANIFOLD_POINTS],
    friction_rows: [WideFrictionRow; 2],
    /// Twist about the normal: each body's spin per unit impulse, effective mass, impulse.
    twist_spin_a: Vec3x4,
    twist_spin_b: Vec3x4,
    twist_mass: f32x4,
    twist_impulse: f32x4,
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
    wide: Vec<WideContact>,
    /// A claim word per block of the colours, for the team.
    claims: Claims,
    softness: ContactSoftness,
    /// Solve one batch at a time, and fill without AVX, even where the CPU has AVX (tests
    /// compare the two ways).
    four_lanes_only: bool,
}

impl ContactSolver {
    /// The touching contacts' solver bodies and manifold points, in contact order, for the
    /// step to fill before [`ContactSolver::prepare`].
    pub fn touching_mut(&mut self) -> (&mut Vec<(u32, u32)>, &mut Vec<u8>) {
        (&mut self.pairs, &mut self.point_counts)
    }

    /// Colours the touching contacts given through [`ContactSolver::touching_mut`] into
    /// batches, to be filled by the solve's team ([`SharedContacts::fill`]); `movable` has an
    /// entry per solver body, true where the solver moves it.
    pub fn prepare(&mut self, movable: &[bool], softness: ContactSoftness) {
        self.softness = softness;
        // Every lane's bodies index the solver arrays; the solve reads them unchecked.
        let n = movable.len() as u32;
        assert!(self.pairs.iter().all(|&(a, b)| a < n && b < n), "a contact's solver body out of range");
        self.batches.build(&self.pairs, movable, &self.point_counts);
        self.claims.reset(colour_claims(&self.batches.colours, self.batches.lanes.len()));
        // Filled in place: the batches of the last step are overwritten, not reallocated.
        self.wide.resize_with(self.batches.lanes.len(), WideContact::default);
    }

    /// Whether the passes run on four lanes only and the fill without AVX, even where the CPU
    /// has AVX: the result is the same bit for bit, so this is for tests that check it.
    #[cfg(feature = "test-support")]
    pub fn set_four_lanes_only(&mut self, four_lanes_only: bool) {
        self.four_lanes_only = four_lanes_only;
    }

    /// Whether the passes run two batches at a time on eight lanes.
    #[cfg(feature = "test-support")]
    pub fn eight_lanes(&self) -> bool {
        #[cfg(target_arch = "x86_64")]
        if !self.four_lanes_only {
            return Avx::detect().is_some();
        }
        false
    }

    /// Manifold points over this step's touching contacts (counted while preparing them, so
    /// the profile does not walk the contacts again).
    pub fn manifold_points(&self) -> u32 {
        self.point_counts.iter().map(|&n| n as u32).sum()
    }

    /// Batches prepared this step.
    pub fn batch_count(&self) -> usize {
        self.batches.lanes.len()
    }

    /// Number of graph colours this step's contacts needed.
    pub fn colour_count(&self) -> usize {
        self.batches.colour_count()
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
        SharedContacts {
            wide: SharedSlice::new(&mut self.wide),
            colours: &self.batches.colours,
            serial: self.batches.serial.clone(),
            claims: self.claims.words(),
            #[cfg(target_arch = "x86_64")]
            eight_lanes: Avx::detect().filter(|_| !self.four_lanes_only),
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

/// The contact batches of one solve, shared by the members of its team: each stage works on
/// one colour at a time, split across the team ([`Team::for_each_colour`]).
pub(crate) struct SharedContacts<'a> {
    wide: SharedSlice<'a, WideContact>,
    colours: &'a [Range<usize>],
    serial: Range<usize>,
    claims: &'a [AtomicU32],
    fill: FillInputs<'a>,
    /// Proof of AVX when the passes may run two batches at a time on eight lanes and the fill
    /// is compiled for AVX.
    #[cfg(target_arch = "x86_64")]
    eight_lanes: Option<Avx>,
}

/// What filling the batches reads besides the solver bodies and velocities.
struct FillInputs<'a> {
    /// Each batch's lanes (indices into `touching`).
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
    /// Fills `batches`, the block of batches that starts at batch `start`.
    #[inline(always)]
    fn fill_block(&self, sources: &FillSources, start: usize, batches: &mut [WideContact]) {
        for (j, (lanes, wc)) in self.lanes[start..start + batches.len()].iter().zip(batches).enumerate() {
            self.prefetch_contacts(start + j + FILL_PREFETCH_AHEAD);
            let side = |slot: u32| LaneBody {
                slot,
                body: &sources.bodies[slot as usize],
                velocity: sources.velocities[slot as usize],
                center: self.centers[slot as usize],
            };
            let input = |&lane: &u32| {
                if lane == EMPTY_LANE {
                    return empty_lane(sources.empty);
                }
                let (a, b) = self.pairs[lane as usize];
                LaneInput {
                    contact: &sources.contacts[self.touching[lane as usize] as usize],
                    a: side(a),
                    b: side(b),
                }
            };
            fill_batch(wc, lanes.each_ref().map(input), self.softness);
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
    /// Fills every batch from its contacts and their bodies at the start of the step, in
    /// blocks of batches the team shares (each batch is written by one member).
    pub fn fill(&self, team: &Team, bodies: &SharedSlice<SolverBody>, velocities: &SharedSlice<Velocity>) {
        let count = self.wide.len();
        // Any claim words serve: this stage's number is higher than any they hold.
        let claims = &self.claims[..count.div_ceil(BLOCK_BATCHES)];
        // SAFETY: solver bodies, velocities and contacts are only read in this stage.
        let (bodies, velocities, contacts) =
            unsafe { (bodies.as_slice(), velocities.as_slice(), self.fill.contacts.as_slice()) };
        let empty = empty_contact();
        let sources = FillSources { bodies, velocities, contacts, empty: &empty };
        team.for_blocks(count, BLOCK_BATCHES, claims, |block| {
            // SAFETY: each block of batches is one member's in this stage.
            let batches = unsafe { self.wide.slice_mut(block.clone()) };
            #[cfg(target_arch = "x86_64")]
            if let Some(avx) = self.eight_lanes {
                fill_block_avx(avx, &self.fill, &sources, block.start, batches);
                return;
            }
            self.fill.fill_block(&sources, block.start, batches);
        });
    }

    /// Runs `pass` on every batch of this member's share, colour by colour: two batches at a
    /// time on eight lanes where the CPU has AVX and two neighbours in a colour have the same
    /// number of points, else one at a time on four.
    fn run_pass(&self, team: &Team, pass: &impl Pass) {
        team.for_each_colour(self.colours, self.serial.clone(), self.claims, |range| {
            // The serial batches may share bodies: they run one after another, in order. They
            // come after every colour (`Batches::build`), so a range before them is a colour's.
            #[cfg(target_arch = "x86_64")]
            let in_colour = range.start < self.serial.start;
            // SAFETY: `for_each_colour` gives each block of a stage to one member, and a stage
            // begins when the one before is done.
            let batches = unsafe { self.wide.slice_mut(range) };
            #[cfg(target_arch = "x86_64")]
            if let Some(avx) = self.eight_lanes.filter(|_| in_colour) {
                // SAFETY: the batches of a colour share no moving body, and the colours are
                // stages one after another; `avx` proves the CPU has AVX.
                unsafe { pair::run_paired(avx, batches, pass) };
                return;
            }
            for wc in batches {
                // SAFETY: as above; a serial batch's bodies are this member's alone.
                unsafe { pass.run(wc) };
            }
        });
    }

    /// Copies the accumulated impulses back into the contacts for next step's warm start, in
    /// blocks of batches the team shares (each contact is in one lane of one batch).
    pub fn store(&self, team: &Team) {
        let count = self.wide.len();
        let claims = &self.claims[..count.div_ceil(BLOCK_BATCHES)];
        let f = &self.fill;
        team.for_blocks(count, BLOCK_BATCHES, claims, |block| {
            // SAFETY: each block of batches is one member's in this stage, and so are the
            // contacts in their lanes (a contact is in one lane of one batch).
            let batches = unsafe { self.wide.slice_mut(block.clone()) };
            for (j, (lanes, wc)) in f.lanes[block.clone()].iter().zip(batches.iter()).enumerate() {
                f.prefetch_contacts(block.start + j + STORE_PREFETCH_AHEAD);
                for (k, &lane) in lanes.iter().enumerate().filter(|(_, l)| **l != EMPTY_LANE) {
                    let id = f.touching[lane as usize] as usize;
                    // SAFETY: as above.
                    let c = unsafe { &mut f.contacts.slice_mut(id..id + 1)[0] };
                    // The point count from the solver's own array: the writes below then wait
                    // on no read of the contact.
                    let count = f.point_counts[lane as usize] as usize;
                    for (i, stored) in c.impulses[..count].iter_mut().enumerate() {
                        let p = &wc.points[i];
                        stored.normal = p.impulse.as_array()[k];
                        stored.max_normal = p.max_impulse.as_array()[k];
                    }
                    let [t1, t2] = &wc.friction_rows;
                    c.friction_impulse = t1.direction.lane(k) * t1.impulse.as_array()[k]
                        + t2.direction.lane(k) * t2.impulse.as_array()[k];
                    c.twist_impulse = wc.twist_impulse.as_array()[k];
                }
            }
        });
    }

    /// Applies the accumulated impulses (warm start).
    pub fn warm_start(&self, team: &Team, velocities: &SharedSlice<Velocity>) {
        self.run_pass(team, &WarmStart { velocities });
    }

    /// One pass over all contacts. With `use_bias` the soft position feedback pushes
    /// overlapping bodies apart; without it (the relax pass) only velocities are made
    /// consistent.
    #[allow(clippy::too_many_arguments)]
    pub fn solve(
        &self,
        team: &Team,
        motions: &SharedSlice<Motion>,
        velocities: &SharedSlice<Velocity>,
        inv_h: f32,
        max_push_out_speed: f32,
        use_bias: bool,
    ) {
        // SAFETY: motions are written only while integrating positions, a stage of its own.
        let motions = unsafe { motions.as_slice() };
        self.run_pass(
            team,
            &SolvePass { motions, velocities, inv_h, max_push_out: -max_push_out_speed, use_bias },
        );
    }

    /// Restitution, once after the substeps: points that approached faster than `threshold`
    /// and carried load get a normal velocity of `-restitution` times their approach speed.
    pub fn apply_restitution(&self, team: &Team, velocities: &SharedSlice<Velocity>, threshold: f32) {
        let threshold = f32x4::splat(-threshold);
        // Once a step, with few bouncing contacts: four lanes at a time.
        team.for_each_colour(self.colours, self.serial.clone(), self.claims, |range| {
            // SAFETY: as in `run_pass`.
            for wc in unsafe { self.wide.slice_mut(range) } {
                // SAFETY: as in `run_pass`.
                unsafe { restitute_batch(wc, velocities, threshold) };
            }
        });
    }
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
    batches: &mut [WideContact],
) {
    #[target_feature(enable = "avx")]
    fn fill(inputs: &FillInputs, sources: &FillSources, start: usize, batches: &mut [WideContact]) {
        inputs.fill_block(sources, start, batches)
    }
    // SAFETY: the proof says the CPU has AVX.
    unsafe { fill(inputs, sources, start, batches) }
}
