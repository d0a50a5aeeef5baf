//! Recordings: a world built from a scene, changed while it runs (bodies created and
//! destroyed, pushed, pulled, joints made and changed, settings and terrain edited), records
//! every input; the recording survives its file format and replays to the same hash at every
//! step on any thread count; a tampered recording names the step where it parts; a malformed
//! one names line, column and field; and going back in time (a history, a snapshot) moves
//! the recording with the world.

use atoll_physics::terrain::{BrushMode, Edit, SphereBrush, VoxelMaterial};
use atoll_physics::{
    BodyId, History, HistorySettings, Input, JointDesc, JointFrame, JointKind, Recording, ReplayError, Scene,
    SceneError, SphericalJoint, Transform, Vec3, World, state_hash,
};
use std::path::PathBuf;

fn scene(file: &str) -> Scene {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes").join(file);
    Scene::load(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// The rain, run for 200 steps with every kind of body and joint input along the way, and one
/// input after the last step. Returns the world and the hash after every step.
fn rain_with_edits() -> (World, Vec<u64>) {
    let (mut world, ids) = scene("rain.ron").build_recorded_world().unwrap();
    assert!(world.is_recorded());
    // A hull body, to check a hull's scene form rebuilds the same hull.
    let hull = ids
        .iter()
        .copied()
        .find(|&id| world.body(id).unwrap().shape.kind() == atoll_physics::ShapeKind::Hull);
    let hull = hull.expect("the rain has hulls");
    let mut hashes = Vec::new();
    let mut made: Option<BodyId> = None;
    let mut joint = None;
    for step in 0..200 {
        match step {
            10 => {
                let mut desc = world.body_desc(hull).unwrap();
                desc.transform = Transform::new(Vec3::new(0.3, 12.0, -0.2), desc.transform.rotation);
                made = Some(world.create_body(&desc).unwrap());
            }
            20 => world.set_linear_velocity(ids[5], Vec3::new(4.0, 2.0, 0.0)).unwrap(),
            30..50 => world
                .apply_force_at_point(ids[7], Vec3::new(0.0, 60.0, 5.0), Vec3::new(0.0, 3.0, 0.0))
                .unwrap(),
            55 => world.apply_impulse(ids[9], Vec3::new(0.0, 0.0, 3.0)).unwrap(),
            60 => {
                world.destroy_body(ids[11]).unwrap();
            }
            70 => {
                let mut settings = *world.settings();
                settings.gravity = Vec3::new(0.5, -9.0, 0.0);
                world.set_settings(settings).unwrap();
            }
            80 => {
                let kind = JointKind::Spherical(SphericalJoint::default());
                let mut desc = JointDesc::new(kind, Some(ids[20]), ids[21]);
                desc.frame_b = JointFrame::at(Vec3::new(0.0, 0.6, 0.0));
                joint = Some(world.create_joint(&desc).unwrap());
            }
            90 => {
                let id = joint.unwrap();
                let mut desc = world.joint_desc(id).unwrap();
                desc.collide_connected = true;
                world.set_joint_desc(id, &desc).unwrap();
            }
            100 => world
                .set_transform(made.unwrap(), Transform::from_position(Vec3::new(1.0, 8.0, 1.0)))
                .unwrap(),
            110 => world.set_angular_velocity(ids[13], Vec3::new(0.0, 5.0, 0.0)).unwrap(),
            115 => world
                .set_filter(ids[15], atoll_physics::CollisionFilter { category: 2, mask: 1, group: 0 })
                .unwrap(),
            120 => world.wake_all(),
            130 => world.destroy_joint(joint.unwrap()).unwrap(),
            _ => {}
        }
        // Refused calls are not inputs: they change nothing.
        if step > 60 {
            assert!(world.set_linear_velocity(ids[11], Vec3::X).is_err());
        }
        world.step();
        hashes.push(state_hash(&world));
    }
    world.apply_torque(ids[30], Vec3::new(0.0, 10.0, 0.0)).unwrap();
    world.apply_impulse_at_point(ids[30], Vec3::new(0.0, 1.0, 0.0), Vec3::new(0.0, 5.0, 0.0)).unwrap();
    (world, hashes)
}

#[test]
fn a_recording_with_edits_replays_to_the_same_hashes_on_1_to_4_threads() {
    let (world, hashes) = rain_with_edits();
    let recording = world.recording().unwrap();
    assert_eq!(recording.steps(), 200);
    assert_eq!(recording.step_hashes, hashes);
    assert_eq!(recording.end_hash, state_hash(&world));
    // 1 + 1 + 20 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 1 inputs, and two after the last step.
    assert_eq!(
        recording.inputs.len(),
        34,
        "{:#?}",
        recording.inputs.iter().map(|i| i.input.describe()).collect::<Vec<_>>()
    );
    assert!(matches!(recording.inputs.last().unwrap().input, Input::ApplyImpulseAtPoint { .. }));
    assert_eq!(recording.inputs.last().unwrap().step, 200);
    // Through its file format and back.
    let text = recording.to_ron_string();
    let read = Recording::from_ron_str(&text).unwrap();
    assert_eq!(read, recording);
    for threads in 1..=4 {
        let replayed = read.replay(threads).unwrap_or_else(|e| panic!("{threads} threads: {e}"));
        assert_eq!(state_hash(&replayed), state_hash(&world), "{threads} threads");
        // The replayed world records itself: its recording is the same.
        assert_eq!(replayed.recording().unwrap(), recording);
    }
}

#[test]
fn terrain_edits_and_the_bodies_they_cut_loose_replay() {
    let (mut world, _) = scene("terrain_rain.ron").build_recorded_world().unwrap();
    for step in 0..60 {
        if step == 20 {
            let brush = SphereBrush {
                center: Vec3::new(0.0, 0.0, 0.0),
                radius: 2.0,
                strength: 1.0,
                mode: BrushMode::Remove,
                material: VoxelMaterial::Rock,
            };
            world.edit_terrain(&Edit::Sphere(brush)).unwrap();
        }
        if step == 30 {
            let v = world.terrain().settings().min_voxel() + glam::IVec3::new(3, 3, 3);
            world.set_terrain_voxels(&[(v, atoll_physics::terrain::Voxel::AIR)]).unwrap();
        }
        world.step();
    }
    let recording = Recording::from_ron_str(&world.recording().unwrap().to_ron_string()).unwrap();
    assert!(recording.inputs.iter().any(|i| matches!(i.input, Input::EditTerrain(_))));
    // The bodies the brush cut loose are part of the edit, not inputs of their own.
    assert!(!recording.inputs.iter().any(|i| matches!(i.input, Input::CreateBody(_))));
    let replayed = recording.replay(2).unwrap();
    assert_eq!(state_hash(&replayed), state_hash(&world));
}

#[test]
fn a_tampered_recording_reports_the_step_where_it_diverges() {
    let (world, _) = rain_with_edits();
    let recording = world.recording().unwrap();

    // A changed push: the step after it parts.
    let mut pushed = recording.clone();
    let at = pushed.inputs.iter().position(|i| matches!(i.input, Input::SetLinearVelocity { .. })).unwrap();
    let step = pushed.inputs[at].step;
    if let Input::SetLinearVelocity { velocity, .. } = &mut pushed.inputs[at].input {
        velocity.x += 0.001;
    }
    assert!(matches!(pushed.replay(1), Err(ReplayError::Diverged { step: s, .. }) if s == step + 1));

    // A changed hash: that step.
    let mut rehashed = recording.clone();
    rehashed.step_hashes[56] ^= 1;
    let err = rehashed.replay(1).unwrap_err();
    assert!(matches!(err, ReplayError::Diverged { step: 57, .. }), "{err}");
    assert!(err.to_string().contains("step 57"), "{err}");

    // Another scene: step 0.
    let mut moved = recording.clone();
    moved.scene.bodies[0].position.y += 0.01;
    assert!(matches!(moved.replay(1), Err(ReplayError::Diverged { step: 0, .. })));

    // An input naming a body that is not there: refused, with its step.
    let mut stale = recording.clone();
    let destroyed = recording.inputs.iter().find_map(|i| match i.input {
        Input::DestroyBody(id) => Some(id),
        _ => None,
    });
    let at = stale.inputs.iter().position(|i| matches!(i.input, Input::SetAngularVelocity { .. })).unwrap();
    stale.inputs[at].input = Input::SetLinearVelocity { body: destroyed.unwrap(), velocity: Vec3::X };
    let err = stale.replay(1).unwrap_err();
    assert!(matches!(err, ReplayError::Refused { step: 110, .. }), "{err}");
    assert!(err.to_string().contains("SetLinearVelocity of body 11"), "{err}");

    // A changed input after the last step: the end.
    let mut end = recording.clone();
    if let Input::ApplyImpulseAtPoint { impulse, .. } = &mut end.inputs.last_mut().unwrap().input {
        impulse.y = 1.5;
    }
    assert!(matches!(end.replay(1), Err(ReplayError::Diverged { step: 200, .. })));
}

#[test]
fn a_malformed_recording_names_line_column_and_field() {
    let (world, _) = rain_with_edits();
    let text = world.recording().unwrap().to_ron_string();
    let parse = |text: &str| match Recording::from_ron_str(text) {
        Err(SceneError::Parse { line, column, field, message }) => (line, column, field, message),
        other => panic!("expected a parse error, got {other:?}"),
    };
    // A bad value in an input.
    let bad = text.replacen("SetLinearVelocity(", "SetLinearVelocity(body: \"five\", ", 1);
    let (line, column, field, _) = parse(&bad);
    let expected_line = bad[..bad.find("SetLinearVelocity").unwrap()].matches('\n').count() + 1;
    assert_eq!(line, expected_line);
    assert!(column > 1);
    assert!(field.starts_with("inputs[") && field.contains("input"), "{field}");
    // An input out of step order.
    let third = text.match_indices("step: ").nth(2).unwrap().0;
    let end = third + text[third..].find(',').unwrap();
    let bad = format!("{}step: 1{}", &text[..third], &text[end..]);
    let (line, _, field, message) = parse(&bad);
    assert_eq!(field, "inputs[2].step");
    assert_eq!(line, text[..third].matches('\n').count() + 1, "{message}");
    // A body in the scene with a broken shape reports its own field.
    let bad = text.replacen("radius: ", "radius: -", 1);
    let (_, _, field, _) = parse(&bad);
    assert!(field.starts_with("scene.bodies["), "{field}");
}

#[test]
fn going_back_in_a_history_moves_the_recording_with_the_world() {
    let (mut world, ids) = scene("rain.ron").build_recorded_world().unwrap();
    let mut history = History::new(HistorySettings::default());
    history.record(&world);
    for step in 0..300 {
        if step == 100 {
            world.set_linear_velocity(ids[4], Vec3::new(0.0, 6.0, 0.0)).unwrap();
            history.record(&world);
        }
        world.step();
        history.record(&world);
    }
    let whole = world.recording().unwrap();
    // Back at 150: the recording ends there, and replays to it.
    history.seek(&mut world, 150).unwrap();
    // The hash the tape holds for the state is the state's.
    assert_eq!(world.current_hash(), state_hash(&world));
    let at_150 = world.recording().unwrap();
    assert_eq!(at_150.steps(), 150);
    assert_eq!(at_150.inputs.len(), 1);
    assert_eq!(state_hash(&at_150.replay(1).unwrap()), history.record_of(150).unwrap().hash);
    // Forward by stepping: the same steps again, so the recording is the whole one.
    for _ in 150..300 {
        world.step();
        history.record(&world);
    }
    assert_eq!(world.recording().unwrap(), whole);
    // Forward by seeking from further back, then an edit there: the steps after it are gone
    // from the recording as they are from the history.
    history.seek(&mut world, 50).unwrap();
    history.seek(&mut world, 200).unwrap();
    assert_eq!(world.current_hash(), state_hash(&world));
    world.apply_impulse(ids[6], Vec3::new(1.0, 0.0, 0.0)).unwrap();
    assert_eq!(world.current_hash(), state_hash(&world));
    history.record(&world);
    for _ in 0..20 {
        world.step();
        history.record(&world);
    }
    let edited = world.recording().unwrap();
    assert_eq!(edited.steps(), 220);
    assert_eq!(edited.inputs.len(), 2);
    assert_eq!(edited.step_hashes[..200], whole.step_hashes[..200]);
    assert_eq!(state_hash(&edited.replay(1).unwrap()), state_hash(&world));
}

#[test]
fn restoring_a_snapshot_moves_the_recording_back() {
    let (mut world, ids) = scene("rain.ron").build_recorded_world().unwrap();
    for _ in 0..40 {
        world.step();
    }
    world.set_linear_velocity(ids[2], Vec3::new(0.0, 3.0, 0.0)).unwrap();
    let edited = world.snapshot();
    let at_edit = world.recording().unwrap();
    for _ in 0..40 {
        world.step();
    }
    let later = world.recording().unwrap();
    world.restore(&edited);
    assert_eq!(world.recording().unwrap(), at_edit);
    assert_eq!(world.current_hash(), state_hash(&world));
    // Stepping on walks the same steps: the recording grows back to the later one.
    for _ in 0..40 {
        world.step();
    }
    assert_eq!(world.recording().unwrap(), later);
}

#[test]
fn worlds_not_built_to_be_recorded_and_foreign_states_are_refused() {
    let (plain, _) = scene("rain.ron").build_world().unwrap();
    assert!(!plain.is_recorded());
    assert!(plain.recording().is_err());
    // A clone goes its own way: a state of the clone's history put back on the original
    // leaves the original unable to say how it came there.
    let (mut world, _) = scene("rain.ron").build_recorded_world().unwrap();
    let mut other = world.clone();
    world.step();
    other.wake_all();
    other.step();
    let foreign = other.capture();
    world.restore_compact(&foreign).unwrap();
    let err = world.recording().unwrap_err();
    assert!(err.to_string().contains("outside its own history"), "{err}");
}
