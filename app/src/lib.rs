//! The Atoll sandbox: the editor (eframe on wgpu), its offscreen 3D renderer, and the headless
//! subcommands (`run`, `shot`, `bench`, `generate-scenes`). The binary in `main.rs` only dispatches.

pub mod builtin;
pub mod cli;
pub mod editor;
pub mod frame_bench;
pub mod progress;
pub mod record;
pub mod render;
pub mod replay_file;
pub mod runner;
pub mod scenes;
pub mod shot;
