//! Autosave: the edited scene is written to a recovery file a minute after an unsaved edit
//! (and again a minute after the next) and when the editor exits with unsaved changes; the
//! next start offers to restore it. A save or an explicit discard removes the file.

use atoll_physics::Scene;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How long an unsaved edit waits before it is written to the recovery file.
pub const AUTOSAVE_INTERVAL: Duration = Duration::from_secs(60);

/// The recovery file and when it is due.
#[derive(Clone, Debug, Default)]
pub struct Autosave {
    /// The folder of the recovery file; `None` turns autosave off (tests, `atoll bench`).
    pub dir: Option<PathBuf>,
    /// The oldest edit not yet in the recovery file.
    unwritten_since: Option<Instant>,
    /// How long an edit waits (the default is [`AUTOSAVE_INTERVAL`]).
    pub interval: Option<Duration>,
    /// A recovery file found at start, offered to the user.
    pub offer: Option<Recovery>,
    /// When the recovery file was last written.
    pub last_written: Option<SystemTime>,
    /// The document's edit count when autosave last looked (see [`Autosave::notice_edits`]).
    edits_seen: u64,
}

/// A recovery file left by an earlier session.
#[derive(Clone, Debug, PartialEq)]
pub struct Recovery {
    /// The recovery scene file.
    pub path: PathBuf,
    /// The scene file the unsaved work belonged to, if it had one.
    pub source: Option<PathBuf>,
    /// When it was written.
    pub written: Option<SystemTime>,
}

impl Autosave {
    /// Autosave into `dir`, with any recovery file already there offered for restore.
    pub fn in_dir(dir: PathBuf) -> Autosave {
        let offer = find(&dir);
        Autosave { dir: Some(dir), offer, ..Default::default() }
    }

    /// The folder the editor keeps its recovery file in: `$ATOLL_STATE_DIR`, else
    /// `$XDG_STATE_HOME/atoll`, else `~/.local/state/atoll`.
    pub fn default_dir() -> Option<PathBuf> {
        let var = |name| std::env::var_os(name).filter(|v| !v.is_empty()).map(PathBuf::from);
        var("ATOLL_STATE_DIR")
            .or_else(|| var("XDG_STATE_HOME").map(|d| d.join("atoll")))
            .or_else(|| var("HOME").map(|h| h.join(".local/state/atoll")))
    }

    /// Notes an unsaved edit: the recovery file is due an interval from the oldest one.
    pub fn note_edit(&mut self) {
        self.unwritten_since.get_or_insert_with(Instant::now);
    }

    /// Notes the edits made since the last look, given the document's running edit count. The
    /// document only counts its edits and the file code brings the count here each frame, so
    /// the document need not know that autosave exists.
    pub fn notice_edits(&mut self, edit_count: u64) {
        if edit_count != self.edits_seen {
            self.edits_seen = edit_count;
            self.note_edit();
        }
    }

    /// Whether edits wait to be written and their interval is over.
    pub fn due(&self) -> bool {
        let interval = self.interval.unwrap_or(AUTOSAVE_INTERVAL);
        self.dir.is_some() && self.unwritten_since.is_some_and(|t| t.elapsed() >= interval)
    }

    /// Writes `scene` (the edited state) as the recovery file, remembering `source` as the file
    /// it belongs to. Written beside and renamed, like every save.
    pub fn write(&mut self, scene: &Scene, source: Option<&Path>) -> Result<(), String> {
        let Some(dir) = &self.dir else { return Ok(()) };
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("autosave: cannot create {}: {e}", dir.display()))?;
        scene.save(&scene_path(dir)).map_err(|e| format!("autosave: {e}"))?;
        let source_text = source.map(|p| p.display().to_string()).unwrap_or_default();
        std::fs::write(source_path(dir), source_text).map_err(|e| format!("autosave: {e}"))?;
        self.unwritten_since = None;
        self.last_written = Some(SystemTime::now());
        Ok(())
    }

    /// Removes the recovery file (the work was saved, or the user discarded it).
    pub fn discard(&mut self) {
        self.unwritten_since = None;
        self.offer = None;
        if let Some(dir) = &self.dir {
            let _ = std::fs::remove_file(scene_path(dir));
            let _ = std::fs::remove_file(source_path(dir));
        }
    }
}

fn scene_path(dir: &Path) -> PathBuf {
    dir.join("recovery.ron")
}

fn source_path(dir: &Path) -> PathBuf {
    dir.join("recovery.source")
}

/// The recovery file in `dir`, if there is one.
pub fn find(dir: &Path) -> Option<Recovery> {
    let path = scene_path(dir);
    let written = std::fs::metadata(&path).ok()?.modified().ok();
    let source = std::fs::read_to_string(source_path(dir))
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .map(PathBuf::from);
    Some(Recovery { path, source, written })
}

/// "3 min ago", "2 h ago": how long ago `time` was.
pub fn ago(time: Option<SystemTime>) -> String {
    let Some(seconds) = time.and_then(|t| t.elapsed().ok()).map(|d| d.as_secs()) else {
        return "at an unknown time".to_string();
    };
    match seconds {
        0..60 => format!("{seconds} s ago"),
        60..3600 => format!("{} min ago", seconds / 60),
        3600..172_800 => format!("{} h ago", seconds / 3600),
        _ => format!("{} days ago", seconds / 86_400),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_a_changed_edit_count_is_noticed_as_an_edit() {
        let mut autosave = Autosave {
            dir: Some(PathBuf::from("/nonexistent")),
            interval: Some(Duration::ZERO),
            ..Default::default()
        };
        autosave.notice_edits(0);
        assert!(!autosave.due(), "no edit since the start");
        autosave.notice_edits(3);
        assert!(autosave.due());
    }

    #[test]
    fn written_found_and_discarded() {
        let dir = std::env::temp_dir().join(format!("atoll-autosave-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let mut autosave = Autosave::in_dir(dir.clone());
        assert!(autosave.offer.is_none());
        assert!(!autosave.due());
        autosave.interval = Some(Duration::ZERO);
        autosave.note_edit();
        assert!(autosave.due());
        autosave.write(&Scene::new("work"), Some(Path::new("/scenes/work.ron"))).unwrap();
        assert!(!autosave.due());
        let found = find(&dir).unwrap();
        assert_eq!(found.source.as_deref(), Some(Path::new("/scenes/work.ron")));
        assert_eq!(Scene::load(&found.path).unwrap().name, "work");
        assert_eq!(Autosave::in_dir(dir.clone()).offer, Some(found));
        autosave.discard();
        assert!(find(&dir).is_none());
        std::fs::remove_dir_all(dir).unwrap();
    }
}
