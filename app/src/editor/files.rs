//! The File menu's operations: new, open, save and save as, and the choice between the
//! native file dialog and the editor's own path prompt.
//!
//! The menu and the tests call the same functions with a path; only where the path comes from
//! differs (rfd dialog, path prompt, or the test).

use super::native_dialog::{DialogOutcome, PendingDialog};
use super::state::EditorState;
use atoll_physics::{BodyType, Scene, SceneBody, SceneShape, Vec3};
use std::path::{Path, PathBuf};

/// What the user is choosing a path for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathPurpose {
    /// A scene file to open.
    Open,
    /// Where to save the scene.
    SaveAs,
}

/// The editor's own path prompt, shown where no native dialog is available.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathPrompt {
    /// What the path is for.
    pub purpose: PathPurpose,
    /// The path typed so far.
    pub text: String,
}

/// Replaces the open scene with an empty one: a ground box and default settings.
pub fn new_scene(state: &mut EditorState) {
    let mut scene = Scene::new("untitled");
    let mut ground = SceneBody::new(
        BodyType::Static,
        SceneShape::Box { half_extents: Vec3::new(20.0, 0.5, 20.0) },
        Vec3::new(0.0, -0.5, 0.0),
    );
    ground.name = "ground".into();
    scene.bodies.push(ground);
    match EditorState::from_scene(&scene, None) {
        Ok(fresh) => state.replace_with(fresh),
        Err(e) => state.error = Some(e),
    }
}

/// Opens the scene at `path`; on failure the open scene stays and the error is shown.
pub fn open(state: &mut EditorState, path: &Path) {
    state.open_in_place(path);
}

/// The edited scene (not the simulated state: stepping is not an edit), with the bodies' names
/// and colours.
pub fn edited_scene(state: &EditorState) -> Scene {
    let world = state.edited_world();
    let mut scene = Scene::from_world(world, &state.scene_name, |id| state.body_name(id));
    for (body, id) in scene.bodies.iter_mut().zip(world.body_ids()) {
        body.colour = state.entities.meta_of(id).colour;
    }
    scene
}

/// Saves the edited scene to `path` (temporary file and rename, so a failed save leaves the
/// old file whole), with the bodies' names. The file becomes the open scene's file and the
/// recovery file goes.
pub fn save_as(state: &mut EditorState, path: &Path) -> Result<(), String> {
    let scene = edited_scene(state);
    scene.save(path).map_err(|e| format!("could not save {}: {e}", path.display()))?;
    state.scene_path = Some(path.to_path_buf());
    state.dirty = false;
    state.autosave.discard();
    state.remember(path);
    Ok(())
}

/// Writes the recovery file now when it is due (called every frame).
pub fn autosave_if_due(state: &mut EditorState) {
    if state.dirty && state.autosave.due() {
        write_recovery(state);
    }
}

/// Writes the recovery file of unsaved work now (on exit).
pub fn write_recovery(state: &mut EditorState) {
    let scene = edited_scene(state);
    let source = state.scene_path.clone();
    if let Err(e) = state.autosave.write(&scene, source.as_deref()) {
        state.error = Some(e);
    }
}

/// Opens the recovery file offered at start in place of the open scene: the work comes back
/// unsaved, belonging to the file it came from.
pub fn restore_recovery(state: &mut EditorState) {
    let Some(offer) = state.autosave.offer.take() else { return };
    let loaded = Scene::load(&offer.path)
        .map_err(|e| format!("{}: {e}", offer.path.display()))
        .and_then(|scene| EditorState::from_scene(&scene, offer.source.clone()));
    match loaded {
        Ok(fresh) => {
            state.replace_with(fresh);
            state.dirty = true;
            state.autosave.note_edit();
        }
        Err(e) => state.error = Some(format!("could not restore the unsaved work: {e}")),
    }
}

/// Saves to the open scene's file; `Ok(false)` when it has none yet (the caller asks where).
pub fn save(state: &mut EditorState) -> Result<bool, String> {
    let Some(path) = state.scene_path.clone() else { return Ok(false) };
    save_as(state, &path).map(|()| true)
}

/// Asks the user for a path for `purpose`; the action happens once a path is chosen. Uses the
/// desktop's file dialog when [`EditorState::native_dialogs`] allows it, on a thread of its own
/// (see [`poll_dialog`]); otherwise, and when the desktop refuses the dialog, the editor's own
/// path prompt.
pub fn choose_path(state: &mut EditorState, purpose: PathPurpose) {
    if state.pending_dialog.is_some() {
        return;
    }
    if !state.native_dialogs {
        open_prompt(state, purpose);
        return;
    }
    let file_name = format!("{}.ron", state.scene_name);
    state.pending_dialog = Some(PendingDialog::open(purpose, start_dir(state), file_name));
}

/// Checks the open file dialog, once per frame: carries out a chosen path, and falls back to the
/// path prompt (and stops offering the dialog) when the desktop could not show one.
pub fn poll_dialog(state: &mut EditorState) {
    let Some(dialog) = &state.pending_dialog else { return };
    let purpose = dialog.purpose;
    match dialog.poll() {
        DialogOutcome::Waiting => return,
        DialogOutcome::Picked(path) => finish(state, purpose, &path),
        DialogOutcome::Cancelled => {}
        DialogOutcome::Unavailable => {
            state.native_dialogs = false;
            open_prompt(state, purpose);
        }
    }
    state.pending_dialog = None;
}

fn open_prompt(state: &mut EditorState, purpose: PathPurpose) {
    state.path_prompt = Some(PathPrompt { purpose, text: default_prompt_text(state) });
}

/// Carries out `purpose` on a chosen path.
pub fn finish(state: &mut EditorState, purpose: PathPurpose, path: &Path) {
    match purpose {
        PathPurpose::Open => open(state, path),
        PathPurpose::SaveAs => {
            if let Err(e) = save_as(state, path) {
                state.error = Some(e);
            }
        }
    }
}

/// Whether a native file dialog can appear: on Linux rfd talks to the XDG desktop portal over
/// the session bus, and without a display and a session bus it fails (or waits) instead.
/// `ATOLL_NO_NATIVE_DIALOG` forces the path prompt.
pub fn native_dialogs_available() -> bool {
    let var = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if var("ATOLL_NO_NATIVE_DIALOG") {
        return false;
    }
    let display = var("WAYLAND_DISPLAY") || var("DISPLAY");
    let bus = var("DBUS_SESSION_BUS_ADDRESS")
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| Path::new(&dir).join("bus").exists());
    cfg!(not(target_os = "linux")) || (display && bus)
}

fn start_dir(state: &EditorState) -> PathBuf {
    state
        .scene_path
        .as_deref()
        .and_then(Path::parent)
        .map(Path::to_path_buf)
        .unwrap_or_else(crate::cli::scenes_dir)
}

fn default_prompt_text(state: &EditorState) -> String {
    match &state.scene_path {
        Some(path) => path.display().to_string(),
        None => start_dir(state).join(format!("{}.ron", state.scene_name)).display().to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_scene_has_a_ground_and_saves_and_loads_back() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(4), None).unwrap();
        new_scene(&mut state);
        assert_eq!(state.world.body_count(), 1);
        assert_eq!(state.body_name(state.world.body_ids().next().unwrap()), "ground");
        let path = std::env::temp_dir().join(format!("atoll-new-{}.ron", std::process::id()));
        save_as(&mut state, &path).unwrap();
        assert!(!state.dirty);
        assert_eq!(Scene::load(&path).unwrap().bodies[0].name, "ground");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_refused_dialog_falls_back_to_the_prompt() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(2), None).unwrap();
        state.native_dialogs = true;
        state.pending_dialog =
            Some(PendingDialog::answered(PathPurpose::SaveAs, None, std::time::Duration::ZERO));
        poll_dialog(&mut state);
        assert!(state.pending_dialog.is_none() && !state.native_dialogs);
        assert_eq!(state.path_prompt.as_ref().map(|p| p.purpose), Some(PathPurpose::SaveAs));
    }
}
