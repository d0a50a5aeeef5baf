//! The terrain mode's command line:
//! `atoll-bench terrain [--repeats R] [--rays N] [--chunk-rays K] [--quick] [--json FILE]`.

use super::raycast::RayCounts;
use crate::cli::positive;
use std::path::PathBuf;

/// Repeats of every timed figure unless `--repeats` says otherwise.
pub const DEFAULT_REPEATS: usize = 10;
/// Rays of each world set unless `--rays` says otherwise.
pub const DEFAULT_WORLD_RAYS: usize = 20_000;
/// Rays per chunk unless `--chunk-rays` says otherwise.
pub const DEFAULT_CHUNK_RAYS: usize = 64;
/// `--quick`: one repeat and few rays, a smoke run for CI (a second or two).
const QUICK: (usize, usize, usize) = (1, 500, 4);

/// What the terrain mode runs.
#[derive(Clone, Debug, PartialEq)]
pub struct TerrainOptions {
    /// Repeats of every timed figure.
    pub repeats: usize,
    /// Ray counts.
    pub rays: RayCounts,
    /// Where to write the results as JSON.
    pub json: Option<PathBuf>,
}

/// The usage text.
pub fn usage() -> String {
    format!(
        "usage: atoll-bench terrain [--repeats R] [--rays N] [--chunk-rays K] [--quick] [--json FILE]\n\
         Terrain figures on the built-in hills, cave and lake, Atoll against parry3d's TriMesh.\n\
         --repeats R     repeats of every timed figure (default {DEFAULT_REPEATS})\n\
         --rays N        rays of each world ray set (default {DEFAULT_WORLD_RAYS})\n\
         --chunk-rays K  chunk-local rays per chunk with triangles (default {DEFAULT_CHUNK_RAYS})\n\
         --quick         a smoke run: {} repeat, {} world rays, {} per chunk, unless given\n\
         --json FILE     also write the results as JSON",
        QUICK.0, QUICK.1, QUICK.2
    )
}

/// Parses the arguments after `terrain`; `Ok(None)` asks for the usage text.
pub fn parse(args: impl IntoIterator<Item = String>) -> Result<Option<TerrainOptions>, String> {
    let (mut repeats, mut world, mut per_chunk, mut json, mut quick) = (None, None, None, None, false);
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--repeats" => repeats = Some(positive("--repeats", &value("--repeats")?)?),
            "--rays" => world = Some(positive("--rays", &value("--rays")?)?),
            // At least two, so both halves (from above, from inside) get rays.
            "--chunk-rays" => per_chunk = Some(positive("--chunk-rays", &value("--chunk-rays")?)?.max(2)),
            "--json" => json = Some(PathBuf::from(value("--json")?)),
            "--quick" => quick = true,
            other => return Err(format!("terrain: unknown argument {other}")),
        }
    }
    let defaults = if quick { QUICK } else { (DEFAULT_REPEATS, DEFAULT_WORLD_RAYS, DEFAULT_CHUNK_RAYS) };
    Ok(Some(TerrainOptions {
        repeats: repeats.unwrap_or(defaults.0),
        rays: RayCounts { world: world.unwrap_or(defaults.1), per_chunk: per_chunk.unwrap_or(defaults.2) },
        json,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_line(line: &str) -> Result<Option<TerrainOptions>, String> {
        parse(line.split_whitespace().map(String::from))
    }

    #[test]
    fn defaults_quick_and_overrides() {
        let o = parse_line("").unwrap().unwrap();
        assert_eq!(o.repeats, DEFAULT_REPEATS);
        assert_eq!(o.rays, RayCounts { world: DEFAULT_WORLD_RAYS, per_chunk: DEFAULT_CHUNK_RAYS });
        let q = parse_line("--quick --rays 100 --json t.json").unwrap().unwrap();
        assert_eq!((q.repeats, q.rays.world, q.rays.per_chunk), (QUICK.0, 100, QUICK.2));
        assert_eq!(q.json, Some(PathBuf::from("t.json")));
        assert_eq!(parse_line("--chunk-rays 1").unwrap().unwrap().rays.per_chunk, 2);
    }

    #[test]
    fn errors_and_help() {
        assert_eq!(parse_line("-h").unwrap(), None);
        assert!(parse_line("--repeats 0").is_err());
        assert!(parse_line("--rays").is_err());
        assert!(parse_line("rain").is_err());
    }
}
