"""Round trip of benches/roundtrip_stdlib.py through the `depyf decompile` CLI, for
interpreters that cannot load the extension (CPython 3.8), or to check the CLI.

Run it with the interpreter to measure: it compiles the same fixed sample of its own
standard library (`roundtrip_stdlib.stdlib_files`, first 150 modules) to .pyc files in a
temporary folder, runs `depyf decompile --verify --json` on them with itself as the
interpreter that recompiles, and prints, for all functions (module bodies and class bodies
included, as the CLI counts them): decompiled, identical, identical or equivalent.

    python3.8 benches/roundtrip_cli.py [--depyf target/release/depyf] [--limit-modules N]

The CLI is built with `cargo build --release -p depyf_cli`. Exit status 0 when the CLI
ran (whatever the figures), 2 when it did not.
"""

import argparse
import json
import os
import py_compile
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roundtrip_stdlib import SAMPLE_SIZE, stdlib_files  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--depyf", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "depyf"))
    ap.add_argument("--limit-modules", type=int, default=SAMPLE_SIZE)
    args = ap.parse_args()
    if not os.path.exists(args.depyf):
        print(f"{args.depyf} not found: cargo build --release -p depyf_cli", file=sys.stderr)
        return 2
    version = "%d.%d" % sys.version_info[:2]
    with tempfile.TemporaryDirectory() as tmp:
        pycs = os.path.join(tmp, "pyc")
        n = 0
        for k, path in enumerate(stdlib_files()[: args.limit_modules]):
            try:
                py_compile.compile(path, cfile=os.path.join(pycs, "%03d_%s.pyc" % (k, os.path.basename(path)[:-3])), doraise=True)
                n += 1
            except py_compile.PyCompileError:
                continue
        out = subprocess.run(
            [args.depyf, "decompile", "--verify", "--json", "--python", f"{version}={sys.executable}", "-o", os.path.join(tmp, "out"), pycs],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
        )
        if out.returncode not in (0, 1):
            print(f"depyf exited with {out.returncode}", file=sys.stderr)
            return 2
        report = json.loads(out.stdout)
    functions = sum(f["functions"] for f in report["files"])
    failed = sum(len(f["failures"]) for f in report["files"])
    verify = [f["verify"] for f in report["files"] if f.get("verify")]
    identical = sum(v["identical"] for v in verify)
    equivalent = sum(v["equivalent"] for v in verify)
    pct = lambda x: 100.0 * x / functions if functions else 0.0  # noqa: E731
    print(f"CPython {version} through the CLI: {n} modules, {functions} functions")
    print(f"  decompiled {pct(functions - failed):.1f}%  identical {pct(identical):.1f}%  "
          f"identical or equivalent {pct(identical + equivalent):.1f}%")
    print(f"  {report['totals']['functions_per_second']:.0f} functions/s (wall, with verification)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
