"""depyf.explain._dump.DumpSession, driven like Dynamo drives its bytecode hook (no torch).

The core's decompile/compare are replaced where a test needs a given outcome; one test
runs the real core end to end.
"""

import os
import types
import warnings

import pytest

# depyf.explain imports torch: without it (a venv set up by hand) this module is
# skipped, and a CI run, which installs torch, fails on any skip (tests/conftest.py).
pytest.importorskip("torch._dynamo")

from depyf import _core  # noqa: E402
from depyf.explain import _dump  # noqa: E402
from depyf.explain._dump import DumpSession  # noqa: E402


def user_fn(x, y):
    z = x * 2
    return z + y


SOURCE = "def user_fn(x, y):\n    z = x * 2\n    return z + y\n"


class FakeResult:
    def __init__(self, source, opaque_constants=None):
        self.source = source
        self.opaque_constants = opaque_constants or {}


@pytest.fixture
def fake_core(monkeypatch):
    calls = {"verdict": ("equivalent", "same calls and returns")}

    def decompile(code, name=None, const_prefix=None):
        calls["prefix"] = const_prefix
        result = calls.get("result") or FakeResult(SOURCE)
        return result(const_prefix) if callable(result) else result

    monkeypatch.setattr(_core, "decompile", decompile)
    monkeypatch.setattr(_core, "compare", lambda a, b, const_prefix=None: calls["verdict"])
    return calls


def session_prefix_peek():
    """The number the next dump's constant prefix will get (peeks at the counter)."""
    value = next(_dump._PREFIXES)
    _dump._PREFIXES = __import__("itertools").count(value)
    return value


def _run(fn, *args):
    return types.FunctionType(fn, globals())(*args)


def test_linked_code_runs_from_the_dump_file(tmp_path, fake_core):
    session = DumpSession(tmp_path, lambda: None)
    code = session.hook(user_fn.__code__, user_fn.__code__)
    record = session.records[0]
    assert record.path == str(tmp_path / "__transformed_code_0_for_user_fn.py")
    assert code is record.code and record.linked and record.verdict == "equivalent"
    assert code.co_filename == record.path
    assert _run(code, 3, 4) == 10
    text = open(record.path).read()
    lines = text.splitlines()
    assert lines[0] == (
        "# depyf: decompiled bytecode that torch.compile (Dynamo) made for `user_fn` "
        "(code object 0 of that name, the 0 in this file's name; the 1st of this session)"
    ), lines[0]
    assert "test_dump.py" in lines[1]
    assert lines[3] == "# verification: equivalent (same calls and returns)"
    assert lines[4].startswith("# linked: yes")
    # line numbers of the code are those of the file
    assert lines[code.co_firstlineno - 1] == "def user_fn(x, y):"
    assert os.path.basename(record.source_path) == "__original_source_for_user_fn.py"
    assert "return z + y" in open(record.source_path).read()
    assert session.files == [record.source_path, record.path]


def test_differs_is_not_linked(tmp_path, fake_core):
    fake_core["verdict"] = ("differs", "offset 4: LOAD_FAST x vs LOAD_FAST y")
    session = DumpSession(tmp_path, lambda: None)
    assert session.hook(user_fn.__code__, user_fn.__code__) is None
    record = session.records[0]
    text = open(record.path).read()
    assert "# verification: differs (offset 4" in text
    assert "# linked: no (verification says differs)" in text
    assert "# verification detail:" in text


def test_decompilation_error_keeps_dynamo_code(tmp_path, monkeypatch):
    def decompile(code, name=None, const_prefix=None):
        raise _core.DecompilationError("unsupported")

    monkeypatch.setattr(_core, "decompile", decompile)
    session = DumpSession(tmp_path, lambda: None)
    assert session.hook(user_fn.__code__, user_fn.__code__) is None
    text = open(session.records[0].path).read()
    assert "# verification: not decompiled" in text
    assert "disassembly of Dynamo's code" in text


def test_unexpected_error_warns_once_and_returns_none(tmp_path, monkeypatch):
    def decompile(code, name=None, const_prefix=None):
        raise ZeroDivisionError("bug in depyf")

    monkeypatch.setattr(_core, "decompile", decompile)
    session = DumpSession(tmp_path, lambda: None)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert session.hook(user_fn.__code__, user_fn.__code__) is None
        assert session.hook(user_fn.__code__, user_fn.__code__) is None
    assert len([w for w in caught if "depyf" in str(w.message)]) == 1
    assert session.records[1].verdict == "error"
    assert "ZeroDivisionError: bug in depyf" in open(session.records[1].path).read()


def test_layout_mismatch_is_not_linked(tmp_path, fake_core):
    fake_core["result"] = FakeResult("def user_fn(x, w):\n    return x\n")
    session = DumpSession(tmp_path, lambda: None)
    assert session.hook(user_fn.__code__, user_fn.__code__) is None
    assert session.records[0].verdict == "not recompiled"
    assert "argument names differ" in open(session.records[0].path).read()


def _with_opaque(fake_core):
    marker = object()
    transformed = user_fn.__code__.replace(co_consts=user_fn.__code__.co_consts + (marker,))
    index = len(transformed.co_consts) - 1
    fake_core["result"] = lambda prefix: FakeResult(
        f"def user_fn(x, y):\n    return ({prefix}_{index}, x)\n", {f"{prefix}_{index}": index}
    )
    return marker, transformed, index


def test_opaque_constants_are_bound_in_the_frame_globals(tmp_path, fake_core):
    marker, transformed, index = _with_opaque(fake_core)
    frame_globals = {}
    session = DumpSession(tmp_path, lambda: frame_globals)
    code = session.hook(user_fn.__code__, transformed)
    assert code is not None
    name = f"{fake_core['prefix']}_{index}"
    assert frame_globals[name] is marker
    assert types.FunctionType(code, frame_globals)(1, 2) == (marker, 1)
    assert f"{name} = <object object" in open(session.records[0].path).read()
    # a second session never reuses the prefix: the first one's code stays valid
    DumpSession(tmp_path / "again", lambda: frame_globals).hook(user_fn.__code__, transformed)
    assert fake_core["prefix"] != session.records[0].const_prefix


def test_opaque_constant_name_clash_is_not_linked(tmp_path, fake_core):
    marker, transformed, index = _with_opaque(fake_core)
    frame_globals = {}
    session = DumpSession(tmp_path, lambda: frame_globals)
    # a user global that happens to have the name the core will be asked to use
    frame_globals[f"__const_{int(session_prefix_peek()) }_{index}"] = "user value"
    assert session.hook(user_fn.__code__, transformed) is None
    assert "already bound" in session.records[0].reason
    assert "user value" in frame_globals.values()


def test_opaque_constants_without_globals_are_not_linked(tmp_path, fake_core):
    _, transformed, _ = _with_opaque(fake_core)
    session = DumpSession(tmp_path, lambda: None)
    assert session.hook(user_fn.__code__, transformed) is None
    assert "cannot be bound" in session.records[0].reason


def test_stale_dumps_are_removed(tmp_path):
    stale = tmp_path / "__transformed_code_7_for_old.py"
    stale.write_text("# old")
    keep = tmp_path / "notes.py"
    keep.write_text("# mine")
    DumpSession(tmp_path, lambda: None)
    assert not stale.exists() and keep.exists()


def test_real_core_links_a_plain_function(tmp_path):
    session = DumpSession(tmp_path, lambda: globals())
    code = session.hook(user_fn.__code__, user_fn.__code__)
    record = session.records[0]
    assert record.verdict in ("identical", "equivalent"), (record.reason, record.detail)
    assert code is not None and code.co_filename == record.path
    assert _run(code, 3, 4) == 10



def test_cells_passed_as_values_are_not_linked(tmp_path, fake_core):
    """Even if compare accepts it, source that passes a cell's value where Dynamo's code
    passes the cell is not linked ("closure expected cell" otherwise)."""
    import sys

    from test_recompile import _returns_cell

    if sys.version_info >= (3, 13):
        return  # LOAD_CLOSURE became a pseudo-instruction; covered by the torch tests
    pushes_cell, _ = _returns_cell()
    fake_core["result"] = FakeResult("def f():\n    return (s,)\n")
    session = DumpSession(tmp_path, lambda: None)
    assert session.hook(pushes_cell, pushes_cell) is None
    record = session.records[0]
    assert record.verdict == "equivalent" and not record.linked
    assert "values instead of cells" in record.reason


def test_graph_break_reason_keeps_only_the_reason(tmp_path):
    """Dynamo's traceback after a graph-break reason, and the `NoneType: None` that
    `traceback.format_exc()` gives outside an exception, are left out of the dump."""
    from depyf.explain._artifacts import ArtifactCollector

    c = ArtifactCollector(str(tmp_path))
    meta = {"frame_id": 0, "frame_compile_id": 0, "artifact": {"name": "dynamo_graph_break_reason"}}
    c.handle_trace(meta, "Graph break in user code at toy.py:10\nReason: data-dependent branch\nNoneType: None\n")
    c.handle_trace(meta, "Graph break at toy.py:12\nTraceback (most recent call last):\n  File x\n")
    assert c.info(0, 0).graph_breaks == [
        "Graph break in user code at toy.py:10\nReason: data-dependent branch",
        "Graph break at toy.py:12",
    ]
    assert c.errors == []


def test_graph_files_are_valid_python(tmp_path):
    """torch prints AOTAutograd's graph modules as `class <lambda>(torch.nn.Module):`;
    the dumped file names the class `_lambda_` (and says so) so that it parses."""
    import ast

    from depyf.explain._artifacts import ArtifactCollector

    c = ArtifactCollector(str(tmp_path))
    payload = (
        "class <lambda>(torch.nn.Module):\n"
        "    def forward(self, arg0_1: \"f32[10][1]cpu\"):\n"
        "        abs_1: \"f32[10][1]cpu\" = torch.ops.aten.abs.default(arg0_1)\n"
        "        return (abs_1,)\n"
        "\n"
        "    class GraphModule(torch.nn.Module):\n"
        "        pass\n"
    )
    c.handle_trace({"frame_id": 0, "frame_compile_id": 0, "aot_inference_graph": {}}, payload)
    (path,) = c.info(0, 0).graph_files.values()
    text = open(path, encoding="utf-8").read()
    ast.parse(text)
    assert "\nclass _lambda_(torch.nn.Module):\n" in text
    assert "# torch printed the class `<lambda>`; written as `_lambda_` to be valid Python\n" in text
    assert "    class GraphModule(torch.nn.Module):\n" in text
