//! Command-line parsing and dispatch.

use crate::render::{ColourMode, Overlays};
use crate::scenes::{DEFAULT_SCENE, scenes_dir};
use crate::{builtin, editor, frame_bench, runner, shot};
use std::path::PathBuf;

const USAGE: &str = "usage:
  atoll [SCENE.ron]                       open the editor (on the default scene without a file)
  atoll run SCENE.ron [--steps N] [--json] [--warmup N] [--no-sleep] [--threads N]
                                          step a scene headless; print median stage times,
                                          island management against the reference builder,
                                          counters and the final state hash
  atoll shot SCENE.ron [--steps N] --out FILE.png [--size WxH]
             [--overlay aabbs,fat-aabbs,contacts,velocities,axes,tree,joints] [--colour body|island|sleep]
                                          step a scene headless, render it offscreen, write a PNG
  atoll bench [SCENE.ron] [--frames N] [--warmup N] [--size WxH] [--overlay LIST] [--json]
                                          the CPU cost of an editor frame (UI, overlay lines,
                                          instance upload; not the step, not GPU time) on a
                                          scene kept awake, by default the 2000-box tumbler
  atoll generate-scenes DIR               write the built-in scenes as RON files into DIR";

/// A parsed command line.
#[derive(Debug, PartialEq)]
pub enum Command {
    /// Open the editor window on a scene file.
    Editor(PathBuf),
    /// Step a scene headless.
    Run(runner::RunOptions),
    /// Render a scene offscreen into a PNG.
    Shot(Box<shot::ShotOptions>),
    /// Measure the CPU cost of editor frames.
    Bench(frame_bench::FrameBenchOptions),
    /// Write the built-in scenes.
    GenerateScenes(PathBuf),
    /// Print usage.
    Help,
}

/// Parses the arguments after the program name.
pub fn parse(args: &[String]) -> Result<Command, String> {
    let Some(first) = args.first() else {
        return Ok(Command::Editor(scenes_dir().join(DEFAULT_SCENE)));
    };
    match first.as_str() {
        "run" => parse_run(&args[1..]),
        "shot" => parse_shot(&args[1..]),
        "bench" => parse_bench(&args[1..]),
        "generate-scenes" => match &args[1..] {
            [dir] => Ok(Command::GenerateScenes(PathBuf::from(dir))),
            _ => Err(format!("generate-scenes takes one directory\n{USAGE}")),
        },
        "-h" | "--help" | "help" => Ok(Command::Help),
        scene if scene.ends_with(".ron") && args.len() == 1 => Ok(Command::Editor(PathBuf::from(scene))),
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
            "--threads" => options.threads = number(it.next(), "--threads")?,
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`\n{USAGE}")),
            path if scene.is_none() => scene = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    options.scene = scene.ok_or_else(|| format!("run needs a scene file\n{USAGE}"))?;
    Ok(Command::Run(options))
}

fn parse_shot(args: &[String]) -> Result<Command, String> {
    let mut scene = None;
    let mut out = None;
    let mut options = shot::ShotOptions::new(PathBuf::new(), PathBuf::new());
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--steps" => options.steps = number(it.next(), "--steps")?,
            "--out" => out = Some(PathBuf::from(it.next().ok_or("--out needs a file name")?)),
            "--size" => options.size = size(it.next())?,
            "--overlay" => overlays(it.next(), &mut options.view.overlays)?,
            "--colour" => options.view.colour_mode = colour_mode(it.next())?,
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`\n{USAGE}")),
            path if scene.is_none() => scene = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    options.scene = scene.ok_or_else(|| format!("shot needs a scene file\n{USAGE}"))?;
    options.out = out.ok_or_else(|| format!("shot needs --out FILE.png\n{USAGE}"))?;
    Ok(Command::Shot(Box::new(options)))
}

fn parse_bench(args: &[String]) -> Result<Command, String> {
    let mut options = frame_bench::FrameBenchOptions::new(scenes_dir().join("tumbler.ron"));
    let mut scene = None;
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--frames" => options.frames = number(it.next(), "--frames")?.max(1),
            "--warmup" => options.warmup = number(it.next(), "--warmup")?,
            "--size" => options.size = size(it.next())?,
            "--overlay" => overlays(it.next(), &mut options.overlays)?,
            "--json" => options.json = true,
            flag if flag.starts_with("--") => return Err(format!("unknown option `{flag}`\n{USAGE}")),
            path if scene.is_none() => scene = Some(PathBuf::from(path)),
            extra => return Err(format!("unexpected argument `{extra}`\n{USAGE}")),
        }
    }
    if let Some(scene) = scene {
        options.scene = scene;
    }
    Ok(Command::Bench(options))
}

/// Parses a comma-separated overlay list into `overlays`.
fn overlays(value: Option<&String>, overlays: &mut Overlays) -> Result<(), String> {
    let list = value.ok_or("--overlay needs a list, e.g. aabbs,contacts")?;
    for name in list.split(',').map(str::trim) {
        match name {
            "aabbs" => overlays.aabbs = true,
            "fat-aabbs" => overlays.fat_aabbs = true,
            "contacts" => overlays.contacts = true,
            "velocities" => overlays.velocities = true,
            "axes" => overlays.axes = true,
            "tree" => overlays.tree = true,
            "joints" => overlays.joints = true,
            other => {
                return Err(format!(
                    "unknown overlay `{other}` (aabbs, fat-aabbs, contacts, velocities, axes, tree, joints)"
                ));
            }
        }
    }
    Ok(())
}

/// Parses `body`, `island` or `sleep`.
fn colour_mode(value: Option<&String>) -> Result<ColourMode, String> {
    match value.map(String::as_str) {
        Some("body") => Ok(ColourMode::Body),
        Some("island") => Ok(ColourMode::Island),
        Some("sleep") => Ok(ColourMode::SleepTimer),
        other => Err(format!("--colour needs body, island or sleep, got {other:?}")),
    }
}

/// Parses `WxH`, each side from 1 to 8192 pixels.
fn size(value: Option<&String>) -> Result<[u32; 2], String> {
    let v = value.ok_or("--size needs WxH, e.g. 1280x720")?;
    let parsed = v.split_once(['x', 'X']).and_then(|(w, h)| Some([w.parse().ok()?, h.parse().ok()?]));
    match parsed {
        Some([w, h]) if (1..=8192).contains(&w) && (1..=8192).contains(&h) => Ok([w, h]),
        _ => Err(format!("--size needs WxH with sides from 1 to 8192, got `{v}`")),
    }
}

fn number(value: Option<&String>, flag: &str) -> Result<u32, String> {
    let v = value.ok_or_else(|| format!("{flag} needs a number"))?;
    v.parse().map_err(|_| format!("{flag} needs a whole number, got `{v}`"))
}

/// Runs a parsed command.
pub fn execute(command: Command) -> Result<(), String> {
    match command {
        Command::Editor(scene) => editor::run_window(&scene),
        Command::Run(options) => runner::run(&options),
        Command::Shot(options) => shot::shot(&options),
        Command::Bench(options) => frame_bench::run(&options),
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
    fn bare_command_opens_the_editor_on_the_default_scene() {
        let Command::Editor(scene) = parse(&[]).unwrap() else { panic!("expected the editor") };
        assert!(scene.ends_with(DEFAULT_SCENE));
    }

    #[test]
    fn parses_shot() {
        let Command::Shot(o) =
            parse(&args("shot scenes/tower.ron --steps 5 --out t.png --size 320x200")).unwrap()
        else {
            panic!("expected shot");
        };
        assert_eq!((o.steps, o.size), (5, [320, 200]));
        assert_eq!(o.out, PathBuf::from("t.png"));
        assert!(parse(&args("shot a.ron")).unwrap_err().contains("--out"));
        assert!(parse(&args("shot a.ron --out a.png --size 0x5")).unwrap_err().contains("WxH"));
        let Command::Shot(o) =
            parse(&args("shot a.ron --out a.png --overlay aabbs,tree,joints --colour island")).unwrap()
        else {
            panic!("expected shot");
        };
        assert!(o.view.overlays.aabbs && o.view.overlays.tree && !o.view.overlays.contacts);
        assert!(o.view.overlays.joints);
        assert_eq!(o.view.colour_mode, ColourMode::Island);
        assert!(parse(&args("shot a.ron --out a.png --overlay nope")).unwrap_err().contains("nope"));
    }

    #[test]
    fn parses_bench() {
        let Command::Bench(o) = parse(&args("bench")).unwrap() else { panic!("expected bench") };
        assert!(o.scene.ends_with("tumbler.ron"));
        let Command::Bench(o) =
            parse(&args("bench scenes/rain.ron --frames 50 --overlay contacts --json")).unwrap()
        else {
            panic!("expected bench");
        };
        assert_eq!((o.frames, o.json, o.overlays.contacts), (50, true, true));
        assert_eq!(o.scene, PathBuf::from("scenes/rain.ron"));
    }

    #[test]
    fn rejects_bad_arguments() {
        assert!(parse(&args("run")).unwrap_err().contains("needs a scene"));
        assert!(parse(&args("run a.ron --steps x")).unwrap_err().contains("whole number"));
        assert!(parse(&args("run a.ron --fast")).unwrap_err().contains("unknown option"));
        assert!(parse(&args("fly")).unwrap_err().contains("unknown command"));
    }
}
