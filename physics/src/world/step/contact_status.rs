//! A contact's status byte: what the narrowphase left of it (touching, began, ended, separated
//! or quiet, and its manifold's point count), one byte per contact id in a dense array, so the
//! passes after the narrowphase (the touching list, the islands' bits, the solver's preparation)
//! read a byte a contact instead of its cache lines.

use crate::narrowphase::Contact;

/// Bits of a contact's status byte after the narrowphase ([`contact_status`]).
pub(crate) const TOUCHING: u8 = 1;
pub(crate) const BEGAN: u8 = 2;
pub(crate) const ENDED: u8 = 4;
pub(crate) const SEPARATED: u8 = 8;
/// Apart and settled: not touching, not begun or ended, not separated. Only the narrowphase
/// sets it, for the contact it has just updated, so a contact whose byte has it is in that
/// state (creating a pending contact in a slot zeroes its byte: its update may not be skipped,
/// it makes the contact ready, [`Contact::make_ready`]). The next update of
/// such a pair that is still apart changes nothing in the contact, and is done from the bodies
/// alone ([`World::update_contacts`]).
pub(crate) const QUIET: u8 = 16;
/// The manifold's point count (0 to 4) sits in the status byte's top bits, so the solver's
/// preparation reads no contact.
pub(crate) const POINTS_SHIFT: u8 = 5;

/// Bit `j` set where `wanted(status[j])` (of at most 64 status bytes): the tests are
/// independent, so they run without a branch each, where a branch a contact on whether it is
/// quiet or touching follows no pattern from one contact to the next.
#[inline(always)]
pub(crate) fn status_bits(status: &[u8], wanted: impl Fn(u8) -> bool) -> u64 {
    debug_assert!(status.len() <= 64);
    status.iter().enumerate().fold(0, |bits, (j, &s)| bits | u64::from(wanted(s)) << j)
}

/// The contact's flags after its update, as bits, and its manifold's point count.
pub(crate) fn contact_status(c: &Contact) -> u8 {
    let flags = (c.touching as u8 * TOUCHING)
        | (c.began as u8 * BEGAN)
        | (c.ended as u8 * ENDED)
        | (c.separated as u8 * SEPARATED);
    let flags = if flags == 0 { QUIET } else { flags };
    flags | (c.manifold.count as u8) << POINTS_SHIFT
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_bits_mark_the_wanted_bytes() {
        let status: Vec<u8> = (0..64).map(|j| if j % 3 == 0 { QUIET } else { TOUCHING }).collect();
        let quiet = status_bits(&status, |s| s == QUIET);
        assert_eq!(quiet, (0..64).filter(|j| j % 3 == 0).fold(0, |bits, j| bits | 1u64 << j));
        assert_eq!(status_bits(&status[..5], |s| s == TOUCHING), 0b10110);
        assert_eq!(status_bits(&[], |_| true), 0);
    }
}
