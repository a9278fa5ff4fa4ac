//! Snapshot tests of the printed source: every top-level function and class of each
//! golden fixture (`fixtures/pyc/py3X/<case>.pyc`, compiled from `fixtures/cases/<case>.py`
//! by `scripts/gen_fixtures.py`) decompiled, one snapshot per (version, case):
//! `snapshots/decompile@py311__<case>.snap`, with sections `## Decompiled` and
//! `## Recompile check`.
//!
//! The recompile check needs the interpreter of that version, which Rust tests never do;
//! its data is committed instead: `scripts/run_semantics.py --recompile-fixtures`, run
//! with each interpreter, writes `tests/recompiled/py3X/<case>.py` (the decompiled
//! sources) and the `.pyc` that interpreter compiles from it. A function's verdict
//! ([`depyf_decompile::compare`] of the original with its recompiled twin) is shown
//! while its decompiled source is still the stored one, else "unknown (stale)".
//!
//! Review changes with `cargo insta review` (or `INSTA_UPDATE=always`, then read the
//! diff); under `CI=true` a changed or new snapshot fails the run.

use std::path::{Path, PathBuf};

use depyf_bytecode::{read_pyc, CodeObject, Constant};
use depyf_decompile::{compare, decompile, Options};

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn code_consts(code: &CodeObject) -> Vec<&CodeObject> {
    code.co_consts.iter().filter_map(|c| if let Constant::Code(c) = c { Some(&**c) } else { None }).collect()
}

/// The stored decompiled source of each function: the text after each
/// `# depyf-function: NAME` line up to the next one.
fn stored_sources(text: &str) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for line in text.lines() {
        if let Some(name) = line.strip_prefix("# depyf-function: ") {
            out.push((name.to_string(), String::new()));
        } else if let Some((_, src)) = out.last_mut() {
            src.push_str(line);
            src.push('\n');
        }
    }
    for (_, src) in &mut out {
        let trimmed = src.trim_end().to_string();
        *src = trimmed + "\n";
    }
    out
}

fn recompile_check(code: &CodeObject, source: &str, stored: &[(String, String)], recompiled: Option<&CodeObject>) -> String {
    let Some((_, old)) = stored.iter().find(|(n, _)| *n == code.co_name) else {
        return "unknown (not in tests/recompiled)".into();
    };
    if old.trim_end() != source.trim_end() {
        return "unknown (stale: the decompiled source changed; rerun scripts/run_semantics.py --recompile-fixtures)".into();
    }
    let Some(twin) = recompiled.and_then(|m| code_consts(m).into_iter().find(|c| c.co_name == code.co_name)) else {
        return "does not recompile".into();
    };
    let (verdict, detail) = compare(code, twin, &Options::default());
    match verdict.as_str() {
        "identical" => "identical".into(),
        v => format!("{v}: {}", detail.lines().next().unwrap_or("")),
    }
}

fn check_version(tag: &str) {
    let dir = repo().join("fixtures/pyc").join(tag);
    let rec_dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/recompiled").join(tag);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "pyc"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no fixtures in {}", dir.display());
    for pyc_path in files {
        let case = pyc_path.file_stem().unwrap().to_string_lossy().to_string();
        let pyc = read_pyc(&std::fs::read(&pyc_path).unwrap()).unwrap();
        let stored = std::fs::read_to_string(rec_dir.join(format!("{case}.py"))).map(|t| stored_sources(&t)).unwrap_or_default();
        let recompiled = std::fs::read(rec_dir.join(format!("{case}.pyc"))).ok().map(|d| read_pyc(&d).unwrap().code);
        let mut decompiled = String::from("## Decompiled\n");
        let mut checks = String::from("## Recompile check\n\n");
        for code in code_consts(&pyc.code) {
            decompiled.push_str(&format!("\n### {} (line {})\n\n", code.co_name, code.co_firstlineno));
            match decompile(code, &Options::default()) {
                Ok(out) => {
                    decompiled.push_str(&format!("```python\n{}```\n", out.source));
                    let verdict = recompile_check(code, &out.source, &stored, recompiled.as_ref());
                    checks.push_str(&format!("- {}: {verdict}\n", code.co_name));
                }
                Err(e) => {
                    decompiled.push_str(&format!("error: {e}\n"));
                    checks.push_str(&format!("- {}: not decompiled\n", code.co_name));
                }
            }
        }
        let mut settings = insta::Settings::clone_current();
        settings.set_prepend_module_to_snapshot(false);
        settings.set_input_file(repo().join("fixtures/cases").join(format!("{case}.py")));
        settings.set_omit_expression(true);
        settings.bind(|| insta::assert_snapshot!(format!("decompile@{tag}__{case}"), format!("{decompiled}\n{checks}")));
    }
}

macro_rules! snapshot_tests {
    ($($name:ident => $tag:literal),* $(,)?) => {
        $(#[test]
        fn $name() {
            check_version($tag);
        })*
    };
}

snapshot_tests! {
    py38 => "py38", py39 => "py39", py310 => "py310", py311 => "py311",
    py312 => "py312", py313 => "py313", py314 => "py314", py315 => "py315",
}
