//! `depyf decompile`: the library's output map, and the binary's flags and exit codes,
//! over the committed `.pyc` fixtures (no interpreter needed, except for the one
//! `--verify` test that uses a matching CPython when one is installed).

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use depyf_cli::decompile::{collect_inputs, decompile_bytes, decompile_inputs, decompile_module, BatchOutput, DecompileConfig, FileReport};

fn fixture(version: &str, name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pyc").join(version).join(name)
}

fn copy(from: PathBuf, to: &Path) {
    std::fs::create_dir_all(to.parent().unwrap()).unwrap();
    std::fs::copy(from, to).unwrap();
}

/// A tree with several versions, `__pycache__` and legacy layouts, and a module that
/// exists for two versions.
fn mixed_tree(root: &Path) {
    copy(fixture("py38", "basics.pyc"), &root.join("a/__pycache__/basics.cpython-38.pyc"));
    copy(fixture("py312", "basics.pyc"), &root.join("a/__pycache__/basics.cpython-312.pyc"));
    copy(fixture("py311", "extended_arg.pyc"), &root.join("a/__pycache__/extended_arg.cpython-311.pyc"));
    std::fs::create_dir_all(root.join("b")).unwrap();
    std::fs::write(root.join("b/functions.pyc"), broken_only("py310")).unwrap();
    copy(fixture("py314", "basics.pyc"), &root.join("c/__pycache__/basics.cpython-314.pyc"));
    copy(fixture("py39", "extended_arg.pyc"), &root.join("c/__pycache__/extended_arg.cpython-39.pyc"));
}

/// `functions.pyc` of `version` with an undefined opcode at the start of its function
/// `only`: a nested function that cannot be decompiled, whatever the decompiler learns.
fn broken_only(version: &str) -> Vec<u8> {
    let mut data = std::fs::read(fixture(version, "functions.pyc")).unwrap();
    break_function(&mut data, &["only"]);
    data
}

/// Writes an undefined opcode at the start of the code object at `path` (`co_name`s
/// from the module down) in the `.pyc` bytes `data`.
fn break_function(data: &mut [u8], path: &[&str]) {
    let pyc = depyf_bytecode::read_pyc(data).unwrap();
    let mut code = std::sync::Arc::new(pyc.code);
    for name in path {
        code = code
            .co_consts
            .iter()
            .find_map(|c| match c {
                depyf_bytecode::Constant::Code(c) if c.co_name == *name => Some(c.clone()),
                _ => None,
            })
            .unwrap();
    }
    let at = data.windows(code.co_code.len()).position(|w| w == code.co_code.as_slice()).unwrap();
    let table = depyf_bytecode::table_for(pyc.header.version).unwrap();
    data[at] = (0..=255u8).rev().find(|&op| table.name(op).is_none()).unwrap();
}

fn depyf() -> Command {
    Command::cargo_bin("depyf").unwrap()
}

fn stdout_json(out: &std::process::Output) -> serde_json::Value {
    serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out.stdout)))
}

#[test]
fn inputs_mirror_the_tree() {
    let dir = tempfile::tempdir().unwrap();
    mixed_tree(dir.path());
    let inputs = collect_inputs(&[dir.path().to_path_buf()]).unwrap();
    let outputs: Vec<String> = inputs.iter().map(|i| i.output.to_string_lossy().replace('\\', "/")).collect();
    assert_eq!(
        outputs,
        ["a/basics.cpython-312.py", "a/basics.cpython-38.py", "a/extended_arg.py", "b/functions.py", "c/basics.py", "c/extended_arg.py"]
    );
}

#[test]
fn library_returns_sources_versions_and_stubs_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    mixed_tree(dir.path());
    let inputs = collect_inputs(&[dir.path().to_path_buf()]).unwrap();
    let out = decompile_inputs(&inputs, &DecompileConfig { jobs: 2, ..DecompileConfig::default() }, &|_: &FileReport| {});
    let versions: Vec<String> = out.files.iter().map(|f| f.version.unwrap().to_string()).collect();
    assert_eq!(versions, ["3.12", "3.8", "3.11", "3.10", "3.14", "3.9"]);
    let functions = &out.files[3];
    let src = functions.source.as_deref().unwrap();
    assert!(src.starts_with("# depyf: decompiled from functions.pyc (CPython 3.10)\n"), "{src}");
    assert!(src.contains("def only(a, /, b, *, c):\n    raise RuntimeError('depyf could not decompile only: "), "{src}");
    assert!(src.contains("def positional("), "{src}");
    assert!(functions.failures.iter().any(|f| f.qualname == "only"), "{:?}", functions.failures);
    assert!(functions.functions > functions.failures.len());
    assert_eq!(out.exit_code(), 1);
}

#[test]
fn corrupt_truncated_and_unsupported_files_are_reported_per_file() {
    let good = std::fs::read(fixture("py312", "basics.pyc")).unwrap();
    let r = decompile_bytes(&good[..good.len() / 2], "t.pyc");
    assert!(r.error.as_deref().unwrap().starts_with("corrupt or truncated .pyc: at byte offset"), "{:?}", r.error);
    let r = decompile_bytes(&good[..10], "t.pyc");
    assert!(r.error.as_deref().unwrap().contains("16-byte .pyc header"), "{:?}", r.error);
    let mut junk = good[..16].to_vec();
    junk.extend_from_slice(b"\xff\xfe not marshal data");
    assert!(decompile_bytes(&junk, "j.pyc").error.unwrap().starts_with("corrupt or truncated .pyc"));
    let mut old = good.clone();
    old[..2].copy_from_slice(&3394u16.to_le_bytes());
    assert_eq!(decompile_bytes(&old, "o.pyc").error.unwrap(), "unsupported version 3.7 (magic number 3394; depyf reads 3.8-3.15)");
    // Source text given where a .pyc was expected is named as such, not as a corrupt .pyc.
    let e = decompile_bytes(b"def f(x):\n    return x\n", "f.py").error.unwrap();
    assert!(e.starts_with("not a .pyc file: the file is text (Python source?)"), "{e}");
}

#[test]
fn one_file_goes_to_stdout_and_exits_0() {
    let out = depyf().args(["decompile"]).arg(fixture("py312", "basics.pyc")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.starts_with("# depyf: decompiled from basics.pyc (CPython 3.12)\n"), "{text}");
    // No progress bar or escape codes when stderr is not a terminal.
    assert!(!String::from_utf8_lossy(&out.stderr).contains('\x1b'));
}

#[test]
fn stubs_exit_1_and_are_listed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("functions.pyc");
    std::fs::write(&path, broken_only("py311")).unwrap();
    let out = depyf().args(["decompile"]).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("functions.pyc: stub for only: "), "{err}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("raise RuntimeError('depyf could not decompile only: "), "{text}");
    assert!(text.contains("def positional("), "{text}");
}

/// When the module body cannot be decompiled, a class body that can is still written
/// whole: its annotated attribute and its decorated method are kept.
#[test]
fn a_failed_module_body_keeps_whole_classes() {
    let mut data = std::fs::read(fixture("py312", "control.pyc")).unwrap();
    let pyc = depyf_bytecode::read_pyc(&data).unwrap();
    let module = pyc.code.co_code.clone();
    let at = data.windows(module.len()).position(|w| w == module.as_slice()).unwrap();
    let table = depyf_bytecode::table_for(pyc.header.version).unwrap();
    data[at] = (0..=255u8).rev().find(|&op| table.name(op).is_none()).unwrap();
    let r = decompile_bytes(&data, "control.pyc");
    let src = r.source.clone().unwrap();
    assert!(src.contains("# depyf could not decompile the module body: "), "{src}");
    assert_eq!(r.failures[0].qualname, "<module>");
    // The totals count the module body apart from the functions.
    let stubs = r.failures.len() - 1;
    let out = BatchOutput { files: vec![r], ..BatchOutput::default() };
    assert_eq!((out.failed(), out.module_bodies_failed()), (stubs, 1));
    assert_eq!(out.to_json(false)["totals"]["module_bodies_failed"], 1);
    assert!(src.contains("class Point:\n    x: int = 0\n"), "{src}");
    assert!(src.contains("    @property\n    def double(self):\n        return self.x * 2\n"), "{src}");
}

/// CPython 3.15 (PEP 810): module-level `lazy import`/`lazy from` and the eager flag of
/// plain imports in `try` blocks and class bodies.
#[test]
fn lazy_and_eager_imports_of_315() {
    let r = decompile_bytes(&std::fs::read(fixture("py315", "lazy315.pyc")).unwrap(), "lazy315.pyc");
    let src = r.source.as_deref().unwrap();
    assert!(r.failures.is_empty(), "{:?}", r.failures);
    for line in ["lazy import os\n", "lazy import os.path as osp\n", "lazy from typing import IO, Literal as L\n", "try:\n    import json\n", "class C:\n    import re\n"] {
        assert!(src.contains(line), "{line:?} in {src}");
    }
}

#[test]
fn output_dir_mirrors_the_tree_and_bad_files_exit_2() {
    let dir = tempfile::tempdir().unwrap();
    let tree = dir.path().join("tree");
    mixed_tree(&tree);
    let good = std::fs::read(fixture("py313", "basics.pyc")).unwrap();
    std::fs::write(tree.join("a/__pycache__/truncated.cpython-313.pyc"), &good[..40]).unwrap();
    let mut old = good.clone();
    old[..2].copy_from_slice(&3394u16.to_le_bytes());
    std::fs::write(tree.join("c/old.pyc"), old).unwrap();
    let out_dir = dir.path().join("out");
    let out = depyf().args(["decompile", "-o"]).arg(&out_dir).arg(&tree).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("truncated.cpython-313.pyc: corrupt or truncated .pyc: at byte offset"), "{err}");
    assert!(err.contains("old.pyc: unsupported version 3.7"), "{err}");
    assert!(out.stdout.is_empty());
    for f in ["a/basics.cpython-38.py", "a/basics.cpython-312.py", "a/extended_arg.py", "b/functions.py", "c/basics.py", "c/extended_arg.py"] {
        let text = std::fs::read_to_string(out_dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(text.starts_with("# depyf: decompiled from "), "{f}: {text}");
    }
    assert!(!out_dir.join("a/truncated.py").exists());
    assert!(!out_dir.join("c/old.py").exists());
}

#[test]
fn json_summary() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("functions.pyc");
    std::fs::write(&path, broken_only("py38")).unwrap();
    let out = depyf().args(["decompile", "--json"]).arg(fixture("py312", "basics.pyc")).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(1));
    let j = stdout_json(&out);
    let files = j["files"].as_array().unwrap();
    assert_eq!(files.len(), 2);
    assert_eq!(files[0]["version"], "3.12");
    assert_eq!(files[1]["version"], "3.8");
    assert!(files[1]["functions"].as_u64().unwrap() > 0);
    assert!(files[0]["seconds"].as_f64().unwrap() >= 0.0);
    assert!(files[0]["source"].as_str().unwrap().starts_with("# depyf: decompiled from basics.pyc"));
    let failures = files[1]["failures"].as_array().unwrap();
    assert!(failures.iter().any(|f| f["qualname"] == "only" && !f["reason"].as_str().unwrap().is_empty()), "{failures:?}");
    assert_eq!(j["totals"]["files"], 2);
    assert_eq!(j["totals"]["verify_seconds"], 0.0, "no --verify");
    assert!(j["totals"]["verify"].is_null(), "no --verify: {}", j["totals"]);
    assert_eq!(files[0]["output"], "basics.py");
    assert_eq!(j["exit_code"], 1);
}

/// A file that cannot be read names no output (nothing is written for it), and the
/// summary counts it as an error.
#[test]
fn json_names_no_output_for_an_unreadable_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("empty.pyc");
    std::fs::write(&path, b"").unwrap();
    let out = depyf().args(["decompile", "--json", "-o"]).arg(dir.path().join("out")).arg(&path).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let j = stdout_json(&out);
    assert!(j["files"][0]["output"].is_null(), "{}", j["files"][0]);
    assert!(j["files"][0]["error"].as_str().unwrap().contains("offset"), "{}", j["files"][0]);
    assert_eq!(j["totals"]["files_with_errors"], 1);
    assert!(!dir.path().join("out").join("empty.py").exists());
}

#[test]
fn usage_errors_exit_2() {
    depyf().args(["decompile", "no/such/file.pyc"]).assert().code(2);
    let file = tempfile::NamedTempFile::new().unwrap();
    let out = depyf().args(["decompile", "-o"]).arg(file.path()).arg(fixture("py312", "basics.pyc")).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("not a directory"), "{:?}", out);
    assert_eq!(out.status.code(), Some(2));
    depyf().args(["decompile"]).assert().code(2);
    depyf().args(["decompile", "--python", "3.12"]).arg(fixture("py312", "basics.pyc")).assert().code(2);
    // An interpreter named without --verify would be silently unused.
    let out = depyf().args(["decompile", "--python", "3.12=/usr/bin/python3"]).arg(fixture("py312", "basics.pyc")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--verify"), "{:?}", out);
    // A folder with no .pyc in it (sources only).
    let sources = tempfile::tempdir().unwrap();
    std::fs::write(sources.path().join("m.py"), "x = 1\n").unwrap();
    let out = depyf().args(["decompile", "--json"]).arg(sources.path()).output().unwrap();
    assert!(String::from_utf8_lossy(&out.stderr).contains("no .pyc files in"), "{:?}", out);
    assert_eq!(out.status.code(), Some(2));
}

#[test]
fn verify_without_an_interpreter_says_so_and_carries_on() {
    let empty = tempfile::tempdir().unwrap();
    let out = depyf()
        .env("PATH", empty.path())
        .env("PYENV_ROOT", empty.path())
        .env("HOME", empty.path())
        .args(["decompile", "--verify", "--json"])
        .arg(fixture("py312", "basics.pyc"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--verify skipped for CPython 3.12 files: no CPython 3.12 interpreter"), "{err}");
    let j = stdout_json(&out);
    assert!(j["files"][0]["verify"]["interpreter"].is_null());
    assert!(j["files"][0]["source"].as_str().is_some());
}

/// A CPython 3.12 to verify with: `python3.12` on PATH or in pyenv.
fn python312() -> Option<PathBuf> {
    depyf_cli::verify::find_interpreter(depyf_bytecode::PythonVersion::PY312, &[]).ok()
}

#[test]
fn verify_with_an_interpreter_compares_every_function() {
    let Some(python) = python312() else {
        eprintln!("skipped: no CPython 3.12 installed");
        return;
    };
    let mut arg = std::ffi::OsString::from("3.12=");
    arg.push(&python);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("functions.pyc");
    std::fs::write(&path, broken_only("py312")).unwrap();
    let out = depyf().args(["decompile", "--verify", "--json", "--python"]).arg(arg).arg(fixture("py312", "basics.pyc")).arg(&path).output().unwrap();
    let j = stdout_json(&out);
    let basics = &j["files"][0]["verify"];
    assert_eq!(basics["interpreter"].as_str().map(PathBuf::from), Some(python));
    assert!(basics["error"].is_null(), "{basics}");
    let checked = basics["identical"].as_u64().unwrap() + basics["equivalent"].as_u64().unwrap();
    assert_eq!(checked, j["files"][0]["functions"].as_u64().unwrap(), "{basics}");
    // Each equivalent function is named, so that benches/roundtrip_cli.py can split them.
    assert_eq!(basics["equivalent_functions"].as_array().unwrap().len() as u64, basics["equivalent"].as_u64().unwrap(), "{basics}");
    let functions = &j["files"][1]["verify"];
    assert!(functions["failed"].as_array().unwrap().iter().any(|f| f == "only"), "{functions}");
    assert!(functions["identical"].as_u64().unwrap() > 0, "{functions}");
    assert_eq!(out.status.code(), Some(1));
}

#[test]
fn verify_with_a_wrong_interpreter_is_a_usage_error() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-python");
    let mut arg = std::ffi::OsString::from("3.11=");
    arg.push(&missing);
    let out = depyf().args(["decompile", "--verify", "-o"]).arg(dir.path().join("out")).arg("--python").arg(arg).arg(fixture("py311", "basics.pyc")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: --python 3.11=") && err.contains("does not run"), "{err}");
    assert_eq!(out.status.code(), Some(2));
    assert!(!dir.path().join("out").exists(), "nothing is written");
    let Some(python) = python312() else { return };
    let mut arg = std::ffi::OsString::from("3.11=");
    arg.push(&python);
    let out = depyf().args(["decompile", "--verify", "--python"]).arg(arg).arg(fixture("py311", "basics.pyc")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("error: --python 3.11=") && err.contains("is CPython 3.12"), "{err}");
    assert_eq!(out.status.code(), Some(2));
}

/// `source` compiled by CPython 3.8 into `DIR/name.pyc` (with its temporary folder), or
/// `None` (the test is skipped) when no 3.8 is installed, unless
/// `DEPYF_REQUIRE_ALL_PYTHONS` is set (then that panics).
fn compiled_by_38(name: &str, source: &str) -> Option<(tempfile::TempDir, PathBuf)> {
    let python = match depyf_cli::verify::find_interpreter(depyf_bytecode::PythonVersion::PY38, &[]) {
        Ok(p) => p,
        Err(e) if std::env::var_os("DEPYF_REQUIRE_ALL_PYTHONS").is_none() => {
            eprintln!("skipped: {e}");
            return None;
        }
        Err(e) => panic!("{e}"),
    };
    Some(compiled_by(&python, name, source))
}

/// An int constant of 20,001 bits (6,021 decimal digits) is written in hex: CPython
/// refuses a decimal literal of more than 4,300 digits (3.11+, and 3.8.14, 3.9.14 and
/// 3.10.7 on), and writing one takes quadratic time (a hand-made file of 2 million
/// 15-bit digits ran for minutes). It recompiles to the same constant.
#[test]
fn a_huge_int_constant_is_written_in_hex() {
    let digits = format!("0x1{}", "f".repeat(5000));
    let Some((_dir, pyc)) = compiled_by_38("big", &format!("X = {digits}\ndef f():\n    return -{digits}\n")) else { return };
    let python = depyf_cli::verify::find_interpreter(depyf_bytecode::PythonVersion::PY38, &[]).unwrap();
    let mut arg = std::ffi::OsString::from("3.8=");
    arg.push(&python);
    let out = depyf().args(["decompile", "--verify", "--json", "--python"]).arg(arg).arg(&pyc).output().unwrap();
    let j = stdout_json(&out);
    let source = j["files"][0]["source"].as_str().unwrap();
    assert!(source.contains(&format!("\nX = {digits}\n")) && source.contains(&format!("return -{digits}\n")), "{}", &source[..200]);
    assert_eq!(j["totals"]["verify"]["identical"], 1, "{}", j["totals"]);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
}

/// `source` compiled by the interpreter `python` into `DIR/name.pyc`, with its
/// temporary folder.
fn compiled_by(python: &Path, name: &str, source: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let py = dir.path().join(format!("{name}.py"));
    std::fs::write(&py, source).unwrap();
    let pyc = dir.path().join(format!("{name}.pyc"));
    let ok = std::process::Command::new(python).arg("-c").arg("import py_compile, sys; py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True)").arg(&py).arg(&pyc).status().unwrap();
    assert!(ok.success());
    (dir, pyc)
}

/// 3.8 code whose `finally` bodies with branches are copied gets IR offsets of its own
/// (scaled, each copy between two of them): a refusal there named such an offset
/// (`at offset 458752` in a function of 114 bytes). It names the instruction's byte
/// offset in `co_code`, whose opcode is the opname it names. Needs CPython 3.8 to
/// compile the input (skipped without one, unless `DEPYF_REQUIRE_ALL_PYTHONS` is set).
#[test]
fn refusal_in_a_copied_38_finally_names_a_bytecode_offset() {
    let Some((_dir, pyc)) = compiled_by_38(
        "fin38",
        "def nextfile(self, os):\n    output = self._output\n    try:\n        if output:\n            output.close()\n    finally:\n        file = self._file\n        try:\n            if file:\n                file.close()\n        finally:\n            name = self._name\n            if name and not self._backup:\n                try: os.unlink(name)\n                except OSError: pass\n            self._isstdin = False\n",
    ) else {
        return;
    };
    let out = depyf().args(["decompile", "--json"]).arg(&pyc).output().unwrap();
    let j = stdout_json(&out);
    let failures = j["files"][0]["failures"].as_array().unwrap();
    assert_eq!(failures.len(), 1, "{j}");
    let reason = failures[0]["reason"].as_str().unwrap();
    let (opname, _) = reason.split_once(": ").unwrap();
    let offset: usize = reason.rsplit_once("at offset ").unwrap().1.split(',').next().unwrap().parse().unwrap();
    let data = std::fs::read(&pyc).unwrap();
    let module = depyf_bytecode::read_pyc(&data).unwrap().code;
    let code = module.co_consts.iter().find_map(|c| match c {
        depyf_bytecode::Constant::Code(c) if c.co_name == "nextfile" => Some(c.clone()),
        _ => None,
    });
    let code = code.unwrap();
    assert!(offset < code.co_code.len(), "{reason}");
    let table = depyf_bytecode::table_for(depyf_bytecode::PythonVersion::PY38).unwrap();
    assert_eq!(table.name(code.co_code[offset]), Some(opname), "{reason}");
}

/// A 3.8-3.10 module with more than 255 constants loads the qualname of a function past
/// the 256th with `EXTENDED_ARG` (a `Nop` between the code and its qualname): its
/// module body failed ("MAKE_FUNCTION of a value that is not a code object": 3.8's
/// `locale`, `pickletools`, `stringprep`). Needs CPython 3.8 (skipped without one,
/// unless `DEPYF_REQUIRE_ALL_PYTHONS` is set).
#[test]
fn module_with_over_255_constants_keeps_its_body_38() {
    let source: String = (0..129).map(|i| format!("def g{i}(x):\n    return x + {i}\n")).collect::<String>() + "TRACE = [g128(1)]\n";
    let Some((_dir, pyc)) = compiled_by_38("many", &source) else { return };
    let out = depyf().args(["decompile"]).arg(&pyc).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains("def g128(x):\n    return x + 128\n"), "{text}");
    assert!(text.contains("TRACE = [g128(1)]"), "{text}");
}

/// `functions.pyc` (3.12) with names changed as hand-made or obfuscated code has them.
fn renamed(rename: &dyn Fn(&mut depyf_bytecode::CodeObject)) -> depyf_bytecode::CodeObject {
    let data = std::fs::read(fixture("py312", "functions.pyc")).unwrap();
    let mut code = depyf_bytecode::read_pyc(&data).unwrap().code;
    rename(&mut code);
    code
}

#[test]
fn names_no_source_can_spell_are_refused_and_stubs_still_compile() {
    // A keyword stored by the module: the body is refused at the STORE_NAME that
    // uses it, and the function named so becomes a stub under a spelled name.
    let code = renamed(&|m| {
        let i = m.co_names.iter().position(|n| &**n == "positional").unwrap();
        m.co_names[i] = "not".into();
        for k in m.co_consts.iter_mut() {
            if let depyf_bytecode::Constant::Code(c) = k {
                if c.co_name == "positional" {
                    let c = std::sync::Arc::make_mut(c);
                    c.co_name = "not".into();
                }
            }
        }
    });
    let m = decompile_module(&code, "functions.pyc");
    let body = m.failures.iter().find(|f| f.qualname == "<module>").expect("module body refused");
    assert!(body.reason.contains("STORE_NAME: co_names[1] `not` is not a Python identifier"), "{}", body.reason);
    assert!(m.source.contains("def __depyf_name_6e6f74__(a, b, *args, c, d, **kw):\n    raise RuntimeError("), "{}", m.source);
    // A parameter with a space: only that function is a stub, its parameter spelled.
    let code = renamed(&|m| {
        for k in m.co_consts.iter_mut() {
            if let depyf_bytecode::Constant::Code(c) = k {
                if c.co_name == "only" {
                    std::sync::Arc::make_mut(c).co_localsplusnames[1] = "b c".into();
                }
            }
        }
    });
    let m = decompile_module(&code, "functions.pyc");
    assert_eq!(m.failures.len(), 1, "{:?}", m.failures);
    assert!(m.failures[0].reason.contains("co_localsplusnames[1] `b c` is not a Python identifier"), "{}", m.failures[0].reason);
    assert!(m.source.contains("def only(a, /, __depyf_name_622063__, *, c):\n    raise RuntimeError("), "{}", m.source);
    // A keyword argument's name comes from a constant tuple (3.12 `CALL` after `KW_NAMES`).
    let code = renamed(&|m| {
        for k in m.co_consts.iter_mut() {
            if let depyf_bytecode::Constant::Code(c) = k {
                if c.co_name == "calls" {
                    for k in std::sync::Arc::make_mut(c).co_consts.iter_mut() {
                        if let depyf_bytecode::Constant::Tuple(t) = k {
                            if matches!(t.as_slice(), [depyf_bytecode::Constant::Str(s)] if &**s == "key") {
                                *k = depyf_bytecode::Constant::Tuple(vec![depyf_bytecode::Constant::Str("not".into())]);
                            }
                        }
                    }
                }
            }
        }
    });
    let m = decompile_module(&code, "functions.pyc");
    assert_eq!(m.failures.len(), 1, "{:?}", m.failures);
    assert!(m.failures[0].reason.contains("CALL: keyword name `not` is not a Python identifier"), "{}", m.failures[0].reason);
    // Module paths of imports are not names: `import os.path`, `from . import x`.
    let code = renamed(&|m| m.co_names.push("os.path".into()));
    assert!(decompile_module(&code, "functions.pyc").failures.is_empty());
}

/// A corrupt parameter count (here `co_kwonlyargcount` of 1000 for two names) makes a
/// stub of that function only: the rest of the file is written.
#[test]
fn parameter_counts_past_the_names_make_a_stub_not_a_panic() {
    for count in [1000u32, u32::MAX] {
        let code = renamed(&|m| {
            for k in m.co_consts.iter_mut() {
                if let depyf_bytecode::Constant::Code(c) = k {
                    if c.co_name == "only" {
                        let c = std::sync::Arc::make_mut(c);
                        c.co_kwonlyargcount = count;
                        c.co_argcount = count;
                    }
                }
            }
        });
        let m = decompile_module(&code, "functions.pyc");
        assert_eq!(m.failures.len(), 1, "{:?}", m.failures);
        assert!(m.failures[0].reason.contains("parameters but"), "{}", m.failures[0].reason);
        assert!(m.source.contains("def positional("), "{}", m.source);
    }
}

#[test]
fn a_pycache_folder_given_itself_names_outputs_as_its_parent_does() {
    let dir = tempfile::tempdir().unwrap();
    copy(fixture("py312", "basics.pyc"), &dir.path().join("pkg/__pycache__/basics.cpython-312.pyc"));
    let names = |p: PathBuf| collect_inputs(&[p]).unwrap().into_iter().map(|i| i.output.to_string_lossy().replace('\\', "/")).collect::<Vec<_>>();
    assert_eq!(names(dir.path().join("pkg")), ["basics.py"]);
    assert_eq!(names(dir.path().join("pkg/__pycache__")), ["basics.py"]);
    assert_eq!(names(dir.path().join("pkg/__pycache__/basics.cpython-312.pyc")), ["basics.py"]);
    // Outside a `__pycache__` the stem is kept (it may be all that tells two files apart).
    copy(fixture("py312", "basics.pyc"), &dir.path().join("flat/basics.cpython-312.pyc"));
    assert_eq!(names(dir.path().join("flat")), ["basics.cpython-312.py"]);
}

#[test]
fn output_to_one_py_file() {
    let dir = tempfile::tempdir().unwrap();
    let target = dir.path().join("sub/basics.py");
    let out = depyf().args(["decompile", "-o"]).arg(&target).arg(fixture("py312", "basics.pyc")).output().unwrap();
    assert_eq!(out.status.code(), Some(0), "{}", String::from_utf8_lossy(&out.stderr));
    let text = std::fs::read_to_string(&target).unwrap();
    assert!(text.starts_with("# depyf: decompiled from basics.pyc (CPython 3.12)\n"), "{text}");
    assert!(out.stdout.is_empty());
    // The totals line says "1 file", not "1 files".
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("depyf: 1 file, "), "{err}");
    // Several inputs (or a folder) cannot go into one .py file: a usage error, nothing written.
    let other = dir.path().join("two.py");
    let out = depyf().args(["decompile", "-o"]).arg(&other).arg(fixture("py312", "basics.pyc")).arg(fixture("py38", "control.pyc")).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("takes exactly one input .pyc file (2 files given)"), "{:?}", out);
    assert!(!other.exists());
}

/// `--verify` names each function that recompiles differently on stderr, not only in
/// `--json`: here an interpreter run with `-O` drops the `assert` of `ternary`.
#[cfg(unix)]
#[test]
fn verify_names_differing_functions_on_stderr() {
    use std::os::unix::fs::PermissionsExt;
    let Some(python) = python312() else {
        eprintln!("skipped: no CPython 3.12 installed");
        return;
    };
    let dir = tempfile::tempdir().unwrap();
    let wrapper = dir.path().join("python3.12-O");
    std::fs::write(&wrapper, format!("#!/bin/sh\nexec '{}' -O \"$@\"\n", python.display())).unwrap();
    std::fs::set_permissions(&wrapper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let mut arg = std::ffi::OsString::from("3.12=");
    arg.push(&wrapper);
    let out = depyf().args(["decompile", "--verify", "-o"]).arg(dir.path().join("out")).arg("--python").arg(arg).arg(fixture("py312", "control.pyc")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("control.pyc: ternary differs after recompiling: "), "{err}");
    assert_eq!(out.status.code(), Some(1), "{err}");
}

/// Under `--verify` a class with one stubbed method is compared all the same: the
/// stub is listed as failed, the class body and the other method as identical or
/// equivalent, not as "the original cannot be recovered".
#[test]
fn verify_compares_a_class_around_a_stubbed_method() {
    let Some(python) = python312() else {
        eprintln!("skipped: no CPython 3.12 installed");
        return;
    };
    let (_dir, pyc) = compiled_by(&python, "m", "class C:\n    x = 1\n\n    def ok(self):\n        return self.x\n\n    def only(self, a):\n        return a + 1\n");
    let mut data = std::fs::read(&pyc).unwrap();
    break_function(&mut data, &["C", "only"]);
    std::fs::write(&pyc, &data).unwrap();
    let mut arg = std::ffi::OsString::from("3.12=");
    arg.push(&python);
    let out = depyf().args(["decompile", "--verify", "--json", "--python"]).arg(arg).arg(&pyc).output().unwrap();
    let j = stdout_json(&out);
    let v = &j["files"][0]["verify"];
    assert_eq!(v["failed"], serde_json::json!(["C.only"]), "{v}");
    assert_eq!(v["different"], serde_json::json!([]), "{v}");
    assert_eq!(v["identical"].as_u64().unwrap() + v["equivalent"].as_u64().unwrap(), 2, "C and C.ok: {v}");
    assert_eq!(out.status.code(), Some(1), "the stub");
    // The same counts over the run.
    let t = &j["totals"]["verify"];
    assert_eq!((t["files"].as_u64(), t["failed"].as_u64(), t["different"].as_u64(), t["not_recompiled"].as_u64()), (Some(1), Some(1), Some(0), Some(0)), "{t}");
    assert_eq!(t["identical"].as_u64().unwrap() + t["equivalent"].as_u64().unwrap(), 2, "{t}");
    // The decompiler's time and the check's are told apart.
    assert!(j["totals"]["verify_seconds"].as_f64().unwrap() > 0.0, "{}", j["totals"]);
    assert!(j["totals"]["seconds"].as_f64().unwrap() > 0.0, "{}", j["totals"]);
}

/// `only` of the 3.12 fixture rewritten to `return None + None + ...` with `terms`
/// operands, one level of nesting each (`RESUME`, `LOAD_CONST`, `BINARY_OP` and its
/// cache entry, `RETURN_VALUE`; CPython 3.12 `Lib/opcode.py`).
fn deep_sum(terms: usize) -> depyf_bytecode::CodeObject {
    renamed(&|m| {
        for k in m.co_consts.iter_mut() {
            if let depyf_bytecode::Constant::Code(c) = k {
                if c.co_name == "only" {
                    let c = std::sync::Arc::make_mut(c);
                    let mut code = vec![151, 0, 100, 0];
                    for _ in 1..terms {
                        code.extend([100, 0, 122, 0, 0, 0]);
                    }
                    code.extend([83, 0]);
                    c.co_code = code;
                    c.co_consts = vec![depyf_bytecode::Constant::None];
                    c.co_linetable = Vec::new();
                    c.co_exceptiontable = Vec::new();
                    c.co_stacksize = 2;
                }
            }
        }
    })
}

#[test]
fn expressions_nested_past_the_limit_make_a_stub_not_a_crash() {
    // Deep but within the limit: decompiled, on a stack of the size the limits are for.
    let within = std::thread::Builder::new().stack_size(depyf_decompile::STACK_BYTES).spawn(|| decompile_module(&deep_sum(5_000), "functions.pyc")).unwrap().join().unwrap();
    assert!(within.failures.is_empty(), "{:?}", within.failures);
    assert!(within.source.contains("return None + None + None"), "{}", &within.source[..200]);
    // Past it: refused with the reason (a stack overflow before).
    let past = decompile_module(&deep_sum(300_000), "functions.pyc");
    assert_eq!(past.failures.len(), 1, "{:?}", past.failures);
    assert!(past.failures[0].reason.contains("expressions nest up to 300000 levels deep, beyond depyf's limit of 20000"), "{}", past.failures[0].reason);
    assert!(past.source.contains("def positional("), "the other functions are written");
}

#[cfg(unix)]
#[test]
fn links_to_folders_are_not_followed_and_only_regular_files_are_read() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    copy(fixture("py312", "basics.pyc"), &root.join("pkg/__pycache__/basics.cpython-312.pyc"));
    // A link back up the tree (read for ever if followed), a link to a sibling folder
    // (read twice), and a link to a file (followed).
    std::os::unix::fs::symlink("..", root.join("pkg/up")).unwrap();
    std::os::unix::fs::symlink(root.join("pkg"), root.join("again")).unwrap();
    std::os::unix::fs::symlink(root.join("pkg/__pycache__/basics.cpython-312.pyc"), root.join("linked.pyc")).unwrap();
    let fifo = root.join("pkg/fifo.pyc");
    let made_fifo = std::process::Command::new("mkfifo").arg(&fifo).status().is_ok_and(|s| s.success());
    let inputs = collect_inputs(&[root.clone()]).unwrap();
    let outputs: Vec<String> = inputs.iter().map(|i| i.output.display().to_string()).collect();
    assert_eq!(outputs, ["linked.py", "pkg/basics.py"]);
    if made_fifo {
        // Named on the command line: a usage error, not a read that never returns.
        let err = collect_inputs(&[fifo]).unwrap_err().to_string();
        assert!(err.ends_with("fifo.pyc: not a regular file or a directory"), "{err}");
    }
}

/// A `.pyc` link whose target is gone is reported with its path and target (exit 2),
/// not left out: the user would otherwise never learn that a module was skipped.
#[cfg(unix)]
#[test]
fn a_broken_link_is_reported_and_the_rest_decompiled() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("tree");
    copy(fixture("py312", "basics.pyc"), &root.join("basics.pyc"));
    std::os::unix::fs::symlink("gone.cpython-312.pyc", root.join("dangling.pyc")).unwrap();
    let out_dir = dir.path().join("out");
    let out = depyf().args(["decompile", "--json", "-o"]).arg(&out_dir).arg(&root).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}: cannot read: broken symbolic link to gone.cpython-312.pyc", root.join("dangling.pyc").display())), "{err}");
    assert!(out_dir.join("basics.py").exists(), "{err}");
    let j = stdout_json(&out);
    assert_eq!(j["totals"]["files_with_errors"], 1);
    assert_eq!(j["files"].as_array().unwrap().len(), 2, "{j}");
    // Named on the command line: the same reason, as a usage error.
    let out = depyf().arg("decompile").arg(root.join("dangling.pyc")).output().unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}: broken symbolic link to gone.cpython-312.pyc", root.join("dangling.pyc").display())), "{err}");
}

#[cfg(target_os = "linux")]
#[test]
fn output_that_cannot_be_written_exits_2() {
    let Ok(full) = std::fs::OpenOptions::new().write(true).open("/dev/full") else { return };
    let out = std::process::Command::new(assert_cmd::cargo::cargo_bin("depyf")).arg("decompile").arg(fixture("py312", "basics.pyc")).stdout(full).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("depyf: error: standard output: No space left on device"), "{err}");
}

/// A folder inside a tree that cannot be listed is reported with its own path (exit 2)
/// and the rest of the tree is still decompiled. It needs an unprivileged user (root
/// lists any folder): the test's own, or `nobody` through util-linux's `setpriv` when
/// the tests run as root.
#[test]
fn an_unlisted_folder_does_not_stop_the_tree() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("t");
    copy(fixture("py312", "basics.pyc"), &root.join("a/basics.pyc"));
    copy(fixture("py312", "basics.pyc"), &root.join("a/locked/hidden.pyc"));
    let out_dir = dir.path().join("out");
    std::fs::create_dir(&out_dir).unwrap();
    let mode = |p: &Path, m: u32| std::fs::set_permissions(p, std::fs::Permissions::from_mode(m)).unwrap();
    for p in [dir.path(), &root, &root.join("a")] {
        mode(p, 0o755);
    }
    mode(&out_dir, 0o777);
    mode(&root.join("a/locked"), 0o000);
    let bin = assert_cmd::cargo::cargo_bin("depyf");
    let mut cmd = if std::fs::read_dir(root.join("a/locked")).is_ok() {
        let mut c = std::process::Command::new("setpriv");
        c.args(["--reuid=65534", "--regid=65534", "--clear-groups"]).arg(&bin);
        c
    } else {
        std::process::Command::new(&bin)
    };
    let out = cmd.args(["decompile", "--json", "-o"]).arg(&out_dir).arg(&root).output();
    mode(&root.join("a/locked"), 0o755);
    let out = match out {
        Ok(out) if !String::from_utf8_lossy(&out.stderr).starts_with("setpriv:") => out,
        other => {
            eprintln!("skipped: cannot run depyf as an unprivileged user: {other:?}");
            return;
        }
    };
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(err.contains(&format!("{}: cannot list this folder: ", root.join("a/locked").display())), "{err}");
    assert!(out_dir.join("a/basics.py").exists(), "{err}");
    let j = stdout_json(&out);
    assert_eq!(j["totals"]["files_with_errors"], 1);
    assert!(j["files"].as_array().unwrap().iter().any(|f| f["output"] == "a/basics.py"), "{j}");
}
