//! The built-in scenes, listed here and written to `scenes/` by `atoll generate-scenes`. The
//! generators live in the engine crate (`atoll_physics::scene::builtin`), where the Rapier
//! benchmark uses them too. A test checks the committed files equal what they produce.

use atoll_physics::Scene;
pub use atoll_physics::scene::builtin::{
    dominoes, plane_pyramid, pyramid_3d, pyramid_field, rain, ramp, resting_stacks, tower, tumbler,
};
use std::path::Path;

/// Every built-in scene with its file name.
pub fn all() -> Vec<(&'static str, Scene)> {
    atoll_physics::scene::builtin::committed()
}

/// Writes every built-in scene into `dir`.
pub fn write_all(dir: &Path) -> Result<(), String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (file, scene) in all() {
        let path = dir.join(file);
        scene.save(&path).map_err(|e| e.to_string())?;
        println!("wrote {} ({} bodies)", path.display(), scene.bodies.len());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn committed_scenes_match_the_generators() {
        let dir = crate::scenes::scenes_dir();
        for (file, scene) in all() {
            let path = dir.join(file);
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(
                text,
                scene.to_ron_string(),
                "{file} is stale: run `cargo run -- generate-scenes scenes`"
            );
            assert_eq!(Scene::from_ron_str(&text).unwrap(), scene, "{file} does not round-trip");
        }
    }
}
