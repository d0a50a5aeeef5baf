//! Compares two engines' closest-hit distances ray by ray, so a fast but wrong ray cast shows.

use serde::Serialize;

/// Largest difference in hit distance counted as the same hit, metres.
pub const HIT_TOLERANCE: f32 = 1e-3;

/// One ray the engines disagree on.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Mismatch {
    /// Index of the ray in its set.
    pub ray: usize,
    /// Atoll's hit distance (`None`: a miss).
    pub atoll: Option<f32>,
    /// parry3d's hit distance.
    pub parry: Option<f32>,
}

/// The agreement of two engines over one ray set.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct HitCheck {
    /// Rays compared.
    pub rays: usize,
    /// Rays that Atoll reports a hit for.
    pub atoll_hits: usize,
    /// Rays that parry3d reports a hit for.
    pub parry_hits: usize,
    /// Rays where one engine hits and the other misses, or the distances differ by more than
    /// [`HIT_TOLERANCE`].
    pub mismatches: usize,
    /// Largest distance difference among rays both engines hit, metres.
    pub worst_difference: f32,
    /// The first few mismatches, for a bug report.
    pub examples: Vec<Mismatch>,
}

/// Mismatches kept as examples.
const EXAMPLES: usize = 5;

/// Compares hit distances ray by ray (both slices in ray order and of equal length).
pub fn compare(atoll: &[Option<f32>], parry: &[Option<f32>]) -> HitCheck {
    assert_eq!(atoll.len(), parry.len(), "both engines cast the same rays");
    let mut check = HitCheck { rays: atoll.len(), ..Default::default() };
    for (ray, (&a, &p)) in atoll.iter().zip(parry).enumerate() {
        check.atoll_hits += a.is_some() as usize;
        check.parry_hits += p.is_some() as usize;
        let same = match (a, p) {
            (Some(a), Some(p)) => {
                let d = (a - p).abs();
                check.worst_difference = check.worst_difference.max(d);
                d <= HIT_TOLERANCE
            }
            (None, None) => true,
            _ => false,
        };
        if !same {
            check.mismatches += 1;
            if check.examples.len() < EXAMPLES {
                check.examples.push(Mismatch { ray, atoll: a, parry: p });
            }
        }
    }
    check
}

impl HitCheck {
    /// True when every ray agrees.
    pub fn ok(&self) -> bool {
        self.mismatches == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn agreeing_hits_pass() {
        let c = compare(&[Some(1.0), None, Some(2.0)], &[Some(1.0005), None, Some(2.0)]);
        assert!(c.ok());
        assert_eq!((c.rays, c.atoll_hits, c.parry_hits), (3, 2, 2));
        assert!((c.worst_difference - 0.0005).abs() < 1e-6);
    }

    #[test]
    fn distance_and_hit_miss_disagreements_are_flagged() {
        let c = compare(&[Some(1.0), Some(3.0), None, Some(0.5)], &[Some(1.01), None, Some(4.0), Some(0.5)]);
        assert!(!c.ok());
        assert_eq!(c.mismatches, 3);
        assert_eq!(c.examples.iter().map(|m| m.ray).collect::<Vec<_>>(), [0, 1, 2]);
        assert_eq!(c.examples[1], Mismatch { ray: 1, atoll: Some(3.0), parry: None });
    }
}
