//! Small widgets the inspection panels share: labelled number rows, vector text and the plots'
//! frame. A leaf, so the panels use it without importing each other.

use atoll_physics::Vec3;
use egui::DragValue;

/// A labelled number field. Returns the response and the new value when it changed. The field
/// takes any number, even an invalid one, so that the engine's refusal can say why.
pub fn number_row(
    ui: &mut egui::Ui,
    label: &str,
    value: f32,
    speed: f64,
    suffix: &str,
) -> Option<(egui::Response, f32)> {
    let label_response = ui.label(label);
    let mut v = value;
    let r = ui
        .add(DragValue::new(&mut v).speed(speed).suffix(suffix).max_decimals(4))
        .labelled_by(label_response.id);
    ui.end_row();
    (r.changed() && v.to_bits() != value.to_bits()).then_some((r, v))
}

/// A labelled row of three number fields (named "`name` x" and so on for accessibility).
/// Returns the response of the one that changed, if any, and the new vector.
pub fn vec3_row(
    ui: &mut egui::Ui,
    label: &str,
    value: Vec3,
    speed: f64,
    name: &str,
) -> (Option<egui::Response>, Vec3) {
    ui.label(label);
    let mut v = value;
    let mut changed = None;
    ui.horizontal(|ui| {
        for (axis, component) in ["x", "y", "z"].into_iter().zip(v.as_mut()) {
            let r = ui.add(DragValue::new(component).speed(speed).max_decimals(4).prefix(format!("{axis} ")));
            let r = r.on_hover_text(format!("{name} {axis}"));
            if r.changed() {
                changed = Some(r);
            }
        }
    });
    ui.end_row();
    (changed.filter(|_| v != value), v)
}

/// A vector as three aligned numbers.
pub fn vec_text(v: Vec3) -> String {
    format!("{:8.3} {:8.3} {:8.3}", v.x, v.y, v.z)
}

/// A labelled field of 64 bits as hexadecimal (`0x…`, or decimal), as collision filters'
/// categories and masks are. The text is kept while it is typed; text that is not a number of
/// 64 bits is shown in the error colour with the reason, and changes nothing. Returns the
/// response and the new value when it changed.
pub fn bits_row(ui: &mut egui::Ui, label: &str, value: u64) -> Option<(egui::Response, u64)> {
    let label_response = ui.label(label);
    let id = ui.make_persistent_id(("bits", label));
    let shown = format!("{value:#x}");
    let mut text: String = ui.data(|d| d.get_temp(id)).unwrap_or_else(|| shown.clone());
    let parsed = parse_bits(&text);
    let mut changed = None;
    ui.horizontal(|ui| {
        let mut edit =
            egui::TextEdit::singleline(&mut text).desired_width(150.0).font(egui::TextStyle::Monospace);
        if parsed.is_err() {
            edit = edit.text_color(ui.visuals().error_fg_color);
        }
        let r = ui.add(edit).labelled_by(label_response.id);
        if r.has_focus() || parsed.is_err() {
            ui.data_mut(|d| d.insert_temp(id, text.clone()));
        } else {
            ui.data_mut(|d| d.remove::<String>(id));
        }
        match parse_bits(&text) {
            Ok(v) if r.changed() && v != value => changed = Some((r, v)),
            Ok(_) => {}
            Err(reason) => {
                ui.colored_label(ui.visuals().error_fg_color, reason);
            }
        }
    });
    ui.end_row();
    changed
}

/// Reads 64 bits as `0x…` hexadecimal (underscores allowed) or as decimal.
pub fn parse_bits(text: &str) -> Result<u64, &'static str> {
    let t = text.trim().replace('_', "");
    let parsed = match t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => t.parse::<u64>(),
    };
    parsed.map_err(|_| "not 64 bits (0x… or decimal)")
}

/// A labelled whole-number field. Returns the response and the new value when it changed.
pub fn integer_row(ui: &mut egui::Ui, label: &str, value: i32) -> Option<(egui::Response, i32)> {
    let label_response = ui.label(label);
    let mut v = value;
    let r = ui.add(DragValue::new(&mut v).speed(0.1)).labelled_by(label_response.id);
    ui.end_row();
    (r.changed() && v != value).then_some((r, v))
}

/// A "Save … CSV" button beside the path it writes to (kept in the UI's memory under `key`,
/// `default_path` until edited), and what the last save said. `save` writes the file and
/// returns what to say.
pub fn csv_row(
    ui: &mut egui::Ui,
    key: impl std::hash::Hash + std::fmt::Debug,
    button: &str,
    hover: &str,
    default_path: impl FnOnce() -> String,
    save: impl FnOnce(&std::path::Path) -> std::io::Result<String>,
) {
    let (path_id, outcome_id) =
        (ui.make_persistent_id(("csv path", &key)), ui.make_persistent_id(("csv outcome", &key)));
    let mut path: String = ui.data(|d| d.get_temp(path_id)).unwrap_or_else(default_path);
    ui.horizontal(|ui| {
        if ui.button(button).on_hover_text(hover).clicked() {
            let outcome = match save(std::path::Path::new(&path)) {
                Ok(said) => said,
                Err(e) => format!("could not save {path}: {e}"),
            };
            ui.data_mut(|d| d.insert_temp(outcome_id, outcome));
        }
        ui.add(egui::TextEdit::singleline(&mut path).desired_width(f32::INFINITY));
    });
    ui.data_mut(|d| d.insert_temp(path_id, path));
    if let Some(outcome) = ui.data(|d| d.get_temp::<String>(outcome_id)) {
        ui.label(outcome);
    }
}

/// A plot frame the panels draw into: `height` tall, its legend in `corner`, held still (no
/// scroll, drag or zoom: a click picks a step instead).
pub fn still_plot<'a>(id: &str, height: f32, corner: egui_plot::Corner) -> egui_plot::Plot<'a> {
    egui_plot::Plot::new(id)
        .height(height)
        .legend(egui_plot::Legend::default().position(corner).background_alpha(0.6))
        .allow_scroll(false)
        .allow_drag(false)
        .allow_zoom(false)
}

/// The step a plot over the kept steps was clicked at (its x axis, under the pointer), if it
/// was: every such plot goes to the step clicked ([`crate::editor::EditorState::go_to_kept_step`]).
pub fn clicked_step(response: &egui_plot::PlotResponse<Option<egui_plot::PlotPoint>>) -> Option<u64> {
    response.inner.filter(|_| response.response.clicked()).map(|at| at.x.round().max(0.0) as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bits_read_as_hexadecimal_or_decimal() {
        assert_eq!(parse_bits("0xff"), Ok(255));
        assert_eq!(parse_bits(" 0xFFFF_FFFF_FFFF_FFFF "), Ok(u64::MAX));
        assert_eq!(parse_bits("6"), Ok(6));
        assert!(parse_bits("0x1_0000_0000_0000_0000").is_err(), "65 bits");
        assert!(parse_bits("-1").is_err());
        assert!(parse_bits("0xg").is_err());
    }
}
