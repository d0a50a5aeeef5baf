//! Random joint graphs for the fuzz (`tests/joint_fuzz.rs`, and the longer
//! `examples/joint_fuzz.rs`): bodies of every shape over masses from 0.01 to 1000 kg and sizes
//! from 0.02 to 5 m, joined by every joint type at random with random limits, motors (forces
//! up to 10⁵ N), springs (0.05 to 120 Hz) and breaking thresholds, some to the world, over a
//! floor; and a body destroyed partway through the run. The same seed makes the same scene.

use std::f32::consts::PI;

use atoll_physics::{
    BodyDesc, BodyId, DistanceJoint, FixedJoint, JointKind, Limits, Material, Motor, PrismaticJoint, Quat,
    RevoluteJoint, Shape, SphericalJoint, Spring, StepSettings, Vec3, WheelJoint, World,
};

/// A small deterministic generator (splitmix64), the same everywhere.
pub struct Random(pub u64);

impl Random {
    /// The next 64 random bits.
    pub fn bits(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`.
    pub fn unit(&mut self) -> f32 {
        (self.bits() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// Uniform in `[low, high)`.
    pub fn range(&mut self, low: f32, high: f32) -> f32 {
        low + (high - low) * self.unit()
    }

    /// Log-uniform in `[low, high)`.
    pub fn log_range(&mut self, low: f32, high: f32) -> f32 {
        low * (high / low).powf(self.unit())
    }

    /// Uniform below `n`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.bits() % n as u64) as usize
    }

    /// A chance of `p`.
    pub fn chance(&mut self, p: f32) -> bool {
        self.unit() < p
    }

    /// A unit vector.
    pub fn direction(&mut self) -> Vec3 {
        loop {
            let v = Vec3::new(self.range(-1.0, 1.0), self.range(-1.0, 1.0), self.range(-1.0, 1.0));
            if v.length() > 0.1 && v.length() <= 1.0 {
                return v.normalize();
            }
        }
    }
}

/// A random joint graph, and when and which body the run destroys.
pub struct JointGraph {
    pub world: World,
    pub bodies: Vec<BodyId>,
    pub joints: usize,
    /// The step at which `bodies[destroy.1]` is destroyed.
    pub destroy: (usize, usize),
}

/// Limits around zero, of random width.
fn limits(random: &mut Random, reach: f32) -> Option<Limits> {
    random.chance(0.5).then(|| Limits::new(-random.range(0.0, reach), random.range(0.0, reach)))
}

/// A spring of 0.05 to 120 Hz, or none.
fn spring(random: &mut Random) -> Option<Spring> {
    random.chance(0.4).then(|| Spring::new(random.log_range(0.05, 120.0), random.range(0.0, 2.0)))
}

/// A motor of force up to 10⁵, or none.
fn motor(random: &mut Random) -> Option<Motor> {
    random.chance(0.4).then(|| Motor::new(random.range(-10.0, 10.0), random.log_range(0.1, 1e5)))
}

/// A joint of a random type with random limits, motors and springs; `size` scales lengths.
fn kind(random: &mut Random, size: f32) -> JointKind {
    match random.below(7) {
        0 => JointKind::Spherical(SphericalJoint::default()),
        1 => JointKind::Spherical(SphericalJoint {
            swing_limit: random.chance(0.5).then(|| random.range(0.0, 3.1)),
            twist_limits: limits(random, 3.0),
            spring: spring(random),
            target_rotation: Quat::IDENTITY,
            friction: if random.chance(0.3) { random.log_range(0.01, 100.0) } else { 0.0 },
        }),
        2 => JointKind::Revolute(RevoluteJoint {
            limits: limits(random, 3.0),
            motor: motor(random),
            spring: spring(random),
            ..RevoluteJoint::default()
        }),
        3 => JointKind::Prismatic(PrismaticJoint {
            limits: limits(random, size),
            motor: motor(random),
            spring: spring(random),
            ..PrismaticJoint::default()
        }),
        4 => JointKind::Fixed(FixedJoint { linear_spring: spring(random), angular_spring: spring(random) }),
        5 => {
            let length = random.range(0.0, 2.0 * size);
            JointKind::Distance(DistanceJoint {
                spring: spring(random),
                limits: random.chance(0.5).then(|| Limits::new(length * 0.5, length * 1.5)),
                ..DistanceJoint::rigid(length)
            })
        }
        _ => JointKind::Wheel(WheelJoint {
            motor: motor(random),
            suspension: spring(random),
            suspension_limits: limits(random, size),
        }),
    }
}

/// The scene of `seed`: 2 to 12 bodies over a floor, 1 to 2 joints a body.
pub fn joint_graph(seed: u64) -> JointGraph {
    let mut random = Random(seed);
    let settings = StepSettings { sleep_enabled: random.chance(0.5), ..StepSettings::default() };
    let mut world = World::new(settings).unwrap();
    world
        .create_body(&BodyDesc::fixed(
            Shape::cuboid(Vec3::new(60.0, 0.5, 60.0)).unwrap(),
            Vec3::new(0.0, -0.5, 0.0),
        ))
        .unwrap();
    let count = 2 + random.below(11);
    let mut bodies = Vec::new();
    let mut sizes = Vec::new();
    for k in 0..count {
        let size = random.log_range(0.02, 5.0);
        let (shape, volume) = match random.below(3) {
            0 => (Shape::sphere(size).unwrap(), 4.0 / 3.0 * PI * size * size * size),
            1 => {
                let half = Vec3::new(size, size * random.range(0.2, 1.0), size * random.range(0.2, 1.0));
                (Shape::cuboid(half).unwrap(), 8.0 * half.x * half.y * half.z)
            }
            _ => {
                let radius = size * random.range(0.2, 0.6);
                let volume = PI * radius * radius * (2.0 * (size - radius) + 4.0 / 3.0 * radius);
                (Shape::capsule(size - radius, radius).unwrap(), volume)
            }
        };
        let mass = random.log_range(0.01, 1000.0);
        let at = Vec3::new((k % 4) as f32 * 6.0 - 9.0, 8.0 + (k / 4) as f32 * 6.0, random.range(-3.0, 3.0));
        let desc = BodyDesc::dynamic(shape, at)
            .with_rotation(Quat::from_scaled_axis(random.direction() * random.range(0.0, 3.0)))
            .with_linear_velocity(random.direction() * random.range(0.0, 5.0))
            .with_material(Material { density: mass / volume, ..Material::default() });
        let body = world.create_body(&desc).unwrap();
        world.set_angular_velocity(body, random.direction() * random.range(0.0, 10.0)).unwrap();
        bodies.push(body);
        sizes.push(size);
    }
    let mut joints = 0;
    for k in 0..count {
        for _ in 0..1 + random.below(2) {
            let b = bodies[k];
            let a = if random.chance(0.25) {
                None
            } else {
                Some(bodies[random.below(count)]).filter(|&a| a != b)
            };
            let centre = world.body(b).unwrap().center_of_mass;
            // Anchors off the centre by up to 30 sizes.
            let anchor = centre + random.direction() * sizes[k] * random.log_range(0.1, 30.0);
            let mut desc =
                world.joint_desc_at(kind(&mut random, sizes[k]), a, b, anchor, random.direction()).unwrap();
            if random.chance(0.2) {
                desc.break_force = Some(random.log_range(1.0, 1e5));
            }
            if random.chance(0.2) {
                desc.break_torque = Some(random.log_range(1.0, 1e5));
            }
            desc.collide_connected = random.chance(0.2);
            world.create_joint(&desc).unwrap();
            joints += 1;
        }
    }
    let destroy = (random.below(300), random.below(count));
    JointGraph { world, bodies, joints, destroy }
}

/// What a run of a joint graph saw.
#[derive(Debug, Default)]
pub struct FuzzCounts {
    pub steps: usize,
    /// Body states, joint readouts and contact impulses that were not finite after a step.
    pub non_finite: usize,
    /// Bodies slowed to a speed cap, summed over the steps.
    pub capped: usize,
    /// Bodies stopped for a non-finite state, summed over the steps.
    pub stopped: usize,
    /// The largest distance between a live enabled joint's anchors, m.
    pub stretched: f32,
}

/// Counts the non-finite numbers `world` reports of its bodies, joints and contacts.
pub fn non_finite_values(world: &World) -> usize {
    let mut bad = 0;
    for id in world.body_ids() {
        let b = world.body(id).unwrap();
        let ok = b.transform.position.is_finite()
            && b.transform.rotation.is_finite()
            && b.linear_velocity.is_finite()
            && b.angular_velocity.is_finite();
        bad += usize::from(!ok);
    }
    for id in world.joint_ids() {
        let j = world.joint(id).unwrap();
        let ok =
            j.anchor_a.is_finite() && j.anchor_b.is_finite() && j.force.is_finite() && j.torque.is_finite();
        bad += usize::from(!ok);
    }
    for c in world.contacts() {
        let ok = c.manifold.points[..c.manifold.count]
            .iter()
            .all(|p| p.position.is_finite() && p.separation.is_finite())
            && c.impulses.iter().all(|i| i.normal.is_finite() && i.max_normal.is_finite())
            && c.friction_impulse.is_finite()
            && c.twist_impulse.is_finite();
        bad += usize::from(!ok);
    }
    bad
}

/// Runs `graph` for `steps` steps on `threads` threads, destroying its body partway; returns
/// the counts and the state hash after each step.
pub fn run_joint_graph(mut graph: JointGraph, steps: usize, threads: usize) -> (FuzzCounts, Vec<u64>) {
    graph.world.set_thread_count(threads).unwrap();
    let mut counts = FuzzCounts::default();
    let mut hashes = Vec::with_capacity(steps);
    for step in 0..steps {
        if step == graph.destroy.0 {
            graph.world.destroy_body(graph.bodies[graph.destroy.1]).unwrap();
        }
        graph.world.step();
        let p = graph.world.profile().counters;
        counts.capped += p.capped_bodies as usize;
        counts.stopped += p.non_finite_bodies as usize;
        counts.non_finite += non_finite_values(&graph.world);
        for id in graph.world.joint_ids() {
            let j = graph.world.joint(id).unwrap();
            if j.enabled {
                counts.stretched = counts.stretched.max((j.anchor_a - j.anchor_b).length());
            }
        }
        hashes.push(atoll_physics::state_hash(&graph.world));
        counts.steps += 1;
    }
    (counts, hashes)
}
