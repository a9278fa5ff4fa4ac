# Shared set-up for scripts/main.sh and scripts/test.sh (sourced, not run).
# Creates .venv if missing, installs torch, maturin and pytest only when they are missing,
# and builds depyf._core into the source tree with `maturin develop` (incremental: cargo
# rebuilds only what changed). Needs a CPython >= 3.11 (torch 2.15 has wheels for
# 3.11-3.15; override with PYTHON=...) and Rust (cargo on PATH or in ~/.cargo/env).
#
# Packages are installed with uv (from PyPI, into .venv), not pip: uv keeps one copy of
# each unpacked wheel in its cache and hard-links it into every venv, so the CUDA libraries
# that PyPI's torch depends on (about 4 GB, the same wheels for every Python) are stored
# once for .venv and the .venv-pyX.Y of scripts/_torch_pythons.sh, not six times (a CI run
# with pip ran out of disk at the fourth venv). Each install is tried three times: a
# dropped download of one of those large wheels should not fail the run.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
VENV="$ROOT/.venv"
PY="$VENV/bin/python"

if ! command -v cargo >/dev/null 2>&1 && [ -f "$HOME/.cargo/env" ]; then
    # shellcheck disable=SC1091
    . "$HOME/.cargo/env"
fi
command -v cargo >/dev/null 2>&1 || { echo "error: cargo (Rust) is needed to build depyf._core" >&2; exit 1; }

if [ ! -x "$PY" ]; then
    echo "== creating $VENV with ${PYTHON:-python3}"
    "${PYTHON:-python3}" -m venv "$VENV"
    "$PY" -m pip install --quiet --upgrade pip
fi
UV="$VENV/bin/uv"
if [ ! -x "$UV" ]; then
    echo "== installing uv into $VENV (installs the packages below)"
    "$PY" -m pip install --quiet uv
fi

# uv_install PYTHON REQUIREMENT... : install into PYTHON's venv, three tries.
uv_install() {
    local py="$1" attempt
    shift
    for attempt in 1 2 3; do
        "$UV" pip install --quiet --python "$py" "$@" </dev/null && return 0
        echo "== install of $* into $py failed (try $attempt of 3; $(df -h --output=avail "$ROOT" | tail -n 1 | tr -d ' ') free on disk)" >&2
        [ "$attempt" -lt 3 ] && sleep 15
    done
    return 1
}

if ! "$PY" -c "import torch, numpy" >/dev/null 2>&1; then
    echo "== installing torch (and numpy, which it warns without) from PyPI (large download, first run only)"
    uv_install "$PY" torch numpy
fi
if ! "$PY" -c "import transformers, torchvision" >/dev/null 2>&1; then
    echo "== installing transformers and torchvision (models of the end-to-end torch suite)"
    uv_install "$PY" transformers torchvision torch
fi
if ! "$PY" -c "import pytest, debugpy" >/dev/null 2>&1 || [ ! -x "$VENV/bin/maturin" ]; then
    echo "== installing maturin, pytest and debugpy (VS Code's debugger, driven by a test)"
    uv_install "$PY" "maturin>=1.5,<2" "pytest>=7" debugpy
fi

echo "== building depyf._core (maturin develop --release)"
VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop --release --quiet </dev/null
"$PY" -c "import depyf._core" || { echo "error: depyf._core does not import after the build" >&2; exit 1; }
