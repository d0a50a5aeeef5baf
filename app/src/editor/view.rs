//! The view role of the editor state: how the world is looked at. The camera, the render
//! options (colouring, overlays, highlights), what the viewport should frame next, the island
//! picked for highlighting, and the terrain edits the renderer has still to draw.

use crate::render::{OrbitCamera, ViewOptions};
use atoll_physics::terrain::ChunkCoord;
use atoll_physics::{Aabb, IslandId};

/// The camera and what the viewport draws.
pub struct View {
    /// The viewport camera.
    pub camera: OrbitCamera,
    /// Colouring, overlays and highlights of the viewport.
    pub options: ViewOptions,
    /// Set when a scene is loaded: the viewport frames the bodies on its next frame (it knows
    /// the aspect ratio).
    pub needs_framing: bool,
    /// A box the viewport should frame on its next frame (it knows the aspect ratio).
    pub frame_target: Option<Aabb>,
    /// The island picked in the Islands panel; its bodies are highlighted. The id has a
    /// generation, so once the island merges away or vanishes it is refused and the selection
    /// clears instead of naming whichever island reuses the slot.
    pub selected_island: Option<IslandId>,
    /// Terrain edits the renderer has not drawn yet: terrain stamp before, after, chunks
    /// touched (from the brush, undo and redo).
    pub terrain_edits: Vec<(u64, u64, Vec<ChunkCoord>)>,
}
