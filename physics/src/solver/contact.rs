//! Contact constraints, four at a time: non-penetration per manifold point with soft position
//! feedback and speculative distance, Coulomb friction per manifold (two directions at the
//! manifold's centre plus a twist about the normal), restitution and warm starting.
//!
//! Contacts are coloured into batches of four that share no movable body ([`Batches`]); each
//! batch is one [`WideContact`] whose fields hold the four lanes side by side, so an iteration
//! is the scalar algorithm run on four contacts at once. Each point keeps its Jacobian's angular
//! parts and their images under the inverse inertia, computed once per step.

mod fill;

use super::colouring::{Batches, EMPTY_LANE};
use super::simd::{Vec3x4, f32x4, gather, gather_shared, scatter_moving, select};
use super::{Motion, Softness, SolverBody, Velocity};
use crate::math::Vec3;
use crate::narrowphase::{Contact, MAX_MANIFOLD_POINTS};
use crate::parallel::SharedSlice;
use crate::parallel::team::BLOCK_BATCHES;
use crate::parallel::{Claims, Team, colour_claims, prefetch_at};
use fill::{LaneBody, LaneInput, empty_contact, empty_lane, fill_batch};
use std::ops::Range;
use std::sync::atomic::AtomicU32;

/// One manifold point of four lanes.
#[derive(Clone, Copy, Debug, Default)]
struct WidePoint {
    /// Separation at the start of the step; the bodies' motion since then is added to it
    /// (linearised in the rotation) to know the current separation without re-running collision.
    separation: f32x4,
    /// `r_a × n` and `r_b × n`: how each body's spin moves the point along the normal.
    arm_a: Vec3x4,
    arm_b: Vec3x4,
    /// The same through each body's inverse inertia: the spin a unit impulse gives.
    spin_a: Vec3x4,
    spin_b: Vec3x4,
    /// Zero in lanes where the manifold has fewer points, so those lanes never push.
    mass: f32x4,
    impulse: f32x4,
    max_impulse: f32x4,
    /// Normal relative velocity before solving (for restitution).
    relative_velocity: f32x4,
}

/// One friction direction at the manifold's centre, four lanes.
#[derive(Clone, Copy, Debug, Default)]
struct WideFrictionRow {
    direction: Vec3x4,
    arm_a: Vec3x4,
    arm_b: Vec3x4,
    spin_a: Vec3x4,
    spin_b: Vec3x4,
    mass: f32x4,
    impulse: f32x4,
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

/// The velocities of four lanes' bodies while a batch is solved.
struct LaneVelocities {
    va: Vec3x4,
    wa: Vec3x4,
    vb: Vec3x4,
    wb: Vec3x4,
}

impl LaneVelocities {
    /// The velocities of `wc`'s bodies.
    ///
    /// # Safety
    /// `wc` is a batch of the colour the team works on: no other thread writes its bodies'
    /// velocities until the stage is over. Its bodies index `velocities` (checked when the
    /// batches were coloured, [`ContactSolver::prepare`]).
    #[inline(always)]
    unsafe fn load(velocities: &SharedSlice<Velocity>, wc: &WideContact) -> Self {
        // SAFETY: as the caller guarantees.
        let ((va, wa), (vb, wb)) =
            unsafe { (gather_shared(velocities, &wc.body_a), gather_shared(velocities, &wc.body_b)) };
        LaneVelocities { va, wa, vb, wb }
    }

    /// Writes the lanes of moving bodies back, in lane order (an immovable body in several
    /// lanes keeps its velocity: no impulse changes it).
    ///
    /// # Safety
    /// As [`LaneVelocities::load`]: the batch's moving bodies are this thread's until the
    /// stage is over.
    #[inline(always)]
    unsafe fn store(&self, velocities: &SharedSlice<Velocity>, wc: &WideContact) {
        // SAFETY: as the caller guarantees.
        unsafe {
            scatter_moving(velocities, &wc.body_a, wc.inv_mass_a, self.va, self.wa);
            scatter_moving(velocities, &wc.body_b, wc.inv_mass_b, self.vb, self.wb);
        }
    }

    /// Relative velocity of B's point against A's along `dir`.
    #[inline(always)]
    fn along(&self, dir: Vec3x4, arm_a: Vec3x4, arm_b: Vec3x4) -> f32x4 {
        dir.dot(self.vb - self.va) + arm_b.dot(self.wb) - arm_a.dot(self.wa)
    }

    /// Applies `impulse` along `dir` (to B, and its opposite to A).
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn push(&mut self, wc: &WideContact, dir: Vec3x4, spin_a: Vec3x4, spin_b: Vec3x4, impulse: f32x4) {
        self.va -= dir * (impulse * wc.inv_mass_a);
        self.wa -= spin_a * impulse;
        self.vb += dir * (impulse * wc.inv_mass_b);
        self.wb += spin_b * impulse;
    }
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

impl FillInputs<'_> {
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
        let f = &self.fill;
        let empty = empty_contact();
        team.for_blocks(count, BLOCK_BATCHES, claims, |block| {
            // SAFETY: each block of batches is one member's in this stage.
            let batches = unsafe { self.wide.slice_mut(block.clone()) };
            for (j, (lanes, wc)) in f.lanes[block.clone()].iter().zip(batches).enumerate() {
                f.prefetch_contacts(block.start + j + FILL_PREFETCH_AHEAD);
                let side = |slot: u32| LaneBody {
                    slot,
                    body: &bodies[slot as usize],
                    velocity: velocities[slot as usize],
                    center: f.centers[slot as usize],
                };
                let input = |&lane: &u32| {
                    if lane == EMPTY_LANE {
                        return empty_lane(&empty);
                    }
                    let (a, b) = f.pairs[lane as usize];
                    LaneInput {
                        contact: &contacts[f.touching[lane as usize] as usize],
                        a: side(a),
                        b: side(b),
                    }
                };
                fill_batch(wc, lanes.each_ref().map(input), f.softness);
            }
        });
    }

    /// Runs `work` on every batch of this member's share, colour by colour.
    fn for_each_batch(&self, team: &Team, mut work: impl FnMut(&mut WideContact)) {
        team.for_each_colour(self.colours, self.serial.clone(), self.claims, |range| {
            // SAFETY: `for_each_colour` gives each block of a stage to one member, and a stage
            // begins when the one before is done.
            unsafe { self.wide.slice_mut(range) }.iter_mut().for_each(&mut work);
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
        self.for_each_batch(team, |wc| {
            // SAFETY: the batches of a colour share no moving body, and the colours are stages
            // one after another.
            unsafe { warm_start_batch(wc, velocities) }
        });
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
        let feedback = Feedback {
            inv_h: f32x4::splat(inv_h),
            max_push_out: f32x4::splat(-max_push_out_speed),
            use_bias,
        };
        self.for_each_batch(team, |wc| {
            // SAFETY: as in `warm_start`.
            unsafe { solve_batch(wc, motions, velocities, &feedback) }
        });
    }

    /// Restitution, once after the substeps: points that approached faster than `threshold`
    /// and carried load get a normal velocity of `-restitution` times their approach speed.
    pub fn apply_restitution(&self, team: &Team, velocities: &SharedSlice<Velocity>, threshold: f32) {
        let threshold = f32x4::splat(-threshold);
        self.for_each_batch(team, |wc| {
            // SAFETY: as in `warm_start`.
            unsafe { restitute_batch(wc, velocities, threshold) }
        });
    }
}

/// How a solve pass feeds back penetration.
struct Feedback {
    inv_h: f32x4,
    max_push_out: f32x4,
    use_bias: bool,
}

/// Warm starts one batch.
///
/// # Safety
/// No other thread accesses the batch's bodies' velocities until the stage is over.
#[inline(always)]
unsafe fn warm_start_batch(wc: &WideContact, velocities: &SharedSlice<Velocity>) {
    // SAFETY: as the caller guarantees.
    let mut vel = unsafe { LaneVelocities::load(velocities, wc) };
    let mut total = f32x4::ZERO;
    let (mut spin_a, mut spin_b) = (Vec3x4::ZERO, Vec3x4::ZERO);
    for p in &wc.points[..wc.point_count] {
        total += p.impulse;
        spin_a += p.spin_a * p.impulse;
        spin_b += p.spin_b * p.impulse;
    }
    vel.va -= wc.normal * (total * wc.inv_mass_a);
    vel.wa -= spin_a;
    vel.vb += wc.normal * (total * wc.inv_mass_b);
    vel.wb += spin_b;
    for row in &wc.friction_rows {
        vel.push(wc, row.direction, row.spin_a, row.spin_b, row.impulse);
    }
    vel.wa -= wc.twist_spin_a * wc.twist_impulse;
    vel.wb += wc.twist_spin_b * wc.twist_impulse;
    // SAFETY: as the caller guarantees.
    unsafe { vel.store(velocities, wc) };
}

/// One solve or relax pass over one batch.
///
/// # Safety
/// As [`warm_start_batch`].
#[inline(always)]
unsafe fn solve_batch(
    wc: &mut WideContact,
    motions: &[Motion],
    velocities: &SharedSlice<Velocity>,
    f: &Feedback,
) {
    let (moved_a, turn_a) = gather(motions, &wc.body_a);
    let (moved_b, turn_b) = gather(motions, &wc.body_b);
    let dp = moved_b - moved_a;
    // SAFETY: as the caller guarantees.
    let mut vel = unsafe { LaneVelocities::load(velocities, wc) };
    let normal_motion = wc.normal.dot(dp);
    let mut total = f32x4::ZERO;
    for i in 0..wc.point_count {
        let p = wc.points[i];
        // Current separation from the bodies' motion since the step began.
        let s = normal_motion + p.arm_b.dot(turn_b) - p.arm_a.dot(turn_a) + p.separation;
        // Speculative: allow exactly the approach that closes the gap this substep.
        let speculative = s.simd_gt(f32x4::ZERO);
        let (bias, mass_scale, impulse_scale) = if f.use_bias {
            (
                select(speculative, s * f.inv_h, (wc.bias_rate * s).fast_max(f.max_push_out)),
                select(speculative, f32x4::ONE, wc.mass_scale),
                select(speculative, f32x4::ZERO, wc.impulse_scale),
            )
        } else {
            (select(speculative, s * f.inv_h, f32x4::ZERO), f32x4::ONE, f32x4::ZERO)
        };
        let vn = vel.along(wc.normal, p.arm_a, p.arm_b);
        let lambda = -p.mass * mass_scale * (vn + bias) - impulse_scale * p.impulse;
        let new_impulse = (p.impulse + lambda).fast_max(f32x4::ZERO);
        let applied = new_impulse - p.impulse;
        let point = &mut wc.points[i];
        point.impulse = new_impulse;
        point.max_impulse = point.max_impulse.fast_max(new_impulse);
        total += new_impulse;
        vel.push(wc, wc.normal, p.spin_a, p.spin_b, applied);
    }
    solve_friction(&mut vel, wc, total);
    // SAFETY: as the caller guarantees.
    unsafe { vel.store(velocities, wc) };
}

/// Restitution for one batch.
///
/// # Safety
/// As [`warm_start_batch`].
#[inline(always)]
unsafe fn restitute_batch(wc: &mut WideContact, velocities: &SharedSlice<Velocity>, threshold: f32x4) {
    if !wc.restitution.simd_gt(f32x4::ZERO).any() {
        return;
    }
    // SAFETY: as the caller guarantees.
    let mut vel = unsafe { LaneVelocities::load(velocities, wc) };
    for i in 0..wc.point_count {
        let p = wc.points[i];
        let bounces = wc.restitution.simd_gt(f32x4::ZERO)
            & threshold.simd_gt(p.relative_velocity)
            & p.max_impulse.simd_gt(f32x4::ZERO);
        let vn = vel.along(wc.normal, p.arm_a, p.arm_b);
        let lambda = -p.mass * (vn + wc.restitution * p.relative_velocity);
        let new_impulse = select(bounces, (p.impulse + lambda).fast_max(f32x4::ZERO), p.impulse);
        let point = &mut wc.points[i];
        point.impulse = new_impulse;
        point.max_impulse = point.max_impulse.fast_max(new_impulse);
        vel.push(wc, wc.normal, p.spin_a, p.spin_b, new_impulse - p.impulse);
    }
    // SAFETY: as the caller guarantees.
    unsafe { vel.store(velocities, wc) };
}

/// Friction at the manifold's centre: two directions limited together to a disc of radius
/// `friction × total normal impulse`, then the twist about the normal.
#[inline(always)]
fn solve_friction(vel: &mut LaneVelocities, wc: &mut WideContact, total_normal: f32x4) {
    let [r1, r2] = wc.friction_rows;
    let old = [r1.impulse, r2.impulse];
    let mut new = [
        old[0] - r1.mass * vel.along(r1.direction, r1.arm_a, r1.arm_b),
        old[1] - r2.mass * vel.along(r2.direction, r2.arm_a, r2.arm_b),
    ];
    let limit = wc.friction * total_normal;
    let len_sq = new[0] * new[0] + new[1] * new[1];
    let outside = len_sq.simd_gt(limit * limit);
    // Lanes inside the disc keep their impulse; `select` never lets the division's value
    // through for them (so a zero length there does no harm).
    let scale = select(outside, limit / len_sq.sqrt(), f32x4::ONE);
    new = [new[0] * scale, new[1] * scale];
    wc.friction_rows[0].impulse = new[0];
    wc.friction_rows[1].impulse = new[1];
    vel.push(wc, r1.direction, r1.spin_a, r1.spin_b, new[0] - old[0]);
    vel.push(wc, r2.direction, r2.spin_a, r2.spin_b, new[1] - old[1]);

    let twist_limit = wc.twist_friction * total_normal;
    let spin = wc.normal.dot(vel.wb - vel.wa);
    let old = wc.twist_impulse;
    let new = (old - wc.twist_mass * spin).fast_max(-twist_limit).fast_min(twist_limit);
    wc.twist_impulse = new;
    vel.wa -= wc.twist_spin_a * (new - old);
    vel.wb += wc.twist_spin_b * (new - old);
}
