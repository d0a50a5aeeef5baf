//! Contacts: the manifolds of the selected body, or of every touching pair (capped).

use super::panel::{Dock, Panel, PanelContext};
use crate::editor::state::EditorState;
use egui::{Grid, ScrollArea};

/// Most rows drawn: beyond this the table stops being readable and costs frame time.
const MAX_ROWS: usize = 300;

/// Draws the manifold table.
pub fn show(ui: &mut egui::Ui, state: &mut EditorState) {
    let selected = state.selected();
    let contacts: Vec<_> = state
        .sim
        .world
        .touching_contacts()
        .filter(|c| selected.is_none_or(|id| c.body_a == id || c.body_b == id))
        .collect();
    let scope = match selected {
        Some(id) => format!("of {}", state.body_name(id)),
        None => "of all bodies".into(),
    };
    let points: usize = contacts.iter().map(|c| c.manifold.count).sum();
    ui.label(format!("{} touching pairs {scope}, {points} points", contacts.len()));
    ScrollArea::both().id_salt("contacts scroll").max_height(260.0).show(ui, |ui| {
        Grid::new("contacts table").num_columns(7).striped(true).spacing([10.0, 2.0]).show(ui, |ui| {
            for title in ["pair", "point", "separation", "normal", "impulse", "friction / twist", "feature"] {
                ui.strong(title);
            }
            ui.end_row();
            let mut rows = 0;
            let mut hovered = None;
            'pairs: for c in &contacts {
                let n = c.manifold.normal;
                for (k, point) in c.manifold.points().iter().enumerate() {
                    if rows == MAX_ROWS {
                        break 'pairs;
                    }
                    rows += 1;
                    // Friction acts on the whole manifold: shown once, on its first row.
                    let (pair, friction) = if k == 0 {
                        (
                            match c.chunk {
                                Some(k) => {
                                    format!("{} - terrain {} {} {}", state.body_name(c.body_a), k.x, k.y, k.z)
                                }
                                None => {
                                    format!("{} - {}", state.body_name(c.body_a), state.body_name(c.body_b))
                                }
                            },
                            format!("{:.4} / {:.4}", c.friction_impulse.length(), c.twist_impulse),
                        )
                    } else {
                        (String::new(), String::new())
                    };
                    let impulse = c.impulses[k];
                    let p = point.position;
                    let cells = [
                        ui.label(pair),
                        ui.monospace(format!("{:.3} {:.3} {:.3}", p.x, p.y, p.z)),
                        ui.monospace(format!("{:+.4}", point.separation)),
                        ui.monospace(format!("{:+.2} {:+.2} {:+.2}", n.x, n.y, n.z)),
                        ui.monospace(format!("{:.4}", impulse.normal)),
                        ui.monospace(friction),
                        ui.monospace(format!("{:08x}", point.feature)),
                    ];
                    if cells.iter().any(egui::Response::hovered) {
                        hovered = Some((p, n));
                    }
                    ui.end_row();
                }
            }
            // The viewport marks the hovered point this frame (it draws after the panels).
            state.view.options.marker = hovered;
        });
    });
    if points > MAX_ROWS {
        ui.weak(format!("showing the first {MAX_ROWS} points; select a body to narrow the list"));
    }
}

/// The Contacts panel.
#[derive(Default)]
pub struct ContactsPanel;

impl Panel for ContactsPanel {
    fn name(&self) -> &'static str {
        "Contacts"
    }

    fn dock(&self) -> Dock {
        Dock::Right
    }

    fn ui(&mut self, ui: &mut egui::Ui, cx: &mut PanelContext) {
        show(ui, cx.state);
    }
}
