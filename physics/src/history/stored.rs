//! A keyframe's state as the history stores it: whole, or as its change from an earlier whole
//! one of the same structure (the anchor) when that is much smaller, as it is wherever islands
//! sleep.

use crate::world::{CompactState, StateDelta};
use std::sync::Arc;

/// A stored compact state.
#[derive(Clone, Debug)]
pub(super) enum Stored {
    Whole(Arc<CompactState>),
    Change { anchor: Arc<CompactState>, delta: Box<StateDelta> },
}

/// A change is stored when it is at most this share of the whole state.
const CHANGE_SHARE: f64 = 0.5;

impl Stored {
    /// `state` stored against `anchor` (the latest whole state kept) when its change from it
    /// is small enough, else whole.
    pub fn new(state: CompactState, anchor: Option<&Arc<CompactState>>) -> Stored {
        let whole = state.bytes();
        if let Some(anchor) = anchor
            && let Some(delta) = state.delta_from(anchor)
            && (delta.bytes() as f64) <= CHANGE_SHARE * whole as f64
        {
            return Stored::Change { anchor: anchor.clone(), delta: Box::new(delta) };
        }
        Stored::Whole(Arc::new(state))
    }

    /// The step count of the state.
    pub fn step_count(&self) -> u64 {
        match self {
            Stored::Whole(state) => state.step_count(),
            Stored::Change { delta, .. } => delta.step_count(),
        }
    }

    /// The structure stamp of the state.
    pub fn structure_stamp(&self) -> u64 {
        match self {
            Stored::Whole(state) => state.structure_stamp(),
            Stored::Change { anchor, .. } => anchor.structure_stamp(),
        }
    }

    /// The whole state, when stored whole (a possible anchor).
    pub fn whole(&self) -> Option<&Arc<CompactState>> {
        match self {
            Stored::Whole(state) => Some(state),
            Stored::Change { .. } => None,
        }
    }

    /// The state, rebuilt from its anchor when stored as a change.
    pub fn state(&self) -> CompactState {
        match self {
            Stored::Whole(state) => (**state).clone(),
            Stored::Change { anchor, delta } => delta.apply(anchor),
        }
    }

    /// Bytes it takes of its own (an anchor is counted where it is stored whole).
    pub fn bytes(&self) -> usize {
        match self {
            Stored::Whole(state) => state.bytes(),
            Stored::Change { delta, .. } => delta.bytes(),
        }
    }

    /// The whole size of the state (what a restore copies).
    pub fn full_bytes(&self) -> usize {
        match self {
            Stored::Whole(state) => state.bytes(),
            Stored::Change { anchor, .. } => anchor.bytes(),
        }
    }

    /// Stored against `anchor`?
    pub fn is_against(&self, anchor: &Arc<CompactState>) -> bool {
        matches!(self, Stored::Change { anchor: a, .. } if Arc::ptr_eq(a, anchor))
    }
}
