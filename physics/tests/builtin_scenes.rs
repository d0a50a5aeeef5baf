//! The generators in `scene::builtin` still produce the committed `scenes/*.ron` files byte for
//! byte (the app's `generate-scenes` writes them from the same calls; this checks it without
//! building the app).

use atoll_physics::Scene;
use atoll_physics::scene::builtin::committed;
use std::path::PathBuf;

#[test]
fn committed_scenes_equal_the_generators() {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenes");
    for (file, scene) in committed() {
        let path = dir.join(file);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(text == scene.to_ron_string(), "{file} differs from its generator");
        assert_eq!(Scene::from_ron_str(&text).unwrap(), scene, "{file} does not round-trip");
    }
}
