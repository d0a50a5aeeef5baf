//! The body graph: each body's list of contacts and its list of joints, threaded through the
//! edges themselves (an edge key is `edge << 1 | side`, side 0 for body A and 1 for body B), so
//! adding and removing an edge is O(1) and walking a body's edges costs its degree. Contacts
//! and joints are two kinds of [`GraphEdge`] with a list head each in the body.

use crate::body::{Body, EdgeLink, NONE};
use crate::joint::Joint;
use crate::narrowphase::{Contact, TERRAIN};

/// Something that links two bodies and is listed in each body's list of its kind. A side
/// that is not a body (the terrain of a terrain contact, the world of a world joint) is in no
/// list.
pub(crate) trait GraphEdge {
    /// The head of this kind's list in a body.
    fn head(body: &Body) -> u32;
    /// The head of this kind's list in a body, to change.
    fn head_mut(body: &mut Body) -> &mut u32;
    /// The slot stored for `side` (0 = A, 1 = B), which may be a marker such as [`TERRAIN`].
    fn side(&self, side: usize) -> u32;
    /// Whether `side` is a body (and so in that body's list).
    fn is_body(&self, side: usize) -> bool;
    /// The edge's links in both bodies' lists.
    fn links(&self) -> &[EdgeLink; 2];
    /// The edge's links in both bodies' lists, to change.
    fn links_mut(&mut self) -> &mut [EdgeLink; 2];
}

impl GraphEdge for Contact {
    fn head(body: &Body) -> u32 {
        body.contact_head
    }
    fn head_mut(body: &mut Body) -> &mut u32 {
        &mut body.contact_head
    }
    fn side(&self, side: usize) -> u32 {
        if side == 0 { self.body_a } else { self.body_b }
    }
    fn is_body(&self, side: usize) -> bool {
        side == 0 || self.body_b != TERRAIN
    }
    fn links(&self) -> &[EdgeLink; 2] {
        &self.edges
    }
    fn links_mut(&mut self) -> &mut [EdgeLink; 2] {
        &mut self.edges
    }
}

impl GraphEdge for Joint {
    fn head(body: &Body) -> u32 {
        body.joint_head
    }
    fn head_mut(body: &mut Body) -> &mut u32 {
        &mut body.joint_head
    }
    fn side(&self, side: usize) -> u32 {
        if side == 0 { self.body_a } else { self.body_b }
    }
    fn is_body(&self, side: usize) -> bool {
        self.side(side) != NONE
    }
    fn links(&self) -> &[EdgeLink; 2] {
        &self.edges
    }
    fn links_mut(&mut self) -> &mut [EdgeLink; 2] {
        &mut self.edges
    }
}

/// The edge id and side of an edge key.
#[inline]
pub(crate) fn edge_parts(key: u32) -> (u32, usize) {
    (key >> 1, (key & 1) as usize)
}

/// Adds edge `id` to the lists of the bodies on its sides.
pub(crate) fn attach<E: GraphEdge>(bodies: &mut [Body], edges: &mut [E], id: u32) {
    for side in 0..2 {
        if !edges[id as usize].is_body(side) {
            continue;
        }
        let body = edges[id as usize].side(side) as usize;
        let key = id << 1 | side as u32;
        let head = E::head(&bodies[body]);
        edges[id as usize].links_mut()[side] = EdgeLink { prev: NONE, next: head };
        if head != NONE {
            let (hc, hs) = edge_parts(head);
            edges[hc as usize].links_mut()[hs].prev = key;
        }
        *E::head_mut(&mut bodies[body]) = key;
    }
}

/// Removes edge `id` from the lists of the bodies on its sides.
pub(crate) fn detach<E: GraphEdge>(bodies: &mut [Body], edges: &mut [E], id: u32) {
    for side in 0..2 {
        if !edges[id as usize].is_body(side) {
            continue;
        }
        let body = edges[id as usize].side(side) as usize;
        let link = edges[id as usize].links()[side];
        if link.prev != NONE {
            let (pc, ps) = edge_parts(link.prev);
            edges[pc as usize].links_mut()[ps].next = link.next;
        } else {
            *E::head_mut(&mut bodies[body]) = link.next;
        }
        if link.next != NONE {
            let (nc, ns) = edge_parts(link.next);
            edges[nc as usize].links_mut()[ns].prev = link.prev;
        }
    }
}

/// Calls `f(edge id, other side)` for every edge of `body` of kind `E`, in list order. The
/// other side may be a marker ([`TERRAIN`], or [`NONE`] for the world), not a slot.
#[inline]
pub(crate) fn for_each_edge<E: GraphEdge>(
    bodies: &[Body],
    edges: &[E],
    body: u32,
    mut f: impl FnMut(u32, u32),
) {
    let mut key = E::head(&bodies[body as usize]);
    while key != NONE {
        let (id, side) = edge_parts(key);
        let e = &edges[id as usize];
        f(id, e.side(1 - side));
        key = e.links()[side].next;
    }
}

/// Calls `f(contact id, other body)` for every contact of `body`, in list order. The other
/// body of a terrain contact is [`TERRAIN`], which is not a slot.
#[inline]
pub(crate) fn for_each_contact(bodies: &[Body], contacts: &[Contact], body: u32, f: impl FnMut(u32, u32)) {
    for_each_edge(bodies, contacts, body, f)
}

/// Calls `f(joint id, other body)` for every joint of `body`, in list order. The other body of
/// a joint to the world is [`NONE`], which is not a slot.
#[inline]
pub(crate) fn for_each_joint(bodies: &[Body], joints: &[Joint], body: u32, f: impl FnMut(u32, u32)) {
    for_each_edge(bodies, joints, body, f)
}
