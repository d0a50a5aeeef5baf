//! The tape a recorded world keeps: the scene it was built from, then every input and every
//! step's state hash, in order. The world's state is a place on the tape (its head), which
//! compact states and snapshots carry: going back in time moves the head back and keeps the
//! entries after it, as an undo history keeps its redo steps; stepping on from there walks
//! along them while it gives the same hashes, and anything else (an edit, a step that differs)
//! cuts them off.

use super::input::Input;
use crate::scene::Scene;
use std::sync::Arc;

/// What a recording starts from: the scene its world was built from, and the hash of the
/// world it built.
#[derive(Debug)]
pub(crate) struct Origin {
    pub(crate) scene: Scene,
    pub(crate) hash: u64,
}

/// One entry: an input made at a step, or a step taken (to the step it names).
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// Unique in the process, so a place on the tape names one history.
    id: u64,
    /// The world's step count when the input was made, or after the step.
    pub(crate) step: u64,
    pub(crate) what: Logged,
}

/// What an entry holds.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Logged {
    /// An input, boxed: most entries are steps and stay small.
    Input(Box<Input>),
    /// A step, with the world's state hash after it.
    Step { hash: u64 },
}

/// A place on a tape: the entries before it and the id of the last of them (0 at the start),
/// enough to tell whether a tape still holds the history that led there.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct TapeMark {
    head: usize,
    last: u64,
}

/// The tape.
#[derive(Clone, Debug)]
pub(crate) struct Tape {
    pub(crate) origin: Arc<Origin>,
    entries: Vec<Entry>,
    head: usize,
    /// Set while a call runs inside another that logs itself (a body created by a terrain
    /// edit is part of the edit, not an input of its own).
    pub(crate) muted: bool,
    /// Why the entries before the head no longer lead to the world's state, once that
    /// happened (a state restored from another history).
    pub(crate) broken: Option<&'static str>,
}

impl Tape {
    /// An empty tape starting at `origin`.
    pub(crate) fn new(origin: Origin) -> Tape {
        Tape { origin: Arc::new(origin), entries: Vec::new(), head: 0, muted: false, broken: None }
    }

    /// Writes an entry at the head. When the tape already holds the same entry there (the
    /// world walks a history it went back along), the head moves over it; otherwise the
    /// entries after the head are cut off first.
    pub(crate) fn write(&mut self, step: u64, what: Logged) {
        if let Some(next) = self.entries.get(self.head)
            && next.step == step
            && next.what == what
        {
            self.head += 1;
            return;
        }
        self.entries.truncate(self.head);
        self.entries.push(Entry { id: crate::id::fresh_stamp(), step, what });
        self.head += 1;
    }

    /// Where the head is.
    pub(crate) fn mark(&self) -> TapeMark {
        let last = self.head.checked_sub(1).map_or(0, |i| self.entries[i].id);
        TapeMark { head: self.head, last }
    }

    /// Moves the head to `mark` if this tape holds the history that led there; returns
    /// whether it did.
    pub(crate) fn seek(&mut self, mark: TapeMark) -> bool {
        let holds = match mark.head.checked_sub(1) {
            None => true,
            Some(i) => self.entries.get(i).is_some_and(|e| e.id == mark.last),
        };
        if holds {
            self.head = mark.head;
        }
        holds
    }

    /// The entries written since `mark`, when the head is at or after it on the history that
    /// led there (and the tape is whole).
    pub(crate) fn since(&self, mark: TapeMark) -> Option<&[Entry]> {
        if self.broken.is_some() || mark.head > self.head {
            return None;
        }
        let holds = match mark.head.checked_sub(1) {
            None => true,
            Some(i) => self.entries[i].id == mark.last,
        };
        holds.then(|| &self.entries[mark.head..self.head])
    }

    /// The state hash the tape holds for the world's state: the last step's, when no input
    /// came after it; at the start, the origin's.
    pub(crate) fn hash_at_head(&self) -> Option<u64> {
        match self.head.checked_sub(1) {
            None => Some(self.origin.hash),
            Some(i) => match self.entries[i].what {
                Logged::Step { hash } => Some(hash),
                Logged::Input(_) => None,
            },
        }
    }

    /// The entries that led to the world's state.
    pub(crate) fn lineage(&self) -> &[Entry] {
        &self.entries[..self.head]
    }

    /// Bytes it holds (the origin's scene not counted).
    pub(crate) fn bytes(&self) -> usize {
        self.entries.capacity() * size_of::<Entry>()
            + (self.entries.iter())
                .filter(|e| matches!(e.what, Logged::Input(_)))
                .map(|_| size_of::<Input>())
                .sum::<usize>()
    }
}
