//! What the viewport draws besides the bodies themselves: the colouring mode, the debug
//! overlays and the bodies to highlight. The editor owns one and hands it to the renderer.

use atoll_physics::BodyId;
use atoll_physics::terrain::ChunkCoord;
use std::collections::HashMap;

/// How bodies are coloured.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColourMode {
    /// A stable palette colour per body.
    #[default]
    Body,
    /// One palette colour per island, so piles that interact share a colour.
    Island,
    /// From blue (just moved) to red (about to sleep), by the body's sleep timer.
    SleepTimer,
}

impl ColourMode {
    /// Every mode, in menu order.
    pub const ALL: [ColourMode; 3] = [ColourMode::Body, ColourMode::Island, ColourMode::SleepTimer];

    /// The menu label.
    pub fn label(self) -> &'static str {
        match self {
            ColourMode::Body => "Colour by body",
            ColourMode::Island => "Colour by island",
            ColourMode::SleepTimer => "Colour by sleep timer",
        }
    }
}

/// Debug overlays drawn as lines over the bodies.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overlays {
    /// Each body's tight world AABB.
    pub aabbs: bool,
    /// Each body's fat AABB in the broadphase.
    pub fat_aabbs: bool,
    /// Contact points and their normals, scaled by the normal impulse.
    pub contacts: bool,
    /// Linear velocity vectors.
    pub velocities: bool,
    /// Each body's local axes (x red, y green, z blue).
    pub axes: bool,
    /// Internal nodes of the movable broadphase tree, coloured by depth.
    pub tree: bool,
    /// How many levels of the tree below the root are drawn.
    pub tree_depth: u32,
    /// Every joint: anchors, axes, limits, coloured by state (drawn over the bodies).
    pub joints: bool,
}

impl Default for Overlays {
    fn default() -> Self {
        Overlays {
            aabbs: false,
            fat_aabbs: false,
            contacts: false,
            velocities: false,
            axes: false,
            tree: false,
            // Deeper levels of a big tree are a mesh of lines that hides the scene.
            tree_depth: 6,
            joints: false,
        }
    }
}

impl Overlays {
    /// Whether any overlay drawn with the depth test is on (the joints overlay is drawn apart,
    /// over the bodies).
    pub fn any(&self) -> bool {
        self.aabbs || self.fat_aabbs || self.contacts || self.velocities || self.axes || self.tree
    }
}

/// Everything about a render that is not the world or the camera.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ViewOptions {
    /// How bodies are coloured.
    pub colour_mode: ColourMode,
    /// The overlays to draw.
    pub overlays: Overlays,
    /// The selected bodies, drawn with a warm highlight and outlined.
    pub selected: Vec<BodyId>,
    /// Bodies drawn in a colour of their own (sRGB) in the body colour mode.
    pub body_colours: HashMap<BodyId, [u8; 3]>,
    /// Names the state of `body_colours`, so the editor refreshes it only when it changed.
    pub colour_revision: u64,
    /// The selected joint, drawn in the selection colour over the bodies whether or not the
    /// joints overlay is on.
    pub selected_joint: Option<atoll_physics::JointId>,
    /// The island picked in the Islands panel: its joints are drawn in the selection colour,
    /// as its bodies are highlighted.
    pub highlighted_island: Option<atoll_physics::IslandId>,
    /// Further bodies drawn highlighted (the selected island's).
    pub highlighted: Vec<BodyId>,
    /// Seconds of sleep timer that map to the hot end of [`ColourMode::SleepTimer`].
    pub time_to_sleep: f32,
    /// A contact point to mark whatever the overlays (the Contacts row under the pointer):
    /// position and normal.
    pub marker: Option<(glam::Vec3, glam::Vec3)>,
    /// The terrain brush under the pointer: centre and radius, drawn as a wire sphere.
    pub brush: Option<(glam::Vec3, f32)>,
    /// The terrain chunk the terrain overlays show (the one under the pointer).
    pub terrain_chunk: Option<ChunkCoord>,
    /// Which terrain overlays are on.
    pub terrain_overlays: TerrainOverlays,
}

/// Debug overlays of one terrain chunk (the one under the pointer).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TerrainOverlays {
    /// The chunk's dilated solid mask: a small cross per set bit, and the chunk's box.
    pub masks: bool,
    /// The boxes of the chunk's kD tree nodes, coloured by depth.
    pub kd_nodes: bool,
}
