//! The spawn tool: a palette of shapes and body types, placed with a click on whatever surface
//! is under the pointer (bodies, terrain, or the ground plane y = 0), or in a row with a
//! shift-drag.

use super::select::BoxDrag;
use super::tool::{Tool, ViewportInput};
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use atoll_physics::{BodyType, QueryFilter, Ray, SceneBody, SceneShape, Vec3, World};
use egui::{Color32, DragValue, Stroke};

/// Most bodies one shift-drag row places.
const MAX_ROW: usize = 200;

/// The shapes the palette offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SpawnShape {
    /// A ball.
    Sphere,
    /// A capsule standing along Y.
    Capsule,
    /// A cube.
    Box,
    /// A hull: a right-angled wedge (a ramp).
    Wedge,
    /// A hull: a regular tetrahedron.
    Tetrahedron,
    /// A hull: a random rough rock (a new one for every spawn).
    Rock,
}

impl SpawnShape {
    /// Every shape, in palette order.
    pub const ALL: [SpawnShape; 6] = [
        SpawnShape::Sphere,
        SpawnShape::Capsule,
        SpawnShape::Box,
        SpawnShape::Wedge,
        SpawnShape::Tetrahedron,
        SpawnShape::Rock,
    ];

    /// The palette label, also the start of a spawned body's name.
    pub fn label(self) -> &'static str {
        match self {
            SpawnShape::Sphere => "sphere",
            SpawnShape::Capsule => "capsule",
            SpawnShape::Box => "box",
            SpawnShape::Wedge => "wedge",
            SpawnShape::Tetrahedron => "tetrahedron",
            SpawnShape::Rock => "rock",
        }
    }
}

/// The spawn tool's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct SpawnTool {
    /// What to spawn.
    pub shape: SpawnShape,
    /// Static, kinematic or dynamic.
    pub body_type: BodyType,
    /// The shape's size: a sphere's radius, half a box's edge, a capsule's radius.
    pub size: f32,
    /// Seeds the next rock, so every rock differs but a session replays the same.
    pub rock_seed: u64,
    /// Bodies spawned so far, for their names.
    pub spawned: u32,
    /// The shift-drag placing a row, while one is under way.
    row: BoxDrag,
}

impl Default for SpawnTool {
    fn default() -> Self {
        SpawnTool {
            shape: SpawnShape::Box,
            body_type: BodyType::Dynamic,
            size: 0.5,
            rock_seed: 1,
            spawned: 0,
            row: BoxDrag::default(),
        }
    }
}

impl SpawnTool {
    /// The scene shape the palette describes (a rock advances the seed).
    pub fn scene_shape(&mut self) -> SceneShape {
        let s = self.size;
        match self.shape {
            SpawnShape::Sphere => SceneShape::Sphere { radius: s },
            SpawnShape::Capsule => SceneShape::Capsule { half_height: s, radius: s * 0.6 },
            SpawnShape::Box => SceneShape::Box { half_extents: Vec3::splat(s) },
            SpawnShape::Wedge => SceneShape::Hull { points: wedge(s) },
            SpawnShape::Tetrahedron => SceneShape::Hull { points: tetrahedron(s) },
            SpawnShape::Rock => {
                self.rock_seed = self.rock_seed.wrapping_add(1);
                SceneShape::Hull { points: rock(s, self.rock_seed) }
            }
        }
    }

    /// A new body of the palette's kind resting on the surface at `point` with outward normal
    /// `normal`: its centre is moved out along the normal by the shape's extent that way.
    pub fn body_at(&mut self, point: Vec3, normal: Vec3) -> Result<SceneBody, String> {
        let shape = self.scene_shape();
        let engine_shape = shape.to_shape().map_err(|e| e.to_string())?;
        let n = normal.normalize_or(Vec3::Y);
        // How far the shape reaches against the normal from its origin: resting on the surface
        // puts that support point on it.
        let reach = -engine_shape.support(-n).dot(n);
        self.spawned += 1;
        let mut body = SceneBody::new(self.body_type, shape, point + n * reach);
        body.name = format!("{} {}", self.shape.label(), self.spawned);
        Ok(body)
    }

    /// The spacing of a row of these bodies: their width and a little air.
    pub fn row_spacing(&self) -> f32 {
        self.size * 2.0 + 0.05
    }
}

/// Where a spawn ray meets the scene: the nearest of what the engine's ray query finds (bodies
/// and terrain) and the editor's ground plane y = 0 (when the ray goes down). Returns the point
/// and the outward normal there.
pub fn surface_under(world: &World, origin: Vec3, dir: Vec3) -> Option<(Vec3, Vec3)> {
    surface_under_filtered(world, origin, dir, &QueryFilter::ALL)
}

/// [`surface_under`] of what `filter` lets through (the Query tool's filter: unticking
/// "sensors count" makes a drag pass through a sensor to what is behind it).
pub fn surface_under_filtered(
    world: &World,
    origin: Vec3,
    dir: Vec3,
    filter: &QueryFilter,
) -> Option<(Vec3, Vec3)> {
    const REACH: f32 = 1.0e4;
    let ray = Ray::new(origin, dir, REACH).ok()?;
    let scene_hit = world.cast_ray(&ray, filter).map(|hit| (hit.t, hit.point, hit.normal));
    let ground_hit = (dir.y < 0.0 && origin.y > 0.0).then(|| {
        let t = -origin.y / dir.y;
        (t, ray.at(t), Vec3::Y)
    });
    [scene_hit, ground_hit].into_iter().flatten().min_by(|a, b| a.0.total_cmp(&b.0)).map(|(_, p, n)| (p, n))
}

/// A ramp: a box of half size `s` cut along its diagonal, the slope facing +X.
fn wedge(s: f32) -> Vec<Vec3> {
    vec![
        Vec3::new(-s, -s, -s),
        Vec3::new(s, -s, -s),
        Vec3::new(-s, -s, s),
        Vec3::new(s, -s, s),
        Vec3::new(-s, s, -s),
        Vec3::new(-s, s, s),
    ]
}

/// A regular tetrahedron whose vertices lie at distance `s * 1.5` from its centre.
fn tetrahedron(s: f32) -> Vec<Vec3> {
    let r = s * 1.5 / 3f32.sqrt();
    vec![Vec3::new(r, r, r), Vec3::new(r, -r, -r), Vec3::new(-r, r, -r), Vec3::new(-r, -r, r)]
}

/// A rough rock: 16 points on a sphere of radius `s`, each pushed in or out by up to 25 %.
fn rock(s: f32, seed: u64) -> Vec<Vec3> {
    let mut state = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 40) as f32 / (1u64 << 24) as f32
    };
    // Points spread by a golden-angle spiral, so the rock is round overall whatever the seed.
    (0..16)
        .map(|i| {
            let y = 1.0 - 2.0 * (i as f32 + 0.5) / 16.0;
            let ring = (1.0 - y * y).sqrt();
            let angle = i as f32 * 2.399_963;
            let dir = Vec3::new(ring * angle.cos(), y, ring * angle.sin());
            dir * s * (0.75 + 0.5 * next())
        })
        .collect()
}

impl SpawnTool {
    /// Spawns the palette's body on the surface the view ray `origin + t dir` meets first
    /// (bodies, terrain, or the ground plane). Returns false when the ray meets nothing.
    pub fn place(&mut self, state: &mut EditorState, origin: Vec3, dir: Vec3) -> Result<bool, String> {
        let Some((point, normal)) = surface_under(&state.sim.world, origin, dir) else { return Ok(false) };
        let body = self.body_at(point, normal)?;
        let label = format!("spawn {}", self.shape.label());
        state.add_bodies(&label, vec![body])?;
        Ok(true)
    }

    /// Spawns a row of the palette's bodies from where the ray `from` meets the scene to where
    /// `to` does, spaced by their size (one undo step). Returns how many it placed.
    pub fn place_row(
        &mut self,
        state: &mut EditorState,
        from: (Vec3, Vec3),
        to: (Vec3, Vec3),
    ) -> Result<usize, String> {
        let (Some((a, normal)), Some((b, _))) =
            (surface_under(&state.sim.world, from.0, from.1), surface_under(&state.sim.world, to.0, to.1))
        else {
            return Ok(0);
        };
        let spacing = self.row_spacing();
        let count = ((b - a).length() / spacing).floor() as usize + 1;
        let step = (b - a).normalize_or_zero() * spacing;
        let bodies = (0..count.min(MAX_ROW))
            .map(|i| self.body_at(a + step * i as f32, normal))
            .collect::<Result<Vec<_>, _>>()?;
        let label = format!("spawn a row of {}", bodies.len());
        let placed = bodies.len();
        state.add_bodies(&label, bodies)?;
        Ok(placed)
    }
}

impl Tool for SpawnTool {
    fn name(&self) -> &'static str {
        "Spawn tool"
    }

    /// A click places a body on the surface under the pointer; a shift-drag places a row.
    fn viewport_input(&mut self, state: &mut EditorState, input: &ViewportInput) -> bool {
        let finished = self.row.input(input);
        if let Some((from, to)) = finished {
            let (a, b) = (input.ray(state, from), input.ray(state, to));
            if let Err(e) = self.place_row(state, a, b) {
                state.diag.notices.report(NoticePlace::ErrorWindow, e);
            }
        }
        if input.response.clicked()
            && let Some(pos) = input.response.interact_pointer_pos()
        {
            let (origin, dir) = input.ray(state, pos);
            if let Err(e) = self.place(state, origin, dir) {
                state.diag.notices.report(NoticePlace::ErrorWindow, e);
            }
        }
        // The release frame too: the button was the row's.
        finished.is_some() || self.row.under_way()
    }

    /// The row being placed, as a line from where the drag began to the pointer.
    fn paint(&self, _state: &EditorState, painter: &egui::Painter, input: &ViewportInput) {
        if let Some((from, to)) = self.row.span(input) {
            painter.line_segment([from, to], Stroke::new(2.0, Color32::from_rgb(255, 200, 80)));
        }
    }

    fn palette(&mut self, ui: &mut egui::Ui, _state: &mut EditorState, active: bool) -> Option<bool> {
        let mut on = active;
        let switched = ui
            .toggle_value(&mut on, self.name())
            .on_hover_text("Click in the viewport to place a body on the surface under the pointer; shift-drag places a row (B)")
            .changed();
        ui.horizontal_wrapped(|ui| {
            for shape in SpawnShape::ALL {
                ui.selectable_value(&mut self.shape, shape, shape.label());
            }
        });
        ui.horizontal(|ui| {
            for (body_type, label) in [
                (BodyType::Dynamic, "dynamic"),
                (BodyType::Kinematic, "kinematic"),
                (BodyType::Static, "static"),
            ] {
                ui.selectable_value(&mut self.body_type, body_type, label);
            }
        });
        ui.horizontal(|ui| {
            ui.label("size");
            ui.add(DragValue::new(&mut self.size).range(0.02..=20.0).speed(0.01).suffix(" m"))
                .on_hover_text("Radius of a sphere, half the edge of a box");
        });
        switched.then_some(on)
    }

    fn cancel(&mut self) -> bool {
        self.row.cancel()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::StepSettings;

    #[test]
    fn every_preset_is_a_valid_shape_and_rests_on_the_surface() {
        let mut tool = SpawnTool::default();
        for shape in SpawnShape::ALL {
            tool.shape = shape;
            let body = tool.body_at(Vec3::ZERO, Vec3::Y).unwrap();
            let engine = body.shape.to_shape().unwrap();
            let lowest = body.position.y + engine.support(Vec3::NEG_Y).y;
            assert!(lowest.abs() < 1e-4, "{shape:?}: lowest point at {lowest}");
            assert!(body.name.starts_with(shape.label()));
        }
        let a = tool.scene_shape();
        let b = tool.scene_shape();
        assert_ne!(a, b, "every rock differs");
    }

    #[test]
    fn the_surface_under_the_pointer_is_the_nearest_of_bodies_and_ground() {
        let mut world = World::new(StepSettings::default()).unwrap();
        let down = Vec3::NEG_Y;
        let (p, n) = surface_under(&world, Vec3::new(1.0, 10.0, 2.0), down).unwrap();
        assert!((p - Vec3::new(1.0, 0.0, 2.0)).length() < 1e-5 && n == Vec3::Y);
        let mut tool = SpawnTool::default();
        let cube = tool.body_at(p, n).unwrap();
        world.create_body(&cube.to_desc().unwrap()).unwrap();
        let (p, _) = surface_under(&world, Vec3::new(1.0, 10.0, 2.0), down).unwrap();
        assert!((p.y - 1.0).abs() < 1e-4, "lands on the cube's top: {p}");
        assert!(surface_under(&world, Vec3::new(0.0, 10.0, 0.0), Vec3::Y).is_none());
    }

    #[test]
    fn a_filter_without_sensors_finds_the_surface_behind_a_sensor() {
        let mut world = World::new(StepSettings::default()).unwrap();
        let region = atoll_physics::Shape::cuboid(Vec3::splat(1.0)).unwrap();
        let sensor = atoll_physics::BodyDesc::fixed(region, Vec3::new(0.0, 3.0, 0.0))
            .with_sensor(atoll_physics::Sensor::default());
        world.create_body(&sensor).unwrap();
        let (from, down) = (Vec3::new(0.0, 10.0, 0.0), Vec3::NEG_Y);
        let (p, _) = surface_under(&world, from, down).unwrap();
        assert!((p.y - 4.0).abs() < 1e-4, "every body counts: the sensor's top, {p}");
        let solid = QueryFilter { sensors: false, ..QueryFilter::ALL };
        let (p, _) = surface_under_filtered(&world, from, down, &solid).unwrap();
        assert!(p.y.abs() < 1e-4, "sensors passed through: the ground, {p}");
    }
}
