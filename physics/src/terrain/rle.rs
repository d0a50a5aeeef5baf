//! Run-length encoding of a chunk's voxels for scene files: runs of equal (material, occupancy)
//! in voxel index order, each written as 8 hex digits `MMOOLLLL` (material byte, occupancy
//! byte, run length 1..=512). An all-solid chunk is one run, eight characters.

use super::voxel::{CHUNK_VOXELS, Chunk, Voxel, VoxelMaterial};

/// Encodes a chunk's voxels as runs.
pub fn encode(chunk: &Chunk) -> String {
    let v = chunk.voxels();
    let mut out = String::new();
    let mut i = 0;
    while i < CHUNK_VOXELS {
        let mut j = i + 1;
        while j < CHUNK_VOXELS && v[j] == v[i] {
            j += 1;
        }
        out.push_str(&format!("{:02x}{:02x}{:04x}", v[i].material as u8, v[i].occupancy, j - i));
        i = j;
    }
    out
}

/// Decodes runs written by [`encode`]; says what is wrong with malformed text.
pub fn decode(text: &str) -> Result<Chunk, String> {
    if !text.len().is_multiple_of(8) || !text.bytes().all(|b| b.is_ascii_hexdigit()) {
        return Err("runs must be groups of 8 hex digits (material, occupancy, length)".into());
    }
    let mut chunk = Chunk::empty();
    let mut at = 0usize;
    for (k, run) in text.as_bytes().chunks(8).enumerate() {
        let hex = |r: &[u8]| u32::from_str_radix(std::str::from_utf8(r).expect("ascii"), 16).expect("hex");
        let (m, o, len) = (hex(&run[0..2]) as u8, hex(&run[2..4]) as u8, hex(&run[4..8]) as usize);
        let material = VoxelMaterial::from_u8(m).ok_or_else(|| format!("run {k}: unknown material {m}"))?;
        let voxel = Voxel::new(material, o).map_err(|e| format!("run {k}: {e}"))?;
        if len == 0 || at + len > CHUNK_VOXELS {
            return Err(format!("run {k}: length {len} runs past the chunk's {CHUNK_VOXELS} voxels"));
        }
        chunk.voxels_mut()[at..at + len].fill(voxel);
        at += len;
    }
    if at != CHUNK_VOXELS {
        return Err(format!("runs cover {at} voxels, a chunk has {CHUNK_VOXELS}"));
    }
    Ok(chunk)
}
