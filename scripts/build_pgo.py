"""Builds `depyf` (the CLI) with profile-guided optimization: `target/pgo/release/depyf`.

A plain `cargo build --release` is the build every test and the README's commands use;
this one is for the speed figures of `benches/cli_vs_original.py` (issue #7), where it
runs about 4-5% less CPU time than the plain build on every version (measured on the
CPython 3.12 and 3.15 standard libraries, outputs byte-identical). Steps:

1. build the CLI instrumented (`-Cprofile-generate`) into `target/pgo-gen`;
2. compile this repository's own tracked `.py` files (tests, semantics cases, the
   Python package: about 190 files, not the standard library the benchmark measures)
   with every CPython 3.8-3.15 interpreter found (`pythonX.Y` on PATH, pyenv, or
   `--python X.Y=PATH`, as the benchmark finds them), `compile()` only, nothing run;
3. decompile each of those trees with the instrumented CLI, which writes the profile;
4. merge the profile with the `llvm-profdata` of rustc's LLVM version (`rustc -vV`;
   on Debian the `llvm-N` package: `apt-get install llvm-22` for rustc's LLVM 22);
5. build the CLI again with `-Cprofile-use` into `target/pgo`.

    python3 scripts/build_pgo.py [--python 3.15=PATH ...]

Exits 2 with the reason when no matching `llvm-profdata` or no interpreter is found,
or when a step fails; prints the path of the optimized binary on success.
"""

import argparse
import glob
import os
import re
import shutil
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(REPO, "benches"))
from cli_vs_original import COMPILE_INTO, VERSIONS, find_python  # noqa: E402

# Run by each interpreter: compiles the files listed on stdin (paths relative to the
# repository) into .pyc files under the destination, skipping what this version cannot
# compile (a `match` for 3.8, `except*` before 3.11).
COMPILE = COMPILE_INTO + r"""
repo, dest = sys.argv[1], sys.argv[2]
print(compile_into(repo, [r for r in sys.stdin.read().split("\n") if r], dest))
"""


def fail(message):
    print(f"build_pgo: {message}", file=sys.stderr)
    sys.exit(2)


def run(cmd, env=None, ok=(0,)):
    """Runs `cmd`; a return code outside `ok` ends the script with its output."""
    p = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True)
    if p.returncode not in ok:
        fail(f"{' '.join(cmd)} failed ({p.returncode}):\n{p.stdout[-2000:]}{p.stderr[-4000:]}")
    return p


def llvm_profdata():
    """The `llvm-profdata` whose LLVM major version is rustc's (profiles of another
    version do not load), or the reason there is none."""
    info = run(["rustc", "-vV"]).stdout
    m = re.search(r"^LLVM version: (\d+)", info, re.M)
    if not m:
        fail("rustc -vV names no LLVM version")
    major = m.group(1)
    for name in (f"llvm-profdata-{major}", "llvm-profdata"):
        exe = shutil.which(name)
        if not exe:
            continue
        out = subprocess.run([exe, "--version"], capture_output=True, text=True).stdout
        if re.search(rf"LLVM version {major}\.", out):
            return exe
    fail(f"no llvm-profdata of LLVM {major} (rustc's) on PATH; on Debian: apt-get install llvm-{major}")


def corpus_files():
    """This repository's tracked Python sources, relative paths, sorted."""
    p = subprocess.run(["git", "ls-files", "*.py"], cwd=REPO, capture_output=True, text=True)
    if p.returncode == 0 and p.stdout.strip():
        return sorted(p.stdout.split())
    skip = {".git", "target", ".venv", "node_modules", "__pycache__"}
    files = []
    for d, dirs, names in os.walk(REPO):
        dirs[:] = [x for x in dirs if x not in skip]
        files += [os.path.relpath(os.path.join(d, n), REPO) for n in names if n.endswith(".py")]
    return sorted(files)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--python", action="append", default=[], metavar="X.Y=PATH")
    args = ap.parse_args()
    explicit = dict(x.split("=", 1) for x in args.python)
    profdata = llvm_profdata()
    pythons = {v: p for v in VERSIONS if (p := find_python(v, explicit))}
    if not pythons:
        fail("no CPython 3.8-3.15 interpreter found to compile the training corpus (give one with --python X.Y=PATH)")
    work = os.path.join(REPO, "target", "pgo-work")
    shutil.rmtree(work, ignore_errors=True)
    raw = os.path.join(work, "profraw")
    env = dict(os.environ)
    env.pop("RUSTFLAGS", None)
    env["CARGO_ENCODED_RUSTFLAGS"] = f"-Cprofile-generate={raw}"
    print("build_pgo: building the instrumented CLI (target/pgo-gen)", file=sys.stderr)
    run(["cargo", "build", "--release", "-p", "depyf_cli", "--target-dir", os.path.join(REPO, "target", "pgo-gen")], env=env)
    instrumented = os.path.join(REPO, "target", "pgo-gen", "release", "depyf")
    files = "\n".join(corpus_files())
    for version, python in pythons.items():
        tree = os.path.join(work, "corpus", version)
        n = subprocess.run([python, "-c", COMPILE, REPO, tree], input=files, capture_output=True, text=True, cwd=REPO)
        if n.returncode != 0:
            fail(f"{python} could not compile the corpus: {n.stderr[-2000:]}")
        # 0: all decompiled, 1: some functions became stubs; both leave a profile.
        run([instrumented, "decompile", tree, "-o", os.path.join(work, "out", version), "-j", "0"], ok=(0, 1))
        print(f"build_pgo: trained on {n.stdout.strip()} files of CPython {version} ({python})", file=sys.stderr)
    merged = os.path.join(work, "depyf.profdata")
    run([profdata, "merge", "-o", merged, *glob.glob(os.path.join(raw, "*.profraw"))])
    env["CARGO_ENCODED_RUSTFLAGS"] = f"-Cprofile-use={merged}"
    print("build_pgo: building the optimized CLI (target/pgo)", file=sys.stderr)
    run(["cargo", "build", "--release", "-p", "depyf_cli", "--target-dir", os.path.join(REPO, "target", "pgo")], env=env)
    print(os.path.join(REPO, "target", "pgo", "release", "depyf"))


if __name__ == "__main__":
    main()
