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
}

/// The editor's own path prompt, shown where no native dialog is available.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PathPrompt {
    /// What the path is for.
    pub purpose: PathPurpose,
    /// The path typed so far.
    pub text: String,
}
