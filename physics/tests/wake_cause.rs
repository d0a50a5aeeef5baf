//! Why an island is awake: what woke it last and when (a contact with which body, a joint, an
//! edit, a force, everything at once), and which body keeps an awake island from sleeping.

mod common;

use atoll_physics::{
    BodyDesc, BodyId, JointKind, RevoluteJoint, Shape, StepSettings, Vec3, WakeCause, World,
};

/// A pile of three boxes on a floor, stepped until it sleeps; returns the boxes.
fn sleeping_pile() -> (World, Vec<BodyId>) {
    let (mut world, _) = common::world_with_floor();
    let boxes: Vec<BodyId> = (0..3)
        .map(|i| {
            let shape = Shape::cuboid(Vec3::splat(0.5)).unwrap();
            world.create_body(&BodyDesc::dynamic(shape, Vec3::new(0.0, 0.5 + i as f32, 0.0))).unwrap()
        })
        .collect();
    for _ in 0..600 {
        world.step();
        if boxes.iter().all(|b| !world.is_awake(*b).unwrap()) {
            return (world, boxes);
        }
    }
    panic!("the pile did not fall asleep");
}

fn cause_of(world: &World, body: BodyId) -> Option<(WakeCause, u64)> {
    let island = world.body_island(body).unwrap().unwrap();
    world.wake_cause(island).unwrap()
}

#[test]
fn the_answer_names_the_ball_thrown_at_a_sleeping_pile() {
    let (mut world, boxes) = sleeping_pile();
    let mut ball = BodyDesc::dynamic(Shape::sphere(0.3).unwrap(), Vec3::new(-6.0, 2.0, 0.0));
    ball.linear_velocity = Vec3::new(12.0, 1.0, 0.0);
    let ball = world.create_body(&ball).unwrap();
    let mut woke_at = None;
    for _ in 0..120 {
        world.step();
        if world.is_awake(boxes[1]).unwrap() {
            woke_at = Some(world.step_count());
            break;
        }
    }
    let woke_at = woke_at.expect("the ball reaches the pile");
    let (cause, step) = cause_of(&world, boxes[1]).expect("the pile slept, so something woke it");
    match cause {
        WakeCause::Contact { body, other } => {
            assert_eq!(other, ball, "the ball woke it");
            assert!(boxes.contains(&body), "through one of its boxes");
        }
        other => panic!("woken by {other:?}"),
    }
    // The step of the wake: the first step after which it was awake.
    assert_eq!(step, woke_at);
    // While it moves, some body keeps it awake, faster than the thresholds.
    let island = world.body_island(boxes[1]).unwrap().unwrap();
    let restless = world.restless_body(island).unwrap().expect("awake");
    let (linear, angular) = restless.excess();
    assert!(restless.can_sleep && (linear > 1.0 || angular > 1.0 || restless.sleep_timer == 0.0));
}

#[test]
fn edits_forces_joints_and_settings_are_named() {
    let (mut world, boxes) = sleeping_pile();
    world.apply_force(boxes[2], Vec3::new(0.0, 1.0, 0.0)).unwrap();
    assert!(matches!(cause_of(&world, boxes[0]), Some((WakeCause::Force { body }, _)) if body == boxes[2]));

    let (mut world, boxes) = sleeping_pile();
    let moved = atoll_physics::Transform::from_position(Vec3::new(0.0, 2.6, 0.0));
    world.set_transform(boxes[2], moved).unwrap();
    assert!(matches!(cause_of(&world, boxes[1]), Some((WakeCause::Edit { body }, _)) if body == boxes[2]));

    let (mut world, boxes) = sleeping_pile();
    let desc = world
        .joint_desc_at(
            JointKind::Revolute(RevoluteJoint::default()),
            None,
            boxes[2],
            Vec3::new(0.0, 3.0, 0.0),
            Vec3::Z,
        )
        .unwrap();
    let joint = world.create_joint(&desc).unwrap();
    assert!(
        matches!(cause_of(&world, boxes[2]), Some((WakeCause::Joint { body, joint: j }, _)) if body == boxes[2] && j == joint)
    );

    let (mut world, boxes) = sleeping_pile();
    let step = world.step_count();
    world.set_settings(StepSettings { sleep_enabled: false, ..*world.settings() }).unwrap();
    assert_eq!(cause_of(&world, boxes[0]), Some((WakeCause::All, step)));
}

#[test]
fn an_island_that_never_slept_has_no_cause_and_a_body_that_may_not_sleep_keeps_it_awake() {
    let (mut world, _) = common::world_with_floor();
    let mut restless = BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 0.5, 0.0));
    restless.can_sleep = false;
    let id = world.create_body(&restless).unwrap();
    common::run(&mut world, 200);
    let island = world.body_island(id).unwrap().unwrap();
    assert_eq!(world.wake_cause(island).unwrap(), None);
    let why = world.restless_body(island).unwrap().expect("it never sleeps");
    assert_eq!(why.body, id);
    assert!(!why.can_sleep);
    assert!(why.excess().0 < 1.0, "it rests: its speed is not what keeps it awake");
}
