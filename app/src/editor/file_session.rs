//! The file session: what the editor knows about files apart from the scene being edited —
//! which file the scene saves to, the recent files, autosave, the path being chosen and the
//! close confirmation. The file operations (`files.rs`) work on it; the document (the world,
//! its edited snapshot, entities and undo) knows nothing of it.
//!
//! The scene's path lives here rather than in the document: the document is the same whichever
//! file it came from, while Save, Save As, the recent list, the title and autosave's note of the
//! file the unsaved work belongs to all turn on the path, and Save As changes it without
//! changing the document.

use super::autosave::Autosave;
use super::native_dialog::PendingDialog;
use super::path_choice::PathPrompt;
use std::path::{Path, PathBuf};

/// Recent files remembered for the File menu.
const MAX_RECENT: usize = 8;

/// The file side of an editing session. `Default` is a session with no file and no native
/// dialogs; [`FileSession::for_file`] asks the desktop whether dialogs can appear.
#[derive(Debug, Default)]
pub struct FileSession {
    /// The file the scene came from or was last saved to, if any: where Save writes.
    pub scene_path: Option<PathBuf>,
    /// Files opened or saved, most recent first.
    pub recent: Vec<PathBuf>,
    /// The recovery file autosave writes, and what it knows (see `autosave.rs`).
    pub autosave: Autosave,
    /// The path prompt, while it is open.
    pub path_prompt: Option<PathPrompt>,
    /// Whether Open and Save As may use the desktop's file dialog; when false (no portal or
    /// display, or a test) they use the path prompt.
    pub native_dialogs: bool,
    /// The desktop's file dialog, while it is open.
    pub pending_dialog: Option<PendingDialog>,
    /// Set when the user asked to close the window with unsaved changes: the editor asks first.
    pub confirm_close: bool,
    /// Set once the user chose to close (saved or discarded): the window may go.
    pub close_approved: bool,
}

impl FileSession {
    /// A session editing the scene of `path` (none for a scene that has no file yet), which is
    /// then the only recent file.
    pub fn for_file(path: Option<PathBuf>) -> FileSession {
        FileSession {
            recent: path.iter().cloned().collect(),
            scene_path: path,
            native_dialogs: super::native_dialog::available(),
            ..FileSession::default()
        }
    }

    /// Puts `path` first in the recent files.
    pub fn remember(&mut self, path: &Path) {
        self.recent.retain(|p| p != path);
        self.recent.insert(0, path.to_path_buf());
        self.recent.truncate(MAX_RECENT);
    }

    /// Where a file dialog starts: the open scene's folder, else the scenes folder.
    pub fn start_dir(&self) -> PathBuf {
        self.scene_path
            .as_deref()
            .and_then(Path::parent)
            .map(Path::to_path_buf)
            .unwrap_or_else(crate::scenes::scenes_dir)
    }
}
