//! `depyf dis` against each installed interpreter's own `dis.dis`, over a sample of its
//! standard library (`scripts/dis_reference.py` compiles the sample and writes the
//! expected text), and against the committed golden fixtures (no interpreter needed).
//!
//! Interpreters are looked up as `pyenv prefix X.Y`, then `pythonX.Y` on `PATH`; an
//! explicit one can be given as `DEPYF_PYTHON_3_14=/path/to/python3.14` (scripts/test.sh
//! exports one per version). Versions without an interpreter are skipped and named in the
//! output; with `DEPYF_REQUIRE_ALL_PYTHONS=1` (CI) a missing one fails the test. The sample size is
//! `DEPYF_STDLIB_SAMPLE` (default 250).

use std::path::{Path, PathBuf};
use std::process::Command;

const VERSIONS: [&str; 8] = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"];

fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Normalizes what differs between processes: `<code object f at 0x7f..., ...>`.
fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find(" at 0x") {
        let (head, tail) = rest.split_at(i + 6);
        out.push_str(head);
        let hex = tail.bytes().take_while(u8::is_ascii_hexdigit).count();
        out.push_str("ADDR");
        rest = &tail[hex..];
    }
    out.push_str(rest);
    out
}

fn find_python(version: &str) -> Option<PathBuf> {
    let var = format!("DEPYF_PYTHON_{}", version.replace('.', "_"));
    if let Ok(p) = std::env::var(&var) {
        return Some(PathBuf::from(p));
    }
    if let Ok(out) = Command::new("pyenv").args(["prefix", version]).output() {
        if out.status.success() {
            let prefix = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let p = Path::new(&prefix).join("bin").join(format!("python{version}"));
            if p.exists() {
                return Some(p);
            }
        }
    }
    let name = format!("python{version}");
    let ok = Command::new(&name).args(["-c", "pass"]).output().map(|o| o.status.success()).unwrap_or(false);
    ok.then(|| PathBuf::from(name))
}

/// Compares every `NNNN.pyc` in `dir` with its `NNNN.dis`; returns (equal, total, first
/// failures).
fn compare_dir(dir: &Path) -> (usize, usize, Vec<String>) {
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    entries.sort();
    let (mut ok, mut total, mut failures) = (0, 0, Vec::new());
    for pyc in entries.iter().filter(|p| p.extension().is_some_and(|e| e == "pyc")) {
        let Ok(expected) = std::fs::read_to_string(pyc.with_extension("dis")) else { continue };
        total += 1;
        match depyf_cli::dis_file(pyc) {
            Ok(got) if normalize(&got) == normalize(&expected) => ok += 1,
            Ok(got) => {
                let line = normalize(&expected)
                    .lines()
                    .zip(normalize(&got).lines())
                    .find(|(a, b)| a != b)
                    .map(|(a, b)| format!("expected {a:?}, got {b:?}"))
                    .unwrap_or_else(|| "different length".into());
                failures.push(format!("{}: {line}", pyc.display()));
            }
            Err(e) => failures.push(e.to_string()),
        }
    }
    (ok, total, failures)
}

#[test]
fn stdlib_sample_matches_each_interpreters_dis() {
    let sample = std::env::var("DEPYF_STDLIB_SAMPLE").unwrap_or_else(|_| "250".into());
    let script = repo_root().join("scripts/dis_reference.py");
    let base = std::env::temp_dir().join(format!("depyf-stdlib-dis-{}", std::process::id()));
    let mut skipped = Vec::new();
    let mut report = Vec::new();
    let mut problems = Vec::new();
    for v in VERSIONS {
        let Some(py) = find_python(v) else {
            skipped.push(v);
            continue;
        };
        let dir = base.join(v);
        let out = Command::new(&py)
            .arg(&script)
            .arg(&dir)
            .arg(&sample)
            .env("PYTHONHASHSEED", "0")
            .output()
            .expect("run dis_reference.py");
        assert!(out.status.success(), "{v}: {}", String::from_utf8_lossy(&out.stderr));
        let (ok, total, failures) = compare_dir(&dir);
        report.push(format!("{v}: {ok}/{total} equal"));
        // Allowed: frozensets holding None before 3.12, whose order depends on None's
        // address in that process (see depyf_bytecode::set_order).
        for f in failures {
            if !(f.contains("frozenset(") && f.contains("None")) {
                problems.push(f);
            }
        }
        assert!(total >= 200 || total.to_string() != sample, "{v}: only {total} modules compiled");
    }
    let _ = std::fs::remove_dir_all(&base);
    println!("dis equality: {}", report.join(", "));
    println!("skipped (no interpreter): {}", if skipped.is_empty() { "none".into() } else { skipped.join(", ") });
    if std::env::var("DEPYF_REQUIRE_ALL_PYTHONS").as_deref() == Ok("1") {
        assert!(skipped.is_empty(), "DEPYF_REQUIRE_ALL_PYTHONS=1 but no interpreter for {}", skipped.join(", "));
    }
    assert!(problems.is_empty(), "{} mismatches:\n{}", problems.len(), problems[..problems.len().min(20)].join("\n"));
}

#[test]
fn golden_fixtures_match() {
    let root = repo_root().join("fixtures/pyc");
    let mut dirs: Vec<PathBuf> = std::fs::read_dir(&root).expect("fixtures/pyc exists").filter_map(|e| e.ok().map(|e| e.path())).collect();
    dirs.sort();
    let mut total = 0;
    let mut failures = Vec::new();
    for d in dirs {
        let (_, n, f) = compare_dir(&d);
        total += n;
        failures.extend(f);
    }
    assert!(total >= 8, "expected golden fixtures for every version, found {total}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn corrupt_input_is_an_error_not_a_panic() {
    let dir = repo_root().join("fixtures/pyc");
    let Some(pyc) = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .flat_map(|d| std::fs::read_dir(d.path()).into_iter().flatten().flatten())
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "pyc"))
    else {
        panic!("no fixture .pyc found");
    };
    let data = std::fs::read(pyc).unwrap();
    for cut in (0..data.len()).step_by(7) {
        let _ = depyf_cli::dis_bytes(&data[..cut]);
    }
    for i in (16..data.len()).step_by(5) {
        let mut d = data.clone();
        d[i] ^= 0x5a;
        let _ = depyf_cli::dis_bytes(&d);
    }
    let e = depyf_cli::dis_bytes(&data[..20]).unwrap_err();
    assert!(e.to_string().starts_with("at byte offset "), "{e}");
}

/// `decode`'s per-instruction lines agree with the line starts that `dis` prints.
#[test]
fn decode_lines_agree_with_dis_line_starts() {
    use depyf_bytecode::{decode, dis, pyc, CodeObject, Constant};
    fn check(code: &CodeObject, bad: &mut Vec<String>) {
        let starts = dis::line_starts(code).unwrap();
        let ins = decode(code).unwrap();
        for i in &ins {
            if let Some((_, Some(l))) = starts.iter().find(|(o, _)| *o == i.offset) {
                if i.line_number != Some(*l) || !i.starts_line {
                    bad.push(format!("{} {} @{}: dis line {l}, decode {:?} starts={}", code.version, code.co_qualname, i.offset, i.line_number, i.starts_line));
                }
            }
        }
        for c in &code.co_consts {
            if let Constant::Code(inner) = c {
                check(inner, bad);
            }
        }
    }
    let root = repo_root().join("fixtures/pyc");
    let mut bad = Vec::new();
    for d in std::fs::read_dir(root).unwrap().flatten() {
        for f in std::fs::read_dir(d.path()).unwrap().flatten() {
            if f.path().extension().is_some_and(|e| e == "pyc") {
                let p = pyc::read_pyc(&std::fs::read(f.path()).unwrap()).unwrap();
                check(&p.code, &mut bad);
            }
        }
    }
    assert!(bad.is_empty(), "{}\n{}", bad.len(), bad[..bad.len().min(10)].join("\n"));
}
