//! Command-line parsing (clap) and dispatch.

use crate::render::{ColourMode, Overlays, ViewOptions};
use crate::scenes::{DEFAULT_SCENE, scenes_dir};
use crate::{builtin, editor, frame_bench, record, replay_file, runner, shot};
use clap::{Parser, Subcommand, ValueEnum};
use std::path::PathBuf;

/// The Atoll sandbox: with no command it opens the editor; the commands run headless.
#[derive(Debug, Parser)]
#[command(name = "atoll", version, args_conflicts_with_subcommands = true)]
struct Cli {
    /// The scene to open in the editor (the default scene without one).
    #[arg(value_parser = scene_file)]
    scene: Option<PathBuf>,
    #[command(subcommand)]
    command: Option<Sub>,
}

#[derive(Debug, Subcommand)]
enum Sub {
    /// Step a scene headless; print median stage times, island management against the
    /// reference builder, counters and the final state hash.
    Run {
        /// The scene file.
        scene: PathBuf,
        /// Steps to time.
        #[arg(long, default_value_t = 600)]
        steps: u32,
        /// Steps run before timing starts.
        #[arg(long, default_value_t = 0)]
        warmup: u32,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
        /// Keep every island awake.
        #[arg(long)]
        no_sleep: bool,
        /// Threads for the parallel stages (the result is the same for any count).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: u32,
    },
    /// Step a scene headless, render it offscreen and write a PNG.
    Shot {
        /// The scene file.
        scene: PathBuf,
        /// Steps to simulate before rendering.
        #[arg(long, default_value_t = 0)]
        steps: u32,
        /// The PNG to write.
        #[arg(long)]
        out: PathBuf,
        /// Image size, WxH, each side from 1 to 8192 pixels.
        #[arg(long, value_parser = size, default_value = "1280x720")]
        size: [u32; 2],
        /// Overlays to draw, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',')]
        overlay: Vec<Overlay>,
        /// What the bodies' colours show.
        #[arg(long, value_enum, default_value = "body")]
        colour: Colour,
    },
    /// The CPU cost of an editor frame (UI, overlay lines, instance upload; not the step, not
    /// GPU time) on a scene kept awake, by default the 2000-box tumbler.
    Bench {
        /// The scene file (the tumbler without one).
        scene: Option<PathBuf>,
        /// Timed frames.
        #[arg(long, default_value_t = 300, value_parser = clap::value_parser!(u32).range(1..))]
        frames: u32,
        /// Untimed frames first.
        #[arg(long, default_value_t = 30)]
        warmup: u32,
        /// Window size, WxH.
        #[arg(long, value_parser = size, default_value = "1280x800")]
        size: [u32; 2],
        /// Overlays to draw, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',')]
        overlay: Vec<Overlay>,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Step a scene and save its recording (the scene, every input, every step's hash), for a
    /// bug report or a check in CI.
    Record {
        /// The scene file.
        scene: PathBuf,
        /// Steps to record.
        #[arg(long)]
        steps: u32,
        /// The recording to write (RON).
        #[arg(long)]
        out: PathBuf,
        /// Threads for the parallel stages (the recording is the same for any count).
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: u32,
        /// Print JSON instead of a line.
        #[arg(long)]
        json: bool,
    },
    /// Replay a recording, checking every step's state hash; fails naming the first step that
    /// differs.
    Replay {
        /// The recording file.
        recording: PathBuf,
        /// Threads for the parallel stages.
        #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=256))]
        threads: u32,
        /// Print JSON instead of a line.
        #[arg(long)]
        json: bool,
    },
    /// Write the built-in scenes as RON files into a directory.
    GenerateScenes {
        /// The directory.
        dir: PathBuf,
    },
}

/// An overlay of the view, as `--overlay` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Overlay {
    Aabbs,
    FatAabbs,
    Contacts,
    Velocities,
    Axes,
    Tree,
    Joints,
}

/// What the bodies' colours show, as `--colour` names it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, ValueEnum)]
enum Colour {
    Body,
    Island,
    Sleep,
}

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
    /// Record a scene's run.
    Record(record::RecordOptions),
    /// Replay a recording and check it.
    Replay(replay_file::ReplayOptions),
    /// Write the built-in scenes.
    GenerateScenes(PathBuf),
}

/// Parses the arguments after the program name. The error prints as clap prints it (usage
/// and the reason); `--help` and `--version` come back as errors of their own kinds, to be
/// printed with a successful exit ([`clap::Error::exit`] does both).
pub fn parse(args: &[String]) -> Result<Command, clap::Error> {
    let cli = Cli::try_parse_from(std::iter::once("atoll".to_string()).chain(args.iter().cloned()))?;
    Ok(match cli.command {
        None => Command::Editor(cli.scene.unwrap_or_else(|| scenes_dir().join(DEFAULT_SCENE))),
        Some(Sub::Run { scene, steps, warmup, json, no_sleep, threads }) => {
            Command::Run(runner::RunOptions { scene, steps, warmup, json, sleep: !no_sleep, threads })
        }
        Some(Sub::Shot { scene, steps, out, size, overlay, colour }) => {
            let colour_mode = match colour {
                Colour::Body => ColourMode::Body,
                Colour::Island => ColourMode::Island,
                Colour::Sleep => ColourMode::SleepTimer,
            };
            let view = ViewOptions { colour_mode, overlays: overlays(&overlay), ..ViewOptions::default() };
            Command::Shot(Box::new(shot::ShotOptions { scene, steps, out, size, view }))
        }
        Some(Sub::Bench { scene, frames, warmup, size, overlay, json }) => {
            Command::Bench(frame_bench::FrameBenchOptions {
                scene: scene.unwrap_or_else(|| scenes_dir().join("tumbler.ron")),
                frames,
                warmup,
                size,
                overlays: overlays(&overlay),
                json,
            })
        }
        Some(Sub::Record { scene, steps, out, threads, json }) => {
            Command::Record(record::RecordOptions { scene, steps, out, threads, json })
        }
        Some(Sub::Replay { recording, threads, json }) => {
            Command::Replay(replay_file::ReplayOptions { recording, threads, json })
        }
        Some(Sub::GenerateScenes { dir }) => Command::GenerateScenes(dir),
    })
}

/// The overlays `--overlay` lists.
fn overlays(list: &[Overlay]) -> Overlays {
    let mut o = Overlays::default();
    for overlay in list {
        match overlay {
            Overlay::Aabbs => o.aabbs = true,
            Overlay::FatAabbs => o.fat_aabbs = true,
            Overlay::Contacts => o.contacts = true,
            Overlay::Velocities => o.velocities = true,
            Overlay::Axes => o.axes = true,
            Overlay::Tree => o.tree = true,
            Overlay::Joints => o.joints = true,
        }
    }
    o
}

/// A scene file for the editor: a `.ron` path (anything else is a mistyped command).
fn scene_file(v: &str) -> Result<PathBuf, String> {
    if v.ends_with(".ron") {
        Ok(PathBuf::from(v))
    } else {
        Err(format!("`{v}` is neither a command nor a scene file (SCENE.ron)"))
    }
}

/// Parses `WxH`, each side from 1 to 8192 pixels.
fn size(v: &str) -> Result<[u32; 2], String> {
    let parsed = v.split_once(['x', 'X']).and_then(|(w, h)| Some([w.parse().ok()?, h.parse().ok()?]));
    match parsed {
        Some([w, h]) if (1..=8192).contains(&w) && (1..=8192).contains(&h) => Ok([w, h]),
        _ => Err(format!("needs WxH with sides from 1 to 8192, got `{v}`")),
    }
}

/// Runs a parsed command.
pub fn execute(command: Command) -> Result<(), String> {
    match command {
        Command::Editor(scene) => editor::run_window(&scene),
        Command::Run(options) => runner::run(&options),
        Command::Shot(options) => shot::shot(&options),
        Command::Bench(options) => frame_bench::run(&options),
        Command::Record(options) => record::run(&options),
        Command::Replay(options) => replay_file::replay(&options),
        Command::GenerateScenes(dir) => builtin::write_all(&dir),
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
        assert!(parse(&args("shot a.ron")).unwrap_err().to_string().contains("--out"));
        assert!(parse(&args("shot a.ron --out a.png --size 0x5")).unwrap_err().to_string().contains("WxH"));
        let Command::Shot(o) =
            parse(&args("shot a.ron --out a.png --overlay aabbs,tree,joints --colour island")).unwrap()
        else {
            panic!("expected shot");
        };
        assert!(o.view.overlays.aabbs && o.view.overlays.tree && !o.view.overlays.contacts);
        assert!(o.view.overlays.joints);
        assert_eq!(o.view.colour_mode, ColourMode::Island);
        assert!(
            parse(&args("shot a.ron --out a.png --overlay nope")).unwrap_err().to_string().contains("nope")
        );
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
    fn parses_record_and_replay() {
        let Command::Record(o) =
            parse(&args("record scenes/tower.ron --steps 90 --out t.ron --threads 2")).unwrap()
        else {
            panic!("expected record");
        };
        assert_eq!((o.steps, o.threads, o.json), (90, 2, false));
        assert_eq!((o.scene, o.out), (PathBuf::from("scenes/tower.ron"), PathBuf::from("t.ron")));
        let Command::Replay(o) = parse(&args("replay t.ron --json")).unwrap() else {
            panic!("expected replay")
        };
        assert_eq!((o.recording, o.threads, o.json), (PathBuf::from("t.ron"), 1, true));
        let missing = parse(&args("record a.ron --out t.ron")).unwrap_err().to_string();
        assert!(missing.contains("--steps"), "{missing}");
    }

    #[test]
    fn rejects_bad_arguments_naming_them_and_helps() {
        let message = |line: &str| parse(&args(line)).unwrap_err().to_string();
        assert!(message("run").contains("<SCENE>"), "{}", message("run"));
        assert!(message("run a.ron --steps x").contains("--steps"), "{}", message("run a.ron --steps x"));
        assert!(message("run a.ron --fast").contains("--fast"));
        assert!(message("run a.ron --threads 0").contains("--threads"));
        assert!(message("fly").contains("fly"));
        // Each command has its help; --help comes back as a help "error" to print and exit 0.
        for command in ["run", "shot", "bench", "record", "replay", "generate-scenes"] {
            let help = parse(&args(&format!("{command} --help"))).unwrap_err();
            assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp, "{command}");
            assert!(help.to_string().contains("Usage: atoll"), "{command}: {help}");
        }
    }
}
