//! The undo history: edits done and undone, as deltas, with a memory budget.

use super::edit::Edit;

/// Most bytes the history may hold; the oldest edits are forgotten beyond it. A thousand edits
/// of single bodies hold about 0.5 MB (measured with a counting allocator by
/// `app/tests/undo_memory.rs`), so this only bites on huge multi-body edits and long strokes.
pub const UNDO_BUDGET_BYTES: usize = 64 << 20;

/// Identifies a continuing gesture (a field being dragged, a gizmo handle held): edits pushed
/// with the same key while the gesture lasts merge into one undo step.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct MergeKey(pub u64);

/// One undo step.
#[derive(Clone, Debug)]
pub struct UndoEntry {
    /// What the step says in the Edit menu ("move 2 bodies").
    pub label: String,
    /// The change itself.
    pub edit: Edit,
    /// The gesture it belongs to, while that gesture goes on.
    merge: Option<MergeKey>,
}

/// Edits done (undoable) and undone (redoable), newest last.
#[derive(Clone, Debug, Default)]
pub struct UndoStack {
    done: Vec<UndoEntry>,
    undone: Vec<UndoEntry>,
    bytes: usize,
}

impl UndoStack {
    /// Records an edit that was just applied. A new edit clears what was undone. When `merge`
    /// names the gesture the newest step belongs to, the two become one step: the newest keeps
    /// its "before" and takes this one's "after".
    pub fn push(&mut self, label: impl Into<String>, mut edit: Edit, merge: Option<MergeKey>) {
        self.undone.clear();
        edit.shrink_to_fit();
        if let Some(key) = merge
            && let Some(top) = self.done.last_mut()
            && top.merge == Some(key)
            && let Some(merged) = merged(&top.edit, &edit)
        {
            self.bytes = self.bytes - top.edit.bytes() + merged.bytes();
            top.edit = merged;
            return;
        }
        self.bytes += edit.bytes();
        self.done.push(UndoEntry { label: label.into(), edit, merge });
        while self.bytes > UNDO_BUDGET_BYTES && self.done.len() > 1 {
            let oldest = self.done.remove(0);
            self.bytes -= oldest.edit.bytes();
        }
    }

    /// Ends the gesture of the newest step: the next edit starts a step of its own.
    pub fn seal(&mut self) {
        if let Some(top) = self.done.last_mut() {
            top.merge = None;
        }
    }

    /// Takes the newest step off for undoing; the caller applies its inverse and hands it back
    /// with [`UndoStack::undone`].
    pub fn pop_undo(&mut self) -> Option<UndoEntry> {
        let entry = self.done.pop()?;
        self.bytes -= entry.edit.bytes();
        Some(entry)
    }

    /// Files a step whose inverse was applied, for redo.
    pub fn undone(&mut self, mut entry: UndoEntry) {
        entry.merge = None;
        self.bytes += entry.edit.bytes();
        self.undone.push(entry);
    }

    /// Takes the newest undone step off for redoing; the caller applies it and hands it back
    /// with [`UndoStack::redone`].
    pub fn pop_redo(&mut self) -> Option<UndoEntry> {
        let entry = self.undone.pop()?;
        self.bytes -= entry.edit.bytes();
        Some(entry)
    }

    /// Files a step that was redone, for undo again (what remains undone stays redoable).
    pub fn redone(&mut self, entry: UndoEntry) {
        self.bytes += entry.edit.bytes();
        self.done.push(entry);
    }

    /// The label of the step Undo would take back.
    pub fn undo_label(&self) -> Option<&str> {
        self.done.last().map(|e| e.label.as_str())
    }

    /// The label of the step Redo would do again.
    pub fn redo_label(&self) -> Option<&str> {
        self.undone.last().map(|e| e.label.as_str())
    }

    /// Steps that can be undone.
    pub fn undo_len(&self) -> usize {
        self.done.len()
    }

    /// Steps that can be redone.
    pub fn redo_len(&self) -> usize {
        self.undone.len()
    }

    /// Bytes the history holds (edits and their heap data).
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// Forgets everything (a new scene was opened).
    pub fn clear(&mut self) {
        *self = UndoStack::default();
    }
}

/// One edit doing what `first` then `second` do, when both change the same bodies or the same
/// settings (the shape of a continuing gesture); `None` otherwise.
fn merged(first: &Edit, second: &Edit) -> Option<Edit> {
    match (first, second) {
        (Edit::Change(a), Edit::Change(b))
            if a.len() == b.len() && a.iter().zip(b).all(|((x, _), (y, _))| x.key == y.key) =>
        {
            Some(Edit::Change(
                a.iter().zip(b).map(|((before, _), (_, after))| (before.clone(), after.clone())).collect(),
            ))
        }
        (Edit::ChangeJoints(a), Edit::ChangeJoints(b))
            if a.len() == b.len() && a.iter().zip(b).all(|((x, _), (y, _))| x.key == y.key) =>
        {
            Some(Edit::ChangeJoints(
                a.iter().zip(b).map(|((before, _), (_, after))| (before.clone(), after.clone())).collect(),
            ))
        }
        (Edit::Settings { before, .. }, Edit::Settings { after, .. }) => {
            Some(Edit::Settings { before: *before, after: *after })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::editor::edit::BodyRecord;
    use crate::editor::entities::Entities;
    use atoll_physics::{BodyType, SceneBody, SceneShape, StepSettings, Vec3};

    fn moved(entities: &mut Entities, x: f32) -> Edit {
        let key = entities.fresh_key();
        let body =
            SceneBody::new(BodyType::Dynamic, SceneShape::Box { half_extents: Vec3::splat(0.5) }, Vec3::ZERO);
        let before = BodyRecord { key, body: body.clone() };
        let after = BodyRecord { key, body: SceneBody { position: Vec3::new(x, 0.0, 0.0), ..body } };
        Edit::Change(vec![(before, after)])
    }

    #[test]
    fn undo_redo_and_a_new_edit_clears_the_redo_steps() {
        let mut stack = UndoStack::default();
        let mut entities = Entities::default();
        for i in 0..3 {
            stack.push(format!("move {i}"), moved(&mut entities, i as f32), None);
        }
        let entry = stack.pop_undo().unwrap();
        assert_eq!(entry.label, "move 2");
        stack.undone(entry);
        assert_eq!((stack.undo_len(), stack.redo_len()), (2, 1));
        assert_eq!(stack.redo_label(), Some("move 2"));
        let entry = stack.pop_redo().unwrap();
        stack.redone(entry);
        assert_eq!((stack.undo_len(), stack.redo_len()), (3, 0));
        let entry = stack.pop_undo().unwrap();
        stack.undone(entry);
        stack.push(
            "settings",
            Edit::Settings { before: StepSettings::default(), after: StepSettings::default() },
            None,
        );
        assert_eq!((stack.undo_len(), stack.redo_len()), (3, 0));
    }

    #[test]
    fn a_gesture_merges_into_one_step_until_sealed() {
        let mut stack = UndoStack::default();
        let mut entities = Entities::default();
        let first = moved(&mut entities, 1.0);
        let Edit::Change(pairs) = &first else { unreachable!() };
        let key = pairs[0].0.key;
        let again = |x: f32| {
            let mut pair = pairs[0].clone();
            pair.0.body.position = Vec3::new(x - 1.0, 0.0, 0.0);
            pair.1.body.position = Vec3::new(x, 0.0, 0.0);
            assert_eq!(pair.0.key, key);
            Edit::Change(vec![pair])
        };
        let drag = Some(MergeKey(7));
        stack.push("move", first.clone(), drag);
        stack.push("move", again(2.0), drag);
        stack.push("move", again(3.0), drag);
        assert_eq!(stack.undo_len(), 1);
        let Edit::Change(merged) = &stack.done[0].edit else { unreachable!() };
        assert_eq!(merged[0].0.body.position, Vec3::ZERO, "the first before stays");
        assert_eq!(merged[0].1.body.position, Vec3::new(3.0, 0.0, 0.0), "the last after wins");
        stack.seal();
        stack.push("move", again(4.0), drag);
        assert_eq!(stack.undo_len(), 2);
    }

    #[test]
    fn a_thousand_edits_stay_within_the_budget() {
        let mut stack = UndoStack::default();
        let mut entities = Entities::default();
        for i in 0..1000 {
            stack.push("move", moved(&mut entities, i as f32), None);
        }
        assert_eq!(stack.undo_len(), 1000);
        let per_edit = stack.bytes() / 1000;
        eprintln!("1000 single-body edits: {} bytes ({per_edit} per edit)", stack.bytes());
        assert!(stack.bytes() < 1 << 20, "{} bytes for 1000 moves", stack.bytes());
    }
}
