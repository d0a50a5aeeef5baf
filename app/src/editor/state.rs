//! The editor's state, apart from any drawing, split by role: the document (`document.rs`), the
//! simulation (`simulation.rs`), the view (`view.rs`) and the diagnostics (`diagnostics.rs`).
//! The tools are held beside it (`tools/`). Tests drive the editor through it.
//!
//! The document's code here and in `commands.rs` does not reach into the file session: it
//! counts its edits ([`EditorState::edit_count`]) and sets `dirty`, and the file code
//! (`files.rs`) reads those. The session is held in the document only so that one
//! `&mut EditorState` serves every panel.

use super::branching::Branching;
use super::clipboard::Clipboard;
use super::diagnostics::Diagnostics;
use super::document::Document;
use super::edit::Edit;
use super::entities::{Entities, EntityMeta};
use super::file_session::FileSession;
use super::grab::GrabSettings;
use super::notices::NoticePlace;
use super::selection::Selection;
use super::simulation::Simulation;
use super::timeline::Timeline;
use super::undo::{MergeKey, UndoStack};
use super::view::View;
use crate::render::joint_lines::joint_near;
use crate::render::{OrbitCamera, ViewOptions};
use atoll_physics::{
    Aabb, BodyId, HistorySettings, IslandId, QueryFilter, Ray, Scene, SceneBody, StepSettings, World,
};
use glam::{Vec2, Vec3};
use std::path::PathBuf;

/// How near (in points) a click must come to a drawn joint anchor to select the joint.
pub const JOINT_PICK_REACH: f32 = 8.0;

/// Settings changes merge into one undo step while the user keeps changing them (a dragged
/// field), like any other gesture.
const SETTINGS_GESTURE: MergeKey = MergeKey(u64::MAX);

/// Everything the editor knows, separate from how it is drawn, by role. The methods that
/// coordinate the roles (an edit changes the world, the document and the timeline at once) are
/// the state's: here, in `commands.rs`, `files.rs` and `playback.rs`.
pub struct EditorState {
    /// What the user edits and saves: the edited scene, entities, selection, undo, clipboard,
    /// the file session (see `document.rs`).
    pub doc: Document,
    /// The live world and how it moves: play, step, the timeline, replays, the grab (see
    /// `simulation.rs`).
    pub sim: Simulation,
    /// How the world is looked at: camera, render options, framing (see `view.rs`).
    pub view: View,
    /// What the editor measures and reports: timings, traces, notices (see `diagnostics.rs`).
    pub diag: Diagnostics,
}

/// The threads the machine can run at once (its cores, as the system reports them), at most
/// [`MAX_THREADS`]: the editor's default thread count for stepping.
pub fn machine_threads() -> usize {
    // Asked once: the system's answer reads the process's CPU quota from files, and the
    // Settings panel shows it every frame.
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()).min(MAX_THREADS))
}

/// The most threads the Settings panel offers.
pub const MAX_THREADS: usize = 64;

impl EditorState {
    /// A state holding `scene` from the file `path` (if it has one), paused, with the camera
    /// waiting to frame it.
    pub fn from_scene(scene: &Scene, path: Option<PathBuf>) -> Result<EditorState, String> {
        // Recorded: File > Save recording writes how the world came to any later step.
        let (mut world, ids) = scene.build_recorded_world().map_err(|e| format!("{}: {e}", scene.name))?;
        // Every core steps the world by default; the result is the same on any count.
        world.set_thread_count(machine_threads()).map_err(|e| e.to_string())?;
        let by_id: std::collections::HashMap<BodyId, &SceneBody> =
            ids.iter().copied().zip(&scene.bodies).collect();
        let mut entities = Entities::for_world(&world, |id| match by_id.get(&id) {
            Some(body) => EntityMeta { name: body.name.clone(), colour: body.colour },
            None => EntityMeta::default(),
        });
        // A fresh world's joints are the scene's, in order.
        let mut joint_names = scene.joints.iter().map(|j| j.name.clone());
        entities.name_joints(&world, |_| joint_names.next().unwrap_or_default());
        let view = ViewOptions { time_to_sleep: world.settings().time_to_sleep, ..Default::default() };
        Ok(EditorState {
            doc: Document {
                edited: world.snapshot(),
                edited_stale: false,
                scene_name: scene.name.clone(),
                session: FileSession::for_file(path),
                entities,
                selection: Selection::default(),
                undo: UndoStack::default(),
                clipboard: Clipboard::default(),
                dirty: false,
                edit_count: 0,
                scene_serial: 0,
            },
            view: View {
                camera: scene.view.as_ref().map_or_else(OrbitCamera::default, OrbitCamera::from_view),
                options: view,
                needs_framing: scene.view.is_none(),
                frame_target: None,
                selected_island: None,
                terrain_edits: Vec::new(),
            },
            diag: Diagnostics::default(),
            sim: Simulation {
                timeline: Timeline::new(&world),
                branching: Branching::new(HistorySettings::default()),
                world,
                playing: false,
                step_n: 10,
                time_scale: 1.0,
                pending_seconds: 0.0,
                replay: None,
                replay_note: None,
                grab: None,
                grab_settings: GrabSettings::default(),
            },
        })
    }

    /// Swaps in a freshly loaded state, keeping what belongs to the session rather than to the
    /// scene: the view direction, the view options, the file session (but for the scene's
    /// path, which comes with the new scene), the edit count and the step count. (The tools,
    /// held outside the state, keep their settings too; see `tools/mod.rs`.)
    pub fn replace_with(&mut self, state: EditorState) {
        let camera = self.view.camera;
        let options =
            ViewOptions { selected: Vec::new(), highlighted: Vec::new(), ..self.view.options.clone() };
        let mut session = std::mem::take(&mut self.doc.session);
        let (step_n, time_scale, edit_count) = (self.sim.step_n, self.sim.time_scale, self.doc.edit_count);
        let scene_serial = self.doc.scene_serial + 1;
        let clipboard = std::mem::take(&mut self.doc.clipboard);
        let grab_settings = self.sim.grab_settings;
        let threads = self.sim.world.thread_count();
        *self = state;
        // The thread count chosen in Settings stays (it belongs to the editor, not the scene).
        if self.sim.world.thread_count() != threads {
            let _ = self.sim.world.set_thread_count(threads);
        }
        self.sim.grab_settings = grab_settings;
        self.doc.clipboard = clipboard;
        session.scene_path = self.doc.session.scene_path.take();
        self.doc.session = session;
        // A scene with a viewpoint of its own opens there; otherwise the framing moves only the
        // target and distance of the camera the user had.
        if self.view.needs_framing {
            self.view.camera = camera;
        }
        self.view.options = ViewOptions { time_to_sleep: self.sim.world.settings().time_to_sleep, ..options };
        self.sim.step_n = step_n;
        self.sim.time_scale = time_scale;
        // Carried over so that autosave, which watches the count, sees no edit in a new scene.
        self.doc.edit_count = edit_count;
        self.doc.scene_serial = scene_serial;
    }

    /// Which scene this is: it changes whenever [`replace_with`](Self::replace_with) swaps in
    /// another, so the tools (held outside the state) can drop what named the old world.
    pub fn scene_serial(&self) -> u64 {
        self.doc.scene_serial
    }

    /// The display name of a body: its name from the scene file, or its index.
    pub fn body_name(&self, id: BodyId) -> String {
        if id.is_terrain() {
            return "terrain".to_string();
        }
        let name = self.doc.entities.meta_of(id).name;
        if name.is_empty() { format!("body {}", id.index()) } else { name }
    }

    /// Applies new step settings; invalid ones are refused (the reason goes to the Settings
    /// panel's notice) and the old settings stay.
    pub fn apply_settings(&mut self, settings: StepSettings) -> Result<(), String> {
        if settings == *self.sim.world.settings() {
            return Ok(());
        }
        let edit = Edit::Settings { before: *self.sim.world.settings(), after: settings };
        match self.commit("settings", edit, Some(SETTINGS_GESTURE)) {
            Ok(()) => {
                self.diag.notices.clear(NoticePlace::Settings);
                self.view.options.time_to_sleep = settings.time_to_sleep;
                Ok(())
            }
            Err(message) => {
                self.diag.notices.report(NoticePlace::Settings, format!("refused: {message}"));
                Err(message)
            }
        }
    }

    /// Sets the step rate to `hz` steps per simulated second.
    pub fn set_rate(&mut self, hz: u32) -> Result<(), String> {
        let settings = StepSettings { dt: 1.0 / hz.max(1) as f32, ..*self.sim.world.settings() };
        self.apply_settings(settings)
    }

    /// Selects an island: its bodies are highlighted (`None` clears).
    pub fn select_island(&mut self, island: Option<IslandId>) {
        self.view.selected_island = island;
        self.refresh_highlight();
    }

    /// Asks the viewport to frame the highlighted island's bodies.
    pub fn frame_highlighted(&mut self) {
        self.view.frame_target = bounds(&self.sim.world, self.view.options.highlighted.iter().copied());
    }

    /// Asks the viewport to frame the selected body (`F`).
    pub fn frame_selection(&mut self) {
        self.view.frame_target = bounds(&self.sim.world, self.doc.selection.ids().iter().copied());
    }

    /// Recomputes the highlighted bodies from the selected island (islands change as the
    /// world steps; an island that merged away or vanished clears the selection).
    pub fn refresh_highlight(&mut self) {
        // A move along the timeline across an edit shows a world of another make-up: the
        // keys follow it.
        self.doc.entities.follow(&self.sim.world);
        self.doc.selection.retain_live(&self.sim.world);
        if self.view.options.selected != self.doc.selection.ids() {
            self.view.options.selected = self.doc.selection.ids().to_vec();
        }
        self.view.options.selected_joint = self.doc.selection.joint();
        self.view.options.highlighted_island = self.view.selected_island;
        if self.view.options.colour_revision != self.doc.entities.colour_revision() {
            self.view.options.colour_revision = self.doc.entities.colour_revision();
            self.view.options.body_colours = self.doc.entities.colours().collect();
        }
        self.view.options.highlighted = match self.view.selected_island {
            Some(island) => self.sim.world.island_bodies(island).unwrap_or_default(),
            None => Vec::new(),
        };
        if self.view.options.highlighted.is_empty() {
            self.view.selected_island = None;
        }
    }

    /// The edited state: what Reset returns to and Save writes.
    pub fn edited_world(&self) -> &World {
        if self.doc.edited_stale { &self.sim.world } else { self.doc.edited.world() }
    }

    /// Notes that the world was just edited: it is now the edited state, and unsaved.
    pub fn mark_edited(&mut self) {
        self.end_replay("the world was edited");
        // The edit is at the step shown: a scrub under way ends there.
        self.sim.timeline.scrub_target = None;
        self.doc.edited_stale = true;
        self.doc.dirty = true;
        self.doc.edit_count += 1;
        // At a step in the past the edit discards the recorded steps after it: kept first.
        let kept = self.keep_future_before_edit();
        let outcome = self.record_timeline();
        self.kept_future(kept, outcome.discarded);
        self.follow_branches();
    }

    /// Edits made since the editor started, undo and redo included. It only grows, so the file
    /// code (autosave) can tell a new edit happened without the document telling it.
    pub fn edit_count(&self) -> u64 {
        self.doc.edit_count
    }

    /// Whether the world has been stepped away from the edited state.
    pub fn simulated_since_edit(&self) -> bool {
        !self.doc.edited_stale && self.sim.world.step_count() != self.doc.edited.step_count()
    }

    /// Selects the nearest body hit by the view ray through `pixel` of a `size` viewport, or
    /// clears the selection when the ray hits nothing. With `add`, the body is added to the
    /// selection instead (or taken out of it, when it was in). While joints are drawn, a click
    /// within [`JOINT_PICK_REACH`] of a joint's anchor selects the joint instead.
    pub fn pick(&mut self, pixel: Vec2, size: Vec2, add: bool) {
        if self.view.options.overlays.joints && !add {
            let camera = &self.view.camera;
            let near = joint_near(&self.sim.world, pixel, JOINT_PICK_REACH, |p| camera.project(p, size));
            if let Some(joint) = near {
                self.doc.selection.set_joint(Some(joint));
                return;
            }
        }
        let (origin, dir) = self.view.camera.ray_through(pixel, size);
        let hit = nearest_hit(&self.sim.world, origin, dir);
        match (hit, add) {
            (Some(id), true) => self.doc.selection.toggle(id),
            (None, true) => {}
            (hit, false) => self.doc.selection.set(hit),
        }
    }

    /// The primary selected body (the last one picked).
    pub fn selected(&self) -> Option<BodyId> {
        self.doc.selection.primary()
    }

    /// Captures the edited state before the world moves away from it (a step, a move along
    /// the timeline), while the world itself is that state.
    pub(super) fn keep_edited_state(&mut self) {
        if self.doc.edited_stale {
            self.doc.edited = self.sim.world.snapshot();
            self.doc.edited_stale = false;
        }
    }
}

/// The box around the tight AABBs of `ids`, if any is alive.
fn bounds(world: &World, ids: impl IntoIterator<Item = BodyId>) -> Option<Aabb> {
    ids.into_iter()
        .filter_map(|id| world.aabb(id).ok())
        .reduce(|a, b| Aabb { min: a.min.min(b.min), max: a.max.max(b.max) })
}

/// The body whose shape the ray `origin + t·dir` enters first (the terrain does not hide
/// bodies from picking: it is not selectable), through the engine's ray query.
pub fn nearest_hit(world: &World, origin: Vec3, dir: Vec3) -> Option<BodyId> {
    const MAX_DISTANCE: f32 = 1.0e4;
    let ray = Ray::new(origin, dir, MAX_DISTANCE).ok()?;
    world.cast_ray(&ray, &QueryFilter::BODIES).map(|hit| hit.body)
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
        assert_eq!(state.sim.world.step_count(), 1);
        state.toggle_play();
        assert!(state.advance(0.0) >= 1);
        state.reset();
        assert_eq!(state.sim.world.step_count(), 0);
        assert_eq!(
            atoll_physics::state_hash(&state.sim.world),
            atoll_physics::state_hash(&{
                let (w, _) = crate::builtin::tower(5).build_world().unwrap();
                w
            })
        );
    }

    #[test]
    fn picking_through_a_body_centre_selects_it() {
        let mut state = tower();
        let id = state.sim.world.body_ids().last().unwrap();
        state.view.camera.target = state.sim.world.transform(id).unwrap().position;
        state.pick(Vec2::new(50.0, 50.0), Vec2::new(100.0, 100.0), false);
        assert_eq!(state.selected(), Some(id));
    }
}
