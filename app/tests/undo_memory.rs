//! The undo history's memory, measured by a counting allocator: a thousand edits in a
//! designer's mix (spawns, moves, property changes, deletes) hold well under the stated budget
//! of 1 MiB, because edits store deltas, not worlds.

#[path = "../../bench/src/alloc.rs"]
mod alloc;

use atoll::editor::EditorState;
use atoll_physics::{BodyType, SceneBody, SceneShape, Vec3};

#[global_allocator]
static COUNTING: alloc::CountingAlloc = alloc::CountingAlloc;

/// What a thousand edits may hold.
const BUDGET_BYTES: usize = 1 << 20;

#[test]
fn a_thousand_edits_hold_less_than_a_mebibyte() {
    let mut state = EditorState::from_scene(&atoll::builtin::tower(20), None).unwrap();
    for i in 0..1000 {
        match i % 4 {
            0 => {
                let mut body = SceneBody::new(
                    BodyType::Dynamic,
                    SceneShape::Box { half_extents: Vec3::splat(0.5) },
                    Vec3::ZERO,
                );
                body.position = Vec3::new(i as f32, 0.5, 5.0);
                body.name = format!("box {i}");
                state.add_bodies("spawn box", vec![body]).unwrap();
            }
            1 => state.change_selection("move", None, |b| b.position.z += 1.0).unwrap(),
            2 => state.change_selection("friction", None, |b| b.material.friction = 0.3).unwrap(),
            _ => state.delete_selection().unwrap(),
        }
    }
    assert_eq!(state.doc.undo.undo_len(), 1000);

    let counted = state.doc.undo.bytes();
    let history = std::mem::take(&mut state.doc.undo);
    let with = alloc::live_bytes();
    drop(history);
    let held = with - alloc::live_bytes();
    eprintln!(
        "1000 edits hold {held} bytes ({} per edit); the history's own count says {counted}",
        held / 1000
    );
    assert!(held < BUDGET_BYTES, "{held} bytes");
    assert!(
        counted <= held * 2 && held <= counted * 2,
        "the running count ({counted}) is far from the truth ({held})"
    );
}
