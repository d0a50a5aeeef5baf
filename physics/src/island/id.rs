//! The island's public name: a slot and its generation.

crate::id::generational_id!(
    /// Names an island: its slot plus the slot's generation. An island absorbed by a merge or
    /// emptied keeps no id: its id is refused afterwards, even once the slot is reused. A split
    /// keeps the id for the part holding the island's first body.
    IslandId
);
