"""`depyf decompile` against the original pure-Python depyf 0.20.0, per CPython version.

For each version with an interpreter, the standard library of that interpreter is
compiled (compile() only, nothing is imported or run) into a temporary tree of .pyc
files. Then, on that same set:

- ours: `depyf decompile TREE -o OUT --json -j 1` (one thread: functions per second per
  core, from the child's CPU time, user and kernel; `--repeat` runs, the median counts,
  the best is shown beside it, and the kernel's share of the median run: creating the
  output files); the same with the output in memory (`/dev/shm`, where there is one:
  the "in RAM" columns, without the disk filesystem's cost of creating files); and once
  more with every core (wall clock);
- every run writes into a directory of its own, and nothing the bench makes (trees,
  outputs) is deleted before the last version is measured: on ext4 without a journal,
  allocating an inode checks every free one before it that was deleted in the last
  60 to 360 seconds (`recently_deleted()` in `fs/ext4/ialloc.c`), so a run made right
  after the bench deleted the previous run's 600 files paid for those deletions in
  kernel time (up to half of its CPU time, measured on this project's machine);
- the original: in a venv of the same version with `depyf==0.20.0` installed, every
  function code object of every file (all code objects but the modules) is given to
  `depyf.decompile(code)` one by one, timed with `time.process_time`; a function that
  takes longer than `--orig-limit` seconds (some loop for ever) counts as failed and
  its time is left out.

Prints a table: functions, functions/s of both, the ratio, and failures of both.

    python benches/cli_vs_original.py --orig-venvs DIR [--make-venvs] [--files N] [--repeat 3]
        [--versions 3.11,3.12] [--python 3.14=PATH] [--depyf target/release/depyf]

`--depyf` is the binary measured: the plain release build by default; the figures in
README.md are of the profile-guided build that `scripts/build_pgo.py` makes
(`target/pgo/release/depyf`, about 4-5% less CPU time), with the plain build's beside
them.

`--orig-venvs DIR` holds one venv per version, `DIR/3.12`, ...; with `--make-venvs`
missing ones are created there and `depyf==0.20.0` is installed into them (keep DIR
out of the repository). Versions without such a venv are measured for ours only.
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time

VERSIONS = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Python source run by a target interpreter (prepended to the scripts below):
# `compile_into(root, rels, dest, limit)` compiles the files `rels` (relative to `root`,
# in order, the first `limit` that compile, 0: all) into .pyc files under `dest` laid
# out as `__pycache__` trees, compile() only, skipping what this version cannot compile
# or read; returns how many it wrote.
COMPILE_INTO = r"""
import importlib.util, marshal, os, sys
def compile_into(root, rels, dest, limit=0):
    done = 0
    for rel in rels:
        if limit and done >= limit:
            break
        path = os.path.join(root, rel)
        try:
            with open(path, "rb") as f:
                code = compile(f.read(), path, "exec", dont_inherit=True)
        except (SyntaxError, ValueError, UnicodeDecodeError, OSError):
            continue  # OSError: a dangling link (Debian's sitecustomize.py)
        out = os.path.join(dest, os.path.dirname(rel), "__pycache__", os.path.basename(rel)[:-3] + "." + sys.implementation.cache_tag + ".pyc")
        os.makedirs(os.path.dirname(out), exist_ok=True)
        with open(out, "wb") as f:
            f.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(code))
        done += 1
    return done
"""

# Run by the target interpreter: compiles its stdlib into DEST (sorted, first N files).
COMPILE_STDLIB = COMPILE_INTO + r"""
import sysconfig
dest, limit = sys.argv[1], int(sys.argv[2])
root = sysconfig.get_paths()["stdlib"]
skip = {"test", "tests", "idle_test", "site-packages", "dist-packages", "lib2to3", "turtledemo", "__pycache__"}
files = []
for d, dirs, names in os.walk(root):
    dirs[:] = sorted(x for x in dirs if x not in skip)
    files += [os.path.join(d, n) for n in sorted(names) if n.endswith(".py")]
files.sort()
print(compile_into(root, [os.path.relpath(f, root) for f in files], dest, limit))
"""

# Run by the original depyf's venv: per function, depyf.decompile(code).
ORIGINAL = r"""
import json, marshal, os, sys, time, types, warnings
warnings.simplefilter("ignore")
import depyf
root = sys.argv[1]
codes = []
def walk(c):
    for k in c.co_consts:
        if isinstance(k, types.CodeType):
            codes.append(k)
            walk(k)
for d, dirs, names in os.walk(root):
    dirs.sort()
    for n in sorted(names):
        if n.endswith(".pyc"):
            with open(os.path.join(d, n), "rb") as f:
                walk(marshal.loads(f.read()[16:]))
# Some functions make the original loop for ever: each gets LIMIT seconds, and a
# function that runs out counts as failed and its time is left out (in its favour).
import signal
LIMIT = float(sys.argv[2])
class Timeout(BaseException):  # not an Exception: the original catches those
    pass
armed = [False]
def on_alarm(*_):
    if armed[0]:
        raise Timeout()
signal.signal(signal.SIGALRM, on_alarm)
failed = timeouts = 0
seconds = 0.0
for c in codes:
    start = time.process_time()
    armed[0] = True
    signal.setitimer(signal.ITIMER_REAL, LIMIT, LIMIT / 10)  # fires again if swallowed
    try:
        depyf.decompile(c)
        ok = True
    except Timeout:
        ok = None
    except Exception:
        ok = False
    armed[0] = False
    signal.setitimer(signal.ITIMER_REAL, 0)
    if ok is None:
        timeouts += 1
        continue
    failed += not ok
    seconds += time.process_time() - start
print(json.dumps({"functions": len(codes), "failed": failed + timeouts, "timeouts": timeouts, "seconds": seconds}))
"""


def find_python(version, explicit):
    if version in explicit:
        return explicit[version]
    exe = shutil.which("python" + version)
    candidates = [exe] if exe else []
    root = os.environ.get("PYENV_ROOT", os.path.expanduser("~/.pyenv"))
    vdir = os.path.join(root, "versions")
    if os.path.isdir(vdir):
        for name in sorted(os.listdir(vdir), reverse=True):
            if name.startswith(version + "."):
                candidates.append(os.path.join(vdir, name, "bin", "python" + version))
    for c in candidates:
        try:
            out = subprocess.run([c, "-c", "import sys; print('%d.%d' % sys.version_info[:2])"], capture_output=True, text=True, timeout=60)
        except OSError:
            continue
        if out.returncode == 0 and out.stdout.strip() == version:
            return c
    return None


def original_python(venvs, version, python, make):
    if not venvs:
        return None
    venv = os.path.join(venvs, version)
    py = os.path.join(venv, "bin", "python")
    if not os.path.exists(py) and make:
        # An interpreter without ensurepip (Debian's unpacked 3.14/3.15) makes no venv:
        # the row then has no original figures, as for a version depyf 0.20.0 lacks.
        made = subprocess.run([python, "-m", "venv", venv], capture_output=True, text=True)
        if made.returncode != 0:
            print(f"{version}: no venv for the original ({made.stderr.strip().splitlines()[-1:] or ['python -m venv failed']})", file=sys.stderr)
            return None
        subprocess.run([py, "-m", "pip", "install", "-q", "depyf==0.20.0"], check=False)
    if os.path.exists(py) and subprocess.run([py, "-c", "import depyf"], capture_output=True).returncode == 0:
        return py
    return None


def run_ours(depyf, tree, out, jobs):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([depyf, "decompile", tree, "-o", out, "--json", "-j", str(jobs)], capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if p.returncode not in (0, 1, 2):
        raise SystemExit(f"depyf decompile failed ({p.returncode}): {p.stderr[-2000:]}")
    summary = json.loads(p.stdout)
    user, system = after.ru_utime - before.ru_utime, after.ru_stime - before.ru_stime
    return summary, (user + system, system), wall


def measure(args, version, explicit, scratch, mem_scratch):
    """One row of the table for `version`, or None without an interpreter. The trees
    and outputs go under `scratch` (and `mem_scratch`, in memory), one directory per run."""
    python = find_python(version, explicit)
    if not python:
        print(f"{version}: no interpreter, skipped", file=sys.stderr)
        return None
    tree = os.path.join(scratch, version, "pyc")
    outs = (os.path.join(scratch, version, f"out{i}") for i in range(1000))
    n = subprocess.run([python, "-c", COMPILE_STDLIB, tree, str(args.files)], capture_output=True, text=True, check=True).stdout.strip()
    cpus = []
    for _ in range(max(args.repeat, 1)):
        summary, cpu, _ = run_ours(args.depyf, tree, next(outs), 1)
        cpus.append(cpu)
    cpus.sort()
    (cpu, system), best = cpus[len(cpus) // 2], cpus[0][0]
    # The same runs with the output in memory (tmpfs), where there is one: the
    # decompiler's own figure, without the disk filesystem's cost of creating files.
    mem_cpus = []
    if mem_scratch:
        for i in range(max(args.repeat, 1)):
            mem_cpus.append(run_ours(args.depyf, tree, os.path.join(mem_scratch, version, f"out{i}"), 1)[1])
        mem_cpus.sort()
    _, _, wall_all = run_ours(args.depyf, tree, next(outs), 0)
    functions = summary["totals"]["functions"]
    row = {
        "version": version,
        "files": int(n),
        "functions": functions,
        "ours_failed": summary["totals"]["failed"],
        "ours_modules_failed": sum(1 for f in summary["files"] for x in f["failures"] if x["qualname"] == "<module>"),
        "ours_fps_per_core": functions / cpu if cpu else 0.0,
        "ours_fps_per_core_best": functions / best if best else 0.0,
        "ours_kernel_share": system / cpu if cpu else 0.0,
        "ours_fps_per_core_mem": functions / mem_cpus[len(mem_cpus) // 2][0] if mem_cpus else None,
        "ours_kernel_share_mem": mem_cpus[len(mem_cpus) // 2][1] / mem_cpus[len(mem_cpus) // 2][0] if mem_cpus else None,
        "ours_fps_all_cores": functions / wall_all if wall_all else 0.0,
    }
    orig = original_python(args.orig_venvs, version, python, args.make_venvs)
    if orig:
        p = subprocess.run([orig, "-c", ORIGINAL, tree, str(args.orig_limit)], capture_output=True, text=True)
        if p.returncode == 0:
            o = json.loads(p.stdout.strip().splitlines()[-1])
            row["orig_functions"] = o["functions"]
            row["orig_failed"] = o["failed"]
            row["orig_timeouts"] = o["timeouts"]
            row["orig_fps"] = o["functions"] / o["seconds"] if o["seconds"] else 0.0
        else:
            print(f"{version}: the original depyf failed to run: {p.stderr[-500:]}", file=sys.stderr)
    return row


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--depyf", default=os.path.join(REPO, "target", "release", "depyf"))
    ap.add_argument("--orig-venvs", default=os.environ.get("DEPYF_ORIG_VENVS"), help="one venv per version with depyf==0.20.0: DIR/3.12, ...")
    ap.add_argument("--make-venvs", action="store_true", help="create missing venvs in --orig-venvs")
    ap.add_argument("--versions", default=",".join(VERSIONS))
    ap.add_argument("--python", action="append", default=[], metavar="X.Y=PATH")
    ap.add_argument("--files", type=int, default=0, help="first N stdlib files only (0: all)")
    ap.add_argument("--json", help="write the figures here")
    ap.add_argument("--repeat", type=int, default=3, help="one-thread runs of ours; the median CPU time counts (best shown too)")
    ap.add_argument("--orig-limit", type=float, default=2.0, help="seconds the original may spend on one function")
    args = ap.parse_args()
    explicit = dict(a.split("=", 1) for a in args.python)
    if not os.path.exists(args.depyf):
        raise SystemExit(f"{args.depyf} not found: cargo build --release -p depyf_cli")
    rows = []
    # (Deleted at the end only: see the module's doc on ext4's recently deleted inodes.)
    scratch = tempfile.mkdtemp(prefix="depyf-bench-")
    mem_scratch = tempfile.mkdtemp(dir="/dev/shm", prefix="depyf-bench-") if os.path.isdir("/dev/shm") and os.access("/dev/shm", os.W_OK) else None
    try:
        for version in args.versions.split(","):
            row = measure(args, version, explicit, scratch, mem_scratch)
            if row:
                rows.append(row)
                print(json.dumps(row), file=sys.stderr)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        if mem_scratch:
            shutil.rmtree(mem_scratch, ignore_errors=True)
    print(f"ours: {os.path.relpath(args.depyf, REPO) if os.path.abspath(args.depyf).startswith(REPO + os.sep) else args.depyf}")
    print(f"{'version':>7} {'files':>6} {'functions':>9} {'ours f/s/core':>13} {'(best)':>7} {'kernel':>6} {'in RAM':>7} {'kernel':>6} {'ours f/s all':>12} {'orig f/s':>9} {'ratio':>7} {'ours failed':>11} {'orig failed':>11}")
    for r in rows:
        orig = r.get("orig_fps")
        ratio = f"{r['ours_fps_per_core'] / orig:7.1f}" if orig else "    n/a"
        mem = f"{r['ours_fps_per_core_mem']:>7.0f} {r['ours_kernel_share_mem']:>6.0%}" if r["ours_fps_per_core_mem"] else f"{'n/a':>7} {'':>6}"
        print(
            f"{r['version']:>7} {r['files']:>6} {r['functions']:>9} {r['ours_fps_per_core']:>13.0f} {r['ours_fps_per_core_best']:>7.0f} "
            f"{r['ours_kernel_share']:>6.0%} {mem} {r['ours_fps_all_cores']:>12.0f} "
            f"{orig if orig else float('nan'):>9.0f} {ratio} {r['ours_failed']:>11} {r.get('orig_failed', 'n/a'):>11}"
        )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(rows, f, indent=1)


if __name__ == "__main__":
    main()
