"""Language features of recovery: nested functions, lambdas, closures, comprehensions,
classes, f-strings, imports, asserts and building ops.

Each case is a function (or a module source) that is decompiled, compiled again and
run: its results must equal the original's, and `depyf._core.compare` must find the
two code objects bytecode-identical where CPython allows it (the interpreter running
the tests decides the bytecode; 3.11 is the version these shapes were checked on).
"""

import sys
import textwrap
import types

import pytest

from depyf import _core

# Features whose shapes are recovered for this interpreter (3.12+ inlines
# comprehensions, which is not read yet).
PY311 = sys.version_info[:2] == (3, 11)


def _roundtrip(fn, namespace=None):
    """Decompiles `fn`, compiles the source in a namespace with `fn`'s globals, and
    returns (new function, verdict)."""
    res = _core.decompile(fn.__code__)
    ns = dict(fn.__globals__ if namespace is None else namespace)
    exec(compile(res.source, "<decompiled>", "exec"), ns)
    new = ns[fn.__code__.co_name]
    new.__defaults__ = fn.__defaults__
    new.__kwdefaults__ = fn.__kwdefaults__
    verdict, detail = _core.compare(fn.__code__, new.__code__)
    return new, verdict, res.source + "\n" + detail


def _check(fn, *calls, identical=True):
    new, verdict, detail = _roundtrip(fn)
    for args in calls:
        assert new(*args) == fn(*args), detail
    if identical:
        assert verdict == "identical", detail
    return new


# --- functions, lambdas, closures, decorators ------------------------------------


def nested_defaults(x, y=2):
    def inner(a, b=y, *rest, c=x, **kw):
        return a + b + c + x + len(rest) + len(kw)

    return inner(1), inner(1, 2, 3, c=4, d=5)


def annotated_nested(x):
    def inner(a: int, *, b: "str" = "q") -> list:
        return [a, b]

    return inner(x), inner.__annotations__


def counter(n):
    total = 0

    def add(k):
        nonlocal total
        total += k
        return total

    for i in range(n):
        add(i)
    return total


def twice(f):
    return lambda *a: f(f(*a))


def decorated(x):
    @twice
    @twice
    def inc(v):
        return v + x

    return inc(0)


def lambdas(xs, k):
    key = lambda v, w=k: -v if v > w else v
    return sorted(xs, key=key), (lambda: None)(), (lambda a, *b, c=1, **d: (a, b, c, d))(1, 2, c=3, e=4)


def test_functions_and_lambdas():
    _check(nested_defaults, (1,), (5, 6))
    _check(annotated_nested, (3,))
    _check(counter, (0,), (5,))
    _check(decorated, (1,), (4,))
    _check(lambdas, ([3, 1, 2, 5], 2), ([], 0))


def test_lambda_code_object_alone():
    lam = lambda q, r: q * r + 1  # noqa: E731
    res = _core.decompile(lam.__code__)
    ns = {}
    exec(compile(res.source, "<decompiled>", "exec"), ns)
    (new,) = [v for k, v in ns.items() if k != "__builtins__"]
    assert new.__code__.co_name == "<lambda>"
    assert new(3, 4) == 13
    assert _core.compare(lam.__code__, new.__code__)[0] == "identical"


# --- comprehensions ----------------------------------------------------------------


def comprehensions(xs, n):
    a = [x * 2 for x in xs if x > 1]
    b = {x % n for x in xs}
    c = {k: v for k, v in zip(xs, range(n)) if k if v}
    d = [(x, y) for x in xs for y in range(x) if x != y]
    e = [[y for y in range(x)] for x in xs]
    f = [x + n for x in xs]  # closure over n
    return a, b, c, d, e, f


@pytest.mark.skipif(not PY311, reason="comprehension functions are read in 3.8-3.11 bytecode")
def test_comprehensions():
    _check(comprehensions, ([1, 2, 3, 4], 3), ([], 1))


def generator_expressions(xs, n):
    a = sum(x * 2 for x in xs if x > 1)
    b = list((x, y) for x in xs for y in range(n) if x != y)
    c = max((x for x in xs), default=None)
    return a, b, c, any(x for x in xs), tuple(n + x for x in xs), list(1 for _ in xs)


@pytest.mark.skipif(not PY311, reason="generator expressions are read in 3.8-3.11 bytecode")
def test_generator_expressions():
    _check(generator_expressions, ([1, 2, 3, 4], 3), ([], 1))


# --- classes ---------------------------------------------------------------------


def make_classes(base, meta):
    class A(base):
        "A docstring."

        x = 1

        def get(self):
            return super().get() + self.x

    class B(A, metaclass=meta):
        def get(self):
            return __class__.__name__

    return A().get(), B().get(), A.__doc__, type(B) is meta


class Base:
    def get(self):
        return 10


class Meta(type):
    pass


def test_classes():
    _check(make_classes, (Base, Meta))


MODULE = '''
import os.path
import os.path as osp
from os import sep as s, getcwd
from collections import *
x: int = 1
y: "list[int]"

class C:
    z: int = 2
    w: str

@staticmethod
def f(a):
    assert a, f"bad {a!r:>{a}}"
    return a
'''


def test_module_body():
    code = compile(MODULE, "<m>", "exec")
    res = _core.decompile(code)
    ns1, ns2 = {}, {}
    exec(code, ns1)
    new = compile(res.source, "<m2>", "exec")
    exec(new, ns2)
    assert ns1["__annotations__"] == ns2["__annotations__"]
    assert ns1["C"].__annotations__ == ns2["C"].__annotations__
    assert ns2["osp"] is ns1["os"].path and ns2["s"] == ns1["s"]
    assert "OrderedDict" in ns2
    if PY311:
        assert _core.compare(code, new)[0] == "identical", res.source


# --- f-strings ---------------------------------------------------------------------


def fstrings(p, q, d):
    return (
        f"{p!r:>{q}} {q:.2f}"
        + f"{p}"
        + f"{d['k']!s}"
        + f"{p!a}{{literal}}"
        + f"{f'{p}'}"
        + f"tab\there 'quoted' \"double\""
    )


def test_fstrings():
    _check(fstrings, ("x", 5, {"k": "v"}), ("é", 0, {"k": 1}))


# --- imports and asserts -----------------------------------------------------------


def imports():
    import os.path
    import os.path as osp
    from os import sep as s, getcwd
    from json import decoder

    return os.path is osp, s, getcwd is not None, decoder.__name__


# Pytest rewrites the `assert`s of test modules: this subject is compiled apart.
_ns = {}
exec(
    compile(
        textwrap.dedent(
            """
            def asserts(x, msg):
                assert x
                assert x > 1, msg
                assert x is not None, f"{x}"
                assert not x < 0
                return x
            """
        ),
        __file__,
        "exec",
    ),
    _ns,
)
asserts = _ns["asserts"]


def test_imports_and_asserts():
    _check(imports, ())
    new = _check(asserts, (2, "m"), (5, "n"))
    with pytest.raises(AssertionError, match="m"):
        new(1, "m")


# --- building ops --------------------------------------------------------------------


def building(a, b, c):
    x, *y = a
    *z, w = b
    return (
        {*a, 1},
        {**c, "k": 1},
        [*a, *b],
        [1, 2, 3],
        {1, 2, 3},
        dict(*[c], **c),
        max(*a, *b),
        dict(x=2, **c),
        (x, y, z, w),
    )


def test_building():
    _check(building, ([1, 2, 3], [4, 5], {"q": 1}), ((7, 8), (9,), {}))
