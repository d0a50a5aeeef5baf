//! The selected body's history in the Inspector: its speed, angular speed, height, sleep timer,
//! island and touching contacts over the timeline's window, one small plot each, with a line at
//! the current step. A click on a plot moves the timeline to the step under the pointer.

use super::widgets::{clicked_step, csv_row};
use crate::editor::body_history::BodySample;
use crate::editor::csv::write_csv;
use crate::editor::notices::NoticePlace;
use crate::editor::state::EditorState;
use atoll_physics::BodyId;
use egui_plot::{Line, Plot, VLine};

/// One plot: its title and how it reads a sample.
type Series = (&'static str, fn(&crate::editor::body_history::BodySample) -> f64);

/// The plots, in order.
pub const SERIES: [Series; 6] = [
    ("speed (m/s)", |s| s.speed as f64),
    ("angular speed (rad/s)", |s| s.angular_speed as f64),
    ("height (m)", |s| s.height as f64),
    ("sleep timer (s)", |s| s.sleep_timer as f64),
    ("island", |s| if s.island == u32::MAX { f64::NAN } else { s.island as f64 }),
    ("touching contacts", |s| s.touching as f64),
];

/// Draws the plots for body `id`.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState, id: BodyId) {
    let samples: Vec<_> = state.sim.timeline.bodies.of(id).collect();
    egui::CollapsingHeader::new("History").default_open(true).show(ui, |ui| {
        if samples.len() < 2 {
            ui.weak("Play or step to plot this body's history.");
            return;
        }
        let stride = state.sim.timeline.bodies.stride();
        if stride > 1 {
            ui.weak(format!("every {stride}th step; click a plot to go to that step"));
        } else {
            ui.weak("click a plot to go to that step");
        }
        let now = state.sim.world.step_count() as f64;
        let mut clicked = None;
        for (title, read) in SERIES {
            ui.label(title);
            let points: Vec<[f64; 2]> = samples.iter().map(|(step, s)| [*step as f64, read(s)]).collect();
            let response = Plot::new(("body history", title))
                .height(56.0)
                .allow_scroll(false)
                .allow_drag(false)
                .allow_zoom(false)
                .show(ui, |plot| {
                    plot.line(Line::new(title, points));
                    plot.vline(VLine::new("now", now));
                    plot.pointer_coordinate()
                });
            clicked = clicked.or(clicked_step(&response));
        }
        if let Some(step) = clicked
            && let Err(e) = state.go_to_kept_step(step)
        {
            state.diag.notices.report(NoticePlace::ErrorWindow, e);
        }
        save_row(ui, &samples, &state.body_name(id), id);
    });
}

/// "Save history CSV" and the path it writes to (kept per body), and what the last save did.
fn save_row(ui: &mut egui::Ui, samples: &[(u64, BodySample)], name: &str, id: BodyId) {
    csv_row(
        ui,
        ("body", id),
        "Save history CSV",
        &format!("{name}'s history, one row a sampled step"),
        || std::env::temp_dir().join(format!("atoll-body-{}.csv", id.index())).display().to_string(),
        |path| {
            save_csv(path, samples).map(|()| format!("saved {} steps to {}", samples.len(), path.display()))
        },
    );
}

/// Writes a body's samples as CSV to `path`: the step, then every plotted series.
pub fn save_csv(path: &std::path::Path, samples: &[(u64, BodySample)]) -> std::io::Result<()> {
    let header =
        ["step", "speed_m_s", "angular_speed_rad_s", "height_m", "sleep_timer_s", "island", "touching"];
    let rows = samples.iter().map(|(step, s)| {
        let island = if s.island == u32::MAX { String::new() } else { s.island.to_string() };
        [
            step.to_string(),
            s.speed.to_string(),
            s.angular_speed.to_string(),
            s.height.to_string(),
            s.sleep_timer.to_string(),
            island,
            s.touching.to_string(),
        ]
    });
    write_csv(path, &header, rows)
}
