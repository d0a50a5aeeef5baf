//! Broadphase: a dynamic AABB tree per proxy kind (`tree`) and pair finding (`pairs`).

mod tree;

pub use tree::{DynamicTree, NULL_NODE, TreeStats};
