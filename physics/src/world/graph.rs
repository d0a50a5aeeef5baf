//! The contact graph: each body's list of contacts, threaded through the contacts themselves
//! (an edge key is `contact << 1 | side`, side 0 for body A and 1 for body B), so adding and
//! removing a contact is O(1) and walking a body's contacts costs its degree.

use crate::body::{Body, NONE};
use crate::narrowphase::{Contact, TERRAIN};

/// How many of a contact's sides are bodies: a terrain contact is in its body's list only.
#[inline]
fn body_sides(c: &Contact) -> usize {
    if c.body_b == TERRAIN { 1 } else { 2 }
}

/// The contact id and side of an edge key.
#[inline]
pub(crate) fn edge_parts(key: u32) -> (u32, usize) {
    (key >> 1, (key & 1) as usize)
}

/// Adds contact `id` to both of its bodies' lists (a terrain contact to its body's).
pub(crate) fn attach(bodies: &mut [Body], contacts: &mut [Contact], id: u32) {
    for side in 0..body_sides(&contacts[id as usize]) {
        let body = if side == 0 { contacts[id as usize].body_a } else { contacts[id as usize].body_b };
        let key = id << 1 | side as u32;
        let head = bodies[body as usize].contact_head;
        contacts[id as usize].edges[side].prev = NONE;
        contacts[id as usize].edges[side].next = head;
        if head != NONE {
            let (hc, hs) = edge_parts(head);
            contacts[hc as usize].edges[hs].prev = key;
        }
        bodies[body as usize].contact_head = key;
        bodies[body as usize].contact_count += 1;
    }
}

/// Removes contact `id` from both of its bodies' lists (a terrain contact from its body's).
pub(crate) fn detach(bodies: &mut [Body], contacts: &mut [Contact], id: u32) {
    for side in 0..body_sides(&contacts[id as usize]) {
        let body = if side == 0 { contacts[id as usize].body_a } else { contacts[id as usize].body_b };
        let edge = contacts[id as usize].edges[side];
        if edge.prev != NONE {
            let (pc, ps) = edge_parts(edge.prev);
            contacts[pc as usize].edges[ps].next = edge.next;
        } else {
            bodies[body as usize].contact_head = edge.next;
        }
        if edge.next != NONE {
            let (nc, ns) = edge_parts(edge.next);
            contacts[nc as usize].edges[ns].prev = edge.prev;
        }
        bodies[body as usize].contact_count -= 1;
    }
}

/// Calls `f(contact id, other body)` for every contact of `body`, in list order. The other
/// body of a terrain contact is [`TERRAIN`], which is not a slot.
pub(crate) fn for_each_contact(
    bodies: &[Body],
    contacts: &[Contact],
    body: u32,
    mut f: impl FnMut(u32, u32),
) {
    let mut key = bodies[body as usize].contact_head;
    while key != NONE {
        let (id, side) = edge_parts(key);
        let c = &contacts[id as usize];
        f(id, if side == 0 { c.body_b } else { c.body_a });
        key = c.edges[side].next;
    }
}
