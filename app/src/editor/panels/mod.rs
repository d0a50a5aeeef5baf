//! The bars and panels around the viewport: menus and simulation controls on top, the status
//! line at the bottom, the side panels (the tools' palettes and the Scene list on the left, the
//! inspection panels on the right), and the windows.
//!
//! The side panels are listed once, in [`registry`]; each is a [`Panel`] (see `panel.rs`) in a
//! file of its own and keeps its own UI state, as egui_demo_lib's demos do.

pub mod body_history;
pub mod branches;
pub mod broadphase;
pub mod contacts;
pub mod energy;
pub mod inspector;
pub mod islands;
pub mod joint_inspector;
pub mod panel;
pub mod scene_tree;
pub mod sensors;
pub mod settings;
pub mod sleep;
pub mod spawn;
pub mod terrain;
pub mod timeline;
pub mod timing;
pub mod why_awake;
pub mod widgets;

use super::files::{self, CloseAnswer};
use super::notices::NoticePlace;
use super::path_choice::{PathPrompt, PathPurpose};
use super::shortcuts::{self, Command};
use super::state::EditorState;
use super::tools::{ToolKind, Tools};
use crate::render::ColourMode;
use crate::scenes;
use egui::{Button, CollapsingHeader, DragValue, Key, RichText};
use panel::{Dock, Panel, PanelContext, ToolPalette};
use std::any::Any;

/// Step rates offered by the rate menu, in steps per simulated second.
pub const RATES_HZ: [u32; 3] = [60, 120, 240];

/// Every panel of the side bars, in order: the one list the layout iterates. Adding a panel is
/// its file (a type implementing [`Panel`]) and one line here.
pub fn registry() -> Vec<Box<dyn Panel>> {
    vec![
        // The left side: the tools' palettes, then the scene's contents.
        Box::new(spawn::SpawnPanel::default()),
        Box::new(ToolPalette { name: "Joints tool", kind: ToolKind::Joint, open: true }),
        Box::new(ToolPalette { name: "Queries", kind: ToolKind::Query, open: false }),
        Box::new(scene_tree::ScenePanel::default()),
        // The right side: inspection.
        Box::new(inspector::InspectorPanel),
        Box::new(timing::TimingPanel::default()),
        Box::new(broadphase::BroadphasePanel),
        Box::new(contacts::ContactsPanel::default()),
        Box::new(sensors::SensorsPanel),
        Box::new(energy::EnergyPanel::default()),
        Box::new(branches::BranchesPanel::default()),
        Box::new(islands::IslandsPanel::default()),
        Box::new(sleep::SleepPanel),
        Box::new(terrain::TerrainPanel),
        Box::new(settings::SettingsPanel),
    ]
}

/// Panel state that is about the UI rather than the world: which sides are shown, the Help
/// window, and the panels themselves (each holding its own filters and sort orders).
pub struct PanelState {
    /// The Scene list on the left is shown.
    pub left_open: bool,
    /// The inspection panels on the right are shown.
    pub right_open: bool,
    /// The Help window (shortcuts) is shown.
    pub help_open: bool,
    /// The side panels, from [`registry`].
    pub list: Vec<Box<dyn Panel>>,
}

impl Default for PanelState {
    fn default() -> Self {
        PanelState { left_open: true, right_open: true, help_open: false, list: registry() }
    }
}

impl PanelState {
    /// The panel of type `T`, if the registry has one (tests read their state through it).
    pub fn find<T: Panel>(&self) -> Option<&T> {
        self.list.iter().find_map(|p| (p.as_ref() as &dyn Any).downcast_ref::<T>())
    }

    /// The panel of type `T`, to change (the Edit menu opens the Spawn panel's generator).
    pub fn find_mut<T: Panel>(&mut self) -> Option<&mut T> {
        self.list.iter_mut().find_map(|p| (p.as_mut() as &mut dyn Any).downcast_mut::<T>())
    }

    /// Draws every panel docked at `dock`, each under a collapsible header with its name.
    pub fn dock(&mut self, ui: &mut egui::Ui, dock: Dock, cx: &mut PanelContext) {
        for panel in self.list.iter_mut().filter(|p| p.dock() == dock) {
            CollapsingHeader::new(panel.name())
                .default_open(panel.default_open())
                .show(ui, |ui| panel.ui(ui, cx));
        }
    }

    /// The windows the panels open (drawn whether or not their panel is shown).
    pub fn windows(&mut self, ctx: &egui::Context, cx: &mut PanelContext) {
        for panel in &mut self.list {
            panel.windows(ctx, cx);
        }
    }
}

/// The menu and control bar.
pub fn top_bar(ui: &mut egui::Ui, state: &mut EditorState, tools: &mut Tools, panels: &mut PanelState) {
    egui::MenuBar::new().ui(ui, |ui| {
        ui.menu_button("File", |ui| file_menu(ui, state));
        ui.menu_button("Edit", |ui| edit_menu(ui, state, tools, panels));
        ui.menu_button("View", |ui| view_menu(ui, state, panels));
        ui.menu_button("Help", |ui| {
            if ui
                .add(Button::new("Shortcuts").shortcut_text(shortcuts::text(ui.ctx(), Command::Help)))
                .clicked()
            {
                panels.help_open = true;
                ui.close();
            }
        });
        ui.separator();
        let play_label = if state.sim.playing { "Pause" } else { "Play" };
        if ui.button(play_label).on_hover_text("Start or stop the simulation (Space)").clicked() {
            state.toggle_play();
        }
        if ui.button("Step").on_hover_text("Advance one step (. or Right)").clicked() {
            state.step_once();
        }
        ui.add(DragValue::new(&mut state.sim.step_n).range(1..=10_000).suffix(" steps"))
            .on_hover_text("How many steps Step N takes");
        if ui.button("Step N").on_hover_text("Advance that many steps at once").clicked() {
            state.step_many(state.sim.step_n);
        }
        if ui
            .button("Reset")
            .on_hover_text("Back to the edited state: the scene as last edited (R)")
            .clicked()
        {
            state.reset();
        }
        ui.separator();
        ui.label("speed");
        ui.add(DragValue::new(&mut state.sim.time_scale).range(0.05..=8.0).speed(0.01).suffix("x"))
            .on_hover_text("Simulated seconds per real second while playing");
        rate_menu(ui, state);
        ui.separator();
        ui.label(RichText::new(&state.doc.scene_name).strong());
    });
}

fn rate_menu(ui: &mut egui::Ui, state: &mut EditorState) {
    let current = (1.0 / state.sim.world.settings().dt).round() as u32;
    let text = format!("{current} Hz");
    egui::ComboBox::from_id_salt("rate")
        .selected_text(text)
        .width(70.0)
        .show_ui(ui, |ui| {
            for hz in RATES_HZ {
                if ui.selectable_label(current == hz, format!("{hz} Hz")).clicked() {
                    let _ = state.set_rate(hz);
                }
            }
        })
        .response
        .on_hover_text("Fixed step rate: sets dt");
}

fn file_menu(ui: &mut egui::Ui, state: &mut EditorState) {
    if ui.button("New").on_hover_text("An empty scene with a ground").clicked() {
        files::new_scene(state);
        ui.close();
    }
    if ui.button("Open...").clicked() {
        ui.close();
        files::choose_path(state, PathPurpose::Open);
    }
    let save = Button::new("Save").shortcut_text(shortcuts::text(ui.ctx(), Command::Save));
    if ui.add(save).on_hover_text("Write the edited scene to the open file").clicked() {
        ui.close();
        match files::save(state) {
            Ok(true) => {}
            Ok(false) => files::choose_path(state, PathPurpose::SaveAs),
            Err(e) => state.diag.notices.report(NoticePlace::ErrorWindow, e),
        }
    }
    if ui.add(Button::new("Save As...").shortcut_text(shortcuts::text(ui.ctx(), Command::SaveAs))).clicked() {
        ui.close();
        files::choose_path(state, PathPurpose::SaveAs);
    }
    if ui.button("Type a path...").on_hover_text("Open a file by typing its path").clicked() {
        ui.close();
        state.doc.session.path_prompt = Some(PathPrompt { purpose: PathPurpose::Open, text: String::new() });
    }
    ui.separator();
    let save_recording = Button::new("Save recording...");
    let hint = "Write how the world came to this step (the scene, every edit since, every step's \
                hash): it replays to the same state, and a replay that differs says at which step";
    if ui.add(save_recording).on_hover_text(hint).clicked() {
        ui.close();
        files::choose_path(state, PathPurpose::SaveRecording);
    }
    if ui
        .button("Open recording...")
        .on_hover_text("Open a recording and replay it, checking every step")
        .clicked()
    {
        ui.close();
        files::choose_path(state, PathPurpose::OpenRecording);
    }
    ui.separator();
    ui.menu_button("Scenes", |ui| scenes_menu(ui, state));
    ui.menu_button("Recent", |ui| {
        if state.doc.session.recent.is_empty() {
            ui.weak("nothing yet");
        }
        for path in state.doc.session.recent.clone() {
            if ui.button(path.display().to_string()).clicked() {
                files::open(state, &path);
                ui.close();
            }
        }
    });
}

fn edit_menu(ui: &mut egui::Ui, state: &mut EditorState, tools: &mut Tools, panels: &mut PanelState) {
    let ctx = ui.ctx().clone();
    let undo = state.doc.undo.undo_label().map_or("Undo".to_string(), |l| format!("Undo {l}"));
    let redo = state.doc.undo.redo_label().map_or("Redo".to_string(), |l| format!("Redo {l}"));
    let selected = !state.doc.selection.is_empty();
    let entries = [
        (undo, Command::Undo, state.doc.undo.undo_len() > 0),
        (redo, Command::Redo, state.doc.undo.redo_len() > 0),
        ("Copy".to_string(), Command::Copy, selected),
        ("Paste".to_string(), Command::Paste, !state.doc.clipboard.is_empty()),
        ("Duplicate".to_string(), Command::Duplicate, selected),
        ("Delete".to_string(), Command::Delete, selected),
        ("Combine into one body".to_string(), Command::Combine, state.doc.selection.ids().len() > 1),
        ("Split into its shapes".to_string(), Command::Split, selected),
        ("Select all".to_string(), Command::SelectAll, true),
        ("Select island".to_string(), Command::SelectIsland, selected),
    ];
    for (i, (label, command, enabled)) in entries.into_iter().enumerate() {
        if i == 2 || i == 6 || i == 8 {
            ui.separator();
        }
        let button = Button::new(label).shortcut_text(shortcuts::text(&ctx, command));
        if ui.add_enabled(enabled, button).clicked() {
            shortcuts::run(state, tools, command, &mut panels.help_open);
            ui.close();
        }
    }
    ui.separator();
    if ui.button("Generate a group...").on_hover_text("A stack, pyramid or wall of boxes").clicked() {
        if let Some(spawn) = panels.find_mut::<spawn::SpawnPanel>() {
            spawn.open_generator();
        }
        ui.close();
    }
    let keep = Button::new("Keep the simulated state");
    if ui
        .add_enabled(state.simulated_since_edit(), keep)
        .on_hover_text("Make the bodies' current poses and velocities the edited scene (one undo step)")
        .clicked()
    {
        if let Err(e) = state.keep_simulated_state() {
            state.diag.notices.report(NoticePlace::ErrorWindow, e);
        }
        ui.close();
    }
}

fn view_menu(ui: &mut egui::Ui, state: &mut EditorState, panels: &mut PanelState) {
    ui.checkbox(&mut panels.left_open, "Scene panel");
    ui.checkbox(&mut panels.right_open, "Inspection panels");
    ui.separator();
    for mode in ColourMode::ALL {
        ui.radio_value(&mut state.view.options.colour_mode, mode, mode.label());
    }
    ui.separator();
    let overlays = &mut state.view.options.overlays;
    ui.checkbox(&mut overlays.aabbs, "AABBs");
    ui.checkbox(&mut overlays.fat_aabbs, "Fat AABBs");
    ui.checkbox(&mut overlays.contacts, "Contacts");
    ui.checkbox(&mut overlays.velocities, "Velocities");
    ui.checkbox(&mut overlays.axes, "Body axes");
    ui.checkbox(&mut overlays.joints, "Joints").on_hover_text(
        "Anchors, axes and limits of every joint, over the bodies: blue free, green motor working, \
         orange at a limit, red near breaking, grey disabled",
    );
    ui.checkbox(&mut overlays.tree, "Broadphase tree");
    ui.add_enabled(overlays.tree, egui::Slider::new(&mut overlays.tree_depth, 0..=32).text("tree depth"))
        .on_hover_text("Levels of the tree below the root to draw");
}

fn scenes_menu(ui: &mut egui::Ui, state: &mut EditorState) {
    let files = scenes::list(&scenes::scenes_dir());
    if files.is_empty() {
        ui.label("no scenes/ folder found");
    }
    for path in files {
        let name = path.file_stem().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
        let is_open = state.doc.session.scene_path.as_deref() == Some(path.as_path());
        if ui.selectable_label(is_open, name).clicked() {
            files::open(state, &path);
            ui.close();
        }
    }
}

/// The status line: step, simulated time, bodies, awake bodies, islands, step and frame times.
pub fn status_bar(ui: &mut egui::Ui, state: &EditorState) {
    ui.horizontal(|ui| {
        let world = &state.sim.world;
        // Counted from the world rather than the last step's profile, so they are right
        // before the first step and after edits too.
        let awake_bodies = world
            .body_ids()
            .filter(|id| world.body(*id).is_ok_and(|b| b.body_type != atoll_physics::BodyType::Static))
            .filter(|id| world.is_awake(*id).unwrap_or(false))
            .count();
        let (islands, awake_islands) =
            world.islands().fold((0, 0), |(n, awake), i| (n + 1, awake + usize::from(i.awake)));
        ui.label(format!("step {}", world.step_count()));
        ui.separator();
        ui.label(format!("t = {:.3} s", world.time()));
        ui.separator();
        ui.label(format!("{} bodies", world.body_count()));
        ui.separator();
        ui.label(format!("{awake_bodies} awake"));
        ui.separator();
        ui.label(format!("{islands} islands ({awake_islands} awake)"));
        ui.separator();
        ui.label(format!("step {:.2} ms", state.diag.last_step_ms));
        ui.separator();
        ui.label(format!("frame {:.2} ms", state.diag.frame_ms));
        match state.doc.selection.ids() {
            [] => {}
            [one] => {
                ui.separator();
                ui.label(format!("selected {}", state.body_name(*one)));
            }
            many => {
                ui.separator();
                ui.label(format!("{} selected", many.len()));
            }
        }
        if state.doc.dirty {
            ui.separator();
            ui.label("unsaved");
        }
        if let Some(note) = &state.sim.timeline.note {
            ui.separator();
            ui.label(note);
        }
        if let Some(note) = &state.sim.replay_note {
            ui.separator();
            ui.label(note);
        }
    });
}

/// A dismissable window showing the error window's notice, if any.
pub fn error_window(ctx: &egui::Context, state: &mut EditorState) {
    let Some(message) = state.diag.notices.message(NoticePlace::ErrorWindow).map(str::to_string) else {
        return;
    };
    let mut open = true;
    egui::Window::new("Error").open(&mut open).collapsible(false).show(ctx, |ui| {
        ui.label(message);
    });
    if !open {
        state.diag.notices.clear(NoticePlace::ErrorWindow);
    }
}

/// The editor's own path prompt, used where no native file dialog is available.
pub fn path_prompt(ctx: &egui::Context, state: &mut EditorState) {
    let Some(mut prompt) = state.doc.session.path_prompt.take() else { return };
    let title = prompt.purpose.title();
    let mut done = None;
    egui::Window::new(title).collapsible(false).resizable(false).show(ctx, |ui| {
        ui.label("Path of the .ron file:");
        let edit = ui.add(egui::TextEdit::singleline(&mut prompt.text).desired_width(360.0));
        let entered = edit.lost_focus() && ui.input(|i| i.key_pressed(Key::Enter));
        ui.horizontal(|ui| {
            if ui.button("OK").clicked() || entered {
                done = Some(true);
            }
            if ui.button("Cancel").clicked() {
                done = Some(false);
            }
        });
    });
    match done {
        Some(true) => files::finish(state, prompt.purpose, std::path::Path::new(prompt.text.trim())),
        Some(false) => {}
        None => state.doc.session.path_prompt = Some(prompt),
    }
}

/// The Help window: every keyboard shortcut and mouse control.
pub fn help_window(ctx: &egui::Context, open: &mut bool) {
    egui::Window::new("Help").open(open).collapsible(false).default_width(380.0).show(ctx, |ui| {
        egui::Grid::new("help keys").num_columns(2).striped(true).show(ui, |ui| {
            for (_, shortcut, what) in shortcuts::SHORTCUTS {
                ui.monospace(ctx.format_shortcut(&shortcut));
                ui.label(what);
                ui.end_row();
            }
            for (keys, what) in [
                ("click", "select the body under the pointer (with the spawn tool: place a body)"),
                ("Shift+click", "add to the selection, or take out"),
                ("Shift+drag", "select the bodies in a box (spawn tool: place a row)"),
                ("drag a gizmo handle", "move along an axis or turn about it; Ctrl snaps"),
                ("left drag", "orbit (Alt + drag while playing)"),
                ("drag a body while playing", "pull it towards the pointer; release to drop it"),
                ("click a joint anchor", "select the joint (with the joints overlay on)"),
                ("Joint tool: click, click", "a body's anchor, then another body or empty space (the world)"),
                ("right or middle drag", "pan"),
                ("wheel", "zoom"),
                ("W A S D, E Q", "fly (Shift: faster)"),
            ] {
                ui.monospace(keys);
                ui.label(what);
                ui.end_row();
            }
        });
    });
}

/// The window asking what to do with unsaved changes when the user closes the editor: save,
/// discard, or stay. Saving or discarding approves the close and closes the window.
pub fn close_window(ctx: &egui::Context, state: &mut EditorState) {
    if !state.doc.session.confirm_close {
        return;
    }
    let mut choice = None;
    egui::Modal::new(egui::Id::unique("close with unsaved changes")).show(ctx, |ui| {
        ui.heading("Unsaved changes");
        ui.label(format!("Save the changes to {} before closing?", state.doc.scene_name));
        ui.horizontal(|ui| {
            if ui.button("Save").clicked() {
                choice = Some(CloseAnswer::Save);
            }
            if ui.button("Don't save").clicked() {
                choice = Some(CloseAnswer::Discard);
            }
            if ui.button("Cancel").clicked() {
                choice = Some(CloseAnswer::Cancel);
            }
        });
    });
    if let Some(answer) = choice
        && files::answer_close(state, answer)
    {
        ctx.send_viewport_cmd(egui::ViewportCommand::Close);
    }
}

/// The offer, at start, to restore the unsaved work an earlier session left in the recovery
/// file.
pub fn recovery_window(ctx: &egui::Context, state: &mut EditorState) {
    let Some(offer) = state.doc.session.autosave.offer.clone() else { return };
    let mut choice = None;
    egui::Modal::new(egui::Id::unique("restore unsaved work")).show(ctx, |ui| {
        ui.heading("Unsaved work found");
        let source = offer.source.as_ref().map_or("a new scene".to_string(), |p| p.display().to_string());
        ui.label(format!(
            "Atoll closed with unsaved changes to {source}, autosaved {}.",
            super::autosave::ago(offer.written)
        ));
        ui.horizontal(|ui| {
            if ui.button("Restore").clicked() {
                choice = Some(true);
            }
            if ui.button("Discard").clicked() {
                choice = Some(false);
            }
        });
    });
    match choice {
        Some(true) => files::restore_recovery(state),
        Some(false) => state.doc.session.autosave.discard(),
        None => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_registry_lists_each_panel_once_and_finds_them_by_type() {
        let mut panels = PanelState::default();
        let names: Vec<&str> = panels.list.iter().map(|p| p.name()).collect();
        let distinct: std::collections::BTreeSet<&&str> = names.iter().collect();
        assert_eq!(distinct.len(), names.len(), "{names:?}");
        let left: Vec<&str> =
            panels.list.iter().filter(|p| p.dock() == Dock::Left).map(|p| p.name()).collect();
        assert_eq!(left, ["Spawn", "Joints tool", "Queries", "Scene"]);
        assert!(panels.find::<islands::IslandsPanel>().is_some());
        panels.find_mut::<spawn::SpawnPanel>().unwrap().open_generator();
        assert!(panels.find::<spawn::SpawnPanel>().unwrap().generator.is_some());
    }
}
