"""depyf._recompile: stand-in code objects with a given frame layout (no torch)."""

import pytest

from depyf._recompile import RecompileError, compile_like, layout_mismatch


def _closure_fn():
    scale = 3
    offset = 1

    def inner(a, /, b, *args, c, **kw):
        return (a + b) * scale + offset

    return inner


def test_plain_function_keeps_layout_and_lines():
    def target(x, y=2):
        z = x + y
        return z

    src = "def target(x, y):\n    z = x + y\n    return z\n"
    code = compile_like(src, "dumped.py", target.__code__, first_line=9)
    assert code.co_filename == "dumped.py"
    assert code.co_firstlineno == 9
    assert code.co_name == "target"
    assert code.co_qualname == target.__code__.co_qualname
    assert layout_mismatch(target.__code__, code) is None


def test_free_variables_compile_nested_with_line_numbers():
    template = _closure_fn().__code__
    assert template.co_freevars == ("offset", "scale")
    src = "def inner(a, /, b, *args, c, **kw):\n    return (a + b) * scale + offset\n"
    code = compile_like(src, "f.py", template, first_line=5)
    assert code.co_freevars == template.co_freevars
    assert code.co_firstlineno == 5
    assert [line for _, line in __import__("dis").findlinestarts(code)][-1] == 6
    assert layout_mismatch(template, code) is None


def test_cell_variables_match():
    def outer(a):
        def g():
            return a
        return g

    src = "def outer(a):\n    def g():\n        return a\n    return g\n"
    code = compile_like(src, "f.py", outer.__code__)
    assert code.co_cellvars == ("a",)


@pytest.mark.parametrize(
    "src, message",
    [
        ("def target(x, z):\n    return x\n", "argument names"),
        ("def target(x, *y):\n    return x\n", "co_argcount"),
        ("def target(x, y):\n    yield x\n", "generator"),
        ("def other(x, y):\n    return x\n", "no top-level def"),
        ("def target(x, y:\n", "does not parse"),
    ],
)
def test_mismatches_are_reported(src, message):
    def target(x, y):
        return x

    with pytest.raises(RecompileError, match=message):
        compile_like(src, "f.py", target.__code__)


def test_missing_free_variable_is_a_mismatch():
    template = _closure_fn().__code__
    src = "def inner(a, /, b, *args, c, **kw):\n    return (a + b) * scale\n"
    with pytest.raises(RecompileError, match="co_freevars"):
        compile_like(src, "f.py", template)


def test_name_that_is_not_an_identifier():
    template = (lambda x: x + 1).__code__
    code = compile_like("def <lambda>(x):\n    return x + 1\n".replace("<lambda>", "f"),
                        "f.py", template.replace(co_name="f"))
    assert code.co_name == "f"
    weird = template.replace(co_name="<lambda>")
    with pytest.raises(RecompileError, match="no top-level def"):
        compile_like("def f(x):\n    return x\n", "f.py", weird)
