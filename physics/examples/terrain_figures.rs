//! Figures of the terrain on the built-in hills: mask bytes per voxel, mesh + tree bytes per
//! triangle, mesher and kD build time per chunk, ray casts per second, shape casts of each
//! kind per second, and the cost of a 20-voxel brush. Run with
//! `cargo run -p atoll-physics --release --example terrain_figures [-- --write-scene PATH]`.

use atoll_physics::scene::builtin::{hills_terrain, terrain_hills};
use atoll_physics::terrain::{
    BrushMode, CHUNK_VOXELS, Edit, KdTree, MeshField, SphereBrush, VoxelMaterial, mesher,
};
use atoll_physics::{
    PlacedShape, Quat, QueryFilter, Ray, Shape, ShapeCast, StepSettings, Transform, Vec3, World,
};
use std::hint::black_box;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if let Some(i) = args.iter().position(|a| a == "--write-scene") {
        let path = args.get(i + 1).expect("--write-scene PATH");
        terrain_hills().save(std::path::Path::new(path)).expect("write the scene");
        println!("wrote {path}");
        return;
    }
    let start = Instant::now();
    let mut t = hills_terrain();
    println!("generate hills: {:.1} ms", start.elapsed().as_secs_f64() * 1e3);
    let s = t.stats();
    let in_bounds = t.settings().voxel_count() as f64;
    println!(
        "chunks: {} stored, masks: {} solid, {} water, {} mixed; mask bytes {} = {:.4} B/voxel of masked chunks, {:.4} B/voxel of the bounds",
        s.stored_chunks,
        s.solid_chunks,
        s.water_chunks,
        s.mixed_chunks,
        s.mask_bytes,
        s.mask_bytes_per_voxel,
        s.mask_bytes as f64 / in_bounds
    );
    let coords: Vec<_> = t.chunks().map(|(c, _)| c).collect();
    let rounds = 20;
    let (mut mesh_time, mut tree_time) = (0.0, 0.0);
    let (mut triangles, mut mesh_bytes, mut tree_bytes, mut meshed) = (0usize, 0usize, 0usize, 0usize);
    for round in 0..rounds {
        for &c in &coords {
            let a = Instant::now();
            let n = t.neighbourhood(c);
            let mut m = mesher::mesh(&n, MeshField::Solid, None);
            let b = Instant::now();
            let tree = KdTree::build(&mut m);
            let e = Instant::now();
            if m.is_empty() {
                continue;
            }
            mesh_time += (b - a).as_secs_f64();
            tree_time += (e - b).as_secs_f64();
            if round == 0 {
                meshed += 1;
                triangles += m.triangle_count();
                mesh_bytes += m.bytes();
                tree_bytes += tree.bytes();
            }
            black_box((m, tree));
        }
    }
    let per_chunk = (meshed * rounds) as f64;
    println!(
        "{meshed} chunks with triangles, {triangles} triangles ({:.0} per chunk); mesh {:.2} + tree {:.2} = {:.2} B/triangle",
        triangles as f64 / meshed as f64,
        mesh_bytes as f64 / triangles as f64,
        tree_bytes as f64 / triangles as f64,
        (mesh_bytes + tree_bytes) as f64 / triangles as f64
    );
    println!(
        "per 8³ chunk with triangles: mesher {:.4} ms, kD build {:.4} ms, total {:.4} ms",
        mesh_time / per_chunk * 1e3,
        tree_time / per_chunk * 1e3,
        (mesh_time + tree_time) / per_chunk * 1e3
    );
    // Rays from above towards the ground, cache warm after the first pass.
    let rays: Vec<(Vec3, Vec3)> = (0..10_000)
        .map(|i| {
            let f = i as f32;
            let o = Vec3::new((f * 0.37).sin() * 20.0, 11.0, (f * 0.73).cos() * 20.0);
            let d = Vec3::new((f * 1.3).sin() * 0.6, -1.0, (f * 0.9).cos() * 0.6).normalize();
            (o, d)
        })
        .collect();
    let mut hits = 0;
    for (o, d) in &rays {
        hits += t.cast_ray(&Ray::new(*o, *d, 100.0).unwrap()).is_some() as usize;
    }
    let a = Instant::now();
    for (o, d) in &rays {
        black_box(t.cast_ray(&Ray::new(*o, *d, 100.0).unwrap()));
    }
    let secs = a.elapsed().as_secs_f64();
    println!(
        "world ray casts: {:.0} per second ({hits} of {} hit), cache {:?}",
        rays.len() as f64 / secs,
        rays.len(),
        t.cache_stats()
    );
    // Shape casts along the first 2000 of the same paths, 30 m long (`World::cast_shape`,
    // against each triangle near the path), each kind turned a little.
    let mut world = World::new(StepSettings::default()).expect("default settings");
    world.set_terrain(t.clone());
    let corners: Vec<Vec3> = (0..8)
        .map(|i| Vec3::new([-0.4, 0.4][i & 1], [-0.3, 0.3][(i >> 1) & 1], [-0.5, 0.5][i >> 2]))
        .collect();
    let kinds = [
        ("ball", Shape::sphere(0.4)),
        ("capsule", Shape::capsule(0.4, 0.25)),
        ("box", Shape::cuboid(Vec3::new(0.5, 0.3, 0.4))),
        ("hull", Shape::hull(&corners)),
    ];
    let turn = Quat::from_rotation_x(0.3) * Quat::from_rotation_y(0.5);
    for (name, shape) in kinds {
        let shape = shape.expect("a valid shape");
        let casts: Vec<ShapeCast> = (rays.iter().take(2000))
            .map(|(o, d)| {
                let start = PlacedShape::new(shape.clone(), Transform::new(*o, turn)).expect("a valid pose");
                ShapeCast::new(start, *d * 30.0).expect("a valid cast")
            })
            .collect();
        let hits = casts.iter().filter(|c| world.cast_shape(c, &QueryFilter::ALL).is_some()).count();
        let a = Instant::now();
        for c in &casts {
            black_box(world.cast_shape(c, &QueryFilter::ALL));
        }
        let secs = a.elapsed().as_secs_f64();
        println!(
            "{name} casts: {:.0} per second, {:.1} µs each ({hits} of {} hit)",
            casts.len() as f64 / secs,
            secs / casts.len() as f64 * 1e6,
            casts.len()
        );
    }
    // A 20-voxel brush stroke: the edit (voxels, masks) and rebuilding the touched meshes.
    let brush = SphereBrush {
        center: Vec3::new(0.0, 3.0, 0.0),
        radius: 20.0 * t.voxel_size(),
        strength: 0.5,
        mode: BrushMode::Add,
        material: VoxelMaterial::Rock,
    };
    let a = Instant::now();
    let r = t.edit(&Edit::Sphere(brush)).unwrap();
    let edit = a.elapsed().as_secs_f64();
    let a = Instant::now();
    for &c in &r.chunks {
        black_box(t.chunk_collision(c));
    }
    let rebuild = a.elapsed().as_secs_f64();
    println!(
        "20-voxel brush: {} voxels, {} chunks; edit + masks {:.2} ms, mesh + tree rebuild {:.2} ms",
        r.changed_voxels,
        r.chunks.len(),
        edit * 1e3,
        rebuild * 1e3
    );
    println!("voxels per chunk {CHUNK_VOXELS}");
}
