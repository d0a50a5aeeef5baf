//! The progress bar of the headless commands' long runs (indicatif): drawn on standard error
//! when it is a terminal, and nowhere otherwise, so piped and machine-read output stays clean.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// A bar over `steps` steps headed `what`; call `inc` per step and `finish_and_clear` at the end.
pub fn steps_bar(steps: u64, what: &str) -> ProgressBar {
    let bar = ProgressBar::with_draw_target(Some(steps), ProgressDrawTarget::stderr());
    let style = ProgressStyle::with_template("{msg} [{bar:40}] {pos}/{len} steps, {per_sec}, {eta} left")
        .expect("the template is valid")
        .progress_chars("=> ");
    bar.set_style(style);
    bar.set_message(what.to_string());
    bar
}
