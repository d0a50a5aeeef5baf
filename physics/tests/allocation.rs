//! The steady state of a step allocates nothing: buffers are reused, tree nodes come from a
//! free list, contacts from a free list.

mod common;

#[test]
fn settled_scenes_step_without_allocating() {
    for scene in ["tower.ron", "pyramid_3d.ron"] {
        let (mut world, _) = common::builtin(scene);
        common::run(&mut world, 240);
        let info = allocation_counter::measure(|| common::run(&mut world, 120));
        assert_eq!(info.count_total, 0, "{scene}: {} allocations in 120 steady steps", info.count_total);
    }
}
