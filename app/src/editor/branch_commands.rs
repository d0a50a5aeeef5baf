//! The branch commands: fork the timeline at the step shown, switch to another branch, choose
//! the branch compared, rename and drop one, and bring the parked branches along after every
//! step and move along the timeline (`EditorState::follow_branches`). Each needs the world,
//! the timeline and the document at once, so they are the state's; what they work on is
//! `branching.rs`.

use super::body_history::BodyHistory;
use super::branching::ParkedDoc;
use super::notices::NoticePlace;
use super::state::EditorState;
use atoll_physics::BranchId;

impl EditorState {
    /// Forks a branch named `name` at the step shown and switches to it, so the next change
    /// (a setting, a body's property, an edit) goes to the branch while the branch it came
    /// from goes on beside it, compared and drawn as ghosts.
    pub fn fork_branch(&mut self, name: &str) -> Result<BranchId, String> {
        self.pause_for_branches();
        let from = self.sim.branching.branches.active().name.clone();
        let id = (self.sim.branching.branches)
            .fork(&self.sim.world, &mut self.sim.timeline.history, name)
            .map_err(|e| e.to_string())?;
        self.switch_branch(id)?;
        // The branch it came from is the one to compare with.
        let parent = self.sim.branching.branches.infos().iter().find(|i| i.name == from).map(|i| i.id);
        self.sim.branching.branches.compare_with(parent).map_err(|e| e.to_string())?;
        self.follow_branches();
        let step = self.sim.world.step_count();
        let name = &self.sim.branching.branches.active().name;
        self.sim.branching.note =
            Some(format!("forked {name:?} at step {step}: changes now go to it; {from:?} goes on beside it"));
        Ok(id)
    }

    /// Makes branch `id` the one shown and edited: its world and timeline become the live ones
    /// (the one shown until now is parked, at the same step), with its own undo steps. The
    /// panels' traces start again, being of the other world.
    pub fn switch_branch(&mut self, id: BranchId) -> Result<(), String> {
        self.pause_for_branches();
        let was = self.sim.branching.branches.active().id;
        // What the panels traced stops with them: a parked branch steps at full speed.
        let world = &mut self.sim.world;
        let _ = (world.set_traced_contacts(&[]), world.set_traced_joints(&[]), world.set_traced_island(None));
        (self.sim.branching.branches)
            .switch(id, &mut self.sim.world, &mut self.sim.timeline.history)
            .map_err(|e| e.to_string())?;
        // The document's part of each branch: a branch shown for the first time starts with no
        // undo steps and the edited state of the one it was forked from.
        let incoming = self
            .sim
            .branching
            .parked_docs
            .remove(&id)
            .unwrap_or_else(|| ParkedDoc { undo: Default::default(), edited: self.doc.edited.clone() });
        let outgoing = ParkedDoc {
            undo: std::mem::replace(&mut self.doc.undo, incoming.undo),
            edited: std::mem::replace(&mut self.doc.edited, incoming.edited),
        };
        self.sim.branching.parked_docs.insert(was, outgoing);
        // The samples of the world shown, from where it is now.
        self.sim.timeline.bodies = BodyHistory::default();
        self.sim.timeline.bodies.record(&self.sim.world, self.sim.timeline.history.settings().window);
        self.diag.joint_trace = Default::default();
        self.diag.contact_watch = Default::default();
        self.diag.island_energy = Default::default();
        self.doc.entities.follow(&self.sim.world);
        self.follow_branches();
        let name = &self.sim.branching.branches.active().name;
        self.sim.branching.note = Some(format!("showing {name:?} at step {}", self.sim.world.step_count()));
        Ok(())
    }

    /// Compares the branch shown with `id` (`None`: with none).
    pub fn compare_branch(&mut self, id: Option<BranchId>) -> Result<(), String> {
        self.sim.branching.branches.compare_with(id).map_err(|e| e.to_string())?;
        self.follow_branches();
        Ok(())
    }

    /// Renames branch `id`.
    pub fn rename_branch(&mut self, id: BranchId, name: &str) -> Result<(), String> {
        self.sim.branching.branches.rename(id, name).map_err(|e| e.to_string())
    }

    /// Drops parked branch `id` with its world, timeline and undo steps.
    pub fn drop_branch(&mut self, id: BranchId) -> Result<(), String> {
        let dropped = (self.sim.branching.branches)
            .drop_branch(id, &mut self.sim.timeline.history)
            .map_err(|e| e.to_string())?;
        self.sim.branching.parked_docs.remove(&id);
        self.sim.branching.note = Some(format!("dropped {:?}", dropped.name));
        Ok(())
    }

    /// Brings the parked branches to the step shown and compares the compared one with it:
    /// called after every step, edit and move along the timeline.
    pub(super) fn follow_branches(&mut self) {
        if self.sim.branching.branches.is_empty() {
            return;
        }
        if let Err(e) = self.sim.branching.branches.follow(&self.sim.world, &mut self.sim.timeline.history) {
            self.diag.notices.report(NoticePlace::ErrorWindow, format!("a branch could not follow: {e}"));
        }
    }

    /// Before an edit at a step in the past is recorded (which discards the recorded steps
    /// after it): those steps kept as a branch, when `keep_discarded` is on and there is room.
    pub(super) fn keep_future_before_edit(&mut self) -> Option<(BranchId, Option<BranchId>)> {
        let step = self.sim.world.step_count();
        let (_, last) = self.sim.timeline.range();
        if !self.sim.branching.keep_discarded || last <= step {
            return None;
        }
        let infos = self.sim.branching.branches.infos();
        let base = format!("before the edit at step {step}");
        let name = (1..)
            .map(|k| if k == 1 { base.clone() } else { format!("{base} ({k})") })
            .find(|n| infos.iter().all(|i| &i.name != n))
            .expect("a free name");
        let compared = self.sim.branching.branches.compared().map(|c| c.id);
        let kept =
            self.sim.branching.branches.keep_future(&self.sim.world, &self.sim.timeline.history, &name);
        match kept {
            Ok(id) => Some((id, compared)),
            Err(e) => {
                self.sim.branching.note = Some(format!("the steps after {step} were not kept: {e}"));
                None
            }
        }
    }

    /// After the edit was recorded: the branch kept before it stays when the edit discarded
    /// steps (and says so), and goes when it discarded none.
    pub(super) fn kept_future(&mut self, kept: Option<(BranchId, Option<BranchId>)>, discarded: u64) {
        let Some((id, compared)) = kept else { return };
        if discarded == 0 {
            // Nothing was discarded: the copy goes, and the comparison is the one before.
            let branches = &mut self.sim.branching.branches;
            let _ = branches.drop_branch(id, &mut self.sim.timeline.history);
            let _ = branches.compare_with(compared);
            return;
        }
        let name = self.sim.branching.branches.infos().iter().find(|i| i.id == id).map(|i| i.name.clone());
        let note = format!(
            "the {discarded} recorded steps after the edit are kept as the branch {:?}, drawn as ghosts",
            name.unwrap_or_default()
        );
        self.sim.timeline.note = Some(note.clone());
        self.sim.branching.note = Some(note);
    }

    /// A branch command works on a still world: playing, a grab, a scrub and a replay stop.
    fn pause_for_branches(&mut self) {
        self.sim.playing = false;
        self.sim.grab = None;
        self.sim.timeline.scrub_target = None;
        self.end_replay("the branch changed");
        self.keep_edited_state();
    }
}
