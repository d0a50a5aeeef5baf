//! The editor's state, apart from any drawing: the world, the loaded snapshot, the camera and
//! the simulation controls. Tests drive the editor through it.

use super::scenes;
use crate::render::OrbitCamera;
use atoll_physics::{BodyId, Scene, Snapshot, World};
use glam::{Vec2, Vec3};
use std::path::{Path, PathBuf};
use std::time::Instant;

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
    /// Simulated seconds owed to the world while playing.
    pending_seconds: f64,
}

impl EditorState {
    /// A state holding `scene`, paused, with the camera waiting to frame it.
    pub fn from_scene(scene: &Scene, path: Option<PathBuf>) -> Result<EditorState, String> {
        let (world, _) = scene.build_world().map_err(|e| format!("{}: {e}", scene.name))?;
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
                let camera = self.camera;
                *self = state;
                // Keep the view direction; the framing only moves the target and distance.
                self.camera = camera;
            }
            Err(message) => self.error = Some(message),
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
    }

    /// Called once per frame with the frame's duration: while playing, steps the world at its
    /// fixed rate (at most [`MAX_STEPS_PER_FRAME`] steps). Returns the steps taken.
    pub fn advance(&mut self, frame_seconds: f64) -> u32 {
        if !self.playing {
            return 0;
        }
        let dt = self.world.settings().dt as f64;
        self.pending_seconds += frame_seconds.max(0.0);
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
    }
}

/// The body whose shape the ray `origin + t·dir` enters first.
pub fn nearest_hit(world: &World, origin: Vec3, dir: Vec3) -> Option<BodyId> {
    const MAX_DISTANCE: f32 = 1.0e4;
    world
        .body_ids()
        .filter_map(|id| {
            let body = world.body(id).ok()?;
            let hit = body.shape.cast_ray_world(&body.transform, origin, dir, MAX_DISTANCE)?;
            Some((hit.t, id))
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, id)| id)
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
