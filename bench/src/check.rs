//! Plausibility checks: objective tests of where the bodies ended up, so that a fast but wrong
//! simulation (a collapsed pyramid, bodies through the floor) shows as FAIL next to its time.

use crate::engine::{Engine, Pose};
use atoll_physics::scene::BodyRef;
use atoll_physics::{BodyType, Quat, Ray, Scene, Vec3};

/// Steps (4 s at 60 Hz) after which the bodies of the rain and the tumbler have landed and a
/// pyramid that cannot stand has fallen; a shorter run is reported as not checked.
pub const SETTLE_STEPS: usize = 240;

/// What a plausible end state is, per scene.
#[derive(Clone, Copy, Debug)]
pub enum Check {
    /// The dynamic bodies that start highest (the pyramids' top boxes) must all end within
    /// `tolerance` metres of their starting height.
    TopHeight {
        /// Largest allowed drop or rise, m.
        tolerance: f32,
    },
    /// Rain into a bin: no body centre below the floor (y < 0) or outside the bin, and every
    /// body has come down below `max_height` (the walls' top), so none is still in the air.
    Bin {
        /// Inner half width of the bin along X and Z, m.
        half_width: f32,
        /// Highest allowed body centre, m.
        max_height: f32,
    },
    /// Rain onto voxel terrain: no body centre under the terrain's surface (a ray up from it
    /// meets the underside of the ground) or fallen through it onto the catch floor below its
    /// footprint, and every body below `max_height`.
    Terrain {
        /// Highest allowed body centre, m.
        max_height: f32,
    },
    /// Jointed bodies: no joint's two anchors (placed by each body's pose) farther apart than
    /// `max_gap` (nothing tore or came apart), and, with a floor, no body centre below it.
    Joints {
        /// Largest allowed distance between a joint's anchors, m.
        max_gap: f32,
        /// Lowest allowed body centre, m.
        floor: Option<f32>,
    },
    /// Bodies thrown far apart ([`atoll_physics::scene::builtin::free_fall`]): none below
    /// `floor` over the ground's footprint less `edge` all round (through the ground; some fly
    /// past its edge), and the ones still high in the air mostly on their thrown path (a
    /// parabola from the start: nothing but gravity acted on them); about a tenth meet another
    /// on the way.
    FreeFall {
        /// Lowest allowed body centre over the ground, m.
        floor: f32,
        /// Half width of the ground's footprint, m.
        half_width: f32,
        /// A strip along the footprint's edge that is not checked, m: a body that falls past
        /// the edge can catch it, slide down the ground's side and drift in under it (in Atoll
        /// at 1e59878 one did, 3 cm in, 40 m down).
        edge: f32,
    },
    /// A pile on the ground: no body origin below `floor`, and every body below `max_height`
    /// (none still falling or thrown up).
    Pile {
        /// Lowest allowed body origin, m.
        floor: f32,
        /// Highest allowed body origin, m.
        max_height: f32,
    },
    /// A turning hollow box: no body centre outside the box (its frame read from the first
    /// kinematic body, which starts unrotated), and the bodies' mean height at least
    /// `min_drop` below the pivot, so they fell to the bottom rather than floating in place.
    Tumbler {
        /// Centre of the box.
        pivot: Vec3,
        /// Inner half width of the box, m.
        half_width: f32,
        /// Smallest drop of the mean height below the pivot, m.
        min_drop: f32,
    },
}

/// The outcome of a check.
#[derive(Clone, Debug, serde::Serialize)]
pub struct Verdict {
    /// What was measured.
    pub measured: String,
    /// What passes.
    pub expected: String,
    /// `Some(true)` passed, `Some(false)` failed, `None` not checked (run too short).
    pub ok: Option<bool>,
}

impl Verdict {
    /// OK, FAIL or "-" (not checked).
    pub fn label(&self) -> &'static str {
        match self.ok {
            Some(true) => "OK",
            Some(false) => "FAIL",
            None => "-",
        }
    }
}

impl Check {
    /// Judges `engine`'s world after `steps` steps of `scene`.
    pub fn evaluate(&self, scene: &Scene, engine: &dyn Engine, steps: usize) -> Verdict {
        let dynamic: Vec<usize> =
            (0..scene.bodies.len()).filter(|&i| scene.bodies[i].body_type == BodyType::Dynamic).collect();
        let position = |i: usize| Vec3::from_array(engine.pose(i).position);
        match *self {
            Check::TopHeight { tolerance } => {
                let start = dynamic.iter().map(|&i| scene.bodies[i].position.y).fold(f32::MIN, f32::max);
                let tops = dynamic.iter().filter(|&&i| scene.bodies[i].position.y == start);
                let (low, high) =
                    tops.map(|&i| position(i).y).fold((f32::MAX, f32::MIN), |(l, h), y| (l.min(y), h.max(y)));
                let held = (start - low).abs() <= tolerance && (high - start).abs() <= tolerance;
                Verdict {
                    measured: format!("top {low:.3} m"),
                    expected: format!("{start:.2} ± {tolerance} m"),
                    ok: (steps >= SETTLE_STEPS).then_some(held),
                }
            }
            Check::Bin { half_width, max_height } => {
                let out = |p: Vec3| p.y < 0.0 || p.x.abs() > half_width || p.z.abs() > half_width;
                let lost = dynamic.iter().filter(|&&i| out(position(i))).count();
                let highest = dynamic.iter().map(|&i| position(i).y).fold(f32::MIN, f32::max);
                let ok = (steps >= SETTLE_STEPS).then_some(lost == 0 && highest < max_height);
                Verdict {
                    measured: format!("{lost} out, highest {highest:.2} m"),
                    expected: format!("0 below floor or out of bin, highest < {max_height} m"),
                    ok,
                }
            }
            Check::Terrain { max_height } => {
                let Some(terrain) = scene.terrain.as_ref().and_then(|t| t.to_terrain().ok()) else {
                    return Verdict {
                        measured: "no terrain".into(),
                        expected: "a terrain".into(),
                        ok: Some(false),
                    };
                };
                let bounds = terrain.settings().world_aabb();
                let buried = |p: Vec3| {
                    let under_footprint = p.x.abs() < bounds.max.x - 0.5 && p.z.abs() < bounds.max.z - 0.5;
                    let up = Ray::new(p, Vec3::Y, 100.0).ok().and_then(|ray| terrain.cast_ray(&ray));
                    up.is_some_and(|hit| hit.normal.y > 0.0) || (under_footprint && p.y < bounds.min.y)
                };
                // Judged at the centre of mass: a rock's origin may sit on its face.
                let center = |i: usize| {
                    let local = scene.bodies[i]
                        .shape
                        .to_shape()
                        .map_or(Vec3::ZERO, |s| s.mass_properties(1.0).local_center);
                    position(i) + rotation(engine.pose(i)) * local
                };
                let lost: Vec<usize> = dynamic.iter().copied().filter(|&i| buried(center(i))).collect();
                let highest = dynamic.iter().map(|&i| position(i).y).fold(f32::MIN, f32::max);
                let ok = (steps >= SETTLE_STEPS).then_some(lost.is_empty() && highest < max_height);
                let first = lost.first().map_or(String::new(), |&i| format!(" (body {i} at {})", center(i)));
                Verdict {
                    measured: format!("{} buried{first}, highest {highest:.2} m", lost.len()),
                    expected: format!("0 under the ground, highest < {max_height} m"),
                    ok,
                }
            }
            Check::Joints { max_gap, floor } => {
                let index = |r: &BodyRef| match r {
                    BodyRef::Index(i) => *i,
                    BodyRef::Name(n) => scene.bodies.iter().position(|b| &b.name == n).expect("named body"),
                };
                let anchor = |body: Option<usize>, local: Vec3| match body {
                    Some(i) => position(i) + rotation(engine.pose(i)) * local,
                    None => local,
                };
                let widest = scene
                    .joints
                    .iter()
                    .map(|j| {
                        let a = anchor(j.body_a.as_ref().map(index), j.frame_a.anchor);
                        let b = anchor(Some(index(&j.body_b)), j.frame_b.anchor);
                        (b - a).length()
                    })
                    .fold(0.0f32, f32::max);
                let lowest = dynamic.iter().map(|&i| position(i).y).fold(f32::MAX, f32::min);
                let above = floor.is_none_or(|f| lowest >= f);
                let ok = (steps >= SETTLE_STEPS).then_some(widest <= max_gap && above);
                Verdict {
                    measured: format!("widest joint {widest:.3} m, lowest {lowest:.2} m"),
                    expected: match floor {
                        Some(f) => format!("joints ≤ {max_gap} m, lowest ≥ {f} m"),
                        None => format!("joints ≤ {max_gap} m"),
                    },
                    ok,
                }
            }
            Check::FreeFall { floor, half_width, edge } => {
                let t = steps as f32 * crate::scenes::DT;
                let thrown = |i: usize| {
                    let b = &scene.bodies[i];
                    b.position + b.linear_velocity * t + 0.5 * scene.settings.gravity * t * t
                };
                let inside = half_width - edge;
                let over_ground = |p: Vec3| p.x.abs() < inside && p.z.abs() < inside;
                let lost =
                    dynamic.iter().filter(|&&i| position(i).y < floor && over_ground(position(i))).count();
                let airborne: Vec<usize> = dynamic.iter().copied().filter(|&i| thrown(i).y > 2.0).collect();
                // The same integration in every engine stays within centimetres of the parabola.
                let strays = airborne.iter().filter(|&&i| (position(i) - thrown(i)).length() > 0.5).count();
                let ok = lost == 0 && strays * 5 <= airborne.len();
                Verdict {
                    measured: format!(
                        "{lost} through, {strays} of {} in the air off their path",
                        airborne.len()
                    ),
                    expected: format!(
                        "0 below {floor} m over the ground ({edge} m in from its edge), ≤ 20 % in the air off their path"
                    ),
                    ok: (steps >= 2).then_some(ok),
                }
            }
            Check::Pile { floor, max_height } => {
                let lowest = dynamic.iter().map(|&i| position(i).y).fold(f32::MAX, f32::min);
                let highest = dynamic.iter().map(|&i| position(i).y).fold(f32::MIN, f32::max);
                let ok = (steps >= SETTLE_STEPS).then_some(lowest >= floor && highest < max_height);
                Verdict {
                    measured: format!("lowest {lowest:.2} m, highest {highest:.2} m"),
                    expected: format!("lowest ≥ {floor} m, highest < {max_height} m"),
                    ok,
                }
            }
            Check::Tumbler { pivot, half_width, min_drop } => {
                let frame = (0..scene.bodies.len())
                    .find(|&i| scene.bodies[i].body_type == BodyType::Kinematic)
                    .map_or(Quat::IDENTITY, |i| rotation(engine.pose(i)));
                let local = |i: usize| frame.inverse() * (position(i) - pivot);
                let outside = dynamic.iter().filter(|&&i| local(i).abs().max_element() > half_width).count();
                let mean_y =
                    dynamic.iter().map(|&i| position(i).y - pivot.y).sum::<f32>() / dynamic.len() as f32;
                let ok = (steps >= SETTLE_STEPS).then_some(outside == 0 && mean_y <= -min_drop);
                Verdict {
                    measured: format!("{outside} outside, mean {mean_y:.2} m"),
                    expected: format!("0 outside, mean ≤ -{min_drop} m from the pivot"),
                    ok,
                }
            }
        }
    }
}

fn rotation(pose: Pose) -> Quat {
    Quat::from_array(pose.rotation)
}
