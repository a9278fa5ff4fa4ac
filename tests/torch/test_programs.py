"""The end-to-end suite: every program of :mod:`programs` under prepare_debug and debug().

Per program: outputs under ``prepare_debug`` and under ``debug()`` equal eager ones; every
transformed code object is dumped, verified and linked (exceptions must be listed in
``KNOWN_UNLINKED`` with the reason, per Python version; they are reported as decompiler
gaps, and a listed program that links fully fails so the list stays true); every compiled
graph function has its graphs on disk; ``full_code_for_<fn>.py`` exists and compiles;
``debug()`` compiles nothing new and runs the linked dumps. Needs torch (never skipped).

``DEPYF_SUITE_STATS=path`` appends one JSON line per program (dumped/verified/linked
counts and the compile-time ratio against plain torch.compile) for the benchmark.
"""

import json
import os
import sys
import time

import pytest
import torch

import depyf
from depyf.explain import _torch_compat as compat

sys.path.insert(0, os.path.dirname(__file__))
import programs as P  # noqa: E402

PY = f"{sys.version_info[0]}.{sys.version_info[1]}"
LINKED = ("identical", "equivalent")
# program -> {python version or "*": why some transformed code is not linked}
KNOWN_UNLINKED: dict = {}
# program -> {python version: why Dynamo compiles nothing there}; checked to stay true
NOT_COMPILED = {
    "rnn_lstm": {"3.10": "torch 2.14.1's Dynamo runs nn.LSTM without compiling it"},
}


def _params(program):
    if program.subset:
        return pytest.param(program.name, marks=pytest.mark.torch_subset)
    return program.name


def _target(fn, program):
    return torch.compile(fn, backend=program.backend, **program.compile_kwargs)


def _parameters(fn):
    return list(fn.parameters()) if isinstance(fn, torch.nn.Module) else []


@pytest.mark.parametrize("name", [_params(p) for p in P.PROGRAMS.values()])
def test_program(name, tmp_path, monkeypatch):
    program = P.PROGRAMS[name]
    fn, make_calls = program.build()
    params = _parameters(fn)
    want = P.run(fn, make_calls, program.backward, params)

    # plain torch.compile, for the overhead figure
    torch._dynamo.reset()
    t0 = time.perf_counter()
    with compat.no_compile_caches():
        plain = P.run(_target(fn, program), make_calls, program.backward, params)
    plain_s = time.perf_counter() - t0
    P.assert_same(plain, want)

    torch._dynamo.reset()
    compiled = _target(fn, program)
    t0 = time.perf_counter()
    with depyf.prepare_debug(str(tmp_path / "dump")) as session:
        got = P.run(compiled, make_calls, program.backward, params)
    depyf_s = time.perf_counter() - t0
    P.assert_same(got, want)

    records = session.records
    if PY in NOT_COMPILED.get(name, {}):
        assert not records, f"{name} is listed in NOT_COMPILED for {PY} but Dynamo compiled it"
        return
    assert records, "Dynamo compiled nothing"
    assert not session.problems, session.problems
    unlinked = [
        f"{os.path.basename(r.path)}: {r.verdict}: {r.reason}"
        for r in records if not (r.linked and r.verdict in LINKED)
    ]
    known = KNOWN_UNLINKED.get(name, {})
    why = known.get(PY) or known.get("*")
    if why:
        assert unlinked, f"{name} is listed in KNOWN_UNLINKED ({why}) but links fully now"
    else:
        assert not unlinked, "\n".join(unlinked)
    for record in records:
        assert os.path.isfile(record.path)
        if record.linked:
            assert record.code.co_filename == record.path

    # graphs present for every compiled graph function the transformed code calls
    stages = {"eager": "captured_graph", "aot_eager": "aot_", "inductor": "inductor_output_code"}
    need = stages.get(program.backend, "captured_graph")
    for record in records:
        if not any(n.startswith("__compiled_fn") for n in record.transformed.co_names):
            continue
        info = session.collector.compiles.get(tuple(record.compile_id or ()))
        assert info is not None, f"no trace for {record.name} {record.compile_id}"
        assert "captured_graph" in info.graph_files, info.graph_files
        assert any(k.startswith(need) for k in info.graph_files), (need, info.graph_files)
        for path in info.graph_files.values():
            assert os.path.isfile(path)

    index = json.loads((tmp_path / "dump" / "index.json").read_text())
    assert len(index["functions"]) == len(records)
    assert session.full_code_files
    for path in session.full_code_files:
        with open(path, encoding="utf-8") as fh:
            compile(fh.read(), path, "exec")

    # debug(): run-only; the same inputs run the linked dumps again, nothing compiles
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    compiled_again, ran = [], set()
    handle = compat.register_bytecode_hook(lambda old, new: compiled_again.append(old))

    def profile(frame, event, arg):
        if event == "call":
            ran.add(frame.f_code.co_filename)

    try:
        with depyf.debug():
            sys.setprofile(profile)
            try:
                again = P.run(compiled, make_calls, program.backward, params)
            finally:
                sys.setprofile(None)
    finally:
        handle.remove()
    P.assert_same(again, want)
    assert not compiled_again, [c.co_name for c in compiled_again]
    assert ran & {r.path for r in records if r.linked} or not any(r.linked for r in records)

    stats = os.environ.get("DEPYF_SUITE_STATS")
    if stats:
        with open(stats, "a", encoding="utf-8") as fh:
            fh.write(json.dumps({
                "program": name, "python": PY, "torch": torch.__version__,
                "dumped": len(records),
                "verified": sum(r.verdict in LINKED for r in records),
                "linked": sum(r.linked for r in records),
                "plain_s": plain_s, "depyf_s": depyf_s,
            }) + "\n")
    torch._dynamo.reset()


def test_suite_is_big_enough():
    assert len(P.PROGRAMS) >= 40
    assert sum(p.subset for p in P.PROGRAMS.values()) >= 10
