"""Private names (`__x` inside `class C`, stored as `_C__x` by CPython's name
mangling) print as written wherever the printed source puts them under their
`class` statement, on every CPython 3.9-3.15 found here (one test per version, each
run in a subprocess of that interpreter with `PYTHONPATH=<repo>/python`):

- a module with a class that uses private names as parameters, locals, attributes,
  globals, imports, `except`/`with` targets, comprehension and lambda variables, and
  a nested class with its own prefix, decompiles to that source (no `_C__` left) and
  recompiles to identical code objects, class body included (3.13+ records the
  attribute names as written in `__static_attributes__`);
- a method decompiled on its own keeps the mangled names: compiled outside the class,
  `__x` would not be mangled.
"""

import json
import os
import subprocess

import pytest

from test_semantics import PYTHONS, ROOT

SCRIPT = r'''
import json, sys
sys.path.insert(0, "benches")
import roundtrip_stdlib as rt
from depyf import _core

SRC = """
import os
class C:
    __slots__ = ('__a', '__b')
    __limit = 3
    from os import path as __path, __name__ as __osname
    import __future__ as __fut
    def __init__(self, __p, *, __k=1):
        self.__a = __p
        self.__b = [__i for __i in range(__k)]
        __local = lambda __y: __y + self.__a
        try:
            __local(C.__limit)
        except ValueError as __e:
            del __e
        with open(os.devnull) as __fh:
            pass
        g(__kw=__local)
    def __priv(self):
        global __glob
        __glob = self.__dunder__
        return C.__priv, __name__, self._C__b
    class __Inner:
        def m(self):
            return self.__d, self._C__a
"""
if sys.version_info >= (3, 10):
    SRC += """
class M:
    def mm(self, v):
        match v:
            case [__first, *__rest]:
                return __first, __rest
            case {'k': __val, **__more}:
                return __val, __more
            case P(__at=__cv) as __whole:
                return __cv, __whole
"""
module = compile(SRC, "<case>", "exec")
source = _core.decompile(module).source
new = compile(source, "<depyf>", "exec")
verdicts = [[c.co_name, _core.compare(c, rt.find_code(new, c.co_name))[0]] for c, _ in rt.functions(module)]
init, parents = next((c, p) for c, p in rt.functions(module) if c.co_name == "__init__")
alone = _core.decompile(init).source
# Compiled where the method was (the round trip's placing; 3.9-3.10 store the
# qualified names of nested code as constants).
alone_new = rt.find_code(compile(rt.in_context(init, alone, {"os"}, parents), "<alone>", "exec"), "__init__")
print(json.dumps([source, _core.compare(module, new)[0], verdicts, alone, _core.compare(init, alone_new)[0]]))
'''


def _run(version):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    out = subprocess.run([PYTHONS[version], "-c", SCRIPT], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


@pytest.mark.parametrize("version", [v for v in ("3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15") if PYTHONS[v]])
def test_private_names_print_as_written_under_their_class(version):
    source, module_verdict, verdicts, alone, alone_verdict = _run(version)
    assert module_verdict == "identical", source
    assert all(v == "identical" for _, v in verdicts), (verdicts, source)
    # Written as in the source, in every mangled position; a name that the source
    # spelled mangled (`self._C__b`) is the same code and prints the short way.
    for text in ("def __init__(self, __p, *, __k=1):", "self.__a = __p", "[__i for __i in range(__k)]",
                 "lambda __y: __y + self.__a", "__local(C.__limit)", "except ValueError as __e:",
                 "as __fh:", "g(__kw=__local)", "global __glob", "return C.__priv, __name__, self.__b",
                 "class __Inner:", "return self.__d, self._C__a", "__slots__ = ('__a', '__b')"):
        assert text in source, (text, source)
    # Only the nested class's own prefix is undone inside it.
    assert source.count("_C__") == 1, source
    if version != "3.9":
        for text in ("case [__first, *__rest]:", "case {'k': __val, **__more}:", "case P(__at=__cv) as __whole:"):
            assert text in source, (text, source)
    # On its own the method keeps what the bytecode holds.
    assert "self._C__a = _C__p" in alone and alone_verdict == "identical", alone
