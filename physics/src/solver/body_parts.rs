//! The solver bodies split into parts, one per member of the solve's team: part `p` is a run of
//! solver indices. The world makes the parts from a cut through space (the awake bodies on one
//! side of it get the lower solver indices), so a part's bodies are near each other.
//!
//! The colouring orders each colour's contacts part by part, and each member does its own
//! part's batches of every colour (the team's `ColourParts`). A member then mostly updates the velocities of the same bodies in
//! every colour and substep, and they stay in its core's cache: with the colours in contact
//! order, each colour's share moved about half the velocities it read from the other core, and
//! the rain's two members did about a quarter more work in the colour passes than one thread
//! did alone. The parts change only the order of the work, never its numbers: contacts of one
//! colour share no moving body, so solving them in any order or lane gives the same bits.

/// Most parts: a team of more members starts its members past the parts where it would without
/// parts.
pub(crate) const MAX_PARTS: usize = 8;

// The team cuts a colour's blocks at every part boundary.
const _: () = assert!(MAX_PARTS <= crate::parallel::MOST_PARTS);

/// How the solver indices are split into parts (borrowed from whoever made them).
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyParts<'a> {
    /// First solver index of each part after the first: part `p` runs from `starts[p - 1]`
    /// (index 0 for the first) to `starts[p]` (the end for the last). Ascending.
    starts: &'a [u32],
}

impl BodyParts<'static> {
    /// Every solver body in one part: what one thread, alone, works with.
    pub const WHOLE: BodyParts<'static> = BodyParts { starts: &[] };
}

impl<'a> BodyParts<'a> {
    /// Parts that begin at solver indices `starts` (ascending), after a first part from 0.
    pub fn new(starts: &'a [u32]) -> BodyParts<'a> {
        debug_assert!(starts.len() < MAX_PARTS, "{} parts", starts.len() + 1);
        debug_assert!(starts.windows(2).all(|w| w[0] <= w[1]), "part starts {starts:?} not ascending");
        BodyParts { starts }
    }

    /// First solver index of each part after the first.
    pub fn starts(&self) -> &'a [u32] {
        self.starts
    }

    /// Number of parts.
    pub fn count(&self) -> usize {
        self.starts.len() + 1
    }

    /// The solver indices of part `part` of `count` solver bodies.
    pub fn range(&self, part: usize, count: usize) -> std::ops::Range<usize> {
        let start = if part == 0 { 0 } else { self.starts[part - 1] as usize };
        let end = self.starts.get(part).map_or(count, |&end| end as usize);
        start.min(end)..end
    }

    /// The part of solver body `index`.
    #[inline]
    pub fn of(&self, index: u32) -> usize {
        // A few parts at most: a count of the starts at or below beats a search, and has no
        // branch that depends on the index (the starts ascend, so it is the scan's count).
        self.starts.iter().map(|&start| usize::from(index >= start)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_in_the_part_whose_run_holds_its_index() {
        assert_eq!(BodyParts::WHOLE.count(), 1);
        assert_eq!(BodyParts::WHOLE.of(12345), 0);
        // Parts 0..5, 5..5 (empty), 5..9, 9.. .
        let parts = BodyParts::new(&[5, 5, 9]);
        assert_eq!(parts.count(), 4);
        let of: Vec<usize> = (0..12).map(|i| parts.of(i)).collect();
        assert_eq!(of, [0, 0, 0, 0, 0, 2, 2, 2, 2, 3, 3, 3]);
    }
}
