//! The contact trace: a watched contact's impulses after every pass of every substep, the
//! solver's own numbers. A resting box's contact carries its weight in every substep; watching
//! changes no result on any number of threads; bad requests are refused.

mod common;

use atoll_physics::{
    BodyDesc, ContactId, MAX_TRACED_CONTACTS, Material, Shape, TracePass, Vec3, World, state_hash,
};

/// A 1 m cube of 1000 kg/m³ resting on the floor, settled for two seconds (it may not sleep).
fn resting_box() -> (World, ContactId, f32) {
    let (mut world, floor) = common::world_with_floor();
    let mut cube = BodyDesc::dynamic(Shape::cuboid(Vec3::splat(0.5)).unwrap(), Vec3::new(0.0, 0.5, 0.0))
        .with_material(Material { density: 1000.0, friction: 0.6, restitution: 0.0 });
    cube.can_sleep = false;
    let cube = world.create_body(&cube).unwrap();
    for _ in 0..120 {
        world.step();
    }
    let contact = world
        .contacts()
        .find(|c| {
            c.touching && ([c.body_a, c.body_b] == [floor, cube] || [c.body_b, c.body_a] == [floor, cube])
        })
        .expect("the cube rests on the floor")
        .id;
    let mass = world.body(cube).unwrap().mass;
    (world, contact, mass)
}

#[test]
fn a_resting_boxs_contact_carries_its_weight_in_every_substep() {
    let (mut world, contact, mass) = resting_box();
    world.set_traced_contacts(&[contact]).unwrap();
    world.step();
    let settings = world.settings();
    let h = settings.dt / settings.substeps as f32;
    let traces = world.contact_traces();
    assert_eq!(traces.len(), 1);
    assert_eq!(traces[0].contact, contact);
    let samples = &traces[0].substeps;
    assert_eq!(samples.len(), 2 * settings.substeps as usize, "a solve and a relax per substep");
    let weight = mass * settings.gravity.length();
    for s in samples {
        assert_eq!(s.points, 4, "a face on the floor: four points");
        // The impulse a substep needs to hold the box up is its weight over the substep.
        let force = s.total_normal() / h;
        if s.pass == TracePass::Relax {
            assert!(
                (force - weight).abs() < 0.01 * weight,
                "substep {}: {force} N against {weight} N",
                s.substep
            );
        }
        assert!(s.friction[0].abs() < 1e-3 * weight * h && s.friction[1].abs() < 1e-3 * weight * h, "{s:?}");
    }
    // The last relax's impulses are what the step stored.
    let last = samples.last().unwrap();
    let stored = world.contact(contact).unwrap();
    for i in 0..4 {
        assert_eq!(stored.impulses[i].normal, last.normal[i], "point {i}");
    }
    // Stopping: the next step takes no trace.
    world.set_traced_contacts(&[]).unwrap();
    world.step();
    assert!(world.contact_traces().is_empty());
}

#[test]
fn watching_a_contact_changes_no_result_on_any_number_of_threads() {
    let run = |threads: usize, watch: bool| {
        let (mut world, _) = common::builtin("rain.ron");
        world.set_thread_count(threads).unwrap();
        let mut hashes = Vec::new();
        for step in 0..150 {
            if watch && step == 60 {
                let ids: Vec<ContactId> =
                    world.contacts().filter(|c| c.touching).map(|c| c.id).take(3).collect();
                world.set_traced_contacts(&ids).unwrap();
            }
            world.step();
            if watch && step >= 60 {
                assert!(world.contact_traces().iter().any(|t| !t.substeps.is_empty()), "step {step}");
            }
            hashes.push(state_hash(&world));
        }
        hashes
    };
    let plain = run(1, false);
    for threads in 1..=4 {
        assert_eq!(run(threads, true), plain, "{threads} threads, watching");
    }
}

#[test]
fn stale_ids_and_too_many_contacts_are_refused_and_change_nothing() {
    let (mut world, contact, _) = resting_box();
    world.set_traced_contacts(&[contact]).unwrap();
    let many = vec![contact; MAX_TRACED_CONTACTS + 1];
    assert!(world.set_traced_contacts(&many).unwrap_err().to_string().contains("at most"));
    assert_eq!(world.traced_contacts(), [contact]);
    // The contact ends when its body goes: a later request naming it is refused, and the
    // watch list drops it at the next step.
    let cube = world.contact(contact).unwrap().body_b;
    world.destroy_body(cube).unwrap();
    world.step();
    assert!(world.traced_contacts().is_empty());
    assert!(world.set_traced_contacts(&[contact]).is_err());
}

/// A tower of boxes resting on the floor, its island watched: after every relax pass its
/// points approach by far less than the gravity a substep adds (the pass brings the normal
/// velocities to rest), after the solve pass they may part (the push out), and watching
/// changes no result on 1 to 4 threads.
#[test]
fn a_resting_towers_island_has_its_velocity_error_taken_out_by_every_relax() {
    let watch_island = |world: &mut World| {
        let body = world.body_ids().find(|&b| world.body(b).unwrap().mass > 0.0).unwrap();
        let island = world.body_island(body).unwrap().expect("the tower is one island");
        world.set_traced_island(Some(island)).unwrap();
    };
    let run = |threads: usize, watch: bool| {
        traced_run("tower.ron", threads, watch.then_some((120, &watch_island)), |w| w.island_trace().cloned())
    };
    let (quiet, _, _) = run(1, false);
    for threads in 1..=4 {
        assert_eq!(run(threads, true).0, quiet, "{threads} threads");
    }
    let (_, traces, world) = run(1, true);
    assert_eq!(traces.len(), 30, "a trace per step watched");
    let s = world.settings();
    let gravity_per_substep = s.gravity.length() * s.dt / s.substeps as f32;
    let touching = world.touching_contacts().count() as u32;
    for trace in &traces {
        assert_eq!(trace.contacts, touching, "every touching pair of the tower is in its island");
        assert_eq!(trace.substeps.len(), 2 * s.substeps as usize);
        for (k, sample) in trace.substeps.iter().enumerate() {
            assert_eq!(sample.substep as usize, k / 2);
            assert_eq!(sample.points, 4 * touching, "face on face: four points a pair");
            assert!(sample.mean_approach <= sample.max_approach);
            if sample.pass == TracePass::Relax {
                assert!(
                    sample.max_approach < 0.05 * gravity_per_substep,
                    "substep {}: {} m/s against {gravity_per_substep} m/s a substep",
                    sample.substep,
                    sample.max_approach
                );
            }
        }
    }
    // A stale island is refused; none stops the watch.
    let mut world = world;
    world.set_traced_island(None).unwrap();
    world.step();
    assert!(world.island_trace().is_none());
}

/// The bridge's hinges watched: the samples come a solve and a relax per substep, the relax
/// leaves less error than the solve, and watching changes no result on 1 to 4 threads.
#[test]
fn watched_joints_are_traced_pass_by_pass_and_change_no_result() {
    let watch_joints = |world: &mut World| {
        let ids: Vec<_> = world.joint_ids().step_by(5).take(4).collect();
        world.set_traced_joints(&ids).unwrap();
    };
    let run = |threads: usize, watch: bool| {
        traced_run("bridge.ron", threads, watch.then_some((100, &watch_joints)), |w| {
            w.joint_traces().to_vec()
        })
    };
    let (quiet, _, _) = run(1, false);
    for threads in 1..=4 {
        assert_eq!(run(threads, true).0, quiet, "{threads} threads");
    }
    let (_, traces, world) = run(1, true);
    assert_eq!(traces.len(), 4 * 50, "four joints a step");
    let s = world.settings();
    let gravity_per_substep = s.gravity.length() * s.dt / s.substeps as f32;
    for trace in &traces {
        assert_eq!(trace.substeps.len(), 2 * s.substeps as usize);
        assert!(trace.substeps.iter().all(|x| x.anchor_speed.is_finite()));
    }
    let mean = |pass: TracePass| {
        let v: Vec<f32> = (traces.iter().flat_map(|t| t.substeps.iter()))
            .filter(|x| x.pass == pass)
            .map(|x| x.anchor_speed)
            .collect();
        v.iter().sum::<f32>() / v.len() as f32
    };
    // A chain of planks, one pass a substep: the relax leaves less than the solve (measured:
    // 0.024 against 0.027 m/s), a little more than the gravity a substep adds (0.020).
    let (solve, relax) = (mean(TracePass::Solve), mean(TracePass::Relax));
    assert!(
        relax < solve && relax < 2.0 * gravity_per_substep,
        "solve {solve} relax {relax} g h {gravity_per_substep}"
    );
    let mut world = world;
    let first = world.joint_ids().next().unwrap();
    assert!(world.set_traced_joints(&[first; 17]).is_err(), "at most 16");
    world.set_traced_joints(&[]).unwrap();
    world.step();
    assert!(world.joint_traces().is_empty());
}

/// A ball hanging from a ball joint, swinging: one point row, solved exactly by each pass, so
/// after every relax its anchors do not part (to rounding: a thousandth of the bob's speed).
#[test]
fn a_pendulums_joint_has_no_velocity_error_after_a_relax() {
    let mut world = World::new(atoll_physics::StepSettings::default()).unwrap();
    let bob =
        world.create_body(&BodyDesc::dynamic(Shape::sphere(0.2).unwrap(), Vec3::new(1.0, 2.0, 0.0))).unwrap();
    let kind = atoll_physics::JointKind::Spherical(Default::default());
    let desc = world.joint_desc_at(kind, None, bob, Vec3::new(0.0, 2.0, 0.0), Vec3::Z).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    world.set_traced_joints(&[joint]).unwrap();
    let s = *world.settings();
    let gravity_per_substep = s.gravity.length() * s.dt / s.substeps as f32;
    for _ in 0..60 {
        world.step();
        let trace = &world.joint_traces()[0];
        assert_eq!(trace.joint, joint);
        assert_eq!(trace.substeps.len(), 2 * s.substeps as usize);
        for sample in trace.substeps.iter().filter(|x| x.pass == TracePass::Relax) {
            // To rounding: the arms turn with the bob, a metre out.
            let scale = (sample.relative_spin * 1.0).max(gravity_per_substep);
            assert!(sample.anchor_speed < 1e-3 * scale, "{sample:?}");
        }
    }
    assert!(world.joint_traces()[0].substeps.iter().any(|x| x.relative_spin > 0.1), "it swings");
}

/// What sets up a watch on a world.
type WatchSetUp = dyn Fn(&mut World);

/// 150 steps of built-in scene `scene` on `threads` threads, awake throughout; at step `at`
/// of `watch`, its watch is set up; `read` collects each step's traces. Returns the final
/// hash, the traces and the world.
fn traced_run<T, R: IntoIterator<Item = T>>(
    scene: &str,
    threads: usize,
    watch: Option<(usize, &WatchSetUp)>,
    read: impl Fn(&World) -> R,
) -> (u64, Vec<T>, World) {
    let (mut world, _) = common::builtin(scene);
    let mut settings = *world.settings();
    settings.sleep_enabled = false;
    world.set_settings(settings).unwrap();
    world.set_thread_count(threads).unwrap();
    let mut traces = Vec::new();
    for step in 0..150 {
        if let Some((at, set_up)) = watch
            && step == at
        {
            set_up(&mut world);
        }
        world.step();
        traces.extend(read(&world));
    }
    (state_hash(&world), traces, world)
}

#[test]
fn unwatching_joints_while_a_contact_is_still_watched_leaves_no_stale_joint() {
    let (mut world, contact, _) = resting_box();
    let cube = world.body_ids().nth(1).unwrap();
    // A joint to the world: one to the floor would end the floor's contact with the cube.
    let kind = atoll_physics::JointKind::Distance(Default::default());
    let at = world.transform(cube).unwrap().position;
    let desc = world.joint_desc_at(kind, None, cube, at, Vec3::Z).unwrap();
    let joint = world.create_joint(&desc).unwrap();
    world.set_traced_contacts(&[contact]).unwrap();
    world.set_traced_joints(&[joint]).unwrap();
    world.step();
    assert_eq!(world.joint_traces().len(), 1);
    world.set_traced_joints(&[]).unwrap();
    world.step();
    assert!(world.joint_traces().is_empty());
    assert_eq!(world.contact_traces().len(), 1, "the contact is still traced");
}
