//! The file operations: new, open, save and save as, recent files, autosave and the recovery
//! file, closing with unsaved changes, and the choice between the native file dialog and the
//! editor's own path prompt. They work on the file session (`file_session.rs`) and read or
//! replace the document; the document never calls them.
//!
//! The menu and the tests call the same functions with a path; only where the path comes from
//! differs (rfd dialog, path prompt, or the test).

use super::native_dialog::{DialogOutcome, PendingDialog};
use super::notices::NoticePlace;
use super::path_choice::{PathPrompt, PathPurpose};
use super::playback;
use super::state::EditorState;
use crate::scenes;
use atoll_physics::{BodyType, Scene, SceneBody, SceneShape, Vec3};
use std::path::Path;

/// The user's answer to "save the changes before closing?".
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CloseAnswer {
    /// Save, then close (asking where first when the scene has no file yet).
    Save,
    /// Close without saving; the recovery file goes too.
    Discard,
    /// Stay open.
    Cancel,
}

impl EditorState {
    /// Loads a scene file (the default scene falls back to its embedded copy). Kept with the file
    /// code, though it makes an `EditorState`, because reading files is this module's business.
    pub fn open(path: &Path) -> Result<EditorState, String> {
        let scene = scenes::load(path)?;
        EditorState::from_scene(&scene, Some(path.to_path_buf()))
    }
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
        Err(e) => state.diag.notices.report(NoticePlace::ErrorWindow, e),
    }
}

/// Opens the scene at `path` in place of the open one, and remembers it as the most recent
/// file. On failure the open scene stays as it was and the error is shown.
pub fn open(state: &mut EditorState, path: &Path) {
    match EditorState::open(path) {
        Ok(fresh) => {
            state.replace_with(fresh);
            state.doc.session.remember(path);
        }
        Err(message) => state.diag.notices.report(NoticePlace::ErrorWindow, message),
    }
}

/// The edited scene (not the simulated state: stepping is not an edit), with the bodies' names
/// and colours.
pub fn edited_scene(state: &EditorState) -> Scene {
    let world = state.edited_world();
    let mut scene = Scene::from_world(world, &state.doc.scene_name, |id| state.body_name(id));
    for (body, id) in scene.bodies.iter_mut().zip(world.body_ids()) {
        body.colour = state.doc.entities.meta_of(id).colour;
    }
    for (joint, id) in scene.joints.iter_mut().zip(world.joint_ids()) {
        joint.name = state.doc.entities.joint_name_of(id);
    }
    // The file opens where the user was looking.
    scene.view = Some(state.view.camera.to_view());
    scene
}

/// Saves the edited scene to `path` (temporary file and rename, so a failed save leaves the
/// old file whole), with the bodies' names. The file becomes the open scene's file and the
/// recovery file goes.
pub fn save_as(state: &mut EditorState, path: &Path) -> Result<(), String> {
    let scene = edited_scene(state);
    scene.save(path).map_err(|e| format!("could not save {}: {e}", path.display()))?;
    state.doc.session.scene_path = Some(path.to_path_buf());
    state.doc.dirty = false;
    state.doc.session.autosave.discard();
    state.doc.session.remember(path);
    Ok(())
}

/// Notes the edits made since the last frame, and writes the recovery file now when it is due
/// (called every frame).
pub fn autosave_if_due(state: &mut EditorState) {
    state.doc.session.autosave.notice_edits(state.edit_count());
    if state.doc.dirty && state.doc.session.autosave.due() {
        write_recovery(state);
    }
}

/// Writes the recovery file of unsaved work now (on exit).
pub fn write_recovery(state: &mut EditorState) {
    let scene = edited_scene(state);
    let session = &mut state.doc.session;
    if let Err(e) = session.autosave.write(&scene, session.scene_path.as_deref()) {
        state.diag.notices.report(NoticePlace::ErrorWindow, e);
    }
}

/// Opens the recovery file offered at start in place of the open scene: the work comes back
/// unsaved, belonging to the file it came from.
pub fn restore_recovery(state: &mut EditorState) {
    let Some(offer) = state.doc.session.autosave.offer.take() else { return };
    let loaded = Scene::load(&offer.path)
        .map_err(|e| format!("{}: {e}", offer.path.display()))
        .and_then(|scene| EditorState::from_scene(&scene, offer.source.clone()));
    match loaded {
        Ok(fresh) => {
            state.replace_with(fresh);
            state.doc.dirty = true;
            state.doc.session.autosave.note_edit();
        }
        Err(e) => state
            .diag
            .notices
            .report(NoticePlace::ErrorWindow, format!("could not restore the unsaved work: {e}")),
    }
}

/// Saves to the open scene's file; `Ok(false)` when it has none yet (the caller asks where).
pub fn save(state: &mut EditorState) -> Result<bool, String> {
    let Some(path) = state.doc.session.scene_path.clone() else { return Ok(false) };
    save_as(state, &path).map(|()| true)
}

/// Asks the user for a path for `purpose`; the action happens once a path is chosen. Uses the
/// desktop's file dialog when [`FileSession::native_dialogs`](super::file_session::FileSession::native_dialogs) allows it, on a thread of its own
/// (see [`poll_dialog`]); otherwise, and when the desktop refuses the dialog, the editor's own
/// path prompt.
pub fn choose_path(state: &mut EditorState, purpose: PathPurpose) {
    let session = &mut state.doc.session;
    if session.pending_dialog.is_some() {
        return;
    }
    if !session.native_dialogs {
        open_prompt(state, purpose);
        return;
    }
    let file_name = default_file_name(&state.doc.scene_name, purpose);
    let session = &mut state.doc.session;
    session.pending_dialog = Some(PendingDialog::open(purpose, session.start_dir(), file_name));
}

/// Checks the open file dialog, once per frame: carries out a chosen path, and falls back to the
/// path prompt (and stops offering the dialog) when the desktop could not show one.
pub fn poll_dialog(state: &mut EditorState) {
    let Some(dialog) = &state.doc.session.pending_dialog else { return };
    let purpose = dialog.purpose;
    match dialog.poll() {
        DialogOutcome::Waiting => return,
        DialogOutcome::Picked(path) => finish(state, purpose, &path),
        DialogOutcome::Cancelled => {}
        DialogOutcome::Unavailable => {
            state.doc.session.native_dialogs = false;
            open_prompt(state, purpose);
        }
    }
    state.doc.session.pending_dialog = None;
}

fn open_prompt(state: &mut EditorState, purpose: PathPurpose) {
    state.doc.session.path_prompt = Some(PathPrompt { purpose, text: default_prompt_text(state, purpose) });
}

/// Carries out `purpose` on a chosen path.
pub fn finish(state: &mut EditorState, purpose: PathPurpose, path: &Path) {
    match purpose {
        PathPurpose::Open => open(state, path),
        PathPurpose::SaveAs => {
            if let Err(e) = save_as(state, path) {
                state.diag.notices.report(NoticePlace::ErrorWindow, e);
            }
        }
        PathPurpose::OpenRecording => playback::open_recording(state, path),
        PathPurpose::SaveRecording => {
            if let Err(e) = playback::save_recording(state, path) {
                state.diag.notices.report(NoticePlace::ErrorWindow, e);
            }
        }
    }
}

/// The file name a dialog or prompt proposes: the scene's, or for a recording the scene's with
/// `.recording` before the extension.
fn default_file_name(scene_name: &str, purpose: PathPurpose) -> String {
    match purpose {
        PathPurpose::OpenRecording | PathPurpose::SaveRecording => format!("{scene_name}.recording.ron"),
        PathPurpose::Open | PathPurpose::SaveAs => format!("{scene_name}.ron"),
    }
}

fn default_prompt_text(state: &EditorState, purpose: PathPurpose) -> String {
    match &state.doc.session.scene_path {
        Some(path) if matches!(purpose, PathPurpose::Open | PathPurpose::SaveAs) => {
            path.display().to_string()
        }
        Some(path) => {
            path.with_file_name(default_file_name(&state.doc.scene_name, purpose)).display().to_string()
        }
        None => state
            .doc
            .session
            .start_dir()
            .join(default_file_name(&state.doc.scene_name, purpose))
            .display()
            .to_string(),
    }
}

/// The window's close button was pressed. With unsaved changes the user has not yet decided
/// about, the close is held back (returns true) and the editor asks what to do with them.
pub fn request_close(state: &mut EditorState) -> bool {
    let hold = state.doc.dirty && !state.doc.session.close_approved;
    if hold {
        state.doc.session.confirm_close = true;
    }
    hold
}

/// Carries out the user's answer to the close question. Returns true when the window may close
/// now; a Save that needs a path first asks for it, and the close waits for the next request.
pub fn answer_close(state: &mut EditorState, answer: CloseAnswer) -> bool {
    state.doc.session.confirm_close = false;
    let approved = match answer {
        CloseAnswer::Save => match save(state) {
            Ok(true) => true,
            Ok(false) => {
                choose_path(state, PathPurpose::SaveAs);
                false
            }
            Err(e) => {
                state.diag.notices.report(NoticePlace::ErrorWindow, e);
                false
            }
        },
        CloseAnswer::Discard => {
            state.doc.session.autosave.discard();
            true
        }
        CloseAnswer::Cancel => false,
    };
    state.doc.session.close_approved |= approved;
    approved
}

/// Called when the editor exits: unsaved work the user did not discard goes to the recovery
/// file, so the next start can offer it.
pub fn on_exit(state: &mut EditorState) {
    if state.doc.dirty && !state.doc.session.close_approved {
        write_recovery(state);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn new_scene_has_a_ground_and_saves_and_loads_back() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(4), None).unwrap();
        new_scene(&mut state);
        assert_eq!(state.sim.world.body_count(), 1);
        assert_eq!(state.body_name(state.sim.world.body_ids().next().unwrap()), "ground");
        let path = std::env::temp_dir().join(format!("atoll-new-{}.ron", std::process::id()));
        save_as(&mut state, &path).unwrap();
        assert!(!state.doc.dirty);
        assert_eq!(Scene::load(&path).unwrap().bodies[0].name, "ground");
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn joints_and_their_names_save_and_load_back() {
        let mut scene = atoll_physics::scene::builtin::bridge();
        for (k, joint) in scene.joints.iter_mut().enumerate() {
            joint.name = format!("hinge {k}");
        }
        let mut state = EditorState::from_scene(&scene, None).unwrap();
        let first = state.sim.world.joint_ids().next().unwrap();
        assert_eq!(state.doc.entities.joint_name_of(first), "hinge 0");
        let path = std::env::temp_dir().join(format!("atoll-joints-{}.ron", std::process::id()));
        save_as(&mut state, &path).unwrap();
        let saved = Scene::load(&path).unwrap();
        assert_eq!(saved.joints.len(), scene.joints.len());
        for (a, b) in saved.joints.iter().zip(&scene.joints) {
            assert_eq!((&a.name, a.kind, a.collide_connected), (&b.name, b.kind, b.collide_connected));
        }
        let reopened = EditorState::open(&path).unwrap();
        let last = reopened.sim.world.joint_ids().last().unwrap();
        assert_eq!(reopened.doc.entities.joint_name_of(last), format!("hinge {}", scene.joints.len() - 1));
        std::fs::remove_file(path).unwrap();
    }

    #[test]
    fn a_refused_dialog_falls_back_to_the_prompt() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(2), None).unwrap();
        state.doc.session.native_dialogs = true;
        state.doc.session.pending_dialog =
            Some(PendingDialog::answered(PathPurpose::SaveAs, None, std::time::Duration::ZERO));
        poll_dialog(&mut state);
        assert!(state.doc.session.pending_dialog.is_none() && !state.doc.session.native_dialogs);
        assert_eq!(state.doc.session.path_prompt.as_ref().map(|p| p.purpose), Some(PathPurpose::SaveAs));
    }

    #[test]
    fn a_bad_file_leaves_the_open_scene() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(5), None).unwrap();
        let bodies = state.sim.world.body_count();
        open(&mut state, Path::new("/nonexistent/scene.ron"));
        assert_eq!(state.sim.world.body_count(), bodies);
        assert!(state.diag.notices.message(NoticePlace::ErrorWindow).unwrap().contains("scene.ron"));
    }
}
