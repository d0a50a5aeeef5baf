//! Terrain in scene files: settings plus the stored chunks, each as run-length text (see
//! [`crate::terrain::rle`]). Chunks are written in coordinate order, so saving a terrain twice
//! gives the same text, and loading gives back exactly the voxels saved.

use super::fields::BoundedSeq;
use crate::error::AtollError;
use crate::terrain::MAX_STORED_CHUNKS;
use crate::terrain::{Chunk, ChunkCoord, Terrain, TerrainSettings, rle};
use serde::de::Error;
use serde::{Deserialize, Deserializer, Serialize};

/// A terrain as written in a scene file.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneTerrain {
    /// Voxel size and world bounds.
    pub settings: TerrainSettings,
    /// The chunks holding anything but air.
    #[serde(default, deserialize_with = "terrain_chunks")]
    pub chunks: Vec<SceneChunk>,
}

/// One stored chunk.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SceneChunk {
    /// Chunk coordinate (x, y, z).
    pub coord: [i32; 3],
    /// The voxels as runs of 8 hex digits: material, occupancy, length.
    pub runs: String,
}

impl SceneTerrain {
    /// The scene description of a terrain.
    pub fn from_terrain(t: &Terrain) -> SceneTerrain {
        SceneTerrain {
            settings: *t.settings(),
            chunks: t
                .chunks()
                .map(|(c, chunk)| SceneChunk { coord: [c.x, c.y, c.z], runs: rle::encode(chunk) })
                .collect(),
        }
    }

    /// Decodes and validates the terrain; errors name the chunk.
    pub fn to_terrain(&self) -> Result<Terrain, AtollError> {
        let mut chunks: Vec<(ChunkCoord, Chunk)> = Vec::with_capacity(self.chunks.len());
        for (i, c) in self.chunks.iter().enumerate() {
            let chunk = rle::decode(&c.runs).map_err(|e| {
                AtollError::invalid("terrain chunk", format!("chunk {i} at {:?}: {e}", c.coord))
            })?;
            chunks.push((ChunkCoord::new(c.coord[0], c.coord[1], c.coord[2]), chunk));
        }
        Terrain::from_chunks(self.settings, chunks)
    }
}

pub(super) fn terrain<'de, D: Deserializer<'de>>(d: D) -> Result<Option<SceneTerrain>, D::Error> {
    let t = Option::<SceneTerrain>::deserialize(d)?;
    if let Some(t) = &t {
        // Decoding is the validation: runs, materials, bounds, duplicates.
        t.to_terrain().map_err(D::Error::custom)?;
    }
    Ok(t)
}

fn terrain_chunks<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<SceneChunk>, D::Error> {
    d.deserialize_seq(BoundedSeq::<SceneChunk>::new(MAX_STORED_CHUNKS, "terrain chunks"))
}
