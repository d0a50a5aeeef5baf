//! The Query tool: asks the engine's queries from the pointer and draws the answers, as Box2D's
//! samples do, so a user sees what a query returns before using it in code.
//!
//! - **Ray** and **Cast**: hovering casts from the eye through the pointer; a drag from one
//!   surface point to another casts between them (a cast shape starts resting on the first
//!   surface) and keeps that query until Esc or the next drag. The hit's point, normal and
//!   fraction are drawn, and a cast shape where it stops.
//! - **Overlap**: the shape centred on the surface under the pointer (a click keeps it there);
//!   the bodies it overlaps are outlined and listed.
//!
//! The answer is asked again every frame from the world as it is, so a kept query follows the
//! simulation while it plays.

use super::spawn::surface_under_filtered;
use super::tool::{Tool, ViewportInput};
use crate::editor::state::EditorState;
use crate::render::wireframe::{box_edges, shape_wireframe};
use atoll_physics::{
    BodyId, PlacedShape, QueryFilter, Ray, RayCastHit, Shape, ShapeCast, ShapeCastHit, Transform, Vec3,
};
use egui::{Color32, Stroke};

/// Longest reach of a query from the eye, metres.
const REACH: f32 = 1.0e3;
/// How far above the surface a dragged query starts and ends, metres (beyond the cast
/// tolerance, so a cast does not start touching the surface it starts on).
const LIFT: f32 = 0.01;
/// Length of the drawn normal, metres.
const NORMAL_LENGTH: f32 = 0.6;

/// The query's path and the hit's colour (sRGB), and the colour of what an overlap finds.
pub const PATH_COLOUR: [u8; 3] = [255, 225, 60];
/// The hit point, its normal and the shape where a cast stops.
pub const HIT_COLOUR: [u8; 3] = [255, 60, 200];
/// The bodies an overlap finds.
pub const FOUND_COLOUR: [u8; 3] = [255, 140, 40];

/// Which query the tool asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryMode {
    /// A ray: the first surface along it.
    Ray,
    /// A shape moved along a path: where it first touches.
    Cast,
    /// A shape at a place: every body it overlaps.
    Overlap,
}

impl QueryMode {
    /// Every mode, in palette order.
    pub const ALL: [QueryMode; 3] = [QueryMode::Ray, QueryMode::Cast, QueryMode::Overlap];

    /// The palette label.
    pub fn label(self) -> &'static str {
        match self {
            QueryMode::Ray => "ray",
            QueryMode::Cast => "cast shape",
            QueryMode::Overlap => "overlap",
        }
    }
}

/// The shapes a query can use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum QueryShape {
    /// A ball of the size's radius.
    Sphere,
    /// A cube of half the size's edge.
    Box,
    /// A capsule standing along Y, of the size's half height and 0.6 of it in radius.
    Capsule,
}

impl QueryShape {
    /// Every shape, in palette order.
    pub const ALL: [QueryShape; 3] = [QueryShape::Sphere, QueryShape::Box, QueryShape::Capsule];

    /// The palette label.
    pub fn label(self) -> &'static str {
        match self {
            QueryShape::Sphere => "sphere",
            QueryShape::Box => "box",
            QueryShape::Capsule => "capsule",
        }
    }
}

/// What the last query found, for drawing and for the palette.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum QueryAnswer {
    /// Nothing asked (the pointer is off the view and nothing is kept).
    #[default]
    None,
    /// A ray from `from` toward `to`, and its hit.
    Ray {
        /// Where it starts.
        from: Vec3,
        /// Where it would end without a hit.
        to: Vec3,
        /// The first surface, if any.
        hit: Option<RayCastHit>,
    },
    /// A shape cast from `start` by `translation`, and its hit.
    Cast {
        /// The shape where it starts.
        start: PlacedShape,
        /// Its path.
        translation: Vec3,
        /// Where it first touches, if anywhere.
        hit: Option<ShapeCastHit>,
    },
    /// A placed shape and the bodies (and terrain) it overlaps.
    Overlap {
        /// The shape where it is asked.
        placed: PlacedShape,
        /// What it overlaps, in slot order, the terrain last.
        found: Vec<BodyId>,
    },
}

/// The Query tool's settings and its last answer.
#[derive(Clone, Debug, PartialEq)]
pub struct QueryTool {
    /// Which query.
    pub mode: QueryMode,
    /// The shape of a cast or an overlap.
    pub shape: QueryShape,
    /// Its size (see [`QueryShape`]).
    pub size: f32,
    /// Sensors count.
    pub sensors: bool,
    /// The kept query: a dragged path's ends, or a clicked overlap's place (both ends the same).
    pub kept: Option<(Vec3, Vec3)>,
    /// Where a drag began (the lifted surface point), while one is under way.
    drag_from: Option<Vec3>,
    /// The answer asked this frame.
    pub answer: QueryAnswer,
}

impl Default for QueryTool {
    fn default() -> Self {
        QueryTool {
            mode: QueryMode::Cast,
            shape: QueryShape::Sphere,
            size: 0.3,
            sensors: true,
            kept: None,
            drag_from: None,
            answer: QueryAnswer::None,
        }
    }
}

impl QueryTool {
    /// The engine shape the palette describes.
    pub fn engine_shape(&self) -> Result<Shape, String> {
        let s = self.size;
        match self.shape {
            QueryShape::Sphere => Shape::sphere(s),
            QueryShape::Box => Shape::cuboid(Vec3::splat(s)),
            QueryShape::Capsule => Shape::capsule(s, 0.6 * s),
        }
        .map_err(|e| e.to_string())
    }

    /// The filter of every query the tool asks.
    pub fn filter(&self) -> QueryFilter {
        QueryFilter { sensors: self.sensors, ..QueryFilter::ALL }
    }

    /// How far a shape's centre sits from a surface of normal `normal` it rests on.
    fn rest_height(&self, normal: Vec3) -> f32 {
        match (self.mode, self.engine_shape()) {
            (QueryMode::Cast, Ok(shape)) => -shape.support(-normal).dot(normal) + LIFT,
            _ => LIFT,
        }
    }

    /// Asks the mode's query along `from → to` (a ray or a cast) or at `from` (an overlap).
    pub fn ask(&mut self, state: &EditorState, from: Vec3, to: Vec3) {
        let world = &state.sim.world;
        let filter = self.filter();
        self.answer = match self.mode {
            QueryMode::Ray => {
                let hit = Ray::new(from, to - from, 1.0).ok().and_then(|ray| world.cast_ray(&ray, &filter));
                QueryAnswer::Ray { from, to, hit }
            }
            QueryMode::Cast => {
                let placed = self.engine_shape().and_then(|s| {
                    PlacedShape::new(s, Transform::from_position(from)).map_err(|e| e.to_string())
                });
                match placed.and_then(|p| ShapeCast::new(p, to - from).map_err(|e| e.to_string())) {
                    Ok(cast) => QueryAnswer::Cast {
                        hit: world.cast_shape(&cast, &filter),
                        start: cast.start().clone(),
                        translation: cast.translation(),
                    },
                    Err(_) => QueryAnswer::None,
                }
            }
            QueryMode::Overlap => {
                let placed = self.engine_shape().and_then(|s| {
                    PlacedShape::new(s, Transform::from_position(from)).map_err(|e| e.to_string())
                });
                match placed {
                    Ok(placed) => {
                        let mut found = Vec::new();
                        world.overlap_shape(&placed, &filter, &mut found);
                        QueryAnswer::Overlap { placed, found }
                    }
                    Err(_) => QueryAnswer::None,
                }
            }
        };
    }

    /// The query under the pointer when nothing is kept: from the eye along the view ray (a
    /// ray or a cast), or at the surface under it (an overlap).
    fn ask_from_eye(&mut self, state: &EditorState, origin: Vec3, dir: Vec3) {
        let dir = dir.normalize_or(Vec3::NEG_Z);
        match self.mode {
            QueryMode::Overlap => match surface_under_filtered(&state.sim.world, origin, dir, &self.filter())
            {
                Some((point, _)) => self.ask(state, point, point),
                None => self.answer = QueryAnswer::None,
            },
            _ => self.ask(state, origin, origin + dir * REACH),
        }
    }

    /// The lifted surface point under the view ray, where a drag begins or ends.
    fn lifted_surface(&self, state: &EditorState, origin: Vec3, dir: Vec3) -> Option<Vec3> {
        surface_under_filtered(&state.sim.world, origin, dir, &self.filter())
            .map(|(p, n)| p + n * self.rest_height(n))
    }

    /// What the tool says about its answer, a line for the palette.
    pub fn summary(&self, state: &EditorState) -> String {
        let name = |id: BodyId| state.body_name(id);
        match &self.answer {
            QueryAnswer::None => "Point at the scene.".into(),
            QueryAnswer::Ray { hit: Some(h), from, to } => format!(
                "hit {} at {:.3} m ({:.4} of the way), normal ({:.2}, {:.2}, {:.2})",
                name(h.body),
                h.t * (*to - *from).length(),
                h.t,
                h.normal.x,
                h.normal.y,
                h.normal.z
            ),
            QueryAnswer::Cast { hit: Some(h), .. } => format!(
                "hit {} at fraction {:.4}, normal ({:.2}, {:.2}, {:.2})",
                name(h.body),
                h.fraction,
                h.normal.x,
                h.normal.y,
                h.normal.z
            ),
            QueryAnswer::Ray { hit: None, .. } | QueryAnswer::Cast { hit: None, .. } => "no hit".into(),
            QueryAnswer::Overlap { found, .. } if found.is_empty() => "overlaps nothing".into(),
            QueryAnswer::Overlap { found, .. } => {
                let names: Vec<String> = found.iter().map(|&id| name(id)).collect();
                format!("overlaps {}: {}", found.len(), names.join(", "))
            }
        }
    }
}

impl Tool for QueryTool {
    fn name(&self) -> &'static str {
        "Query tool"
    }

    /// A drag sets a path (rays and casts) and keeps it; a click keeps an overlap where it is;
    /// otherwise the query follows the pointer.
    fn viewport_input(&mut self, state: &mut EditorState, input: &ViewportInput) -> bool {
        let response = input.response;
        let mut owned = false;
        if self.mode != QueryMode::Overlap {
            if response.drag_started_by(egui::PointerButton::Primary)
                && let Some(pos) = response.interact_pointer_pos()
            {
                let (origin, dir) = input.ray(state, pos);
                self.drag_from = self.lifted_surface(state, origin, dir);
            }
            if let Some(from) = self.drag_from {
                owned = true;
                if let Some(pos) = response.interact_pointer_pos() {
                    let (origin, dir) = input.ray(state, pos);
                    if let Some(to) = self.lifted_surface(state, origin, dir) {
                        self.kept = Some((from, to));
                    }
                }
                if response.drag_stopped() {
                    self.drag_from = None;
                }
            }
        } else if response.clicked()
            && let Some(pos) = response.interact_pointer_pos()
        {
            let (origin, dir) = input.ray(state, pos);
            self.kept =
                surface_under_filtered(&state.sim.world, origin, dir, &self.filter()).map(|(p, _)| (p, p));
        }
        match (self.kept, input.pointer) {
            (Some((from, to)), _) => self.ask(state, from, to),
            (None, Some(pos)) => {
                let (origin, dir) = input.ray(state, pos);
                self.ask_from_eye(state, origin, dir);
            }
            (None, None) => self.answer = QueryAnswer::None,
        }
        owned
    }

    /// The path, the shape where it starts and stops, the hit's point and normal; an overlap's
    /// shape and the outlines of what it found.
    fn paint(&self, state: &EditorState, painter: &egui::Painter, input: &ViewportInput) {
        let colour = |c: [u8; 3]| Color32::from_rgb(c[0], c[1], c[2]);
        let (path, hit, found) = (colour(PATH_COLOUR), colour(HIT_COLOUR), colour(FOUND_COLOUR));
        let line = |a: Vec3, b: Vec3, stroke: Stroke| {
            if let (Some(a), Some(b)) = (input.on_screen(state, a), input.on_screen(state, b)) {
                painter.line_segment([a, b], stroke);
            }
        };
        let outline = |shape: &Shape, pose: &Transform, stroke: Stroke| {
            for [a, b] in shape_wireframe(shape, pose) {
                line(a, b, stroke);
            }
        };
        let mark = |point: Vec3, normal: Vec3| {
            line(point, point + normal * NORMAL_LENGTH, Stroke::new(2.5, hit));
            if let Some(p) = input.on_screen(state, point) {
                painter.circle_filled(p, 5.0, hit);
            }
        };
        match &self.answer {
            QueryAnswer::None => {}
            QueryAnswer::Ray { from, to, hit: h } => {
                let end = h.map_or(*to, |h| h.point);
                line(*from, end, Stroke::new(2.0, path));
                if let Some(h) = h {
                    mark(h.point, h.normal);
                }
            }
            QueryAnswer::Cast { start, translation, hit: h } => {
                let from = start.pose().position;
                let fraction = h.map_or(1.0, |h| h.fraction);
                outline(start.shape(), start.pose(), Stroke::new(1.0, path));
                line(from, from + *translation * fraction, Stroke::new(2.0, path));
                if let Some(h) = h {
                    let stop = Transform::new(from + *translation * h.fraction, start.pose().rotation);
                    outline(start.shape(), &stop, Stroke::new(2.0, hit));
                    mark(h.point, h.normal);
                }
            }
            QueryAnswer::Overlap { placed, found: bodies } => {
                let shape_colour = if bodies.is_empty() { path } else { found };
                outline(placed.shape(), placed.pose(), Stroke::new(2.0, shape_colour));
                for &id in bodies {
                    if let Ok(aabb) = state.sim.world.aabb(id) {
                        for [a, b] in box_edges(aabb.min, aabb.max) {
                            line(a, b, Stroke::new(2.0, found));
                        }
                    }
                }
            }
        }
    }

    /// The switch, the mode, the shape and its size, sensors, and the answer.
    fn palette(&mut self, ui: &mut egui::Ui, state: &mut EditorState, active: bool) -> Option<bool> {
        let mut on = active;
        let r = ui.toggle_value(&mut on, self.name()).on_hover_text(
            "Cast a ray or a shape from the pointer, or find what a shape overlaps (K); drag to cast between two points",
        );
        ui.horizontal(|ui| {
            for mode in QueryMode::ALL {
                // A kept query is a path or a place: another mode starts afresh.
                if ui.selectable_value(&mut self.mode, mode, mode.label()).changed() {
                    self.cancel();
                }
            }
        });
        if self.mode != QueryMode::Ray {
            ui.horizontal(|ui| {
                for shape in QueryShape::ALL {
                    ui.selectable_value(&mut self.shape, shape, shape.label());
                }
                ui.add(egui::DragValue::new(&mut self.size).range(0.02..=20.0).speed(0.01).suffix(" m"));
            });
        }
        ui.checkbox(&mut self.sensors, "sensors count");
        if active {
            ui.label(self.summary(state));
            if self.kept.is_some() {
                ui.weak("Esc lets the query follow the pointer again.");
            }
        }
        r.changed().then_some(on)
    }

    fn cancel(&mut self) -> bool {
        self.drag_from = None;
        self.kept.take().is_some()
    }
}
