//! Recording files: RON, read and written like scene files (line, column and field of the
//! first problem; saving never destroys the previous file), with the checks a replay relies
//! on.

use super::{MAX_RECORDING_BYTES, RECORDING_VERSION, Recording};
use crate::scene::SceneError;
use crate::scene::io::{parse_ron, read_limited, write_replacing};
use std::path::Path;

impl Recording {
    /// Parses and checks recording text.
    pub fn from_ron_str(text: &str) -> Result<Recording, SceneError> {
        let recording: Recording = parse_ron(text, MAX_RECORDING_BYTES)?;
        recording.check(text)?;
        Ok(recording)
    }

    /// Recording text: the header and the scene pretty-printed, each input on a line of its
    /// own, the hashes on one line.
    pub fn to_ron_string(&self) -> String {
        let config = ron::ser::PrettyConfig::new().depth_limit(4).indentor("    ".to_string());
        ron::ser::to_string_pretty(self, config).expect("recordings always serialise")
    }

    /// Loads a recording file.
    pub fn load(path: &Path) -> Result<Recording, SceneError> {
        Recording::from_ron_str(&read_limited(path, MAX_RECORDING_BYTES)?)
    }

    /// Saves to `path` without destroying the previous file if the save fails.
    pub fn save(&self, path: &Path) -> Result<(), SceneError> {
        write_replacing(path, &self.to_ron_string())
    }

    /// What parsing cannot check field by field: the version, and inputs in step order within
    /// the recorded steps. Errors point at the field in `text`.
    fn check(&self, text: &str) -> Result<(), SceneError> {
        let error = |field: String, offset: Option<usize>, message: String| {
            let (line, column) = line_and_column(text, offset.unwrap_or(0));
            SceneError::Parse { line, column, field, message }
        };
        if self.version != RECORDING_VERSION {
            return Err(error(
                "version".into(),
                text.find("version"),
                format!(
                    "unsupported recording version {} (this build reads {RECORDING_VERSION})",
                    self.version
                ),
            ));
        }
        let mut previous = 0;
        for (i, recorded) in self.inputs.iter().enumerate() {
            if recorded.step < previous || recorded.step > self.steps() {
                // Each input has one `step` field: the i-th after `inputs` is this one's.
                let offset = text
                    .find("inputs")
                    .and_then(|start| text[start..].match_indices("step").nth(i).map(|(at, _)| start + at));
                return Err(error(
                    format!("inputs[{i}].step"),
                    offset,
                    format!(
                        "input {i} is recorded at step {}, but inputs must be in step order within \
                         the {} recorded steps (the one before is at step {previous})",
                        recorded.step,
                        self.steps()
                    ),
                ));
            }
            previous = recorded.step;
        }
        Ok(())
    }
}

/// The 1-based line and column of byte `offset` of `text`.
fn line_and_column(text: &str, offset: usize) -> (usize, usize) {
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let column = before.len() - before.rfind('\n').map_or(0, |n| n + 1) + 1;
    (line, column)
}
