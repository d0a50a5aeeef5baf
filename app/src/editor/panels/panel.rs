//! What every panel is: the [`Panel`] trait, where a panel docks, and what it is handed.
//!
//! A leaf of the panels: each panel's file and the registry in `panels/mod.rs` import it, and it
//! imports neither.

use crate::editor::state::EditorState;
use crate::editor::tools::{ToolKind, Tools};

/// The side of the window a panel is listed on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dock {
    /// The Scene side: the tools' palettes and the scene's contents.
    Left,
    /// The inspection side.
    Right,
}

/// What a panel works on.
pub struct PanelContext<'a> {
    /// The editor state.
    pub state: &'a mut EditorState,
    /// The viewport's tools (their palettes are panels too).
    pub tools: &'a mut Tools,
}

/// A collapsible panel of the side bars, holding its own UI state (filters, sort orders). The
/// registry (`panels::registry`) lists them in order; the layout draws each under its name.
pub trait Panel: std::any::Any {
    /// The panel's header.
    fn name(&self) -> &'static str;

    /// Where the panel is listed.
    fn dock(&self) -> Dock;

    /// Whether the panel starts open.
    fn default_open(&self) -> bool {
        false
    }

    /// Draws the panel's contents.
    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext);

    /// Windows the panel opens, drawn every frame whether or not the panel is open.
    fn windows(&mut self, _ctx: &egui::Context, _cx: &mut PanelContext) {}
}

/// A tool's palette as a panel of its own.
pub struct ToolPalette {
    /// The panel's header.
    pub name: &'static str,
    /// The tool.
    pub kind: ToolKind,
    /// Whether the palette starts unfolded (the everyday tools do; the Query tool's folds
    /// away, so the Scene list below keeps its room).
    pub open: bool,
}

impl Panel for ToolPalette {
    fn name(&self) -> &'static str {
        self.name
    }

    fn dock(&self) -> Dock {
        Dock::Left
    }

    fn default_open(&self) -> bool {
        self.open
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        cx.tools.palette(self.kind, ui, cx.state);
    }
}
