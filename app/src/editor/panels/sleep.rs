//! Sleep: awake and sleeping body counts over the last steps, and a histogram of the sleep
//! timers of the dynamic bodies now.

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use atoll_physics::BodyType;
use egui_plot::{Bar, BarChart, Legend, Line, Plot};

/// Histogram bins up to the time to sleep; one more bin holds the timers past it.
const BINS: usize = 10;

/// Draws the awake/asleep plot and the timer histogram.
pub fn show(ui: &mut egui::Ui, state: &EditorState) {
    let world = &state.sim.world;
    let dynamic = world
        .body_ids()
        .filter(|id| world.body(*id).is_ok_and(|b| b.body_type == BodyType::Dynamic))
        .collect::<Vec<_>>();
    let total = dynamic.len() as f64;
    Plot::new("sleep plot")
        .height(110.0)
        .legend(Legend::default().text_style(egui::TextStyle::Small).position(egui_plot::Corner::LeftTop))
        .allow_scroll(false)
        .include_y(0.0)
        .include_y(total)
        .show(ui, |plot| {
            let awake: Vec<[f64; 2]> =
                state.diag.history.samples().map(|s| [s.step as f64, s.awake_bodies as f64]).collect();
            let asleep: Vec<[f64; 2]> = awake.iter().map(|[x, y]| [*x, (total - y).max(0.0)]).collect();
            plot.line(Line::new("awake", awake));
            plot.line(Line::new("asleep", asleep));
        });

    let time_to_sleep = world.settings().time_to_sleep.max(1e-3);
    let width = time_to_sleep / BINS as f32;
    let mut counts = [0u32; BINS + 1];
    for id in &dynamic {
        let timer = world.sleep_timer(*id).unwrap_or(0.0);
        counts[((timer / width) as usize).min(BINS)] += 1;
    }
    ui.label(format!("sleep timers (s); the last bar is past the time to sleep, {time_to_sleep:.2} s"));
    let bars: Vec<Bar> = counts
        .iter()
        .enumerate()
        .map(|(i, n)| Bar::new((i as f64 + 0.5) * width as f64, *n as f64).width(width as f64 * 0.9))
        .collect();
    Plot::new("sleep histogram").height(90.0).allow_scroll(false).include_y(0.0).show(ui, |plot| {
        plot.bar_chart(BarChart::new("bodies", bars));
    });
}

/// The Sleep panel.
#[derive(Default)]
pub struct SleepPanel;

impl Panel for SleepPanel {
    fn name(&self) -> &'static str {
        "Sleep"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state);
    }
}
