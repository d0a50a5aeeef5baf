//! Command-line parsing and dispatch.

use crate::{builtin, runner};
use std::path::PathBuf;

/// The default scene, used when `atoll` runs with no arguments.
pub const DEFAULT_SCENE: &str = "pyramid_3d.ron";

const USAGE: &str = "usage:
  atoll                                   run the default scene headless (the editor comes later)
  atoll run SCENE.ron [--steps N] [--json] [--warmup N] [--no-sleep]
                                          step a scene headless; print median stage times,
                                          island management against the reference builder,
                                          counters and the final state hash
  atoll generate-scenes DIR               write the built-in scenes as RON files into DIR";

/// A parsed command line.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Step a scene headless.
    Run(runner::RunOptions),
    /// Write the built-in scenes.
    GenerateScenes(PathBuf),
    /// Print usage.
    Help,
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let Some(first) = args.first() else {
        return Ok(Command::Run(runner::RunOptions::new(scenes_dir().join(DEFAULT_SCENE))));
    };
    match first.as_str() {
        "run" => parse_run(&args[1..]),
        "generate-scenes" => match &args[1..] {
            [dir] => Ok(Command::GenerateScenes(PathBuf::from(dir))),
            _ => Err(format!("generate-scenes takes one directory\n{USAGE}")),
        },
        "-h" | "--help" | "help" => Ok(Command::Help),
        other => Err(format!("unknown command `{other}`\n{USAGE}")),
    }
}

fn parse_run(args: &[String]) -> Result<Command, String> {
    let mut scene = None;
    let mut options = runner::RunOptions::new(PathBuf::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--steps" => options.steps = number(it.next(), "--steps")?,
            "--warmup" => options.warmup = number(it.next(), "--warmup")?,
            "--json" => options.json = true,
            "--no-sleep" => options.sleep = false,
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`\n{USAGE}")),
            path if scene.is_none() => scene = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    options.scene = scene.ok_or_else(|| format!("run needs a scene file\n{USAGE}"))?;
    Ok(Command::Run(options))
}

fn number(value: Option<&String>, flag: &str) -> Result<u32, String> {
    let v = value.ok_or_else(|| format!("{flag} needs a number"))?;
    v.parse().map_err(|_| format!("{flag} needs a whole number, got `{v}`"))
}

/// The built-in scenes folder: `./scenes` when run from the checkout, else the one beside the
/// crate sources.
pub fn scenes_dir() -> PathBuf {
    let local = PathBuf::from("scenes");
    if local.is_dir() { local } else { PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../scenes")) }
}

/// Runs a parsed command.
pub fn execute(command: Command) -> Result<(), String> {
    match command {
        Command::Run(options) => runner::run(&options),
        Command::GenerateScenes(dir) => builtin::write_all(&dir),
        Command::Help => {
            println!("{USAGE}");
            Ok(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(String::from).collect()
    }

    #[test]
    fn parses_run_with_options() {
        let Command::Run(o) = parse(&args("run scenes/tower.ron --steps 50 --json")).unwrap() else {
            panic!("expected run");
        };
        assert_eq!(o.scene, PathBuf::from("scenes/tower.ron"));
        assert_eq!(o.steps, 50);
        assert!(o.json);
    }

    #[test]
    fn bare_command_runs_default_scene() {
        let Command::Run(o) = parse(&[]).unwrap() else { panic!("expected run") };
        assert!(o.scene.ends_with(DEFAULT_SCENE));
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(parse(&args("run")).unwrap_err().contains("needs a scene"));
        assert!(parse(&args("run a.ron --steps x")).unwrap_err().contains("whole number"));
        assert!(parse(&args("run a.ron --fast")).unwrap_err().contains("unknown option"));
        assert!(parse(&args("fly")).unwrap_err().contains("unknown command"));
    }
}
