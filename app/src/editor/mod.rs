//! The editor: state, panels and the 3D viewport, plus the eframe window that hosts them.
//!
//! [`Editor::ui`] draws one frame into any [`egui::Ui`], so the window and the egui_kittest
//! tests run the same code.

pub mod autosave;
pub mod body_history;
pub mod branch_commands;
pub mod branching;
pub mod clipboard;
pub mod commands;
pub mod compound_commands;
pub mod contact_watch;
pub mod csv;
pub mod diagnostics;
pub mod document;
pub mod edit;
pub mod entities;
pub mod file_session;
pub mod files;
pub mod gizmo;
pub mod grab;
pub mod history;
pub mod island_energy;
pub mod joint_trace;
pub mod native_dialog;
pub mod notices;
pub mod panels;
pub mod path_choice;
pub mod playback;
pub mod replay;
pub mod selection;
pub mod shortcuts;
pub mod simulation;
pub mod state;
pub mod timeline;
pub mod tools;
pub mod undo;
pub mod view;
pub mod viewport;
pub mod walk_fill;

pub use state::EditorState;
pub use tools::{ToolKind, Tools};

use panels::panel::{Dock, PanelContext};
pub use viewport::Viewport;

use std::path::Path;
use std::time::Instant;

/// The editor: what it knows and the viewport that draws it.
pub struct Editor {
    /// The state tests and panels read and change.
    pub state: EditorState,
    /// The viewport's tools and which one is active. Beside the state, not in it: a tool works
    /// on the whole state (see `tools/mod.rs`).
    pub tools: Tools,
    /// Filters and sort orders of the panels.
    pub panels: panels::PanelState,
    viewport: Viewport,
    title_shown: String,
}

impl Editor {
    /// An editor on `state`, rendering with the device of `render_state`.
    pub fn new(state: EditorState, render_state: egui_wgpu::RenderState) -> Editor {
        Editor {
            state,
            tools: Tools::default(),
            panels: panels::PanelState::default(),
            viewport: Viewport::new(render_state),
            title_shown: String::new(),
        }
    }

    /// Draws one frame: shortcuts, simulation, bars, viewport.
    pub fn ui(&mut self, ui: &mut egui::Ui) {
        let frame_start = Instant::now();
        let ctx = ui.ctx().clone();
        self.handle_close_request(&ctx);
        self.tools.follow_scene(&self.state);
        shortcuts::handle(&ctx, &mut self.state, &mut self.tools, &mut self.panels.help_open);
        let frame_seconds = ctx.input(|i| i.stable_dt) as f64;
        self.state.advance(frame_seconds);
        // Set again by the Contacts panel while a row is under the pointer.
        self.state.view.options.marker = None;

        egui::Panel::top("controls")
            .show(ui, |ui| panels::top_bar(ui, &mut self.state, &mut self.tools, &mut self.panels));
        egui::Panel::bottom("status").show(ui, |ui| panels::status_bar(ui, &self.state));
        egui::Panel::bottom("timeline").show(ui, |ui| panels::timeline::show(ui, &mut self.state));
        // The side panels come from one list (`panels::registry`); each side draws its share.
        // The panels borrow the panel state, so the open flags travel separately.
        let mut cx = PanelContext { state: &mut self.state, tools: &mut self.tools };
        let (mut left_open, mut right_open) = (self.panels.left_open, self.panels.right_open);
        egui::Panel::left("scene").resizable(true).default_size(190.0).show_collapsible(
            ui,
            &mut left_open,
            |ui| self.panels.dock(ui, Dock::Left, &mut cx),
        );
        egui::Panel::right("inspect").resizable(true).default_size(360.0).show_collapsible(
            ui,
            &mut right_open,
            |ui| {
                egui::ScrollArea::vertical()
                    .id_salt("side panels")
                    .show(ui, |ui| self.panels.dock(ui, Dock::Right, &mut cx));
            },
        );
        (self.panels.left_open, self.panels.right_open) = (left_open, right_open);
        egui::CentralPanel::default().frame(egui::Frame::NONE).show(ui, |ui| {
            self.viewport.show(ui, &mut self.state, &mut self.tools);
        });
        panels::error_window(&ctx, &mut self.state);
        files::poll_dialog(&mut self.state);
        panels::path_prompt(&ctx, &mut self.state);
        self.panels.windows(&ctx, &mut PanelContext { state: &mut self.state, tools: &mut self.tools });
        panels::help_window(&ctx, &mut self.panels.help_open);
        panels::recovery_window(&ctx, &mut self.state);
        panels::close_window(&ctx, &mut self.state);
        files::autosave_if_due(&mut self.state);
        // A gesture (a dragged field or gizmo handle, a typed value) ends when no button is held
        // and no field has the keyboard: the next edit starts a new undo step.
        if !ctx.input(|i| i.pointer.any_down()) && !ctx.egui_wants_keyboard_input() {
            self.state.doc.undo.seal();
        }
        self.update_title(&ctx);

        if self.state.sim.playing {
            ctx.request_repaint();
        } else if self.state.doc.session.pending_dialog.is_some() {
            // Nothing else wakes the UI when the dialog thread answers.
            ctx.request_repaint_after(std::time::Duration::from_millis(100));
        }
        self.state.diag.frame_ms = frame_start.elapsed().as_secs_f64() * 1e3;
    }

    /// The 3D view: its screen rectangle and the CPU cost of its last render.
    pub fn viewport(&self) -> &Viewport {
        &self.viewport
    }

    /// The window title of the last frame: the scene, its file, and `*` when unsaved.
    pub fn title(&self) -> &str {
        &self.title_shown
    }

    /// The window's close button with unsaved changes: the close is held back and the editor
    /// asks what to do with them.
    fn handle_close_request(&mut self, ctx: &egui::Context) {
        let requested = ctx.input(|i| i.viewport().close_requested());
        if requested && files::request_close(&mut self.state) {
            ctx.send_viewport_cmd(egui::ViewportCommand::CancelClose);
        }
    }

    /// Called when the editor exits: unsaved work the user did not discard goes to the recovery
    /// file, so the next start can offer it.
    pub fn on_exit(&mut self) {
        files::on_exit(&mut self.state);
    }

    fn update_title(&mut self, ctx: &egui::Context) {
        let file = self
            .state
            .doc
            .session
            .scene_path
            .as_deref()
            .and_then(Path::file_name)
            .map(|f| f.to_string_lossy());
        let star = if self.state.doc.dirty { " *" } else { "" };
        let title = match file {
            Some(file) => format!("Atoll — {} ({file}){star}", self.state.doc.scene_name),
            None => format!("Atoll — {}{star}", self.state.doc.scene_name),
        };
        if title != self.title_shown {
            ctx.send_viewport_cmd(egui::ViewportCommand::Title(title.clone()));
            self.title_shown = title;
        }
    }
}

/// The eframe application: an [`Editor`] in a native window.
struct EditorApp {
    editor: Editor,
}

impl eframe::App for EditorApp {
    fn ui(&mut self, ui: &mut egui::Ui, _frame: &mut eframe::Frame) {
        self.editor.ui(ui);
    }

    fn on_exit(&mut self) {
        self.editor.on_exit();
    }
}

/// Opens the editor window on the scene at `scene` and returns when it is closed.
pub fn run_window(scene: &Path) -> Result<(), String> {
    let mut state = EditorState::open(scene)?;
    if let Some(dir) = autosave::Autosave::default_dir() {
        state.doc.session.autosave = autosave::Autosave::in_dir(dir);
    }
    let options = eframe::NativeOptions {
        renderer: eframe::Renderer::Wgpu,
        viewport: egui::ViewportBuilder::default().with_inner_size([1280.0, 800.0]).with_title("Atoll"),
        ..Default::default()
    };
    eframe::run_native(
        "Atoll",
        options,
        Box::new(move |cc| {
            let render_state =
                cc.wgpu_render_state.clone().ok_or("eframe started without a wgpu renderer")?;
            Ok(Box::new(EditorApp { editor: Editor::new(state, render_state) }))
        }),
    )
    .map_err(|e| format!("could not open the editor window: {e}"))
}
