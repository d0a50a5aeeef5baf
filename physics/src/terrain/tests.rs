//! Terrain tests: masks, overlap, kD tree and ray casts against brute force, seams, edits
//! against naive recomputation, determinism, validation.

use super::mask::{EMPTY, SliceMask};
use super::mesher::{MeshField, POSITION_STEPS, QuantizedBox, mesh};
use super::*;
use crate::query::Ray;
use proptest::prelude::*;
use std::collections::BTreeMap;

/// SplitMix64: a small deterministic generator for voxel fields.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn small_settings() -> TerrainSettings {
    TerrainSettings { voxel_size: 0.5, min_chunk: [-1, 0, -1], max_chunk: [1, 2, 1] }
}

/// A 2×2×2-chunk terrain of random voxels; `fill` (0..=255) is the chance of a non-air voxel.
fn random_terrain(seed: u64, fill: u8) -> Terrain {
    let mut rng = Rng(seed);
    Terrain::from_fn(small_settings(), |_| {
        let r = rng.next();
        if (r & 0xff) as u8 >= fill {
            return Voxel::AIR;
        }
        let material = match (r >> 8) % 5 {
            0 => VoxelMaterial::Water,
            1 => VoxelMaterial::Dirt,
            2 => VoxelMaterial::Grass,
            _ => VoxelMaterial::Rock,
        };
        Voxel::canonical(material, (r >> 16) as u8)
    })
    .unwrap()
}

/// A ball of rock (smooth occupancy) centred at `c` (voxel units) with radius `r` voxels.
fn ball(settings: TerrainSettings, c: Vec3, r: f32) -> Terrain {
    Terrain::from_fn(settings, |v| {
        let d = (v.as_vec3() + 0.5 - c).length();
        let occ = ((0.5 + r - d).clamp(0.0, 1.0) * 255.0).round() as u8;
        Voxel::canonical(VoxelMaterial::Rock, occ)
    })
    .unwrap()
}

/// Per voxel: any of the 27 voxels around it passes `test`.
fn naive_mask(t: &Terrain, c: ChunkCoord, test: impl Fn(Voxel) -> bool) -> SliceMask {
    let mut m = EMPTY;
    for i in 0..CHUNK_VOXELS {
        let v = c.origin_voxel() + index_voxel(i);
        let mut any = false;
        for d in 0..27 {
            any |= test(t.voxel(v + IVec3::new(d % 3 - 1, d / 9 - 1, (d / 3) % 3 - 1)));
        }
        if any {
            m[i >> 6] |= 1 << (i & 63);
        }
    }
    m
}

fn bounds_chunks(s: &TerrainSettings) -> Vec<ChunkCoord> {
    let mut out = Vec::new();
    for x in s.min_chunk[0]..s.max_chunk[0] {
        for y in s.min_chunk[1]..s.max_chunk[1] {
            for z in s.min_chunk[2]..s.max_chunk[2] {
                out.push(ChunkCoord::new(x, y, z));
            }
        }
    }
    out
}

fn check_masks(t: &Terrain) {
    for c in bounds_chunks(t.settings()) {
        let solid = naive_mask(t, c, Voxel::is_solid);
        let water = naive_mask(t, c, Voxel::is_water);
        let (ms, mw) = t.mask(c).map_or((EMPTY, EMPTY), |m| (m.solid(), m.water()));
        assert_eq!((ms, mw), (solid, water), "chunk {c:?}");
        assert_eq!(t.mask(c).is_none(), solid == EMPTY && water == EMPTY);
        // The ray walk's hashed index agrees with the maps.
        assert_eq!(t.is_stored(c), t.chunk(c).is_some(), "chunk {c:?}");
        assert_eq!(t.has_solid_bits(c), solid != EMPTY, "chunk {c:?}");
    }
}

fn brute_ray(m: &ChunkMesh, o: Vec3, d: Vec3, max_t: f32) -> Option<f32> {
    (0..m.triangle_count())
        .filter_map(|t| kdtree::ray_triangle(o, d, m.triangle(t), max_t))
        .min_by(|a, b| a.total_cmp(b))
}

/// A kD node as (left_max, right_min, axis, split, right).
type RefNode = (f32, f32, usize, usize, usize);

/// The kD build as first written (boxes folded per node, `Vec` partitions, a full sort for the
/// median): the reference the optimised `KdTree::build` must match node for node. Returns the
/// nodes as (left_max, right_min, axis, split, right) and the leaf order.
fn reference_kd(m: &ChunkMesh) -> (Vec<RefNode>, Vec<u16>) {
    fn split(boxes: &[Aabb], order: &mut [u16], first: usize, depth: u32, nodes: &mut Vec<RefNode>) {
        let n = order.len();
        if n <= kdtree::LEAF_SIZE {
            return;
        }
        let b = order.iter().skip(1).fold(boxes[order[0] as usize], |a, &t| a.union(&boxes[t as usize]));
        let ext = b.max - b.min;
        let axis = if ext.x >= ext.y && ext.x >= ext.z {
            0
        } else if ext.y >= ext.z {
            1
        } else {
            2
        };
        let mid = |t: u16| (boxes[t as usize].min[axis] + boxes[t as usize].max[axis]) * 0.5;
        let mean = order.iter().map(|&t| mid(t)).sum::<f32>() / n as f32;
        let left = order.iter().filter(|&&t| mid(t) < mean).count();
        let at = if depth < 32 && left * 4 >= n && (n - left) * 4 >= n {
            let (l, r): (Vec<u16>, Vec<u16>) = order.iter().partition(|&&t| mid(t) < mean);
            order[..left].copy_from_slice(&l);
            order[left..].copy_from_slice(&r);
            left
        } else {
            order.sort_by(|&a, &b| mid(a).total_cmp(&mid(b)).then(a.cmp(&b)));
            n / 2
        };
        let left_max = order[..at].iter().map(|&t| boxes[t as usize].max[axis]).fold(f32::MIN, f32::max);
        let right_min = order[at..].iter().map(|&t| boxes[t as usize].min[axis]).fold(f32::MAX, f32::min);
        let index = nodes.len();
        nodes.push((left_max, right_min, axis, 0, 0));
        let (lo, hi) = order.split_at_mut(at);
        split(boxes, lo, first, depth + 1, nodes);
        let right = nodes.len();
        split(boxes, hi, first + at, depth + 1, nodes);
        nodes[index] = (left_max, right_min, axis, first + at, right);
    }
    let boxes: Vec<Aabb> = (0..m.triangle_count()).map(|t| m.triangle_aabb(t)).collect();
    let mut order: Vec<u16> = (0..m.triangle_count() as u16).collect();
    let mut nodes = Vec::new();
    split(&boxes, &mut order, 0, 0, &mut nodes);
    (nodes, order)
}

/// Every stored chunk's collision data, built without the cache.
fn all_collisions(t: &Terrain) -> Vec<(ChunkCoord, ChunkCollision)> {
    t.chunks().map(|(c, _)| (c, t.build_chunk_collision(c))).collect()
}

/// The closest hit of a world ray over every chunk's triangles, each in its chunk's frame as
/// `Terrain::cast_ray` moves the ray.
fn brute_world_ray(
    t: &Terrain,
    all: &[(ChunkCoord, ChunkCollision)],
    o: Vec3,
    d: Vec3,
    max_t: f32,
) -> Option<f32> {
    let s = t.voxel_size();
    let mut brute: Option<f32> = None;
    for (c, data) in all {
        let base = t.chunk_origin(*c);
        if let Some(h) = brute_ray(&data.mesh, (o - base) / s, d / s, max_t) {
            brute = Some(brute.map_or(h, |b| b.min(h)));
        }
    }
    brute
}

fn vec3_in(lo: f32, hi: f32) -> impl Strategy<Value = Vec3> {
    (lo..hi, lo..hi, lo..hi).prop_map(|(x, y, z)| Vec3::new(x, y, z))
}

fn dir3() -> impl Strategy<Value = Vec3> {
    vec3_in(-1.0, 1.0).prop_filter("non-zero", |d| d.length() > 1e-3)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    #[test]
    fn masks_equal_naive_dilation(seed in any::<u64>(), fill in 0u8..=255) {
        check_masks(&random_terrain(seed, fill));
    }

    #[test]
    fn overlap_equals_naive(seed in any::<u64>(), fill in 0u8..60, boxes in proptest::collection::vec((vec3_in(-6.0, 10.0), vec3_in(0.0, 4.0)), 16)) {
        let t = random_terrain(seed, fill);
        let s = t.voxel_size();
        let settings = *t.settings();
        for (min, size) in boxes {
            let aabb = Aabb::new(min, min + size);
            let lo = ((aabb.min / s).floor().as_ivec3() - IVec3::ONE).max(settings.min_voxel());
            let hi = ((aabb.max / s).floor().as_ivec3() + IVec3::ONE).min(settings.max_voxel());
            let mut naive = TerrainOverlap::default();
            for x in lo.x..=hi.x {
                for y in lo.y..=hi.y {
                    for z in lo.z..=hi.z {
                        let v = IVec3::new(x, y, z);
                        let near = |test: fn(Voxel) -> bool| (0..27).any(|d| test(t.voxel(v + IVec3::new(d % 3 - 1, d / 9 - 1, (d / 3) % 3 - 1))));
                        naive.solid |= near(Voxel::is_solid);
                        naive.water |= near(Voxel::is_water);
                    }
                }
            }
            prop_assert_eq!(t.overlap_aabb(&aabb).unwrap(), naive, "{:?}", aabb);
        }
    }

    #[test]
    fn quantized_box_tests_agree_with_decoded_boxes(seed in any::<u64>(), fill in 20u8..200, pick in any::<u64>()) {
        // Boxes whose faces lie exactly on a triangle's corner coordinates, one float step to
        // either side, or a hair from zero: the integer test says what comparing the decoded
        // boxes says, where a rounded bound would be off by one step.
        let t = random_terrain(seed, fill);
        let mut rng = Rng(pick);
        for (c, _) in t.chunks() {
            let m = &t.build_chunk_collision(c).mesh;
            if m.triangle_count() == 0 {
                continue;
            }
            for _ in 0..64 {
                let corner = |rng: &mut Rng| {
                    let tri = m.triangle((rng.next() % m.triangle_count() as u64) as usize);
                    tri[(rng.next() % 3) as usize]
                };
                let nudge = |x: f32, r: u64| match r % 5 {
                    0 => x,
                    1 => x.next_up(),
                    2 => x.next_down(),
                    3 => 1e-30,
                    _ => -1e-30,
                };
                let (a, b) = (corner(&mut rng), corner(&mut rng));
                let min = a.min(b).to_array().map(|x| nudge(x, rng.next()));
                let max = a.max(b).to_array().map(|x| nudge(x, rng.next()));
                let aabb = Aabb::new(Vec3::from(min), Vec3::from(max));
                let steps = QuantizedBox::new(&aabb);
                for i in 0..m.triangle_count() {
                    prop_assert_eq!(m.triangle_overlaps(i, &steps), m.triangle_aabb(i).overlaps(&aabb), "{:?} triangle {}", aabb, i);
                }
            }
        }
    }

    #[test]
    fn kd_queries_equal_brute_force(
        seed in any::<u64>(),
        fill in 20u8..200,
        boxes in proptest::collection::vec((vec3_in(-2.0, 10.0), vec3_in(0.0, 5.0)), 12),
        rays in proptest::collection::vec((vec3_in(-3.0, 11.0), dir3(), 0.0f32..30.0), 24),
    ) {
        let t = random_terrain(seed, fill);
        for (c, _) in t.chunks() {
            let data = t.build_chunk_collision(c);
            let m = &data.mesh;
            for &(min, size) in &boxes {
                let aabb = Aabb::new(min, min + size);
                let mut fast = Vec::new();
                data.tree.query_aabb(m, &aabb, |i| fast.push(i));
                // In leaf order, which is ascending: no sort.
                let brute: Vec<usize> = (0..m.triangle_count()).filter(|&i| m.triangle_aabb(i).overlaps(&aabb)).collect();
                prop_assert_eq!(fast, brute);
            }
            for &(o, d, max_t) in &rays {
                let fast = data.tree.cast_ray(m, o, d, max_t).map(|h| h.0);
                prop_assert_eq!(fast, brute_ray(m, o, d, max_t), "ray {} {} {}", o, d, max_t);
            }
        }
    }

    #[test]
    fn kd_build_equals_reference(seed in any::<u64>(), fill in 20u8..255) {
        let t = random_terrain(seed, fill);
        for (c, _) in t.chunks() {
            let raw = mesh(&t.neighbourhood(c), MeshField::Solid, None);
            let (nodes, order) = reference_kd(&raw);
            let data = t.build_chunk_collision(c);
            let got: Vec<_> = data.tree.nodes().iter().map(|n| (n.left_max, n.right_min, n.axis(), n.split(), n.right())).collect();
            prop_assert_eq!(got, nodes);
            let reordered: Vec<_> = order.iter().map(|&i| raw.triangle_indices(i as usize)).collect();
            let built: Vec<_> = (0..data.mesh.triangle_count()).map(|i| data.mesh.triangle_indices(i)).collect();
            prop_assert_eq!(built, reordered);
        }
    }

    #[test]
    fn world_ray_equals_brute_force(
        seed in any::<u64>(),
        fill in 10u8..120,
        rays in proptest::collection::vec((vec3_in(-6.0, 10.0), dir3(), 0.0f32..40.0), 16),
    ) {
        let t = random_terrain(seed, fill);
        let all = all_collisions(&t);
        for (o, d, max_t) in rays {
            let hit = t.cast_ray(&Ray::new(o, d, max_t).unwrap());
            prop_assert_eq!(hit.map(|h| h.t), brute_world_ray(&t, &all, o, d, max_t), "ray {} {} {}", o, d, max_t);
        }
    }

    /// Rays along and across chunk borders, axis-aligned or diagonal: where the walk decides
    /// which neighbours to test, and where a direction component is zero.
    #[test]
    fn world_ray_along_chunk_borders_equals_brute_force(
        seed in any::<u64>(),
        fill in 10u8..120,
        rays in proptest::collection::vec(((-2i32..=2, -1i32..=3, -2i32..=2), (0usize..7, 0usize..7, 0usize..7), 0usize..26, 0.0f32..40.0), 24),
    ) {
        let t = random_terrain(seed, fill);
        let all = all_collisions(&t);
        // Chunk edge 4 m, voxel 0.5 m; offsets on the border, a hair off it, within the half
        // voxel a chunk's triangles spill past it, and a voxel off it.
        let offsets = [0.0, 1e-4, -1e-4, 0.2, -0.2, 0.5, -0.5];
        for ((x, y, z), (ox, oy, oz), dir, max_t) in rays {
            let o = Vec3::new(x as f32 * 4.0 + offsets[ox], y as f32 * 4.0 + offsets[oy], z as f32 * 4.0 + offsets[oz]);
            let k = if dir >= 13 { dir as i32 + 1 } else { dir as i32 };
            let d = IVec3::new(k / 9 - 1, k / 3 % 3 - 1, k % 3 - 1).as_vec3();
            let hit = t.cast_ray(&Ray::new(o, d, max_t).unwrap());
            prop_assert_eq!(hit.map(|h| h.t), brute_world_ray(&t, &all, o, d, max_t), "ray {} {} {}", o, d, max_t);
        }
    }

    #[test]
    fn dilated_mask_covers_every_triangle(seed in any::<u64>(), fill in 10u8..200) {
        let t = random_terrain(seed, fill);
        let s = t.voxel_size();
        for (c, _) in t.chunks() {
            let data = t.build_chunk_collision(c);
            let base = t.chunk_origin(c);
            for i in 0..data.mesh.triangle_count() {
                let [a, b, cc] = data.mesh.triangle(i);
                for p in [a, b, cc, (a + b + cc) / 3.0] {
                    // The voxel holding the point, in world voxel coordinates.
                    let v = ((base + p * s) / s).floor().as_ivec3();
                    let owner = ChunkCoord::of_voxel(v);
                    let bit = voxel_index(v & 7);
                    let m = t.mask(owner).map_or(EMPTY, |m| m.solid());
                    prop_assert!(m[bit >> 6] >> (bit & 63) & 1 == 1, "triangle {} of {:?} at {}", i, c, p);
                }
            }
        }
    }

    #[test]
    fn edits_report_exactly_the_affected_chunks(
        seed in any::<u64>(),
        fill in 0u8..160,
        center in vec3_in(-3.9, 3.9),
        radius in 0.2f32..2.5,
        strength in 0.05f32..1.0,
        mode in 0usize..6,
        box_size in (0i32..5, 0i32..5, 0i32..5),
    ) {
        let mut t = random_terrain(seed, fill);
        let center = center + Vec3::new(0.0, 4.0, 0.0);
        let before = t.clone();
        let edit = if mode == 5 {
            // A box fill at the brush centre, clipped to the bounds.
            let settings = *t.settings();
            let min = t.voxel_at(center);
            let max = (min + IVec3::new(box_size.0, box_size.1, box_size.2)).min(settings.max_voxel());
            Edit::FillBox { min, max, voxel: Voxel::new(VoxelMaterial::Grass, (seed >> 8) as u8).unwrap_or(Voxel::AIR) }
        } else {
            let mode = [BrushMode::Add, BrushMode::Remove, BrushMode::Smooth, BrushMode::Paint, BrushMode::FillWater][mode];
            Edit::Sphere(SphereBrush { center, radius, strength, mode, material: VoxelMaterial::Sand })
        };
        let report = t.edit(&edit).unwrap();
        let settings = *t.settings();
        let (lo, hi) = (settings.min_voxel(), settings.max_voxel());
        let mut changed = 0;
        let mut expected = std::collections::BTreeSet::new();
        for x in lo.x..=hi.x {
            for y in lo.y..=hi.y {
                for z in lo.z..=hi.z {
                    let v = IVec3::new(x, y, z);
                    if t.voxel(v) != before.voxel(v) {
                        changed += 1;
                        for d in 0..27 {
                            let c = ChunkCoord::of_voxel(v + IVec3::new(d % 3 - 1, d / 9 - 1, (d / 3) % 3 - 1));
                            if settings.contains_chunk(c) {
                                expected.insert(c);
                            }
                        }
                    }
                }
            }
        }
        prop_assert_eq!(report.changed_voxels, changed);
        prop_assert_eq!(&report.chunks, &expected.iter().copied().collect::<Vec<_>>());
        check_masks(&t);
        for c in bounds_chunks(&settings) {
            let differs = t.mask(c) != before.mask(c)
                || mesh(&t.neighbourhood(c), MeshField::Solid, None) != mesh(&before.neighbourhood(c), MeshField::Solid, None)
                || mesh(&t.neighbourhood(c), MeshField::Water, None) != mesh(&before.neighbourhood(c), MeshField::Water, None);
            prop_assert!(!differs || expected.contains(&c), "{:?} changed but was not reported", c);
        }
        // No all-air chunk is stored.
        prop_assert!(t.chunks().all(|(_, k)| !k.is_empty()));
    }

    #[test]
    fn rle_round_trips(seed in any::<u64>(), fill in 0u8..=255) {
        let t = random_terrain(seed, fill);
        for (_, chunk) in t.chunks() {
            prop_assert_eq!(&rle::decode(&rle::encode(chunk)).unwrap(), chunk);
        }
    }
}

/// How often each directed edge (global quantised endpoints) is used.
type EdgeCounts = BTreeMap<([i64; 3], [i64; 3]), usize>;

/// Edges of the union of all chunk meshes, keyed by global quantised vertex positions.
fn global_edges(t: &Terrain) -> (EdgeCounts, usize) {
    let mut directed = BTreeMap::new();
    let mut triangles = 0;
    for (c, _) in t.chunks() {
        let data = t.build_chunk_collision(c);
        let m = &data.mesh;
        let o = c.origin_voxel().as_i64vec3() * POSITION_STEPS as i64;
        let key = |i: u16| {
            let q = m.quantized_positions()[i as usize];
            [o.x + q[0] as i64, o.y + q[1] as i64, o.z + q[2] as i64]
        };
        for tri in (0..m.triangle_count()).map(|t| m.triangle_indices(t)) {
            triangles += 1;
            for k in 0..3 {
                *directed.entry((key(tri[k]), key(tri[(k + 1) % 3]))).or_insert(0) += 1;
            }
        }
    }
    (directed, triangles)
}

#[test]
fn meshes_are_watertight_across_seams() {
    // Balls centred on chunk corners and edges, so their surfaces cross several seams.
    let settings = TerrainSettings { voxel_size: 0.25, min_chunk: [-2, -2, -2], max_chunk: [2, 2, 2] };
    for (c, r) in [(Vec3::ZERO, 5.3), (Vec3::new(8.0, 0.5, -8.0), 6.7), (Vec3::new(3.0, -7.9, 0.2), 4.1)] {
        let t = ball(settings, c, r);
        let (directed, triangles) = global_edges(&t);
        assert!(triangles > 100);
        for (&(a, b), &n) in &directed {
            // Each edge is used once in each direction: two triangles, consistently wound.
            assert_eq!(n, 1, "edge {a:?} -> {b:?} used {n} times");
            assert_eq!(directed.get(&(b, a)), Some(&1), "edge {a:?} -> {b:?} has no twin");
        }
    }
}

#[test]
fn ray_hits_a_ball_on_its_sphere() {
    let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [-2, -2, -2], max_chunk: [2, 2, 2] };
    let t = ball(settings, Vec3::ZERO, 6.0);
    let hit = t.cast_ray(&Ray::new(Vec3::new(-10.0, 0.1, 0.2), Vec3::X, 100.0).unwrap()).unwrap();
    // Radius 6 voxels of 0.5 m: the surface is 3 m from the centre.
    assert!((hit.point.x + 3.0).abs() < 0.1, "{hit:?}");
    assert!(hit.normal.x < -0.9);
    assert_eq!(hit.material, VoxelMaterial::Rock);
    assert!(t.cast_ray(&Ray::new(Vec3::new(-10.0, 5.0, 0.0), Vec3::X, 100.0).unwrap()).is_none());
    assert!(t.cast_ray(&Ray::new(Vec3::new(-10.0, 0.0, 0.0), Vec3::X, 5.0).unwrap()).is_none());
    assert!(Ray::new(Vec3::ZERO, Vec3::ZERO, 1.0).is_err());
    assert!(Ray::new(Vec3::NAN, Vec3::X, 1.0).is_err());
}

#[test]
fn same_edits_give_identical_terrain() {
    let edits = [
        Edit::FillBox {
            min: IVec3::new(-8, 0, -8),
            max: IVec3::new(7, 3, 7),
            voxel: Voxel::new(VoxelMaterial::Dirt, 255).unwrap(),
        },
        Edit::Sphere(SphereBrush {
            center: Vec3::new(0.3, 2.0, 0.1),
            radius: 1.7,
            strength: 0.6,
            mode: BrushMode::Add,
            material: VoxelMaterial::Rock,
        }),
        Edit::Sphere(SphereBrush {
            center: Vec3::new(-1.0, 1.5, 0.4),
            radius: 1.2,
            strength: 0.8,
            mode: BrushMode::Remove,
            material: VoxelMaterial::Rock,
        }),
        Edit::Sphere(SphereBrush {
            center: Vec3::new(-1.0, 1.5, 0.4),
            radius: 1.5,
            strength: 1.0,
            mode: BrushMode::FillWater,
            material: VoxelMaterial::Rock,
        }),
        Edit::Sphere(SphereBrush {
            center: Vec3::new(0.5, 2.0, 0.0),
            radius: 2.0,
            strength: 0.5,
            mode: BrushMode::Smooth,
            material: VoxelMaterial::Rock,
        }),
        Edit::Sphere(SphereBrush {
            center: Vec3::new(0.5, 2.0, 0.0),
            radius: 1.0,
            strength: 1.0,
            mode: BrushMode::Paint,
            material: VoxelMaterial::Grass,
        }),
    ];
    let run = || {
        let mut t = Terrain::new(small_settings()).unwrap();
        let reports: Vec<_> = edits.iter().map(|e| t.edit(e).unwrap()).collect();
        (t, reports)
    };
    let (a, ra) = run();
    let (b, rb) = run();
    assert_eq!(a, b);
    assert_eq!(ra, rb);
    assert!(ra.iter().all(|r| r.changed_voxels > 0), "{ra:?}");
    for (c, _) in a.chunks() {
        assert_eq!(a.build_chunk_collision(c), b.build_chunk_collision(c));
        assert_eq!(a.render_mesh(c, MeshField::Water), b.render_mesh(c, MeshField::Water));
    }
    assert!(a.chunks().any(|(_, k)| k.voxels().iter().any(|v| v.material == VoxelMaterial::Water)));
    assert!(a.chunks().any(|(_, k)| k.voxels().iter().any(|v| v.material == VoxelMaterial::Grass)));
}

#[test]
fn invalid_settings_and_edits_are_rejected() {
    for s in [
        TerrainSettings { voxel_size: f32::NAN, ..small_settings() },
        TerrainSettings { voxel_size: 0.0, ..small_settings() },
        TerrainSettings { voxel_size: -1.0, ..small_settings() },
        TerrainSettings { voxel_size: f32::INFINITY, ..small_settings() },
        TerrainSettings { min_chunk: [0, 0, 0], max_chunk: [0, 1, 1], ..small_settings() },
        TerrainSettings { min_chunk: [0, 0, 0], max_chunk: [2000, 1, 1], ..small_settings() },
    ] {
        assert!(Terrain::new(s).is_err(), "{s:?}");
    }
    let mut t = Terrain::new(small_settings()).unwrap();
    let good = SphereBrush {
        center: Vec3::new(0.0, 2.0, 0.0),
        radius: 1.0,
        strength: 1.0,
        mode: BrushMode::Add,
        material: VoxelMaterial::Rock,
    };
    for b in [
        SphereBrush { center: Vec3::new(f32::NAN, 0.0, 0.0), ..good },
        SphereBrush { radius: 0.0, ..good },
        SphereBrush { radius: f32::INFINITY, ..good },
        SphereBrush { radius: 100.0, ..good },
        SphereBrush { strength: 1.5, ..good },
        SphereBrush { strength: f32::NAN, ..good },
        SphereBrush { material: VoxelMaterial::Water, ..good },
    ] {
        assert!(matches!(t.edit(&Edit::Sphere(b)), Err(AtollError::InvalidInput { .. })), "{b:?}");
    }
    let out = SphereBrush { center: Vec3::new(0.0, -1.0, 0.0), ..good };
    assert!(matches!(t.edit(&Edit::Sphere(out)), Err(AtollError::OutOfTerrainBounds { .. })));
    let rock = Voxel::new(VoxelMaterial::Rock, 255).unwrap();
    let outside = Edit::FillBox { min: IVec3::new(0, 0, 0), max: IVec3::new(8, 3, 8), voxel: rock };
    assert!(matches!(t.edit(&outside), Err(AtollError::OutOfTerrainBounds { .. })));
    let bad = Edit::FillBox {
        min: IVec3::ZERO,
        max: IVec3::ONE,
        voxel: Voxel { material: VoxelMaterial::Rock, occupancy: 0 },
    };
    assert!(t.edit(&bad).is_err());
    assert!(Voxel::new(VoxelMaterial::Air, 3).is_err());
    assert_eq!(t, Terrain::new(small_settings()).unwrap(), "failed edits change nothing");
    // A brush near the bounds is clipped to them.
    let edge = SphereBrush { center: Vec3::new(3.9, 0.1, 3.9), radius: 2.0, ..good };
    assert!(t.edit(&Edit::Sphere(edge)).unwrap().changed_voxels > 0);
}

#[test]
fn chunk_classes_and_dropping() {
    let settings = TerrainSettings { voxel_size: 1.0, min_chunk: [0, 0, 0], max_chunk: [4, 1, 1] };
    let rock = Voxel::new(VoxelMaterial::Rock, 255).unwrap();
    let water = Voxel::new(VoxelMaterial::Water, 255).unwrap();
    let mut t = Terrain::new(settings).unwrap();
    t.edit(&Edit::FillBox { min: IVec3::ZERO, max: IVec3::splat(7), voxel: rock }).unwrap();
    t.edit(&Edit::FillBox { min: IVec3::new(24, 0, 0), max: IVec3::new(31, 7, 7), voxel: water }).unwrap();
    assert_eq!(t.mask(ChunkCoord::new(0, 0, 0)), Some(&ChunkMask::Solid));
    assert_eq!(t.mask(ChunkCoord::new(3, 0, 0)), Some(&ChunkMask::Water));
    // The air chunk beside the rock gets the spill of one voxel; the one beyond it none.
    assert!(matches!(t.mask(ChunkCoord::new(1, 0, 0)), Some(ChunkMask::Mixed { .. })));
    assert_eq!(t.chunk_count(), 2);
    let stats = t.stats();
    assert_eq!((stats.solid_chunks, stats.water_chunks, stats.mixed_chunks), (1, 1, 2));
    assert_eq!(stats.mask_bytes, 256);
    // Removing everything drops the chunks and their masks.
    t.edit(&Edit::FillBox { min: IVec3::ZERO, max: IVec3::new(31, 7, 7), voxel: Voxel::AIR }).unwrap();
    assert_eq!(t.chunk_count(), 0);
    assert_eq!(t.masks().count(), 0);
}

#[test]
fn cache_builds_lazily_evicts_and_invalidates() {
    let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [-2, -2, -2], max_chunk: [2, 2, 2] };
    let mut t = ball(settings, Vec3::ZERO, 9.0);
    let coords: Vec<ChunkCoord> = t.chunks().map(|(c, _)| c).collect();
    assert_eq!(t.cache_stats().entries, 0);
    let first = t.chunk_collision(coords[0]).unwrap();
    assert!(!first.mesh.is_empty());
    t.chunk_collision(coords[0]).unwrap();
    let s = t.cache_stats();
    assert_eq!((s.hits, s.misses, s.entries, s.bytes), (1, 1, 1, first.bytes()));
    // Cap at about two entries: the least recently used goes first.
    t.set_cache_capacity(first.bytes() * 2 + 1);
    t.chunk_collision(coords[1]).unwrap();
    t.chunk_collision(coords[0]).unwrap();
    t.chunk_collision(coords[2]).unwrap();
    let cached = t.cached_chunks();
    assert!(cached.contains(&coords[2]) && !cached.contains(&coords[1]), "{cached:?}");
    assert!(t.cache_stats().bytes <= first.bytes() * 2 + 1 || t.cache_stats().entries == 1);
    // An edit drops the touched chunks' entries.
    t.set_cache_capacity(usize::MAX);
    for &c in &coords {
        t.chunk_collision(c);
    }
    let r = t
        .edit(&Edit::Sphere(SphereBrush {
            center: Vec3::new(-4.0, 0.0, 0.0),
            radius: 1.0,
            strength: 1.0,
            mode: BrushMode::Remove,
            material: VoxelMaterial::Rock,
        }))
        .unwrap();
    let cached = t.cached_chunks();
    assert!(r.chunks.iter().all(|c| !cached.contains(c)));
    assert_eq!(cached.len(), coords.iter().filter(|c| !r.chunks.contains(c)).count());
}

#[test]
fn malformed_runs_are_rejected() {
    // Empty, ragged, short, long, unknown material, occupied air, empty solid, zero length, not hex.
    for bad in
        ["", "01ff020", "01ff0100", "01ff0201", "09ff0200", "00010200", "01000200", "01ff0000", "zzzzzzzz"]
    {
        assert!(rle::decode(bad).is_err(), "{bad}");
    }
    assert!(rle::decode("00000100").unwrap_err().contains("256"));
    let chunk = rle::decode("0000010001ff0100").unwrap();
    assert_eq!(chunk.voxels()[255], Voxel::AIR);
    assert_eq!(chunk.voxels()[256], Voxel::new(VoxelMaterial::Rock, 255).unwrap());
    assert_eq!(rle::encode(&chunk), "0000010001ff0100");
}

#[test]
fn render_normals_are_smooth_and_outward() {
    let settings = TerrainSettings { voxel_size: 0.5, min_chunk: [-2, -2, -2], max_chunk: [2, 2, 2] };
    let t = ball(settings, Vec3::ZERO, 7.0);
    let mut vertices = 0;
    for (c, _) in t.chunks() {
        let m = t.render_mesh(c, MeshField::Solid);
        assert_eq!(m.positions.len(), m.normals.len());
        for (p, n) in m.positions.iter().zip(&m.normals) {
            assert!((n.length() - 1.0).abs() < 1e-4);
            // The ball is centred on voxel corner 0, i.e. world 0.
            assert!(n.dot(p.normalize()) > 0.9, "{p} {n}");
            vertices += 1;
        }
    }
    assert!(vertices > 100);
}
