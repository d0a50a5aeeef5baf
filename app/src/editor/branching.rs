//! The timeline's branches as the editor holds them: the engine's `Branches` (worlds forked at
//! a step, parked beside the live one, compared with it every step), the undo steps and edited
//! state of the parked branches (an edit belongs to the branch it was made in), whether the compared
//! branch's bodies are drawn as ghosts, and what the last branch command said.
//!
//! The commands that fork, switch, compare and drop branches change the world, the timeline
//! and the document at once, so they are the state's (`branch_commands.rs`).

use super::undo::UndoStack;
use atoll_physics::{BranchId, Branches, HistorySettings, Snapshot};
use std::collections::BTreeMap;

/// The name of the branch a scene starts with.
pub const FIRST_BRANCH: &str = "main";

/// What the document keeps of a branch while another is shown.
pub(super) struct ParkedDoc {
    /// Its undo steps.
    pub undo: UndoStack,
    /// Its edited state.
    pub edited: Snapshot,
}

/// The branches of the timeline and how they are shown.
pub struct Branching {
    /// The branches (the active one's world and history are the simulation's own).
    pub branches: Branches,
    /// The document's part of each parked branch: its undo steps and its edited state (what
    /// Reset returns to and Save writes), by branch.
    pub(super) parked_docs: BTreeMap<BranchId, ParkedDoc>,
    /// Whether the compared branch's bodies that stand apart from the live ones are drawn, as
    /// translucent ghosts.
    pub ghosts: bool,
    /// What the last branch command did, for the Branches panel.
    pub note: Option<String>,
    /// An edit made at a step in the past keeps the recorded steps after it as a branch
    /// (compared, so drawn as ghosts) rather than discarding them.
    pub keep_discarded: bool,
}

impl Branching {
    /// The one branch of a new timeline, whose branches share `budget`.
    pub fn new(budget: HistorySettings) -> Branching {
        Branching {
            branches: Branches::new(FIRST_BRANCH, budget).expect("the first branch's name is valid"),
            parked_docs: BTreeMap::new(),
            ghosts: true,
            note: None,
            keep_discarded: true,
        }
    }
}
