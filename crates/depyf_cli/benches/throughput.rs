//! Decoding throughput over a whole standard library's `.pyc` files.
//!
//! ```text
//! DEPYF_BENCH_PYC_DIR=$(pyenv prefix 3.12)/lib/python3.12 cargo bench -p depyf_cli --bench throughput
//! ```
//!
//! Walks the directory for `*.pyc` (skipping `.opt-1`/`.opt-2` duplicates; e.g. every `__pycache__` of a stdlib; defaults to
//! the committed `fixtures/pyc`), loads the files into memory, then times three stages
//! over all of them, several rounds, and prints MB/s of `.pyc` input for the best round:
//! `read_pyc` (header + marshal), `+ decode` (every code object's instructions,
//! exception and line tables) and `+ dis` (the full `dis.dis` text).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use depyf_bytecode::{decode, dis, line_table, parse_exception_table, pyc, CodeObject, Constant};

fn collect(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else { return };
    let mut entries: Vec<PathBuf> = rd.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, out);
        } else if p.extension().is_some_and(|e| e == "pyc") && !p.to_string_lossy().contains(".opt-") {
            out.push(p);
        }
    }
}

fn decode_all(code: &CodeObject) -> usize {
    let mut n = decode(code).map(|v| v.len()).unwrap_or(0);
    n += parse_exception_table(code).map(|v| v.len()).unwrap_or(0);
    n += line_table::unit_lines(code).map(|v| v.len()).unwrap_or(0);
    for c in &code.co_consts {
        if let Constant::Code(inner) = c {
            n += decode_all(inner);
        }
    }
    n
}

fn time<F: FnMut() -> usize>(rounds: usize, mut f: F) -> (Duration, usize) {
    let mut best = Duration::MAX;
    let mut sink = 0;
    for _ in 0..rounds {
        let t = Instant::now();
        sink = f();
        best = best.min(t.elapsed());
    }
    (best, sink)
}

fn main() {
    let root = std::env::var_os("DEPYF_BENCH_PYC_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fixtures/pyc"));
    let mut files = Vec::new();
    collect(&root, &mut files);
    let blobs: Vec<Vec<u8>> = files.iter().filter_map(|p| std::fs::read(p).ok()).collect();
    let bytes: usize = blobs.iter().map(Vec::len).sum();
    let mb = bytes as f64 / 1e6;
    let rounds: usize = std::env::var("DEPYF_BENCH_ROUNDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let ok = blobs.iter().filter(|b| pyc::read_pyc(b).is_ok()).count();
    println!("{} .pyc files ({ok} readable), {mb:.1} MB, under {}", blobs.len(), root.display());
    let (t, _) = time(rounds, || blobs.iter().filter(|b| pyc::read_pyc(b).is_ok()).count());
    println!("read_pyc           {:8.1} MB/s  ({:.3} s)", mb / t.as_secs_f64(), t.as_secs_f64());
    let (t, n) = time(rounds, || blobs.iter().filter_map(|b| pyc::read_pyc(b).ok()).map(|p| decode_all(&p.code)).sum());
    println!("read_pyc + decode  {:8.1} MB/s  ({:.3} s, {n} instructions/table rows)", mb / t.as_secs_f64(), t.as_secs_f64());
    let (t, n) = time(rounds, || {
        blobs.iter().filter_map(|b| pyc::read_pyc(b).ok()).map(|p| dis::dis(&p.code).map(|s| s.len()).unwrap_or(0)).sum()
    });
    println!("read_pyc + dis     {:8.1} MB/s  ({:.3} s, {:.1} MB of text)", mb / t.as_secs_f64(), t.as_secs_f64(), n as f64 / 1e6);
}
