"""Round-trip benchmark over the running interpreter's own standard library.

Every function code object of a fixed sample of stdlib modules (or all of them with
--all) is decompiled with depyf, the source is compiled again by the same interpreter,
and the two are compared with `depyf._core.compare` (normalized instruction streams:
"identical"; same recovered statements: "equivalent"). Prints, for all functions and
for the functions in the scope of "language part 1" (no exception handling, with,
yield, await or match), the percentage that decompile without error, recompile, and
are bytecode-identical, and functions per second of decompilation.

    python benches/roundtrip_stdlib.py [--all] [--limit-modules N] [--json OUT] [--failures N]
"""

import __future__
import argparse
import ast
import textwrap
import dis
import json
import os
import sys
import sysconfig
import time
import types
import warnings

try:
    from depyf import _core
except ImportError:  # 3.8 (no extension): benches/roundtrip_cli.py imports only the sample
    _core = None

# A fixed sample: the first 150 (or more) importable-free-to-compile stdlib modules in
# sorted order of their file names; the same list on every run of one interpreter.
SAMPLE_SIZE = 150

OUT_OF_SCOPE_FLAGS = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator


def stdlib_files():
    root = sysconfig.get_paths()["stdlib"]
    out = []
    for name in sorted(os.listdir(root)):
        path = os.path.join(root, name)
        if name.endswith(".py") and os.path.isfile(path):
            out.append(path)
        elif os.path.isdir(path) and os.path.isfile(os.path.join(path, "__init__.py")) and name not in ("test", "idlelib", "tkinter", "turtledemo", "site-packages", "lib2to3"):
            for dirpath, dirnames, filenames in os.walk(path):
                dirnames[:] = sorted(d for d in dirnames if d not in ("test", "tests"))
                for f in sorted(filenames):
                    if f.endswith(".py"):
                        out.append(os.path.join(dirpath, f))
    return out


def functions(code, parents=()):
    """Every function-like code object nested in `code` (not the module itself),
    with the chain of code objects that enclose it (outermost first)."""
    for c in code.co_consts:
        if isinstance(c, types.CodeType):
            yield c, parents
            yield from functions(c, parents + (c,))


BLOCK_OPS = {"SETUP_FINALLY", "SETUP_WITH", "SETUP_ASYNC_WITH", "SETUP_EXCEPT"}
MATCH_OPS = {"MATCH_CLASS", "MATCH_MAPPING", "MATCH_SEQUENCE", "MATCH_KEYS", "GET_LEN"}


def comprehension_handlers_only(code):
    """Whether every handler of `code`'s exception table is the one CPython 3.12+ adds
    to an inlined comprehension (PEP 709): it restores the saved locals and re-raises,
    `SWAP 2; POP_TOP; SWAP n; STORE_FAST * (n-1); RERAISE` (CPython 3.12
    `Python/compile.c`, `pop_inlined_comprehension_state`). Such code has no `try` or
    `with` of its own."""
    entries = dis.Bytecode(code).exception_entries
    if not entries:
        return True
    instrs = list(dis.get_instructions(code))
    at = {i.offset: k for k, i in enumerate(instrs)}
    for e in entries:
        k = at.get(e.target)
        if k is None:
            return False
        ops = [(i.opname, i.arg) for i in instrs[k:k + 3]]
        if ops[:2] != [("SWAP", 2), ("POP_TOP", None)] or ops[2][0] != "SWAP":
            return False
        n = ops[2][1]
        rest = instrs[k + 3:k + 3 + n]
        if len(rest) != n or any(i.opname != "STORE_FAST" for i in rest[:-1]) or rest[-1].opname != "RERAISE":
            return False
    return True


def in_scope(code):
    """Language part 1: no exception handling or `with` (3.11+ exception table apart
    from the handlers of inlined comprehensions, 3.8-3.10 SETUP_* blocks), generators,
    coroutines or `match`. PEP 695 type parameters are part 2 as well: the
    `<generic parameters of ...>` functions and the generic class bodies that read
    their `.type_params` cell."""
    if code.co_flags & OUT_OF_SCOPE_FLAGS:
        return False
    if code.co_name.startswith("<generic parameters of ") or ".type_params" in code.co_freevars + code.co_cellvars:
        return False
    if getattr(code, "co_exceptiontable", b"") and not comprehension_handlers_only(code):
        return False
    if any(i.opname in BLOCK_OPS or i.opname in MATCH_OPS for i in dis.get_instructions(code)):
        return False
    # Nested code (methods of a class, inner functions) must be in scope too.
    return all(in_scope(c) or c.co_name in ("<genexpr>",) for c in code.co_consts if isinstance(c, types.CodeType))


def _ops(code):
    skip = {"NOP", "RESUME", "CACHE", "EXTENDED_ARG", "PRECALL"}
    out = []
    for i in dis.get_instructions(code):
        if i.opname in skip:
            continue
        arg = i.argrepr if i.opname not in dis.hasjrel + dis.hasjabs else ""
        out.append(f"{i.opname} {arg}".strip())
    return out


def first_difference(a, b):
    """` at op N: original [...] / recompiled [...]`, a window around the first
    differing instruction (jump targets left out)."""
    x, y = _ops(a), _ops(b)
    n = next((k for k, (p, q) in enumerate(zip(x, y)) if p != q), min(len(x), len(y)))
    return f" at op {n}: original {x[max(0, n - 2):n + 3]} / recompiled {y[max(0, n - 2):n + 3]}"


def import_bound_names(tree):
    """Names that module-level import statements bind: CPython 3.11-3.12 compile
    `mod.f()` with LOAD_ATTR instead of LOAD_METHOD when `mod` is one of them, so
    the recompiled function must see the same bindings."""
    names = set()
    def visit(stmts):
        for st in stmts:
            if isinstance(st, (ast.Import, ast.ImportFrom)):
                for a in st.names:
                    names.add((a.asname or a.name).split(".")[0])
            elif isinstance(st, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                continue
            else:
                for field in ("body", "orelse", "finalbody", "handlers"):
                    visit(getattr(st, field, []) or [])
    visit(tree.body)
    names.discard("*")
    return names


def is_class_body(code):
    return code.co_flags & 0x3 == 0 and code.co_name != "<module>"


def in_context(code, source, imports, parents):
    """`source` placed where the original function lived: on its original line, after
    the module's import bindings, inside classes and functions named like its enclosing ones (so
    qualified names match), with its free variables defined in the nearest enclosing
    function (or a stand-in one)."""
    # The decompiler writes this import first when it prints annotations as the text
    # the compiler stored under it; the caller compiles with the original's future
    # flags instead (`future_flags`), and a future import must come first.
    source = source.removeprefix("from __future__ import annotations\n")
    prefix = "".join(f"import {n}\n" for n in sorted(imports))
    free = [n for n in code.co_freevars if n != "__class__"]
    chain = [p for p in parents if not p.co_name.startswith("<")]
    body = source
    defined = False
    for p in reversed(chain):
        if is_class_body(p):
            body = f"class {p.co_name}:\n" + textwrap.indent(body, "    ")
        else:
            params = ", ".join(p.co_varnames[: p.co_argcount])
            assigns = ""
            if free and not defined:
                assigns = "    " + " = ".join(free) + " = None\n"
                defined = True
            body = f"def {p.co_name}({params}):\n" + assigns + textwrap.indent(body, "    ")
    if "__class__" in code.co_freevars and not any(is_class_body(p) for p in chain):
        body = "class __depyf_class__:\n" + textwrap.indent(body, "    ")
    if free and not defined:
        body = "def __depyf_outer__():\n    " + " = ".join(free) + " = None\n" + textwrap.indent(body, "    ")
    # Blank lines first so that the definition starts on its original line (3.13+
    # class bodies store that line in `__firstlineno__`).
    before = (prefix + body).count("\n") - source.count("\n")
    return "\n" * max(code.co_firstlineno - 1 - before, 0) + prefix + body


def future_flags(code):
    """The `from __future__` flags `code` was compiled under (its `co_flags` keep
    them): the recompiled source must be compiled under the same ones (`annotations`
    makes 3.14+ `__annotate__` functions return strings without a class namespace
    cell)."""
    mask = 0
    for name in __future__.all_feature_names:
        mask |= getattr(__future__, name).compiler_flag
    return code.co_flags & mask


def find_code(code, name, firstlineno=None):
    for c, _ in functions(code):
        if c.co_name == name:
            return c
    return None


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--all", action="store_true", help="every stdlib module, not the sample")
    ap.add_argument("--limit-modules", type=int, default=SAMPLE_SIZE)
    ap.add_argument("--json", help="write the figures as JSON here")
    ap.add_argument("--failures", type=int, default=0, help="print this many failures of each kind")
    ap.add_argument("--diff", action="store_true", help="with --failures: show the first differing instruction")
    ap.add_argument("--scope-only", action="store_true", help="with --failures: list only the failures of in-scope functions")
    args = ap.parse_args()
    if _core is None:
        raise SystemExit("depyf._core does not import here (build it with maturin develop, "
                         "PYTHONPATH=python); on 3.8 use benches/roundtrip_cli.py")
    files = stdlib_files()
    if not args.all:
        files = files[: args.limit_modules]
    stats = {k: {"functions": 0, "decompiled": 0, "recompiled": 0, "identical": 0, "equivalent": 0} for k in ("all", "scope")}
    failures = {"decompile": [], "recompile": [], "differs": []}
    slowest = (0.0, "")
    t_decompile = 0.0
    warnings.simplefilter("ignore")
    for path in files:
        try:
            with open(path, "rb") as f:
                src = f.read()
            module = compile(src, path, "exec", dont_inherit=True)
            imports = import_bound_names(ast.parse(src))
        except (SyntaxError, ValueError, UnicodeDecodeError):
            continue
        for code, parents in functions(module):
            kinds = ["all"] + (["scope"] if in_scope(code) else [])
            # Failures of this function go to `failures`, or nowhere with --scope-only
            # when it is out of scope.
            record = failures if not args.scope_only or "scope" in kinds else {k: [] for k in failures}
            for k in kinds:
                stats[k]["functions"] += 1
            t0 = time.perf_counter()
            try:
                res = _core.decompile(code)
            except _core.DecompilationError as e:
                record["decompile"].append(f"{path}:{code.co_firstlineno} {code.co_qualname if hasattr(code, 'co_qualname') else code.co_name}: {e}")
                continue
            finally:
                dt = time.perf_counter() - t0
                t_decompile += dt
                if dt > slowest[0]:
                    slowest = (dt, f"{path}:{code.co_firstlineno} {code.co_name}")
            for k in kinds:
                stats[k]["decompiled"] += 1
            try:
                recompiled = compile(in_context(code, res.source, imports, parents), "<depyf>", "exec", future_flags(code), dont_inherit=True)
            except SyntaxError as e:
                record["recompile"].append(f"{path}:{code.co_firstlineno} {code.co_name}: {e}")
                continue
            if code.co_name == "<module>":
                new = recompiled
            else:
                new = find_code(recompiled, code.co_name)
            if new is None:
                record["recompile"].append(f"{path}:{code.co_firstlineno} {code.co_name}: no code object of that name")
                continue
            for k in kinds:
                stats[k]["recompiled"] += 1
            verdict, detail = _core.compare(code, new)
            if verdict == "identical":
                for k in kinds:
                    stats[k]["identical"] += 1
            elif verdict == "equivalent":
                for k in kinds:
                    stats[k]["equivalent"] += 1
                where = first_difference(code, new) if args.diff else ""
                record["differs"].append(f"{path}:{code.co_firstlineno} {code.co_name}: equivalent only{where}")
            else:
                record["differs"].append(f"{path}:{code.co_firstlineno} {code.co_name}: {detail}")
    v = sys.version_info
    print(f"CPython {v[0]}.{v[1]}.{v[2]}: {len(files)} modules")
    for k, s in stats.items():
        n = max(s["functions"], 1)
        print(
            f"  {k:5s} functions {s['functions']:6d}  decompiled {100 * s['decompiled'] / n:5.1f}%  "
            f"recompiled {100 * s['recompiled'] / n:5.1f}%  identical {100 * s['identical'] / n:5.1f}%  "
            f"identical+equivalent {100 * (s['identical'] + s['equivalent']) / n:5.1f}%"
        )
    total = stats["all"]["functions"]
    print(f"  decompile speed: {total / max(t_decompile, 1e-9):.0f} functions/s (one core, including reading code objects); slowest {slowest[0] * 1000:.1f} ms at {slowest[1]}")
    if args.failures:
        for kind, items in failures.items():
            print(f"  -- {kind}: {len(items)}")
            for line in items[: args.failures]:
                print("    " + line)
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"version": f"{v[0]}.{v[1]}", "modules": len(files), "stats": stats, "functions_per_second": total / max(t_decompile, 1e-9)}, f, indent=2)


if __name__ == "__main__":
    main()
