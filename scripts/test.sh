#!/usr/bin/env bash
# The tests: set up .venv and build depyf (as scripts/main.sh), then the Rust tests and
# pytest (torch tests included: torch is installed by the set-up, so none may skip).
# Extra arguments go to pytest. Exits non-zero on any failure.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"

echo "== cargo test --workspace"
cargo test --workspace --quiet </dev/null

echo "== pytest"
# One Inductor compile worker: the subprocess pool costs more than it saves on 2 cores.
export TORCHINDUCTOR_COMPILE_THREADS="${TORCHINDUCTOR_COMPILE_THREADS:-1}"
export DEPYF_FAIL_ON_SKIP=1
status=0
"$PY" -m pytest -ra "$@" </dev/null || status=$?
if [ "$status" -eq 5 ]; then
    echo "error: pytest collected no tests (exit 5); treating that as a failure" >&2
    exit 1
fi
exit "$status"
