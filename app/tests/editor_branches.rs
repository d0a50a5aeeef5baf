//! Branches in the editor, driven through the real UI with egui_kittest and rendered through
//! wgpu: fork at a step, change a setting in the branch, play, read the comparison (the first
//! difference at the branch's first step, the divergence plot), see the other branch as
//! ghosts, switch back, go back along the timeline with both, drop the branch.

mod common;

use atoll::editor::panels::branches::{BranchesPanel, MAX_COLOUR};
use atoll_physics::StepSettings;
use common::harness;
use egui_kittest::kittest::Queryable;

/// The viewport's pixels: the middle of the window, away from the side panels.
fn viewport_pixels(image: &image::RgbaImage) -> Vec<[u8; 4]> {
    common::frame_pixels(image, (0.3, 0.6), (0.2, 0.8))
}

#[test]
fn a_fork_with_two_substeps_is_compared_plotted_drawn_as_ghosts_switched_and_dropped() {
    let mut harness = harness("rain.ron");
    harness.run_steps(2);
    let four =
        StepSettings { substeps: 4, sleep_enabled: false, ..*harness.state().state.sim.world.settings() };
    harness.state_mut().state.apply_settings(four).unwrap();
    harness.state_mut().state.step_many(30);
    harness.run_steps(2);
    // The Timing and Inspector panels folded, so the Branches panel has room.
    for panel in ["Timing", "Inspector"] {
        harness.get_by_label(panel).click_accesskit();
        harness.run_steps(2);
    }
    common::open_panel(&mut harness, "Branches");
    harness.get_by_label("Fork here").click_accesskit();
    harness.run_steps(2);
    {
        let branches = &harness.state().state.sim.branching.branches;
        assert_eq!(branches.len(), 2);
        assert_eq!(branches.active().name, "branch 1");
        assert_eq!(branches.active().fork_step, 30);
        assert_eq!(branches.compared().map(|c| c.name.as_str()), Some("main"));
    }
    harness.get_by_label_contains("forked \"branch 1\" at step 30");
    // The change goes to the branch; "main" keeps four substeps.
    let two = StepSettings { substeps: 2, ..four };
    harness.state_mut().state.apply_settings(two).unwrap();
    harness.state_mut().state.step_many(40);
    harness.run_steps(2);
    {
        let state = &harness.state().state;
        let main = state.sim.branching.branches.compared_world().unwrap();
        assert_eq!(main.settings().substeps, 4);
        assert_eq!(main.step_count(), 70);
        assert_eq!(state.sim.world.settings().substeps, 2);
        assert_eq!(state.sim.branching.branches.first_difference(), Some(31));
    }
    harness.get_by_label_contains("first difference at step 31");
    harness.get_by_label_contains("step 70: at most");
    // The divergence plot is drawn in the right dock.
    harness.get_by_label_contains("first difference at step").scroll_to_me();
    harness.run_steps(2);
    let with_ghosts = harness.render().unwrap();
    with_ghosts.save(std::env::temp_dir().join("atoll-branches.png")).unwrap();
    let plotted = common::dock_pixels(&with_ghosts, MAX_COLOUR);
    assert!(plotted > 50, "{plotted} pixels of the largest distance's line");
    // The ghosts: the same frame without them differs in the viewport.
    harness.get_by_label("draw the compared branch as ghosts").click_accesskit();
    harness.run_steps(2);
    assert!(!harness.state().state.sim.branching.ghosts);
    let without = harness.render().unwrap();
    let (a, b) = (viewport_pixels(&with_ghosts), viewport_pixels(&without));
    let changed = a.iter().zip(&b).filter(|(p, q)| (0..3).any(|i| p[i].abs_diff(q[i]) > 12)).count();
    assert!(changed as f64 > 0.002 * a.len() as f64, "the ghosts changed {changed} of {} pixels", a.len());
    harness.get_by_label("draw the compared branch as ghosts").click_accesskit();
    harness.run_steps(2);

    // Back along the timeline: both branches go back, and the comparison there stands.
    let at_50 = harness.state().state.sim.branching.branches.log()[&50].clone();
    harness.state_mut().state.go_to_step(50).unwrap();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.branching.branches.compared_world().unwrap().step_count(), 50);
    assert_eq!(harness.state().state.sim.branching.branches.log()[&50], at_50);

    // Show "main": its world and settings are the live ones again, the branch compared.
    harness.state_mut().state.go_to_step(70).unwrap();
    harness.run_steps(2);
    harness.get_by_label("show").click_accesskit();
    harness.run_steps(2);
    {
        let state = &harness.state().state;
        assert_eq!(state.sim.branching.branches.active().name, "main");
        assert_eq!(state.sim.world.settings().substeps, 4);
        assert_eq!(state.sim.world.step_count(), 70);
        assert_eq!(state.sim.branching.branches.compared().map(|c| c.name.as_str()), Some("branch 1"));
    }
    // A name taken is refused and said so.
    harness.state_mut().panels.find_mut::<BranchesPanel>().unwrap().fork_name = "branch 1".into();
    harness.run_steps(1);
    harness.get_by_label("Fork here").click_accesskit();
    harness.run_steps(2);
    harness.get_by_label_contains("is named \"branch 1\" already");
    assert_eq!(harness.state().state.sim.branching.branches.len(), 2);
    // Dropped: one branch again, nothing compared.
    harness.get_by_label("drop").click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.branching.branches.len(), 1);
    assert!(harness.state().state.sim.branching.branches.compared().is_none());
    harness.get_by_label_contains("dropped \"branch 1\"");
}

#[test]
fn an_edit_in_a_branch_is_undone_in_that_branch_only() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    harness.state_mut().state.step_many(5);
    let gravity = harness.state().state.sim.world.settings().gravity;
    // A contact traced in main: parked, main steps untraced (at full speed).
    let contact = harness.state().state.sim.world.contacts().next().unwrap().id;
    harness.state_mut().state.sim.world.set_traced_contacts(&[contact]).unwrap();
    let id = harness.state_mut().state.fork_branch("heavier gravity").unwrap();
    let main = harness.state().state.sim.branching.branches.compared().unwrap().id;
    assert!(harness.state().state.sim.branching.branches.world(main).unwrap().traced_contacts().is_empty());
    let strong = StepSettings {
        gravity: glam::Vec3::new(0.0, -20.0, 0.0),
        ..*harness.state().state.sim.world.settings()
    };
    harness.state_mut().state.apply_settings(strong).unwrap();
    assert_eq!(harness.state().state.doc.undo.undo_len(), 1);
    assert_eq!(harness.state().state.edited_world().settings().gravity, strong.gravity);
    harness.state_mut().state.switch_branch(main).unwrap();
    assert_eq!(harness.state().state.doc.undo.undo_len(), 0, "main has no edit to undo");
    assert_eq!(harness.state().state.sim.world.settings().gravity, gravity);
    // Main's edited state (what Reset returns to, Save writes) is its own.
    assert_eq!(harness.state().state.edited_world().settings().gravity, gravity);
    harness.state_mut().state.switch_branch(id).unwrap();
    assert_eq!(harness.state().state.doc.undo.undo_len(), 1);
    assert_eq!(harness.state().state.sim.world.settings().gravity, strong.gravity);
    harness.state_mut().state.undo();
    assert_eq!(harness.state().state.sim.world.settings().gravity, gravity);
}
