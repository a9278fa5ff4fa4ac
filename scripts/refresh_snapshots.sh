#!/usr/bin/env bash
# Regenerates the decompiler's snapshot tests after a change of its output: the
# recompiled fixtures (each interpreter present compiles the decompiled fixtures; 3.8
# through the depyf-sem tool) and the insta snapshots. Review `git diff` afterwards.
# Needs depyf._core built into python/ (scripts/_setup.sh does it).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
cargo build --quiet --release -p depyf_test_support
TOOL="${CARGO_TARGET_DIR:-$ROOT/target}/release/depyf-sem"
for v in 3.8 3.9 3.10 3.11 3.12 3.13 3.14 3.15; do
    var="DEPYF_PYTHON_${v/./_}"
    py="${!var:-}"
    if [ -z "$py" ] && command -v pyenv >/dev/null 2>&1; then
        p="$(pyenv prefix "$v" 2>/dev/null || true)"; [ -n "$p" ] && [ -x "$p/bin/python$v" ] && py="$p/bin/python$v"
    fi
    [ -z "$py" ] && command -v "python$v" >/dev/null 2>&1 && py="$(command -v "python$v")"
    # where ../shared/tools/python-from-debian.sh unpacks (scripts/_torch_pythons.sh, or by hand)
    for deb in "$ROOT/target/python$v/root" "$ROOT/../scratch/py${v/./}/root"; do
        [ -z "$py" ] && [ -x "$deb/usr/bin/python$v" ] && py="$deb/usr/bin/python$v"
    done
    if [ -z "$py" ]; then echo "== Python $v not found: its recompiled fixtures stay as they are"; continue; fi
    PYTHONPATH="$ROOT/python" "$py" scripts/run_semantics.py --recompile-fixtures --tool "$TOOL"
done
rm -f crates/depyf_decompile/tests/snapshots/*.snap.new
INSTA_UPDATE=always cargo test --quiet -p depyf_decompile --test snapshots
git add -f crates/depyf_decompile/tests/recompiled/*/*.pyc 2>/dev/null || true
