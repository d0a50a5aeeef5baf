//! Generational ids: every object the API names (bodies, contacts, islands) is an index into a
//! dense array plus the generation of that slot, so an id kept after its object was destroyed
//! is recognised as stale instead of silently naming whatever reuses the slot.

/// Declares a generational id type: an index and a generation, comparable and hashable, with
/// accessors. Each id type is its own type, so a contact id can never be passed as an island's.
macro_rules! generational_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        // Serialisable for recordings, whose inputs name bodies and joints by id: a replay
        // makes the same ids, and the world refuses one that names nothing.
        #[derive(
            Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
        )]
        #[serde(deny_unknown_fields)]
        pub struct $name {
            index: u32,
            generation: u32,
        }

        impl $name {
            /// The id of slot `index` in its `generation`.
            pub(crate) const fn new(index: u32, generation: u32) -> Self {
                Self { index, generation }
            }

            /// The slot index (stable while the object lives; reused after it is destroyed).
            pub fn index(self) -> u32 {
                self.index
            }

            /// The slot's generation when this id was made.
            pub fn generation(self) -> u32 {
                self.generation
            }
        }
    };
}

pub(crate) use generational_id;

/// "No index" for the intrusive lists of bodies, contacts, joints and islands, and for a slot
/// that names nothing.
pub(crate) const NONE: u32 = u32::MAX;

/// The last stamp handed out, process-wide (terrain and structure stamps), so two worlds never
/// share a stamp for different contents.
static LAST_STAMP: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);

/// A stamp nothing in this process has had (worlds' structures, terrains, tape entries).
pub(crate) fn fresh_stamp() -> u64 {
    LAST_STAMP.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1
}
