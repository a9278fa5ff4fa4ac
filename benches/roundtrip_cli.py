"""Round trip of benches/roundtrip_stdlib.py through the `depyf decompile` CLI, for
interpreters that cannot load the extension (CPython 3.8), or to check the CLI.

Run it with the interpreter to measure: it compiles the same fixed sample of its own
standard library (`roundtrip_stdlib.stdlib_files`, first 150 modules) to .pyc files in a
temporary folder, runs `depyf decompile --verify --json` on them with itself as the
interpreter that recompiles, and prints, for all functions (module bodies and class bodies
included, as the CLI counts them): decompiled, identical, identical or equivalent; then the
same for the functions in scope of language part 1 (`roundtrip_stdlib.in_scope`, decided
from the code objects this interpreter compiles, matched to the CLI's report by name).

    python3.8 benches/roundtrip_cli.py [--depyf target/release/depyf] [--limit-modules N]

The CLI is built with `cargo build --release -p depyf_cli`. Exit status 0 when the CLI
ran (whatever the figures), 2 when it did not.
"""

import argparse
import collections
import json
import os
import py_compile
import subprocess
import sys
import tempfile
import types

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from roundtrip_stdlib import SAMPLE_SIZE, in_scope, stdlib_files  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def named_functions(code, dotted=""):
    """Every code object below `code` (the module itself left out) as (name, code), the
    name as the CLI's `--verify` report writes it: the dotted path of `co_name`s before
    CPython 3.11, `co_qualname` from 3.11 (depyf_cli `verify.rs`, `functions`)."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            d = c.co_name if not dotted else dotted + "." + c.co_name
            yield getattr(c, "co_qualname", d) if sys.version_info >= (3, 11) else d, c
            yield from named_functions(c, d)


def scope_figures(source_path, entry, failures):
    """(functions, decompiled, recompiled, identical, equivalent) for the in-scope
    functions of one module, from the CLI's JSON `entry` for its .pyc. Names are not
    unique (a property's getter and setter): where an ambiguous name is shared by
    in- and out-of-scope functions, its failures count against the scope first.
    The in-scope failures are appended to `failures` as text lines."""
    with open(source_path, "rb") as f:
        module = compile(f.read(), source_path, "exec", dont_inherit=True)
    total, scope = collections.Counter(), collections.Counter()
    short = {}
    for name, c in named_functions(module):
        total[name] += 1
        short[name] = c.co_name
        if in_scope(c):
            scope[name] += 1
    n = sum(scope.values())
    def hits(names):
        got = collections.Counter(names)
        return sum(min(k, scope[name]) for name, k in got.items())
    verify = entry.get("verify") or {}
    # Stubs are reported by `co_name` before 3.11 (the failures) and by dotted name
    # with the functions nested in them (verify's `failed`): a function failed to
    # decompile when it is in both.
    stubbed = {x["qualname"] for x in entry["failures"]}
    failed = hits(q for q in verify.get("failed", []) if q in stubbed or short.get(q) in stubbed)
    reasons = {x["qualname"]: x["reason"] for x in entry["failures"]}
    for q in verify.get("failed", []):
        if scope[q] and (q in stubbed or short.get(q) in stubbed):
            failures.append(f"{source_path} {q}: decompile: {reasons.get(q, reasons.get(short.get(q)))}")
        elif scope[q]:
            failures.append(f"{source_path} {q}: not recompiled (verify failed: it sits in a function that did not decompile, or the module did not compile)")
    for d in verify.get("different", []):
        if scope[d["qualname"]]:
            failures.append(f"{source_path} {d['qualname']}: differs: {d['detail']}")
    if entry.get("error") or not verify:
        return n, n - failed, 0, 0, 0
    inside = hits(verify.get("failed", []))
    if verify.get("error"):
        return n, n - failed, 0, 0, 0
    different = hits(d["qualname"] for d in verify["different"])
    equivalent = hits(verify.get("equivalent_functions", []))
    missing = hits(d["qualname"] for d in verify["different"] if d["detail"] == "not found in the recompiled code")
    return n, n - failed, n - inside - missing, n - inside - different - equivalent, equivalent


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--depyf", default=os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "depyf"))
    ap.add_argument("--limit-modules", type=int, default=SAMPLE_SIZE)
    ap.add_argument("--scope-failures", type=int, default=0, help="print this many failures of in-scope functions")
    args = ap.parse_args()
    if not os.path.exists(args.depyf):
        print(f"{args.depyf} not found: cargo build --release -p depyf_cli", file=sys.stderr)
        return 2
    version = "%d.%d" % sys.version_info[:2]
    with tempfile.TemporaryDirectory() as tmp:
        pycs = os.path.join(tmp, "pyc")
        n = 0
        sources = {}
        for k, path in enumerate(stdlib_files()[: args.limit_modules]):
            try:
                cfile = os.path.join(pycs, "%03d_%s.pyc" % (k, os.path.basename(path)[:-3]))
                py_compile.compile(path, cfile=cfile, doraise=True)
                sources[os.path.basename(cfile)] = path
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
    scope = [0] * 5
    scope_failures = []
    for f in report["files"]:
        path = sources.get(os.path.basename(f["path"]))
        if path:
            scope = [a + b for a, b in zip(scope, scope_figures(path, f, scope_failures))]
    m = max(scope[0], 1)
    print(f"  scope {scope[0]} functions: decompiled {100 * scope[1] / m:.1f}%  recompiled {100 * scope[2] / m:.1f}%  "
          f"identical {100 * scope[3] / m:.1f}%  identical or equivalent {100 * (scope[3] + scope[4]) / m:.1f}%")
    totals = report["totals"]
    print(f"  {totals['functions_per_second']:.0f} functions/s (wall, decompiling), verification {totals['verify_seconds']:.1f} s")
    if args.scope_failures:
        print(f"  -- scope failures: {len(scope_failures)}")
        for line in scope_failures[: args.scope_failures]:
            print("    " + line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
