"""Adds the failing cases of semantic-runner JSON files to tests/semantics/known_failures.py.

    python3.X scripts/run_semantics.py --json OUT/3.X.json   # for each version
    python scripts/add_known_failures.py OUT/*.json

Each JSON file is one interpreter's records (scripts/run_semantics.py --json). Every
failing (case, version) not listed yet is added with a reason: a DecompilationError's
message without its "(in f at offset N, CPython 3.X)" tail; a case whose recompiled code
runs differently gets "WRONG CODE: <first difference>" and one whose source does not
compile "WRONG CODE (does not recompile): <error>", so that those decompiler bugs stand
out. Existing entries are kept as they are (scripts/prune_known_failures.py removes the
ones that pass). Versions sharing a reason are grouped as prune_known_failures.py does.
"""

import json
import re
import sys
from pathlib import Path

PATH = Path(__file__).resolve().parent.parent / "tests" / "semantics" / "known_failures.py"
ALL = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]
WHERE = re.compile(r" \(in [^()]*? at offset \d+, CPython 3\.\d+\)$")


def reason_of(rec):
    """The known-failure reason for one failing runner record."""
    detail = (rec.get("detail") or "").strip()
    if rec["stage"] == "run":
        return "WRONG CODE: " + detail[:160]
    if rec["stage"] == "recompile":
        return "WRONG CODE (does not recompile): " + detail[:160]
    detail = WHERE.sub("", detail.splitlines()[0] if detail else "")
    return re.sub(r"^DecompilationError: ", "", detail)[:200]


def expand(entries):
    """{version: reason} of one case's entries."""
    out = {}
    for versions, reason in entries.items():
        for v in ALL if versions == "all" else versions.split():
            out[v] = reason
    return out


def render(head, known):
    body = "KNOWN_FAILURES = {\n"
    for case in sorted(known):
        grouped = {}
        for v in ALL:
            if v in known[case]:
                grouped.setdefault(known[case][v], []).append(v)
        body += "    %r: {\n" % case
        for reason, vs in grouped.items():
            body += "        %r: %r,\n" % ("all" if vs == ALL else " ".join(vs), reason)
        body += "    },\n"
    return head + body + "}\n"


def main(paths):
    text = PATH.read_text()
    ns = {}
    exec(compile(text, str(PATH), "exec"), ns)
    known = {case: expand(entries) for case, entries in ns["KNOWN_FAILURES"].items()}
    added = 0
    for p in paths:
        data = json.loads(Path(p).read_text())
        version = data["python"]
        for rec in data["records"]:
            if rec["status"] == "pass":
                continue
            per_version = known.setdefault(rec["id"], {})
            if version not in per_version:
                per_version[version] = reason_of(rec)
                added += 1
    PATH.write_text(render(text[: text.index("KNOWN_FAILURES = {")], known))
    print("added %d failing (case, version) entries" % added, file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
