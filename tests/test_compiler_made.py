"""Annotations on every CPython 3.9-3.15 found here (one test per version, each run in a
subprocess of that interpreter with `PYTHONPATH=<repo>/python`):

- 3.14+ compiler-made functions decompiled on their own (a function's or a class
  body's `__annotate__`, a `type` statement's value function): the source is the
  annotations they come from, and compiling it where the function was made gives a
  bytecode-identical function (the round trip of benches/roundtrip_stdlib.py);
- 3.12+ PEP 695 `<generic parameters of NAME>` functions decompiled on their own: the
  generic `class`, `def` or `type` statement, which recompiles to an identical
  function; a generic class body on its own and a parameters function that takes the
  defaults of its caller are clear DecompilationErrors;
- `from __future__ import annotations` (PEP 563): the strings the compiler stored are
  printed as the expressions they were unparsed from, the decompiled source starts
  with the future import, and the recompiled function stores the same strings.
"""

import json
import os
import subprocess

import pytest

from test_semantics import PYTHONS, ROOT

COMPILER_MADE = r'''
import json, sys
sys.path.insert(0, "benches")
import roundtrip_stdlib as rt
from depyf import _core

SRC = """
import typing
def f(x: int, *args: 'str', k: list[int] = 1, **kw: float) -> dict[str, int]:
    pass
class C:
    a: int
    b: 'str' = 4
    def m(self, __p: typing.Any) -> None:
        pass
type Alias = list[int]
"""
module = compile(SRC, "<case>", "exec")
out = []
for code, parents in rt.functions(module):
    if code.co_name in ("__annotate__", "Alias"):
        src = _core.decompile(code).source
        new = rt.find_code(compile(rt.in_context(code, src, {"typing"}, parents), "<depyf>", "exec"), code.co_name)
        out.append([code.co_qualname, src, _core.compare(code, new)[0]])
print(json.dumps(out))
'''

GENERIC = r'''
import json, sys
sys.path.insert(0, "benches")
import roundtrip_stdlib as rt
import depyf
from depyf import _core

SRC = """
from typing import Protocol
class SupportsAbs[T](Protocol):
    \"\"\"doc\"\"\"
    __slots__ = ()
    def __abs__(self) -> T:
        pass
class Bounded[T: int, *Ts, **P](dict, metaclass=type):
    def m(self, *a: Ts) -> T: ...
def ident[T](x: T, /) -> T:
    return x
type Alias[K, V] = dict[K, list[V]]
def withdef[T](x: T = 1) -> T:
    return x
"""
module = compile(SRC, "<case>", "exec")
out = []
for code, parents in rt.functions(module):
    if code.co_name.startswith("<generic parameters of ") or code.co_name == "SupportsAbs":
        try:
            src = _core.decompile(code).source
        except depyf.DecompilationError as e:
            out.append([code.co_name, "error", str(e)])
            continue
        new = rt.find_code(compile(rt.in_context(code, src, {"typing"}, parents), "<depyf>", "exec"), code.co_name)
        out.append([code.co_name, src, _core.compare(code, new)[0]])
print(json.dumps(out))
'''

FUTURE = r'''
import json
from depyf import _core

SRC = """from __future__ import annotations
def outer(n):
    def inner(x: Later | None, *a: tuple[int, ...], k: 'quoted' = 2) -> list[int]:
        return x
    class K:
        y: Later = 3
        z: dict[str, 'int']
    return inner.__annotations__, K.__annotations__, K.y + n
"""
ns = {}
exec(compile(SRC, "<case>", "exec"), ns)
res = _core.decompile(ns["outer"].__code__)
ns2 = {}
exec(compile(res.source, "<decompiled>", "exec"), ns2)
print(json.dumps([res.source, repr(ns["outer"](1)), repr(ns2["outer"](1)), _core.compare(ns["outer"].__code__, ns2["outer"].__code__)[0]]))
'''


def _run(version, script):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([PYTHONS[version], "-c", script], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("version", [v for v in ("3.14", "3.15") if PYTHONS[v]])
def test_compiler_made_functions_decompile_to_their_annotations(version):
    got = _run(version, COMPILER_MADE)
    assert all(verdict == "identical" for _, _, verdict in got), got
    # A function's annotations are given to a stand-in `def` (3.14 does not name the
    # function in the qualified name of its __annotate__).
    f_name = m_name = "_annotated_"
    assert [src for _, src, _ in got] == [
        f"def {f_name}(x: int, args: 'str', k: list[int], kw: float) -> dict[str, int]:\n    ...\n",
        f"def {m_name}(_C__p: typing.Any) -> None:\n    ...\n",
        "a: int\nb: 'str'\n",
        "type Alias = list[int]\n",
    ]


@pytest.mark.parametrize("version", [v for v in ("3.12", "3.13", "3.14", "3.15") if PYTHONS[v]])
def test_generic_parameters_functions_on_their_own(version):
    got = {name: (src, verdict) for name, src, verdict in _run(version, GENERIC)}
    assert got["<generic parameters of SupportsAbs>"] == (
        "class SupportsAbs[T](Protocol):\n    'doc'\n    __slots__ = ()\n    def __abs__(self) -> T:\n        pass\n", "identical")
    assert got["<generic parameters of Bounded>"] == (
        "class Bounded[T: int, *Ts, **P](dict, metaclass=type):\n    def m(self, *a: Ts) -> T:\n        pass\n", "identical")
    assert got["<generic parameters of ident>"] == ("def ident[T](x: T, /) -> T:\n    return x\n", "identical")
    assert got["<generic parameters of Alias>"] == ("type Alias[K, V] = dict[K, list[V]]\n", "identical")
    # The body alone cannot name its type parameters; the defaults are the caller's.
    source, message = got["SupportsAbs"]
    assert source == "error" and "the body of a generic class (PEP 695) on its own" in message
    source, message = got["<generic parameters of withdef>"]
    assert source == "error" and "whose defaults its caller passes in" in message


@pytest.mark.parametrize("version", [v for v in ("3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15") if PYTHONS[v]])
def test_future_annotations_print_as_expressions(version):
    source, original, recompiled, verdict = _run(version, FUTURE)
    assert source.startswith("from __future__ import annotations\ndef outer(n):\n")
    assert "def inner(x: Later | None, *a: tuple[int, ...], k: 'quoted' = 2) -> list[int]:" in source, source
    assert "y: Later = 3" in source and "z: dict[str, 'int']" in source, source
    assert recompiled == original
    assert verdict == "identical"


MODULE_ANNOTATIONS = r'''
import json
from depyf import _core

CASES = {
    # Every annotation of a 3.14+ module is conditional: the module adds its index to
    # `__conditional_annotations__` where it ran; one in dropped code (`if False:`)
    # is never added.
    "module": """import os
x: int = 1
if os.sep:
    y: str = 'a'
else:
    z: float
w: list[int]
def f(a):
    return a
if False:
    dead: bytes
""",
    "future": """from __future__ import annotations
import os
x: int = 1
if os.sep:
    y: Later = 'a'
""",
    "class": """import os
class C:
    a: int = 1
    if os.sep:
        b: str
    for i in range(2):
        c: float = i
class D:
    if os.sep:
        class Inner:
            h: int = 4
            if os.sep:
                i: str
    j: 'fwd'
""",
}
out = {}
for name, src in CASES.items():
    code = compile(src, "<case>", "exec")
    res = _core.decompile(code)
    new = compile(res.source, "<case>", "exec")
    ns, ns2 = {}, {}
    exec(code, ns)
    exec(new, ns2)
    def annotations(ns):
        if "__annotations__" in ns:
            return repr(ns["__annotations__"])
        return repr(ns["C"].__annotations__ if "C" in ns else ns["__annotate__"](1))
    out[name] = [res.source, annotations(ns), annotations(ns2), _core.compare(code, new)[0]]
print(json.dumps(out))
'''


@pytest.mark.parametrize("version", [v for v in ("3.14", "3.15") if PYTHONS[v]])
def test_conditional_module_and_class_annotations(version):
    got = _run(version, MODULE_ANNOTATIONS)
    for name, (source, original, recompiled, verdict) in got.items():
        assert "__conditional_annotations__" not in source and "__annotate__" not in source, source
        assert recompiled == original, (name, source)
        assert verdict == "identical", (name, source)
    assert got["module"][0] == (
        "import os\nx: int = 1\nif os.sep:\n    y: str = 'a'\nelse:\n    z: float\nw: list[int]\n"
        "def f(a):\n    return a\nif False:\n    dead: bytes\n"
    )
    assert got["module"][1] == "{'x': <class 'int'>, 'y': <class 'str'>, 'w': list[int]}"
    assert got["future"][0].startswith("from __future__ import annotations\nimport os\nx: int = 1\n")
    # D makes the set for Inner's conditional annotation but reads none itself.
    assert got["class"][0] == (
        "import os\nclass C:\n    a: int = 1\n    if os.sep:\n        b: str\n    for i in range(2):\n        c: float = i\n"
        "class D:\n    j: 'fwd'\n    if os.sep:\n        class Inner:\n            h: int = 4\n            if os.sep:\n                i: str\n"
    )
