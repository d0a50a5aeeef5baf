//! Voxels, chunk coordinates and chunks: the stored terrain data.

use crate::error::AtollError;
use glam::IVec3;
use serde::{Deserialize, Serialize};

/// Voxels along each edge of a chunk.
pub const CHUNK_SIZE: i32 = 8;
/// Voxels in a chunk.
pub const CHUNK_VOXELS: usize = 512;
/// Occupancy at or above which a voxel is inside its field's surface. The mesher's iso level is
/// 127.5, so "inside" for the mesher and "set" for the masks are the same test.
pub const SURFACE_LEVEL: u8 = 128;

/// What a voxel is made of. Stored as one byte.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[repr(u8)]
pub enum VoxelMaterial {
    /// Empty space; always has occupancy 0.
    #[default]
    Air = 0,
    /// Solid rock.
    Rock = 1,
    /// Solid dirt.
    Dirt = 2,
    /// Solid sand.
    Sand = 3,
    /// Solid grass-covered ground.
    Grass = 4,
    /// Water: not solid, meshed and masked on its own.
    Water = 5,
}

impl VoxelMaterial {
    /// Every material, in byte order.
    pub const ALL: [VoxelMaterial; 6] = [
        VoxelMaterial::Air,
        VoxelMaterial::Rock,
        VoxelMaterial::Dirt,
        VoxelMaterial::Sand,
        VoxelMaterial::Grass,
        VoxelMaterial::Water,
    ];

    /// The material stored as byte `b`, if any.
    pub fn from_u8(b: u8) -> Option<VoxelMaterial> {
        Self::ALL.get(b as usize).copied()
    }

    /// True for the kinds bodies collide with.
    pub fn is_solid(self) -> bool {
        matches!(self, VoxelMaterial::Rock | VoxelMaterial::Dirt | VoxelMaterial::Sand | VoxelMaterial::Grass)
    }
}

/// One voxel: a material and how much of the voxel it fills (0..=255).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "VoxelFields")]
pub struct Voxel {
    /// What the voxel is made of.
    pub material: VoxelMaterial,
    /// How full the voxel is; 0 exactly when the material is air.
    pub occupancy: u8,
}

/// A voxel as read from a file, before it is checked to be canonical.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct VoxelFields {
    material: VoxelMaterial,
    occupancy: u8,
}

impl TryFrom<VoxelFields> for Voxel {
    type Error = AtollError;

    fn try_from(v: VoxelFields) -> Result<Voxel, AtollError> {
        Voxel::new(v.material, v.occupancy)
    }
}

impl Voxel {
    /// Empty space.
    pub const AIR: Voxel = Voxel { material: VoxelMaterial::Air, occupancy: 0 };

    /// A voxel, checked to be canonical: air has occupancy 0 and nothing else does, so that
    /// "all air" has one representation and empty chunks can be recognised and dropped.
    pub fn new(material: VoxelMaterial, occupancy: u8) -> Result<Voxel, AtollError> {
        if (material == VoxelMaterial::Air) != (occupancy == 0) {
            return Err(AtollError::invalid(
                "voxel",
                format!(
                    "{material:?} with occupancy {occupancy}: air must have occupancy 0 and only air may"
                ),
            ));
        }
        Ok(Voxel { material, occupancy })
    }

    /// A voxel of `material` with `occupancy`, made canonical (occupancy 0 becomes air).
    pub(crate) fn canonical(material: VoxelMaterial, occupancy: u8) -> Voxel {
        if occupancy == 0 || material == VoxelMaterial::Air {
            Voxel::AIR
        } else {
            Voxel { material, occupancy }
        }
    }

    /// Density of the solid field: the occupancy of a solid voxel, 0 otherwise.
    #[inline]
    pub fn solid_density(self) -> u8 {
        if self.material.is_solid() { self.occupancy } else { 0 }
    }

    /// Density of the water field: the occupancy of a water voxel, 0 otherwise.
    #[inline]
    pub fn water_density(self) -> u8 {
        if self.material == VoxelMaterial::Water { self.occupancy } else { 0 }
    }

    /// Inside the solid surface (the test behind both the solid mask and the mesher).
    #[inline]
    pub fn is_solid(self) -> bool {
        self.solid_density() >= SURFACE_LEVEL
    }

    /// Inside the water surface.
    #[inline]
    pub fn is_water(self) -> bool {
        self.water_density() >= SURFACE_LEVEL
    }
}

/// A chunk's position in chunk units (chunk `c` holds voxels `8c .. 8c + 8`). Ordered by x,
/// then y, then z, which is the terrain's deterministic iteration order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct ChunkCoord {
    /// Chunk x.
    pub x: i32,
    /// Chunk y.
    pub y: i32,
    /// Chunk z.
    pub z: i32,
}

impl ChunkCoord {
    /// A chunk coordinate.
    pub const fn new(x: i32, y: i32, z: i32) -> ChunkCoord {
        ChunkCoord { x, y, z }
    }

    /// The chunk holding voxel `v`.
    #[inline]
    pub fn of_voxel(v: IVec3) -> ChunkCoord {
        // Arithmetic shift floors, so negative voxels land in negative chunks.
        ChunkCoord { x: v.x >> 3, y: v.y >> 3, z: v.z >> 3 }
    }

    /// The chunk's first voxel.
    #[inline]
    pub fn origin_voxel(self) -> IVec3 {
        IVec3::new(self.x, self.y, self.z) * CHUNK_SIZE
    }

    /// As a vector.
    #[inline]
    pub fn to_ivec3(self) -> IVec3 {
        IVec3::new(self.x, self.y, self.z)
    }

    /// The chunk at integer vector `v`.
    #[inline]
    pub fn from_ivec3(v: IVec3) -> ChunkCoord {
        ChunkCoord { x: v.x, y: v.y, z: v.z }
    }
}

/// Index of local voxel `l` (each component 0..8) in a chunk: x fastest, then z, then y, so that
/// one Y slice is 64 consecutive voxels in the same order as a mask's bits.
#[inline]
pub fn voxel_index(l: IVec3) -> usize {
    (l.x + CHUNK_SIZE * l.z + CHUNK_SIZE * CHUNK_SIZE * l.y) as usize
}

/// The local voxel at index `i` (inverse of [`voxel_index`]).
#[inline]
pub fn index_voxel(i: usize) -> IVec3 {
    let i = i as i32;
    IVec3::new(i & 7, i >> 6, (i >> 3) & 7)
}

/// 8×8×8 voxels.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Chunk {
    voxels: Box<[Voxel; CHUNK_VOXELS]>,
}

impl Default for Chunk {
    fn default() -> Self {
        Chunk { voxels: Box::new([Voxel::AIR; CHUNK_VOXELS]) }
    }
}

impl Chunk {
    /// A chunk of air.
    pub fn empty() -> Chunk {
        Chunk::default()
    }

    /// The voxel at local position `l` (each component 0..8).
    #[inline]
    pub fn get(&self, l: IVec3) -> Voxel {
        self.voxels[voxel_index(l)]
    }

    /// Sets the voxel at local position `l`.
    #[inline]
    pub(crate) fn set(&mut self, l: IVec3, v: Voxel) {
        self.voxels[voxel_index(l)] = v;
    }

    /// All voxels in [`voxel_index`] order.
    pub fn voxels(&self) -> &[Voxel; CHUNK_VOXELS] {
        &self.voxels
    }

    /// Mutable voxels, for whole-chunk builders.
    pub(crate) fn voxels_mut(&mut self) -> &mut [Voxel; CHUNK_VOXELS] {
        &mut self.voxels
    }

    /// True when every voxel is air.
    pub fn is_empty(&self) -> bool {
        self.voxels.iter().all(|v| *v == Voxel::AIR)
    }
}
