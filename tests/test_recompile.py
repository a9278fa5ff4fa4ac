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


def test_unused_free_and_cell_variables_are_kept():
    """Dynamo keeps closure variables its code no longer uses; so must the stand-in."""
    template = _closure_fn().__code__
    src = "def inner(a, /, b, *args, c, **kw):\n    return (a + b) * scale\n"
    code = compile_like(src, "f.py", template, first_line=3)
    assert code.co_freevars == ("offset", "scale")
    assert {line for _, line in __import__("dis").findlinestarts(code)} <= {3, 4}

    def outer(a):
        def g():
            return a
        return g

    code = compile_like("def outer(a):\n    return 1\n", "f.py", outer.__code__)
    assert code.co_cellvars == ("a",)
    assert types_function(code)(5) == 1


def types_function(code):
    import types

    return types.FunctionType(code, {})


def test_name_that_is_not_an_identifier():
    template = (lambda x: x + 1).__code__
    code = compile_like("def <lambda>(x):\n    return x + 1\n".replace("<lambda>", "f"),
                        "f.py", template.replace(co_name="f"))
    assert code.co_name == "f"
    weird = template.replace(co_name="<lambda>")
    with pytest.raises(RecompileError, match="no top-level def"):
        compile_like("def f(x):\n    return x\n", "f.py", weird)


def _returns_cell():
    """A closure whose code pushes its cell (as Dynamo's code does for factories)."""
    s = 1.0

    def f():
        return (s,)

    code = f.__code__
    raw = bytearray(code.co_code)
    for ins in __import__("dis").get_instructions(code):
        if ins.opname == "LOAD_DEREF":
            raw[ins.offset] = __import__("dis").opmap["LOAD_CLOSURE"]
    return code.replace(co_code=bytes(raw)), code


def test_cell_loads_tell_cells_from_values():
    from depyf._recompile import cell_loads

    if __import__("sys").version_info >= (3, 13):
        return  # LOAD_CLOSURE is a pseudo-instruction there

    pushes_cell, pushes_value = _returns_cell()
    assert cell_loads(pushes_cell) == ["s"]
    assert cell_loads(pushes_value) == []
