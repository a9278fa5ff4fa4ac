"""Compile a sample of this interpreter's standard library to .pyc files and write, next
to each, the text `dis.dis` prints for its module code object.

    pythonX.Y scripts/dis_reference.py OUT_DIR [COUNT]

Writes OUT_DIR/NNNN.pyc and OUT_DIR/NNNN.dis for COUNT modules (default 250), spread
evenly over the sorted list of stdlib sources (test packages excluded), and prints
the number written. Used by crates/depyf_cli/tests/stdlib_dis.rs; run it with
PYTHONHASHSEED=0 so frozenset constants iterate in the order marshal stored them.
Must run on CPython 3.8 through 3.15 (so: 3.8 syntax only).
"""

import dis
import io
import marshal
import os
import py_compile
import sys
import sysconfig


def sources():
    lib = sysconfig.get_paths()["stdlib"]
    out = []
    for root, dirs, files in os.walk(lib):
        rel = os.path.relpath(root, lib)
        parts = rel.split(os.sep)
        if any(p in ("test", "tests", "idle_test", "site-packages", "dist-packages") or p.startswith("lib2to3") for p in parts):
            dirs[:] = []
            continue
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".py"):
                out.append(os.path.join(root, f))
    return out


def main():
    dest = sys.argv[1]
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 250
    os.makedirs(dest, exist_ok=True)
    srcs = sources()
    step = max(1, len(srcs) // count)
    picked = srcs[::step][:count]
    n = 0
    for i, src in enumerate(picked):
        pyc = os.path.join(dest, "%04d.pyc" % i)
        try:
            py_compile.compile(src, cfile=pyc, doraise=True)
        except Exception:
            continue
        with open(pyc, "rb") as f:
            code = marshal.loads(f.read()[16:])
        buf = io.StringIO()
        dis.dis(code, file=buf)
        with open(os.path.join(dest, "%04d.dis" % i), "w", encoding="utf-8") as f:
            f.write(buf.getvalue())
        with open(os.path.join(dest, "%04d.src" % i), "w", encoding="utf-8") as f:
            f.write(src)
        n += 1
    print(n)


if __name__ == "__main__":
    main()
