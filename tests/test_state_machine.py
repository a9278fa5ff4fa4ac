"""The state-machine fallback (crates/depyf_decompile/src/state_machine.rs) on
hand-made bytecode whose control flow no structure fits: a jump from before a
`while` loop into the middle of its body (an irreducible loop), made with
`CodeType.replace` on every CPython 3.9+ found here (tests/state_machine_probe.py
runs in each), also with comprehensions in the loop (inlined on 3.12+, PEP 709, each
with a protected range that only restores the locals it hides). The decompiled
source must be a state machine that compiles and gives the original's results, also
with the fallback forced (`DEPYF_FORCE_STATE_MACHINE`). A loop holding a `try` or
`with` stays a DecompilationError that says why where no structure fits it.
"""

import json
import os
import re
import subprocess

import pytest

from test_semantics import PYTHONS, ROOT

PROBE = os.path.join(ROOT, "tests", "state_machine_probe.py")
VERSIONS = [v for v in PYTHONS if v != "3.8" and PYTHONS[v]]


# Irreducible loops that also hold list/set/dict comprehensions (with a condition,
# nested, binding a name live around them, a cell a lambda captures, in a
# generator, in an inner loop entered in its middle): inlined on CPython 3.12+
# (PEP 709), each with a protected range of its own, which the state machine must
# cover.
COMPS = ("comp_list", "comp_set_dict", "comp_nested", "comp_cells", "comp_generator", "comp_inner_loop")
# Irreducible loops holding a `try` or a `with`: other protected ranges.
HANDLERS = ("with_try", "with_with")


def _probe(version, forced):
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    env.pop("DEPYF_FORCE_STATE_MACHINE", None)
    if forced:
        env["DEPYF_FORCE_STATE_MACHINE"] = "1"
    out = subprocess.run([PYTHONS[version], PROBE], capture_output=True, text=True, env=env, timeout=120)
    assert out.returncode == 0, out.stderr
    results = {r["name"]: r for r in json.loads(out.stdout)}
    assert set(results) == {"into_loop", "into_loop_continue", "into_loop_after_for", "into_loop_generator"} | set(COMPS) | set(HANDLERS)
    for name, r in results.items():
        if name in HANDLERS and "error" in r:
            # An irreducible loop with a `try`/`with` in it: no state machine, and
            # the error says why (CPython 3.10-3.13; 3.9 and 3.14+ structure it).
            assert version in ("3.10", "3.11", "3.12", "3.13"), r
            # Named at the branch or jump of the block being structured.
            assert re.match(r"[A-Z_]+: control flow too tangled to structure", r["error"]), r
            assert re.search(r"; no state-machine fallback for code with exception handling \(in %s at offset [1-9][0-9]*," % name, r["error"]), r
            continue
        assert "error" not in r, r
        assert r["same"], (r["expected"], r["got"], r["source"])
    # Real values: the jump into the loop skips `t += n` once.
    assert results["into_loop"]["got"][0] == ["ok", "1003"]
    assert results["into_loop_continue"]["got"][0] == ["ok", "1009"]
    assert results["into_loop_generator"]["got"][1] == ["ok", "[1, 3, -6]"]
    # (a=1, n=0, xs=[1, 2, 3]): 1000, `n -= 1`, + sum([2, 6]) + 7, + 2.
    assert results["comp_list"]["got"][0] == ["ok", "(1017, 7)"]
    assert results["comp_nested"]["got"][1] == ["ok", "(1311, 'outer')"]
    return results


@pytest.mark.parametrize("version", VERSIONS)
def test_irreducible_loops_run_the_same(version):
    results = _probe(version, False)
    # Rotated loops (CPython 3.10-3.13) entered in the middle with a `continue`
    # in the body: no copy of code explains the flow, the state machine does.
    # (`into_loop` is structured by copying the rest of the loop, and so are all
    # on the top-tested loops of 3.9 and 3.14+.)
    if version in ("3.10", "3.11", "3.12", "3.13"):
        for name in ("into_loop_continue", "into_loop_after_for", "into_loop_generator") + COMPS:
            assert results[name]["machine"], results[name]["source"]
        for name in HANDLERS:
            assert "error" in results[name], results[name]["source"]


@pytest.mark.parametrize("version", VERSIONS)
def test_forced_state_machines_run_the_same(version):
    for name, r in _probe(version, True).items():
        if name not in HANDLERS:
            assert r["machine"], r["source"]
        elif "error" not in r:
            assert not r["machine"], r["source"]


FORCED_VERSION = "3.12"


@pytest.mark.skipif(not PYTHONS.get(FORCED_VERSION), reason="CPython %s not found" % FORCED_VERSION)
def test_semantic_cases_run_the_same_as_state_machines():
    """Every semantic case on CPython 3.12 with the fallback forced on every function
    it applies to (`DEPYF_FORCE_STATE_MACHINE`): the same results as without it (the
    known failures aside), and many of them are state machines. (The whole suite on
    every version passes the same way: run tests/test_semantics.py with the variable
    set.)"""
    import tempfile

    from test_semantics import RUNNER, known_failure

    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"), DEPYF_FORCE_STATE_MACHINE="1")
    with tempfile.TemporaryDirectory() as tmp:
        out_json = os.path.join(tmp, "sem.json")
        run = subprocess.run([PYTHONS[FORCED_VERSION], RUNNER, "--json", out_json], capture_output=True, text=True, env=env, timeout=600)
        assert run.returncode == 0, run.stderr
        with open(out_json) as fh:
            records = json.load(fh)["records"]
    failed = [r["id"] for r in records if r["status"] != "pass" and not known_failure(r["id"], FORCED_VERSION)]
    assert failed == [], failed
    machines = sum("__depyf_state__" in (r.get("source") or "") for r in records)
    assert machines >= 150, machines
