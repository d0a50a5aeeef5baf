//! `World::energy`: the engine's own sums of energy and momentum against the closed forms: a
//! falling ball loses exactly what the semi-implicit integrator is known to lose, a head-on
//! collision in empty space keeps its momentum, and the sums agree with this suite's own
//! formulas body by body.

use super::support::*;
use atoll_physics::{BodyDesc, Material, Shape, StepSettings, Vec3, World};

#[test]
fn a_falling_ball_loses_exactly_the_integrators_share() {
    let settings = StepSettings::default();
    let mut world = world(settings, 1);
    let ball = world
        .create_body(&BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(0.0, 50.0, 0.0)))
        .unwrap();
    let start = world.energy();
    let mass = f64::from(world.body(ball).unwrap().mass);
    let steps = 60;
    for _ in 0..steps {
        world.step();
    }
    let end = world.energy();
    // Semi-implicit Euler over n substeps of length h, from rest: v = −g h n and
    // y = y₀ − g h² n (n + 1) / 2, so kinetic plus potential energy falls by m g² h² n / 2.
    let h = f64::from(settings.dt) / f64::from(settings.substeps);
    let n = f64::from(settings.substeps) * steps as f64;
    let g = f64::from(-settings.gravity.y);
    let expected = -0.5 * mass * g * g * h * h * n;
    let lost = end.total() - start.total();
    println!(
        "figure: free fall, {steps} steps: energy changed by {lost:.4} J, theory {expected:.4} J, kinetic {:.1} J",
        end.kinetic
    );
    assert!((lost - expected).abs() <= 1e-4 * end.kinetic, "{lost} against {expected}");
    // Momentum: m v, straight down.
    let v = -g * h * n;
    assert!((end.linear_momentum.y - mass * v).abs() <= 1e-5 * mass * v.abs(), "{:?}", end.linear_momentum);
    assert_eq!(end.linear_momentum.x, 0.0);
}

#[test]
fn a_head_on_collision_in_empty_space_keeps_the_momentum() {
    let mut world = world(StepSettings { gravity: Vec3::ZERO, ..StepSettings::default() }, 1);
    let ball = |world: &mut World, x: f32, v: f32, density: f32| {
        let desc = BodyDesc::dynamic(Shape::sphere(0.5).unwrap(), Vec3::new(x, 0.0, 0.1))
            .with_material(Material { density, restitution: 0.5, ..Material::default() })
            .with_linear_velocity(Vec3::new(v, 0.0, 0.0));
        world.create_body(&desc).unwrap()
    };
    ball(&mut world, -2.0, 3.0, 1000.0);
    ball(&mut world, 2.0, -1.0, 3000.0);
    let before = world.energy();
    for _ in 0..120 {
        world.step();
    }
    let after = world.energy();
    // The momenta cancel (the heavy ball is three times the mass at a third of the speed):
    // measured against either ball's.
    let scale = 3.0 * f64::from(world.body(world.body_ids().next().unwrap()).unwrap().mass);
    println!(
        "figure: head-on collision: momentum {:?} before, {:?} after; kinetic energy {:.1} J to {:.1} J",
        before.linear_momentum, after.linear_momentum, before.kinetic, after.kinetic
    );
    assert!((after.linear_momentum - before.linear_momentum).length() <= 1e-4 * scale);
    assert!(after.kinetic < before.kinetic, "a restitution of 0.5 loses energy");
    assert!(
        (after.angular_momentum - before.angular_momentum).length()
            <= 1e-3 * before.angular_momentum.length().max(1.0)
    );
}

#[test]
fn the_sums_agree_with_the_suites_own_formulas_body_by_body() {
    let mut world = world(StepSettings::default(), 1);
    world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(10.0, 0.5, 10.0)).unwrap(),
            Vec3::new(0.0, -0.5, 0.0),
        ))
        .unwrap();
    let bodies: Vec<_> = (0..6)
        .map(|i| {
            let shape = [Shape::cuboid(Vec3::new(0.5, 0.2, 0.3)).unwrap(), Shape::capsule(0.4, 0.2).unwrap()]
                [i % 2]
                .clone();
            let desc = BodyDesc::dynamic(shape, Vec3::new(i as f32 * 0.3, 1.0 + i as f32, 0.0))
                .with_linear_velocity(Vec3::new(1.0, 0.0, -0.5));
            let id = world.create_body(&desc).unwrap();
            world.set_angular_velocity(id, Vec3::new(0.5, i as f32, 1.0)).unwrap();
            id
        })
        .collect();
    // (The suite's sums read the body's f32 centre and inertia: they agree to 1e-7.)
    for _ in 0..4 {
        for _ in 0..20 {
            world.step();
        }
        let engine = world.energy();
        let ours = energy(&world, &bodies);
        assert!(
            (engine.total() - ours).abs() <= 1e-7 * ours.abs().max(1.0),
            "{} against {ours}",
            engine.total()
        );
        let one = world.body_energy(bodies[3]).unwrap();
        let kinetic = kinetic_energy(&world, bodies[3]);
        assert!(
            (one.kinetic - kinetic).abs() <= 1e-7 * kinetic.max(1.0),
            "{} against {kinetic}",
            one.kinetic
        );
        // The islands' sums add up to the world's.
        let islands: f64 = world.islands().map(|i| world.island_energy(i.id).unwrap().total()).sum();
        assert!((islands - engine.total()).abs() <= 1e-9 * engine.total().abs().max(1.0));
    }
}
