//! Compound bodies in a world: a body of several shapes collides by each of them (contacts per
//! pair of shapes), against bodies, other compounds and the terrain; queries find its
//! children; it sleeps, restores, saves and steps the same on any number of threads.

use atoll_physics::terrain::{Voxel, VoxelMaterial};
use atoll_physics::{
    BodyDesc, BodyId, ChildDesc, Material, Quat, QueryFilter, Ray, Scene, Shape, StepSettings, Terrain,
    TerrainSettings, Transform, Vec3, World, state_hash,
};

/// The table's top: 1.2 × 0.1 × 0.8 m, its body's own shape, at the body's origin.
const TOP: Vec3 = Vec3::new(0.6, 0.05, 0.4);
/// A leg: 0.1 × 0.6 × 0.1 m, hanging from the top's underside.
const LEG: Vec3 = Vec3::new(0.05, 0.3, 0.05);
/// Where the legs' centres sit in the table's frame.
const LEG_X: f32 = 0.5;
const LEG_Z: f32 = 0.3;
const LEG_Y: f32 = -(0.05 + 0.3);
/// From the table's origin down to the feet.
const FOOT_DEPTH: f32 = 0.05 + 0.6;

/// A table of five boxes: a top (the body's own shape) and four legs (children), of wood.
fn table(position: Vec3, rotation: Quat) -> BodyDesc {
    let wood = Material { density: 700.0, friction: 0.6, restitution: 0.0 };
    let mut desc =
        BodyDesc::dynamic(Shape::cuboid(TOP).unwrap(), position).with_rotation(rotation).with_material(wood);
    for (x, z) in [(-LEG_X, -LEG_Z), (LEG_X, -LEG_Z), (-LEG_X, LEG_Z), (LEG_X, LEG_Z)] {
        let leg =
            ChildDesc::new(Shape::cuboid(LEG).unwrap(), Transform::from_position(Vec3::new(x, LEG_Y, z)));
        desc = desc.with_child(leg.with_material(wood));
    }
    desc
}

/// A world with a static floor whose top is at y = 0.
fn world_with_floor() -> (World, BodyId) {
    let mut world = World::new(StepSettings::default()).unwrap();
    let floor =
        BodyDesc::fixed(Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap(), Vec3::new(0.0, -0.5, 0.0));
    let floor = world.create_body(&floor).unwrap();
    (world, floor)
}

fn run_until_asleep(world: &mut World, body: BodyId, most: usize) -> usize {
    for step in 0..most {
        world.step();
        if !world.is_awake(body).unwrap() {
            return step + 1;
        }
    }
    panic!("the body was still awake after {most} steps");
}

#[test]
fn a_table_rests_on_its_four_legs_and_sleeps() {
    let (mut world, floor) = world_with_floor();
    let table = world.create_body(&table(Vec3::new(0.0, FOOT_DEPTH + 0.05, 0.0), Quat::IDENTITY)).unwrap();
    let steps = run_until_asleep(&mut world, table, 600);
    // On its feet: the top level at its legs' height (the contacts' softness sinks it a few
    // millimetres at most).
    let t = world.transform(table).unwrap();
    assert!(
        (t.position.y - FOOT_DEPTH).abs() < 0.01,
        "the top rests at {} after {steps} steps",
        t.position.y
    );
    assert!(t.rotation.angle_between(Quat::IDENTITY) < 0.01, "the table tilted to {:?}", t.rotation);
    // Only the legs touch the floor, each of them, and no shape of the table touches another.
    let mut legs_touching = [false; 5];
    for c in world.touching_contacts() {
        assert_ne!(c.body_a, c.body_b, "a contact between two shapes of one body");
        let part = if c.body_a == table { c.part_a } else { c.part_b };
        assert!(c.body_a == floor || c.body_b == floor);
        assert!(part >= 1, "the top touches the floor");
        legs_touching[part as usize] = true;
    }
    assert_eq!(legs_touching, [false, true, true, true, true], "not every leg stands on the floor");
}

#[test]
fn each_leg_carries_a_quarter_of_the_weight() {
    let (mut world, _) = world_with_floor();
    let table = world.create_body(&table(Vec3::new(0.0, FOOT_DEPTH + 0.02, 0.0), Quat::IDENTITY)).unwrap();
    run_until_asleep(&mut world, table, 600);
    let weight = world.body(table).unwrap().mass * 9.81;
    // An impulse is a substep's: the force is it over the substep's length.
    let substep = world.settings().dt / world.settings().substeps as f32;
    let mut per_leg = [0.0f32; 5];
    for c in world.touching_contacts() {
        let part = if c.body_a == table { c.part_a } else { c.part_b };
        per_leg[part as usize] +=
            c.impulses[..c.manifold.count].iter().map(|i| i.normal).sum::<f32>() / substep;
    }
    // The table is symmetric: each leg holds a quarter of its weight, within 2 % (the solver's
    // last substep's impulses, of a table at rest).
    for (k, force) in per_leg.iter().enumerate().skip(1) {
        let share = force / (weight / 4.0);
        assert!(
            (share - 1.0).abs() < 0.02,
            "leg {k} carries {force} N of the {} N a quarter is",
            weight / 4.0
        );
    }
    let total: f32 = per_leg.iter().sum();
    assert!((total / weight - 1.0).abs() < 0.01, "the legs carry {total} N of a weight of {weight} N");
}

#[test]
fn a_compound_stands_on_the_terrain_by_its_legs() {
    const VOXEL: f32 = 0.5;
    let settings = TerrainSettings { voxel_size: VOXEL, min_chunk: [-2, -1, -2], max_chunk: [2, 1, 2] };
    let terrain = Terrain::from_fn(settings, |v| {
        let y = (v.y as f32 + 0.5) * VOXEL;
        let fill = ((0.5 + (0.0 - y) / VOXEL).clamp(0.0, 1.0) * 255.0).round() as u8;
        if fill == 0 { Voxel::AIR } else { Voxel { material: VoxelMaterial::Rock, occupancy: fill } }
    })
    .unwrap();
    let mut world = World::new(StepSettings::default()).unwrap();
    world.set_terrain(terrain);
    let ground =
        world.terrain().cast_ray(&Ray::new(Vec3::new(0.3, 5.0, 0.2), Vec3::NEG_Y, 10.0).unwrap()).unwrap();
    let top = ground.point.y + FOOT_DEPTH;
    let table = world.create_body(&table(Vec3::new(0.3, top + 0.1, 0.2), Quat::IDENTITY)).unwrap();
    run_until_asleep(&mut world, table, 900);
    let y = world.transform(table).unwrap().position.y;
    assert!((y - top).abs() < 0.02, "the table rests at {y}, its feet's ground puts it at {top}");
    let parts: Vec<u32> = world.touching_contacts().filter(|c| c.chunk.is_some()).map(|c| c.part_a).collect();
    assert!(!parts.is_empty() && parts.iter().all(|&p| p >= 1), "the terrain touched parts {parts:?}");
}

#[test]
fn a_table_on_a_table_touches_it_leg_on_top() {
    let (mut world, _) = world_with_floor();
    let lower = world.create_body(&table(Vec3::new(0.0, FOOT_DEPTH, 0.0), Quat::IDENTITY)).unwrap();
    let upper =
        world.create_body(&table(Vec3::new(0.0, 2.0 * FOOT_DEPTH + 0.1, 0.0), Quat::IDENTITY)).unwrap();
    run_until_asleep(&mut world, upper, 900);
    let between: Vec<_> = world
        .touching_contacts()
        .filter(|c| (c.body_a == lower && c.body_b == upper) || (c.body_a == upper && c.body_b == lower))
        .collect();
    assert_eq!(between.len(), 4, "one contact per leg of the upper table on the lower top");
    for c in between {
        let (upper_part, lower_part) =
            if c.body_a == upper { (c.part_a, c.part_b) } else { (c.part_b, c.part_a) };
        assert!(upper_part >= 1 && lower_part == 0, "parts {upper_part} on {lower_part}");
    }
    // Its feet on the lower top's upper face.
    let y = world.transform(upper).unwrap().position.y;
    assert!((y - (2.0 * FOOT_DEPTH + TOP.y)).abs() < 0.02, "the upper table rests at {y}");
}

#[test]
fn queries_find_a_compound_by_its_children() {
    let (mut world, floor) = world_with_floor();
    let table = world.create_body(&table(Vec3::new(0.0, FOOT_DEPTH, 0.0), Quat::IDENTITY)).unwrap();
    world.step();
    let t = world.transform(table).unwrap();
    let leg = t.transform_point(Vec3::new(LEG_X, LEG_Y, LEG_Z));
    // A ray across under the top meets the first leg's side, not the floor or the top.
    let ray = Ray::new(Vec3::new(-3.0, leg.y, leg.z), Vec3::X, 10.0).unwrap();
    let hit = world.cast_ray(&ray, &QueryFilter::default()).unwrap();
    assert_eq!(hit.body, table);
    assert!((hit.point.x - (-LEG_X - LEG.x)).abs() < 1e-3, "hit at {}", hit.point);
    // A point inside a leg is inside the table; one between the legs is not.
    let mut found = Vec::new();
    world.query_point(leg, &QueryFilter::default(), &mut found).unwrap();
    assert_eq!(found, vec![table]);
    world.query_point(Vec3::new(0.0, leg.y, 0.0), &QueryFilter::default(), &mut found).unwrap();
    assert!(found.is_empty(), "{found:?}");
    // A box around two legs finds the table once.
    let aabb = atoll_physics::Aabb::new(Vec3::new(0.3, 0.1, 0.1), Vec3::new(0.7, 0.3, 0.5));
    world.query_aabb(&aabb, &mut found).unwrap();
    assert_eq!(found, vec![table]);
    let _ = floor;
}

/// A pile of tables falling onto the floor and each other at odd angles.
fn pile(count: usize) -> World {
    let (mut world, _) = world_with_floor();
    for k in 0..count {
        let (i, layer) = (k % 3, k / 3);
        let position = Vec3::new(i as f32 * 0.9 - 0.9, 1.0 + layer as f32 * 0.9, (k % 2) as f32 * 0.3);
        let rotation = Quat::from_axis_angle(Vec3::new(1.0, 2.0, 0.5).normalize(), 0.4 * k as f32);
        world.create_body(&table(position, rotation)).unwrap();
    }
    world
}

#[test]
fn a_pile_of_tables_steps_the_same_on_any_number_of_threads() {
    let reference: Vec<u64> = {
        let mut world = pile(12);
        (0..240)
            .map(|_| {
                world.step();
                state_hash(&world)
            })
            .collect()
    };
    for threads in 2..=4 {
        let mut world = pile(12);
        world.set_thread_count(threads).unwrap();
        for (step, expected) in reference.iter().enumerate() {
            world.step();
            assert_eq!(state_hash(&world), *expected, "{threads} threads differ at step {step}");
        }
    }
    // And nothing left the world: every table is above the floor.
    let mut world = pile(12);
    for _ in 0..240 {
        world.step();
    }
    for id in world.body_ids().skip(1) {
        let t = world.transform(id).unwrap();
        assert!(t.position.is_finite() && t.position.y > 0.0, "a table fell through to {}", t.position);
    }
}

#[test]
fn a_compact_state_of_a_pile_of_tables_resumes_bit_for_bit() {
    let mut world = pile(9);
    for _ in 0..60 {
        world.step();
    }
    let state = world.capture();
    for _ in 0..90 {
        world.step();
    }
    let uninterrupted = state_hash(&world);
    world.restore_compact(&state).unwrap();
    for _ in 0..90 {
        world.step();
    }
    assert_eq!(state_hash(&world), uninterrupted);
}

#[test]
fn a_pile_of_tables_saved_and_loaded_steps_the_same() {
    let mut world = pile(6);
    for _ in 0..30 {
        world.step();
    }
    let scene = Scene::from_world(&world, "tables", |id| format!("body {}", id.index()));
    let (mut loaded, _) = scene.build_world().unwrap();
    assert_eq!(
        loaded.body_desc(loaded.body_ids().nth(1).unwrap()).unwrap().children,
        world.body_desc(world.body_ids().nth(1).unwrap()).unwrap().children
    );
    // The loaded world starts without contacts: compare it with the scene built twice.
    let (mut again, _) = scene.build_world().unwrap();
    for _ in 0..60 {
        loaded.step();
        again.step();
    }
    assert_eq!(state_hash(&loaded), state_hash(&again));
}

#[test]
fn destroying_or_replacing_a_compound_leaves_no_child_behind() {
    let (mut world, floor) = world_with_floor();
    let table = world.create_body(&table(Vec3::new(0.0, FOOT_DEPTH, 0.0), Quat::IDENTITY)).unwrap();
    for _ in 0..20 {
        world.step();
    }
    // Replaced by a plain box: its legs are gone from the broadphase and the contacts.
    let plain = BodyDesc::dynamic(Shape::cuboid(TOP).unwrap(), Vec3::new(0.0, 0.06, 0.0));
    world.replace_body(table, &plain).unwrap();
    for _ in 0..30 {
        world.step();
    }
    assert!(world.touching_contacts().all(|c| c.part_a == 0 && c.part_b == 0));
    let ray = Ray::new(Vec3::new(-3.0, 0.06, 0.3), Vec3::X, 10.0).unwrap();
    assert_eq!(world.cast_ray(&ray, &QueryFilter::default()).map(|h| h.body), Some(table));
    // A table again, then destroyed: nothing of it is found or touched.
    world.replace_body(table, &self::table(Vec3::new(0.0, FOOT_DEPTH, 0.0), Quat::IDENTITY)).unwrap();
    for _ in 0..10 {
        world.step();
    }
    world.destroy_body(table).unwrap();
    for _ in 0..10 {
        world.step();
    }
    assert_eq!(world.touching_contacts().count(), 0);
    let ray = Ray::new(Vec3::new(-3.0, 0.3, 0.3), Vec3::X, 10.0).unwrap();
    assert!(world.cast_ray(&ray, &QueryFilter::default()).is_none());
    let _ = floor;
}

#[test]
fn the_rolling_ball_knocks_the_furniture_about_and_nothing_sinks() {
    let scene = atoll_physics::scene::builtin::furniture_room();
    let (mut world, ids) = scene.build_world().unwrap();
    let name_of = |id: BodyId| scene.bodies[ids.iter().position(|&i| i == id).unwrap()].name.clone();
    let start: Vec<Vec3> = ids.iter().map(|&id| world.transform(id).unwrap().position).collect();
    for _ in 0..240 {
        world.step();
    }
    let mut moved = Vec::new();
    for (k, &id) in ids.iter().enumerate().skip(1) {
        let p = world.transform(id).unwrap().position;
        assert!(p.is_finite() && p.y > 0.0, "{} sank to {p}", name_of(id));
        if p.distance(start[k]) > 0.3 && name_of(id) != "ball" {
            moved.push(name_of(id));
        }
    }
    // The ball's path runs through a chair and the first table into the second's chairs.
    for name in ["chair 4", "table 0"] {
        assert!(moved.iter().any(|m| m == name), "{name} stayed put; moved: {moved:?}");
    }
}

#[test]
fn a_pile_of_tables_lands_above_the_floor() {
    let (mut world, ids) = atoll_physics::scene::builtin::table_pile(40).build_world().unwrap();
    for _ in 0..300 {
        world.step();
    }
    for &id in &ids[1..] {
        let t = world.transform(id).unwrap();
        // Every part above the floor: the lowest a table can lie is on its side, its top's
        // middle 0.4 m up; upside down on its top, 0.03 m.
        assert!(t.position.is_finite() && t.position.y > 0.02, "a table's top is at {}", t.position);
        for (shape, pose) in world.body_shapes(id).unwrap() {
            let low = shape.world_aabb(&pose).min.y;
            assert!(low > -0.05, "a part of a table reaches {low} below the floor");
        }
    }
}
