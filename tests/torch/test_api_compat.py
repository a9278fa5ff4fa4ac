"""The rest of the API, as users of the original depyf call it (needs torch).

Decompiler, explain.dump_src, optimization.TorchCompileWrapperWithCustomDispatcher,
``python -m depyf run``, per-rank subfolders, entry checks (torch version, unwritable
folder), stable names across runs, log_bytecode, install() with TORCH_LOGS=+bytecode.
"""

import inspect
import json
import marshal
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import depyf
from depyf.explain import _torch_compat as compat

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [os.path.join(ROOT, "python")] + [p for p in [env.get("PYTHONPATH")] if p]
    )
    return env


def gb(x):
    y = x.cos()
    print("depyf-compat: break")
    return y * 2


def test_decompiler_class_signature():
    sig = inspect.signature(depyf.Decompiler.decompile)
    assert list(sig.parameters) == ["self", "indentation", "temp_prefix", "overwite_fn_name"]
    src = depyf.Decompiler(gb.__code__).decompile(overwite_fn_name="renamed")
    assert src.startswith("def renamed(x):")
    assert "print(" in depyf.Decompiler(gb).decompile(indentation=2)
    code = depyf.Decompiler.decompile_and_compile_like(gb.__code__, gb.__code__)
    assert code.co_varnames[:1] == ("x",)


def test_dump_src_inside_prepare_debug(tmp_path):
    torch._dynamo.reset()
    fn = torch.compile(gb, backend="eager")
    with pytest.raises(AssertionError):
        depyf.explain.dump_src(gb.__code__, globals())
    with depyf.prepare_debug(str(tmp_path)):
        fn(torch.ones(2))
        text = depyf.explain.dump_src(gb.__code__, globals())
    assert "def __guard_0_for_gb(L, G, **___kwargs_ignored):" in text
    assert "torch_dynamo_resume_in_gb_at_" in text
    compile(text, "dump_src", "exec")


def test_custom_dispatcher():
    from depyf.optimization import TorchCompileWrapperWithCustomDispatcher

    sig = inspect.signature(TorchCompileWrapperWithCustomDispatcher.__init__)
    assert list(sig.parameters) == ["self", "compiled_callable", "use_custom_dispatcher"]

    class Model(TorchCompileWrapperWithCustomDispatcher):
        def __init__(self):
            self.w = torch.ones(3) * 2
            super().__init__(torch.compile(self.forward, backend="eager"))

        def forward(self, x):
            return x * self.w + 1

    torch._dynamo.reset()
    model = Model()
    x = torch.arange(3.0)
    want = x * 2 + 1
    torch.testing.assert_close(model(x), want)
    assert len(model.compiled_codes) == 1
    with model.dispatch_to_code(0):
        torch.testing.assert_close(model.forward(x), want)
    assert Model.forward.__code__ is model.original_code_object
    model._hook_handle.remove()


def test_stable_names_and_second_run_overwrites(tmp_path):
    def run():
        torch._dynamo.reset()
        with depyf.prepare_debug(str(tmp_path)) as session:
            torch.compile(gb, backend="aot_eager")(torch.ones(3))
        return session

    first = sorted(os.listdir(tmp_path))
    run()
    first = sorted(os.listdir(tmp_path))
    run()
    assert sorted(os.listdir(tmp_path)) == first
    assert not any(len(part) == 36 for name in first for part in name.split("_"))
    assert "full_code_for_gb.py" in first and "index.md" in first
    assert "__compiled_fn_0_0_for_gb.captured_graph.py" in first
    assert "__compiled_fn_0_0_for_gb.aot_inference_graph.py" in first
    index = json.loads((tmp_path / "index.json").read_text())
    assert any("print" in gb_ for c in index["compiles"] for gb_ in c["graph_breaks"])


def test_recompile_reasons_in_index(tmp_path):
    def f(x, n):
        return x * n

    torch._dynamo.reset()
    fn = torch.compile(f, backend="eager", dynamic=False)
    with depyf.prepare_debug(str(tmp_path)):
        fn(torch.ones(2), 2)
        fn(torch.ones(2), 3)
    index = json.loads((tmp_path / "index.json").read_text())
    reasons = [r for c in index["compiles"] for r in c["recompile_reasons"]]
    assert any("n" in r and "== 2" in r for r in reasons), reasons
    assert "compiled again because" in (tmp_path / "full_code_for_f.py").read_text()


def test_log_bytecode_writes_loadable_code(tmp_path):
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path), log_bytecode=True) as session:
        torch.compile(gb, backend="eager")(torch.ones(3))
    files = [f for r in session.records for f in r.bytecode_files]
    pycs = [f for f in files if f.endswith(".transformed.pyc")]
    assert pycs and any(f.endswith(".recompiled.pyc") for f in files)
    for path in pycs:
        with open(path, "rb") as fh:
            code = marshal.loads(fh.read()[16:])
        assert code.co_name in {r.name for r in session.records}


def test_unwritable_folder_is_reported_on_entry(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(OSError, match="cannot write the dump folder"):
        with depyf.prepare_debug(str(blocker / "dump")):
            pass


def test_unsupported_torch_is_reported_on_entry(tmp_path, monkeypatch):
    monkeypatch.setattr(compat, "torch_version", lambda: (2, 1))
    with pytest.raises(RuntimeError, match="does not support torch"):
        with depyf.prepare_debug(str(tmp_path)):
            pass


SCRIPT = textwrap.dedent(
    """
    import sys, torch
    @torch.compile(backend="eager")
    def h(x):
        return x.sin() + len(sys.argv)
    print("OUT", h(torch.zeros(2)).tolist(), sys.argv[1:])
    """
)


def test_python_m_depyf_run(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    dump = tmp_path / "dump"
    proc = subprocess.run(
        [sys.executable, "-m", "depyf", "run", str(script), "a", "--flag", "--dump-dir",
         str(dump)],
        capture_output=True, text=True, env=_env(), timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "OUT [3.0, 3.0] ['a', '--flag']" in proc.stdout
    assert (dump / "full_code_for_h.py").is_file()
    assert (dump / "__transformed_code_0_for_h.py").is_file()


def test_python_m_depyf_run_unwritable_folder_and_help(tmp_path):
    # An unwritable dump folder is one line and exit 2, and the script does not run;
    # --help prints the usage and what the options mean.
    script = tmp_path / "script.py"
    script.write_text(SCRIPT)
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    proc = subprocess.run(
        [sys.executable, "-m", "depyf", "run", str(script), "--dump-dir", str(blocker / "dump")],
        capture_output=True, text=True, env=_env(), timeout=600,
    )
    assert proc.returncode == 2, proc.stderr
    assert "OUT" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and "cannot write the dump folder" in lines[0], proc.stderr
    for args in (["--help"], ["run", "--help"], ["run", "-h"]):
        help_ = subprocess.run([sys.executable, "-m", "depyf", *args], capture_output=True, text=True, env=_env(), timeout=60)
        assert help_.returncode == 0, (args, help_.stderr)
        assert help_.stdout.startswith("usage: python -m depyf run") and "--dump-dir" in help_.stdout.split("\n", 1)[1]


RANKS = textwrap.dedent(
    """
    import sys, torch, torch.multiprocessing as mp, depyf

    def work(rank, dump):
        with depyf.prepare_debug(dump) as session:
            f = torch.compile(lambda x: x * (rank + 1), backend="eager")
            f(torch.ones(2))
        assert session.dump_dir.endswith(f"SpawnProcess-{rank + 1}"), session.dump_dir

    if __name__ == "__main__":
        mp.spawn(work, args=(sys.argv[1],), nprocs=2)
        print("RANKS DONE")
    """
)


def test_processes_get_their_own_subfolders(tmp_path):
    script = tmp_path / "ranks.py"
    script.write_text(RANKS)
    dump = tmp_path / "dump"
    env = _env()
    env.pop("RANK", None)
    proc = subprocess.run([sys.executable, str(script), str(dump)], capture_output=True,
                          text=True, env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert sorted(os.listdir(dump)) == ["SpawnProcess-1", "SpawnProcess-2"]
    for sub in os.listdir(dump):
        assert (dump / sub / "index.md").is_file()


def test_rank_from_environment(tmp_path, monkeypatch):
    monkeypatch.setenv("RANK", "3")
    torch._dynamo.reset()
    with depyf.prepare_debug(str(tmp_path)) as session:
        torch.compile(gb, backend="eager")(torch.ones(2))
    assert session.dump_dir == str(tmp_path / "rank_3")


INSTALL = textwrap.dedent(
    """
    import torch, depyf
    depyf.install()
    @torch.compile(backend="eager")
    def k(x):
        return x + 1
    k(torch.ones(2))
    depyf.uninstall()
    """
)


def test_install_with_torch_logs(tmp_path):
    script = tmp_path / "inst.py"
    script.write_text(INSTALL)
    env = _env()
    env["TORCH_LOGS"] = "+bytecode"
    proc = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                          env=env, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    log = proc.stderr
    assert "depyf: decompiled code that Dynamo made for k" in log, log[-3000:]
    assert log.index("MODIFIED BYTECODE") < log.index("depyf: decompiled code")
