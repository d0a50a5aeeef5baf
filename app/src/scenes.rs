//! Scene files: the built-in scenes folder, the default scene, and finding and loading `.ron`
//! files. A leaf module: the command line and the editor both start from here.

use atoll_physics::{Scene, SceneError};
use std::path::{Path, PathBuf};

/// The default scene's text, compiled in so the editor opens even without a `scenes/` folder.
const EMBEDDED_DEFAULT_SCENE: &str = include_str!("../../scenes/pyramid_3d.ron");

/// The default scene, opened when `atoll` runs with no arguments.
pub const DEFAULT_SCENE: &str = "pyramid_3d.ron";

/// The built-in scenes folder: `./scenes` when run from the checkout, else the one beside the
/// crate sources.
pub fn scenes_dir() -> PathBuf {
    let local = PathBuf::from("scenes");
    if local.is_dir() { local } else { PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes")) }
}

/// The `.ron` files of `dir`, sorted by name; empty when the folder cannot be read.
pub fn list(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else { return Vec::new() };
    let mut files: Vec<PathBuf> = entries
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|ext| ext == "ron"))
        .collect();
    files.sort();
    files
}

/// Loads `path`; when it is the default scene and the file is missing, falls back to the
/// embedded copy. Errors name the file, and the line, column and field when the text is bad.
pub fn load(path: &Path) -> Result<Scene, String> {
    let is_default = path.file_name().is_some_and(|name| name == DEFAULT_SCENE);
    if is_default && !path.exists() {
        return Scene::from_ron_str(EMBEDDED_DEFAULT_SCENE)
            .map_err(|e| format!("embedded {DEFAULT_SCENE}: {e}"));
    }
    Scene::load(path).map_err(|e| match e {
        // I/O errors already name the file.
        SceneError::Io { .. } => e.to_string(),
        _ => format!("{}: {e}", path.display()),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_default_scene_falls_back_to_the_embedded_copy() {
        let scene = load(Path::new("/nonexistent/folder").join(DEFAULT_SCENE).as_path()).unwrap();
        assert!(scene.bodies.len() > 100);
        assert!(load(Path::new("/nonexistent/other.ron")).is_err());
    }

    #[test]
    fn lists_the_built_in_scenes() {
        let files = list(&scenes_dir());
        assert!(files.iter().any(|f| f.ends_with(DEFAULT_SCENE)), "{files:?}");
    }
}
