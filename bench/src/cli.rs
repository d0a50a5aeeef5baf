//! The command line: `atoll-bench [SCENES...] [--steps N] [--repeats R] [--threads N] [--json FILE]`
//! (`atoll-bench terrain ...`, the terrain figures, has its own: `terrain::cli`).

use std::path::PathBuf;

/// Steps per repeat unless `--steps` says otherwise: 5 s of simulated time, long enough for
/// the rain to land and a pyramid that cannot stand to fall.
pub const DEFAULT_STEPS: usize = 300;
/// Repeats per engine and scene unless `--repeats` says otherwise.
pub const DEFAULT_REPEATS: usize = 3;

/// What to run.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// Scene names; empty means every scene.
    pub scenes: Vec<String>,
    /// Steps per repeat.
    pub steps: usize,
    /// Repeats per engine and scene (the engines take turns).
    pub repeats: usize,
    /// Threads per engine; above 1, every engine also runs on one thread, for its speed-up.
    pub threads: usize,
    /// Where to write the results as JSON.
    pub json: Option<PathBuf>,
    /// Write the chosen scenes, with the benchmark's settings, as RON files into this folder
    /// (for `atoll run` and profilers) instead of running them.
    pub write_scenes: Option<PathBuf>,
}

/// The usage text.
pub fn usage(scene_names: &[&str]) -> String {
    format!(
        "usage: atoll-bench [SCENES...] [--steps N] [--repeats R] [--threads N] [--json FILE] [--write-scenes DIR]\n\
         scenes: {} (default: all)\n\
         --steps N     steps per repeat (default {DEFAULT_STEPS})\n\
         --repeats R   fresh worlds per engine and scene, Atoll, Rapier and Box3D in turn (default {DEFAULT_REPEATS})\n\
         --threads N   threads per engine (default 1); above 1 each engine also runs on one thread and the\n\
         \x20             table gains its speed-up (Rapier threads only when built with --features rapier-parallel)\n\
         --json FILE   also write the results as JSON\n\
         --write-scenes DIR  write the scenes with the benchmark's settings as RON files and stop\n\
         atoll-bench terrain --help   the terrain figures against parry3d (issue 6)",
        scene_names.join(", ")
    )
}

/// Parses the arguments after the program name; `Ok(None)` asks for the usage text.
pub fn parse(
    args: impl IntoIterator<Item = String>,
    scene_names: &[&str],
) -> Result<Option<Options>, String> {
    let mut options = Options {
        scenes: Vec::new(),
        steps: DEFAULT_STEPS,
        repeats: DEFAULT_REPEATS,
        threads: 1,
        json: None,
        write_scenes: None,
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |flag: &str| args.next().ok_or_else(|| format!("{flag} needs a value"));
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "--steps" => options.steps = positive("--steps", &value("--steps")?)?,
            "--repeats" => options.repeats = positive("--repeats", &value("--repeats")?)?,
            "--threads" => options.threads = positive("--threads", &value("--threads")?)?,
            "--json" => options.json = Some(PathBuf::from(value("--json")?)),
            "--write-scenes" => options.write_scenes = Some(PathBuf::from(value("--write-scenes")?)),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag}")),
            name if scene_names.contains(&name) => options.scenes.push(name.to_string()),
            name => return Err(format!("unknown scene {name} (scenes: {})", scene_names.join(", "))),
        }
    }
    Ok(Some(options))
}

/// `text` as a whole number above zero, or an error naming `flag`.
pub fn positive(flag: &str, text: &str) -> Result<usize, String> {
    match text.parse::<usize>() {
        Ok(n) if n > 0 => Ok(n),
        _ => Err(format!("{flag} wants a positive whole number, got {text:?}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_scenes_and_flags() {
        let o = parse(
            args("rain --steps 10 tumbler --repeats 2 --threads 2 --json out.json --write-scenes dir"),
            &["rain", "tumbler"],
        )
        .unwrap()
        .unwrap();
        assert_eq!(o.scenes, ["rain", "tumbler"]);
        assert_eq!((o.steps, o.repeats, o.threads), (10, 2, 2));
        assert_eq!(o.json, Some(PathBuf::from("out.json")));
        assert_eq!(o.write_scenes, Some(PathBuf::from("dir")));
    }

    #[test]
    fn defaults_and_errors() {
        let o = parse(args(""), &["rain"]).unwrap().unwrap();
        assert!(o.scenes.is_empty());
        assert_eq!((o.steps, o.repeats, o.threads, o.json), (DEFAULT_STEPS, DEFAULT_REPEATS, 1, None));
        assert_eq!(parse(args("--help"), &[]).unwrap(), None);
        assert!(parse(args("--steps 0"), &[]).is_err());
        assert!(parse(args("--steps"), &[]).is_err());
        assert!(parse(args("--threads 0"), &[]).is_err());
        assert!(parse(args("lake"), &["rain"]).is_err());
        assert!(parse(args("--fast"), &[]).is_err());
    }
}
