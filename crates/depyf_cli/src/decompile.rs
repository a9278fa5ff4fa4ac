//! `depyf decompile`: .pyc files and trees to Python source, in parallel, with a
//! per-file report. Everything is returned in memory ([`BatchOutput`]); the binary
//! only writes it.
//!
//! The input is only ever read as bytes: it is never imported or executed. With
//! `--verify` the *decompiled* source is compiled (never run) by a matching CPython.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use depyf_bytecode::{co_flags, pyc, CodeObject, Constant, MarshalErrorKind, PythonVersion};
use depyf_decompile::{decompile, stub_source, Failure, Options};
use rayon::prelude::*;

use crate::verify::{self, Interpreters, VerifyReport};

/// One input file and where its source goes, relative to the output directory.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Input {
    /// The `.pyc` file as given or found.
    pub path: PathBuf,
    /// Relative path of the `.py` file that mirrors it (`pkg/__pycache__/m.cpython-312.pyc`
    /// becomes `pkg/m.py`).
    pub output: PathBuf,
    /// Set for a folder inside a tree that could not be listed (`path` is the folder):
    /// why. It is reported like a file that cannot be read, and the rest of the tree is
    /// decompiled.
    pub unlisted: Option<String>,
}

/// What the caller can choose.
#[derive(Clone, Debug, Default)]
pub struct DecompileConfig {
    /// Recompile each result with the matching interpreter and compare per function.
    pub verify: bool,
    /// Interpreters given explicitly (`--python 3.12=/usr/bin/python3.12`); others are
    /// looked up on `PATH` and through pyenv.
    pub pythons: Vec<(PythonVersion, PathBuf)>,
    /// Worker threads (0: one per core).
    pub jobs: usize,
}

/// The outcome for one file.
#[derive(Clone, Debug, Default)]
pub struct FileReport {
    /// The input file.
    pub input: PathBuf,
    /// Relative output path (see [`Input::output`]).
    pub output: PathBuf,
    /// The CPython version from the magic number, when it is a supported one.
    pub version: Option<PythonVersion>,
    /// The decompiled source (`None` when the file could not be read at all).
    pub source: Option<String>,
    /// Number of function code objects in the file (every code object but the module).
    pub functions: usize,
    /// Code objects that became stubs, with the reason (`<module>` when the module body
    /// itself failed and only its functions and classes were written).
    pub failures: Vec<Failure>,
    /// Why nothing could be decompiled: unreadable, corrupt or truncated file,
    /// unsupported version.
    pub error: Option<String>,
    /// Seconds spent reading and decompiling this file (not verifying it).
    pub seconds: f64,
    /// The `--verify` result.
    pub verify: Option<VerifyReport>,
}

/// The outcome of a whole run.
#[derive(Clone, Debug, Default)]
pub struct BatchOutput {
    /// One report per input, in input order.
    pub files: Vec<FileReport>,
    /// Remarks about the run as a whole (e.g. no interpreter for a version).
    pub notes: Vec<String>,
    /// Wall-clock seconds spent reading and decompiling (the whole run without
    /// `--verify`).
    pub seconds: f64,
    /// Wall-clock seconds of the `--verify` pass (0 without it).
    pub verify_seconds: f64,
}

/// Why no work was done at all.
#[derive(Debug)]
pub struct UsageError(pub String);

impl std::fmt::Display for UsageError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for UsageError {}

/// Versions that `.pyc` magic numbers name but this decompiler does not read, for a
/// clear message. From the magic-number history in CPython's
/// `Lib/importlib/_bootstrap_external.py`.
const OLD_MAGIC_RANGES: &[(u16, u16, &str)] = &[
    (20121, 20121, "1.5"),
    (50428, 50428, "1.6"),
    (50823, 50823, "2.0"),
    (60202, 60202, "2.1"),
    (60717, 60717, "2.2"),
    (62011, 62021, "2.3"),
    (62041, 62061, "2.4"),
    (62071, 62131, "2.5"),
    (62151, 62161, "2.6"),
    (62171, 62211, "2.7"),
    (3000, 3131, "3.0"),
    (3141, 3151, "3.1"),
    (3160, 3180, "3.2"),
    (3190, 3230, "3.3"),
    (3250, 3310, "3.4"),
    (3320, 3351, "3.5"),
    (3360, 3379, "3.6"),
    (3390, 3399, "3.7"),
];

/// `unsupported version X.Y` for a `.pyc` header whose magic names a version outside
/// 3.8-3.15; `None` for a supported magic or a header that is no `.pyc` header.
pub fn unsupported_version(data: &[u8]) -> Option<String> {
    if data.len() < 4 || &data[2..4] != b"\r\n" {
        return None;
    }
    let magic = u16::from_le_bytes([data[0], data[1]]);
    if pyc::version_for_magic(magic).is_some() {
        return None;
    }
    let newest = pyc::MAGIC_RANGES.iter().map(|r| r.1).max().unwrap_or(0);
    Some(match OLD_MAGIC_RANGES.iter().find(|(lo, hi, _)| (*lo..=*hi).contains(&magic)) {
        Some((_, _, v)) => format!("unsupported version {v} (magic number {magic}; depyf reads 3.8-3.15)"),
        None if magic > newest && magic < 4000 => {
            format!("unsupported version newer than 3.15 (magic number {magic}; depyf reads 3.8-3.15)")
        }
        None => format!("unsupported version (unknown magic number {magic}; depyf reads 3.8-3.15)"),
    })
}

/// Finds the inputs: files as given, and every `*.pyc` under directories (sorted; links
/// to folders inside them are not followed, see `walk`).
///
/// A folder inside a given directory that cannot be listed (no permission) becomes an
/// [`Input`] with [`Input::unlisted`] set, and the others are still found.
///
/// Errors: a path that does not exist, cannot be listed or is neither a regular file
/// nor a directory (a FIFO, a device), or two inputs that would be written to the same
/// output file.
pub fn collect_inputs(paths: &[PathBuf]) -> Result<Vec<Input>, UsageError> {
    // (path, path relative to its argument, whether it lies directly in a `__pycache__`)
    let mut found: Vec<(PathBuf, PathBuf, bool)> = Vec::new();
    let mut unlisted: Vec<Input> = Vec::new();
    for p in paths {
        let meta = std::fs::metadata(p).map_err(|e| UsageError(format!("{}: {}", p.display(), read_error(p, &e))))?;
        if !meta.is_dir() && !meta.is_file() {
            return Err(UsageError(format!("{}: not a regular file or a directory", p.display())));
        }
        if meta.is_dir() {
            // The argument itself may be the `__pycache__` (`pkg/__pycache__`, or `.`
            // inside one): its files are named as when its parent is given.
            let arg_is_cache = is_pycache(p);
            let mut files = Vec::new();
            let mut folders = Vec::new();
            walk(p, &mut files, &mut folders).map_err(|e| UsageError(format!("{}: {e}", p.display())))?;
            for (dir, e) in folders {
                let output = dir.strip_prefix(p).unwrap_or(&dir).to_path_buf();
                unlisted.push(Input { path: dir, output, unlisted: Some(format!("cannot list this folder: {e}")) });
            }
            for f in files {
                let rel = f.strip_prefix(p).unwrap_or(&f).to_path_buf();
                let in_cache = match rel.parent().and_then(Path::file_name) {
                    Some(dir) => dir == "__pycache__",
                    None => arg_is_cache,
                };
                found.push((f, rel, in_cache));
            }
        } else {
            let name = p.file_name().map(PathBuf::from).unwrap_or_else(|| p.clone());
            let in_cache = is_pycache(p.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new(".")));
            found.push((p.clone(), name, in_cache));
        }
    }
    // Short names (`m.py` for `__pycache__/m.cpython-312.pyc`) where they are unique;
    // the full stem (`m.cpython-312.py`) where several versions of a module meet.
    let short: Vec<PathBuf> = found.iter().map(|(_, rel, in_cache)| output_path(rel, *in_cache, true)).collect();
    let mut count: HashMap<&Path, usize> = HashMap::new();
    for s in &short {
        *count.entry(s.as_path()).or_default() += 1;
    }
    let mut seen: HashMap<PathBuf, PathBuf> = HashMap::new();
    let mut inputs = Vec::with_capacity(found.len());
    for ((path, rel, in_cache), s) in found.iter().zip(&short) {
        let output = if count[s.as_path()] == 1 { s.clone() } else { output_path(rel, *in_cache, false) };
        if let Some(other) = seen.insert(output.clone(), path.clone()) {
            return Err(UsageError(format!(
                "{} and {} would both be written to {}; give them in separate runs",
                other.display(),
                path.display(),
                output.display()
            )));
        }
        inputs.push(Input { path: path.clone(), output, unlisted: None });
    }
    inputs.extend(unlisted);
    Ok(inputs)
}

/// Every `*.pyc` under `dir`, into `out`, in sorted order. Symbolic links to folders
/// are not followed (as `find` does not): a link back up the tree would loop, and a
/// venv's `lib64 -> lib` would list each file twice. A link to a file is followed.
/// Only regular files are taken: reading a FIFO named `x.pyc` would wait for ever.
/// A `*.pyc` link whose target is missing is taken too, so that reading it fails and
/// the file is reported (see [`decompile_input`]) instead of left out unseen.
/// A folder below `dir` that cannot be listed goes to `unlisted` with the error.
///
/// Errors: `dir` itself cannot be listed.
fn walk(dir: &Path, out: &mut Vec<PathBuf>, unlisted: &mut Vec<(PathBuf, std::io::Error)>) -> std::io::Result<()> {
    // The entry's type from the directory listing itself where the filesystem gives it
    // (no `stat` per entry); a link's target is looked at only for a `.pyc` name.
    let mut entries: Vec<(PathBuf, std::fs::FileType)> = std::fs::read_dir(dir)?.map(|e| e.and_then(|e| Ok((e.path(), e.file_type()?)))).collect::<Result<_, _>>()?;
    entries.sort_by(|a, b| a.0.cmp(&b.0));
    for (p, t) in entries {
        if t.is_dir() {
            if let Err(e) = walk(&p, out, unlisted) {
                unlisted.push((p, e));
            }
        } else if p.extension().is_some_and(|e| e == "pyc") && (t.is_file() || (t.is_symlink() && p.metadata().map_or(true, |m| m.is_file()))) {
            out.push(p);
        }
    }
    Ok(())
}

/// Whether `dir` is a folder named `__pycache__` (resolved, so that `.` or `..` inside
/// one counts; a path that cannot be resolved does not).
fn is_pycache(dir: &Path) -> bool {
    let name = |d: &Path| d.file_name().is_some_and(|n| n == "__pycache__");
    name(dir) || std::fs::canonicalize(dir).is_ok_and(|d| name(&d))
}

/// The `.py` path mirroring `rel`, a `.pyc` that lies directly in a `__pycache__` folder
/// when `in_cache`: that folder dropped, `.pyc` made `.py`, and with `short` (and
/// `in_cache`) the cache tag too (`m.cpython-312.opt-1.pyc` -> `m.py`).
fn output_path(rel: &Path, in_cache: bool, short: bool) -> PathBuf {
    let file = rel.file_name().map(|f| f.to_string_lossy().into_owned()).unwrap_or_default();
    let mut parent = rel.parent().map(Path::to_path_buf).unwrap_or_default();
    if parent.file_name().is_some_and(|n| n == "__pycache__") {
        parent.pop();
    }
    let stem = file.strip_suffix(".pyc").unwrap_or(&file);
    let stem = if short && in_cache { stem.split('.').next().unwrap_or(stem) } else { stem };
    parent.join(format!("{stem}.py"))
}

/// Number of code objects nested in `code` (at any depth).
pub fn count_functions(code: &CodeObject) -> usize {
    code.co_consts
        .iter()
        .map(|c| match c {
            Constant::Code(inner) => 1 + count_functions(inner),
            _ => 0,
        })
        .sum()
}

/// Decompiled source of a module, and the functions that became stubs.
pub struct ModuleSource {
    /// The source, starting with a comment line that names the input and version.
    pub source: String,
    /// Stubbed code objects.
    pub failures: Vec<Failure>,
}

fn options() -> Options {
    Options { stub_failures: true, ..Options::default() }
}

/// The qualname a [`FileReport`] lists for a module body that could not be
/// decompiled (CPython's `co_name` of module code objects).
pub const MODULE_BODY: &str = "<module>";

/// Decompiles a module code object. Functions that fail become stubs; if the module
/// body itself fails, its functions and classes are still written one by one after a
/// comment that says why (decorators, defaults and base classes of the top-level
/// definitions are then missing; a class body that decompiles keeps its docstring,
/// attributes and decorated methods), and `<module>` is listed as a failure.
pub fn decompile_module(code: &CodeObject, name: &str) -> ModuleSource {
    let mut source = format!("# depyf: decompiled from {name} (CPython {})\n", code.version);
    match decompile(code, &options()) {
        Ok(d) => {
            source.push_str(&d.source);
            ModuleSource { source, failures: d.failures }
        }
        Err(e) => {
            let reason = e.to_string();
            source.push_str(&format!(
                "# depyf could not decompile the module body: {}\n# Its functions and classes follow one by one, without their decorators, defaults or bases.\n",
                reason.replace('\n', " ")
            ));
            let mut failures = vec![Failure { qualname: MODULE_BODY.into(), reason }];
            source.push_str(&skeleton(code, &mut failures));
            ModuleSource { source, failures }
        }
    }
}

/// The functions and classes directly inside `code`, each decompiled on its own.
fn skeleton(code: &CodeObject, failures: &mut Vec<Failure>) -> String {
    let mut out = String::new();
    for c in &code.co_consts {
        let Constant::Code(c) = c else { continue };
        if c.co_name.starts_with("<generic parameters of ") {
            // PEP 695: the generic function or class is made inside this one.
            out.push_str(&skeleton(c, failures));
            continue;
        }
        let params = &c.co_localsplusnames[..c.total_argcount().min(c.co_localsplusnames.len())];
        if c.co_name.starts_with('<') || params.iter().any(|p| p.starts_with('.')) {
            // Lambdas and comprehensions belong to an expression; type alias values,
            // bounds and annotations (`.format`, `.defaults`) to a definition.
            continue;
        }
        out.push('\n');
        if c.co_flags & co_flags::OPTIMIZED == 0 {
            // A class body: whole when it decompiles (docstring, attributes and
            // decorated methods kept), else its definitions one by one.
            let opts = Options { function_name: Some(c.co_name.clone()), ..options() };
            if let Ok(d) = decompile(c, &opts) {
                failures.extend(d.failures);
                out.push_str(&d.source);
                continue;
            }
            let inner = skeleton(c, failures);
            out.push_str(&format!("class {}:\n", c.co_name));
            if inner.trim().is_empty() {
                out.push_str("    pass\n");
            }
            for line in inner.lines() {
                if line.is_empty() {
                    out.push('\n');
                } else {
                    out.push_str(&format!("    {line}\n"));
                }
            }
            continue;
        }
        let opts = Options { function_name: Some(c.co_name.clone()), ..options() };
        match decompile(c, &opts) {
            Ok(d) => {
                failures.extend(d.failures);
                out.push_str(&d.source);
            }
            Err(e) => {
                let reason = e.to_string();
                out.push_str(&stub_source(c, &reason));
                failures.push(Failure { qualname: c.co_qualname.clone(), reason });
            }
        }
    }
    out
}

/// Decompiles one `.pyc` file held in memory (`name` is used in the header comment).
pub fn decompile_bytes(data: &[u8], name: &str) -> FileReport {
    let mut report = FileReport::default();
    if let Some(msg) = unsupported_version(data) {
        report.error = Some(msg);
        return report;
    }
    let pyc = match pyc::read_pyc(data) {
        Ok(p) => p,
        Err(_) if looks_like_text(data) => {
            report.error = Some("not a .pyc file: the file is text (Python source?), not compiled bytecode; depyf decompiles .pyc files".into());
            return report;
        }
        Err(e) if matches!(e.kind, MarshalErrorKind::TooDeep | MarshalErrorKind::TooLarge) => {
            // Not necessarily corrupt: CPython's own reader allows more.
            report.error = Some(format!("beyond depyf's limits: {e}"));
            return report;
        }
        Err(e) => {
            report.error = Some(format!("corrupt or truncated .pyc: {e}"));
            return report;
        }
    };
    report.version = Some(pyc.header.version);
    report.functions = count_functions(&pyc.code);
    let m = decompile_module(&pyc.code, name);
    report.source = Some(m.source);
    report.failures = m.failures;
    report
}

/// Whether `data` is non-empty UTF-8 text without the `\r\n` that follows the magic
/// number of every `.pyc` header (CPython `Lib/importlib/_bootstrap_external.py`): a
/// source file or other text given where a `.pyc` was expected.
fn looks_like_text(data: &[u8]) -> bool {
    !data.is_empty() && data.get(2..4) != Some(b"\r\n".as_slice()) && std::str::from_utf8(data).is_ok_and(|t| !t.contains('\0'))
}

/// Why `path` could not be read or looked at, from the error `e` that gave: "broken
/// symbolic link to TARGET" for a link whose target is missing (the OS only says "No
/// such file or directory", though the link itself is there), else `e` itself.
fn read_error(path: &Path, e: &std::io::Error) -> String {
    match std::fs::read_link(path) {
        Ok(target) if e.kind() == std::io::ErrorKind::NotFound => format!("broken symbolic link to {}", target.display()),
        _ => e.to_string(),
    }
}

/// Reads and decompiles one input. Returns the report and, when `keep_bytes`, the
/// file's bytes (for `--verify`, which reads the original code again).
pub fn decompile_input(input: &Input, keep_bytes: bool) -> (FileReport, Option<Vec<u8>>) {
    let start = Instant::now();
    let name = input.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    if let Some(why) = &input.unlisted {
        return (FileReport { input: input.path.clone(), output: input.output.clone(), error: Some(why.clone()), ..FileReport::default() }, None);
    }
    let (mut report, data) = match std::fs::read(&input.path) {
        Ok(data) => {
            // A panic is a bug of ours: report it for this file and go on with the others.
            let mut r = match std::panic::catch_unwind(|| decompile_bytes(&data, &name)) {
                Ok(r) => r,
                Err(payload) => {
                    let what = payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "unknown".into());
                    FileReport { error: Some(format!("internal error of depyf (please report it): {what}")), ..FileReport::default() }
                }
            };
            r.seconds = start.elapsed().as_secs_f64();
            (r, keep_bytes.then_some(data))
        }
        Err(e) => (FileReport { error: Some(format!("cannot read: {}", read_error(&input.path, &e))), seconds: start.elapsed().as_secs_f64(), ..FileReport::default() }, None),
    };
    report.input = input.path.clone();
    report.output = input.output.clone();
    (report, data)
}

/// Decompiles every input in parallel, then, with `--verify`, recompiles and compares
/// every result (a second parallel pass, timed on its own: [`BatchOutput::seconds`]
/// is the decompiler's time only). `on_done` is called once per finished file (for a
/// progress bar): after its decompilation, or after its check under `--verify`.
pub fn decompile_inputs(inputs: &[Input], config: &DecompileConfig, on_done: &(dyn Fn(&FileReport) + Sync)) -> BatchOutput {
    let start = Instant::now();
    // Worker stacks of `depyf_decompile::STACK_BYTES`, which its nesting limits are
    // sized for (rayon's default is 2 MiB). `jobs == 0` is rayon's default, one thread
    // per core.
    let pool = rayon::ThreadPoolBuilder::new().num_threads(worker_threads(config.jobs, inputs.len())).stack_size(depyf_decompile::STACK_BYTES).build().ok();
    let decompiled: Vec<(FileReport, Option<Vec<u8>>)> = in_pool(pool.as_ref(), || {
        inputs
            .par_iter()
            .map(|input| {
                let done = decompile_input(input, config.verify);
                if !config.verify {
                    on_done(&done.0);
                }
                done
            })
            .collect()
    });
    let seconds = start.elapsed().as_secs_f64();
    if !config.verify {
        let files = decompiled.into_iter().map(|(report, _)| report).collect();
        return BatchOutput { files, notes: Vec::new(), seconds, verify_seconds: 0.0 };
    }
    let start = Instant::now();
    let interpreters = Interpreters::new(&config.pythons);
    let files = in_pool(pool.as_ref(), || {
        decompiled
            .into_par_iter()
            .map(|(mut report, data)| {
                if let (Some(data), Some(version), Some(source)) = (data, report.version, &report.source) {
                    report.verify = Some(verify::verify_file(&data, version, source, &interpreters));
                }
                on_done(&report);
                report
            })
            .collect()
    });
    BatchOutput { files, notes: interpreters.missing_notes(), seconds, verify_seconds: start.elapsed().as_secs_f64() }
}

/// `work` run in `pool`, or on this thread's rayon default when the pool could not be
/// made.
fn in_pool<R: Send>(pool: Option<&rayon::ThreadPool>, work: impl FnOnce() -> R + Send) -> R {
    match pool {
        Some(pool) => pool.install(work),
        None => work(),
    }
}

/// The worker threads for `jobs` requested (0: one per core) and `files` inputs: at
/// most one per file and eight per core (`-j 100000` on one file spawned 100,000
/// threads, each with its reserved stack, and ran for minutes).
fn worker_threads(jobs: usize, files: usize) -> usize {
    if jobs == 0 {
        return 0;
    }
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    jobs.min(files.max(1)).min(8 * cores)
}

/// The `--verify` counts summed over the files checked with an interpreter.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct VerifyTotals {
    /// Files compared (those of versions with an interpreter).
    pub files: usize,
    /// Functions whose normalized instruction streams are equal.
    pub identical: usize,
    /// Functions that recover to the same statements.
    pub equivalent: usize,
    /// Functions that differ.
    pub different: usize,
    /// Functions that could not be decompiled (stubs, or inside a stub).
    pub failed: usize,
    /// Files whose decompiled source did not compile.
    pub not_recompiled: usize,
}

impl BatchOutput {
    /// The `--verify` counts over all files, `None` when no file was checked (no
    /// `--verify`, or no interpreter for any of the files' versions).
    pub fn verify_totals(&self) -> Option<VerifyTotals> {
        let mut t = VerifyTotals::default();
        for v in self.files.iter().filter_map(|f| f.verify.as_ref()).filter(|v| v.interpreter.is_some()) {
            t.files += 1;
            t.identical += v.identical;
            t.equivalent += v.equivalent;
            t.different += v.different.len();
            t.failed += v.failed.len();
            t.not_recompiled += usize::from(v.error.is_some());
        }
        (t.files > 0).then_some(t)
    }

    /// 2 if a file could not be read or decompiled at all (unreadable, corrupt,
    /// unsupported version); else 1 if a function became a stub or, with `--verify`,
    /// recompiled differently; else 0.
    pub fn exit_code(&self) -> u8 {
        if self.files.iter().any(|f| f.error.is_some()) {
            2
        } else if self.files.iter().any(|f| !f.failures.is_empty() || f.verify.as_ref().is_some_and(VerifyReport::is_bad)) {
            1
        } else {
            0
        }
    }

    /// Total number of functions.
    pub fn functions(&self) -> usize {
        self.files.iter().map(|f| f.functions).sum()
    }

    /// Total number of functions (code objects other than module bodies) that became
    /// stubs: at most [`functions`](Self::functions).
    pub fn failed(&self) -> usize {
        self.files.iter().flat_map(|f| &f.failures).filter(|x| x.qualname != MODULE_BODY).count()
    }

    /// Number of files whose module body could not be decompiled (their functions and
    /// classes were written one by one, see [`decompile_module`]).
    pub fn module_bodies_failed(&self) -> usize {
        self.files.iter().flat_map(|f| &f.failures).filter(|x| x.qualname == MODULE_BODY).count()
    }

    /// The `--json` summary; with `with_source` each file carries its source too.
    pub fn to_json(&self, with_source: bool) -> serde_json::Value {
        use serde_json::json;
        let files: Vec<serde_json::Value> = self
            .files
            .iter()
            .map(|f| {
                let mut v = json!({
                    "path": f.input.to_string_lossy(),
                    // (Nothing is written for a file that could not be read.)
                    "output": f.source.as_ref().map(|_| f.output.to_string_lossy()),
                    "version": f.version.map(|v| v.to_string()),
                    "functions": f.functions,
                    "failures": f.failures.iter().map(|x| json!({"qualname": x.qualname, "reason": x.reason})).collect::<Vec<_>>(),
                    "error": f.error,
                    "seconds": f.seconds,
                });
                if let Some(r) = &f.verify {
                    v["verify"] = r.to_json();
                }
                if with_source {
                    v["source"] = json!(f.source);
                }
                v
            })
            .collect();
        let functions = self.functions();
        json!({
            "files": files,
            "totals": {
                "files": self.files.len(),
                "files_with_errors": self.files.iter().filter(|f| f.error.is_some()).count(),
                "functions": functions,
                "failed": self.failed(),
                "module_bodies_failed": self.module_bodies_failed(),
                "seconds": self.seconds,
                "verify_seconds": self.verify_seconds,
                "verify": self.verify_totals().map(|t| json!({
                    "files": t.files,
                    "identical": t.identical,
                    "equivalent": t.equivalent,
                    "different": t.different,
                    "failed": t.failed,
                    "not_recompiled": t.not_recompiled,
                })),
                "functions_per_second": if self.seconds > 0.0 { functions as f64 / self.seconds } else { 0.0 },
            },
            "notes": self.notes,
            "exit_code": self.exit_code(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_threads_are_capped_by_files_and_cores() {
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(worker_threads(0, 5), 0, "rayon's default");
        assert_eq!(worker_threads(100_000, 1), 1);
        assert_eq!(worker_threads(100_000, 0), 1);
        assert_eq!(worker_threads(100_000, 1_000_000), 8 * cores);
        assert_eq!(worker_threads(2, 10), 2.min(8 * cores));
    }

    #[test]
    fn output_paths_mirror_the_tree() {
        assert_eq!(output_path(Path::new("a/__pycache__/m.cpython-312.pyc"), true, true), Path::new("a/m.py"));
        assert_eq!(output_path(Path::new("a/__pycache__/m.cpython-312.pyc"), true, false), Path::new("a/m.cpython-312.py"));
        assert_eq!(output_path(Path::new("__pycache__/m.cpython-38.opt-1.pyc"), true, true), Path::new("m.py"));
        assert_eq!(output_path(Path::new("x/m.pyc"), false, true), Path::new("x/m.py"));
        assert_eq!(output_path(Path::new("x/m.cpython-312.pyc"), false, true), Path::new("x/m.cpython-312.py"));
        // The `__pycache__` folder given itself (or the file in it): the same short name.
        assert_eq!(output_path(Path::new("m.cpython-312.pyc"), true, true), Path::new("m.py"));
    }

    #[test]
    fn old_versions_are_named() {
        assert_eq!(unsupported_version(b"\x42\x0d\r\n").unwrap(), "unsupported version 3.7 (magic number 3394; depyf reads 3.8-3.15)");
        assert!(unsupported_version(b"\x03\xf3\r\n").unwrap().starts_with("unsupported version 2.7"));
        assert!(unsupported_version(b"\x74\x0e\r\n").unwrap().starts_with("unsupported version newer than 3.15"));
        assert_eq!(unsupported_version(b"\xcb\x0d\r\n"), None);
        assert_eq!(unsupported_version(b"PK\x03\x04"), None);
    }
}
