//! The diagnostics role of the editor state: what the editor measures and reports. The last
//! steps' timings and broadphase figures, the selected joint's trace, the watched contact, the selected island's energy, step and frame times, the
//! terrain redraw's figures, and the notices saying why something was refused.

use super::contact_watch::ContactWatch;
use super::history::History;
use super::island_energy::IslandEnergyTrace;
use super::joint_trace::JointTrace;
use super::notices::Notices;
use crate::render::terrain::TerrainRebuild;

/// Figures and messages for the panels and the status line.
#[derive(Default)]
pub struct Diagnostics {
    /// The last steps' timings and broadphase figures.
    pub history: History,
    /// The selected joint's coordinate and force over the last steps.
    pub joint_trace: JointTrace,
    /// The contact the Contacts panel watches, step by step and substep by substep.
    pub contact_watch: ContactWatch,
    /// The selected body's island's energy over the steps since it was selected.
    pub island_energy: IslandEnergyTrace,
    /// Wall-clock milliseconds of the last step.
    pub last_step_ms: f64,
    /// Wall-clock milliseconds the previous frame took on the CPU (UI and render submission).
    pub frame_ms: f64,
    /// What the viewport's last terrain rebuild did (chunks meshed, time, triangles drawn).
    pub terrain_rebuild: TerrainRebuild,
    /// Why the last thing the user asked for was refused or failed, for each place that says
    /// so (the error window, the Settings and Inspector panels).
    pub notices: Notices,
}
