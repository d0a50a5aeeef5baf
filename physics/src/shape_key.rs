//! Shape keys: how the step names a shape wherever it pairs shapes (the broadphase's proxies,
//! the contacts, the pair lookups). A body's own shape is named by the body's slot, a compound
//! body's further shape (`crate::child_store`) by [`CHILD_BIT`] and its child slot. A world of
//! single-shape bodies therefore pairs, looks up and stores exactly the keys it did before
//! compounds (its bodies' slots), and every test of a key's kind is one bit never set there.
//! The terrain's key has the bit too, so the narrowphase sends terrain pairs and pairs with a
//! child out of the body pairs' path by one test, where one terrain test stood before.
//! Measured (callgrind, `step_count <scene> 120 20`, against the step before compounds,
//! fe984d1): every built-in scene's state hash unchanged; instructions +0.21 % on the rain,
//! +0.15 % the tumbler, +0.35 % the terrain rain, +0.11 % the 3D pyramid, +0.22 % the free
//! fall, +0.03 % the joint grid (the narrowphase's tests of the key, contact creation, and the
//! fast sweep's loop over a body's shapes).

/// The bit of a shape key that names a child rather than a body's own shape. The terrain's key
/// (`crate::narrowphase::TERRAIN`) has it set too: test for the terrain first.
pub(crate) const CHILD_BIT: u32 = 1 << 31;

/// Most child slots a world holds: a child's key stays below the terrain's and the empty key.
pub(crate) const MAX_CHILD_SLOTS: u32 = CHILD_BIT - 2;

/// Whether shape key `key` names a child (never asked of the terrain's key).
#[inline]
pub(crate) const fn is_child_key(key: u32) -> bool {
    key & CHILD_BIT != 0
}

/// The child slot of a child's key.
#[inline]
pub(crate) fn child_slot(key: u32) -> usize {
    (key & !CHILD_BIT) as usize
}

/// The key of child slot `slot`.
#[inline]
pub(crate) fn child_key(slot: u32) -> u32 {
    slot | CHILD_BIT
}
