#!/usr/bin/env bash
# The tests: set up .venv and build depyf (as scripts/main.sh), then the Rust tests,
# pytest on the set-up Python (torch tests included: torch is installed by the set-up, so
# none may skip), and the whole end-to-end torch suite on each other target Python
# (scripts/_torch_pythons.sh; DEPYF_TORCH_PYTHONS="" skips them, e.g. "3.12 3.13" picks
# some). Prints the overhead benchmark and the wall time. Extra arguments go to the first pytest. Exits non-zero on
# any failure.
set -euo pipefail
START=$(date +%s)
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
. "$ROOT/scripts/_torch_pythons.sh"
# Every CPython 3.8-3.15 for the tests that run the interpreters themselves (the semantic
# suite, `depyf dis` against `dis`, compiler-made functions): 3.14 and 3.15 are unpacked from
# Debian's packages under target/ when they are nowhere else. Each found one is exported as
# DEPYF_PYTHON_3_X, which those tests read first; a missing one fails the run below.
missing=""
for version in 3.8 3.9 3.10 3.11 3.12 3.13 3.14 3.15; do
    if py="$(find_python "$version")"; then
        export "DEPYF_PYTHON_${version/./_}=$py"
    else
        missing="$missing $version"
    fi
done
if [ -n "$missing" ]; then
    tool="${DEPYF_PYTHON_FROM_DEBIAN:-$ROOT/../shared/tools/python-from-debian.sh}"
    echo "error: no interpreter for CPython$missing" >&2
    for version in $missing; do
        echo "  $version: looked at \$PYTHON${version/./_}, \`pyenv prefix $version\`, python$version on PATH and $ROOT/target/python$version" >&2
    done
    if [ -f "$tool" ]; then
        echo "  the Debian unpacker $tool ran and failed (its output is above)" >&2
    else
        echo "  the Debian unpacker is not at $tool (set DEPYF_PYTHON_FROM_DEBIAN to its path)" >&2
    fi
    echo "  or point PYTHON3_X (e.g. PYTHON3_14=/usr/bin/python3.14) at an interpreter" >&2
    exit 1
fi
export DEPYF_REQUIRE_ALL_PYTHONS=1

# The interpreters are looked for first, so that a missing one stops the run before the
# set-up's minutes of installing and building.
. "$ROOT/scripts/_setup.sh"

echo "== cargo test --workspace"
cargo test --workspace --quiet </dev/null

echo "== pytest ($("$PY" -c 'import sys, torch; print(sys.version.split()[0], "torch", torch.__version__)'))"
# One Inductor compile worker: the subprocess pool costs more than it saves on 2 cores.
export TORCHINDUCTOR_COMPILE_THREADS="${TORCHINDUCTOR_COMPILE_THREADS:-1}"
export DEPYF_FAIL_ON_SKIP=1
STATS="$ROOT/target/torch_suite_stats.jsonl"
mkdir -p "$ROOT/target" && rm -f "$STATS"
export DEPYF_SUITE_STATS="$STATS"
status=0
"$PY" -m pytest -ra -p no:cacheprovider "$@" </dev/null || status=$?
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests (exit 5); treating that as a failure" >&2
    status=1
fi

for version in ${DEPYF_TORCH_PYTHONS-3.10 3.12 3.13 3.14 3.15}; do
    echo "== torch end-to-end suite on Python $version"
    if ! torch_python_venv "$version"; then
        echo "error: could not set up Python $version with torch" >&2
        status=1
        continue
    fi
    "$TORCH_VENV/bin/python" -m pytest -q -ra -p no:cacheprovider \
        tests/torch/test_programs.py tests/torch/test_debugpy.py </dev/null || status=1
done

echo "== prepare_debug overhead (same runs)"
[ -f "$STATS" ] && "$PY" scripts/torch_overhead.py "$STATS" || true
echo "== wall time: $(( $(date +%s) - START )) s"
exit "$status"
