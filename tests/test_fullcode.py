"""``full_code_for_<fn>.py`` text (depyf.explain._fullcode): session records and Dynamo
cache entries are faked with real code objects, as the hook would see them. The module
itself is torch-free but `depyf.explain` imports torch, so this needs torch (set up by
scripts/test.sh)."""

import ast
import os
import types

import pytest

pytest.importorskip("torch._dynamo")  # not the tests/torch folder, a namespace package without torch

from depyf.explain._fullcode import Entry, FullCodeWriter, guard_function  # noqa: E402


def _code(src, name):
    ns = {}
    exec(compile(src, "<user>", "exec"), ns)
    return ns[name].__code__


def test_long_guard_part_that_is_not_python_is_cut_visibly():
    long_part = "___check_global_state() against {" + "'grad_mode': True, " * 60 + "}"
    src = guard_function("__guard_0_for_f", ["L['x'].size()[0] == 4  # x.sin()", long_part])
    compile(src, "<guard>", "exec")
    comment = [line for line in src.splitlines() if "(not Python)" in line]
    assert len(comment) == 1
    flat = " ".join(long_part.split())
    assert comment[0].endswith(f" ... (cut: {len(flat)} characters in all)")
    assert "__guard_hit = __guard_hit and (L['x'].size()[0] == 4)  # x.sin()" in src


def test_resume_functions_made_again_get_their_own_labels(tmp_path):
    # Dynamo compiles `f` twice and makes its resume function anew each time: two code
    # objects named alike. Each needs its own headings and dispatcher in the file.
    f = _code("def f(x):\n    y = x + 1\n    print(y)\n    return y * 2\n", "f")
    resume_src = "def torch_dynamo_resume_in_f_at_3(y):\n    return y * 2\n"
    r1 = _code(resume_src, "torch_dynamo_resume_in_f_at_3")
    r2 = _code(resume_src, "torch_dynamo_resume_in_f_at_3")
    assert r1 is not r2
    src_path = tmp_path / "__original_source_for_f.py"
    src_path.write_text("def f(x):\n    y = x + 1\n    print(y)\n    return y * 2\n")
    records = [
        types.SimpleNamespace(original=o, code=o, transformed=o, compile_id=None, path=str(tmp_path / f"__transformed_code_{k}_for_{o.co_name}.py"),
                              source=None, reason="faked", verdict="identical", linked=True, source_path=str(src_path))
        for k, o in enumerate([f, r1, r2])
    ]
    session = types.SimpleNamespace(records=records, dump_dir=str(tmp_path), report_problem=lambda *a: None)
    writer = FullCodeWriter(session, None, lambda code: [Entry(code, ["L['x'] == 1"], None)])
    [path] = writer.write()
    assert os.path.basename(path) == "full_code_for_f.py"
    text = open(path, encoding="utf-8").read()
    tree = ast.parse(text)
    defs = [n.name for n in tree.body if isinstance(n, ast.FunctionDef)]
    assert len(defs) == len(set(defs)), defs
    assert "torch_dynamo_resume_in_f_at_3_dispatch" in defs
    assert "torch_dynamo_resume_in_f_at_3_2_dispatch" in defs
    assert "# ---- cache entry 0 of `torch_dynamo_resume_in_f_at_3`" in text
    assert "# ---- cache entry 0 of `torch_dynamo_resume_in_f_at_3_2`" in text
    assert "# ==== resume function `torch_dynamo_resume_in_f_at_3` (code object 2 of that name)" in text
