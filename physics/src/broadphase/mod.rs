//! Broadphase: a dynamic AABB tree per proxy kind (`tree`) and pair finding (`pairs`).

mod pairs;
mod tree;

pub use pairs::{Broadphase, BroadphasePending, Path, ProxyKey, ProxyType, fat_aabb};
pub use tree::{DynamicTree, NULL_NODE, TreeStats};
