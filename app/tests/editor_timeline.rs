//! The timeline, driven through the real UI with egui_kittest and rendered through wgpu: keys
//! and the bar move the world along the recorded steps, every panel (here the Inspector) shows
//! the step under the cursor, playing from the past replays the recorded steps, an edit in
//! the past discards the steps after it and says so in the status bar, and a body the step
//! slowed to a speed cap is marked on the bar and named in the Inspector.

mod common;

use atoll::editor::Editor;
use atoll::editor::grab::Grab;
use atoll::editor::panels::timeline::{BAR_COLOUR, CAPPED_COLOUR, CURSOR_COLOUR, EDIT_COLOUR, step_x};
use atoll_physics::BodyId;
use common::{harness, pixels_near};
use egui::accesskit::Role;
use egui::{Key, Modifiers, Pos2};
use egui_kittest::Harness;
use egui_kittest::kittest::Queryable;

/// The tower with its top box selected, stepped `steps` times; returns the box and its height
/// after each step (index 0: before the first).
fn tower_stepped(steps: usize) -> (Harness<'static, Editor>, BodyId, Vec<f32>) {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let state = &mut harness.state_mut().state;
    let top = state.sim.world.body_ids().last().unwrap();
    state.doc.selection.set(Some(top));
    // Knock it, so its height changes from step to step.
    state.sim.world.apply_impulse(top, atoll_physics::Vec3::new(3.0, 4.0, 0.0)).unwrap();
    state.mark_edited();
    let mut heights = vec![state.sim.world.transform(top).unwrap().position.y];
    for _ in 0..steps {
        state.step_once();
        heights.push(state.sim.world.transform(top).unwrap().position.y);
    }
    harness.run_steps(2);
    (harness, top, heights)
}

/// The numbers the Inspector's number fields show.
fn field_values(harness: &Harness<'_, Editor>) -> Vec<f64> {
    harness
        .query_all_by_role(Role::SpinButton)
        .filter_map(|n| n.value())
        .filter_map(|v| v.split_whitespace().last().and_then(|s| s.parse::<f64>().ok()))
        .collect()
}

fn shows(harness: &Harness<'_, Editor>, value: f32) -> bool {
    field_values(harness).iter().any(|v| (v - value as f64).abs() < 2e-4)
}

#[test]
fn keys_step_back_and_forward_and_the_inspector_shows_that_step() {
    let (mut harness, top, heights) = tower_stepped(40);
    assert!(shows(&harness, heights[40]), "the Inspector shows the latest step");
    harness.key_press(Key::Comma);
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), 39);
    harness.key_press_modifiers(Modifiers::SHIFT, Key::Comma);
    harness.run_steps(2);
    let state = &harness.state().state;
    assert_eq!(state.sim.world.step_count(), 29);
    assert_eq!(state.sim.world.transform(top).unwrap().position.y, heights[29]);
    assert!(shows(&harness, heights[29]), "the Inspector shows step 29: {:?}", field_values(&harness));
    // Forward again: the recorded steps replay, nothing is discarded.
    harness.key_press(Key::Period);
    harness.run_steps(2);
    let state = &harness.state().state;
    assert_eq!(state.sim.world.transform(top).unwrap().position.y, heights[30]);
    assert_eq!(state.sim.timeline.range(), (0, 40), "the recorded future is kept");
    assert!(state.sim.timeline.note.is_none());
}

#[test]
fn dragging_on_the_bar_goes_to_the_step_under_the_pointer() {
    let (mut harness, top, heights) = tower_stepped(60);
    let bar = harness.get_by_label("timeline").rect();
    // The cursor is drawn at the right end (the latest step) over the bar's colour.
    let image = harness.render().unwrap();
    let end = Pos2::new(bar.right() - 2.0, bar.center().y);
    assert!(pixels_near(&image, end, 2, rgb(CURSOR_COLOUR), 40) > 0, "the cursor at the end");
    let middle = Pos2::new(bar.center().x, bar.center().y);
    assert!(pixels_near(&image, middle, 2, rgb(BAR_COLOUR), 30) > 0, "the bar's colour in the middle");
    // Drag from the end to a quarter of the way.
    let quarter = Pos2::new(bar.left() + bar.width() * 0.25, bar.center().y);
    harness.hover_at(end);
    harness.run_steps(1);
    harness.drag_at(end);
    harness.run_steps(1);
    harness.hover_at(middle);
    harness.run_steps(1);
    harness.hover_at(quarter);
    harness.run_steps(1);
    harness.drop_at(quarter);
    harness.run_steps(2);
    let step = harness.state().state.sim.world.step_count();
    assert!((13..=17).contains(&step), "at step {step}");
    assert_eq!(harness.state().state.sim.world.transform(top).unwrap().position.y, heights[step as usize]);
    assert!(shows(&harness, heights[step as usize]));
    // The cursor moved with it.
    let image = harness.render().unwrap();
    let at = Pos2::new(bar.left() + bar.width() * step as f32 / 60.0, bar.center().y);
    assert!(pixels_near(&image, at, 2, rgb(CURSOR_COLOUR), 40) > 0, "the cursor at step {step}");
}

#[test]
fn an_edit_in_the_past_keeps_the_later_steps_as_a_branch_or_discards_them_and_says_so() {
    for keep in [true, false] {
        let (mut harness, top, _) = tower_stepped(50);
        harness.state_mut().state.sim.branching.keep_discarded = keep;
        let recorded_40 = harness.state().state.sim.timeline.history.record_of(40).unwrap().hash;
        for _ in 0..3 {
            harness.key_press_modifiers(Modifiers::SHIFT, Key::Comma);
            harness.run_steps(1);
        }
        harness.run_steps(1);
        assert_eq!(harness.state().state.sim.world.step_count(), 20);
        // Move the selected box through the Inspector's position y field.
        let y = harness.state().state.sim.world.transform(top).unwrap().position.y;
        let field = harness
            .query_all_by_role(Role::SpinButton)
            .find(|n| {
                let shown = n.value().and_then(|v| v.split_whitespace().last()?.parse::<f32>().ok());
                shown.is_some_and(|v| (v - y).abs() < 2e-4)
            })
            .expect("the position y field");
        field.set_value_accesskit(y as f64 + 1.0);
        harness.run_steps(3);
        let state = &harness.state().state;
        assert_eq!(state.sim.timeline.range(), (0, 20), "steps 21..=50 are gone from this branch");
        if keep {
            harness.get_by_label_contains("the 30 recorded steps after the edit are kept as the branch");
            let branches = &harness.state().state.sim.branching.branches;
            assert_eq!(branches.len(), 2, "one branch, however many frames the drag took");
            assert_eq!(branches.compared().unwrap().name, "before the edit at step 20");
        } else {
            harness.get_by_label_contains("discarded the 30 steps after it");
            assert_eq!(harness.state().state.sim.branching.branches.len(), 1);
        }
        // Playing on records a new future from the edit; the old one, kept, goes beside it.
        for _ in 0..2 {
            harness.key_press_modifiers(Modifiers::SHIFT, Key::Period);
            harness.run_steps(2);
        }
        let state = &harness.state().state;
        assert_eq!(state.sim.timeline.range(), (0, 40));
        if keep {
            let old = state.sim.branching.branches.compared_world().unwrap();
            assert_eq!(atoll_physics::state_hash(old), recorded_40, "the recorded step 40");
            assert!(state.sim.branching.branches.log()[&40].divergence.max > 0.1, "the moved box is apart");
        }
    }
}

#[test]
fn a_grab_is_replayed_along_the_timeline_and_playing_on_from_it_keeps_the_future() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let state = &mut harness.state_mut().state;
    let top = state.sim.world.body_ids().last().unwrap();
    let at = state.sim.world.transform(top).unwrap().position;
    let eye = at + atoll_physics::Vec3::new(0.0, 0.0, 10.0);
    let mut grab = Grab::begin(&state.sim.world, top, at, eye).expect("the top box is dynamic");
    grab.aim(eye, (at + atoll_physics::Vec3::new(2.0, 1.0, 0.0) - eye).normalize());
    state.sim.grab = Some(grab);
    let mut heights = vec![at.y];
    for _ in 0..40 {
        state.step_once();
        heights.push(state.sim.world.transform(top).unwrap().position.y);
    }
    state.sim.grab = None;
    for _ in 0..20 {
        state.step_once();
        heights.push(state.sim.world.transform(top).unwrap().position.y);
    }
    // The grab's pulls are inputs of the steps after them: one segment, marked as edits.
    let history = &state.sim.timeline.history;
    assert!(history.steps().all(|r| !r.after_edit || r.step == 0), "no segment per grabbed step");
    assert_eq!(history.steps().filter(|r| r.inputs > 0).count(), 40);
    harness.run_steps(2);
    let bar = harness.get_by_label("timeline").rect();
    let image = harness.render().unwrap();
    let grabbed = Pos2::new(bar.left() + bar.width() * 20.0 / 60.0, bar.center().y);
    assert!(pixels_near(&image, grabbed, 2, rgb(EDIT_COLOUR), 40) > 0, "edit marks where it was grabbed");
    // Back into the grab, then forward through it: the recorded pulls are made again.
    for _ in 0..4 {
        harness.key_press_modifiers(Modifiers::SHIFT, Key::Comma);
        harness.run_steps(1);
    }
    assert_eq!(harness.state().state.sim.world.step_count(), 20);
    for _ in 0..4 {
        harness.key_press_modifiers(Modifiers::SHIFT, Key::Period);
        harness.run_steps(1);
    }
    let state = &harness.state().state;
    assert_eq!(state.sim.world.step_count(), 60);
    assert_eq!(state.sim.world.transform(top).unwrap().position.y, heights[60]);
    assert_eq!(state.sim.timeline.range(), (0, 60), "the recorded future is kept");
    assert!(state.sim.timeline.note.is_none(), "nothing was discarded: {:?}", state.sim.timeline.note);
}

fn rgb(c: egui::Color32) -> [u8; 3] {
    [c.r(), c.g(), c.b()]
}

#[test]
fn the_inspector_says_what_woke_a_pile_and_links_to_that_step() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let state = &mut harness.state_mut().state;
    let bottom = state.sim.world.body_ids().nth(1).unwrap();
    for _ in 0..400 {
        state.step_once();
        if !state.sim.world.is_awake(bottom).unwrap() {
            break;
        }
    }
    assert!(!state.sim.world.is_awake(bottom).unwrap(), "the tower sleeps");
    // Throw a ball at its foot.
    let mut ball = atoll_physics::BodyDesc::dynamic(
        atoll_physics::Shape::sphere(0.3).unwrap(),
        atoll_physics::Vec3::new(-5.0, 0.5, 0.0),
    );
    ball.linear_velocity = atoll_physics::Vec3::new(15.0, 0.0, 0.0);
    state.sim.world.create_body(&ball).unwrap();
    state.mark_edited();
    let mut woke = None;
    for _ in 0..60 {
        state.step_once();
        if state.sim.world.is_awake(bottom).unwrap() {
            woke = Some(state.sim.world.step_count());
            break;
        }
    }
    let woke = woke.expect("the ball reaches the tower");
    state.step_many(5);
    state.doc.selection.set(Some(bottom));
    harness.run_steps(2);
    harness.get_by_label_contains("began touching");
    harness.get_by_label_contains("Kept awake by");
    // The link sits below the Inspector's fold: clicked as assistive technology does.
    harness.get_by_label(&format!("step {woke}")).click_accesskit();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), woke);
}

#[test]
fn the_selected_body_s_history_plots_move_the_timeline_when_clicked() {
    let (mut harness, top, heights) = tower_stepped(60);
    // The plots are at the bottom of the Inspector: scroll them into view.
    harness.get_by_label("touching contacts").scroll_to_me();
    harness.run_steps(3);
    let speed = harness.get_by_label("speed (m/s)").rect();
    harness.get_by_label("height (m)");
    harness.get_by_label("touching contacts");
    // A click near the left of the speed plot (the early steps), below its title.
    let at = Pos2::new(speed.left() + 90.0, speed.bottom() + 28.0);
    common::click(&mut harness, at);
    let step = harness.state().state.sim.world.step_count();
    assert!(step < 55, "the click went back to step {step}");
    assert_eq!(harness.state().state.sim.world.transform(top).unwrap().position.y, heights[step as usize]);
}

#[test]
fn the_selected_body_s_history_is_saved_as_csv() {
    let (mut harness, top, heights) = tower_stepped(60);
    let path = std::env::temp_dir().join(format!("atoll-body-{}.csv", top.index()));
    let _ = std::fs::remove_file(&path);
    harness.get_by_label("Save history CSV").scroll_to_me();
    harness.run_steps(2);
    harness.get_by_label("Save history CSV").click_accesskit();
    harness.run_steps(2);
    harness.get_by_label_contains("steps to");
    let text = std::fs::read_to_string(&path).expect("the file was written");
    let mut lines = text.lines();
    assert_eq!(
        lines.next(),
        Some("step,speed_m_s,angular_speed_rad_s,height_m,sleep_timer_s,island,touching")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert!(rows.len() >= 50, "{} rows", rows.len());
    for row in &rows {
        assert_eq!(row.len(), 7, "{row:?}");
        // The height column is the body's height at that step, as the timeline kept it.
        let step: usize = row[0].parse().unwrap();
        let height: f32 = row[3].parse().unwrap();
        assert_eq!(height, heights[step], "step {step}");
    }
}

#[test]
fn paused_frames_prepare_the_steps_back() {
    let (mut harness, top, heights) = tower_stepped(60);
    harness.state_mut().state.go_to_step(40).unwrap();
    // Paused frames: each rebuilds the states before step 40, or takes what the thread doing
    // it has kept (on a machine of several cores), until they are all kept.
    let mut frames = 0;
    loop {
        harness.run_steps(1);
        let state = &mut harness.state_mut().state;
        if state.sim.timeline.prepare_back(&state.sim.world) {
            break;
        }
        frames += 1;
        assert!(frames < 5000, "the paused frames never prepared the steps back");
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
    harness.key_press(Key::Comma);
    harness.run_steps(2);
    let state = &harness.state().state;
    assert_eq!(state.sim.world.step_count(), 39);
    assert_eq!(state.sim.world.transform(top).unwrap().position.y, heights[39]);
}

#[test]
fn a_body_slowed_to_the_speed_cap_is_marked_on_the_bar_and_the_inspector_goes_to_its_step() {
    use atoll_physics::{BodyDesc, BodyFaultKind, Shape, StepSettings, Vec3};
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let state = &mut harness.state_mut().state;
    // A low cap, and a ball high beside the tower: it falls at the cap once gravity has taken
    // it there, capped at every step from then on.
    let settings = StepSettings { max_linear_speed: 5.0, ..*state.sim.world.settings() };
    state.apply_settings(settings).unwrap();
    let ball = state
        .sim
        .world
        .create_body(&BodyDesc::dynamic(Shape::sphere(0.3).unwrap(), Vec3::new(-6.0, 20.0, 0.0)));
    let ball = ball.unwrap();
    state.mark_edited();
    state.doc.selection.set(Some(ball));
    // What the world itself reports, step by step: the truth the history must keep.
    let mut capped = Vec::new();
    for _ in 0..60 {
        state.step_once();
        let faults = state.sim.world.body_faults();
        assert!(faults.iter().all(|f| f.body == ball && f.kind == BodyFaultKind::Capped), "{faults:?}");
        if !faults.is_empty() {
            capped.push(state.sim.world.step_count());
        }
    }
    let first = *capped.first().expect("the ball reaches the cap");
    assert!((20..50).contains(&first), "capped first at step {first}");
    assert_eq!(capped, (first..=60).collect::<Vec<_>>(), "capped at every step after");
    harness.run_steps(2);
    // The Inspector names the first step and counts the rest.
    let text = format!("capped at step {first} (and {} more)", 60 - first);
    harness.get_by_label(&text).scroll_to_me();
    harness.run_steps(3);
    // The bar marks every capped step; the steps before have no such mark.
    let bar = harness.get_by_label("timeline").rect();
    let image = harness.render().unwrap();
    image.save(std::env::temp_dir().join("atoll-timeline-capped.png")).unwrap();
    let at = |step: u64| Pos2::new(step_x(bar, (0, 60), step).round(), bar.center().y);
    for step in [first, first + 10] {
        assert!(pixels_near(&image, at(step), 1, rgb(CAPPED_COLOUR), 40) > 0, "no cap mark at step {step}");
    }
    for step in [first - 5, first - 1] {
        assert_eq!(pixels_near(&image, at(step), 1, rgb(CAPPED_COLOUR), 40), 0, "a cap mark at step {step}");
    }
    // Hovering the bar says what happened at the step under the pointer.
    harness.hover_at(at(first));
    harness.run_steps(40);
    harness.get_by_label(&format!("step {first}: 1 body slowed to a speed cap"));
    harness.render().unwrap().save(std::env::temp_dir().join("atoll-timeline-capped-hover.png")).unwrap();
    harness.hover_at(Pos2::new(640.0, 200.0));
    harness.run_steps(2);
    // The button goes to that step, and the row stays (the history is kept).
    harness.get_by_label(&format!("go to step {first}")).click();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.step_count(), first);
    harness.get_by_label(&text);
    let image = harness.render().unwrap();
    assert!(pixels_near(&image, at(first), 2, rgb(CURSOR_COLOUR), 40) > 0, "the cursor at step {first}");
}

#[test]
fn a_stop_outranks_an_edit_and_a_cap_outranks_a_broken_joint() {
    use atoll::editor::panels::timeline::{Mark, describe, mark_of};
    use atoll_physics::{StepEvents, StepRecord};
    let record = |events: StepEvents, inputs: u32| StepRecord {
        energy: Default::default(),
        step: 7,
        hash: 0,
        segment: 1,
        after_edit: false,
        inputs,
        events,
    };
    let broke = StepEvents { joints_broken: 1, woke: 1, ..StepEvents::default() };
    let capped = StepEvents { bodies_capped: 2, ..broke };
    let stopped = StepEvents { bodies_stopped: 1, ..capped };
    assert_eq!(mark_of(&record(broke, 0)), Some(Mark::Break));
    assert_eq!(mark_of(&record(capped, 0)), Some(Mark::Capped));
    assert_eq!(mark_of(&record(capped, 1)), Some(Mark::Edit));
    assert_eq!(mark_of(&record(stopped, 1)), Some(Mark::Stop));
    assert_eq!(mark_of(&record(StepEvents::default(), 0)), None);
    // The marks' order is their rank, and no two share a colour.
    assert!(Mark::ALL.is_sorted());
    for (i, a) in Mark::ALL.iter().enumerate() {
        assert!(Mark::ALL[i + 1..].iter().all(|b| b.colour() != a.colour()), "{a:?}");
    }
    assert_eq!(
        describe(&record(stopped, 1)),
        "step 7: 1 body stopped (non-finite), edited, 2 bodies slowed to a speed cap, 1 joint broke, 1 island woke"
    );
}

#[test]
fn the_timeline_goes_on_across_an_added_body_and_names_follow_the_step_shown() {
    let mut harness = harness("tower.ron");
    harness.run_steps(2);
    let state = &mut harness.state_mut().state;
    state.step_many(60);
    let count = state.sim.world.body_count();
    let mut ball = atoll_physics::SceneBody::new(
        atoll_physics::BodyType::Dynamic,
        atoll_physics::SceneShape::Sphere { radius: 0.3 },
        atoll_physics::Vec3::new(3.0, 6.0, 0.0),
    );
    ball.name = "late ball".into();
    state.add_bodies("Add", vec![ball]).unwrap();
    state.step_many(60);
    let hash_at_end = atoll_physics::state_hash(&state.sim.world);
    let ball_id = state.sim.world.body_ids().last().unwrap();
    assert_eq!(state.body_name(ball_id), "late ball");
    assert_eq!(state.sim.timeline.range(), (0, 120), "the timeline goes on across the new body");
    assert!(state.sim.timeline.note.is_none(), "{:?}", state.sim.timeline.note);

    // Back before the ball: the world without it, and the Scene list without it.
    harness.state_mut().state.go_to_step(30).unwrap();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body_count(), count);
    harness.get_by_label_contains(&format!("of {count} bodies"));
    harness.get_by_label("box 0");
    assert!(harness.state().state.sim.world.body(ball_id).is_err(), "no such body at step 30");
    // After it: the ball, under its name.
    harness.state_mut().state.go_to_step(90).unwrap();
    harness.run_steps(2);
    assert_eq!(harness.state().state.sim.world.body_count(), count + 1);
    harness.get_by_label_contains(&format!("of {} bodies", count + 1));
    assert_eq!(harness.state().state.body_name(ball_id), "late ball");

    // Playing on from step 30 adds the ball again at step 60 and ends where the first run did.
    let state = &mut harness.state_mut().state;
    state.go_to_step(30).unwrap();
    state.step_many(90);
    assert_eq!(atoll_physics::state_hash(&state.sim.world), hash_at_end);
    assert!(state.sim.timeline.note.is_none(), "nothing was discarded: {:?}", state.sim.timeline.note);
    assert_eq!(state.body_name(ball_id), "late ball");
    // And undo still takes the ball away.
    state.undo();
    assert_eq!(state.sim.world.body_count(), count);
}
