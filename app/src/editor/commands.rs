//! The edits a user makes, as operations on the editor state: each becomes one [`Edit`] that is
//! applied to the world and recorded for undo. A refused edit changes nothing and says why.

use super::clipboard::Clipboard;
use super::edit::{BodyRecord, Edit, JointRecord, bodies_text};
use super::notices::NoticePlace;
use super::state::EditorState;
use super::undo::MergeKey;
use atoll_physics::{BodyId, JointId, SceneBody, Vec3};

/// "1 joint", "3 joints".
pub fn joints_text(n: usize) -> String {
    if n == 1 { "1 joint".to_string() } else { format!("{n} joints") }
}

impl EditorState {
    /// Applies `edit` to the world and records it for undo under `label` (merged into the
    /// newest step while the gesture `merge` goes on). The bodies it creates or changes become
    /// the selection when it creates any. On refusal nothing changes and the reason is returned.
    pub fn commit(&mut self, label: &str, edit: Edit, merge: Option<MergeKey>) -> Result<(), String> {
        let applied = edit.apply(&mut self.sim.world, &mut self.doc.entities)?;
        self.note_terrain_redraw(applied.terrain);
        if edit.adds_bodies() {
            self.doc.selection.set_many(applied.bodies);
        }
        self.doc.undo.push(label, edit, merge);
        self.mark_edited();
        Ok(())
    }

    /// Takes back the newest edit. Returns its label, or `None` when there is nothing to undo.
    pub fn undo(&mut self) -> Option<String> {
        let entry = self.doc.undo.pop_undo()?;
        self.replay(entry, true)
    }

    /// Does the newest undone edit again. Returns its label, or `None` when there is nothing to
    /// redo.
    pub fn redo(&mut self) -> Option<String> {
        let entry = self.doc.undo.pop_redo()?;
        self.replay(entry, false)
    }

    /// Applies an undo step backwards (undo) or forwards (redo) and files it on the other side
    /// of the history; on failure it goes back where it was and the error is shown.
    fn replay(&mut self, entry: super::undo::UndoEntry, backwards: bool) -> Option<String> {
        let edit = if backwards { entry.edit.inverse() } else { entry.edit.clone() };
        let done_side = |stack: &mut super::undo::UndoStack, entry, undone: bool| {
            if undone { stack.undone(entry) } else { stack.redone(entry) }
        };
        match edit.apply(&mut self.sim.world, &mut self.doc.entities) {
            Ok(applied) => {
                self.note_terrain_redraw(applied.terrain);
                self.select_after_history(&edit, applied.bodies, applied.joints);
                let label = entry.label.clone();
                done_side(&mut self.doc.undo, entry, backwards);
                self.mark_edited();
                Some(label)
            }
            Err(e) => {
                let verb = if backwards { "undo" } else { "redo" };
                let message = format!("could not {verb} {}: {e}", entry.label);
                self.diag.notices.report(NoticePlace::ErrorWindow, message);
                done_side(&mut self.doc.undo, entry, !backwards);
                None
            }
        }
    }

    /// After an undo or redo the bodies it brought back or changed are selected (or the joint,
    /// when it touched one joint and no body), so the user sees what changed; what it removed
    /// leaves the selection by itself.
    fn select_after_history(&mut self, applied: &Edit, bodies: Vec<BodyId>, joints: Vec<JointId>) {
        if applied.only_removes() || matches!(applied, Edit::Settings { .. } | Edit::Terrain { .. }) {
            self.doc.selection.retain_live(&self.sim.world);
        } else if bodies.is_empty() && joints.len() == 1 {
            self.doc.selection.set_joint(joints.first().copied());
        } else {
            self.doc.selection.set_many(bodies);
        }
    }

    /// Hands a terrain change to the viewport, which redraws the chunks it touched.
    fn note_terrain_redraw(&mut self, change: Option<(u64, u64, Vec<atoll_physics::terrain::ChunkCoord>)>) {
        if let Some(change) = change {
            self.view.terrain_edits.push(change);
        }
    }

    /// Records a terrain stroke the brush has already applied, as one undo step.
    pub fn record_stroke(&mut self, stroke: super::tools::terrain::Stroke) {
        let mut added = Vec::new();
        for id in stroke.detached {
            if let Ok(record) = BodyRecord::capture(&self.sim.world, &mut self.doc.entities, id) {
                added.push(record);
            }
        }
        if stroke.voxels.is_empty() && added.is_empty() {
            return;
        }
        let label = format!("terrain stroke ({} dabs)", stroke.dabs);
        self.doc.undo.push(label, Edit::Terrain { voxels: stroke.voxels, added, removed: Vec::new() }, None);
        self.mark_edited();
    }

    /// The selected bodies' ids, in slot order.
    fn selected_ids(&self) -> Vec<BodyId> {
        let mut ids = self.doc.selection.ids().to_vec();
        ids.sort_by_key(|id| id.index());
        ids
    }

    /// The selected bodies as records, in slot order.
    pub(crate) fn selected_records(&mut self) -> Result<Vec<BodyRecord>, String> {
        let ids = self.selected_ids();
        ids.iter().map(|id| BodyRecord::capture(&self.sim.world, &mut self.doc.entities, *id)).collect()
    }

    /// The joints of the selected bodies as records, in joint order, each once.
    fn selected_bodies_joints(&mut self) -> Result<Vec<JointRecord>, String> {
        let mut joints = Vec::new();
        for id in self.selected_ids() {
            joints.extend(self.sim.world.body_joints(id).map_err(|e| e.to_string())?);
        }
        joints.sort_by_key(|j| j.index());
        joints.dedup();
        joints.iter().map(|&j| JointRecord::capture(&self.sim.world, &mut self.doc.entities, j)).collect()
    }

    /// Changes the selected joint with `change` (its parameters, frames, options or name) as
    /// one undo step, merged with the previous one under the same `merge` key (a dragged field).
    /// Refused values change nothing.
    pub fn change_selected_joint(
        &mut self,
        label: &str,
        merge: Option<MergeKey>,
        change: impl FnOnce(&mut JointRecord),
    ) -> Result<(), String> {
        let Some(id) = self.doc.selection.joint() else { return Ok(()) };
        let before = JointRecord::capture(&self.sim.world, &mut self.doc.entities, id)?;
        let mut after = before.clone();
        change(&mut after);
        if after == before {
            return Ok(());
        }
        self.commit(label, Edit::ChangeJoints(vec![(before, after)]), merge)?;
        // Changed in place: the joint keeps its id and stays selected.
        self.doc.selection.set_joint(Some(id));
        Ok(())
    }

    /// Deletes the selected joint (one undo step).
    fn delete_selected_joint(&mut self, id: JointId) -> Result<(), String> {
        let record = JointRecord::capture(&self.sim.world, &mut self.doc.entities, id)?;
        self.commit("delete 1 joint", Edit::RemoveJoints(vec![record]), None)?;
        self.doc.selection.set_joint(None);
        Ok(())
    }

    /// Deletes the selected bodies with their joints (one undo step, which brings both back),
    /// or the selected joint.
    pub fn delete_selection(&mut self) -> Result<(), String> {
        if let Some(joint) = self.doc.selection.joint() {
            return self.delete_selected_joint(joint);
        }
        let records = self.selected_records()?;
        if records.is_empty() {
            return Ok(());
        }
        let joints = self.selected_bodies_joints()?;
        let mut label = format!("delete {}", bodies_text(records.len()));
        let edit = if joints.is_empty() {
            Edit::Remove(records)
        } else {
            label += &format!(" and {}", joints_text(joints.len()));
            Edit::Group(vec![Edit::RemoveJoints(joints), Edit::Remove(records)])
        };
        self.commit(&label, edit, None)
    }

    /// Copies the selected bodies, and the joints among them, to the clipboard.
    pub fn copy_selection(&mut self) -> Result<usize, String> {
        let records = self.selected_records()?;
        self.doc.clipboard =
            Clipboard::copy(&self.sim.world, &self.doc.entities, records, &self.selected_ids());
        Ok(self.doc.clipboard.bodies.len())
    }

    /// Adds a copy of `copied` moved beside where it was (by the width of its bodies plus a
    /// little), selects the bodies, as one undo step. Returns the offset it was moved by.
    pub fn add_copies(&mut self, label: &str, copied: &Clipboard) -> Result<Vec3, String> {
        if copied.is_empty() {
            return Ok(Vec3::ZERO);
        }
        let (min, max) =
            copied.bodies.iter().fold((Vec3::splat(f32::MAX), Vec3::splat(f32::MIN)), |(lo, hi), b| {
                let r = b.shape.to_shape().map(|s| s.bounding_radius()).unwrap_or(0.5);
                (lo.min(b.position - Vec3::splat(r)), hi.max(b.position + Vec3::splat(r)))
            });
        let offset = Vec3::X * ((max.x - min.x) + 0.25);
        let (bodies, joints) = copied.moved(offset).records(&mut self.doc.entities);
        let edit = if joints.is_empty() {
            Edit::Add(bodies)
        } else {
            Edit::Group(vec![Edit::Add(bodies), Edit::AddJoints(joints)])
        };
        self.commit(label, edit, None)?;
        Ok(offset)
    }

    /// Pastes the clipboard beside where it was copied from.
    pub fn paste(&mut self) -> Result<(), String> {
        let copied = self.doc.clipboard.clone();
        let label = format!("paste {}", bodies_text(copied.bodies.len()));
        let offset = self.add_copies(&label, &copied)?;
        // A second paste goes beside the first.
        self.doc.clipboard = copied.moved(offset);
        Ok(())
    }

    /// Duplicates the selected bodies, and the joints among them, beside themselves; the copies
    /// become the selection.
    pub fn duplicate_selection(&mut self) -> Result<(), String> {
        let records = self.selected_records()?;
        let copied = Clipboard::copy(&self.sim.world, &self.doc.entities, records, &self.selected_ids());
        let label = format!("duplicate {}", bodies_text(copied.bodies.len()));
        self.add_copies(&label, &copied).map(|_| ())
    }

    /// Adds `joints` between bodies that exist, as one undo step.
    pub fn add_joints(&mut self, label: &str, joints: Vec<JointRecord>) -> Result<(), String> {
        self.commit(label, Edit::AddJoints(joints), None)
    }

    /// Adds `bodies` as they are, as one undo step, and selects them.
    pub fn add_bodies(&mut self, label: &str, bodies: Vec<SceneBody>) -> Result<(), String> {
        let records =
            bodies.into_iter().map(|body| BodyRecord { key: self.doc.entities.fresh_key(), body }).collect();
        self.commit(label, Edit::Add(records), None)
    }

    /// Changes every selected body with `change` (one undo step, merged while `merge` lasts).
    /// A change the engine refuses for any body changes none and returns the reason.
    pub fn change_selection(
        &mut self,
        label: &str,
        merge: Option<MergeKey>,
        mut change: impl FnMut(&mut SceneBody),
    ) -> Result<(), String> {
        let before = self.selected_records()?;
        let pairs: Vec<(BodyRecord, BodyRecord)> = before
            .into_iter()
            .map(|b| {
                let mut after = b.clone();
                change(&mut after.body);
                (b, after)
            })
            .filter(|(b, a)| b != a)
            .collect();
        if pairs.is_empty() {
            return Ok(());
        }
        self.commit(label, Edit::Change(pairs), merge)
    }

    /// Makes the simulated state the edited scene: every body that moved since the last edit
    /// keeps its current pose and velocities (one undo step, which puts them back).
    pub fn keep_simulated_state(&mut self) -> Result<(), String> {
        if !self.simulated_since_edit() {
            return Ok(());
        }
        // Simulated since the edit, so the edited state is the snapshot (borrowed, not copied).
        let edited = self.doc.edited.world();
        let ids: Vec<BodyId> = self.sim.world.body_ids().collect();
        let mut pairs = Vec::new();
        for id in ids {
            let Ok(before) = BodyRecord::capture(edited, &mut self.doc.entities, id) else { continue };
            let after = BodyRecord::capture(&self.sim.world, &mut self.doc.entities, id)?;
            if before != after {
                pairs.push((before, after));
            }
        }
        let label = format!("keep the simulated state of {}", bodies_text(pairs.len()));
        self.commit(&label, Edit::Change(pairs), None)
    }

    /// Selects every body of the primary selection's island.
    pub fn select_island_of_selection(&mut self) {
        let Some(id) = self.doc.selection.primary() else { return };
        if let Ok(Some(island)) = self.sim.world.body_island(id) {
            let mut bodies = self.sim.world.island_bodies(island).unwrap_or_default();
            bodies.retain(|b| *b != id);
            bodies.push(id);
            self.doc.selection.set_many(bodies);
        }
    }

    /// Selects every body.
    pub fn select_all(&mut self) {
        let ids: Vec<BodyId> = self.sim.world.body_ids().collect();
        self.doc.selection.set_many(ids);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atoll_physics::{BodyType, JointKind, RevoluteJoint, SceneShape};

    fn empty() -> EditorState {
        let mut state = EditorState::from_scene(&crate::builtin::tower(1), None).unwrap();
        super::super::files::new_scene(&mut state);
        state
    }

    fn ball(x: f32) -> SceneBody {
        SceneBody::new(BodyType::Dynamic, SceneShape::Sphere { radius: 0.5 }, Vec3::new(x, 0.5, 0.0))
    }

    #[test]
    fn spawn_change_delete_undo_redo() {
        let mut state = empty();
        let ground = state.sim.world.body_count();
        state.add_bodies("spawn", vec![ball(0.0)]).unwrap();
        state.add_bodies("spawn", vec![ball(2.0)]).unwrap();
        assert_eq!(state.sim.world.body_count(), ground + 2);
        assert!(state.doc.dirty);
        let second = state.selected().unwrap();
        state.change_selection("friction", None, |b| b.material.friction = 0.2).unwrap();
        assert_eq!(state.sim.world.body(second).unwrap().material.friction, 0.2);
        let refused =
            state.change_selection("radius", None, |b| b.shape = SceneShape::Sphere { radius: -1.0 });
        assert!(refused.unwrap_err().contains("radius"));
        assert_eq!(state.doc.undo.undo_len(), 3, "a refused change is not an undo step");
        state.delete_selection().unwrap();
        assert_eq!(state.sim.world.body_count(), ground + 1);
        assert_eq!(state.undo().as_deref(), Some("delete 1 body"));
        assert_eq!(state.sim.world.body_count(), ground + 2);
        let back = state.selected().unwrap();
        assert_eq!(back.index(), second.index(), "the body came back in its slot");
        assert_eq!(state.sim.world.body(back).unwrap().material.friction, 0.2);
        assert_eq!(state.undo().as_deref(), Some("friction"));
        assert_eq!(state.sim.world.body(back).unwrap().material.friction, 0.6);
        assert_eq!(state.redo().as_deref(), Some("friction"));
        assert_eq!(state.sim.world.body(back).unwrap().material.friction, 0.2);
    }

    #[test]
    fn copy_paste_and_duplicate_place_copies_beside() {
        let mut state = empty();
        state.add_bodies("spawn", vec![ball(0.0), ball(1.0)]).unwrap();
        assert_eq!(state.doc.selection.ids().len(), 2);
        assert_eq!(state.copy_selection().unwrap(), 2);
        state.paste().unwrap();
        state.paste().unwrap();
        let xs: Vec<f32> = state
            .doc
            .selection
            .ids()
            .iter()
            .map(|id| state.sim.world.transform(*id).unwrap().position.x)
            .collect();
        assert!(xs.iter().all(|x| *x > 4.0), "the second paste lies beyond the first: {xs:?}");
        state.duplicate_selection().unwrap();
        assert_eq!(state.sim.world.body_count(), 1 + 8);
        state.undo();
        assert_eq!(state.sim.world.body_count(), 1 + 6);
    }

    /// Two balls hinged together, the first also hinged to the world, named "hinge" and
    /// "anchor"; returns the balls.
    fn hinged_pair(state: &mut EditorState) -> (BodyId, BodyId) {
        state.add_bodies("spawn", vec![ball(0.0), ball(2.0)]).unwrap();
        let ids = state.selected_ids();
        let (a, b) = (ids[0], ids[1]);
        let (key_a, key_b) = (state.doc.entities.key(a), state.doc.entities.key(b));
        let hinge = JointKind::Revolute(RevoluteJoint::default());
        let between =
            state.sim.world.joint_desc_at(hinge, Some(a), b, Vec3::new(1.0, 0.5, 0.0), Vec3::Z).unwrap();
        let anchor =
            state.sim.world.joint_desc_at(hinge, None, a, Vec3::new(-1.0, 0.5, 0.0), Vec3::Z).unwrap();
        let record = |state: &mut EditorState, body_a, desc, name: &str| JointRecord {
            key: state.doc.entities.fresh_joint_key(),
            body_a,
            body_b: if body_a.is_some() { key_b } else { key_a },
            desc,
            name: name.to_string(),
        };
        let joints =
            vec![record(state, Some(key_a), between, "hinge"), record(state, None, anchor, "anchor")];
        state.add_joints("add 2 joints", joints).unwrap();
        (a, b)
    }

    /// Each joint's name and description (bodies as indices of the world's live bodies).
    fn joint_list(state: &EditorState) -> Vec<(String, Option<usize>, usize, JointKind)> {
        let bodies: Vec<BodyId> = state.sim.world.body_ids().collect();
        let index = |id: BodyId| bodies.iter().position(|&b| b == id).unwrap();
        state
            .sim
            .world
            .joint_ids()
            .map(|j| {
                let d = state.sim.world.joint_desc(j).unwrap();
                (state.doc.entities.joint_name_of(j), d.body_a.map(index), index(d.body_b), d.kind)
            })
            .collect()
    }

    #[test]
    fn deleting_a_body_deletes_its_joints_in_one_step_and_undo_brings_both_back() {
        let mut state = empty();
        let (a, _) = hinged_pair(&mut state);
        let joints = joint_list(&state);
        assert_eq!(joints.len(), 2);
        state.doc.selection.set(Some(a));
        state.delete_selection().unwrap();
        assert_eq!(state.sim.world.joint_count(), 0, "both joints of the deleted ball went with it");
        assert_eq!(state.undo().as_deref(), Some("delete 1 body and 2 joints"));
        assert_eq!(joint_list(&state), joints, "undo brings back the joints with their names");
        assert_eq!(state.redo().as_deref(), Some("delete 1 body and 2 joints"));
        assert_eq!(state.sim.world.joint_count(), 0);
        state.undo();
        assert_eq!(state.undo().as_deref(), Some("add 2 joints"));
        assert_eq!(state.sim.world.joint_count(), 0);
        assert_eq!(state.redo().as_deref(), Some("add 2 joints"));
        assert_eq!(joint_list(&state), joints);
    }

    #[test]
    fn a_selected_joint_is_changed_in_place_refused_when_wrong_and_deleted_as_one_step() {
        let mut state = empty();
        hinged_pair(&mut state);
        let joint = state.sim.world.joint_ids().next().unwrap();
        state.doc.selection.set_joint(Some(joint));
        let limit = |lower, upper| {
            move |r: &mut JointRecord| {
                r.desc.kind = JointKind::Revolute(RevoluteJoint {
                    limits: Some(atoll_physics::Limits::new(lower, upper)),
                    ..Default::default()
                })
            }
        };
        state.change_selected_joint("set limits", Some(MergeKey(7)), limit(-0.5, 0.5)).unwrap();
        state.change_selected_joint("set limits", Some(MergeKey(7)), limit(-0.25, 0.5)).unwrap();
        assert_eq!(state.doc.selection.joint(), Some(joint), "changed in place: the same id");
        let reason = state.change_selected_joint("set limits", None, limit(1.0, -1.0)).unwrap_err();
        assert!(reason.contains("above the upper"), "{reason}");
        let JointKind::Revolute(hinge) = state.sim.world.joint_desc(joint).unwrap().kind else { panic!() };
        assert_eq!(hinge.limits, Some(atoll_physics::Limits::new(-0.25, 0.5)));
        // The two drags of one field are one undo step, back to no limits.
        assert_eq!(state.undo().as_deref(), Some("set limits"));
        let JointKind::Revolute(hinge) = state.sim.world.joint_desc(joint).unwrap().kind else { panic!() };
        assert_eq!(hinge.limits, None);
        state.doc.selection.set_joint(Some(joint));
        state.delete_selection().unwrap();
        assert_eq!(state.sim.world.joint_count(), 1);
        assert_eq!(state.sim.world.body_count(), 1 + 2, "the bodies stay");
        assert_eq!(state.undo().as_deref(), Some("delete 1 joint"));
        assert_eq!(state.sim.world.joint_count(), 2);
        assert!(state.doc.selection.joint().is_some(), "undo selects the joint it brought back");
    }

    #[test]
    fn copying_jointed_bodies_pastes_their_joints() {
        let mut state = empty();
        let (a, b) = hinged_pair(&mut state);
        state.doc.selection.set_many([a, b]);
        assert_eq!(state.copy_selection().unwrap(), 2);
        assert_eq!(state.doc.clipboard.joints.len(), 2, "the hinge between them and the one to the world");
        state.paste().unwrap();
        assert_eq!(state.sim.world.joint_count(), 4);
        let pasted = state.selected_ids();
        for joint in state.sim.world.joint_ids().skip(2) {
            let view = state.sim.world.joint(joint).unwrap();
            assert!(pasted.contains(&view.body_b), "a pasted joint links the pasted bodies");
            let gap = (view.anchor_a - view.anchor_b).length();
            assert!(gap < 1e-4, "the pasted joint's anchors meet: {gap} m apart");
        }
        assert_eq!(state.undo().as_deref(), Some("paste 2 bodies"));
        assert_eq!(state.sim.world.joint_count(), 2);
        // Only one of the pair selected: the hinge between them stays behind.
        state.doc.selection.set(Some(b));
        state.copy_selection().unwrap();
        assert!(state.doc.clipboard.joints.is_empty());
    }

    #[test]
    fn moving_a_sleeping_body_while_playing_wakes_it() {
        let mut state = empty();
        state.add_bodies("spawn", vec![ball(0.0)]).unwrap();
        let id = state.selected().unwrap();
        state.toggle_play();
        for _ in 0..600 {
            state.advance(1.0 / 60.0);
        }
        assert!(!state.sim.world.is_awake(id).unwrap(), "the ball fell asleep on the ground");
        state.change_selection("move", None, |b| b.position.y += 2.0).unwrap();
        assert!(state.sim.world.is_awake(id).unwrap(), "moving it woke it");
        state.advance(1.0 / 60.0);
        assert!(state.sim.world.transform(id).unwrap().position.y < 2.5, "and it falls");
    }

    #[test]
    fn reset_returns_to_the_last_edit_not_the_load() {
        let mut state = empty();
        state.add_bodies("spawn", vec![ball(0.0)]).unwrap();
        let id = state.selected().unwrap();
        state.change_selection("lift", None, |b| b.position.y = 5.0).unwrap();
        state.step_many(30);
        assert!(state.sim.world.transform(id).unwrap().position.y < 5.0);
        state.reset();
        assert_eq!(state.sim.world.transform(id).unwrap().position.y, 5.0);
        assert_eq!(state.sim.world.step_count(), 0);
    }
}

#[cfg(test)]
mod terrain_tests {
    use super::*;
    use crate::editor::tools::terrain::TerrainTool;
    use atoll_physics::Scene;
    use atoll_physics::scene::builtin::terrain_hills;
    use atoll_physics::terrain::BrushMode;

    fn terrain_of(state: &EditorState) -> Option<atoll_physics::scene::SceneTerrain> {
        Scene::from_world(&state.sim.world, "t", |_| String::new()).terrain
    }

    #[test]
    fn a_brush_stroke_is_one_undo_step() {
        let mut state = EditorState::from_scene(&terrain_hills(), None).unwrap();
        let original = terrain_of(&state);
        let mut tool = TerrainTool::default();
        tool.mode = BrushMode::Add;
        for x in [-6.0, -4.0, -2.0] {
            tool.aim(&state.sim.world, Vec3::new(x, 50.0, -6.0), Vec3::NEG_Y);
            assert!(tool.stroke(&mut state.sim.world).unwrap() > 0);
        }
        let stroke = tool.end_stroke().expect("a stroke was made");
        assert!(stroke.dabs > 2 && !stroke.voxels.is_empty());
        state.record_stroke(stroke);
        let stroked = terrain_of(&state);
        assert_ne!(stroked, original);
        assert_eq!(state.doc.undo.undo_len(), 1);
        let stamp = state.sim.world.terrain_stamp();
        state.view.terrain_edits.clear();

        assert!(state.undo().unwrap().starts_with("terrain stroke"));
        assert_eq!(terrain_of(&state), original, "undo restores every voxel");
        assert_ne!(state.sim.world.terrain_stamp(), stamp, "the terrain is marked changed");
        assert_eq!(state.view.terrain_edits.len(), 1, "the viewport is told to redraw");
        state.redo();
        assert_eq!(terrain_of(&state), stroked, "redo makes the stroke again");
    }
}
