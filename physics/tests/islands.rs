//! Persistent islands against the reference builder, and the sleep and wake rules.

mod common;

use atoll_physics::{BodyDesc, BodyId, Quat, Shape, Transform, Vec3, World, state_hash};

/// A 64-bit LCG, so the randomised scenes are the same on every run.
struct Lcg(u64);

impl Lcg {
    fn unit(&mut self) -> f32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 40) as f32 / (1u64 << 24) as f32
    }

    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }
}

fn drop_random_body(world: &mut World, rng: &mut Lcg) -> BodyId {
    let shape = if rng.unit() < 0.5 {
        Shape::cuboid(Vec3::new(rng.range(0.2, 0.6), rng.range(0.2, 0.6), rng.range(0.2, 0.6))).unwrap()
    } else {
        Shape::sphere(rng.range(0.2, 0.5)).unwrap()
    };
    let p = Vec3::new(rng.range(-3.0, 3.0), rng.range(1.0, 6.0), rng.range(-3.0, 3.0));
    world.create_body(&BodyDesc::dynamic(shape, p)).unwrap()
}

fn assert_islands_match_reference(world: &World, step: usize) {
    world.validate_islands().unwrap_or_else(|e| panic!("step {step}: {e}"));
    let mut settled = world.clone();
    settled.split_all_islands();
    let mut work = Vec::new();
    assert_eq!(settled.island_partition(), settled.reference_partition(&mut work), "step {step}");
}

#[test]
fn persistent_islands_equal_the_reference_through_drops_pushes_and_removals() {
    for seed in [1u64, 7, 42] {
        let (mut world, _) = common::world_with_floor();
        let mut rng = Lcg(seed);
        let mut live: Vec<BodyId> = (0..40).map(|_| drop_random_body(&mut world, &mut rng)).collect();
        for step in 0..600 {
            let roll = rng.unit();
            if roll < 0.03 && !live.is_empty() {
                let victim = live.swap_remove((rng.unit() * live.len() as f32) as usize % live.len());
                world.destroy_body(victim).unwrap();
            } else if roll < 0.08 && !live.is_empty() {
                let target = live[(rng.unit() * live.len() as f32) as usize % live.len()];
                let push = Vec3::new(rng.range(-1.0, 1.0), rng.range(0.0, 1.0), rng.range(-1.0, 1.0)) * 200.0;
                world.apply_impulse(target, push).unwrap();
            } else if roll < 0.11 {
                live.push(drop_random_body(&mut world, &mut rng));
            }
            world.step();
            assert_islands_match_reference(&world, step);
        }
        assert!(world.islands().any(|i| !i.awake), "seed {seed}: something fell asleep");
    }
}

fn stack(world: &mut World, x: f32, count: usize) -> Vec<BodyId> {
    (0..count)
        .map(|i| {
            let p = Vec3::new(x, 0.5 + i as f32, 0.0);
            world.create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), p)).unwrap()
        })
        .collect()
}

fn all_asleep(world: &World, ids: &[BodyId]) -> bool {
    ids.iter().all(|id| !world.is_awake(*id).unwrap())
}

#[test]
fn a_settled_stack_sleeps_as_one_island_and_a_ball_wakes_it_at_once() {
    let (mut world, _) = common::world_with_floor();
    let boxes = stack(&mut world, 0.0, 5);
    common::run(&mut world, 120);
    assert!(all_asleep(&world, &boxes), "the stack sleeps after two seconds");
    assert_eq!(world.profile().counters.awake_bodies, 0);
    let island = world.body_island(boxes[0]).unwrap().unwrap();
    assert!(boxes.iter().all(|b| world.body_island(*b).unwrap() == Some(island)));

    let ball =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.3).unwrap(), Vec3::new(0.0, 6.0, 0.0))).unwrap();
    for _ in 0..120 {
        world.step();
        let began = world.touch_events().iter().any(|e| e.began && (e.body_a == ball || e.body_b == ball));
        if began {
            assert!(
                boxes.iter().all(|b| world.is_awake(*b).unwrap()),
                "the whole stack wakes in the same step"
            );
            return;
        }
        assert!(all_asleep(&world, &boxes), "nothing wakes the stack before the ball touches it");
    }
    panic!("the ball never landed");
}

#[test]
fn a_body_that_cannot_sleep_holds_its_island_awake() {
    let (mut world, _) = common::world_with_floor();
    let restless = stack(&mut world, 0.0, 3);
    let calm = stack(&mut world, 5.0, 3);
    let mut desc = BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::new(0.0, 3.5, 0.0));
    desc.can_sleep = false;
    let insomniac = world.create_body(&desc).unwrap();
    common::run(&mut world, 300);
    assert!(all_asleep(&world, &calm));
    assert!(restless.iter().chain([&insomniac]).all(|b| world.is_awake(*b).unwrap()));
    world.validate_islands().unwrap();
}

#[test]
fn removing_the_middle_of_a_chain_leaves_two_islands() {
    let (mut world, _) = common::world_with_floor();
    // Five boxes side by side, faces touching: one island through their side contacts.
    let chain: Vec<BodyId> = (0..5)
        .map(|i| {
            let p = Vec3::new(i as f32 * 1.0, 0.5, 0.0);
            world.create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), p)).unwrap()
        })
        .collect();
    common::run(&mut world, 10);
    let first = world.body_island(chain[0]).unwrap();
    assert!(chain.iter().all(|b| world.body_island(*b).unwrap() == first), "the chain is one island");
    world.destroy_body(chain[2]).unwrap();
    common::run(&mut world, 3);
    let left = world.body_island(chain[0]).unwrap();
    let right = world.body_island(chain[4]).unwrap();
    assert_ne!(left, right);
    assert_eq!(world.body_island(chain[1]).unwrap(), left);
    assert_eq!(world.body_island(chain[3]).unwrap(), right);
    assert_eq!(world.islands().count(), 2);
}

#[test]
fn edits_wake_and_static_bodies_never_do() {
    let (mut world, floor) = common::world_with_floor();
    let boxes = stack(&mut world, 0.0, 3);
    common::run(&mut world, 120);
    assert!(all_asleep(&world, &boxes));
    // Moving the floor (a static body) wakes nothing.
    let xf = world.transform(floor).unwrap();
    world.set_transform(floor, Transform::new(xf.position + Vec3::Y * 0.001, xf.rotation)).unwrap();
    world.step();
    assert!(all_asleep(&world, &boxes));
    // A push on the top box wakes the whole stack.
    world.apply_impulse(boxes[2], Vec3::X * 10.0).unwrap();
    assert!(boxes.iter().all(|b| world.is_awake(*b).unwrap()));
    let island = world.body_island(boxes[2]).unwrap().unwrap();
    assert!(world.sleep_events().iter().any(|e| e.island == island && !e.asleep), "the wake is reported");
    common::run(&mut world, 240);
    assert!(all_asleep(&world, &boxes));
    world.set_transform(boxes[0], Transform::new(Vec3::new(0.0, 0.5, 0.0), Quat::IDENTITY)).unwrap();
    assert!(boxes.iter().all(|b| world.is_awake(*b).unwrap()));
}

#[test]
fn a_moving_kinematic_body_keeps_what_it_touches_awake() {
    let (mut world, _) = common::world_with_floor();
    let mut platform = BodyDesc::new(
        atoll_physics::BodyType::Kinematic,
        Shape::cuboid(Vec3::new(2.0, 0.25, 2.0)).unwrap(),
        Vec3::new(0.0, 1.0, 0.0),
    );
    platform.linear_velocity = Vec3::new(0.2, 0.0, 0.0);
    world.create_body(&platform).unwrap();
    let rider = world
        .create_body(&BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.3)).unwrap(), Vec3::new(0.0, 1.6, 0.0)))
        .unwrap();
    common::run(&mut world, 240);
    assert!(world.is_awake(rider).unwrap());
    assert!(
        (world.linear_velocity(rider).unwrap().x - 0.2).abs() < 0.02,
        "the rider moves with the platform"
    );
}

#[test]
fn a_kinematic_body_that_starts_moving_wakes_what_it_touches() {
    // A box asleep on a kinematic platform at rest, and one asleep on the floor beside it:
    // once the platform moves, the box on it wakes, named as the cause, and the other sleeps on.
    let (mut world, _) = common::world_with_floor();
    let platform = world
        .create_body(&BodyDesc::new(
            atoll_physics::BodyType::Kinematic,
            Shape::cuboid(Vec3::new(2.0, 0.25, 2.0)).unwrap(),
            Vec3::new(0.0, 1.0, 0.0),
        ))
        .unwrap();
    let cube = || Shape::cuboid(Vec3::splat(0.3)).unwrap();
    let rider = world.create_body(&BodyDesc::dynamic(cube(), Vec3::new(0.0, 1.6, 0.0))).unwrap();
    let beside = world.create_body(&BodyDesc::dynamic(cube(), Vec3::new(5.0, 0.3, 0.0))).unwrap();
    common::run(&mut world, 240);
    assert!(!world.is_awake(rider).unwrap() && !world.is_awake(beside).unwrap());
    world.set_linear_velocity(platform, Vec3::new(0.2, 0.0, 0.0)).unwrap();
    world.step();
    assert!(world.is_awake(rider).unwrap());
    assert!(!world.is_awake(beside).unwrap());
    let island = world.body_island(rider).unwrap().unwrap();
    let (cause, _) = world.wake_cause(island).unwrap().unwrap();
    assert_eq!(cause, atoll_physics::WakeCause::Kinematic { body: rider, kinematic: platform });
    common::run(&mut world, 120);
    assert!(world.is_awake(rider).unwrap(), "the moving platform keeps it awake");
}

#[test]
fn sleeping_is_deterministic_and_snapshots_resume() {
    let hashes: Vec<u64> = (0..2)
        .map(|_| {
            let (mut world, _) = common::world_with_floor();
            let mut rng = Lcg(99);
            for _ in 0..60 {
                drop_random_body(&mut world, &mut rng);
            }
            common::run(&mut world, 400);
            assert!(world.islands().any(|i| !i.awake));
            state_hash(&world)
        })
        .collect();
    assert_eq!(hashes[0], hashes[1]);
}

#[test]
fn a_settled_pyramid_costs_nothing_to_step() {
    let (mut world, _) = common::builtin("pyramid_3d.ron");
    common::run(&mut world, 300);
    assert_eq!(world.profile().counters.awake_bodies, 0, "the pyramid sleeps");
    assert_eq!(world.profile().counters.touching_contacts, 0);
    assert_eq!(world.profile().counters.awake_islands, 0);
}

#[test]
fn turning_sleep_off_wakes_everything() {
    let (mut world, _) = common::builtin("tower.ron");
    common::run(&mut world, 120);
    assert_eq!(world.profile().counters.awake_bodies, 0);
    let settings = atoll_physics::StepSettings { sleep_enabled: false, ..*world.settings() };
    world.set_settings(settings).unwrap();
    world.validate_islands().unwrap();
    world.step();
    assert_eq!(world.profile().counters.awake_bodies, 20);
    common::run(&mut world, 120);
    assert_eq!(world.profile().counters.awake_bodies, 20, "nothing sleeps while sleeping is off");
}
