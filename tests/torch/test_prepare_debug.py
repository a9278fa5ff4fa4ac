"""torch.compile under depyf.prepare_debug and depyf.debug, on examples/toy.py.

For each backend: every code object Dynamo makes (main and resume functions) is dumped,
recompiles, verifies and is linked; outputs equal eager ones; a pdb session fed through
stdin stops at a breakpoint set in a dumped file. Needs torch (CI installs it: a skip here
is a failure, so the import is not guarded).
"""

import os
import re
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest
import torch

import depyf
from depyf.explain import _torch_compat as compat

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "examples"))
import toy  # noqa: E402

BACKENDS = ["eager", "aot_eager", "inductor"]
LINKED = ("identical", "equivalent")


def _assert_close(results):
    assert results
    for got, want in results:
        torch.testing.assert_close(got, want)


@pytest.fixture(scope="module", params=BACKENDS)
def dumped(request, tmp_path_factory):
    """Runs toy.run(backend) under prepare_debug; yields (backend, session, results)."""
    backend = request.param
    torch._dynamo.reset()
    dump_dir = tmp_path_factory.mktemp(f"dump_{backend}")
    with depyf.prepare_debug(str(dump_dir)) as session:
        results = toy.run(backend)
    yield backend, session, results
    torch._dynamo.reset()


def test_outputs_equal_eager(dumped):
    _, _, results = dumped
    _assert_close(results)


def test_every_transformed_code_is_dumped(dumped):
    _, session, _ = dumped
    names = [r.name for r in session.records]
    assert "toy_example" in names and "forward" in names, names
    resumes = [n for n in names if n.startswith("torch_dynamo_resume_in_")]
    assert any("toy_example" in n for n in resumes), names
    assert any("forward" in n for n in resumes), names
    for record in session.records:
        assert os.path.isfile(record.path)
        name = os.path.basename(record.path)
        assert re.fullmatch(rf"__transformed_code_\d+_for_{record.name}\.py", name), name
        with open(record.path, encoding="utf-8") as fh:
            head = fh.read(2000)
        assert head.startswith("# depyf: "), head
        assert f"# verification: {record.verdict}" in head


def test_original_source_is_written(dumped):
    _, session, _ = dumped
    sources = {r.source_path for r in session.records if r.source_path}
    names = {os.path.basename(p) for p in sources}
    assert {"__original_source_for_toy_example.py", "__original_source_for_forward.py"} <= names
    for path in sources:
        assert "b = b * -1" in Path(path).read_text()


def test_every_transformed_code_is_verified_and_linked(dumped):
    backend, session, _ = dumped
    problems = [
        f"{r.path}: {r.verdict}: {r.reason} {r.detail}"
        for r in session.records
        if not (r.linked and r.verdict in LINKED)
    ]
    assert not problems, "\n".join(problems)
    for record in session.records:
        assert record.code.co_filename == record.path
        assert record.code.co_name == record.transformed.co_name


def test_dynamo_caches_the_linked_code(dumped):
    _, session, _ = dumped
    paths = {r.path for r in session.records}
    for fn in (toy.toy_example, toy.ToyModule.forward):
        codes = compat.cache_entries(fn)
        assert codes, fn
        for code in codes:
            assert code.co_filename in paths, (code.co_filename, paths)


def test_debug_runs_cached_code_with_eager_results(dumped, monkeypatch):
    backend, session, _ = dumped
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    compiled, ran = [], set()

    def profile(frame, event, arg):
        if event == "call":
            ran.add(frame.f_code.co_filename)

    handle = compat.register_bytecode_hook(lambda old, new: compiled.append(old))
    try:
        with depyf.debug():
            sys.setprofile(profile)
            try:
                results = toy.run(backend)
            finally:
                sys.setprofile(None)
    finally:
        handle.remove()
    _assert_close(results)
    assert not compiled, f"debug() compiled new code: {[c.co_name for c in compiled]}"
    # The same inputs take the same paths, so every linked dump runs again.
    linked = {r.path for r in session.records if r.linked}
    assert linked and linked <= ran, sorted(linked - ran)


CHILD = textwrap.dedent(
    """
    import dis, sys
    sys.path.insert(0, {examples!r})
    import depyf, torch, toy
    with depyf.prepare_debug({dump!r}) as session:
        toy.run({backend!r})
    record = next(r for r in session.records if r.name == "toy_example")
    assert record.linked, (record.verdict, record.reason)
    lines = sorted({{l for _, l in dis.findlinestarts(record.code)
                    if l is not None and l > record.code.co_firstlineno}})
    print("DUMPFILE", record.path, lines[0], flush=True)
    with depyf.debug():
        results = toy.run({backend!r})
    for got, want in results:
        torch.testing.assert_close(got, want)
    print("CHILD DONE", flush=True)
    """
)


@pytest.mark.parametrize("backend", ["eager", "inductor"])
def test_pdb_stops_in_dumped_file(tmp_path, backend):
    script = tmp_path / "child.py"
    script.write_text(
        CHILD.format(examples=str(ROOT / "examples"), dump=str(tmp_path / "dump"), backend=backend)
    )
    env = dict(os.environ, PYTHONBREAKPOINT="pdb.set_trace")
    proc = subprocess.Popen(
        [sys.executable, "-u", str(script)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
        text=True, env=env,
    )
    timer = threading.Timer(600, proc.kill)
    timer.start()
    out = []
    try:
        target = None
        for line in proc.stdout:
            out.append(line)
            if line.startswith("DUMPFILE "):
                _, path, lineno = line.split()
                target = (path, int(lineno))
                break
        assert target, "".join(out)
        # The pause of depyf.debug(): set a breakpoint in the dump, continue; once it is
        # hit, print a local to show we are in that frame, and continue to the end.
        proc.stdin.write(f"b {target[0]}:{target[1]}\nc\np 'HIT', __name__\ncl 1\nc\n")
        proc.stdin.flush()
        proc.stdin.close()
        rest = proc.stdout.read()
        out.append(rest)
        rc = proc.wait()
    finally:
        timer.cancel()
        proc.kill()
    text = "".join(out)
    assert rc == 0, text
    assert f"> {target[0]}({target[1]})toy_example()" in text, text
    assert "('HIT'," in text, text
    assert "CHILD DONE" in text, text


def make_scaled(scale):
    """A closure with a graph break: Dynamo passes the closure cells to the factory of
    its resume functions, and keeps `scale` as a free variable of each of them."""

    def scaled(x, *args, k=1, **kw):
        y = x * scale
        if y.sum() > 0:
            y = y + k
        return y * scale

    return scaled


def _run_closure():
    torch.manual_seed(0)
    fn = torch.compile(make_scaled(3.0), backend="eager")
    results = []
    for sign in (1, -1):
        x = torch.randn(5).abs() * sign
        results.append((fn(x, 1, k=2), make_scaled(3.0)(x, 1, k=2)))
    return results


@pytest.fixture(scope="module")
def closure_dump(tmp_path_factory):
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path_factory.mktemp("closure"))) as session:
        results = _run_closure()
    yield session, results
    torch._dynamo.reset()


def test_closure_outputs_equal_eager(closure_dump, monkeypatch):
    session, results = closure_dump
    _assert_close(results)
    assert {r.name for r in session.records} >= {"scaled"}
    for record in session.records:
        assert record.linked or record.reason, record
        assert record.transformed.co_freevars == ("scale",)
        if record.linked:
            assert record.code.co_freevars == ("scale",)
    monkeypatch.setenv("PYTHONBREAKPOINT", "0")
    with depyf.debug():
        _assert_close(_run_closure())


def test_closure_all_linked(closure_dump):
    session, _ = closure_dump
    assert all(r.linked for r in session.records), [
        (r.name, r.reason) for r in session.records if not r.linked
    ]


def test_install_logs_decompiled_source(monkeypatch):
    logged = []

    class Logger:
        def debug(self, fmt, *args):
            logged.append(fmt % args)

    monkeypatch.setattr(compat, "bytecode_logger", lambda: Logger())
    torch._dynamo.reset()
    depyf.install()
    depyf.install()  # idempotent
    try:
        a, b = torch.ones(3), -torch.ones(3)
        torch.testing.assert_close(
            torch.compile(toy.toy_example, backend="eager")(a, b), toy.toy_example(a, b)
        )
    finally:
        depyf.uninstall()
        depyf.uninstall()
        torch._dynamo.reset()
    assert any("def toy_example(a, b):" in text for text in logged), logged
    assert len([t for t in logged if "def toy_example(" in t]) == 1
