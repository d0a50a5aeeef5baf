//! The dynamic AABB tree.

/// The tree (being written).
#[derive(Clone, Debug, Default)]
pub struct DynamicTree {}

/// Tree statistics for the editor's broadphase panel.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct TreeStats {}
