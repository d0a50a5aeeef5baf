//! Reading and writing scene text and files.

use super::{MAX_SCENE_BYTES, Scene, SceneError};
use std::io::Write;
use std::path::Path;

impl Scene {
    /// Parses and validates scene text.
    pub fn from_ron_str(text: &str) -> Result<Scene, SceneError> {
        if text.len() as u64 > MAX_SCENE_BYTES {
            return Err(SceneError::TooLarge { bytes: text.len() as u64 });
        }
        let mut de = ron::Deserializer::from_str(text).map_err(|e| parse_error(e, String::new()))?;
        super::fields::forget_bodies();
        let result: Result<Scene, _> = serde_path_to_error::deserialize(&mut de);
        super::fields::forget_bodies();
        match result {
            Ok(scene) => {
                de.end().map_err(|e| parse_error(de.span_error(e), String::new()))?;
                Ok(scene)
            }
            Err(e) => {
                let field = e.path().to_string();
                Err(parse_error(de.span_error(e.into_inner()), field))
            }
        }
    }

    /// Scene text, pretty-printed.
    pub fn to_ron_string(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(3).indentor("    ".to_string());
        ron::ser::to_string_pretty(self, config).expect("scenes always serialise")
    }

    /// Loads a scene file.
    pub fn load(path: &Path) -> Result<Scene, SceneError> {
        let io =
            |e: std::io::Error| SceneError::Io { path: path.display().to_string(), message: e.to_string() };
        let bytes = std::fs::metadata(path).map_err(io)?.len();
        if bytes > MAX_SCENE_BYTES {
            return Err(SceneError::TooLarge { bytes });
        }
        let text = std::fs::read_to_string(path).map_err(io)?;
        Scene::from_ron_str(&text)
    }

    /// Saves to `path` by writing a temporary file beside it and renaming it over the old one,
    /// so a failed save leaves the previous file whole.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        let io =
            |e: std::io::Error| SceneError::Io { path: path.display().to_string(), message: e.to_string() };
        let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
        let file_name = path.file_name().ok_or_else(|| io(std::io::Error::other("not a file path")))?;
        let temp = dir.join(format!(".{}.saving", file_name.to_string_lossy()));
        let write = || -> std::io::Result<()> {
            let mut f = std::fs::File::create(&temp)?;
            f.write_all(self.to_ron_string().as_bytes())?;
            f.sync_all()?;
            std::fs::rename(&temp, path)
        };
        write().map_err(|e| {
            let _ = std::fs::remove_file(&temp);
            io(e)
        })
    }
}

fn parse_error(e: ron::error::SpannedError, field: String) -> SceneError {
    SceneError::Parse {
        line: e.span.start.line,
        column: e.span.start.col,
        field,
        message: e.code.to_string(),
    }
}
