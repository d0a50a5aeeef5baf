//! The awake bodies cut through space into one part per thread of a solve on a team: the
//! solver indices go part by part ([`World::index_solver_bodies`]), and the colouring orders
//! each colour's contacts by the parts ([`BodyParts`]), so each member works on a region of
//! the scene of its own in every colour and substep.
//!
//! The cut is along the axis the awake bodies' centres spread most along, where it leaves the
//! same number of bodies on each side. Its axis and range come from the step before (a guide
//! for a histogram of this step's centres, 256 bins across that range), so one pass over the
//! bodies finds both the bins and, for the next step, the extent. Within a part, the bodies
//! near the cut come last ([`near_bins`]). The parts only order the work: the solver's numbers
//! are the same for any parts and any order within them, and on one thread there is one part,
//! in body order, as there always was.

use crate::body::BodyType;
use crate::math::Vec3;
use crate::parallel::{Claims, SharedSlice, run_team};
use crate::solver::{BodyParts, MAX_PARTS};
use crate::team_policy::{BODY_BLOCK, MIN_SOLVER_BODIES_FOR_TEAM, helpers_for};
use crate::world::World;

/// Bins of the histogram along the cut's axis that the parts are cut from.
const BINS: usize = 256;

/// Runs of a part in the solver order: its bodies away from the cut, then those near it
/// ([`near_bins`]).
const PART_RUNS: usize = 2;

/// Runs of every part.
const RUNS: usize = PART_RUNS * MAX_PARTS;

// A bin's run is a byte.
const _: () = assert!(RUNS <= u8::MAX as usize + 1);

/// Most bins on either side of a boundary between parts whose bodies count as near it: an
/// eighth of the bins, so that with the most parts a part is not all near.
const MOST_NEAR_BINS: usize = BINS / MAX_PARTS;

/// Where the awake bodies' centres were at the last split: the axis they spread most along,
/// and the bins across their extent on it.
#[derive(Clone, Copy, Debug)]
struct Guide {
    axis: usize,
    low: f32,
    bins_per_unit: f32,
}

impl Guide {
    /// The bin of a centre at `center`: the range's ends take whatever lies beyond them.
    #[inline]
    fn bin(&self, center: Vec3) -> u8 {
        // A float-to-integer cast saturates: below the range (or NaN) is bin 0.
        (((center[self.axis] - self.low) * self.bins_per_unit) as usize).min(BINS - 1) as u8
    }

    /// The guide for bodies whose centres span `low..=high`.
    fn over(low: Vec3, high: Vec3) -> Guide {
        let extent = high - low;
        let axis = if extent.x >= extent.y && extent.x >= extent.z {
            0
        } else if extent.y >= extent.z {
            1
        } else {
            2
        };
        let bins_per_unit = if extent[axis] > 0.0 { BINS as f32 / extent[axis] } else { 0.0 };
        Guide { axis, low: low[axis], bins_per_unit }
    }
}

/// One block of the awake list in the split: its bodies' bins counted, the box of their
/// centres, and where its bodies of each run go.
#[derive(Clone, Debug)]
struct SplitBlock {
    histogram: [u32; BINS],
    low: Vec3,
    high: Vec3,
    /// The sum of its bodies' bounding radii.
    radii: f32,
    /// Per run (part `p`'s runs are `PART_RUNS * p` and the one after), the place in the
    /// ordered list of this block's first body of that run.
    bases: [u32; RUNS],
}

impl Default for SplitBlock {
    fn default() -> SplitBlock {
        SplitBlock { histogram: [0; BINS], low: Vec3::ZERO, high: Vec3::ZERO, radii: 0.0, bases: [0; RUNS] }
    }
}

/// What one member decides between the two passes: each bin's part and run, and the next
/// guide.
#[derive(Clone, Debug)]
struct SplitPlan {
    part_of_bin: [u8; BINS],
    /// `PART_RUNS * part`, plus one for a bin near a boundary between parts: the runs in
    /// solver order.
    run_of_bin: [u8; BINS],
    guide: Option<Guide>,
}

impl Default for SplitPlan {
    fn default() -> SplitPlan {
        SplitPlan { part_of_bin: [0; BINS], run_of_bin: [0; BINS], guide: None }
    }
}

/// Bins on either side of a boundary between parts whose bodies go last in their part, for
/// bodies of mean bounding radius `mean_radius` binned by `guide` (none: in list order, so no
/// body is near another part by its bin): those within about a radius of the cut, where
/// the centres of most bodies that touch across it lie.
///
/// A contact between two parts is solved by one part's member, so its other body's velocity
/// goes to that member's core and back in every pass, and with it whatever shares its cache
/// line: two solver bodies' velocities share one. With the bodies near the cut last in their
/// part, those lines hold bodies near the cut only, and the body stages meet them together at
/// their blocks' end. The two-thread step took 1.4 % less time on the rain, 1.3 % less on the
/// 3D pyramid and 0.7 % less on the tumbler (paired medians of 8–10 alternating runs of
/// `step_count <scene> 100 150 --threads 2`, 2026-11-29, the Intel Xeon; the tumbler's runs
/// spread from 0.96 to 1.03); a zone of a diameter measured 1.7 % less on the rain but none on
/// the tumbler. Fixed zones on the rain, each paired against the next smaller: 3 bins against
/// 6 measured 0.996, 12 against 6 0.985, 24 against 12 1.008 (a bin is about 5 cm there, and
/// a radius about 9 bins): within the runs' spread of one another.
fn near_bins(guide: Option<Guide>, mean_radius: f32) -> usize {
    let Some(guide) = guide else { return 0 };
    let bins = (mean_radius * guide.bins_per_unit).ceil();
    // A cast saturates: NaN is 0.
    (bins as usize).clamp(1, MOST_NEAR_BINS)
}

/// The parts of this step's solver bodies and what finding them needs, kept between steps so
/// that nothing is allocated again. The plan's guide carries the last step's extent into this
/// one; it only orders the work, so a world restored or copied with another guide (or none)
/// computes the same numbers.
#[derive(Clone, Debug, Default)]
pub(crate) struct SolverParts {
    /// The solver index where each part after the first begins (none: one part).
    starts: Vec<u32>,
    /// The last split's parts of the bins, and its guide for this one (none before the first
    /// split, which cuts the awake list in order).
    plan: SplitPlan,
    /// Per awake body (in body order), its bin.
    bins: Vec<u8>,
    /// Per awake body (in body order), whether the solver moves it.
    movable: Vec<bool>,
    /// Per block of the awake list: its bins' counts, its centres' box and its places.
    blocks: Vec<SplitBlock>,
    /// The awake bodies part by part: the solver's order.
    ordered: Vec<u32>,
    /// A claim word per block of each pass, and the plan's.
    claims: Claims,
}

impl SolverParts {
    /// The parts as the colouring reads them.
    pub fn body_parts(&self) -> BodyParts<'_> {
        BodyParts::new(&self.starts)
    }

    /// One part: every solver body in body order (a solve alone).
    pub fn make_whole(&mut self) {
        self.starts.clear();
    }

    /// Bytes of the arrays a step fills.
    pub fn bytes(&self) -> usize {
        self.bins.len()
            + self.movable.len()
            + self.ordered.len() * 4
            + self.blocks.len() * size_of::<SplitBlock>()
    }
}

/// The blocks of `BODY_BLOCK` bodies in `range` of the awake list (which starts at a block's).
fn body_blocks(range: std::ops::Range<usize>) -> impl Iterator<Item = std::ops::Range<usize>> {
    let end = range.end;
    range.step_by(BODY_BLOCK).map(move |start| start..(start + BODY_BLOCK).min(end))
}

/// Chooses each bin's part so that the `parts` parts hold as equal numbers of the `count`
/// bodies as whole bins allow, from the blocks' histograms; then each bin's run (a part's
/// bodies near another part after the rest), where each block's bodies of each run go, each
/// part's first solver index (`starts`, after the first part's), and the next step's guide.
fn cut(blocks: &mut [SplitBlock], plan: &mut SplitPlan, starts: &mut Vec<u32>, count: usize, parts: usize) {
    let mut totals = [0u32; BINS];
    let (mut low, mut high) = (Vec3::splat(f32::MAX), Vec3::splat(f32::MIN));
    for block in blocks.iter() {
        totals.iter_mut().zip(&block.histogram).for_each(|(t, h)| *t += h);
        low = low.min(block.low);
        high = high.max(block.high);
    }
    // A part ends at the first bin boundary where the bodies before reach its share.
    let (mut part, mut before) = (0, 0usize);
    for (bin, &total) in totals.iter().enumerate() {
        while part + 1 < parts && before * parts >= count * (part + 1) {
            part += 1;
        }
        plan.part_of_bin[bin] = part as u8;
        before += total as usize;
    }
    // Each boundary between parts lies midway between the last bodies before it and the
    // first after (bins counted twice over, so the middle is whole), and a bin whose middle
    // lies within `near` bins of one goes to its part's last run.
    let radii: f32 = blocks.iter().map(|block| block.radii).sum();
    let near = near_bins(plan.guide, radii / count.max(1) as f32);
    let mut boundaries = [0usize; MAX_PARTS];
    let mut boundary_count = 0;
    if near > 0 {
        // The parts' bins ascend: a boundary is where the part changes between one occupied
        // bin and the next.
        let mut occupied = (0..BINS).filter(|&bin| totals[bin] > 0);
        if let Some(mut last) = occupied.next() {
            for bin in occupied {
                if plan.part_of_bin[bin] != plan.part_of_bin[last] {
                    boundaries[boundary_count] = last + 1 + bin;
                    boundary_count += 1;
                }
                last = bin;
            }
        }
    }
    for bin in 0..BINS {
        let middle = 2 * bin + 1;
        let by_boundary = boundaries[..boundary_count].iter().any(|&b| middle.abs_diff(b) <= 2 * near);
        plan.run_of_bin[bin] = PART_RUNS as u8 * plan.part_of_bin[bin] + u8::from(by_boundary);
    }
    // Each block's bodies of a run follow those of the blocks before.
    let mut running = [0u32; RUNS];
    for block in blocks.iter_mut() {
        let mut counts = [0u32; RUNS];
        for (bin, &n) in block.histogram.iter().enumerate() {
            counts[usize::from(plan.run_of_bin[bin])] += n;
        }
        block.bases = running;
        running.iter_mut().zip(&counts).for_each(|(r, c)| *r += c);
    }
    // And run `r` begins where the runs before end.
    let mut firsts = [0u32; RUNS];
    for r in 1..PART_RUNS * parts {
        firsts[r] = firsts[r - 1] + running[r - 1];
    }
    for block in blocks.iter_mut() {
        block.bases.iter_mut().zip(&firsts).for_each(|(b, f)| *b += f);
    }
    starts.clear();
    // Solver index `k + 1` is place `k` of the ordered list; a part begins with its first run.
    starts.extend((1..parts).map(|p| firsts[PART_RUNS * p] + 1));
    plan.guide = (count > 0).then(|| Guide::over(low, high));
}

impl World {
    /// Each awake body's solver index, and whether the solver moves it: all that the list of
    /// touching contacts and the colourings need of the bodies. For a team, whose gather runs
    /// beside the contacts' colouring ([`World::gather_solver_bodies`]).
    ///
    /// The solver indices go part by part, a part per thread ([`SolverParts`]), and the awake
    /// list is reordered to match (solver index `k + 1` stays awake body `k`). In three
    /// stages the world's threads share: each block of the awake list finds its bodies' bins
    /// and counts them; one member cuts the histogram into parts; each block puts its bodies
    /// in their places.
    pub(super) fn index_solver_bodies(&mut self) {
        let helpers = helpers_for(&self.threads, self.scratch.solve.awake.len(), MIN_SOLVER_BODIES_FOR_TEAM);
        let parts = helpers.map_or(1, |pool| pool.current_num_threads() + 1).min(MAX_PARTS);
        let scratch = &mut self.scratch;
        let SolverParts { starts, plan, bins, movable, blocks: split_blocks, ordered, claims } =
            &mut scratch.solve.solver_parts;
        let count = scratch.solve.awake.len();
        let blocks = count.div_ceil(BODY_BLOCK);
        bins.resize(count, 0);
        movable.resize(count, false);
        ordered.resize(count, 0);
        split_blocks.resize_with(blocks, SplitBlock::default);
        claims.reset(2 * blocks + 1);
        let guide = plan.guide;
        let (first_pass, rest) = claims.words().split_at(blocks);
        let (plan_claim, last_pass) = rest.split_first().expect("a claim word for the plan");
        let (awake, bodies) = (&scratch.solve.awake, &self.bodies.bodies);
        let (bins, movable) = (SharedSlice::new(bins), SharedSlice::new(movable));
        let (split_blocks, ordered) = (SharedSlice::new(split_blocks), SharedSlice::new(ordered));
        let plan = SharedSlice::new(std::slice::from_mut(plan));
        let starts = SharedSlice::new(std::slice::from_mut(starts));
        let solver_index = SharedSlice::new(&mut scratch.solve.solver_index);
        let solver_movable = SharedSlice::new(&mut scratch.solve.movable);
        run_team(helpers, |team| {
            // A team's blocks are `BODY_BLOCK` long; alone, the whole list comes as one, which
            // is cut the same way, since each `SplitBlock` counts one such block.
            team.for_blocks(count, BODY_BLOCK, first_pass, |range| {
                for block in body_blocks(range) {
                    let j = block.start / BODY_BLOCK;
                    // SAFETY: in this stage each block writes its own entries of the bins and
                    // flags, and its own `SplitBlock`.
                    let (bins, movable, out) = unsafe {
                        (
                            bins.slice_mut(block.clone()),
                            movable.slice_mut(block.clone()),
                            &mut split_blocks.slice_mut(j..j + 1)[0],
                        )
                    };
                    *out = SplitBlock {
                        low: Vec3::splat(f32::MAX),
                        high: Vec3::splat(f32::MIN),
                        ..SplitBlock::default()
                    };
                    for k in block.clone() {
                        let b = &bodies[awake[k] as usize];
                        let center = b.center();
                        out.low = out.low.min(center);
                        out.high = out.high.max(center);
                        out.radii += b.bounding_radius;
                        // Before the first split, the awake list's own order cut in parts.
                        let bin = guide.map_or((k * BINS / count) as u8, |g| g.bin(center));
                        out.histogram[usize::from(bin)] += 1;
                        bins[k - block.start] = bin;
                        // What `solver_body` gives an inverse mass.
                        movable[k - block.start] = b.body_type == BodyType::Dynamic && b.inv_mass > 0.0;
                    }
                }
            });
            team.once(plan_claim, || {
                // SAFETY: one member runs this stage, after every block of the first.
                unsafe {
                    cut(
                        split_blocks.slice_mut(0..blocks),
                        &mut plan.slice_mut(0..1)[0],
                        &mut starts.slice_mut(0..1)[0],
                        count,
                        parts,
                    );
                }
            });
            team.for_blocks(count, BODY_BLOCK, last_pass, |range| {
                // SAFETY: the bins, flags, blocks and plan are only read in this stage.
                let (bins, movable, split_blocks, plan) = unsafe {
                    (bins.as_slice(), movable.as_slice(), split_blocks.as_slice(), &plan.as_slice()[0])
                };
                for block in body_blocks(range) {
                    let mut next = split_blocks[block.start / BODY_BLOCK].bases;
                    for k in block {
                        let run = usize::from(plan.run_of_bin[usize::from(bins[k])]);
                        let place = next[run] as usize;
                        next[run] += 1;
                        // The places are the plan's sums, and the writes below unchecked.
                        assert!(place < count, "place {place} of {count} awake bodies");
                        let body = awake[k];
                        // SAFETY: the plan gives each block's bodies of each run places of their
                        // own (the blocks before hold the places before), so each place of the
                        // ordered list, and the flag of its solver index, is written by one block;
                        // the awake list holds each body once, so its solver index is written
                        // once. The index array has an entry per body slot, the flags one per
                        // awake body after the fixed one.
                        unsafe {
                            ordered.write(place, body);
                            solver_index.write(body as usize, place as u32 + 1);
                            solver_movable.write(place + 1, movable[k]);
                        }
                    }
                }
            });
        });
        std::mem::swap(&mut scratch.solve.awake, &mut scratch.solve.solver_parts.ordered);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::body::BodyDesc;
    use crate::shape::Shape;
    use crate::world::StepSettings;

    /// 2000 balls falling freely from a grid 100 columns long in x (2 m apart) and 20 deep
    /// in z (1 m apart): nothing touches, and x never changes.
    fn falling_grid(threads: usize) -> World {
        falling_grid_of(threads, 0.25, 1.0)
    }

    /// [`falling_grid`] of balls of radius `radius`, its rows `row_spacing` apart in z. The
    /// boxes' margin is 0.2 m, so balls of radius 0.9 m, 2 m apart in x, have contacts with
    /// their neighbours (their boxes overlap by 0.2 m) without touching them (0.2 m apart).
    fn falling_grid_of(threads: usize, radius: f32, row_spacing: f32) -> World {
        let settings = StepSettings { aabb_margin: 0.2, ..StepSettings::default() };
        let mut world = World::new(settings).expect("valid settings");
        world.set_thread_count(threads).expect("a thread count");
        for i in 0..100 {
            for j in 0..20 {
                let position = Vec3::new(2.0 * i as f32, 10.0, row_spacing * j as f32);
                let ball = Shape::sphere(radius).expect("a ball");
                world.create_body(&BodyDesc::dynamic(ball, position)).expect("a ball body");
            }
        }
        world
    }

    /// Each part's solver bodies, by their `x`.
    fn xs_by_part(world: &World) -> Vec<Vec<f32>> {
        let (awake, starts) = (&world.scratch.solve.awake, &world.scratch.solve.solver_parts.starts);
        let mut bounds: Vec<usize> = vec![0];
        bounds.extend(starts.iter().map(|&s| s as usize - 1));
        bounds.push(awake.len());
        bounds
            .windows(2)
            .map(|w| awake[w[0]..w[1]].iter().map(|&b| world.bodies.bodies[b as usize].center().x).collect())
            .collect()
    }

    /// Where each cut between neighbouring parts (their `x`, as [`xs_by_part`] gives them)
    /// lies: midway between the last body of one and the first of the next. Asserts that
    /// the parts do not overlap.
    fn cuts(parts: &[Vec<f32>]) -> Vec<f32> {
        parts
            .windows(2)
            .map(|pair| {
                let last = pair[0].iter().copied().fold(f32::MIN, f32::max);
                let first = pair[1].iter().copied().fold(f32::MAX, f32::min);
                assert!(last < first, "a part reaches {last}, the next starts at {first}");
                (last + first) / 2.0
            })
            .collect()
    }

    #[test]
    fn a_team_cuts_the_bodies_into_equal_parts_along_their_widest_spread() {
        for threads in [2, 3] {
            // Balls of radius 0.9 m: each one's box overlaps its neighbours' in x (1980
            // contacts, enough for the solve's preparation on a team to cut the parts), and
            // none touches.
            let mut world = falling_grid_of(threads, 0.9, 3.0);
            // The first step cuts the awake list; the second, guided by the first, cuts space.
            world.step();
            world.step();
            let parts = xs_by_part(&world);
            assert_eq!(parts.len(), threads);
            // Whole columns of 20: the parts of 2 threads are 50 columns each, of 3, 34, 33
            // and 33 (a part ends at the first column boundary reaching its share).
            let sizes: Vec<usize> = parts.iter().map(Vec::len).collect();
            let want: &[usize] = if threads == 2 { &[1000, 1000] } else { &[680, 660, 660] };
            assert_eq!(sizes, want, "{threads} threads");
            assert_eq!(cuts(&parts).len(), threads - 1);
        }
    }

    #[test]
    fn the_bodies_near_the_cut_come_last_in_their_part() {
        // Balls of radius 0.9 m, 2 m apart in x (the cut's axis) and 3 m in z: the columns
        // on either side of a cut lie 1 m from it, inside the near zone of ceil(0.9 × 1.29)
        // = 2 bins (256 bins over 198 m, about 1.55 m), and the next columns, 3 m away,
        // outside it. A part's bodies within a metre of a cut come last.
        let radius = 0.9;
        for threads in [2, 3] {
            let mut world = falling_grid_of(threads, radius, 3.0);
            world.step();
            world.step();
            let parts = xs_by_part(&world);
            assert_eq!(parts.len(), threads);
            let cuts = cuts(&parts);
            let from_cut = |x: f32| cuts.iter().map(|c| (x - c).abs()).fold(f32::MAX, f32::min);
            for (p, xs) in parts.iter().enumerate() {
                let near = |x: f32| from_cut(x) <= 1.0;
                let tail_start = xs.iter().position(|&x| near(x)).expect("a column next to a cut");
                let tail = &xs[tail_start..];
                assert!(xs[..tail_start].iter().all(|&x| !near(x)), "part {p}: a near body before the tail");
                assert!(
                    tail.iter().all(|&x| from_cut(x) <= 3.0),
                    "{threads} threads, part {p}: tail {tail:?}"
                );
                let columns = if p == 0 || p + 1 == threads { 2 } else { 4 };
                assert!(tail.len() <= 20 * columns, "part {p}: a tail of {} bodies", tail.len());
            }
        }
        // On the first split (no guide: the list's order, not space) no body is near.
        assert_eq!(near_bins(None, radius), 0);
        let guide = Guide { axis: 0, low: 0.0, bins_per_unit: 1.0 };
        assert_eq!(near_bins(Some(guide), 0.2), 1, "at least a bin");
        assert_eq!(near_bins(Some(guide), 1e9), MOST_NEAR_BINS);
        assert_eq!(near_bins(Some(guide), f32::NAN), 1);
    }

    #[test]
    fn a_solve_of_few_constraints_keeps_one_part_on_a_team() {
        // 2000 balls 2 m apart and 0.5 m wide: not a contact between them, so the solve,
        // bodies alone, is prepared and run on the caller's thread.
        let mut world = falling_grid(2);
        world.step();
        world.step();
        assert!(world.scratch.solve.solver_parts.starts.is_empty());
        assert!(world.scratch.solve.awake.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn alone_the_solver_keeps_one_part_in_body_order() {
        let mut world = falling_grid(1);
        world.step();
        assert!(world.scratch.solve.solver_parts.starts.is_empty());
        assert!(world.scratch.solve.awake.windows(2).all(|w| w[0] < w[1]));
    }
}
