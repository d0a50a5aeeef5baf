//! The bounded cache of chunk meshes and kD trees. Entries are built on first use, dropped by
//! edits, and evicted least recently used first (by an access counter, ties by coordinate) once
//! their bytes pass the cap. What is cached never changes a query's answer, only its cost.

use super::Terrain;
use super::mesher::ChunkCollision;
use super::voxel::ChunkCoord;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

/// The default memory cap of the cache, bytes.
pub const DEFAULT_CACHE_BYTES: usize = 16 << 20;

/// Counters of the mesh cache.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct CacheStats {
    /// Lookups that found an entry.
    pub hits: u64,
    /// Lookups that built one.
    pub misses: u64,
    /// Entries evicted to stay under the cap.
    pub evictions: u64,
    /// Entries held.
    pub entries: usize,
    /// Bytes of mesh and tree data held.
    pub bytes: usize,
    /// Triangles held.
    pub triangles: usize,
    /// The cap, bytes.
    pub capacity: usize,
    /// Time to build the last entry (mesh and tree).
    pub last_build: Duration,
}

#[derive(Clone, Debug)]
struct Entry {
    data: Arc<ChunkCollision>,
    last_use: u64,
}

#[derive(Clone, Debug)]
struct MeshCache {
    entries: BTreeMap<ChunkCoord, Entry>,
    /// (last use, coordinate) of every entry: the eviction order.
    order: BTreeSet<(u64, ChunkCoord)>,
    clock: u64,
    stats: CacheStats,
}

impl Default for MeshCache {
    fn default() -> Self {
        MeshCache {
            entries: BTreeMap::new(),
            order: BTreeSet::new(),
            clock: 0,
            stats: CacheStats { capacity: DEFAULT_CACHE_BYTES, ..Default::default() },
        }
    }
}

impl MeshCache {
    fn remove(&mut self, c: ChunkCoord) -> bool {
        let Some(e) = self.entries.remove(&c) else { return false };
        self.order.remove(&(e.last_use, c));
        self.stats.bytes -= e.data.bytes();
        self.stats.triangles -= e.data.mesh.triangle_count();
        self.stats.entries -= 1;
        true
    }

    /// Evicts the least recently used entries other than `keep` until under the cap.
    fn trim(&mut self, keep: Option<ChunkCoord>) {
        while self.stats.bytes > self.stats.capacity {
            let Some(&(_, c)) = self.order.iter().find(|(_, c)| Some(*c) != keep) else { break };
            self.remove(c);
            self.stats.evictions += 1;
        }
    }
}

/// The cache behind a lock, so queries can fill it through `&Terrain`.
#[derive(Debug, Default)]
pub(super) struct CacheCell(Mutex<MeshCache>);

impl Clone for CacheCell {
    fn clone(&self) -> Self {
        CacheCell(Mutex::new(self.lock().clone()))
    }
}

impl CacheCell {
    fn lock(&self) -> MutexGuard<'_, MeshCache> {
        // A panic while building leaves the cache consistent (entries are inserted whole).
        self.0.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Drops the entries of `coords`.
    pub(super) fn invalidate(&self, coords: impl IntoIterator<Item = ChunkCoord>) {
        let mut cache = self.lock();
        for c in coords {
            cache.remove(c);
        }
    }
}

impl Terrain {
    /// Chunk `c`'s mesh and kD tree, from the cache or built now (`None` for chunks that store
    /// no voxels: they emit no triangles).
    pub fn chunk_collision(&self, c: ChunkCoord) -> Option<Arc<ChunkCollision>> {
        self.chunks.get(&c)?;
        let mut cache = self.cache.lock();
        cache.clock += 1;
        let now = cache.clock;
        if let Some(e) = cache.entries.get_mut(&c) {
            let before = e.last_use;
            e.last_use = now;
            let data = e.data.clone();
            cache.order.remove(&(before, c));
            cache.order.insert((now, c));
            cache.stats.hits += 1;
            return Some(data);
        }
        let start = Instant::now();
        let data = Arc::new(self.build_chunk_collision(c));
        cache.stats.last_build = start.elapsed();
        cache.stats.misses += 1;
        cache.stats.bytes += data.bytes();
        cache.stats.triangles += data.mesh.triangle_count();
        cache.stats.entries += 1;
        cache.entries.insert(c, Entry { data: data.clone(), last_use: now });
        cache.order.insert((now, c));
        cache.trim(Some(c));
        Some(data)
    }

    /// The cache's counters.
    pub fn cache_stats(&self) -> CacheStats {
        self.cache.lock().stats
    }

    /// Sets the cache's memory cap (bytes), evicting at once if needed.
    pub fn set_cache_capacity(&self, bytes: usize) {
        let mut cache = self.cache.lock();
        cache.stats.capacity = bytes;
        cache.trim(None);
    }

    /// Empties the cache (counters other than sizes are kept).
    pub fn clear_cache(&self) {
        let mut cache = self.cache.lock();
        let all: Vec<ChunkCoord> = cache.entries.keys().copied().collect();
        for c in all {
            cache.remove(c);
        }
    }

    /// The chunks cached now, in coordinate order.
    pub fn cached_chunks(&self) -> Vec<ChunkCoord> {
        self.cache.lock().entries.keys().copied().collect()
    }
}
