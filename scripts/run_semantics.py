"""Semantic suite runner: decompile, recompile and run every case with this interpreter.

Run it with the interpreter to test (CPython 3.8-3.15; 3.8 syntax only):

    python3.X scripts/run_semantics.py [--json OUT] [--tool DEPYF_SEM] [-k SUBSTR] [-v]

Cases are the functions registered with `@case(...)` / `@method_case(...)` /
`@driven_case(driver, ...)` (generators and coroutines, whose result a driver runs) in
tests/semantics/cases/*.py (see tests/semantics/_sem.py); a file whose first line is
`# semantics: min-version 3.X` is skipped by older interpreters. For each case the
runner

1. decompiles the function's code object: with `depyf._core.decompile` (the extension
   must be importable, e.g. PYTHONPATH=python after `maturin develop`), or on 3.8, which
   cannot load the extension, with the `depyf-sem` binary of crates/depyf_test_support
   (`--tool`, or $DEPYF_SEM_TOOL);
2. compiles the source again (a function with free variables, such as a method using
   `super()`, is compiled nested in a function that defines them and gets the
   original's cells);
3. calls the original and the recompiled function on deep copies of each input, with
   fresh copies of the module's globals, and compares: the return value, the arguments
   afterwards, globals the call changed, and a raised exception's type and message
   (floats by `repr`, so -0.0 and nan count);
4. records `depyf._core.compare(original, recompiled)` ("identical", "equivalent",
   "differs"): reported, never a failure.

With --recompile-fixtures it instead writes the recompiled fixtures that the Rust
snapshot tests (crates/depyf_decompile/tests/snapshots.rs) compare against.

Prints one line per failing case and a summary; with --json writes every record
(`id`, `status` pass/fail, `stage` decompile/recompile/run, `detail`, `verdict`,
`source`). Exits 0 whatever the cases do (tests/test_semantics.py judges them), 2 on a
problem of the runner itself.
"""

import argparse
import copy
import importlib.util
import json
import marshal
import os
import re
import signal
import subprocess
import sys
import tempfile
import traceback
import types

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, ".."))
SEM_DIR = os.path.join(ROOT, "tests", "semantics")
CASES_DIR = os.path.join(SEM_DIR, "cases")
MIN_VERSION = re.compile(r"#\s*semantics:\s*min-version\s+3\.(\d+)")
CALL_SECONDS = 5


def case_files(version=None):
    """(stem, path) of the case files this interpreter can compile, sorted."""
    minor = (version or sys.version_info)[1]
    out = []
    for name in sorted(os.listdir(CASES_DIR)):
        if not name.endswith(".py"):
            continue
        path = os.path.join(CASES_DIR, name)
        with open(path, encoding="utf-8") as fh:
            m = MIN_VERSION.match(fh.readline())
        if m and int(m.group(1)) > minor:
            continue
        out.append((name[:-3], path))
    return out


def load_cases(only):
    """Imports the case modules; returns [(id, kind, fn, inputs, module, snapshot)]
    where kind is "function", "method" or ("driven", driver)."""
    sys.path.insert(0, SEM_DIR)
    import _sem

    cases = []
    for stem, path in case_files():
        del _sem.CASES[:]
        spec = importlib.util.spec_from_file_location("sem_" + stem, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = mod
        spec.loader.exec_module(mod)
        snapshot = dict(mod.__dict__)
        for entry in _sem.CASES:
            kind, fn, inputs = entry[:3]
            if kind == "driven":
                kind = ("driven", entry[3])
            cid = stem + "." + fn.__qualname__
            if only and only not in cid:
                continue
            cases.append((cid, kind, fn, inputs, mod, snapshot))
    return cases


# --- comparing results -----------------------------------------------------------

_ADDR = re.compile(r" at 0x[0-9a-fA-F]+")


def canon(x, depth=0):
    """A comparable, printable form of a value: exact types, floats by repr, sets
    sorted, objects by type and attributes, exceptions by type and message."""
    if depth > 30:
        return ("...",)
    d = depth + 1
    t = type(x)
    if x is None or x is Ellipsis or x is NotImplemented or t in (bool, int, str, bytes, bytearray, float, complex):
        return (t.__name__, repr(x))
    if t in (list, tuple):
        return (t.__name__, [canon(v, d) for v in x])
    if t is dict:
        return ("dict", [(canon(k, d), canon(v, d)) for k, v in x.items()])
    if t in (set, frozenset):
        return (t.__name__, sorted(repr(canon(v, d)) for v in x))
    if t is range or t is slice:
        return (t.__name__, repr(x))
    if isinstance(x, BaseException):
        return ("raised", t.__name__, str(x))
    if isinstance(x, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return ("callable", getattr(x, "__qualname__", repr(x)))
    if isinstance(x, type):
        return ("type", x.__qualname__, x.__module__)
    if isinstance(x, types.ModuleType):
        return ("module", x.__name__)
    if isinstance(x, types.GeneratorType):
        return ("generator", x.__qualname__)
    parts = [("type", t.__qualname__)]
    if isinstance(x, (list, tuple, dict, set, frozenset)):
        parts.append(canon(t.__base__(x) if t.__base__ in (list, tuple, set, frozenset) else dict(x), d))
    if hasattr(x, "__dict__") and isinstance(getattr(x, "__dict__"), dict):
        parts.append(canon(dict(vars(x)), d))
    elif not isinstance(x, (list, tuple, dict, set, frozenset)):
        parts.append(_ADDR.sub("", repr(x)))
    return ("object", parts)


def first_difference(a, b, path=""):
    """Where two canonical values first differ, e.g. `[1][0]: original ..., recompiled ...`."""
    if (isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)) and len(a) == len(b)
            and not (len(a) == 2 and isinstance(a[0], str) and a[0] != b[0])):
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y:
                return first_difference(x, y, path + "[%d]" % i)
    return "%s original %r, recompiled %r" % (path or "value:", a, b)


class CallTimeout(BaseException):
    pass


def _alarm(signum, frame):
    raise CallTimeout("call took over %d s" % CALL_SECONDS)


def call(fn, inp, instance_cls):
    """Calls fn on a deep copy of `inp`; returns the canonical (outcome, arguments)."""
    args, kwargs = (inp.args, inp.kwargs) if hasattr(inp, "kwargs") else (tuple(inp), {})
    args, kwargs = copy.deepcopy((args, kwargs))
    if instance_cls is not None:
        args = (instance_cls(),) + args
    if hasattr(signal, "SIGALRM"):
        signal.signal(signal.SIGALRM, _alarm)
        signal.alarm(CALL_SECONDS)
    try:
        outcome = ("returned", canon(fn(*args, **kwargs)))
    except CallTimeout as e:
        outcome = ("timeout", str(e))
    except Exception as e:
        outcome = canon(e)
    finally:
        if hasattr(signal, "SIGALRM"):
            signal.alarm(0)
    return outcome, canon((args, kwargs))


_CONTAINERS = (list, dict, set, bytearray)


def fresh_globals(snapshot):
    """A copy of the module's globals whose mutable containers are copies too."""
    return {k: copy.deepcopy(v) if type(v) in _CONTAINERS else v for k, v in snapshot.items()}


def changed_globals(g, snapshot):
    """Globals the call bound, rebound or deleted, and every mutable container."""
    changed = {k: v for k, v in g.items() if k not in snapshot or type(v) in _CONTAINERS or snapshot[k] is not v}
    return canon((changed, sorted(k for k in snapshot if k not in g)))


# --- decompiling and recompiling -------------------------------------------------


def decompile_all(codes, tool):
    """[(source or None, error or None)] for each code object."""
    if sys.version_info >= (3, 9):
        from depyf import _core

        out = []
        for code in codes:
            try:
                res = _core.decompile(code)
                if res.opaque_constants:
                    # Constants without a literal form are named in the source and
                    # bound by the caller (depyf._core.decompile's contract).
                    consts = {k: code.co_consts[i] for k, i in res.opaque_constants.items()}
                    out.append((res.source, None, consts))
                    continue
                out.append((res.source, None, {}))
            except Exception as e:
                out.append((None, "%s: %s" % (type(e).__name__, e), {}))
        return out
    lines = _run_tool(tool, "decompile", tuple(codes))
    return [(r.get("source"), r.get("error"), {}) for r in lines]


def compare_all(pairs, tool):
    """[verdict] for each (original, recompiled) pair."""
    if not pairs:
        return []
    if sys.version_info >= (3, 9):
        from depyf import _core

        return [_core.compare(a, b)[0] for a, b in pairs]
    return [r["verdict"] for r in _run_tool(tool, "compare", tuple(pairs))]


def _run_tool(tool, command, value):
    if not tool:
        raise SystemExit("run_semantics: CPython 3.8 needs --tool (the depyf-sem binary of crates/depyf_test_support)")
    fd, path = tempfile.mkstemp(suffix=".marshal")
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(marshal.dumps(value))
        version = "%d.%d" % sys.version_info[:2]
        out = subprocess.run([tool, command, version, path], stdout=subprocess.PIPE, stderr=subprocess.PIPE, universal_newlines=True)
    finally:
        os.unlink(path)
    if out.returncode != 0:
        raise SystemExit("run_semantics: %s %s failed: %s" % (tool, command, out.stderr.strip()))
    return [json.loads(line) for line in out.stdout.splitlines() if line.strip()]


def recompile(source, fn, snapshot, consts):
    """The code object compiled from `source` standing in for `fn`'s code."""
    code = fn.__code__
    free = code.co_freevars
    if free:
        # Free variables (the `__class__` cell of a method using super()) must be
        # free in the recompiled code too: compile the def nested in a function
        # that defines them.
        lines = ["def __sem_outer__():"]
        lines += ["    %s = None" % v for v in free]
        lines += ["    " + line for line in source.splitlines()]
        lines.append("    return %s" % code.co_name)
        source = "\n".join(lines) + "\n"
    ns = dict(snapshot, **consts)
    exec(compile(source, "<decompiled %s>" % fn.__qualname__, "exec"), ns)
    new = ns["__sem_outer__"]() if free else ns[code.co_name]
    if not isinstance(new, types.FunctionType):
        raise TypeError("the source defines %s as %r, not a function" % (code.co_name, new))
    return new.__code__


def make_function(fn, code, globals_):
    closure = None
    if code.co_freevars:
        cells = dict(zip(fn.__code__.co_freevars, fn.__closure__ or ()))
        missing = [v for v in code.co_freevars if v not in cells]
        if missing:
            raise TypeError("recompiled code has free variables the original lacks: %s" % missing)
        closure = tuple(cells[v] for v in code.co_freevars)
    new = types.FunctionType(code, globals_, fn.__name__, fn.__defaults__, closure)
    new.__kwdefaults__ = copy.copy(fn.__kwdefaults__)
    new.__qualname__ = fn.__qualname__
    return new


def owner_class(fn, mod):
    obj = mod
    for part in fn.__qualname__.split(".")[:-1]:
        obj = getattr(obj, part)
    return obj


def driven(driver, fn):
    """`fn` with its result handed to a `driven_case`'s driver (tests/semantics/_sem.py),
    which runs the generator or coroutine and returns a comparable trace."""
    def call_and_drive(*args, **kwargs):
        return driver(fn(*args, **kwargs))
    return call_and_drive


def run_case(kind, fn, inputs, mod, snapshot, new_code):
    """None if the recompiled code behaves like the original on every input, else
    a description of the first difference."""
    cls = owner_class(fn, mod) if kind == "method" else None
    for i, inp in enumerate(inputs or [()]):
        g_orig, g_new = fresh_globals(snapshot), fresh_globals(snapshot)
        orig = make_function(fn, fn.__code__, g_orig)
        new = make_function(fn, new_code, g_new)
        if isinstance(kind, tuple):
            orig, new = driven(kind[1], orig), driven(kind[1], new)
        want = call(orig, inp, cls) + (changed_globals(g_orig, snapshot),)
        got = call(new, inp, cls) + (changed_globals(g_new, snapshot),)
        if want != got:
            what = ["result", "arguments after the call", "globals after the call"]
            diffs = ["%s: %s" % (w, first_difference(a, b)) for w, a, b in zip(what, want, got) if a != b]
            return "input #%d: %s" % (i, "; ".join(diffs))
    return None


RECOMPILED_DIR = os.path.join(ROOT, "crates", "depyf_decompile", "tests", "recompiled")
FUNCTION_MARK = "# depyf-function: "


def recompile_fixtures(tool):
    """Writes the data of the snapshot tests' `## Recompile check` for this version:
    the top-level functions and classes of each fixtures/pyc/py3X/<case>.pyc decompiled,
    the sources joined into crates/depyf_decompile/tests/recompiled/py3X/<case>.py (each
    after a `# depyf-function: NAME` line) and that module compiled by this interpreter
    into <case>.pyc beside it. The Rust test compares each original code object with its
    recompiled twin, but only while its decompiled source is still the stored one."""
    import importlib.util

    tag = "py%d%d" % sys.version_info[:2]
    src_dir = os.path.join(ROOT, "fixtures", "pyc", tag)
    dest = os.path.join(RECOMPILED_DIR, tag)
    os.makedirs(dest, exist_ok=True)
    for f in os.listdir(dest):
        os.remove(os.path.join(dest, f))
    for name in sorted(os.listdir(src_dir)):
        if not name.endswith(".pyc"):
            continue
        with open(os.path.join(src_dir, name), "rb") as fh:
            module = marshal.loads(fh.read()[16:])
        codes = [c for c in module.co_consts if isinstance(c, types.CodeType)]
        parts = ["# generated by scripts/run_semantics.py --recompile-fixtures, do not edit\n"]
        for code, (source, error, _) in zip(codes, decompile_all(codes, tool)):
            if source is not None:
                parts.append("%s%s\n%s" % (FUNCTION_MARK, code.co_name, source))
        text = "\n".join(parts)
        stem = name[:-4]
        with open(os.path.join(dest, stem + ".py"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        try:
            code = compile(text, "fixtures/cases/%s.py" % stem, "exec")
        except SyntaxError as e:
            print("%s/%s.py does not compile: %s" % (tag, stem, e))
            continue
        with open(os.path.join(dest, stem + ".pyc"), "wb") as fh:
            # PEP 552 unchecked-hash header, like scripts/gen_fixtures.py.
            fh.write(importlib.util.MAGIC_NUMBER + (1).to_bytes(4, "little") + bytes(8) + marshal.dumps(code))
    print("wrote", os.path.relpath(dest, ROOT))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--recompile-fixtures", action="store_true",
                    help="write crates/depyf_decompile/tests/recompiled/py3X/ for this version and exit")
    ap.add_argument("--json", help="write all records to this file")
    ap.add_argument("--tool", default=os.environ.get("DEPYF_SEM_TOOL"), help="depyf-sem binary (CPython 3.8)")
    ap.add_argument("-k", dest="only", help="only cases whose id contains this")
    ap.add_argument("-v", action="store_true", help="print the decompiled source of failing cases")
    opts = ap.parse_args()
    if opts.recompile_fixtures:
        recompile_fixtures(opts.tool)
        return

    cases = load_cases(opts.only)
    decompiled = decompile_all([c[2].__code__ for c in cases], opts.tool)
    records, pairs = [], []
    for (cid, kind, fn, inputs, mod, snapshot), (source, error, consts) in zip(cases, decompiled):
        rec = {"id": cid, "status": "fail", "stage": "decompile", "detail": error, "verdict": None, "source": source}
        records.append(rec)
        if source is None:
            continue
        rec["stage"] = "recompile"
        try:
            new_code = recompile(source, fn, snapshot, consts)
            snapshot = dict(snapshot, **consts)
        except Exception as e:
            rec["detail"] = "%s: %s" % (type(e).__name__, e)
            continue
        pairs.append((len(records) - 1, fn.__code__, new_code))
        rec["stage"] = "run"
        try:
            rec["detail"] = run_case(kind, fn, inputs, mod, snapshot, new_code)
        except Exception:
            rec["detail"] = "runner error: " + traceback.format_exc(limit=3)
        if rec["detail"] is None:
            rec["status"], rec["stage"] = "pass", ""
    for (i, _, _), verdict in zip(pairs, compare_all([(a, b) for _, a, b in pairs], opts.tool)):
        records[i]["verdict"] = verdict

    version = "%d.%d" % sys.version_info[:2]
    for rec in records:
        if rec["status"] == "fail":
            print("FAIL %s [%s] %s" % (rec["id"], rec["stage"], (rec["detail"] or "")[:300]))
            if opts.v and rec["source"]:
                print("    " + rec["source"].rstrip().replace("\n", "\n    "))
    passed = sum(r["status"] == "pass" for r in records)
    identical = sum(r["verdict"] == "identical" for r in records)
    print("CPython %s: %d cases, %d passed, %d failed; identical %d/%d (%.1f%%)" % (
        version, len(records), passed, len(records) - passed, identical, len(records),
        100.0 * identical / max(1, len(records))))
    if opts.json:
        with open(opts.json, "w", encoding="utf-8") as fh:
            json.dump({"python": version, "records": records}, fh, indent=0)


if __name__ == "__main__":
    main()
