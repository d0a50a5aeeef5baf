//! CSV files the panels save for analysis elsewhere (the energy plot, a body's history): a
//! header and one row a step, written through a temporary file so a failure leaves an older
//! file whole.

use std::fmt::Display;
use std::path::Path;

/// Writes `header` and `rows` (each a line of values) as CSV to `path`.
pub fn write_csv<Row: IntoIterator<Item = Value>, Value: Display>(
    path: &Path,
    header: &[&str],
    rows: impl IntoIterator<Item = Row>,
) -> std::io::Result<()> {
    let mut text = header.join(",");
    text.push('\n');
    for row in rows {
        let values: Vec<String> = row.into_iter().map(|v| v.to_string()).collect();
        text.push_str(&values.join(","));
        text.push('\n');
    }
    let temporary = path.with_extension("csv.partial");
    std::fs::write(&temporary, text)?;
    std::fs::rename(&temporary, path)
}
