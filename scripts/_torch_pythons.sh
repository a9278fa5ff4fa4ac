# Sourced by scripts/test.sh after scripts/_setup.sh: torch_python_venv X.Y makes
# .venv-pyX.Y (with uv) holding torch, numpy and pytest for interpreter X.Y and sets TORCH_VENV; the package is found through a .pth
# pointing at python/ (depyf._core is abi3: the build of scripts/_setup.sh serves all).
# Interpreters: $PYTHONX_Y if set, else `pyenv prefix X.Y`, else pythonX.Y on PATH, else
# (3.14, 3.15) CPython from Debian packages via ../shared/tools/python-from-debian.sh
# (override with DEPYF_PYTHON_FROM_DEBIAN), unpacked under target/. torch 2.15 has no 3.10
# wheel: 3.10 gets torch 2.14.1. Inductor needs the interpreter's headers: CPATH is set
# for the Debian ones.

find_python() {
    local v="$1" var="PYTHON${1/./_}" p
    if [ -n "${!var:-}" ]; then echo "${!var}"; return 0; fi
    if command -v pyenv >/dev/null 2>&1 && p="$(pyenv prefix "$v" 2>/dev/null)" && [ -x "$p/bin/python$v" ]; then
        echo "$p/bin/python$v"; return 0
    fi
    if command -v "python$v" >/dev/null 2>&1; then command -v "python$v"; return 0; fi
    local dest="$ROOT/target/python$v" fs="root"  # the tool unpacks Debian's files under DEST/root
    if [ -x "$dest/$fs/usr/bin/python$v" ]; then echo "$dest/$fs/usr/bin/python$v"; return 0; fi
    local tool="${DEPYF_PYTHON_FROM_DEBIAN:-$ROOT/../shared/tools/python-from-debian.sh}"
    if [ -f "$tool" ]; then
        bash "$tool" "$v" "$dest" >&2 && [ -x "$dest/$fs/usr/bin/python$v" ] && {
            echo "$dest/$fs/usr/bin/python$v"; return 0; }
    fi
    return 1
}

torch_python_venv() {
    local v="$1" py torch_spec="torch"
    TORCH_VENV="$ROOT/.venv-py$v"
    [ "$v" = "3.10" ] && torch_spec="torch==2.14.1"
    if [ ! -x "$TORCH_VENV/bin/python" ]; then
        py="$(find_python "$v")" || { echo "error: no Python $v found" >&2; return 1; }
        # uv makes the venv: Debian's interpreters come without ensurepip, and the venv
        # needs no pip (uv_install of scripts/_setup.sh installs into it).
        "$UV" venv --quiet --python "$py" "$TORCH_VENV" </dev/null || return 1
    fi
    local real="$("$TORCH_VENV/bin/python" -c 'import sys; print(sys.base_prefix)')"
    case "$real" in */usr) [ -d "$real/include/python$v" ] && [ "${real#/usr}" != "" ] && export CPATH="$real/include${CPATH:+:$CPATH}" ;; esac
    if ! "$TORCH_VENV/bin/python" -c "import torch, numpy, pytest, debugpy, transformers, torchvision" >/dev/null 2>&1; then
        # transformers/torchvision for the model programs of the subset
        echo "   installing torch, transformers and torchvision into $TORCH_VENV (a minute or more on a cold cache)"
        uv_install "$TORCH_VENV/bin/python" "$torch_spec" numpy pytest debugpy transformers torchvision || return 1
    fi
    local site
    site="$("$TORCH_VENV/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
    echo "$ROOT/python" > "$site/depyf_src.pth"
}
