# Shared set-up for scripts/main.sh and scripts/test.sh (sourced, not run).
# Creates .venv if missing, installs torch, maturin and pytest only when they are missing,
# and builds depyf._core into the source tree with `maturin develop` (incremental: cargo
# rebuilds only what changed). Needs a CPython >= 3.11 (torch 2.15 has wheels for
# 3.11-3.15; override with PYTHON=...) and Rust (cargo on PATH or in ~/.cargo/env).
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

if ! "$PY" -c "import torch, numpy" >/dev/null 2>&1; then
    echo "== installing torch (and numpy, which it warns without) from PyPI (large download, first run only)"
    "$PY" -m pip install --quiet torch numpy
fi
if ! "$PY" -c "import transformers, torchvision" >/dev/null 2>&1; then
    echo "== installing transformers and torchvision (models of the end-to-end torch suite)"
    "$PY" -m pip install --quiet transformers torchvision torch
fi
if ! "$PY" -c "import pytest, debugpy" >/dev/null 2>&1 || [ ! -x "$VENV/bin/maturin" ]; then
    echo "== installing maturin, pytest and debugpy (VS Code's debugger, driven by a test)"
    "$PY" -m pip install --quiet "maturin>=1.5,<2" "pytest>=7" debugpy
fi

echo "== building depyf._core (maturin develop --release)"
VIRTUAL_ENV="$VENV" PATH="$VENV/bin:$PATH" "$VENV/bin/maturin" develop --release --quiet </dev/null
"$PY" -c "import depyf._core" || { echo "error: depyf._core does not import after the build" >&2; exit 1; }
