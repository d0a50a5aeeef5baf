//! The step pipeline's bookkeeping: touch events, proxy re-insertion, pairs, profile counters.

mod common;

use atoll_physics::{BodyDesc, Shape, Stage, Vec3};

#[test]
fn touch_events_report_begin_and_end_once() {
    let (mut world, floor) = common::world_with_floor();
    let ball = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::Y * 1.0)).unwrap();
    let mut began = 0;
    for _ in 0..120 {
        world.step();
        for e in world.touch_events() {
            assert!(e.began);
            assert_eq!((e.body_a, e.body_b), (floor, ball));
            began += 1;
        }
    }
    assert_eq!(began, 1, "the ball lands once");
    // Throw it up: the contact ends while the fat boxes still overlap, later the pair goes away.
    world.set_linear_velocity(ball, Vec3::Y * 5.0).unwrap();
    let mut ended = 0;
    for _ in 0..20 {
        world.step();
        ended += world.touch_events().iter().filter(|e| !e.began).count();
    }
    assert_eq!(ended, 1);
    assert_eq!(world.contact_count(), 0, "the pair is dropped once the fat boxes separate");
}

#[test]
fn a_touch_ends_when_its_bodies_part_at_once() {
    // Teleported away from the floor it rests on, the ball's contact separates in one step
    // while still touching: the contact goes, and its touch ends with one event.
    let (mut world, floor) = common::world_with_floor();
    let ball = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::Y * 0.5)).unwrap();
    common::run(&mut world, 30);
    assert_eq!(world.contact_count(), 1);
    let mut far = world.transform(ball).unwrap();
    far.position.y += 20.0;
    world.set_transform(ball, far).unwrap();
    world.step();
    let events = world.touch_events();
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(!events[0].began);
    assert_eq!((events[0].body_a, events[0].body_b), (floor, ball));
    assert_eq!(world.contact_count(), 0, "the pair is dropped at once");
}

#[test]
fn resting_bodies_are_not_reinserted() {
    let (mut world, _) = common::builtin("pyramid_3d.ron");
    common::run(&mut world, 120);
    world.step();
    let stats = world.broadphase_stats();
    assert_eq!(stats.reinsertions_last_step, 0);
    assert_eq!(world.profile().counters.reinsertions, 0);
    assert_eq!(stats.movable_tree.proxy_count, 385);
    assert_eq!(stats.static_tree.proxy_count, 1);
    assert!(stats.movable_tree.max_balance <= 1);
    assert!(stats.movable_tree.height <= 14, "height {}", stats.movable_tree.height);
}

#[test]
fn moving_bodies_are_reinserted_and_counted() {
    let (mut world, _) = common::world_with_floor();
    let ball = world.create_body(&BodyDesc::dynamic(Shape::sphere(0.25).unwrap(), Vec3::Y * 50.0)).unwrap();
    let mut total = 0;
    for _ in 0..60 {
        world.step();
        total += world.broadphase_stats().reinsertions_last_step;
    }
    assert!(total > 0, "a falling body leaves its fat box");
    // The fat box holds a body touching nothing for the next several steps of its fall.
    assert!(total <= 10, "the fat box's predicted path spares most steps, got {total}");
    let fat = world.fat_aabb(ball).unwrap();
    assert!(fat.contains(&world.aabb(ball).unwrap()));
}

#[test]
fn profile_counts_what_the_step_touched() {
    let (mut world, _) = common::builtin("tower.ron");
    common::run(&mut world, 10);
    let p = world.profile();
    assert_eq!(p.counters.bodies, 21);
    assert_eq!(p.counters.awake_bodies, 20);
    assert_eq!(p.counters.contact_pairs, 20);
    assert_eq!(p.counters.touching_contacts, 20);
    assert_eq!(p.counters.manifold_points, 80);
    let stage_sum: f64 = Stage::ALL.iter().map(|s| p.stage(*s)).sum();
    assert!(stage_sum > 0.0 && stage_sum <= p.total_ms + 1e-9);
}
