"""Semantic suite: every case of tests/semantics/cases/ decompiled, recompiled and run on
every CPython 3.8-3.15 found here, one test per (version, case).

Each interpreter runs scripts/run_semantics.py in a subprocess (all at once), so this
file, run by any interpreter, covers them all. 3.9+ decompile through the extension
(`PYTHONPATH=<repo>/python`, built by `maturin develop`); 3.8 cannot load it and uses the
`depyf-sem` binary of crates/depyf_test_support, built here with cargo.

Interpreters are found as $DEPYF_PYTHON_3_X (scripts/test.sh exports one per version),
`pyenv prefix 3.X`, `python3.X` on PATH, or the `usr/bin/python3.X` that
../shared/tools/python-from-debian.sh unpacks (under `target/python3.X/root`, where
scripts/_torch_pythons.sh has it put, or `../scratch/py3X/root` beside the repository).
Versions without one are named in the summary and not tested; with
DEPYF_REQUIRE_ALL_PYTHONS=1 (set by scripts/test.sh, hence CI) a missing one fails.

Known failures are listed in tests/semantics/known_failures.py and marked
xfail(strict=True): a fix makes them XPASS, which fails, so the list shrinks with the
decompiler. The summary at the end gives per version: passed, known failures, failed,
and the share of recompiled functions `depyf._core.compare` finds identical (reported,
not asserted).
"""

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

import pytest

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
RUNNER = os.path.join(ROOT, "scripts", "run_semantics.py")
CASES_DIR = os.path.join(ROOT, "tests", "semantics", "cases")
VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
RUN_TIMEOUT = 150

sys.path.insert(0, os.path.join(ROOT, "tests", "semantics"))
from known_failures import KNOWN_FAILURES  # noqa: E402

del sys.path[0]


def _works(python, version):
    try:
        out = subprocess.run(
            [python, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=20,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return out.returncode == 0 and out.stdout.strip() == version


def find_python(version):
    """The interpreter of `version` ("3.X"), or None."""
    env = os.environ.get("DEPYF_PYTHON_" + version.replace(".", "_"))
    candidates = [env] if env else []
    if shutil.which("pyenv"):
        out = subprocess.run(["pyenv", "prefix", version], capture_output=True, text=True)
        if out.returncode == 0 and out.stdout.strip():
            candidates.append(os.path.join(out.stdout.strip().splitlines()[0], "bin", "python" + version))
    candidates.append(shutil.which("python" + version))
    tag = version.replace(".", "")
    for unpacked in (os.path.join(ROOT, "target", "python" + version), os.path.join(ROOT, "..", "scratch", "py" + tag)):
        candidates.append(os.path.join(unpacked, "root", "usr", "bin", "python" + version))
    for c in candidates:
        if c and os.path.exists(c) and _works(c, version):
            return c
    return None


PYTHONS = {v: find_python(v) for v in VERSIONS}
PRESENT = [v for v in VERSIONS if PYTHONS[v]]

_MIN = re.compile(r"#\s*semantics:\s*min-version\s+3\.(\d+)")
_DECO = re.compile(r"^( *)@(method_|driven_)?case\(")
_DEF = re.compile(r"^( *)(?:async )?def (\w+)")
_CLASS = re.compile(r"^class (\w+)")


def case_ids():
    """[(id, min minor version)] read from the case files without importing them (some
    use syntax this interpreter lacks); ids are `<file stem>.<qualname>` like the
    runner's."""
    out = []
    for name in sorted(os.listdir(CASES_DIR)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(CASES_DIR, name), encoding="utf-8") as fh:
            lines = fh.read().splitlines()
        m = _MIN.match(lines[0]) if lines else None
        minor = int(m.group(1)) if m else 8
        cls, pending = None, None
        for line in lines:
            c = _CLASS.match(line)
            if c:
                cls = c.group(1)
            d = _DECO.match(line)
            if d:
                pending = d.group(1)
                continue
            f = _DEF.match(line)
            if f and pending is not None and f.group(1) == pending:
                qual = f.group(2) if not pending else "%s.%s" % (cls, f.group(2))
                out.append(("%s.%s" % (name[:-3], qual), minor))
                pending = None
            elif f and not f.group(1):
                cls = None
    return out


CASES = case_ids()


def known_failure(case, version):
    for versions, reason in KNOWN_FAILURES.get(case, {}).items():
        if versions == "all" or version in versions.split():
            return reason
    return None


def _params():
    out = []
    for v in PRESENT:
        for cid, minor in CASES:
            if int(v.split(".")[1]) < minor:
                continue
            reason = known_failure(cid, v)
            # Only a test failure (pytest.fail) is the expected one: any other exception,
            # such as the stale-reason check of test_semantics, fails the run.
            marks = [pytest.mark.xfail(strict=True, reason=reason, raises=pytest.fail.Exception)] if reason else []
            out.append(pytest.param(v, cid, marks=marks, id="py%s-%s" % (v, cid)))
    return out


def _sem_tool():
    """Builds the depyf-sem binary (CPython 3.8's decompiler) and returns its path."""
    cargo = shutil.which("cargo")
    if cargo is None:
        return None
    subprocess.run(
        [cargo, "build", "-q", "-p", "depyf_test_support", "--bin", "depyf-sem"],
        cwd=ROOT, check=True, stdin=subprocess.DEVNULL,
    )
    meta = subprocess.run(
        [cargo, "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return os.path.join(json.loads(meta.stdout)["target_directory"], "debug", "depyf-sem")


@pytest.fixture(scope="module")
def results(request):
    """{version: {case id: record}} from one runner per interpreter, run in parallel."""
    tmp = tempfile.mkdtemp(prefix="depyf-sem-")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([os.path.join(ROOT, "python")] + [p for p in [env.get("PYTHONPATH")] if p])
    if "3.8" in PRESENT:
        # $DEPYF_SEM_TOOL names a depyf-sem binary built already (e.g. --release).
        tool = env.get("DEPYF_SEM_TOOL") if os.path.isfile(env.get("DEPYF_SEM_TOOL") or "") else _sem_tool()
        if tool:
            env["DEPYF_SEM_TOOL"] = tool
    procs = {}
    for v in PRESENT:
        out = os.path.join(tmp, v + ".json")
        procs[v] = (subprocess.Popen(
            [PYTHONS[v], RUNNER, "--json", out], env=env, cwd=ROOT,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, text=True,
        ), out)
    found, logs = {}, {}
    for v, (proc, out) in procs.items():
        try:
            logs[v] = proc.communicate(timeout=RUN_TIMEOUT)[0]
        except subprocess.TimeoutExpired:
            proc.kill()
            logs[v] = proc.communicate()[0] + "\n(timed out)"
        found[v] = {}
        if os.path.exists(out):
            with open(out, encoding="utf-8") as fh:
                found[v] = {r["id"]: r for r in json.load(fh)["records"]}
    shutil.rmtree(tmp, ignore_errors=True)
    yield found, logs
    _summary(request, found)


def _summary(request, found):
    reporter = request.config.pluginmanager.get_plugin("terminalreporter")
    capture = request.config.pluginmanager.get_plugin("capturemanager")
    if reporter is None:
        return
    if capture is not None:
        # Fixture teardown runs under output capture; the summary is for the terminal.
        with capture.global_and_fixture_disabled():
            _write_summary(reporter, found)
    else:
        _write_summary(reporter, found)


def _write_summary(reporter, found):
    reporter.write_line("")
    reporter.write_line("semantic suite (passed / known failures / failed; identical after recompiling):")
    for v in VERSIONS:
        if v not in found:
            reporter.write_line("  CPython %-5s not present" % v)
            continue
        recs = found[v].values()
        passed = sum(r["status"] == "pass" for r in recs)
        known = sum(r["status"] == "fail" and known_failure(r["id"], v) is not None for r in recs)
        failed = len(recs) - passed - known
        identical = sum(r["verdict"] == "identical" for r in recs)
        reporter.write_line("  CPython %-5s %3d passed / %3d known failures / %3d failed of %3d; identical %3d/%d (%.1f%%)" % (
            v, passed, known, failed, len(recs), identical, len(recs), 100.0 * identical / max(1, len(recs))))


def test_every_version_present_when_required():
    """Under DEPYF_REQUIRE_ALL_PYTHONS=1 (CI) every CPython 3.8-3.15 must be found: a
    missing one would otherwise drop its cases silently."""
    missing = [v for v in VERSIONS if not PYTHONS[v]]
    if os.environ.get("DEPYF_REQUIRE_ALL_PYTHONS") == "1":
        assert not missing, "no interpreter for CPython %s (see find_python)" % ", ".join(missing)


def test_every_runner_covered_every_case(results):
    found, logs = results
    for v in PRESENT:
        want = {cid for cid, minor in CASES if int(v.split(".")[1]) >= minor}
        got = set(found[v])
        assert got == want, "CPython %s: runner ids differ from collected ids (missing %s, extra %s)\n%s" % (
            v, sorted(want - got)[:5], sorted(got - want)[:5], logs[v][-3000:])


def test_enough_cases():
    assert len(CASES) >= 200


@pytest.mark.parametrize("version, case", _params())
def test_semantics(results, version, case):
    found, logs = results
    rec = found[version].get(case)
    assert rec is not None, "CPython %s produced no result for %s:\n%s" % (version, case, logs[version][-3000:])
    reason = known_failure(case, version)
    if rec["status"] != "pass" and reason and rec["stage"] != "decompile" and "wrong code" not in reason:
        # A known failure listed as a refusal that produced code (which then did not
        # compile or computed something else): a stale reason must not hide wrong
        # code, so this is an error, not the expected failure (see _params).
        raise AssertionError("known failure %r listed as a refusal, but the decompiled code failed at %s: %s" % (
            reason, rec["stage"], rec["detail"]))
    if rec["status"] != "pass":
        pytest.fail("[%s] %s\n--- decompiled ---\n%s" % (rec["stage"], rec["detail"], rec["source"] or ""), pytrace=False)


def test_enough_part2_cases():
    """Issue #5: at least 150 cases for exceptions, with, generators, async, match,
    except*, type parameters."""
    assert len([cid for cid, _ in CASES if cid.startswith("part2_")]) >= 150


def test_drivers_record_the_protocol():
    sys.path.insert(0, os.path.join(ROOT, "tests", "semantics"))
    try:
        import _sem
    finally:
        del sys.path[0]

    def gen(log):
        try:
            v = yield 1
        except ValueError as e:
            log.append(str(e))
            v = yield "caught"
        return v

    log = []
    trace = _sem.drive(("next",), ("throw", ValueError, "t"), ("send", 5), ("next",), ("close",))(gen(log))
    assert trace == [
        ("next", "yielded", 1),
        ("throw ValueError", "yielded", "caught"),
        ("send 5", "returned", 5),
        ("next", "returned", None),
        ("close", "closed", None),
    ]
    assert log == ["t"]

    async def agen():
        try:
            v = yield 1
            yield v * 2
        except KeyError:
            yield "k"

    trace = _sem.drive_async(("next",), ("send", 4), ("throw", KeyError, "x"), ("next",), ("list",))(agen())
    assert trace == [
        ("next", "yielded", 1),
        ("send 4", "yielded", 8),
        ("throw KeyError", "yielded", "k"),
        ("next", "stopped"),
        ("list", "rest", []),
    ]

    async def coro(x):
        return x + 1

    assert _sem.run_coroutine(coro(1)) == 2
