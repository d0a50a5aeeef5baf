//! The keyboard shortcuts: one table that the handler, the menus and the Help window share, so
//! what a menu shows is what the key does.

use super::files;
use super::notices::NoticePlace;
use super::path_choice::PathPurpose;
use super::state::EditorState;
use super::tools::{ToolKind, Tools};
use egui::{Key, KeyboardShortcut, Modifiers};

/// What a shortcut does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// Start or stop the simulation.
    PlayPause,
    /// One step.
    Step,
    /// Ten steps.
    StepTen,
    /// One step back along the timeline.
    StepBack,
    /// Ten steps back along the timeline.
    StepBackTen,
    /// Back to the edited state.
    Reset,
    /// Frame the selection.
    Frame,
    /// Take back the last edit.
    Undo,
    /// Do the last undone edit again.
    Redo,
    /// Delete the selection.
    Delete,
    /// Turn the Joint tool on or off.
    JointTool,
    /// Turn the Query tool on or off.
    QueryTool,
    /// Duplicate the selection.
    Duplicate,
    /// Make the selected bodies one compound body.
    Combine,
    /// Take the selected compound bodies apart, one body per shape.
    Split,
    /// Copy the selection.
    Copy,
    /// Paste the clipboard.
    Paste,
    /// Select every body.
    SelectAll,
    /// Select the island of the selected body.
    SelectIsland,
    /// Clear the selection and leave the spawn and paint tools.
    Escape,
    /// Save the scene.
    Save,
    /// Save the scene under a new name.
    SaveAs,
    /// The spawn tool on or off.
    SpawnTool,
    /// Show or hide the Help window.
    Help,
}

/// Every shortcut, in the order the Help window lists them; a command may have two keys. The
/// more specific combination of the same key comes first (Ctrl+Shift+Z before Ctrl+Z), since
/// egui matches a shortcut whatever extra Shift is held.
pub const SHORTCUTS: [(Command, KeyboardShortcut, &str); 30] = [
    (Command::Redo, KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::Z), "redo"),
    (Command::Redo, KeyboardShortcut::new(Modifiers::COMMAND, Key::Y), "redo"),
    (Command::Undo, KeyboardShortcut::new(Modifiers::COMMAND, Key::Z), "undo"),
    (Command::SaveAs, KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::S), "save as"),
    (Command::Save, KeyboardShortcut::new(Modifiers::COMMAND, Key::S), "save"),
    (Command::Duplicate, KeyboardShortcut::new(Modifiers::COMMAND, Key::D), "duplicate the selection"),
    (
        Command::Split,
        KeyboardShortcut::new(Modifiers::COMMAND.plus(Modifiers::SHIFT), Key::G),
        "split a compound body into its shapes",
    ),
    (
        Command::Combine,
        KeyboardShortcut::new(Modifiers::COMMAND, Key::G),
        "combine the selection into one body",
    ),
    (Command::Copy, KeyboardShortcut::new(Modifiers::COMMAND, Key::C), "copy the selection"),
    (Command::Paste, KeyboardShortcut::new(Modifiers::COMMAND, Key::V), "paste beside the copied bodies"),
    (Command::SelectAll, KeyboardShortcut::new(Modifiers::COMMAND, Key::A), "select every body"),
    (
        Command::SelectIsland,
        KeyboardShortcut::new(Modifiers::NONE, Key::I),
        "select the selected body's island",
    ),
    (Command::Delete, KeyboardShortcut::new(Modifiers::NONE, Key::Delete), "delete the selection"),
    (Command::Delete, KeyboardShortcut::new(Modifiers::NONE, Key::Backspace), "delete the selection"),
    (
        Command::Escape,
        KeyboardShortcut::new(Modifiers::NONE, Key::Escape),
        "clear the selection, leave the tool",
    ),
    (Command::SpawnTool, KeyboardShortcut::new(Modifiers::NONE, Key::B), "spawn tool on or off"),
    (Command::JointTool, KeyboardShortcut::new(Modifiers::NONE, Key::J), "joint tool on or off"),
    (Command::QueryTool, KeyboardShortcut::new(Modifiers::NONE, Key::K), "query tool on or off"),
    (Command::PlayPause, KeyboardShortcut::new(Modifiers::NONE, Key::Space), "play or pause"),
    (Command::StepTen, KeyboardShortcut::new(Modifiers::SHIFT, Key::Period), "ten steps"),
    (Command::StepTen, KeyboardShortcut::new(Modifiers::SHIFT, Key::ArrowRight), "ten steps"),
    (Command::StepBackTen, KeyboardShortcut::new(Modifiers::SHIFT, Key::Comma), "ten steps back"),
    (Command::StepBackTen, KeyboardShortcut::new(Modifiers::SHIFT, Key::ArrowLeft), "ten steps back"),
    (Command::StepBack, KeyboardShortcut::new(Modifiers::NONE, Key::Comma), "one step back"),
    (Command::StepBack, KeyboardShortcut::new(Modifiers::NONE, Key::ArrowLeft), "one step back"),
    (Command::Step, KeyboardShortcut::new(Modifiers::NONE, Key::Period), "one step"),
    (Command::Step, KeyboardShortcut::new(Modifiers::NONE, Key::ArrowRight), "one step"),
    (Command::Reset, KeyboardShortcut::new(Modifiers::NONE, Key::R), "reset to the edited state"),
    (Command::Frame, KeyboardShortcut::new(Modifiers::NONE, Key::F), "frame the selection"),
    (Command::Help, KeyboardShortcut::new(Modifiers::NONE, Key::F1), "this help"),
];

/// The first key of `command`, as the menus show it ("Ctrl+Z").
pub fn text(ctx: &egui::Context, command: Command) -> String {
    SHORTCUTS
        .iter()
        .find(|(c, _, _)| *c == command)
        .map(|(_, s, _)| ctx.format_shortcut(s))
        .unwrap_or_default()
}

/// Applies the shortcuts pressed this frame. They are consumed before widgets run, so a focused
/// button never sees the same Space press; while a text field has focus they are left to it.
pub fn handle(ctx: &egui::Context, state: &mut EditorState, tools: &mut Tools, help_open: &mut bool) {
    if ctx.egui_wants_keyboard_input() {
        return;
    }
    let pressed: Vec<Command> = ctx.input_mut(|i| {
        SHORTCUTS.iter().filter(|(_, shortcut, _)| i.consume_shortcut(shortcut)).map(|(c, _, _)| *c).collect()
    });
    for command in pressed {
        run(state, tools, command, help_open);
    }
}

/// Carries out `command` (from a key or a menu).
pub fn run(state: &mut EditorState, tools: &mut Tools, command: Command, help_open: &mut bool) {
    let result = match command {
        Command::Delete => state.delete_selection(),
        Command::Duplicate => state.duplicate_selection(),
        Command::Combine => state.combine_selection(),
        Command::Split => state.split_selection(),
        Command::Copy => state.copy_selection().map(drop),
        Command::Paste => state.paste(),
        Command::Save => match files::save(state) {
            Ok(true) => Ok(()),
            Ok(false) => {
                files::choose_path(state, PathPurpose::SaveAs);
                Ok(())
            }
            Err(e) => Err(e),
        },
        _ => {
            run_infallible(state, tools, command, help_open);
            Ok(())
        }
    };
    if let Err(e) = result {
        state.diag.notices.report(NoticePlace::ErrorWindow, e);
    }
}

/// The commands that cannot fail.
fn run_infallible(state: &mut EditorState, tools: &mut Tools, command: Command, help_open: &mut bool) {
    match command {
        Command::PlayPause => state.toggle_play(),
        Command::Step => state.step_once(),
        Command::StepTen => state.step_many(10),
        Command::StepBack => state.step_back(1),
        Command::StepBackTen => state.step_back(10),
        Command::Reset => state.reset(),
        Command::Frame => state.frame_selection(),
        Command::Undo => drop(state.undo()),
        Command::Redo => drop(state.redo()),
        Command::SelectAll => state.select_all(),
        Command::SelectIsland => state.select_island_of_selection(),
        Command::Escape => {
            // A half-made joint is cancelled first; the next Esc leaves the tool.
            if tools.escape(state) {
                return;
            }
            state.doc.selection.set(None);
        }
        Command::SaveAs => files::choose_path(state, PathPurpose::SaveAs),
        Command::SpawnTool => tools.toggle(ToolKind::Spawn, state),
        Command::JointTool => tools.toggle(ToolKind::Joint, state),
        Command::QueryTool => tools.toggle(ToolKind::Query, state),
        Command::Help => *help_open = !*help_open,
        Command::Delete
        | Command::Duplicate
        | Command::Combine
        | Command::Split
        | Command::Copy
        | Command::Paste
        | Command::Save => {}
    }
}
