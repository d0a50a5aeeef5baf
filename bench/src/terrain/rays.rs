//! Seeded, deterministic rays for the ray-cast figures: the same rays go to Atoll and parry3d.

use atoll_physics::{Aabb, Vec3};

/// A ray: `origin + t dir` for `0 <= t <= max_t`; `dir` has unit length, so `t` is metres.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// Start, world space.
    pub origin: Vec3,
    /// Unit direction.
    pub dir: Vec3,
    /// Longest distance tested, metres.
    pub max_t: f32,
}

/// SplitMix64: tiny, fast and fully determined by its seed, so a run's rays are the same on
/// every machine (no dependency on `rand`'s version or platform).
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator starting from `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, 1)`: the top 24 bits, exact in f32.
    pub fn unit(&mut self) -> f32 {
        (self.next_u64() >> 40) as f32 / (1u32 << 24) as f32
    }

    /// Uniform in `[lo, hi)`.
    pub fn range(&mut self, lo: f32, hi: f32) -> f32 {
        lo + (hi - lo) * self.unit()
    }

    /// Uniform in the box.
    pub fn point_in(&mut self, b: &Aabb) -> Vec3 {
        Vec3::new(self.range(b.min.x, b.max.x), self.range(b.min.y, b.max.y), self.range(b.min.z, b.max.z))
    }

    /// Uniform on the unit sphere (Archimedes: z uniform in [-1, 1], longitude uniform).
    pub fn direction(&mut self) -> Vec3 {
        let z = self.range(-1.0, 1.0);
        let phi = self.range(0.0, std::f32::consts::TAU);
        let r = (1.0 - z * z).max(0.0).sqrt();
        Vec3::new(r * phi.cos(), r * phi.sin(), z).normalize()
    }
}

/// `count` rays from just under the top of `bounds`, aimed down within about 27° of vertical
/// (horizontal part up to half the vertical), long enough to cross the whole box: what the
/// editor's brush and picking cast.
pub fn down_rays(rng: &mut Rng, bounds: &Aabb, count: usize) -> Vec<Ray> {
    let max_t = (bounds.max - bounds.min).length();
    (0..count)
        .map(|_| {
            let mut origin = rng.point_in(bounds);
            origin.y = bounds.max.y - 1e-3;
            let dir = Vec3::new(rng.range(-0.5, 0.5), -1.0, rng.range(-0.5, 0.5)).normalize();
            Ray { origin, dir, max_t }
        })
        .collect()
}

/// `count` rays from random points in `bounds` in random directions, each `max_t` long.
pub fn random_rays(rng: &mut Rng, bounds: &Aabb, count: usize, max_t: f32) -> Vec<Ray> {
    (0..count).map(|_| Ray { origin: rng.point_in(bounds), dir: rng.direction(), max_t }).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bounds() -> Aabb {
        Aabb::new(Vec3::new(-24.0, -8.0, -24.0), Vec3::new(24.0, 12.0, 24.0))
    }

    #[test]
    fn same_seed_same_rays_other_seed_other_rays() {
        let a = random_rays(&mut Rng::new(7), &bounds(), 100, 5.0);
        let b = random_rays(&mut Rng::new(7), &bounds(), 100, 5.0);
        let c = random_rays(&mut Rng::new(8), &bounds(), 100, 5.0);
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert_eq!(down_rays(&mut Rng::new(1), &bounds(), 50), down_rays(&mut Rng::new(1), &bounds(), 50));
    }

    #[test]
    fn rays_start_inside_with_unit_directions() {
        let b = bounds();
        let mut rng = Rng::new(3);
        let rays = [down_rays(&mut rng, &b, 500), random_rays(&mut rng, &b, 500, 5.0)].concat();
        for r in &rays {
            assert!(b.min.cmple(r.origin).all() && r.origin.cmple(b.max).all(), "{r:?}");
            assert!((r.dir.length() - 1.0).abs() < 1e-5, "{r:?}");
        }
        assert!(rays[..500].iter().all(|r| r.dir.y < -0.8));
        // Random directions cover both hemispheres of every axis.
        for axis in 0..3 {
            assert!(rays[500..].iter().any(|r| r.dir[axis] > 0.5));
            assert!(rays[500..].iter().any(|r| r.dir[axis] < -0.5));
        }
    }

    #[test]
    fn unit_stays_in_range() {
        let mut rng = Rng::new(0);
        for _ in 0..10_000 {
            let u = rng.unit();
            assert!((0.0..1.0).contains(&u));
        }
    }
}
