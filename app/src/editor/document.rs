//! The document role of the editor state: what the user edits and saves. The scene's name and
//! edited state (what Reset returns to and Save writes), the bodies' and joints' stable keys and
//! names, the selection, undo and the clipboard, and the file session with the dirty flag and
//! edit count the file code reads.
//!
//! The world itself is the simulation's (see `simulation.rs`): the document keeps the snapshot
//! of it as last edited.

use super::clipboard::Clipboard;
use super::entities::Entities;
use super::file_session::FileSession;
use super::selection::Selection;
use super::undo::UndoStack;
use atoll_physics::Snapshot;

/// The scene being edited, apart from the live world.
pub struct Document {
    /// The edited state: the world right after it was loaded or last edited. Reset returns
    /// here; stepping is not an edit. Refreshed lazily: see `edited_stale`.
    pub(super) edited: Snapshot,
    /// The world itself is the edited state (an edit was made and nothing stepped since), so
    /// `edited` is out of date and is captured before the next step.
    pub(super) edited_stale: bool,
    /// The scene's display name.
    pub scene_name: String,
    /// The file side of the session: the scene's file, recent files, autosave, the path being
    /// chosen and the close confirmation (see `file_session.rs`).
    pub session: FileSession,
    /// Stable keys of the bodies, with their names and colours (saved with the scene).
    pub entities: Entities,
    /// The selected bodies (or joint).
    pub selection: Selection,
    /// The edits that can be undone and redone.
    pub undo: UndoStack,
    /// Bodies copied with Ctrl+C, as they were then, with the joints among them.
    pub clipboard: Clipboard,
    /// Set when the scene was edited since it was loaded or saved (stepping is not an edit).
    pub dirty: bool,
    /// Edits made since the editor started (undo and redo count too); see
    /// `EditorState::edit_count`.
    pub(super) edit_count: u64,
    /// Counts the scenes this state has held (see `EditorState::scene_serial`).
    pub(super) scene_serial: u64,
}
