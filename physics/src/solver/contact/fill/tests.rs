//! The batch fill against the scalar preparation of one lane at a time (what the solver ran
//! before the fill was four-wide), bit for bit, on random contacts, bodies and empty lanes, in
//! either half of a pair; and, on batches so filled, what a relax pass leaves for the next
//! substep's warm start.

use super::{LaneBody, LaneInput, empty_contact, empty_lane, fill_batch};
use crate::math::{Mat3, Quat, Vec3, orthonormal_basis};
use crate::narrowphase::{Contact, ManifoldPoint, PointImpulse};
use crate::parallel::SharedSlice;
use crate::solver::contact::lanes::{BatchLanes, HalfLanes};
use crate::solver::contact::passes::{Pass, SolvePass, WarmStart};
use crate::solver::contact::{BatchPair, PairBounce};
use crate::solver::simd::{Halves, Vec3Lanes, f32x4};
use crate::solver::{Motion, Softness, SolverBody, Velocity};

/// Empties every lane of half `h` as the scalar fill did before filling them.
fn clear(wc: &mut BatchPair, h: usize) {
    wc.body_a[h] = [0; 4];
    wc.body_b[h] = [0; 4];
    wc.inv_mass_a.set_half(h, f32x4::ZERO);
    wc.inv_mass_b.set_half(h, f32x4::ZERO);
    wc.friction.set_half(h, f32x4::ZERO);
    wc.twist_friction.set_half(h, f32x4::ZERO);
    wc.point_counts[h] = 0;
    for p in &mut wc.points {
        p.mass.set_half(h, f32x4::ZERO);
        p.impulse.set_half(h, f32x4::ZERO);
        p.max_impulse.set_half(h, f32x4::ZERO);
    }
    let f = &mut wc.friction_centre;
    for v in f.mass.iter_mut().chain(&mut f.impulse) {
        v.set_half(h, f32x4::ZERO);
    }
    wc.twist_mass.set_half(h, f32x4::ZERO);
    wc.twist_impulse.set_half(h, f32x4::ZERO);
}

/// Fills lane `k` of half `h` of `wc` and `bounce` with one contact, one scalar lane at a time.
fn prepare_lane(
    wc: &mut BatchPair,
    bounce: &mut PairBounce,
    h: usize,
    k: usize,
    lane: &LaneInput,
    warm_starting: bool,
) {
    let j = 4 * h + k;
    let set = |x: &mut Halves, k: usize, value: f32| x.set_lane(4 * h + k, value);
    let c = lane.contact;
    let (ba, bb) = (lane.a.body, lane.b.body);
    let (ca, cb) = (lane.a.center, lane.b.center);
    let n = c.manifold.normal;
    let (va, wa) = (lane.a.velocity.first(), lane.a.velocity.second());
    let (vb, wb) = (lane.b.velocity.first(), lane.b.velocity.second());
    let velocity = |r_a: Vec3, r_b: Vec3| vb + wb.cross(r_b) - va - wa.cross(r_a);
    let terms = |arm_a: Vec3, arm_b: Vec3| {
        let (spin_a, spin_b) = (ba.inv_inertia * arm_a, bb.inv_inertia * arm_b);
        let k = ba.inv_mass + bb.inv_mass + arm_a.dot(spin_a) + arm_b.dot(spin_b);
        (spin_a, spin_b, if k > 0.0 { 1.0 / k } else { 0.0 })
    };
    wc.body_a[h][k] = lane.a.slot;
    wc.body_b[h][k] = lane.b.slot;
    wc.normal.set_lane(j, n);
    set(&mut wc.inv_mass_a, k, ba.inv_mass);
    set(&mut wc.inv_mass_b, k, bb.inv_mass);
    set(&mut wc.friction, k, c.friction);
    set(&mut bounce.restitution, k, c.restitution);

    let points = c.manifold.points();
    wc.point_counts[h] = wc.point_counts[h].max(points.len());
    let centre = points.iter().map(|p| p.position).sum::<Vec3>() / points.len() as f32;
    let mut twist_radius = 0.0;
    for (i, mp) in points.iter().enumerate() {
        let (r_a, r_b) = (mp.position - ca, mp.position - cb);
        let (arm_a, arm_b) = (r_a.cross(n), r_b.cross(n));
        let (spin_a, spin_b, mass) = terms(arm_a, arm_b);
        let p = &mut wc.points[i];
        set(&mut p.separation, k, mp.separation);
        p.arm_a.set_lane(j, arm_a);
        p.arm_b.set_lane(j, arm_b);
        p.spin_a.set_lane(j, spin_a);
        p.spin_b.set_lane(j, spin_b);
        set(&mut p.mass, k, mass);
        let stored = c.impulses[i].normal;
        set(&mut p.impulse, k, if warm_starting { stored } else { 0.0 });
        set(&mut p.max_impulse, k, 0.0);
        set(&mut bounce.approach[i], k, velocity(r_a, r_b).dot(n));
        let offset = mp.position - centre;
        twist_radius += (offset - n * offset.dot(n)).length();
    }
    set(&mut wc.twist_friction, k, c.friction * twist_radius / points.len() as f32);

    let (r_a, r_b) = (centre - ca, centre - cb);
    let (t1, t2) = orthonormal_basis(n);
    let f = &mut wc.friction_centre;
    f.offset_a.set_lane(j, r_a);
    f.offset_b.set_lane(j, r_b);
    for (row, t) in [t1, t2].into_iter().enumerate() {
        let (arm_a, arm_b) = (r_a.cross(t), r_b.cross(t));
        let (spin_a, spin_b, mass) = terms(arm_a, arm_b);
        f.spin_a[row].set_lane(j, spin_a);
        f.spin_b[row].set_lane(j, spin_b);
        set(&mut f.mass[row], k, mass);
        let stored = if warm_starting { c.friction_impulse.dot(t) } else { 0.0 };
        set(&mut f.impulse[row], k, stored);
    }
    let (spin_a, spin_b) = (ba.inv_inertia * n, bb.inv_inertia * n);
    wc.twist_spin_a.set_lane(j, spin_a);
    wc.twist_spin_b.set_lane(j, spin_b);
    let k_twist = n.dot(spin_a) + n.dot(spin_b);
    set(&mut wc.twist_mass, k, if k_twist > 0.0 { 1.0 / k_twist } else { 0.0 });
    set(&mut wc.twist_impulse, k, if warm_starting { c.twist_impulse } else { 0.0 });
}

/// A small deterministic generator of test values.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in `lo..hi`.
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    fn vec(&mut self, scale: f32) -> Vec3 {
        Vec3::new(self.range(-scale, scale), self.range(-scale, scale), self.range(-scale, scale))
    }

    fn chance(&mut self, p: f32) -> bool {
        self.range(0.0, 1.0) < p
    }
}

/// A body as the solver sees it: fixed, or movable with a rotated diagonal inverse inertia,
/// or (to hold the fill to general matrices) a full one.
fn random_body(rng: &mut Rng) -> SolverBody {
    if rng.chance(0.2) {
        return SolverBody::FIXED;
    }
    let rotation = Mat3::from_quat(Quat::from_scaled_axis(rng.vec(3.0)));
    let diagonal =
        Mat3::from_diagonal(Vec3::new(rng.range(0.1, 5.0), rng.range(0.1, 5.0), rng.range(0.1, 5.0)));
    let inv_inertia = if rng.chance(0.3) {
        Mat3::from_cols(rng.vec(2.0), rng.vec(2.0), rng.vec(2.0))
    } else {
        rotation * diagonal * rotation.transpose()
    };
    SolverBody { inv_mass: rng.range(0.05, 3.0), inv_inertia, ..SolverBody::FIXED }
}

fn random_contact(rng: &mut Rng) -> Contact {
    let mut c = Contact::default();
    c.manifold.normal = rng.vec(1.0).try_normalize().unwrap_or(Vec3::Y);
    if rng.chance(0.3) {
        // The basis's two branches (the sign of z), at their edges: along ±Z, and horizontal
        // with z = +0 or -0 (every normal of a box resting on a box beside it).
        let edges = [Vec3::NEG_Z, Vec3::Z, Vec3::X, Vec3::new(0.6, 0.8, -0.0), Vec3::new(-0.8, 0.0, 0.6)];
        c.manifold.normal = edges[(rng.next() % edges.len() as u64) as usize];
    }
    c.manifold.count = 1 + (rng.next() % 4) as usize;
    for i in 0..4 {
        // Slots past the count hold leftovers, as a manifold that lost points does.
        c.manifold.points[i] =
            ManifoldPoint { position: rng.vec(3.0), separation: rng.range(-0.05, 0.05), feature: i as u32 };
        c.impulses[i] = PointImpulse { normal: rng.range(0.0, 2.0), max_normal: rng.range(0.0, 2.0) };
    }
    c.friction = rng.range(0.0, 1.0);
    c.restitution = if rng.chance(0.5) { 0.0 } else { rng.range(0.0, 1.0) };
    c.friction_impulse = rng.vec(0.5);
    c.twist_impulse = rng.range(-0.1, 0.1);
    c
}

/// A pair whose every number is NaN (and whose bodies are out of range).
fn poisoned() -> BatchPair {
    let nan = Halves([f32x4::splat(f32::NAN); 2]);
    let nan3 = Vec3Lanes { x: nan, y: nan, z: nan };
    let mut wc = BatchPair {
        body_a: [[u32::MAX; 4]; 2],
        body_b: [[u32::MAX; 4]; 2],
        point_counts: [99; 2],
        ..Default::default()
    };
    for v in [&mut wc.normal, &mut wc.twist_spin_a, &mut wc.twist_spin_b] {
        *v = nan3;
    }
    for v in [
        &mut wc.inv_mass_a,
        &mut wc.inv_mass_b,
        &mut wc.friction,
        &mut wc.twist_friction,
        &mut wc.twist_mass,
        &mut wc.twist_impulse,
    ] {
        *v = nan;
    }
    for p in &mut wc.points {
        (p.arm_a, p.arm_b, p.spin_a, p.spin_b) = (nan3, nan3, nan3, nan3);
        (p.separation, p.mass, p.impulse, p.max_impulse) = (nan, nan, nan, nan);
    }
    let f = &mut wc.friction_centre;
    (f.offset_a, f.offset_b, f.spin_a, f.spin_b) = (nan3, nan3, [nan3; 2], [nan3; 2]);
    (f.mass, f.impulse) = ([nan; 2], [nan; 2]);
    wc
}

/// A pair's bounce whose every number is NaN.
fn poisoned_bounce() -> PairBounce {
    let nan = Halves([f32x4::splat(f32::NAN); 2]);
    PairBounce { restitution: nan, approach: [nan; 4] }
}

/// Every number and index of half `h` of `pair`, as bits.
fn half_bits(pair: &BatchPair, h: usize) -> Vec<u32> {
    let mut bits = [pair.body_a[h], pair.body_b[h]].concat();
    bits.push(pair.point_counts[h] as u32);
    let mut add = |v: Halves| bits.extend(v.half(h).to_array().map(f32::to_bits));
    let vec3 = |v: &Vec3Lanes<Halves>| [v.x, v.y, v.z];
    let scalars = [
        pair.inv_mass_a,
        pair.inv_mass_b,
        pair.friction,
        pair.twist_friction,
        pair.twist_mass,
        pair.twist_impulse,
    ];
    let vectors = [vec3(&pair.normal), vec3(&pair.twist_spin_a), vec3(&pair.twist_spin_b)];
    scalars.into_iter().chain(vectors.into_iter().flatten()).for_each(&mut add);
    for p in &pair.points {
        let vectors = [vec3(&p.arm_a), vec3(&p.arm_b), vec3(&p.spin_a), vec3(&p.spin_b)];
        let scalars = [p.separation, p.mass, p.impulse, p.max_impulse];
        scalars.into_iter().chain(vectors.into_iter().flatten()).for_each(&mut add);
    }
    let f = &pair.friction_centre;
    let vectors =
        [&f.offset_a, &f.offset_b, &f.spin_a[0], &f.spin_a[1], &f.spin_b[0], &f.spin_b[1]].map(vec3);
    f.mass.into_iter().chain(f.impulse).chain(vectors.into_iter().flatten()).for_each(&mut add);
    bits
}

/// Every number of half `h` of `bounce`, as bits.
fn bounce_bits(bounce: &PairBounce, h: usize) -> Vec<u32> {
    [bounce.restitution]
        .iter()
        .chain(&bounce.approach)
        .flat_map(|v| v.half(h).to_array().map(f32::to_bits))
        .collect()
}

fn bits(v: Halves, j: usize) -> u32 {
    v.lane(j).to_bits()
}

fn vec_bits(v: &Vec3Lanes<Halves>, j: usize) -> [u32; 3] {
    v.lane(j).to_array().map(f32::to_bits)
}

/// Lane `j` of `got` and `want` hold the same bits.
fn same_lane(got: Halves, want: Halves, j: usize, at: &str) {
    assert_eq!(bits(got, j), bits(want, j), "{at}");
}

/// Lane `j` of `got` and `want` hold the same vector, bit for bit.
fn same_lane3(got: &Vec3Lanes<Halves>, want: &Vec3Lanes<Halves>, j: usize, at: &str) {
    assert_eq!(vec_bits(got, j), vec_bits(want, j), "{at}");
}

/// A batch's random input: eight bodies (each lane its own two, as a colour's lanes share no
/// moving body), with their velocities and centres, four contacts, and which lanes are empty.
struct RandomBatch {
    bodies: Vec<(SolverBody, Velocity, Vec3)>,
    contacts: Vec<Contact>,
    empty: [bool; 4],
    empty_contact: Contact,
}

impl RandomBatch {
    /// A new batch; with `all_empty`, every lane empty.
    fn new(rng: &mut Rng, all_empty: bool) -> RandomBatch {
        let bodies = (0..8)
            .map(|_| (random_body(rng), Velocity::new(rng.vec(4.0), rng.vec(4.0)), rng.vec(3.0)))
            .collect();
        let contacts = (0..4).map(|_| random_contact(rng)).collect();
        let empty = std::array::from_fn(|_| rng.chance(0.2) || all_empty);
        RandomBatch { bodies, contacts, empty, empty_contact: empty_contact() }
    }

    /// The fill's four lane inputs.
    fn lanes(&self) -> [LaneInput<'_>; 4] {
        let side = |slot: usize| LaneBody {
            slot: slot as u32,
            body: &self.bodies[slot].0,
            velocity: self.bodies[slot].1,
            center: self.bodies[slot].2,
        };
        std::array::from_fn(|k| match self.empty[k] {
            true => empty_lane(&self.empty_contact),
            false => LaneInput { contact: &self.contacts[k], a: side(2 * k), b: side(2 * k + 1) },
        })
    }
}

#[test]
fn the_batch_fill_matches_one_lane_at_a_time_bit_for_bit() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..500 {
        // Now and then a batch of empty lanes only, as pads a colour to whole pairs.
        let all_empty = round % 25 == 3;
        let batch = RandomBatch::new(&mut rng, all_empty);
        let (empty, lanes, contacts) = (batch.empty, batch.lanes(), &batch.contacts);
        let warm_starting = round % 3 != 0;
        let h = round % 2;

        let (mut reference, mut reference_bounce) = (poisoned(), poisoned_bounce());
        clear(&mut reference, h);
        reference_bounce.restitution.set_half(h, f32x4::ZERO);
        for (k, lane) in lanes.iter().enumerate().filter(|(k, _)| !empty[*k]) {
            prepare_lane(&mut reference, &mut reference_bounce, h, k, lane, warm_starting);
        }
        // The batch starts from leftovers, here NaN everywhere: a field the fill forgot to
        // write shows.
        let (mut wide, mut bounce) = (poisoned(), poisoned_bounce());
        fill_batch(&mut wide, &mut bounce, h, lanes, warm_starting);

        assert_eq!(wide.point_counts[h], reference.point_counts[h], "round {round}");
        // The other half is left as it was, every bit of it.
        assert_eq!(half_bits(&wide, 1 - h), half_bits(&poisoned(), 1 - h), "round {round}");
        assert_eq!(bounce_bits(&bounce, 1 - h), bounce_bits(&poisoned_bounce(), 1 - h), "round {round}");
        // The friction rows as the passes make them, from the normal and the offsets.
        let rows = HalfLanes::new(&mut wide, h).friction_rows();
        if all_empty {
            assert_eq!(wide.point_counts[h], 0, "round {round}");
        }
        let point_count = wide.point_counts[h];
        for k in 0..4 {
            let at = format!("round {round}, half {h}, lane {k}");
            let j = 4 * h + k;
            if empty[k] {
                assert_eq!((wide.body_a[h][k], wide.body_b[h][k]), (0, 0), "{at}");
                for v in [
                    wide.inv_mass_a,
                    wide.inv_mass_b,
                    wide.friction,
                    bounce.restitution,
                    wide.twist_friction,
                    wide.twist_mass,
                    wide.twist_impulse,
                ] {
                    assert_eq!(v.lane(j), 0.0, "{at}");
                }
                for p in &wide.points[..point_count] {
                    assert_eq!((bits(p.mass, j), bits(p.impulse, j)), (0, 0), "{at}");
                }
                let f = &wide.friction_centre;
                for (mass, impulse) in f.mass.iter().zip(&f.impulse) {
                    assert_eq!((bits(*mass, j), bits(*impulse, j)), (0, 0), "{at}");
                }
                continue;
            }
            let bodies = (wide.body_a[h][k], wide.body_b[h][k]);
            assert_eq!(bodies, (reference.body_a[h][k], reference.body_b[h][k]), "{at}");
            assert_eq!(vec_bits(&wide.normal, j), vec_bits(&reference.normal, j), "{at}");
            for (got, want) in [
                (wide.inv_mass_a, reference.inv_mass_a),
                (wide.inv_mass_b, reference.inv_mass_b),
                (wide.friction, reference.friction),
                (wide.twist_friction, reference.twist_friction),
                (bounce.restitution, reference_bounce.restitution),
                (wide.twist_mass, reference.twist_mass),
                (wide.twist_impulse, reference.twist_impulse),
            ] {
                same_lane(got, want, j, &at);
            }
            for (got, want) in
                [(&wide.twist_spin_a, &reference.twist_spin_a), (&wide.twist_spin_b, &reference.twist_spin_b)]
            {
                same_lane3(got, want, j, &at);
            }
            let count = contacts[k].manifold.count;
            for (i, (got, want)) in wide.points.iter().zip(&reference.points).enumerate().take(point_count) {
                if i >= count {
                    // A missing point of this lane pushes nothing.
                    let inert = (bits(got.mass, j), bits(got.impulse, j), bits(got.max_impulse, j));
                    assert_eq!(inert, (0, 0, 0), "{at}, point {i}");
                    continue;
                }
                // Restitution alone reads the approach speed, in batches where a lane bounces.
                let bounces = (0..4).any(|j| !empty[j] && contacts[j].restitution > 0.0);
                let want_approach = if bounces { reference_bounce.approach[i] } else { Halves::default() };
                for (g, w) in [
                    (got.separation, want.separation),
                    (got.mass, want.mass),
                    (got.impulse, want.impulse),
                    (got.max_impulse, want.max_impulse),
                    (bounce.approach[i], want_approach),
                ] {
                    same_lane(g, w, j, &format!("{at}, point {i}"));
                }
                for (g, w) in [
                    (&got.arm_a, &want.arm_a),
                    (&got.arm_b, &want.arm_b),
                    (&got.spin_a, &want.spin_a),
                    (&got.spin_b, &want.spin_b),
                ] {
                    same_lane3(g, w, j, &format!("{at}, point {i}"));
                }
            }
            let (got, want) = (&wide.friction_centre, &reference.friction_centre);
            same_lane3(&got.offset_a, &want.offset_a, j, &at);
            same_lane3(&got.offset_b, &want.offset_b, j, &at);
            for row in 0..2 {
                same_lane(got.mass[row], want.mass[row], j, &at);
                same_lane(got.impulse[row], want.impulse[row], j, &at);
                same_lane3(&got.spin_a[row], &want.spin_a[row], j, &at);
                same_lane3(&got.spin_b[row], &want.spin_b[row], j, &at);
            }
            // The passes' rows: the scalar basis and arms of this lane's contact, bit for bit.
            let contact = &contacts[k];
            let n = contact.manifold.normal;
            let points = contact.manifold.points();
            let centre = points.iter().map(|p| p.position).sum::<Vec3>() / points.len() as f32;
            let (r_a, r_b) = (centre - batch.bodies[2 * k].2, centre - batch.bodies[2 * k + 1].2);
            let (t1, t2) = orthonormal_basis(n);
            for (i, (row, t)) in rows.iter().zip([t1, t2]).enumerate() {
                let lane =
                    |v: &Vec3Lanes<f32x4>| Vec3::new(v.x.as_array()[k], v.y.as_array()[k], v.z.as_array()[k]);
                let as_bits = |v: Vec3| v.to_array().map(f32::to_bits);
                assert_eq!(as_bits(lane(&row.direction)), as_bits(t), "{at}, direction");
                assert_eq!(as_bits(lane(&row.arm_a)), as_bits(r_a.cross(t)), "{at}, arm a");
                assert_eq!(as_bits(lane(&row.arm_b)), as_bits(r_b.cross(t)), "{at}, arm b");
                // And row `i`'s own spins, mass and impulse.
                assert_eq!(as_bits(lane(&row.spin_a)), vec_bits(&want.spin_a[i], j), "{at}, spin a");
                assert_eq!(as_bits(lane(&row.spin_b)), vec_bits(&want.spin_b[i], j), "{at}, spin b");
                assert_eq!(row.mass.to_array()[k].to_bits(), bits(want.mass[i], j), "{at}, mass");
                assert_eq!(row.impulse.to_array()[k].to_bits(), bits(want.impulse[i], j), "{at}, impulse");
            }
        }
        // Whatever an inert slot holds is finite: it is multiplied by zero, never added as NaN.
        for (p, approach) in wide.points[..point_count].iter().zip(bounce.approach) {
            for v in [p.separation, p.mass, p.impulse, approach] {
                assert!(v.half(h).as_array().iter().all(|x| x.is_finite()), "round {round}");
            }
            for v in [p.arm_a, p.arm_b, p.spin_a, p.spin_b] {
                assert!(v.half(h).to_lanes().iter().all(|x| x.is_finite()), "round {round}");
            }
        }
    }
}

/// A relax pass that leaves the next substep's warm start adds to each moving body's pending
/// velocity exactly what the warm start pass adds to the same velocity, from the impulses the
/// relax ends with: bit for bit, on filled batches of random contacts, bodies (fixed ones
/// among them), velocities, motions, pending sums from other colours and empty lanes. Bodies
/// the batch does not move keep theirs; the relax itself (velocities, impulses) is the same
/// with and without.
#[test]
fn the_relax_leaves_what_the_warm_start_makes_of_its_impulses() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let h_sub = 1.0 / 240.0;
    let (movable, fixed) = (Softness::new(30.0, 10.0, h_sub), Softness::new(60.0, 10.0, h_sub));
    let mut changed = 0;
    for round in 0..300 {
        let batch = RandomBatch::new(&mut rng, false);
        let (bodies, empty) = (&batch.bodies, batch.empty);
        let h = round % 2;
        let (mut pair, mut bounce) = (BatchPair::default(), PairBounce::default());
        fill_batch(&mut pair, &mut bounce, h, batch.lanes(), true);
        if pair.point_counts[h] == 0 {
            continue;
        }
        let mut motions: Vec<Motion> = (0..8).map(|_| Motion::new(rng.vec(0.02), rng.vec(0.02))).collect();
        let motions = SharedSlice::new(&mut motions);
        // What earlier colours left pending (sometimes nothing yet, as the body stage leaves it).
        let earlier: Vec<Velocity> = (0..8)
            .map(|_| if rng.chance(0.3) { Velocity::ZERO } else { Velocity::new(rng.vec(1.0), rng.vec(1.0)) })
            .collect();
        let relax = |pair: &mut BatchPair, pending: Option<&mut Vec<Velocity>>| {
            let mut velocities: Vec<Velocity> = bodies.iter().map(|b| b.1).collect();
            let shared_velocities = SharedSlice::new(&mut velocities);
            let shared_pending = pending.map(|p| SharedSlice::new(p.as_mut_slice()));
            let pass = SolvePass {
                motions: &motions,
                velocities: &shared_velocities,
                inv_h: 1.0 / h_sub,
                max_push_out: -3.0,
                use_bias: false,
                movable,
                fixed,
                pending: shared_pending.as_ref(),
            };
            // SAFETY: one thread; every lane's bodies index the arrays.
            unsafe { pass.run(&mut HalfLanes::new(pair, h)) };
            velocities
        };
        let (mut pair_alone, mut pending) = (pair.clone(), earlier.clone());
        let relaxed = relax(&mut pair, Some(&mut pending));
        let relaxed_alone = relax(&mut pair_alone, None);
        let bits = |v: &Velocity| [v.first, v.second].map(|half| half.map(f32::to_bits));
        for (slot, (with, without)) in relaxed.iter().zip(&relaxed_alone).enumerate() {
            assert_eq!(bits(with), bits(without), "round {round}, body {slot}: the relax's velocity");
        }
        assert_eq!(half_bits(&pair, h), half_bits(&pair_alone, h), "round {round}: the relax's impulses");
        let mut warm_started = earlier.clone();
        {
            let velocities = SharedSlice::new(&mut warm_started);
            // SAFETY: as above.
            unsafe { WarmStart { velocities: &velocities }.run(&mut HalfLanes::new(&mut pair, h)) };
        }
        for (slot, (got, want)) in pending.iter().zip(&warm_started).enumerate() {
            assert_eq!(bits(got), bits(want), "round {round}, body {slot}");
            let moved = !empty[slot / 2] && bodies[slot].0.inv_mass > 0.0;
            if !moved {
                assert_eq!(
                    bits(got),
                    bits(&earlier[slot]),
                    "round {round}: body {slot} is not the batch's to move"
                );
            }
            changed += usize::from(bits(got) != bits(&earlier[slot]));
        }
    }
    assert!(changed > 1000, "the relax left a warm start for only {changed} bodies");
}
