//! "Why is this awake?", in the Inspector for the selected body: what last woke its island and
//! at which step (a link that moves the timeline there), and, while the island stays awake,
//! which of its bodies keeps it from sleeping and by how much that body exceeds the sleep
//! thresholds.

use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use atoll_physics::{BodyId, WakeCause};
use egui::RichText;

/// The cause in words, naming bodies as the Scene list does.
pub fn describe(state: &EditorState, cause: WakeCause) -> String {
    let name = |id: BodyId| state.body_name(id);
    match cause {
        WakeCause::Contact { body, other } => format!("{} began touching {}", name(body), name(other)),
        WakeCause::Joint { body, .. } => format!("a joint on {} was made, changed or broke", name(body)),
        WakeCause::Edit { body } => format!("{} was edited", name(body)),
        WakeCause::Force { body } => format!("a force or impulse pushed {}", name(body)),
        WakeCause::Kinematic { body, kinematic } => {
            format!("the moving kinematic {} drives {}", name(kinematic), name(body))
        }
        WakeCause::Terrain { body } => format!("the terrain changed under {}", name(body)),
        WakeCause::All => "everything was woken (settings or terrain)".into(),
    }
}

/// Draws the section for body `id`.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, id: BodyId) {
    let world = &state.sim.world;
    let Some(island) = world.body_island(id).ok().flatten() else { return };
    ui.add_space(4.0);
    ui.label(RichText::new("Why is this awake?").strong());
    let mut go_to = None;
    match world.wake_cause(island).ok().flatten() {
        Some((cause, step)) => {
            ui.horizontal_wrapped(|ui| {
                ui.label(format!("Woken: {}, at", describe(state, cause)));
                let kept = state.sim.timeline.history.record_of(step).is_some();
                if ui
                    .add_enabled(kept, egui::Link::new(format!("step {step}")))
                    .on_hover_text(if kept {
                        "Go to that step on the timeline"
                    } else {
                        "That step is no longer kept"
                    })
                    .clicked()
                {
                    go_to = Some(step);
                }
            });
        }
        None => {
            ui.label("It has not slept since its island was made.");
        }
    }
    if let Ok(Some(r)) = world.restless_body(island) {
        let (linear, angular) = r.excess();
        let who = state.body_name(r.body);
        let text = if !r.can_sleep {
            format!("Kept awake by {who}, which may never sleep.")
        } else if linear > 1.0 || angular > 1.0 {
            format!(
                "Kept awake by {who}: {:.3} m/s ({linear:.1}× the {:.3} m/s threshold), {:.3} rad/s ({angular:.1}× the {:.3} rad/s threshold).",
                r.speed, r.linear_threshold, r.angular_speed, r.angular_threshold
            )
        } else {
            format!(
                "Settling: {who} has been slow enough for {:.2} s of the {:.2} s the island needs.",
                r.sleep_timer, r.time_to_sleep
            )
        };
        ui.label(text);
    } else {
        ui.label("Asleep.");
    }
    if let Some(step) = go_to
        && let Err(e) = state.go_to_step(step)
    {
        state.diag.notices.report(NoticePlace::ErrorWindow, e);
    }
}
