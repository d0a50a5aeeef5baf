//! The desktop's file dialog (rfd over the XDG portal), run on a thread of its own so the UI
//! keeps drawing while it is open; the editor polls it each frame.

use super::path_choice::PathPurpose;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, TryRecvError};
use std::time::{Duration, Instant};

/// A dialog answered this fast with nothing was refused by the desktop (no portal running), not
/// cancelled by a person: the editor then falls back to its path prompt.
const REFUSED_WITHIN: Duration = Duration::from_millis(400);

/// What became of an open dialog.
#[derive(Debug, PartialEq, Eq)]
pub enum DialogOutcome {
    /// Still open.
    Waiting,
    /// The user chose this path.
    Picked(PathBuf),
    /// The user closed the dialog without choosing.
    Cancelled,
    /// The desktop could not show a dialog.
    Unavailable,
}

/// A file dialog open on its own thread.
#[derive(Debug)]
pub struct PendingDialog {
    /// What the path is for.
    pub purpose: PathPurpose,
    started: Instant,
    answer: Receiver<Option<PathBuf>>,
}

impl PendingDialog {
    /// Opens the dialog for `purpose`, starting in `dir` with `file_name` proposed when saving.
    pub fn open(purpose: PathPurpose, dir: PathBuf, file_name: String) -> PendingDialog {
        let (send, answer) = mpsc::channel();
        std::thread::spawn(move || {
            // rfd reaches the portal through zbus on tokio, which needs a runtime on this thread.
            let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build();
            let picked = runtime.ok().and_then(|runtime| {
                runtime.block_on(async move {
                    let dialog =
                        rfd::AsyncFileDialog::new().add_filter("Atoll scene", &["ron"]).set_directory(dir);
                    if purpose.saves() {
                        dialog.set_file_name(file_name).save_file().await
                    } else {
                        dialog.pick_file().await
                    }
                })
            });
            // The editor may have gone; then nobody is waiting for the answer.
            let _ = send.send(picked.map(|handle| handle.path().to_path_buf()));
        });
        PendingDialog { purpose, started: Instant::now(), answer }
    }

    /// Whether the dialog has answered, without waiting.
    pub fn poll(&self) -> DialogOutcome {
        match self.answer.try_recv() {
            Ok(Some(path)) => DialogOutcome::Picked(path),
            Ok(None) if self.started.elapsed() < REFUSED_WITHIN => DialogOutcome::Unavailable,
            Ok(None) => DialogOutcome::Cancelled,
            Err(TryRecvError::Empty) => DialogOutcome::Waiting,
            Err(TryRecvError::Disconnected) => DialogOutcome::Unavailable,
        }
    }
}

/// Whether a native file dialog can appear: on Linux rfd talks to the XDG desktop portal over
/// the session bus, and without a display and a session bus it fails (or waits) instead.
/// `ATOLL_NO_NATIVE_DIALOG` forces the path prompt.
pub fn available() -> bool {
    let var = |name| std::env::var_os(name).is_some_and(|v| !v.is_empty());
    if var("ATOLL_NO_NATIVE_DIALOG") {
        return false;
    }
    let display = var("WAYLAND_DISPLAY") || var("DISPLAY");
    let bus = var("DBUS_SESSION_BUS_ADDRESS")
        || std::env::var_os("XDG_RUNTIME_DIR").is_some_and(|dir| Path::new(&dir).join("bus").exists());
    cfg!(not(target_os = "linux")) || (display && bus)
}

#[cfg(test)]
impl PendingDialog {
    /// A dialog that answered `answer`, opened `age` ago.
    pub(crate) fn answered(purpose: PathPurpose, answer: Option<PathBuf>, age: Duration) -> PendingDialog {
        let (send, receiver) = mpsc::channel();
        send.send(answer).unwrap();
        PendingDialog { purpose, started: Instant::now() - age, answer: receiver }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_quick_empty_answer_means_no_dialog_a_late_one_a_cancel() {
        let open = PathPurpose::Open;
        let quick = PendingDialog::answered(open, None, Duration::ZERO);
        assert_eq!(quick.poll(), DialogOutcome::Unavailable);
        let late = PendingDialog::answered(open, None, Duration::from_secs(3));
        assert_eq!(late.poll(), DialogOutcome::Cancelled);
        let picked = PendingDialog::answered(open, Some("a.ron".into()), Duration::ZERO);
        assert_eq!(picked.poll(), DialogOutcome::Picked("a.ron".into()));
    }
}
