"""Compile the golden fixture sources with this interpreter and record what its `dis`
prints, so `cargo test` checks the disassembler without any interpreter installed.

Run it once per CPython version, with that interpreter:

    pythonX.Y scripts/gen_fixtures.py    # writes fixtures/pyc/pyXY/{NAME.pyc,NAME.dis,manifest.json}

Sources are fixtures/cases/*.py; a case that this version cannot compile (e.g. `match`
before 3.10) is left out and listed under "skipped" in the manifest. The .pyc files are
unchecked-hash pycs (PEP 552), so they do not depend on file times. The script re-runs
itself with PYTHONHASHSEED=0 so frozenset constants and the expected text are
reproducible. Must run on CPython 3.8-3.15 (3.8 syntax only).
"""

import dis
import hashlib
import io
import json
import marshal
import os
import py_compile
import subprocess
import sys


def main():
    if os.environ.get("PYTHONHASHSEED") != "0":
        env = dict(os.environ, PYTHONHASHSEED="0")
        sys.exit(subprocess.call([sys.executable] + sys.argv, env=env))
    here = os.path.dirname(os.path.abspath(__file__))
    root = os.path.normpath(os.path.join(here, ".."))
    cases = os.path.join(root, "fixtures", "cases")
    v = sys.version_info
    dest = os.path.join(root, "fixtures", "pyc", "py%d%d" % (v[0], v[1]))
    os.makedirs(dest, exist_ok=True)
    for f in os.listdir(dest):
        os.remove(os.path.join(dest, f))
    files, skipped = [], []
    for name in sorted(os.listdir(cases)):
        if not name.endswith(".py"):
            continue
        stem = name[:-3]
        src = os.path.join(cases, name)
        pyc = os.path.join(dest, stem + ".pyc")
        try:
            py_compile.compile(
                src,
                cfile=pyc,
                dfile="fixtures/cases/" + name,
                doraise=True,
                invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH,
            )
        except py_compile.PyCompileError:
            skipped.append(name)
            continue
        with open(pyc, "rb") as fh:
            data = fh.read()
        buf = io.StringIO()
        dis.dis(marshal.loads(data[16:]), file=buf)
        with open(os.path.join(dest, stem + ".dis"), "w", encoding="utf-8", newline="\n") as fh:
            fh.write(buf.getvalue())
        files.append({"case": name, "pyc": stem + ".pyc", "dis": stem + ".dis", "sha256": hashlib.sha256(data).hexdigest()})
    manifest = {
        "generated_by": "scripts/gen_fixtures.py",
        "python": "%d.%d.%d" % (v[0], v[1], v[2]),
        "magic": int.from_bytes(data[:2], "little") if files else None,
        "files": files,
        "skipped": skipped,
    }
    with open(os.path.join(dest, "manifest.json"), "w", encoding="utf-8", newline="\n") as fh:
        json.dump(manifest, fh, indent=1)
        fh.write("\n")
    print("wrote", len(files), "fixtures to", os.path.relpath(dest, root), "skipped", skipped)


if __name__ == "__main__":
    main()
