//! The `atoll` binary: with no arguments it opens the editor; subcommands run headless.

use atoll::cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match cli::parse(&args).and_then(cli::execute) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("atoll: {message}");
            ExitCode::FAILURE
        }
    }
}
