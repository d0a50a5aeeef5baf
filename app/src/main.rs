//! The `atoll` binary: with no arguments it opens the editor; subcommands run headless.

use atoll::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // A bad argument, --help and --version print as clap prints them, with its exit codes.
    let command = cli::parse(&args).unwrap_or_else(|e| e.exit());
    match cli::execute(command) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("atoll: {message}");
            ExitCode::FAILURE
        }
    }
}
