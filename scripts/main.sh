#!/usr/bin/env bash
# The main job: set up .venv, build depyf, run examples/toy.py under
# depyf.prepare_debug, list the dumped files and print the decompiled transformed code of
# toy_example. Usage: bash scripts/main.sh [backend] [dump_dir]   (default: eager depyf_dump)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/_setup.sh"
"$PY" examples/prepare_debug_toy.py --backend "${1:-eager}" --dump-dir "${2:-depyf_dump}"
