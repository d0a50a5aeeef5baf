//! Choosing a path: what the path is for, and the editor's own prompt for typing one.
//!
//! Both the desktop's file dialog (`native_dialog.rs`) and the typed prompt ask for a path for
//! a [`PathPurpose`], so the purpose lives here, below both, instead of in the file operations
//! that carry the chosen path out (which would make the dialog and the operations import each
//! other).

/// What the user is choosing a path for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PathPurpose {
    /// A scene file to open.
    Open,
    /// Where to save the scene.
    SaveAs,
    /// A recording to open and replay.
    OpenRecording,
    /// Where to save the recording of the world's steps.
    SaveRecording,
}

impl PathPurpose {
    /// Whether the path is for writing a file.
    pub fn saves(self) -> bool {
        matches!(self, PathPurpose::SaveAs | PathPurpose::SaveRecording)
    }

    /// The title of the dialog or prompt that asks for the path.
    pub fn title(self) -> &'static str {
        match self {
            PathPurpose::Open => "Open scene",
            PathPurpose::SaveAs => "Save scene as",
            PathPurpose::OpenRecording => "Open recording",
            PathPurpose::SaveRecording => "Save recording as",
        }
    }
}

/// The editor's own path prompt, shown where no native dialog is available.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathPrompt {
    /// What the path is for.
    pub purpose: PathPurpose,
    /// The path typed so far.
    pub text: String,
}
