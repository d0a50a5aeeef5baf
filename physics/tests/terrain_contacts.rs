//! Bodies against voxel terrain: resting, sliding across triangle edges and chunk seams without
//! ghost bumps, falling into a freshly dug hole, sleeping, and determinism.

use atoll_physics::body::Material;
use atoll_physics::scene::builtin::hills_terrain;
use atoll_physics::terrain::{BrushMode, Edit, SphereBrush, Voxel, VoxelMaterial};
use atoll_physics::world::WaterEvent;
use atoll_physics::{
    BodyDesc, BodyId, Quat, Ray, Shape, StepSettings, Terrain, TerrainSettings, Vec3, World, state_hash,
};

const VOXEL: f32 = 0.5;

/// Flat ground whose surface is at `height` (metres), over 32 × 32 m.
fn flat_terrain(height: f32) -> Terrain {
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-4, -2, -4], max_chunk: [4, 2, 4] };
    Terrain::from_fn(settings, |v| {
        let y = (v.y as f32 + 0.5) * VOXEL;
        let fill = ((0.5 + (height - y) / VOXEL).clamp(0.0, 1.0) * 255.0).round() as u8;
        if fill == 0 { Voxel::AIR } else { Voxel { material: VoxelMaterial::Rock, occupancy: fill } }
    })
    .unwrap()
}

fn world_on(terrain: Terrain) -> World {
    let mut world = World::new(StepSettings::default()).unwrap();
    world.set_terrain(terrain);
    world
}

fn run(world: &mut World, steps: usize) {
    for _ in 0..steps {
        world.step();
    }
}

/// The terrain's surface height under (x, z), from a ray cast.
fn surface(world: &World, x: f32, z: f32) -> f32 {
    let hit = world.terrain().cast_ray(&Ray::new(Vec3::new(x, 10.0, z), Vec3::NEG_Y, 30.0).unwrap()).unwrap();
    hit.point.y
}

#[test]
fn a_sphere_and_a_box_come_to_rest_on_flat_terrain_and_sleep() {
    let mut world = world_on(flat_terrain(0.3));
    let ground = surface(&world, 1.3, -2.1);
    let ball = world
        .create_body(&BodyDesc::dynamic(Shape::sphere(0.4).unwrap(), Vec3::new(1.3, 2.0, -2.1)))
        .unwrap();
    let crate_ = world
        .create_body(&BodyDesc::dynamic(
            Shape::cuboid(Vec3::new(0.6, 0.3, 0.45)).unwrap(),
            Vec3::new(-2.0, 1.5, 3.0),
        ))
        .unwrap();
    let mut began = 0;
    for _ in 0..300 {
        world.step();
        began += world.touch_events().iter().filter(|e| e.began && e.body_b.is_terrain()).count();
    }
    assert!(began >= 2, "touch events with the terrain: {began}");
    let y = world.body(ball).unwrap().transform.position.y;
    assert!((y - (ground + 0.4)).abs() < 0.01, "ball rests at {y}, ground {ground}");
    let y = world.body(crate_).unwrap().transform.position.y;
    assert!((y - (ground + 0.3)).abs() < 0.01, "box rests at {y}, ground {ground}");
    let touching: Vec<_> = world.touching_contacts().filter(|c| c.body_b.is_terrain()).collect();
    assert!(touching.iter().all(|c| c.chunk.is_some() && c.manifold.normal.y < -0.99));
    assert!(touching.iter().any(|c| c.body_a == crate_ && c.manifold.count == 4));
    run(&mut world, 200);
    assert!(!world.is_awake(ball).unwrap() && !world.is_awake(crate_).unwrap(), "both sleep");
}

/// The horizontal velocity of `shape` sliding at 5 m/s along `heading` for 60 steps, from
/// `start`, on the world's ground (after settling onto it at rest for 30 steps).
fn slide(mut world: World, shape: Shape, rotation: Quat, heading: Vec3, start: Vec3) -> Vec<(Vec3, Vec3)> {
    let desc = BodyDesc::dynamic(shape, start)
        .with_rotation(rotation)
        .with_material(Material { friction: 0.05, ..Material::default() });
    let body = world.create_body(&desc).unwrap();
    run(&mut world, 30);
    world.set_linear_velocity(body, heading * 5.0).unwrap();
    (0..60)
        .map(|_| {
            world.step();
            let view = world.body(body).unwrap();
            (view.linear_velocity, view.transform.position)
        })
        .collect()
}

/// Slides `shape` across flat terrain at 5 m/s along `heading` (crossing triangle edges and
/// a chunk seam) and checks every step: nothing kicks it up, the speed follows Coulomb
/// friction, and the heading holds as well as on a flat static box of the same friction
/// (friction itself turns a sliding capsule slightly: the solver's two friction rows have
/// different effective masses, so a slide not along one of them is not exactly opposed).
fn slides_straight(shape: Shape, rotation: Quat, heading: Vec3, rest_height: f32) {
    let terrain_world = world_on(flat_terrain(0.3));
    let ground = surface(&terrain_world, 0.0, 0.0);
    let start = Vec3::new(-5.5, ground + rest_height, -5.0);
    let on_terrain = slide(terrain_world, shape.clone(), rotation, heading, start);
    let mut floor_world = World::new(StepSettings::default()).unwrap();
    let floor = BodyDesc::fixed(
        Shape::cuboid(Vec3::new(50.0, 0.5, 50.0)).unwrap(),
        Vec3::new(0.0, ground - 0.5, 0.0),
    );
    floor_world.create_body(&floor).unwrap();
    let on_floor = slide(floor_world, shape, rotation, heading, start);
    let mu = (0.05 * atoll_physics::world::TERRAIN_FRICTION).sqrt();
    let dt = StepSettings::default().dt;
    let heading_error = |v: Vec3| {
        let flat = Vec3::new(v.x, 0.0, v.z);
        flat.normalize().dot(heading).clamp(-1.0, 1.0).acos().to_degrees()
    };
    for (step, (&(v, _), &(reference, _))) in on_terrain.iter().zip(&on_floor).enumerate() {
        let step = step + 1;
        let expected = (5.0 - mu * 9.81 * dt * step as f32).max(0.0);
        let speed = Vec3::new(v.x, 0.0, v.z).length();
        assert!(v.y.abs() < 0.05, "step {step}: vertical velocity {v}");
        assert!((speed - expected).abs() < 0.12, "step {step}: speed {speed} expected {expected}");
        let (angle, floor_angle) = (heading_error(v), heading_error(reference));
        assert!(
            angle < floor_angle + 0.5,
            "step {step}: heading off by {angle} degrees ({floor_angle} on a box)"
        );
    }
    assert!(on_terrain.iter().any(|(_, p)| p.x > -4.0), "the slide crosses the chunk seam at x = -4");
}

#[test]
fn a_box_slides_across_triangle_edges_and_chunk_seams_without_ghost_bumps() {
    for heading in [Vec3::X, Vec3::new(1.0, 0.0, 0.6).normalize()] {
        slides_straight(Shape::cuboid(Vec3::new(0.5, 0.25, 0.5)).unwrap(), Quat::IDENTITY, heading, 0.25);
    }
}

#[test]
fn a_capsule_slides_across_triangle_edges_and_chunk_seams_without_ghost_bumps() {
    // Lying down along the heading, so it slides rather than rolls.
    for heading in [Vec3::X, Vec3::new(1.0, 0.0, 0.6).normalize()] {
        let lying = Quat::from_rotation_arc(Vec3::Y, heading);
        slides_straight(Shape::capsule(0.4, 0.25).unwrap(), lying, heading, 0.25);
    }
}

#[test]
fn digging_under_a_resting_box_makes_it_fall_in_the_same_step() {
    let mut world = world_on(flat_terrain(0.3));
    let ground = surface(&world, 2.0, 2.0);
    let body = world
        .create_body(&BodyDesc::dynamic(
            Shape::cuboid(Vec3::splat(0.3)).unwrap(),
            Vec3::new(2.0, ground + 0.3, 2.0),
        ))
        .unwrap();
    run(&mut world, 240);
    assert!(!world.is_awake(body).unwrap(), "the box sleeps on the ground");
    let brush = SphereBrush {
        center: Vec3::new(2.0, ground, 2.0),
        radius: 1.5,
        strength: 1.0,
        mode: BrushMode::Remove,
        material: VoxelMaterial::Rock,
    };
    let report = world.edit_terrain(&Edit::Sphere(brush)).unwrap();
    assert!(report.changed_voxels > 0);
    assert!(world.is_awake(body).unwrap(), "the edit wakes it");
    world.step();
    let v = world.body(body).unwrap().linear_velocity;
    assert!(v.y < -0.1, "it falls in the step after the edit: {v}");
    run(&mut world, 120);
    let y = world.body(body).unwrap().transform.position.y;
    assert!(y < ground - 0.5 && y > ground - 2.0, "it rests in the hole: {y}");
}

/// A rain of every shape onto the hills terrain.
fn hills_rain(threads: usize) -> (World, Vec<BodyId>) {
    let mut world = world_on(hills_terrain());
    if threads > 1 {
        world.set_thread_count(threads).unwrap();
    }
    let wedge = Shape::hull(&[
        Vec3::new(-0.4, 0.0, -0.3),
        Vec3::new(0.4, 0.0, -0.3),
        Vec3::new(-0.4, 0.0, 0.3),
        Vec3::new(0.4, 0.0, 0.3),
        Vec3::new(-0.4, 0.5, 0.3),
        Vec3::new(0.4, 0.5, 0.3),
    ])
    .unwrap();
    let mut ids = Vec::new();
    for i in 0..64 {
        let (x, z) = ((i % 8) as f32 * 2.5 - 9.0, (i / 8) as f32 * 2.5 - 9.0);
        let shape = match i % 4 {
            0 => Shape::sphere(0.35).unwrap(),
            1 => Shape::cuboid(Vec3::new(0.4, 0.3, 0.35)).unwrap(),
            2 => Shape::capsule(0.3, 0.25).unwrap(),
            _ => wedge.clone(),
        };
        let rotation = Quat::from_rotation_y(i as f32 * 0.7) * Quat::from_rotation_x(i as f32 * 0.3);
        let desc = BodyDesc::dynamic(shape, Vec3::new(x, 12.0 + (i % 5) as f32, z)).with_rotation(rotation);
        ids.push(world.create_body(&desc).unwrap());
    }
    (world, ids)
}

#[test]
fn a_rain_onto_the_hills_is_deterministic_for_any_thread_count_and_stays_above_ground() {
    let mut hashes = Vec::new();
    for threads in [1, 1, 2] {
        let (mut world, ids) = hills_rain(threads);
        run(&mut world, 240);
        for &id in &ids {
            let p = world.body(id).unwrap().center_of_mass;
            let below = world.terrain().cast_ray(&Ray::new(p, Vec3::NEG_Y, 40.0).unwrap());
            let above = world.terrain().cast_ray(&Ray::new(p, Vec3::Y, 40.0).unwrap());
            // Inside solid terrain a ray up meets the surface from below: it faces away.
            assert!(below.is_some(), "body {id:?} at {p} has ground under it");
            assert!(above.is_none_or(|h| h.normal.y < 0.0), "body {id:?} at {p} is buried");
        }
        hashes.push(state_hash(&world));
    }
    assert_eq!(hashes[0], hashes[1], "two runs");
    assert_eq!(hashes[0], hashes[2], "one thread and two");
}

#[test]
fn a_ball_dropped_from_a_hundred_metres_lands_on_a_shelf_one_voxel_thick() {
    // A floating slab 0.5 m thick, its top at y = 1, over nothing.
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-2, -1, -2], max_chunk: [2, 1, 2] };
    let shelf = Terrain::from_fn(settings, |v| {
        let inside = v.y == 1 && v.x.abs() < 10 && v.z.abs() < 10;
        if inside { Voxel { material: VoxelMaterial::Rock, occupancy: 255 } } else { Voxel::AIR }
    })
    .unwrap();
    let mut world = world_on(shelf);
    let top = surface(&world, 0.3, 0.2);
    assert!(top > 0.9 && top < 1.3, "shelf top {top}");
    let ball = world
        .create_body(&BodyDesc::dynamic(Shape::sphere(0.2).unwrap(), Vec3::new(0.3, 100.0, 0.2)))
        .unwrap();
    let mut fastest: f32 = 0.0;
    for _ in 0..400 {
        world.step();
        fastest = fastest.max(-world.body(ball).unwrap().linear_velocity.y);
    }
    let step_length = fastest * world.settings().dt;
    assert!(step_length > 0.5, "fast enough to cross the shelf in one step: {step_length} m");
    let y = world.body(ball).unwrap().transform.position.y;
    assert!((y - (top + 0.2)).abs() < 0.05, "the ball rests on the shelf: {y}, top {top}");
}

/// A pool: rock below y = -4, water up to y = 0, over the whole 32 × 32 m terrain.
fn pool() -> Terrain {
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-4, -2, -4], max_chunk: [4, 2, 4] };
    Terrain::from_fn(settings, |v| {
        let y = (v.y as f32 + 0.5) * VOXEL;
        let ramp = |depth: f32| ((0.5 + depth / VOXEL).clamp(0.0, 1.0) * 255.0).round() as u8;
        let rock = ramp(-4.0 - y);
        if rock >= 128 {
            Voxel { material: VoxelMaterial::Rock, occupancy: rock }
        } else {
            match ramp(-y) {
                0 => Voxel::AIR,
                water => Voxel { material: VoxelMaterial::Water, occupancy: water },
            }
        }
    })
    .unwrap()
}

/// Drops `shape` of `density` into the pool and returns the world after `seconds`.
fn float(shape: Shape, density: f32, seconds: f32) -> (World, BodyId) {
    let mut world = world_on(pool());
    let desc = BodyDesc::dynamic(shape, Vec3::new(1.1, 1.5, -0.7))
        .with_rotation(Quat::from_rotation_y(0.3))
        .with_material(Material { density, ..Material::default() });
    let body = world.create_body(&desc).unwrap();
    run(&mut world, (seconds * 60.0) as usize);
    (world, body)
}

#[test]
fn bodies_of_half_waters_density_float_half_submerged_settle_and_sleep() {
    let wedge = Shape::hull(&[
        Vec3::new(-0.6, -0.3, -0.4),
        Vec3::new(0.6, -0.3, -0.4),
        Vec3::new(-0.6, -0.3, 0.4),
        Vec3::new(0.6, -0.3, 0.4),
        Vec3::new(-0.6, 0.3, 0.4),
        Vec3::new(0.6, 0.3, 0.4),
        Vec3::new(-0.6, 0.3, -0.4),
        Vec3::new(0.6, 0.3, -0.4),
        Vec3::new(0.0, -0.6, 0.0),
    ])
    .unwrap();
    for shape in [Shape::cuboid(Vec3::new(0.5, 0.4, 0.6)).unwrap(), Shape::sphere(0.5).unwrap(), wedge] {
        let (mut world, body) = float(shape.clone(), 500.0, 8.0);
        let water = world.water_contact(body).unwrap().expect("in the water");
        assert!(
            (water.submerged_fraction - 0.5).abs() < 0.05,
            "{shape:?}: {} submerged",
            water.submerged_fraction
        );
        let view = world.body(body).unwrap();
        assert!(view.linear_velocity.length() < 0.05, "{shape:?} settles: {}", view.linear_velocity);
        let weight = view.mass * 9.81;
        assert!(
            (water.buoyancy.y - weight).abs() < 0.1 * weight,
            "buoyancy {} weight {weight}",
            water.buoyancy
        );
        run(&mut world, 600);
        assert!(!world.is_awake(body).unwrap(), "{shape:?} sleeps afloat");
        let y = world.body(body).unwrap().transform.position.y;
        assert!(y > -1.0 && y < 0.6, "{shape:?} afloat at {y}");
    }
}

#[test]
fn a_raft_of_two_boxes_floats_half_submerged_and_level() {
    // One body of two boxes side by side, of half water's density: each box carries its own
    // buoyancy, so the raft floats level with half of each under water.
    let wood = Material { density: 500.0, ..Material::default() };
    let half = Vec3::new(0.5, 0.2, 0.5);
    let raft = BodyDesc::dynamic(Shape::cuboid(half).unwrap(), Vec3::new(0.6, 1.0, -0.7))
        .with_material(wood)
        .with_child(
            atoll_physics::ChildDesc::new(
                Shape::cuboid(half).unwrap(),
                atoll_physics::Transform::from_position(Vec3::new(1.0, 0.0, 0.0)),
            )
            .with_material(wood),
        );
    let mut world = world_on(pool());
    let body = world.create_body(&raft).unwrap();
    run(&mut world, 8 * 60);
    let water = world.water_contact(body).unwrap().expect("in the water");
    assert!((water.submerged_fraction - 0.5).abs() < 0.05, "{} submerged", water.submerged_fraction);
    let view = world.body(body).unwrap();
    let weight = view.mass * 9.81;
    assert!((water.buoyancy.y - weight).abs() < 0.1 * weight, "buoyancy {} weight {weight}", water.buoyancy);
    let tilt = view.transform.rotation.angle_between(Quat::IDENTITY);
    assert!(tilt < 0.05, "the raft tilts by {tilt} rad");
    // The centre of buoyancy under the centre of mass, between the two boxes.
    let beside = water.center_of_buoyancy - view.center_of_mass;
    assert!(beside.x.abs() < 0.05 && beside.z.abs() < 0.05, "buoyancy acts {beside} off the centre");
}

#[test]
fn entering_and_leaving_the_water_are_events() {
    let mut world = world_on(pool());
    let desc = BodyDesc::dynamic(Shape::sphere(0.4).unwrap(), Vec3::new(0.0, 1.5, 0.0))
        .with_material(Material { density: 500.0, ..Material::default() });
    let ball = world.create_body(&desc).unwrap();
    let mut events = Vec::new();
    for _ in 0..180 {
        world.step();
        events.extend(world.water_events().iter().copied());
    }
    assert_eq!(events, [WaterEvent { body: ball, entered: true }], "it splashed in once and floats");
    // Lifted out of the pool, it leaves the water in the next step.
    world
        .set_transform(ball, atoll_physics::Transform::new(Vec3::new(0.0, 5.0, 0.0), Quat::IDENTITY))
        .unwrap();
    world.step();
    assert_eq!(world.water_events(), [WaterEvent { body: ball, entered: false }]);
    world.step();
    assert!(world.water_events().is_empty());
}

#[test]
fn a_body_denser_than_water_sinks_to_the_bottom_and_a_light_one_rides_high() {
    let (world, body) = float(Shape::cuboid(Vec3::splat(0.3)).unwrap(), 2500.0, 6.0);
    let y = world.body(body).unwrap().transform.position.y;
    assert!((y - (-4.0 + 0.3)).abs() < 0.05, "the dense box rests on the bottom: {y}");
    assert!(world.water_contact(body).unwrap().is_some_and(|w| w.submerged_fraction > 0.99));
    let (world, body) = float(Shape::cuboid(Vec3::splat(0.3)).unwrap(), 200.0, 8.0);
    let water = world.water_contact(body).unwrap().unwrap();
    assert!(
        (water.submerged_fraction - 0.2).abs() < 0.05,
        "a fifth of it under: {}",
        water.submerged_fraction
    );
}

#[test]
fn boxes_slide_down_the_long_slope_accelerating_steadily_across_chunk_seams() {
    let (mut world, ids) = atoll_physics::scene::builtin::slide().build_world().unwrap();
    let boxes: Vec<BodyId> = ids
        .iter()
        .copied()
        .filter(|&id| matches!(world.body(id).unwrap().shape, Shape::Cuboid { .. }))
        .collect();
    assert_eq!(boxes.len(), 3);
    let angle = 0.4f32.atan();
    let normal = Vec3::new(angle.sin(), angle.cos(), 0.0);
    let mu = (0.1 * atoll_physics::world::TERRAIN_FRICTION).sqrt();
    let accel = 9.81 * (angle.sin() - mu * angle.cos());
    run(&mut world, 30);
    let start: Vec<f32> = boxes.iter().map(|&b| world.body(b).unwrap().linear_velocity.length()).collect();
    let dt = world.settings().dt;
    for step in 1..=240 {
        world.step();
        for (k, &b) in boxes.iter().enumerate() {
            let view = world.body(b).unwrap();
            let v = view.linear_velocity;
            assert!(v.dot(normal).abs() < 0.05, "step {step}: box {k} leaves the slope: {v}");
            let expected = start[k] + accel * dt * step as f32;
            assert!(
                (v.length() - expected).abs() < 0.1 * expected.max(1.0),
                "step {step}: box {k} at {} m/s, expected {expected}",
                v.length()
            );
        }
    }
    let seams = boxes.iter().map(|&b| world.body(b).unwrap().transform.position.x).fold(f32::MAX, f32::min);
    assert!(seams > -12.0, "each box crossed at least two chunk seams: slowest at x = {seams}");
}

#[test]
fn in_the_boats_scene_boats_crates_and_planks_float_and_stones_sink() {
    let scene = atoll_physics::scene::builtin::boats();
    let names: Vec<String> = scene.bodies.iter().map(|b| b.name.clone()).collect();
    let (mut world, ids) = scene.build_world().unwrap();
    run(&mut world, 600);
    for (name, &id) in names.iter().zip(&ids) {
        let view = world.body(id).unwrap();
        let water = world.water_contact(id).unwrap();
        if name.starts_with("stone") {
            assert!(view.center_of_mass.y < -2.0, "{name} sinks: {}", view.center_of_mass);
        } else {
            let share = water.map_or(0.0, |w| w.submerged_fraction);
            // Stacked planks press the lowest one under and keep the top one dry, but nothing
            // light reaches the bed.
            assert!(
                view.center_of_mass.y > -0.5,
                "{name} floats, {share} submerged at {}",
                view.center_of_mass
            );
            if !name.starts_with("plank") {
                assert!(share > 0.1 && share < 0.8, "{name} floats, {share} submerged");
            }
            assert!(view.linear_velocity.length() < 0.1, "{name} settles: {}", view.linear_velocity);
        }
    }
}

#[test]
fn cutting_the_pillar_of_a_terrain_table_drops_its_top_as_a_rock_body() {
    // A floor, a pillar 3 voxels wide and a slab 9 × 9 × 2 voxels on top, all solid rock.
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-2, -1, -2], max_chunk: [2, 2, 2] };
    let rock = Voxel { material: VoxelMaterial::Rock, occupancy: 255 };
    let table = Terrain::from_fn(settings, |v| {
        let pillar = v.x.abs() <= 1 && v.z.abs() <= 1 && (0..6).contains(&v.y);
        let slab = v.x.abs() <= 4 && v.z.abs() <= 4 && (6..8).contains(&v.y);
        if v.y < 0 || pillar || slab { rock } else { Voxel::AIR }
    })
    .unwrap();
    let mut world = world_on(table);
    let brush = SphereBrush {
        center: Vec3::new(0.25, 1.75, 0.25),
        radius: 1.3,
        strength: 1.0,
        mode: BrushMode::Remove,
        material: VoxelMaterial::Rock,
    };
    let uncut = world.terrain().clone();
    let report = world.edit_terrain(&Edit::Sphere(brush)).unwrap();
    let detached = world.detached_bodies().to_vec();
    assert_eq!(detached.len(), 1, "the slab and what is left of the pillar above the cut");
    // The report's old values, written back in reverse, undo the cut and the slab's removal
    // alike (the editor's undo of a stroke); writing the new values redoes them.
    let redo: Vec<_> = report.previous.iter().map(|(v, _)| (*v, world.terrain().voxel(*v))).collect();
    let cut = world.terrain().clone();
    let undo: Vec<_> = report.previous.iter().rev().copied().collect();
    world.set_terrain_voxels(&undo).unwrap();
    assert!(same_voxels(world.terrain(), &uncut), "undo restores the table");
    assert!(world.detached_bodies().is_empty(), "writing voxels back cuts nothing loose");
    world.set_terrain_voxels(&redo).unwrap();
    assert!(same_voxels(world.terrain(), &cut), "redo cuts it again");
    let top = world.body(detached[0]).unwrap();
    let (start, mass) = (top.center_of_mass, top.mass);
    // 162 slab voxels plus the pillar's stub above the cut, 0.125 m³ each at 2000 kg/m³.
    assert!(mass > 162.0 * 0.125 * 2000.0 * 0.8 && mass < 200.0 * 0.125 * 2000.0 * 1.2, "mass {mass}");
    assert!(!world.terrain().voxel(glam::IVec3::new(3, 7, 3)).is_solid(), "the slab left the terrain");
    assert!(world.terrain().voxel(glam::IVec3::new(0, -1, 0)).is_solid(), "the floor stays");
    run(&mut world, 180);
    let end = world.body(detached[0]).unwrap().center_of_mass;
    assert!(end.y < start.y - 0.5, "the top fell: {start} -> {end}");
    assert!(end.y > 0.0, "and landed on the floor or the stub: {end}");
    // Adding never detaches: a floating rock painted in the air stays terrain.
    let brush = SphereBrush { center: Vec3::new(5.0, 5.0, 5.0), radius: 0.8, mode: BrushMode::Add, ..brush };
    world.edit_terrain(&Edit::Sphere(brush)).unwrap();
    assert!(world.detached_bodies().is_empty());
}

/// Whether two terrains hold the same voxels in the same chunks.
fn same_voxels(a: &Terrain, b: &Terrain) -> bool {
    a.chunk_count() == b.chunk_count()
        && a.chunks().all(|(c, chunk)| b.chunk(c).is_some_and(|other| other.voxels() == chunk.voxels()))
}

#[test]
fn an_edit_names_the_lowest_body_slot_it_woke_in_an_island() {
    // A stack of two boxes on a static pedestal above the ground, the upper one made first
    // (the lower slot) and dropped on the other, so its proxy was moved last. Voxels added
    // under the pedestal reach both boxes' fat boxes: the island's cause names the lower slot,
    // whatever the shape of the tree the edit's region was looked up in.
    let mut world = world_on(flat_terrain(0.3));
    let ground = surface(&world, 2.0, 2.0);
    let pedestal =
        BodyDesc::fixed(Shape::cuboid(Vec3::new(1.0, 0.5, 1.0)).unwrap(), Vec3::new(2.0, ground + 2.5, 2.0));
    world.create_body(&pedestal).unwrap();
    let cube = || Shape::cuboid(Vec3::splat(0.3)).unwrap();
    let top = world.create_body(&BodyDesc::dynamic(cube(), Vec3::new(2.0, ground + 4.5, 2.0))).unwrap();
    let bottom = world.create_body(&BodyDesc::dynamic(cube(), Vec3::new(2.0, ground + 3.3, 2.0))).unwrap();
    run(&mut world, 400);
    assert!(!world.is_awake(top).unwrap() && !world.is_awake(bottom).unwrap(), "the stack sleeps");
    assert_eq!(world.body_island(top).unwrap(), world.body_island(bottom).unwrap());
    let brush = SphereBrush {
        center: Vec3::new(2.0, ground + 1.5, 2.0),
        radius: 1.3,
        strength: 1.0,
        mode: BrushMode::Add,
        material: VoxelMaterial::Rock,
    };
    assert!(world.edit_terrain(&Edit::Sphere(brush)).unwrap().changed_voxels > 0);
    let island = world.body_island(bottom).unwrap().unwrap();
    let (cause, _) = world.wake_cause(island).unwrap().expect("the edit woke it");
    assert_eq!(cause, atoll_physics::WakeCause::Terrain { body: top });
}
