//! Collision filtering: which pairs of bodies may touch, by category bits, a mask and a group,
//! as Box2D defines them, on top of the jointed-pair rule (`world/joints.rs`).

/// Which other bodies a body may collide with.
///
/// Two bodies in the same non-zero `group` always collide when it is positive and never when it
/// is negative, whatever their bits. Otherwise they collide when each one's `mask` has a bit of
/// the other's `category`. Every pattern is valid: a category of 0 collides with nothing.
/// The terrain has [`CollisionFilter::DEFAULT`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CollisionFilter {
    /// The categories the body belongs to, usually one bit.
    pub category: u64,
    /// The categories it collides with.
    pub mask: u64,
    /// Bodies sharing a positive group always collide, a negative one never; 0 is no group.
    pub group: i32,
}

impl CollisionFilter {
    /// Category 1, every mask bit, no group: collides with everything that accepts category 1.
    pub const DEFAULT: CollisionFilter = CollisionFilter { category: 1, mask: u64::MAX, group: 0 };

    /// Whether bodies with filters `self` and `other` may touch.
    #[inline]
    pub fn allows(&self, other: &CollisionFilter) -> bool {
        if self.group == other.group && self.group != 0 {
            return self.group > 0;
        }
        self.mask & other.category != 0 && self.category & other.mask != 0
    }

    /// Whether this is [`CollisionFilter::DEFAULT`].
    pub fn is_default(&self) -> bool {
        *self == CollisionFilter::DEFAULT
    }
}

impl Default for CollisionFilter {
    fn default() -> Self {
        CollisionFilter::DEFAULT
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn filter(category: u64, mask: u64, group: i32) -> CollisionFilter {
        CollisionFilter { category, mask, group }
    }

    #[test]
    fn categories_and_masks_keep_bodies_apart() {
        let (ball, wall) = (filter(0b010, 0b001, 0), filter(0b100, 0b011, 0));
        // The wall accepts balls, but balls accept only category 1: they pass.
        assert!(!ball.allows(&wall));
        assert!(CollisionFilter::DEFAULT.allows(&ball) && ball.allows(&CollisionFilter::DEFAULT));
        assert!(!filter(0, u64::MAX, 0).allows(&CollisionFilter::DEFAULT), "category 0: nothing");
    }

    #[test]
    fn a_shared_group_overrides_the_bits() {
        let apart = filter(1, 0, 3);
        assert!(apart.allows(&apart), "a positive group always collides");
        let together = filter(1, u64::MAX, -3);
        assert!(!together.allows(&together), "a negative group never does");
        // Different groups fall back to the bits.
        assert!(filter(1, u64::MAX, -3).allows(&filter(1, u64::MAX, -4)));
    }

    proptest! {
        #[test]
        fn the_rule_is_symmetric(a in any::<(u64, u64, i32)>(), b in any::<(u64, u64, i32)>(), same_group: bool) {
            let fa = filter(a.0, a.1, a.2);
            let fb = filter(b.0, b.1, if same_group { a.2 } else { b.2 });
            prop_assert_eq!(fa.allows(&fb), fb.allows(&fa));
        }
    }
}
