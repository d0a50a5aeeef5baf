//! The bounded cache of chunk meshes and kD trees. Entries are built on first use, dropped by
//! edits, and evicted least recently used first (by an access counter, ties by coordinate) once
//! their bytes pass the cap. What is cached never changes a query's answer, only its cost.
//!
//! A hit is the hot path of every world ray (one per chunk the walk tests), so it only looks
//! the entry up in a hash map and writes the access stamp into it; the least recently used
//! entry is searched for when evicting, which only a miss (a mesh build, far dearer) or a
//! smaller cap causes.

use super::Terrain;
use super::mesher::ChunkCollision;
use super::voxel::ChunkCoord;
use crate::hash::FastMap;
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
pub(super) struct MeshCache {
    /// Every entry with the clock value of its last use (unique, so eviction never ties
    /// within one cache; the coordinate breaks ties anyway, so the order is total).
    entries: FastMap<ChunkCoord, Entry>,
    clock: u64,
    stats: CacheStats,
}

impl Default for MeshCache {
    fn default() -> Self {
        MeshCache {
            entries: FastMap::default(),
            clock: 0,
            stats: CacheStats { capacity: DEFAULT_CACHE_BYTES, ..Default::default() },
        }
    }
}

impl MeshCache {
    fn remove(&mut self, c: ChunkCoord) -> bool {
        let Some(e) = self.entries.remove(&c) else { return false };
        self.stats.bytes -= e.data.bytes();
        self.stats.triangles -= e.data.mesh.triangle_count();
        self.stats.entries -= 1;
        true
    }

    /// Evicts the least recently used entries other than `keep` until under the cap. Each
    /// eviction scans the entries for the smallest (last use, coordinate): evictions happen on
    /// misses, which build a mesh and cost far more than the scan.
    fn trim(&mut self, keep: Option<ChunkCoord>) {
        while self.stats.bytes > self.stats.capacity {
            let victim =
                self.entries.iter().filter(|(c, _)| Some(**c) != keep).map(|(c, e)| (e.last_use, *c)).min();
            let Some((_, c)) = victim else { break };
            self.remove(c);
            self.stats.evictions += 1;
        }
    }

    /// Chunk `c`'s mesh and tree, from the cache or built now (`None` for chunks that store no
    /// voxels). A hit stamps the entry and counts; nothing else moves.
    #[inline]
    pub(super) fn get(&mut self, terrain: &Terrain, c: ChunkCoord) -> Option<&Arc<ChunkCollision>> {
        if !terrain.is_stored(c) {
            return None;
        }
        self.get_stored(terrain, c)
    }

    /// [`MeshCache::get`] for a chunk the caller knows stores voxels (the ray walk asks the
    /// index first, to skip air chunks before its slab test), saving a second index lookup.
    #[inline]
    pub(super) fn get_stored(&mut self, terrain: &Terrain, c: ChunkCoord) -> Option<&Arc<ChunkCollision>> {
        debug_assert!(terrain.is_stored(c));
        self.clock += 1;
        let now = self.clock;
        // Two lookups on a hit rather than one, because returning the borrow of the first from
        // inside the `if let` would keep `self.entries` borrowed on the miss path too.
        if self.entries.contains_key(&c) {
            self.stats.hits += 1;
        } else {
            let start = Instant::now();
            let data = Arc::new(terrain.build_chunk_collision(c));
            self.stats.last_build = start.elapsed();
            self.stats.misses += 1;
            self.stats.bytes += data.bytes();
            self.stats.triangles += data.mesh.triangle_count();
            self.stats.entries += 1;
            self.entries.insert(c, Entry { data, last_use: now });
            self.trim(Some(c));
        }
        let e = self.entries.get_mut(&c)?;
        e.last_use = now;
        Some(&e.data)
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
    pub(super) fn lock(&self) -> MutexGuard<'_, MeshCache> {
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
        self.cache.lock().get(self, c).cloned()
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
        let mut all: Vec<ChunkCoord> = self.cache.lock().entries.keys().copied().collect();
        all.sort_unstable();
        all
    }
}
