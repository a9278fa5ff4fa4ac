"""depyf.decompile: what it accepts, what it returns, what it raises (no torch)."""

import functools
import os
import subprocess
import sys
import textwrap

import pytest

import depyf
from depyf._api import code_of


def add_scaled(a, b, scale=2):
    total = a + b * scale
    if total > 10:
        return total - 10
    return total


class Point:
    def __init__(self, x):
        self.x = x

    def shifted(self, dx):
        return self.x + dx

    @classmethod
    def origin(cls):
        return cls(0)


def logged(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs)

    return wrapper


@logged
def decorated(n):
    return n * 3


def _compile_def(source, name):
    namespace = {}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    return namespace[name]


def test_function():
    source = depyf.decompile(add_scaled)
    assert source.lstrip().startswith("def add_scaled(a, b, scale=2):")
    fn = _compile_def(source, "add_scaled")
    assert [fn(1, 2), fn(5, 5, 2), fn(1, 1, 0)] == [5, 5, 1]


def test_code_object():
    # Defaults belong to the function object, not to its code: a code object alone
    # gives the parameters only.
    assert depyf.decompile(add_scaled.__code__) == depyf.decompile(add_scaled).replace("scale=2", "scale")


class Shape:
    pass


def signed(a: Shape, b: dict = {}, /, c: "list[str]" = None, *rest: int, d=object(), e=os.path.join, f=(1, "x", None), **kw: float) -> list[int]:
    """Doc."""
    return [a, b, c, rest, d, e, f, kw]


def test_signature_from_the_function_object():
    # Defaults and annotations live on the function object: a function given to
    # decompile gets them back in its header (literals as literals, classes and
    # functions by name, the function's own module bare, string annotations as
    # strings, a value with no source form as a __default_<name>__ placeholder).
    source = depyf.decompile(signed)
    header = source.splitlines()[0]
    assert header == (
        "def signed(a: Shape, b: dict={}, /, c: 'list[str]'=None, *rest: int, d=__default_d__, "
        f"e={os.path.join.__module__}.join, f=(1, 'x', None), **kw: float) -> list[int]:"
    ), header
    assert source.splitlines()[1:] == depyf.decompile(signed.__code__).splitlines()[1:]
    import importlib

    namespace = {"Shape": Shape, "__default_d__": "D", os.path.join.__module__: importlib.import_module(os.path.join.__module__)}
    exec(compile(source, "<decompiled>", "exec"), namespace)
    fn = namespace["signed"]
    assert fn.__defaults__ == ({}, None)
    assert fn.__kwdefaults__ == {"d": "D", "e": os.path.join, "f": (1, "x", None)}
    assert fn.__annotations__ == {"a": Shape, "b": dict, "c": "list[str]", "rest": int, "kw": float, "return": list[int]}


def test_signature_under_future_annotations():
    # PEP 563 stores annotations as their source text: printed as expressions again,
    # and names defined nowhere are fine there.
    namespace = {}
    exec(compile("from __future__ import annotations\ndef k(a: Later = 2, *b: list[Later]) -> dict[str, 'X']:\n    return a\n", "<k>", "exec"), namespace)
    header = depyf.decompile(namespace["k"]).splitlines()
    assert "def k(a: Later=2, *b: list[Later]) -> dict[str, 'X']:" in header, header


def test_bound_method():
    source = depyf.decompile(Point(1).shifted)
    assert source.lstrip().startswith("def shifted(self, dx)")
    assert _compile_def(source, "shifted")(Point(4), 1) == 5


def test_classmethod_bound_to_class():
    assert "def origin(cls)" in depyf.decompile(Point.origin)


def test_wrapped_callable_gives_the_wrapped_function():
    source = depyf.decompile(decorated)
    assert source.lstrip().startswith("def decorated(n)")
    assert "wrapper" not in source


def test_lambda_compiles():
    source = depyf.decompile(lambda q: q + 1)
    assert _compile_def(source, "_lambda_")(2) == 3


@pytest.mark.parametrize("obj", [len, 42, "text", Point, Point(1), None])
def test_objects_without_code_raise_type_error(obj):
    with pytest.raises(TypeError):
        depyf.decompile(obj)


def test_wrapped_cycle_is_a_type_error():
    class Loop:
        pass

    loop = Loop()
    loop.__wrapped__ = loop
    with pytest.raises(TypeError, match="cycle"):
        depyf.decompile(loop)


def test_code_of_unwraps_partial_and_staticmethod():
    assert code_of(functools.partial(add_scaled, 1)) is add_scaled.__code__
    assert code_of(staticmethod(add_scaled)) is add_scaled.__code__


def _broken_code():
    """A code object whose bytecode is not valid: an opcode number CPython never uses."""
    code = add_scaled.__code__
    bad = bytes([255, 0]) * (len(code.co_code) // 2)
    return code.replace(co_code=bad, co_exceptiontable=b"", co_linetable=b"")


def test_decompilation_error_has_real_attributes():
    with pytest.raises(depyf.DecompilationError) as info:
        depyf.decompile(_broken_code())
    err = info.value
    assert isinstance(err, Exception)
    assert err.code_name == "add_scaled"
    assert isinstance(err.offset, int) and err.offset >= 0
    assert err.opname is None or isinstance(err.opname, str)
    assert err.python_version.startswith(f"{sys.version_info[0]}.{sys.version_info[1]}")
    assert str(err)


def test_decompilation_error_is_the_core_class():
    from depyf import _core

    assert depyf.DecompilationError is _core.DecompilationError


def test_public_api_matches_the_original_depyf():
    assert set(depyf.__all__) >= {
        "decompile", "prepare_debug", "debug", "install", "uninstall", "DecompilationError",
    }


def test_import_and_decompile_never_import_torch():
    code = textwrap.dedent(
        """
        import sys
        import depyf
        def f(x):
            return x + 1
        depyf.decompile(f)
        assert "torch" not in sys.modules, sorted(m for m in sys.modules if "torch" in m)
        print("ok")
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_structural_refusals_name_an_instruction():
    # Refusals about a shape (no structure fits the control flow) used to report offset
    # 0 and no opname; they name the branch or jump of the block being structured. The
    # inputs are the semantic suite's known failures on this version (DecompilationErrors,
    # not wrong code), whatever they are when this runs.
    import importlib

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "semantics"))
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "semantics", "cases"))
    from known_failures import KNOWN_FAILURES

    here = f"{sys.version_info[0]}.{sys.version_info[1]}"
    errors = []
    for case_id, by_version in KNOWN_FAILURES.items():
        reason = next((r for k, r in by_version.items() if k == "all" or here in k.split()), None)
        if reason is None or reason.startswith("wrong code") or "left in the output" in reason:
            continue
        module, name = case_id.split(".", 1)
        fn = getattr(importlib.import_module(module), name)
        fn = getattr(fn, "__wrapped__", fn)
        try:
            depyf.decompile(fn)
        except depyf.DecompilationError as e:
            errors.append((case_id, e))
    assert errors, "no known structural refusal on this version to check"
    for case_id, e in errors:
        assert e.opname and e.offset > 0, (case_id, str(e))
        assert str(e).startswith(f"{e.opname}: "), (case_id, str(e))


def test_deep_code_on_a_thread_with_a_small_stack():
    # A long chained comparison nests one level per operand; on a thread of 256 KiB
    # the decompiler used to overflow the stack and kill the interpreter. It now runs
    # on a stack of its own size, whatever thread calls it.
    import threading

    ns = {}
    exec(compile("def chain(a):\n    return " + " < ".join(["a"] * 500) + "\n", "<chain>", "exec"), ns)
    results = []

    def work():
        results.append(depyf.decompile(ns["chain"]))

    old = threading.stack_size(256 * 1024)
    try:
        t = threading.Thread(target=work)
        t.start()
        t.join()
    finally:
        threading.stack_size(old)
    assert len(results) == 1
    assert results[0].startswith("def chain(a):")


def test_expressions_past_the_nesting_limit_are_refused():
    ns = {}
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(max(limit, 100_000))
    try:
        code = compile("def total(a):\n    return " + "+".join(["a"] * 20_500) + "\n", "<total>", "exec")
    except (RecursionError, MemoryError):
        pytest.skip("this interpreter does not compile 20,500 nested operations")
    finally:
        sys.setrecursionlimit(limit)
    exec(code, ns)
    with pytest.raises(depyf.DecompilationError, match="beyond depyf's limit of 20000"):
        depyf.decompile(ns["total"])
