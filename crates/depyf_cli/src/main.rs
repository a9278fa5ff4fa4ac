//! `depyf`: command-line front end. Parses flags, calls `depyf_cli`, writes.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Parser, Subcommand};
use depyf_bytecode::PythonVersion;
use depyf_cli::decompile::{collect_inputs, decompile_inputs, BatchOutput, DecompileConfig, FileReport, MODULE_BODY};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

mod allocator;

// mimalloc, see `allocator`.
#[global_allocator]
static ALLOCATOR: allocator::Mimalloc = allocator::Mimalloc;

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
    /// Decompile .pyc files and directories of them (`__pycache__` trees included) to
    /// Python source. The input is only read, never imported or executed.
    ///
    /// Exit status: 0 when every function was decompiled (and, with --verify, recompiles
    /// identically or equivalently); 1 when some functions became stubs that raise
    /// RuntimeError (or differ under --verify); 2 on a usage error (no .pyc file found
    /// among the paths is one) or a file that cannot be read, is corrupt, or has an
    /// unsupported version.
    Decompile {
        /// .pyc files and directories (searched recursively for *.pyc).
        #[arg(required = true)]
        paths: Vec<PathBuf>,
        /// Write one .py per input under DIR, mirroring the input tree
        /// (`pkg/__pycache__/m.cpython-312.pyc` becomes `DIR/pkg/m.py`; where several
        /// .pyc of one module meet, versions or optimization levels, each keeps its
        /// tag: `DIR/pkg/m.cpython-312.opt-1.py`; a .pyc outside `__pycache__` keeps
        /// its stem: `m.cpython-312.py`). Without it, the
        /// source goes to stdout (each file after a `# ==> path <==` line when there are
        /// several). With a single input file, a name ending in `.py` that is not an
        /// existing directory is the file to write (`-o m.py`).
        #[arg(short, long, value_name = "DIR")]
        output: Option<PathBuf>,
        /// Print a JSON summary on stdout (per file: version, functions, failures with
        /// reasons, time). Without -o the sources are in it too.
        #[arg(long)]
        json: bool,
        /// Compile each result again with the CPython of its version and compare every
        /// function with the original (identical / equivalent / different / failed).
        #[arg(long)]
        verify: bool,
        /// The interpreter for a version, as X.Y=PATH (repeatable); others are looked up
        /// as pythonX.Y on PATH and in pyenv. Only with --verify.
        #[arg(long = "python", value_name = "X.Y=PATH", value_parser = depyf_cli::verify::parse_python_arg, requires = "verify")]
        pythons: Vec<(PythonVersion, PathBuf)>,
        /// Worker threads (default: one per core; at most one per file and eight per core).
        #[arg(short, long, default_value_t = 0)]
        jobs: usize,
    },
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match cli.command {
        Command::Dis { file } => match depyf_cli::dis_file(&file) {
            Ok(text) => {
                let mut out = std::io::stdout().lock();
                match stdout_written(out.write_all(text.as_bytes()).and_then(|()| out.flush())) {
                    true => ExitCode::SUCCESS,
                    false => ExitCode::from(2),
                }
            }
            Err(e) => {
                eprintln!("depyf: error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Decompile { paths, output, json, verify, pythons, jobs } => {
            ExitCode::from(run_decompile(&paths, output.as_ref(), json, DecompileConfig { verify, pythons, jobs }))
        }
    }
}

fn run_decompile(paths: &[PathBuf], output: Option<&PathBuf>, json: bool, config: DecompileConfig) -> u8 {
    let inputs = match collect_inputs(paths) {
        Ok(i) => i,
        Err(e) => {
            eprintln!("depyf: error: {e}");
            return 2;
        }
    };
    // `-o m.py`: one file's source into that file, not a folder named `m.py`.
    let single = output.filter(|o| o.extension().is_some_and(|e| e == "py") && !o.is_dir());
    if let Some(file) = single {
        let folder = paths.iter().any(|p| p.is_dir());
        if inputs.len() != 1 || folder {
            let given = if folder { "a directory".to_string() } else { format!("{} files", inputs.len()) };
            eprintln!("depyf: error: -o {}: a .py file takes exactly one input .pyc file ({given} given); name a directory to write several", file.display());
            return 2;
        }
    } else if let Some(dir) = output.filter(|d| d.exists() && !d.is_dir()) {
        eprintln!("depyf: error: -o {}: not a directory", dir.display());
        return 2;
    }
    // A folder without any .pyc (a mistyped path, sources instead of a cache) is a
    // usage error: a script checking the exit status must not read it as success.
    if inputs.is_empty() {
        eprintln!("depyf: error: no .pyc files in {}", paths.iter().map(|p| p.display().to_string()).collect::<Vec<_>>().join(", "));
        return 2;
    }
    // An interpreter named with --python is the user's choice: one that does not run
    // or is another version is a usage error, not a reason to skip the check (that is
    // only for versions no interpreter was named or found for).
    if config.verify {
        for (version, _) in &config.pythons {
            if let Err(e) = depyf_cli::verify::find_interpreter(*version, &config.pythons) {
                eprintln!("depyf: error: {e}");
                return 2;
            }
        }
    }
    let bar = if std::io::stderr().is_terminal() && inputs.len() > 1 {
        let bar = ProgressBar::with_draw_target(Some(inputs.len() as u64), ProgressDrawTarget::stderr());
        if let Ok(style) = ProgressStyle::with_template("{bar:40} {pos}/{len} files {elapsed} {msg}") {
            bar.set_style(style);
        }
        bar
    } else {
        ProgressBar::hidden()
    };
    let out = decompile_inputs(&inputs, &config, &|_: &FileReport| bar.inc(1));
    bar.finish_and_clear();

    let mut io_error = false;
    if let Some(file) = single {
        if let Some(source) = out.files.first().and_then(|f| f.source.as_ref()) {
            let parent = file.parent().filter(|p| !p.as_os_str().is_empty());
            if let Err(e) = parent.map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(file, source)) {
                eprintln!("depyf: error: {}: cannot write: {e}", file.display());
                io_error = true;
            }
        }
    } else if let Some(dir) = output {
        // Inputs come sorted, so the files of one folder follow each other: each folder
        // is created once (a `mkdir` and a `stat` less per file).
        let mut made: Option<PathBuf> = None;
        for f in &out.files {
            let Some(source) = &f.source else { continue };
            let path = dir.join(&f.output);
            let parent = path.parent().filter(|p| made.as_deref() != Some(*p));
            let written = parent.map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, source));
            if written.is_ok() {
                made = path.parent().map(PathBuf::from);
            }
            if let Err(e) = written {
                eprintln!("depyf: error: {}: cannot write: {e}", path.display());
                io_error = true;
            }
        }
    }
    let mut stdout = std::io::stdout().lock();
    let printed = (|| {
        if json {
            let text = serde_json::to_string_pretty(&out.to_json(output.is_none())).unwrap_or_default();
            writeln!(stdout, "{text}")?;
        } else if output.is_none() {
            let many = out.files.len() > 1;
            for f in &out.files {
                let Some(source) = &f.source else { continue };
                if many {
                    writeln!(stdout, "# ==> {} <==", f.input.display())?;
                }
                stdout.write_all(source.as_bytes())?;
            }
        }
        stdout.flush()
    })();
    io_error |= !stdout_written(printed);
    report(&out);
    if io_error {
        2
    } else {
        out.exit_code()
    }
}

/// Whether what was written to standard output (`result`) got there. A write error
/// (a full disk, `> /dev/full`) is reported on stderr and makes the exit code 2: the
/// output is lost. A closed pipe (`depyf dis x.pyc | head`) is the reader's choice,
/// not an error: true, and nothing is said.
fn stdout_written(result: std::io::Result<()>) -> bool {
    match result {
        Ok(()) => true,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => true,
        Err(e) => {
            eprintln!("depyf: error: standard output: {e}");
            false
        }
    }
}

/// Errors, failures and a totals line on stderr.
fn report(out: &BatchOutput) {
    let mut stubs = Capped::default();
    for f in &out.files {
        if let Some(e) = &f.error {
            eprintln!("depyf: {}: {e}", f.input.display());
        }
        for x in &f.failures {
            stubs.line(|| {
                let what = if x.qualname == MODULE_BODY { "module body not decompiled (functions and classes written one by one)".to_string() } else { format!("stub for {}", x.qualname) };
                format!("depyf: {}: {what}: {}", f.input.display(), x.reason)
            });
        }
    }
    stubs.finish("stubs");
    // --verify: the functions that recompile differently and the files whose source
    // does not compile, by name (the same cap; --json has them all with their details).
    let mut findings = Capped::default();
    for f in &out.files {
        let Some(v) = f.verify.as_ref().filter(|v| v.interpreter.is_some()) else { continue };
        if let Some(e) = &v.error {
            findings.line(|| format!("depyf: {}: does not recompile: {e}", f.input.display()));
        }
        for (name, why) in &v.different {
            findings.line(|| format!("depyf: {}: {name} differs after recompiling: {why}", f.input.display()));
        }
    }
    findings.finish("verify findings");
    for n in &out.notes {
        eprintln!("depyf: {n}");
    }
    let errors = out.files.iter().filter(|f| f.error.is_some()).count();
    let modules = match out.module_bodies_failed() {
        0 => String::new(),
        n => format!(", {} failed", counted(n, "module body", "module bodies")),
    };
    let mut line = format!(
        "depyf: {}, {}, {} failed{modules}, {} unreadable, in {:.2}s",
        counted(out.files.len(), "file", "files"),
        counted(out.functions(), "function", "functions"),
        out.failed(),
        errors,
        out.seconds
    );
    if let Some(t) = out.verify_totals() {
        line.push_str(&format!(
            "; verify: {} identical, {} equivalent, {} different, {} failed, {} files did not recompile, in {:.2}s",
            t.identical, t.equivalent, t.different, t.failed, t.not_recompiled, out.verify_seconds
        ));
    }
    eprintln!("{line}");
}

/// `n` and the noun in the number it takes: "1 file", "2 files".
fn counted(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Report lines on stderr up to a cap (the rest counted, and named at the end).
#[derive(Default)]
struct Capped {
    shown: usize,
    hidden: usize,
}

impl Capped {
    const SHOWN: usize = 20;

    /// Prints the line `text` makes, or counts it once the cap is reached.
    fn line(&mut self, text: impl FnOnce() -> String) {
        if self.shown < Self::SHOWN {
            eprintln!("{}", text());
            self.shown += 1;
        } else {
            self.hidden += 1;
        }
    }

    /// "... and N more WHAT" when lines were left out.
    fn finish(&self, what: &str) {
        if self.hidden > 0 {
            eprintln!("depyf: ... and {} more {what} (--json lists them all)", self.hidden);
        }
    }
}
