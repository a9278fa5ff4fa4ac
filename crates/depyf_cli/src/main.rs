//! `depyf`: command-line front end. Parses flags, calls `depyf_cli`, prints.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// Python bytecode tools for CPython 3.8-3.15.
#[derive(Parser)]
#[command(name = "depyf", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Disassemble a .pyc file exactly as its CPython version's `dis.dis` would.
    Dis {
        /// The .pyc file.
        file: PathBuf,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Dis { file } => match depyf_cli::dis_file(&file) {
            Ok(text) => {
                let mut out = std::io::stdout().lock();
                // A closed pipe (`depyf dis x.pyc | head`) is not an error worth reporting.
                let _ = out.write_all(text.as_bytes());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("depyf: error: {e}");
                ExitCode::from(2)
            }
        },
    }
}
