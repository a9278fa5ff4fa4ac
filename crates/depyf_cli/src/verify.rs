//! `--verify`: compiles decompiled source again with the CPython of the input's
//! version and compares every function with the original.
//!
//! The interpreter only runs `compile()` on the *decompiled* source and sends back
//! `marshal.dumps` of the result, which [`depyf_bytecode::marshal`] reads; the input
//! `.pyc` is never given to it. One helper process per worker thread and version is
//! kept alive for the whole run (a length-prefixed request/response loop on its pipes),
//! so a tree of thousands of files starts only a few interpreters.

use std::collections::HashMap;
use std::io::{BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::{Arc, Mutex};

use depyf_bytecode::{marshal, pyc, CodeObject, Constant, PythonVersion};
use depyf_decompile::{compare, Options, Verdict};

/// The helper's program: reads `<8-byte little-endian length><source>` requests and
/// answers `<length><0 + marshal.dumps(code)>` or `<length><1 + error text>`.
const HELPER: &str = r"
import sys, marshal
r, w = sys.stdin.buffer, sys.stdout.buffer
while True:
    h = r.read(8)
    if len(h) < 8:
        break
    src = r.read(int.from_bytes(h, 'little'))
    try:
        out = b'\0' + marshal.dumps(compile(src, '<depyf>', 'exec', dont_inherit=True))
    except BaseException as e:
        out = b'\1' + ('%s: %s' % (type(e).__name__, e)).encode('utf-8', 'replace')
    w.write(len(out).to_bytes(8, 'little'))
    w.write(out)
    w.flush()
";

/// Text of the stubs' exception: a recompiled function holding it is a stub.
const STUB_MARK: &str = "depyf could not decompile ";

/// The `--verify` outcome of one file.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct VerifyReport {
    /// The interpreter used (`None`: none found, nothing was checked).
    pub interpreter: Option<PathBuf>,
    /// Functions whose normalized instruction streams are equal.
    pub identical: usize,
    /// Functions that recover to the same statements.
    pub equivalent: usize,
    /// The display names of those `equivalent` functions (dotted `co_name` path before
    /// CPython 3.11, `co_qualname` from 3.11), so that a caller can split the figures
    /// (benches/roundtrip_cli.py counts the in-scope ones).
    pub equivalent_functions: Vec<String>,
    /// Functions that differ, with the first difference.
    pub different: Vec<(String, String)>,
    /// Functions that could not be decompiled (stubs, or inside a stub).
    pub failed: Vec<String>,
    /// Why the file as a whole was not compared: no interpreter, or the decompiled
    /// source does not compile.
    pub error: Option<String>,
}

impl VerifyReport {
    /// Whether the check found a problem (a function that differs, or source that does
    /// not compile). A missing interpreter is not a problem, only unchecked.
    pub fn is_bad(&self) -> bool {
        !self.different.is_empty() || (self.interpreter.is_some() && self.error.is_some())
    }

    /// The report as JSON.
    pub fn to_json(&self) -> serde_json::Value {
        serde_json::json!({
            "interpreter": self.interpreter.as_ref().map(|p| p.to_string_lossy()),
            "identical": self.identical,
            "equivalent": self.equivalent,
            "equivalent_functions": self.equivalent_functions,
            "different": self.different.iter().map(|(q, d)| serde_json::json!({"qualname": q, "detail": d})).collect::<Vec<_>>(),
            "failed": self.failed,
            "error": self.error,
        })
    }
}

/// A kept-alive helper process.
struct Worker {
    child: Child,
    stdin: Option<ChildStdin>,
    stdout: BufReader<ChildStdout>,
}

impl Worker {
    fn spawn(python: &Path) -> std::io::Result<Worker> {
        let mut child = Command::new(python)
            .args(["-I", "-S", "-c", HELPER])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()?;
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().ok_or_else(|| std::io::Error::other("no stdout"))?);
        Ok(Worker { child, stdin, stdout })
    }

    /// `Ok(Ok(marshal data))`, `Ok(Err(compile error))`, or `Err` when the helper broke.
    fn compile(&mut self, source: &str) -> std::io::Result<Result<Vec<u8>, String>> {
        let stdin = self.stdin.as_mut().ok_or_else(|| std::io::Error::other("closed"))?;
        stdin.write_all(&(source.len() as u64).to_le_bytes())?;
        stdin.write_all(source.as_bytes())?;
        stdin.flush()?;
        let mut len = [0u8; 8];
        self.stdout.read_exact(&mut len)?;
        let len = usize::try_from(u64::from_le_bytes(len)).map_err(std::io::Error::other)?;
        let mut data = vec![0u8; len];
        self.stdout.read_exact(&mut data)?;
        match data.first() {
            Some(0) => Ok(Ok(data.split_off(1))),
            Some(_) => Ok(Err(String::from_utf8_lossy(&data[1..]).into_owned())),
            None => Err(std::io::Error::other("empty answer")),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        // Closing its stdin ends the helper's loop.
        drop(self.stdin.take());
        let _ = self.child.wait();
    }
}

/// One interpreter and its idle helpers.
pub struct Recompiler {
    /// The interpreter.
    pub python: PathBuf,
    idle: Mutex<Vec<Worker>>,
}

impl Recompiler {
    /// Compiles `source`: `Ok(marshal data of the module code)` or `Err(why)` (a
    /// `SyntaxError`, or the helper could not run).
    pub fn compile(&self, source: &str) -> Result<Vec<u8>, String> {
        let popped = self.idle.lock().map(|mut v| v.pop()).unwrap_or(None);
        let mut worker = match popped {
            Some(w) => w,
            None => Worker::spawn(&self.python).map_err(|e| format!("cannot run {}: {e}", self.python.display()))?,
        };
        match worker.compile(source) {
            Ok(answer) => {
                if let Ok(mut v) = self.idle.lock() {
                    v.push(worker);
                }
                answer
            }
            Err(e) => Err(format!("{} stopped answering: {e}", self.python.display())),
        }
    }
}

/// The interpreters of a run, found once per version.
pub struct Interpreters {
    explicit: Vec<(PythonVersion, PathBuf)>,
    found: Mutex<HashMap<PythonVersion, Result<Arc<Recompiler>, String>>>,
}

impl Interpreters {
    /// Interpreters given with `--python X.Y=PATH` win over those found on `PATH` or
    /// through pyenv.
    pub fn new(explicit: &[(PythonVersion, PathBuf)]) -> Self {
        Interpreters { explicit: explicit.to_vec(), found: Mutex::default() }
    }

    /// The recompiler for `version`, or why there is none.
    pub fn get(&self, version: PythonVersion) -> Result<Arc<Recompiler>, String> {
        let mut found = self.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        found
            .entry(version)
            .or_insert_with(|| {
                find_interpreter(version, &self.explicit).map(|python| Arc::new(Recompiler { python, idle: Mutex::default() }))
            })
            .clone()
    }

    /// One line per version that had no interpreter.
    pub fn missing_notes(&self) -> Vec<String> {
        let found = self.found.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let mut notes: Vec<(PythonVersion, String)> =
            found.iter().filter_map(|(v, r)| r.as_ref().err().map(|e| (*v, format!("--verify skipped for CPython {v} files: {e}")))).collect();
        notes.sort();
        notes.into_iter().map(|(_, n)| n).collect()
    }
}

/// `X.Y=PATH` of `--python`.
pub fn parse_python_arg(s: &str) -> Result<(PythonVersion, PathBuf), String> {
    let (v, p) = s.split_once('=').ok_or_else(|| format!("expected X.Y=PATH, got `{s}`"))?;
    let version = parse_version(v).ok_or_else(|| format!("`{v}` is no version X.Y"))?;
    if !version.is_supported() {
        return Err(format!("depyf reads CPython 3.8-3.15, not {version}"));
    }
    Ok((version, PathBuf::from(p)))
}

fn parse_version(v: &str) -> Option<PythonVersion> {
    let (a, b) = v.trim().split_once('.')?;
    Some(PythonVersion::new(a.parse().ok()?, b.parse().ok()?))
}

/// The version `python` reports, if it runs.
fn version_of(python: &Path) -> Option<PythonVersion> {
    let out = Command::new(python)
        .args(["-I", "-S", "-c", "import sys; print('%d.%d' % sys.version_info[:2])"])
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    if !out.status.success() {
        return None;
    }
    parse_version(std::str::from_utf8(&out.stdout).ok()?)
}

/// The interpreter for `version`: the one given with `--python`, else `python3.Y` on
/// `PATH`, else the newest pyenv install of 3.Y (`$PYENV_ROOT/versions/3.Y.*`). Each is
/// asked for its version before it is used.
pub fn find_interpreter(version: PythonVersion, explicit: &[(PythonVersion, PathBuf)]) -> Result<PathBuf, String> {
    if let Some((_, p)) = explicit.iter().find(|(v, _)| *v == version) {
        return match version_of(p) {
            Some(v) if v == version => Ok(p.clone()),
            Some(v) => Err(format!("--python {version}={} is CPython {v}", p.display())),
            None => Err(format!("--python {version}={} does not run", p.display())),
        };
    }
    let exe = format!("python{version}");
    let mut candidates: Vec<PathBuf> = std::env::var_os("PATH")
        .map(|p| std::env::split_paths(&p).map(|d| d.join(&exe)).filter(|p| p.is_file()).collect())
        .unwrap_or_default();
    let pyenv_root = std::env::var_os("PYENV_ROOT")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".pyenv")));
    if let Some(root) = pyenv_root {
        if let Ok(rd) = std::fs::read_dir(root.join("versions")) {
            let prefix = format!("{version}.");
            let mut installs: Vec<(u32, PathBuf)> = rd
                .filter_map(|e| e.ok())
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let patch = name.strip_prefix(&prefix)?.parse::<u32>().ok()?;
                    Some((patch, e.path().join("bin").join(&exe)))
                })
                .filter(|(_, p)| p.is_file())
                .collect();
            installs.sort();
            candidates.extend(installs.into_iter().rev().map(|(_, p)| p));
        }
    }
    candidates
        .into_iter()
        .find(|p| version_of(p) == Some(version))
        .ok_or_else(|| format!("no CPython {version} interpreter on PATH or in pyenv (give one with --python {version}=PATH)"))
}

/// Every function below `code` as (key, display name, code): the key is the path of
/// `co_name`s from the module, each with its index among same-named siblings, which is
/// the same in the original and in correctly decompiled code.
fn functions<'a>(code: &'a CodeObject, key: &str, dotted: &str, out: &mut Vec<(String, String, &'a CodeObject)>) {
    for (idx, k) in children(code, key) {
        let Constant::Code(c) = &code.co_consts[idx] else { unreachable!("children lists code constants") };
        let d = if dotted.is_empty() { c.co_name.clone() } else { format!("{dotted}.{}", c.co_name) };
        let display = if c.version >= PythonVersion::PY311 { c.co_qualname.clone() } else { d.clone() };
        out.push((k.clone(), display, c));
        functions(c, &k, &d, out);
    }
}

fn is_stub(code: &CodeObject) -> bool {
    code.co_consts.iter().any(|c| matches!(c, Constant::Str(s) if s.starts_with(STUB_MARK)))
}

/// Recompiles `source` (decompiled from the `.pyc` bytes `data`) and compares every
/// function.
pub fn verify_file(data: &[u8], version: PythonVersion, source: &str, interpreters: &Interpreters) -> VerifyReport {
    let mut report = VerifyReport::default();
    let recompiler = match interpreters.get(version) {
        Ok(r) => r,
        Err(e) => {
            report.error = Some(e);
            return report;
        }
    };
    report.interpreter = Some(recompiler.python.clone());
    let original = match pyc::read_pyc(data) {
        Ok(p) => p.code,
        Err(e) => {
            report.error = Some(e.to_string());
            return report;
        }
    };
    let recompiled = match recompiler.compile(source).and_then(|m| marshal::loads(&m, version).map_err(|e| format!("cannot read the recompiled code back: {e}"))) {
        Ok(Constant::Code(c)) => c,
        Ok(_) => {
            report.error = Some("the interpreter did not answer with a code object".into());
            return report;
        }
        Err(e) => {
            report.error = Some(format!("the decompiled source does not compile: {e}"));
            return report;
        }
    };
    compare_modules(&original, &recompiled, &mut report);
    report
}

/// Compares every function of `original` with its namesake in `recompiled`.
///
/// A function that holds a nested function that differs (at any depth) differs too
/// (the nested code is one of its constants, its definition part of its statements):
/// it is compared again with those nested functions taken from the original, so that
/// each difference is counted once, at the function whose own code differs.
pub fn compare_modules(original: &CodeObject, recompiled: &CodeObject, report: &mut VerifyReport) {
    let (mut a, mut b) = (Vec::new(), Vec::new());
    functions(original, "", "", &mut a);
    functions(recompiled, "", "", &mut b);
    let by_key: HashMap<&str, &CodeObject> = b.iter().map(|(k, _, c)| (k.as_str(), *c)).collect();
    let original_by_key: HashMap<&str, &CodeObject> = a.iter().map(|(k, _, c)| (k.as_str(), *c)).collect();
    let stubs: Vec<&str> = b.iter().filter(|(_, _, c)| is_stub(c)).map(|(k, _, _)| k.as_str()).collect();
    // Recovered as the decompiled source was written: a nested function that cannot be
    // decompiled is a stub on both sides (listed under `failed` itself), so that the
    // class or function around it is still compared.
    let options = Options { stub_failures: true, ..Options::default() };
    let inside_stub = |key: &str| stubs.iter().any(|s| key == *s || key.starts_with(&format!("{s}/")));
    // Nested functions first (`a` lists a function before those nested in it).
    let mut verdicts: Vec<Option<(Verdict, String)>> = vec![None; a.len()];
    // The keys of the functions that differ and of every function around one.
    let mut tainted: std::collections::HashSet<&str> = std::collections::HashSet::new();
    for i in (0..a.len()).rev() {
        let (key, _, code) = &a[i];
        let Some(other) = by_key.get(key.as_str()).filter(|_| !inside_stub(key)) else { continue };
        let mut verdict = compare(code, other, &options);
        if verdict.0 == Verdict::Differs {
            let mut patched: Option<CodeObject> = None;
            for (idx, child) in children(other, key) {
                if let (true, Some(orig)) = (tainted.contains(child.as_str()), original_by_key.get(child.as_str())) {
                    patched.get_or_insert_with(|| (*other).clone()).co_consts[idx] = Constant::Code(Arc::new((*orig).clone()));
                }
            }
            if let Some(p) = patched {
                verdict = compare(code, &p, &options);
            }
        }
        if verdict.0 == Verdict::Differs {
            tainted.insert(key.as_str());
            tainted.extend(key.match_indices('/').map(|(at, _)| &key[..at]));
        }
        verdicts[i] = Some(verdict);
    }
    for ((key, name, _), verdict) in a.iter().zip(verdicts) {
        if inside_stub(key) {
            report.failed.push(name.clone());
            continue;
        }
        match verdict {
            None => report.different.push((name.clone(), "not found in the recompiled code".into())),
            Some((Verdict::Identical, _)) => report.identical += 1,
            Some((Verdict::Equivalent, _)) => {
                report.equivalent += 1;
                report.equivalent_functions.push(name.clone());
            }
            Some((Verdict::Differs, detail)) => report.different.push((name.clone(), detail)),
        }
    }
}

/// The functions directly nested in `code` (whose key is `key`) as (index in
/// `co_consts`, key), keyed as [`functions`] keys them.
fn children(code: &CodeObject, key: &str) -> Vec<(usize, String)> {
    let mut seen: HashMap<&str, usize> = HashMap::new();
    let mut out = Vec::new();
    for (idx, c) in code.co_consts.iter().enumerate() {
        let Constant::Code(c) = c else { continue };
        let n = seen.entry(c.co_name.as_str()).or_default();
        out.push((idx, format!("{key}/{}#{n}", c.co_name)));
        *n += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn python_args() {
        assert_eq!(parse_python_arg("3.12=/x/python").unwrap(), (PythonVersion::PY312, PathBuf::from("/x/python")));
        assert!(parse_python_arg("3.7=/x").unwrap_err().contains("not 3.7"));
        assert!(parse_python_arg("python3.12").is_err());
    }

    /// `functions.py` compiled by 3.12 (`fixtures/cases`), as a module code object.
    fn functions_module() -> CodeObject {
        let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pyc/py312/functions.pyc");
        pyc::read_pyc(&std::fs::read(path).unwrap()).unwrap().code
    }

    fn code_const<'a>(code: &'a mut CodeObject, name: &str) -> &'a mut Constant {
        code.co_consts.iter_mut().find(|c| matches!(c, Constant::Code(c) if c.co_name == name)).unwrap()
    }

    #[test]
    fn a_differing_nested_function_is_counted_once() {
        // `outer` holds `inner`; the "recompiled" module has another body for `inner`.
        let original = functions_module();
        let mut recompiled = original.clone();
        let Constant::Code(only) = code_const(&mut recompiled, "only").clone() else { unreachable!() };
        let Constant::Code(outer) = code_const(&mut recompiled, "outer") else { unreachable!() };
        let outer = Arc::make_mut(outer);
        let Constant::Code(inner) = code_const(outer, "inner") else { unreachable!() };
        let mut other = (*only).clone();
        other.co_name = inner.co_name.clone();
        other.co_qualname = inner.co_qualname.clone();
        *inner = Arc::new(other);
        let mut report = VerifyReport::default();
        compare_modules(&original, &recompiled, &mut report);
        let names: Vec<&str> = report.different.iter().map(|(n, _)| n.as_str()).collect();
        assert_eq!(names, ["outer.<locals>.inner"], "{:?}", report.different);
        assert!(report.identical >= 1);
    }

    #[test]
    fn a_missing_explicit_interpreter_is_named() {
        let e = find_interpreter(PythonVersion::PY312, &[(PythonVersion::PY312, "/no/such/python".into())]).unwrap_err();
        assert!(e.contains("does not run"), "{e}");
    }
}
