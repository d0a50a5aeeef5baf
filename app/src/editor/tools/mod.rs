//! The viewport's tools and which one is active.
//!
//! Exactly one tool is active ([`Tools::active`] is one [`ToolKind`]), so switching one on
//! switches the others off by construction. Each tool keeps its settings while another is
//! active.
//!
//! Adding a tool: write its file here (a type with `Default` implementing [`Tool`]) and add one
//! line to the `tool_set!` list below; the palette goes into a panel with [`Tools::palette`].
//!
//! The tools are held by the [`Editor`](super::Editor) beside the editor state rather than in it:
//! a tool works on the whole state (its clicks are the state's commands), so a tool inside the
//! state could not be handed the state, and the state and the tools would import each other.

pub mod joint;
pub mod query;
pub mod select;
pub mod spawn;
pub mod terrain;
pub mod tool;

pub use tool::{Tool, ViewportInput};

use crate::editor::state::EditorState;

/// Declares the tools: the [`ToolKind`] enum, the [`Tools`] holding one of each, and the lookup
/// from kind to tool. One line per tool: `Kind => field: Type`; the first is the default.
macro_rules! tool_set {
    ($($(#[doc = $doc:literal])* $kind:ident => $field:ident: $ty:ty,)+) => {
        /// Which tool is active.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum ToolKind {
            $($(#[doc = $doc])* $kind,)+
        }

        impl ToolKind {
            /// Every tool, in palette order.
            pub const ALL: &[ToolKind] = &[$(ToolKind::$kind,)+];
        }

        /// Every tool with its settings, and which one is active.
        #[derive(Default)]
        pub struct Tools {
            active: ActiveTool,
            /// The scene the tools last saw (see [`Tools::follow_scene`]).
            scene_seen: Option<u64>,
            $($(#[doc = $doc])* pub $field: $ty,)+
        }

        impl Tools {
            /// The tool of `kind`.
            pub fn get(&self, kind: ToolKind) -> &dyn Tool {
                match kind {
                    $(ToolKind::$kind => &self.$field,)+
                }
            }

            /// The tool of `kind`, to change.
            pub fn get_mut(&mut self, kind: ToolKind) -> &mut dyn Tool {
                match kind {
                    $(ToolKind::$kind => &mut self.$field,)+
                }
            }
        }
    };
}

tool_set! {
    /// Click to select, shift-drag to select in a box, drag a body while playing to pull it.
    Select => select: select::SelectTool,
    /// Click to place a body, shift-drag to place a row.
    Spawn => spawn: spawn::SpawnTool,
    /// Click a body and then another (or empty space) to link them with a joint.
    Joint => joint: joint::JointTool,
    /// Drag over the terrain to paint it with the brush.
    Terrain => terrain: terrain::TerrainTool,
    /// Cast a ray or a shape from the pointer, or find what a shape there overlaps.
    Query => query: query::QueryTool,
}

/// The active tool, the first of the list until another is chosen.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct ActiveTool(ToolKind);

impl Default for ActiveTool {
    fn default() -> Self {
        ActiveTool(ToolKind::ALL[0])
    }
}

impl Tools {
    /// The active tool's kind.
    pub fn active(&self) -> ToolKind {
        self.active.0
    }

    /// Whether `kind` is the active tool.
    pub fn is_active(&self, kind: ToolKind) -> bool {
        self.active.0 == kind
    }

    /// The active tool.
    pub fn active_mut(&mut self) -> &mut dyn Tool {
        self.get_mut(self.active.0)
    }

    /// Makes `kind` the active tool; the one that was active finishes or drops its work.
    pub fn activate(&mut self, kind: ToolKind, state: &mut EditorState) {
        if self.active.0 != kind {
            self.active_mut().deactivate(state);
            self.active = ActiveTool(kind);
        }
    }

    /// Switches `kind` on, or back to the default tool when it is on already (a tool's key).
    pub fn toggle(&mut self, kind: ToolKind, state: &mut EditorState) {
        let next = if self.is_active(kind) { ActiveTool::default().0 } else { kind };
        self.activate(next, state);
    }

    /// Esc: cancels the active tool's half-made work if it has any, else leaves the tool for
    /// the default one. Returns whether it only cancelled.
    pub fn escape(&mut self, state: &mut EditorState) -> bool {
        if self.active_mut().cancel() {
            return true;
        }
        self.activate(ActiveTool::default().0, state);
        false
    }

    /// Draws the palette of `kind` and switches the tool on or off as the user asks there.
    pub fn palette(&mut self, kind: ToolKind, ui: &mut egui::Ui, state: &mut EditorState) {
        let active = self.is_active(kind);
        match self.get_mut(kind).palette(ui, state, active) {
            Some(true) => self.activate(kind, state),
            Some(false) if active => self.activate(ActiveTool::default().0, state),
            _ => {}
        }
    }

    /// Tells every tool the world was replaced when the state holds another scene than the one
    /// the tools last saw (so a half-made joint does not name a body of the old world).
    pub fn follow_scene(&mut self, state: &EditorState) {
        let scene = state.scene_serial();
        if self.scene_seen != Some(scene) {
            if self.scene_seen.is_some() {
                for &kind in ToolKind::ALL {
                    self.get_mut(kind).scene_replaced();
                }
            }
            self.scene_seen = Some(scene);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn activating_any_tool_deactivates_every_other() {
        let mut state =
            EditorState::from_scene(&atoll_physics::scene::builtin::terrain_hills(), None).unwrap();
        let mut tools = Tools::default();
        assert_eq!(tools.active(), ToolKind::Select);
        for &first in ToolKind::ALL {
            for &second in ToolKind::ALL {
                tools.activate(first, &mut state);
                tools.activate(second, &mut state);
                let active: Vec<ToolKind> =
                    ToolKind::ALL.iter().copied().filter(|&k| tools.is_active(k)).collect();
                assert_eq!(active, [second], "{first:?} then {second:?}");
            }
        }
        // The terrain brush in particular leaves the spawn and joint tools (it used not to).
        for other in [ToolKind::Spawn, ToolKind::Joint] {
            tools.activate(other, &mut state);
            tools.activate(ToolKind::Terrain, &mut state);
            assert!(!tools.is_active(other));
        }
    }

    #[test]
    fn a_tools_key_toggles_it_and_esc_cancels_before_it_leaves() {
        let mut state = EditorState::from_scene(&crate::builtin::tower(2), None).unwrap();
        let mut tools = Tools::default();
        tools.toggle(ToolKind::Joint, &mut state);
        assert!(tools.is_active(ToolKind::Joint));
        tools.toggle(ToolKind::Joint, &mut state);
        assert!(tools.is_active(ToolKind::Select));
        tools.toggle(ToolKind::Joint, &mut state);
        let top = state.sim.world.body_ids().last().unwrap();
        let centre = state.sim.world.transform(top).unwrap().position;
        tools.joint.click(&mut state, centre + glam::Vec3::Z * 10.0, -glam::Vec3::Z).unwrap();
        assert!(tools.joint.pending.is_some());
        assert!(tools.escape(&mut state), "the first Esc cancels the half-made joint");
        assert!(tools.joint.pending.is_none());
        assert!(tools.is_active(ToolKind::Joint));
        assert!(!tools.escape(&mut state), "the next leaves the tool");
        assert!(tools.is_active(ToolKind::Select));
    }

    #[test]
    fn switching_tools_or_scenes_drops_half_made_work_and_keeps_settings() {
        let tower = || EditorState::from_scene(&crate::builtin::tower(2), None).unwrap();
        let mut state = tower();
        let mut tools = Tools::default();
        tools.follow_scene(&state);
        let top = state.sim.world.body_ids().last().unwrap();
        let centre = state.sim.world.transform(top).unwrap().position;
        let first_click = |tools: &mut Tools, state: &mut EditorState| {
            tools.activate(ToolKind::Joint, state);
            tools.joint.click(state, centre + glam::Vec3::Z * 10.0, -glam::Vec3::Z).unwrap();
            assert!(tools.joint.pending.is_some());
        };
        tools.joint.joint_type = atoll_physics::JointType::Distance;
        first_click(&mut tools, &mut state);
        tools.activate(ToolKind::Terrain, &mut state);
        assert!(tools.joint.pending.is_none(), "leaving the joint tool drops its first click");
        first_click(&mut tools, &mut state);
        state.replace_with(tower());
        tools.follow_scene(&state);
        assert!(tools.joint.pending.is_none(), "a first click on the old world is dropped");
        assert!(tools.is_active(ToolKind::Joint), "the tool stays");
        assert_eq!(tools.joint.joint_type, atoll_physics::JointType::Distance, "and so do its settings");
    }
}
