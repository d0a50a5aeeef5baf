//! The Atoll side: the scene's own world, stepped on the caller's thread (and a pool of
//! threads when asked for more than one).

use crate::engine::{Engine, Pose};
use atoll_physics::{BodyId, Scene, World};

/// An Atoll world and the ids of the scene's bodies in scene order.
pub struct AtollWorld {
    world: World,
    ids: Vec<BodyId>,
}

impl AtollWorld {
    /// Builds the scene with its own settings, stepping on `threads` threads
    /// (`World::set_thread_count`: 1 is the caller's thread alone).
    pub fn build(scene: &Scene, threads: usize) -> Result<Self, String> {
        let (mut world, ids) = scene.build_world().map_err(|e| e.to_string())?;
        world.set_thread_count(threads).map_err(|e| e.to_string())?;
        Ok(AtollWorld { world, ids })
    }
}

impl Engine for AtollWorld {
    fn step(&mut self) {
        self.world.step();
    }

    fn pose(&self, index: usize) -> Pose {
        let t = self.world.transform(self.ids[index]).expect("scene bodies are never removed");
        Pose { position: t.position.to_array(), rotation: t.rotation.to_array() }
    }
}
