//! The reference island builder: connected components from scratch by depth-first search over
//! every dynamic body, every touching contact and every enabled joint between two dynamic
//! bodies. Kept for tests
//! (persistent islands must equal it) and for the benchmark comparison.

use crate::body::{Body, BodyType, NONE};
use crate::graph;
use crate::joint::Joint;
use crate::narrowphase::{Contact, TERRAIN};

/// The components as sorted lists of body slot indices, the lists sorted by their first body.
/// `work` is reused scratch so timing it measures the search, not the allocator.
pub(crate) fn reference_islands(
    bodies: &[Body],
    contacts: &[Contact],
    joints: &[Joint],
    work: &mut Vec<u32>,
) -> Vec<Vec<u32>> {
    let mut visited = vec![false; bodies.len()];
    let mut components = Vec::new();
    for (seed, b) in bodies.iter().enumerate() {
        if !b.alive || b.body_type != BodyType::Dynamic || visited[seed] {
            continue;
        }
        let mut component = Vec::new();
        visited[seed] = true;
        work.clear();
        work.push(seed as u32);
        while let Some(body) = work.pop() {
            component.push(body);
            let dynamic = |other: u32| {
                other != TERRAIN && other != NONE && bodies[other as usize].body_type == BodyType::Dynamic
            };
            let mut visit = |edge: bool, other: u32| {
                if edge && dynamic(other) && !visited[other as usize] {
                    visited[other as usize] = true;
                    work.push(other);
                }
            };
            graph::for_each_contact(bodies, contacts, body, |c, other| {
                visit(contacts[c as usize].touching, other)
            });
            graph::for_each_joint(bodies, joints, body, |j, other| visit(joints[j as usize].enabled, other));
        }
        component.sort_unstable();
        components.push(component);
    }
    components
}
