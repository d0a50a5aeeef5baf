//! Scene loading errors.

use std::fmt;

/// Why a scene (or a recording, which holds one) could not be loaded or saved.
#[derive(Clone, Debug, PartialEq)]
pub enum SceneError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: String,
        /// What the operating system said.
        message: String,
    },
    /// The file is larger than files of its kind may be ([`super::MAX_SCENE_BYTES`] for
    /// scenes).
    TooLarge {
        /// The file's size.
        bytes: u64,
        /// The most its kind may have.
        limit: u64,
    },
    /// The text is not a valid file of its kind.
    Parse {
        /// 1-based line of the problem.
        line: usize,
        /// 1-based column of the problem.
        column: usize,
        /// Path of the field, like `bodies[3].shape`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl fmt::Display for SceneError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SceneError::Io { path, message } => write!(f, "{path}: {message}"),
            SceneError::TooLarge { bytes, limit } => {
                write!(f, "the file has {bytes} bytes; files of its kind are limited to {limit} bytes")
            }
            SceneError::Parse { line, column, field, message } if field.is_empty() || field == "." => {
                write!(f, "line {line}, column {column}: {message}")
            }
            SceneError::Parse { line, column, field, message } => {
                write!(f, "line {line}, column {column}, field `{field}`: {message}")
            }
        }
    }
}

impl std::error::Error for SceneError {}
