//! [`Divergence`]: how far apart two worlds' bodies are, body by body and island by island.
//! What a user comparing two branches of a timeline (`crate::branches`) watches: the world as
//! it went and as it would have gone with another setting. Bodies are matched by id (a branch
//! forked from a world keeps its ids); the distance is between their frames' origins. Sums run
//! in `f64` in slot order, so the same pair of worlds gives the same bits.

use super::World;
use crate::body::{BodyId, BodyType, NONE};
use crate::island::id::IslandId;
use crate::math::Vec3;

/// Most islands a [`Divergence`] names, the farthest apart first: a rain of two thousand
/// separate bodies has two thousand islands, and a plot shows a few.
pub const MAX_DIVERGENT_ISLANDS: usize = 16;

/// How far apart the dynamic bodies of two worlds are.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Divergence {
    /// The largest distance between a body's positions in the two worlds, metres.
    pub max: f32,
    /// The mean of those distances over the bodies compared, metres.
    pub mean: f32,
    /// The body farthest from its counterpart (the lowest slot on ties), when any is apart.
    pub farthest: Option<BodyId>,
    /// Dynamic bodies found in both worlds.
    pub compared: u32,
    /// Dynamic bodies of either world the other lacks (added or removed in one of them).
    pub unmatched: u32,
    /// Per island of the first world, the islands farthest apart first (ties by id), at most
    /// [`MAX_DIVERGENT_ISLANDS`] of them.
    pub islands: Vec<IslandDivergence>,
}

/// How far apart one island's bodies are from their counterparts.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IslandDivergence {
    /// The island, in the first world.
    pub island: IslandId,
    /// Its bodies compared.
    pub bodies: u32,
    /// The largest distance, metres.
    pub max: f32,
    /// The mean distance, metres.
    pub mean: f32,
}

impl Divergence {
    /// Whether any body is apart from its counterpart, or is missing from the other world.
    pub fn differs(&self) -> bool {
        self.max > 0.0 || self.unmatched > 0
    }
}

impl World {
    /// How far this world's dynamic bodies are from the same bodies (by id) in `other`, grouped
    /// by this world's islands. A body only one of the worlds holds, or dynamic in only one of
    /// them, counts as unmatched.
    pub fn divergence_from(&self, other: &World) -> Divergence {
        let mut out = Divergence::default();
        // Per island slot: bodies, the largest distance and the sum.
        let mut islands: Vec<(u32, f32, f64)> = Vec::new();
        let (mut sum, mut farthest) = (0.0f64, None::<(f32, BodyId)>);
        for (slot, b) in self.bodies.bodies.iter().enumerate() {
            if !b.alive || b.body_type != BodyType::Dynamic {
                continue;
            }
            let id = self.bodies.id_at(slot as u32);
            let Some(theirs) = other.bodies.get(id).ok().filter(|o| o.body_type == BodyType::Dynamic) else {
                out.unmatched += 1;
                continue;
            };
            let apart = distance(b.transform.position, theirs.transform.position);
            out.compared += 1;
            sum += f64::from(apart);
            if farthest.is_none_or(|(d, _)| apart > d) {
                farthest = Some((apart, id));
            }
            let island = b.island.id;
            if island != NONE {
                let index = island as usize;
                if islands.len() <= index {
                    islands.resize(index + 1, (0, 0.0, 0.0));
                }
                let entry = &mut islands[index];
                entry.0 += 1;
                entry.1 = entry.1.max(apart);
                entry.2 += f64::from(apart);
            }
        }
        out.unmatched += other
            .bodies
            .bodies
            .iter()
            .enumerate()
            .filter(|(slot, b)| {
                b.alive
                    && b.body_type == BodyType::Dynamic
                    && self.bodies.get(other.bodies.id_at(*slot as u32)).is_err()
            })
            .count() as u32;
        if out.compared > 0 {
            out.mean = (sum / f64::from(out.compared)) as f32;
        }
        if let Some((max, id)) = farthest {
            out.max = max;
            out.farthest = (max > 0.0).then_some(id);
        }
        let mut named: Vec<IslandDivergence> = (islands.iter().enumerate())
            .filter(|(_, (bodies, _, _))| *bodies > 0)
            .map(|(slot, &(bodies, max, total))| IslandDivergence {
                island: self.island_id(slot as u32),
                bodies,
                max,
                mean: (total / f64::from(bodies)) as f32,
            })
            .collect();
        named.sort_by(|a, b| b.max.total_cmp(&a.max).then(a.island.index().cmp(&b.island.index())));
        named.truncate(MAX_DIVERGENT_ISLANDS);
        out.islands = named;
        out
    }
}

/// The distance between two points, exactly zero for equal ones and never NaN for finite ones.
fn distance(a: Vec3, b: Vec3) -> f32 {
    (a - b).length()
}
