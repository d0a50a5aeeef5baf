//! The editor's state, apart from any drawing: the world, the loaded snapshot, the camera and
//! the simulation controls. Tests drive the editor through it.

use super::files::PathPrompt;
use super::history::History;
use super::scenes;
use super::terrain_tool::TerrainTool;
use crate::render::terrain::TerrainRebuild;
use crate::render::{OrbitCamera, ViewOptions};
use atoll_physics::{Aabb, BodyId, Scene, Snapshot, StepSettings, World};
use glam::{Vec2, Vec3};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Recent files remembered for the File menu.
const MAX_RECENT: usize = 8;

/// Most steps taken in one frame while playing, so a slow frame does not snowball into slower
/// frames (the simulation then runs slower than real time instead).
const MAX_STEPS_PER_FRAME: u32 = 4;

/// Everything the editor knows, separate from how it is drawn.
pub struct EditorState {
    /// The simulated world.
    pub world: World,
    /// The state right after loading, for Reset.
    pub loaded: Snapshot,
    /// The scene's display name.
    pub scene_name: String,
    /// The file the scene came from, if any.
    pub scene_path: Option<PathBuf>,
    /// Whether the simulation advances with the frames.
    pub playing: bool,
    /// The viewport camera.
    pub camera: OrbitCamera,
    /// The selected body.
    pub selected: Option<BodyId>,
    /// Set when a scene is loaded: the viewport frames the bodies on its next frame (it knows
    /// the aspect ratio).
    pub needs_framing: bool,
    /// Wall-clock milliseconds of the last step.
    pub last_step_ms: f64,
    /// Wall-clock milliseconds the previous frame took on the CPU (UI and render submission).
    pub frame_ms: f64,
    /// The last error to show (a scene that failed to load).
    pub error: Option<String>,
    /// Names of the bodies as the scene file gave them (saved back with the scene).
    pub body_names: HashMap<BodyId, String>,
    /// The last steps' timings and broadphase figures.
    pub history: History,
    /// Colouring, overlays and highlights of the viewport.
    pub view: ViewOptions,
    /// The island picked in the Islands panel; its bodies are highlighted.
    pub selected_island: Option<u32>,
    /// Set when the world changed (stepped or edited) since it was loaded or saved.
    pub dirty: bool,
    /// Files opened or saved, most recent first.
    pub recent: Vec<PathBuf>,
    /// How many steps the "Step N" button takes.
    pub step_n: u32,
    /// Simulated seconds per real second while playing.
    pub time_scale: f64,
    /// Why the last settings change was refused, if it was.
    pub settings_error: Option<String>,
    /// The path prompt, while it is open.
    pub path_prompt: Option<PathPrompt>,
    /// Whether Open and Save As may use the desktop's file dialog; when false (no portal or
    /// display, or a test) they use the path prompt.
    pub native_dialogs: bool,
    /// The desktop's file dialog, while it is open.
    pub pending_dialog: Option<super::native_dialog::PendingDialog>,
    /// A box the viewport should frame on its next frame (it knows the aspect ratio).
    pub frame_target: Option<Aabb>,
    /// The terrain paint tool.
    pub terrain_tool: TerrainTool,
    /// What the viewport's last terrain rebuild did (chunks meshed, time, triangles drawn).
    pub terrain_rebuild: TerrainRebuild,
    /// Simulated seconds owed to the world while playing.
    pending_seconds: f64,
}

impl EditorState {
    /// A state holding `scene`, paused, with the camera waiting to frame it.
    pub fn from_scene(scene: &Scene, path: Option<PathBuf>) -> Result<EditorState, String> {
        let (world, ids) = scene.build_world().map_err(|e| format!("{}: {e}", scene.name))?;
        let body_names = ids
            .iter()
            .zip(&scene.bodies)
            .filter(|(_, body)| !body.name.is_empty())
            .map(|(id, body)| (*id, body.name.clone()))
            .collect();
        let view = ViewOptions { time_to_sleep: world.settings().time_to_sleep, ..Default::default() };
        let recent = path.iter().cloned().collect();
        Ok(EditorState {
            loaded: world.snapshot(),
            world,
            scene_name: scene.name.clone(),
            scene_path: path,
            playing: false,
            camera: OrbitCamera::default(),
            selected: None,
            needs_framing: true,
            last_step_ms: 0.0,
            frame_ms: 0.0,
            error: None,
            body_names,
            history: History::default(),
            view,
            selected_island: None,
            dirty: false,
            recent,
            step_n: 10,
            time_scale: 1.0,
            settings_error: None,
            path_prompt: None,
            native_dialogs: super::files::native_dialogs_available(),
            pending_dialog: None,
            frame_target: None,
            terrain_tool: TerrainTool::default(),
            terrain_rebuild: TerrainRebuild::default(),
            pending_seconds: 0.0,
        })
    }

    /// Loads a scene file (the default scene falls back to its embedded copy).
    pub fn open(path: &Path) -> Result<EditorState, String> {
        let scene = scenes::load(path)?;
        EditorState::from_scene(&scene, Some(path.to_path_buf()))
    }

    /// Replaces the open scene with the file at `path`. On failure the open scene stays as it
    /// was and the error is kept for display.
    pub fn open_in_place(&mut self, path: &Path) {
        match EditorState::open(path) {
            Ok(state) => {
                self.replace_with(state);
                self.remember(path);
            }
            Err(message) => self.error = Some(message),
        }
    }

    /// Swaps in a freshly loaded state, keeping what belongs to the session rather than to the
    /// scene: the view direction, the view options, the recent files and the step count.
    pub fn replace_with(&mut self, state: EditorState) {
        let camera = self.camera;
        let view = ViewOptions { selected: None, highlighted: Vec::new(), ..self.view.clone() };
        let recent = std::mem::take(&mut self.recent);
        let (step_n, time_scale, native_dialogs) = (self.step_n, self.time_scale, self.native_dialogs);
        // The brush settings stay; the stroke and the edits not yet drawn belong to the old world.
        let tool = self.terrain_tool.same_brush();
        *self = state;
        self.terrain_tool = tool;
        // The framing only moves the target and distance.
        self.camera = camera;
        self.view = ViewOptions { time_to_sleep: self.world.settings().time_to_sleep, ..view };
        self.recent = recent;
        self.step_n = step_n;
        self.time_scale = time_scale;
        self.native_dialogs = native_dialogs;
    }

    /// Puts `path` first in the recent files.
    pub fn remember(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(MAX_RECENT);
    }

    /// The display name of a body: its name from the scene file, or its index.
    pub fn body_name(&self, id: BodyId) -> String {
        if id.is_terrain() {
            return "terrain".to_string();
        }
        self.body_names.get(&id).cloned().unwrap_or_else(|| format!("body {}", id.index()))
    }

    /// Applies new step settings; invalid ones are refused (the error is kept for the Settings
    /// panel) and the old settings stay.
    pub fn apply_settings(&mut self, settings: StepSettings) -> Result<(), String> {
        if settings == *self.world.settings() {
            return Ok(());
        }
        match self.world.set_settings(settings) {
            Ok(()) => {
                self.settings_error = None;
                self.view.time_to_sleep = settings.time_to_sleep;
                self.dirty = true;
                Ok(())
            }
            Err(e) => {
                let message = e.to_string();
                self.settings_error = Some(message.clone());
                Err(message)
            }
        }
    }

    /// Sets the step rate to `hz` steps per simulated second.
    pub fn set_rate(&mut self, hz: u32) -> Result<(), String> {
        let settings = StepSettings { dt: 1.0 / hz.max(1) as f32, ..*self.world.settings() };
        self.apply_settings(settings)
    }

    /// Takes `n` steps at once (pausing first).
    pub fn step_many(&mut self, n: u32) {
        self.playing = false;
        for _ in 0..n {
            self.step_world();
        }
    }

    /// Selects an island: its bodies are highlighted (`None` clears).
    pub fn select_island(&mut self, island: Option<u32>) {
        self.selected_island = island;
        self.refresh_highlight();
    }

    /// Asks the viewport to frame the highlighted island's bodies.
    pub fn frame_highlighted(&mut self) {
        self.frame_target = bounds(&self.world, self.view.highlighted.iter().copied());
    }

    /// Asks the viewport to frame the selected body (`F`).
    pub fn frame_selection(&mut self) {
        self.frame_target = bounds(&self.world, self.selected);
    }

    /// Recomputes the highlighted bodies from the selected island (islands change as the
    /// world steps; a vanished island clears the selection).
    pub fn refresh_highlight(&mut self) {
        self.view.selected = self.selected;
        self.view.highlighted = match self.selected_island {
            Some(island) => self.world.island_bodies(island),
            None => Vec::new(),
        };
        if self.view.highlighted.is_empty() {
            self.selected_island = None;
        }
    }

    /// Starts or stops the simulation.
    pub fn toggle_play(&mut self) {
        self.playing = !self.playing;
        self.pending_seconds = 0.0;
    }

    /// Advances exactly one step (pausing first, since a single step only makes sense paused).
    pub fn step_once(&mut self) {
        self.playing = false;
        self.step_world();
    }

    /// Returns to the state the scene was loaded in; the camera and selection stay.
    pub fn reset(&mut self) {
        self.world.restore(&self.loaded);
        self.pending_seconds = 0.0;
        self.dirty = false;
    }

    /// Called once per frame with the frame's duration: while playing, steps the world at its
    /// fixed rate (at most [`MAX_STEPS_PER_FRAME`] steps). Returns the steps taken.
    pub fn advance(&mut self, frame_seconds: f64) -> u32 {
        if !self.playing {
            return 0;
        }
        let dt = self.world.settings().dt as f64;
        self.pending_seconds += frame_seconds.max(0.0) * self.time_scale.max(0.0);
        let mut steps = 0;
        // Always at least one step per played frame, so playing shows motion even when frames
        // come faster than the step rate or the clock does not advance (tests).
        while steps == 0 || (self.pending_seconds >= dt && steps < MAX_STEPS_PER_FRAME) {
            self.step_world();
            self.pending_seconds = (self.pending_seconds - dt).max(0.0);
            steps += 1;
        }
        if steps == MAX_STEPS_PER_FRAME {
            self.pending_seconds = 0.0;
        }
        steps
    }

    /// Selects the nearest body hit by the view ray through `pixel` of a `size` viewport, or
    /// clears the selection when the ray hits nothing.
    pub fn pick(&mut self, pixel: Vec2, size: Vec2) {
        let (origin, dir) = self.camera.ray_through(pixel, size);
        self.selected = nearest_hit(&self.world, origin, dir);
    }

    fn step_world(&mut self) {
        let start = Instant::now();
        self.world.step();
        self.last_step_ms = start.elapsed().as_secs_f64() * 1e3;
        self.history.record(&self.world);
        self.dirty = true;
    }
}

/// The box around the tight AABBs of `ids`, if any is alive.
fn bounds(world: &World, ids: impl IntoIterator<Item = BodyId>) -> Option<Aabb> {
    ids.into_iter()
        .filter_map(|id| world.aabb(id).ok())
        .reduce(|a, b| Aabb { min: a.min.min(b.min), max: a.max.max(b.max) })
}

/// The body whose shape the ray `origin + t·dir` enters first, through the engine's
/// broadphase-accelerated ray cast.
pub fn nearest_hit(world: &World, origin: Vec3, dir: Vec3) -> Option<BodyId> {
    const MAX_DISTANCE: f32 = 1.0e4;
    world.cast_ray(origin, dir, MAX_DISTANCE).ok().flatten().map(|hit| hit.body)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tower() -> EditorState {
        EditorState::from_scene(&crate::builtin::tower(5), None).unwrap()
    }

    #[test]
    fn step_reset_and_play() {
        let mut state = tower();
        state.step_once();
        assert_eq!(state.world.step_count(), 1);
        state.toggle_play();
        assert!(state.advance(0.0) >= 1);
        state.reset();
        assert_eq!(state.world.step_count(), 0);
        assert_eq!(
            atoll_physics::state_hash(&state.world),
            atoll_physics::state_hash(&{
                let (w, _) = crate::builtin::tower(5).build_world().unwrap();
                w
            })
        );
    }

    #[test]
    fn a_bad_file_leaves_the_open_scene() {
        let mut state = tower();
        let bodies = state.world.body_count();
        state.open_in_place(Path::new("/nonexistent/scene.ron"));
        assert_eq!(state.world.body_count(), bodies);
        assert!(state.error.as_deref().unwrap().contains("scene.ron"));
    }

    #[test]
    fn picking_through_a_body_centre_selects_it() {
        let mut state = tower();
        let id = state.world.body_ids().last().unwrap();
        state.camera.target = state.world.transform(id).unwrap().position;
        state.pick(Vec2::new(50.0, 50.0), Vec2::new(100.0, 100.0));
        assert_eq!(state.selected, Some(id));
    }
}
