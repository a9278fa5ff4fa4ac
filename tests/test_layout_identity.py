"""Block layout and statement forms that compile back to the same bytecode.

Each case is a small function (or a method of a class); every CPython 3.9-3.15 found
on this machine decompiles it, compiles the source again and runs both: the results
must be equal and `depyf._core.compare` must find the two code objects
bytecode-identical. The cases are the shapes of the stdlib round trip
(`benches/roundtrip_stdlib.py`) that used to come back in another layout: copied
exits, implicit returns, negated chained comparisons, folded set displays, 3.12+
conditional back edges, chained and tuple assignments to attributes, nested
and/or conditions, two-argument `super()`, 3.13 generator expressions with a
closure, `elif` chains whose `else` is `continue`, `if c: continue` on lines of its
own (3.12+), `else:` after a `raise` and nested `if`/`else` returns (3.9 keeps an
unreachable jump for them), `assert x is None or ...`, and `while c:` loops with a
`return` in the body (3.9).
"""

import json
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (source, calls: argument tuples, as source, whose results must match)
CASES = {
    "separate_ifs_same_return": (
        """
        def f(a, b):
            if not isinstance(a, int):
                return False
            if not a:
                return False
            return b
        """,
        ["(1, 2)", "(0, 2)", "('x', 2)"],
    ),
    "implicit_return_else": (
        """
        def f(a, b, out):
            if a:
                out.append(1)
                if b:
                    out.append(2)
            else:
                out.append(3)
        """,
        ["(1, 1, [])", "(1, 0, [])", "(0, 0, [])"],
    ),
    "negated_chain": (
        """
        def f(hi, lo):
            if not hi >= lo >= 0:
                raise ValueError(hi)
            return hi - lo
        """,
        ["(3, 1)"],
    ),
    "set_displays": (
        """
        def f(x):
            n = 0
            for y in {1, 2}:
                n += y
            if x in {'a', 'b', 'c'}:
                return n
            return -n
        """,
        ["('a',)", "('z',)"],
    ),
    "return_at_loop_end": (
        """
        def f(s, o):
            for e in s:
                if e not in o:
                    return False
            return True
        """,
        ["((1, 2), (1, 2, 3))", "((1, 4), (1,))"],
    ),
    "walrus_while_at_end": (
        """
        def f(it, out):
            while (d := next(it, None)):
                out.append(d)
        """,
        ["(iter([1, 2, 0, 3]), [])"],
    ),
    "continue_or_body_at_loop_end": (
        """
        def f(xs, d, out):
            for x in xs:
                if d.get(x) is not None:
                    out.append(x)
            return out
        """,
        ["((1, 2), {1: 0}, [])"],
    ),
    "chained_assignments": (
        """
        def f(obj, d, k):
            obj.a = obj.b = None
            d[k] = x = len(d)
            root = obj.c = y = {}
            return x, root is y
        """,
        ["(type('O', (), {})(), {}, 'k')"],
    ),
    "tuple_targets": (
        """
        def f(obj, d, pair):
            obj.x, obj.y = pair
            (a, b), d['k'] = pair, 3
            obj.x, obj.y = obj.y, obj.x
            return a, b, obj.x, obj.y, d['k']
        """,
        ["(type('O', (), {})(), {}, (1, 2))"],
    ),
    "or_of_and": (
        """
        def f(a, b, c):
            if a or b and c:
                n = 1
                if n:
                    return n
            return 0
        """,
        ["(0, 1, 1)", "(0, 1, 0)", "(1, 0, 0)"],
    ),
    "not_of_and_with_is": (
        """
        def f(flags, arg, out):
            if not (flags & 4 and arg[0] is StopIteration and arg[2] is None):
                out.append(arg)
            return out
        """,
        ["(4, (StopIteration, 0, None), [])", "(0, (1, 2, 3), [])"],
    ),
    # 3.8-3.11 thread the `and`'s jump past the `or`'s test (a `POP_JUMP_IF_FALSE`
    # after it), 3.14+ to the `or`'s `POP_TOP`: one expression all the same.
    "and_or_chain_value": (
        """
        def f(a, b, c, d):
            x = a and len(b) or c(d) and d
            y = a and b or c and d or 0
            return x, y, a or b and c or d
        """,
        ["(0, 'ab', bool, 2)", "(1, '', str, 0)", "(1, 'ab', bool, 0)"],
    ),
    "and_constant_or_constant": (
        """
        def f(n):
            return n, abs(n) != 1 and 's' or ''
        """,
        ["(1,)", "(2,)"],
    ),
    # 3.10-3.12 thread a failed comprehension test to the loop's next step only
    # when the test is on the element's line.
    "comprehension_if_on_own_line": (
        """
        def f(parts, skip):
            return [p for p in parts
                    if p and p is not skip], {k: v for k, v in parts
                                               if k}
        """,
        ["([(1, 2), (0, 3), (4, 0)], (1, 2))"],
    ),
    "genexpr_closure": (
        """
        def f(obj, names):
            obj = type(obj)
            return any(obj.__name__ == name for name in names)
        """,
        ["(1, ('int',))", "(1, ('str',))"],
    ),
    "elif_else_continue": (
        """
        def f(xs, jrel, jabs, out):
            for x in xs:
                if x in jrel:
                    label = x + 1
                elif x in jabs:
                    label = x * 2
                else:
                    continue
                if label not in out:
                    out.append(label)
            return out
        """,
        ["([1, 2, 3, 4], {1, 2}, {3}, [])"],
    ),
    "continue_on_its_own_line": (
        """
        def f(keys, fields, args):
            for key in keys:
                if key not in fields:
                    continue
                pos = fields.index(key)
                if pos < len(args):
                    raise TypeError(key)
            return 1
        """,
        ["(['a', 'b'], ['b', 'c'], [])"],
    ),
    "raise_then_else": (
        """
        def f(a, b):
            if a:
                raise ValueError(a)
            else:
                b = 2
            if b:
                return 3
            elif a:
                return 4
            return b
        """,
        ["(0, 1)"],
    ),
    "elif_chain_of_nested_if_else_returns": (
        """
        def f(c, r, w):
            if c:
                if r:
                    return 'xb+'
                else:
                    return 'xb'
            elif w:
                if r:
                    return 'ab+'
                else:
                    return 'ab'
            else:
                return 'wb'
        """,
        ["(1, 1, 0)", "(1, 0, 0)", "(0, 1, 1)", "(0, 0, 1)", "(0, 0, 0)"],
    ),
    "assert_none_or_call": (
        """
        def f(loop, out):
            assert loop is None or isinstance(loop, int)
            out.append(loop)
            return out
        """,
        ["(None, [])", "(3, [])"],
    ),
    "while_return_in_body": (
        """
        def f(data, n):
            start = 0
            while start < len(data):
                start += n
                if start == 4:
                    return start, 1
                n += 1
            if not data:
                return 0, 0
            return start, 2
        """,
        ["([1] * 10, 1)", "([], 1)", "([1] * 5, 2)"],
    ),
}

# Known layouts still read another way (equivalent, not identical).
NOT_YET = {
    # `not (a and b is c)` inside a longer chain: the `is` operand is negated into
    # `is not` when the chain is rebuilt as an `or`, which flips its op and jump.
    ("3.9", "not_of_and_with_is"),
    ("3.10", "not_of_and_with_is"),
    ("3.11", "not_of_and_with_is"),
    ("3.12", "not_of_and_with_is"),
    ("3.13", "not_of_and_with_is"),
}

SUPER_CASE = """
class Base:
    def f(self, x):
        return x + 1

class Child(Base):
    def f(self, x):
        return super(Child, self).f(x) * 2
"""

RUNNER = r"""
import json, sys, textwrap
from depyf import _core
cases = json.loads(sys.stdin.read())
out = {}
for name, (src, calls) in cases["functions"].items():
    ns = {}
    exec(compile(textwrap.dedent(src), "<case>", "exec"), ns)
    fn = ns["f"]
    res = _core.decompile(fn.__code__)
    ns2 = {}
    exec(compile(res.source, "<decompiled>", "exec"), ns2)
    new = ns2["f"]
    same = all(repr(fn(*eval(c, ns))) == repr(new(*eval(c, ns))) for c in calls)
    out[name] = [_core.compare(fn.__code__, new.__code__)[0], same, res.source]
ns = {}
exec(compile(cases["super"], "<case>", "exec"), ns)
code = ns["Child"].f.__code__
res = _core.decompile(code)
body = "class Base:\n    def f(self, x):\n        return x + 1\n\nclass Child(Base):\n" + textwrap.indent(res.source, "    ")
ns2 = {}
exec(compile(body, "<decompiled>", "exec"), ns2)
same = ns2["Child"]().f(3) == ns["Child"]().f(3)
out["two_argument_super"] = [_core.compare(code, ns2["Child"].f.__code__)[0], same, res.source]
print(json.dumps(out))
"""


def _interpreters():
    found = []
    for v in ("3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"):
        exe = os.environ.get(f"DEPYF_PYTHON_{v.replace('.', '_')}")
        # Where ../shared/tools/python-from-debian.sh unpacks 3.14+ (as scripts/refresh_snapshots.sh).
        deb = os.path.join(ROOT, "..", "scratch", f"py{v.replace('.', '')}", "root", "usr", "bin", f"python{v}")
        if not exe and os.path.exists(deb):
            exe = deb
        pyenv = shutil.which("pyenv")
        if pyenv:
            prefix = subprocess.run([pyenv, "prefix", v], capture_output=True, text=True).stdout.strip()
            cand = os.path.join(prefix, "bin", f"python{v}") if prefix else ""
            if not exe and cand and os.path.exists(cand):
                exe = cand
        exe = exe or shutil.which(f"python{v}")
        if exe:
            found.append((v, exe))
    if not found:
        found.append((f"{sys.version_info[0]}.{sys.version_info[1]}", sys.executable))
    return found


@pytest.mark.parametrize("version, exe", _interpreters(), ids=[v for v, _ in _interpreters()])
def test_layout_cases_are_identical(version, exe):
    # The calls are source, evaluated in each case's namespace once per function.
    payload = json.dumps({"functions": CASES, "super": SUPER_CASE})
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    proc = subprocess.run([exe, "-c", RUNNER], input=payload, capture_output=True, text=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    results = json.loads(proc.stdout)
    # Two-argument super() compiles to LOAD_SUPER_ATTR only from 3.12 on; before it is
    # an ordinary call, identical as well.
    bad = {name: r for name, r in results.items() if not r[1] or (r[0] != "identical" and (version, name) not in NOT_YET)}
    assert not bad, "\n".join(f"{n}: {v} same={s}\n{textwrap.indent(src, '    ')}" for n, (v, s, src) in bad.items())
