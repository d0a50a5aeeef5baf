//! Typed ids with generations: an id kept after its island or contact is gone is refused with
//! an error instead of silently naming whatever reuses the slot.

mod common;

use atoll_physics::{AtollError, BodyDesc, Shape, Vec3};

#[test]
fn a_stale_island_id_is_refused_after_a_merge_and_after_reuse() {
    let (mut world, _) = common::world_with_floor();
    let a =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 0.5, 0.0))).unwrap();
    let b =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 3.0, 0.0))).unwrap();
    let (island_a, island_b) =
        (world.body_island(a).unwrap().unwrap(), world.body_island(b).unwrap().unwrap());
    assert_ne!(island_a, island_b);
    assert_eq!(world.island_bodies(island_b).unwrap(), vec![b]);
    assert_eq!(world.island(island_a).unwrap().body_count, 1);
    // The upper ball lands on the lower one: their islands merge and one id stops naming any.
    common::run(&mut world, 90);
    let merged = world.body_island(a).unwrap().unwrap();
    assert_eq!(world.body_island(b).unwrap(), Some(merged));
    let gone = if merged == island_a { island_b } else { island_a };
    assert_eq!(world.island_bodies(gone), Err(AtollError::StaleIslandId));
    assert_eq!(world.island(gone), Err(AtollError::StaleIslandId));
    assert_eq!(world.island_bodies(merged).unwrap().len(), 2);
    // A new body reuses the freed island slot under a new generation: the old id stays stale.
    let c =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(9.0, 0.5, 0.0))).unwrap();
    let island_c = world.body_island(c).unwrap().unwrap();
    assert_eq!(island_c.index(), gone.index(), "the free slot is reused");
    assert_ne!(island_c, gone);
    assert_eq!(world.island_bodies(gone), Err(AtollError::StaleIslandId));
    assert_eq!(world.island_bodies(island_c).unwrap(), vec![c]);
}

#[test]
fn a_stale_contact_id_is_refused_after_the_pair_is_destroyed_and_its_slot_reused() {
    let (mut world, floor) = common::world_with_floor();
    let ball =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 0.5, 0.0))).unwrap();
    world.step();
    let contact = world.contacts().find(|c| c.body_a == floor || c.body_b == floor).unwrap();
    assert_eq!(world.contact(contact.id).unwrap().body_b, ball);
    // Destroying the ball destroys its contact.
    world.destroy_body(ball).unwrap();
    assert_eq!(world.contact(contact.id).map(|c| c.id), Err(AtollError::StaleContactId));
    // A new pair takes the same slot with a new generation.
    world.create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(5.0, 0.5, 0.0))).unwrap();
    world.step();
    let fresh = world.contacts().next().unwrap();
    assert_eq!(fresh.id.index(), contact.id.index(), "the free slot is reused");
    assert!(world.contact(contact.id).is_err());
    assert_eq!(world.contact(fresh.id).unwrap().id, fresh.id);
}
