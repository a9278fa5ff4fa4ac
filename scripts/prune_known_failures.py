"""Removes from tests/semantics/known_failures.py the (case, version) entries that now
pass: run pytest on tests/test_semantics.py and pipe its output in (strict XPASSes show as FAILED: check that every failure is one first).

    python -m pytest -q -rX tests/test_semantics.py | python scripts/prune_known_failures.py
"""

import pprint
import re
import sys
from pathlib import Path

path = Path(__file__).resolve().parent.parent / "tests" / "semantics" / "known_failures.py"
text = path.read_text()
ns = {}
exec(compile(text, str(path), "exec"), ns)
known = ns["KNOWN_FAILURES"]
ALL = ["3.8", "3.9", "3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]

passed = set()
for line in sys.stdin:
    m = re.search(r"test_semantics\[py(3\.\d+)-([^\]]+)\]", line)
    if m and ("XPASS" in line or line.startswith("FAILED")):
        passed.add((m.group(2), m.group(1)))

out = {}
for case, entries in known.items():
    per_version = {}
    for versions, reason in entries.items():
        for v in ALL if versions == "all" else versions.split():
            if (case, v) not in passed:
                per_version[v] = reason
    grouped = {}
    for v in ALL:
        if v in per_version:
            grouped.setdefault(per_version[v], []).append(v)
    if grouped:
        out[case] = {("all" if vs == ALL else " ".join(vs)): reason for reason, vs in grouped.items()}

head = text[: text.index("KNOWN_FAILURES = {")]
body = "KNOWN_FAILURES = {\n"
for case in sorted(out):
    body += f"    {case!r}: {{\n"
    for versions, reason in out[case].items():
        body += f"        {versions!r}: {reason!r},\n"
    body += "    },\n"
body += "}\n"
path.write_text(head + body)
print(f"removed {len(passed)} passing (case, version) entries", file=sys.stderr)
