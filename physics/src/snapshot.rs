//! Snapshots: capture and restore the whole world state, and a hash of every body's motion.

use crate::world::World;

/// A full copy of a world's state: bodies, broadphase trees, contacts with their warm-start
/// impulses, settings and step counter. Restoring it and stepping gives bit-identical results
/// to never having left. Hull geometry is shared, not copied.
#[derive(Clone, Debug)]
pub struct Snapshot {
    pub(crate) world: Box<World>,
}

impl Snapshot {
    /// The step count at which the snapshot was taken.
    pub fn step_count(&self) -> u64 {
        self.world.step_count()
    }

    /// The captured world, to read (for example to save it as a scene) without restoring it.
    pub fn world(&self) -> &World {
        &self.world
    }
}

/// 64-bit FNV-1a over the bits of every live body's index, generation, position, rotation,
/// linear and angular velocity, in slot order, then every live joint's index, generation,
/// enabled flag and warm-start impulses, in joint order (a world without joints hashes its
/// bodies only). Equal hashes mean bit-identical motion state.
pub fn state_hash(world: &World) -> u64 {
    let mut hash = Fnv64::new();
    for id in world.body_ids() {
        let b = world.body(id).expect("live id");
        hash.write_u32(id.index());
        hash.write_u32(id.generation());
        let t = b.transform;
        for v in [t.position, b.linear_velocity, b.angular_velocity] {
            hash.write_f32s(&v.to_array());
        }
        hash.write_f32s(&t.rotation.to_array());
    }
    world.hash_joints(|index, generation, enabled, impulses| {
        hash.write_u32(index);
        hash.write_u32(generation);
        hash.write_u32(enabled as u32);
        hash.write_f32s(impulses);
    });
    hash.finish()
}

struct Fnv64(u64);

impl Fnv64 {
    fn new() -> Self {
        Fnv64(0xcbf2_9ce4_8422_2325)
    }

    fn write_u32(&mut self, v: u32) {
        for b in v.to_le_bytes() {
            self.0 = (self.0 ^ b as u64).wrapping_mul(0x100_0000_01b3);
        }
    }

    fn write_f32s(&mut self, vs: &[f32]) {
        for v in vs {
            self.write_u32(v.to_bits());
        }
    }

    fn finish(&self) -> u64 {
        self.0
    }
}
