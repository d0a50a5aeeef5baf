//! The intrusive lists that hold an island's members. Bodies and contacts (and joints, when
//! they come) are threaded into their island's lists through an [`IslandLink`] of their own, so
//! joining, leaving and merging cost O(1) per member moved and need no allocation.

use crate::id::NONE;

/// Where a body or contact sits in its island: the island and its neighbours in that island's
/// list of the same kind. [`IslandLink::NONE`] while it is in no island.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IslandLink {
    /// The island's index, or [`NONE`].
    pub id: u32,
    /// The previous member in the island's list, or [`NONE`].
    pub prev: u32,
    /// The next member in the island's list, or [`NONE`].
    pub next: u32,
}

impl IslandLink {
    /// In no island.
    pub const NONE: IslandLink = IslandLink { id: NONE, prev: NONE, next: NONE };
}

impl Default for IslandLink {
    fn default() -> Self {
        IslandLink::NONE
    }
}

/// Something an island lists: it carries its own [`IslandLink`].
pub(crate) trait IslandMember {
    /// Its place in an island.
    fn link(&self) -> &IslandLink;
    /// Its place in an island, to change.
    fn link_mut(&mut self) -> &mut IslandLink;
}

/// One of an island's lists: first and last member and how many there are, in the order they
/// joined (merges append the absorbed island's list), which is the order splits seed from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct IslandList {
    pub head: u32,
    pub tail: u32,
    pub count: u32,
}

impl IslandList {
    /// No members.
    pub const EMPTY: IslandList = IslandList { head: NONE, tail: NONE, count: 0 };

    /// Appends `item` to this list of island `island`.
    pub fn push<T: IslandMember>(&mut self, items: &mut [T], island: u32, item: u32) {
        *items[item as usize].link_mut() = IslandLink { id: island, prev: self.tail, next: NONE };
        if self.tail != NONE {
            items[self.tail as usize].link_mut().next = item;
        } else {
            self.head = item;
        }
        self.tail = item;
        self.count += 1;
    }

    /// Takes `item` out of this list (it must be in it) and leaves it in no island.
    pub fn remove<T: IslandMember>(&mut self, items: &mut [T], item: u32) {
        let IslandLink { prev, next, .. } = *items[item as usize].link();
        if prev != NONE {
            items[prev as usize].link_mut().next = next;
        } else {
            self.head = next;
        }
        if next != NONE {
            items[next as usize].link_mut().prev = prev;
        } else {
            self.tail = prev;
        }
        *items[item as usize].link_mut() = IslandLink::NONE;
        self.count -= 1;
    }

    /// Moves every member of `other` to the end of this list of island `island`, relabelling
    /// them; costs the length of `other`.
    pub fn append<T: IslandMember>(&mut self, items: &mut [T], other: IslandList, island: u32) {
        let mut item = other.head;
        while item != NONE {
            let link = items[item as usize].link_mut();
            link.id = island;
            item = link.next;
        }
        if other.head == NONE {
            return;
        }
        if self.tail != NONE {
            items[self.tail as usize].link_mut().next = other.head;
            items[other.head as usize].link_mut().prev = self.tail;
        } else {
            self.head = other.head;
        }
        self.tail = other.tail;
        self.count += other.count;
    }

    /// The members in list order. Reads `items` as it goes, so the loop body cannot change
    /// them; loops that do walk `link().next` themselves.
    pub fn iter<'a, T: IslandMember>(&self, items: &'a [T]) -> impl Iterator<Item = u32> + 'a {
        let mut item = self.head;
        std::iter::from_fn(move || {
            (item != NONE).then(|| {
                let current = item;
                item = items[current as usize].link().next;
                current
            })
        })
    }
}
