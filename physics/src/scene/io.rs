//! Reading and writing scene text and files, and the same for any RON file of the engine's
//! (recordings hold a scene and are read and written alike).

use super::{MAX_SCENE_BYTES, Scene, SceneError};
use serde::de::DeserializeOwned;
use std::io::Write;
use std::path::Path;

impl Scene {
    /// Parses and validates scene text.
    pub fn from_ron_str(text: &str) -> Result<Scene, SceneError> {
        parse_ron(text, MAX_SCENE_BYTES)
    }

    /// Scene text, pretty-printed.
    pub fn to_ron_string(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(3).indentor("    ".to_string());
        ron::ser::to_string_pretty(self, config).expect("scenes always serialise")
    }

    /// Loads a scene file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        Scene::from_ron_str(&read_limited(path, MAX_SCENE_BYTES)?)
    }

    /// Saves to `path` by writing a temporary file beside it and renaming it over the old one,
    /// so a failed save leaves the previous file whole.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        write_replacing(path, &self.to_ron_string())
    }
}

/// Parses RON text of at most `limit` bytes into a `T` whose fields validate themselves; an
/// error names the line, column and field path of the first problem.
pub(crate) fn parse_ron<T: DeserializeOwned>(text: &str, limit: u64) -> Result<T, SceneError> {
    if text.len() as u64 > limit {
        return Err(SceneError::TooLarge { bytes: text.len() as u64, limit });
    }
    let mut de = ron::Deserializer::from_str(text).map_err(|e| parse_error(e, String::new()))?;
    super::joint::forget_bodies();
    let result: Result<T, _> = serde_path_to_error::deserialize(&mut de);
    super::joint::forget_bodies();
    match result {
        Ok(value) => {
            de.end().map_err(|e| parse_error(de.span_error(e), String::new()))?;
            Ok(value)
        }
        Err(e) => {
            let field = e.path().to_string();
            Err(parse_error(de.span_error(e.into_inner()), field))
        }
    }
}

/// The text of the file at `path`, refused unread when it is larger than `limit` bytes.
pub(crate) fn read_limited(path: &Path, limit: u64) -> Result<String, SceneError> {
    let io = |e: std::io::Error| SceneError::Io { path: path.display().to_string(), message: e.to_string() };
    let bytes = std::fs::metadata(path).map_err(io)?.len();
    if bytes > limit {
        return Err(SceneError::TooLarge { bytes, limit });
    }
    std::fs::read_to_string(path).map_err(io)
}

/// Writes `text` to `path` through a temporary file beside it renamed over the old one, so a
/// failed write leaves the previous file whole.
pub(crate) fn write_replacing(path: &Path, text: &str) -> Result<(), SceneError> {
    let io = |e: std::io::Error| SceneError::Io { path: path.display().to_string(), message: e.to_string() };
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let file_name = path.file_name().ok_or_else(|| io(std::io::Error::other("not a file path")))?;
    let temp = dir.join(format!(".{}.saving", file_name.to_string_lossy()));
    let write = || -> std::io::Result<()> {
        let mut f = std::fs::File::create(&temp)?;
        f.write_all(text.as_bytes())?;
        f.sync_all()?;
        std::fs::rename(&temp, path)
    };
    write().map_err(|e| {
        let _ = std::fs::remove_file(&temp);
        io(e)
    })
}

/// A ron error with the position it names and the field path.
fn parse_error(e: ron::error::SpannedError, field: String) -> SceneError {
    SceneError::Parse {
        line: e.span.start.line,
        column: e.span.start.col,
        field,
        message: e.code.to_string(),
    }
}
