"""Summarize the end-to-end torch suite's stats (written by tests/torch/test_programs.py
when DEPYF_SUITE_STATS is set): per Python version, programs, code objects dumped /
verified / linked, and prepare_debug's time overhead over plain torch.compile (median of
the per-program ratios, both measured in the same test, caches off for both).

Usage: python scripts/torch_overhead.py STATS.jsonl
"""

import json
import statistics
import sys
from collections import defaultdict


def main(path):
    rows = defaultdict(list)
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            if line.strip():
                row = json.loads(line)
                rows[(row["python"], row["torch"])].append(row)
    for (python, torch_version), items in sorted(rows.items()):
        ratios = [r["depyf_s"] / r["plain_s"] for r in items if r["plain_s"] > 0]
        print(
            f"python {python} torch {torch_version}: {len(items)} programs passed; code "
            f"objects dumped {sum(r['dumped'] for r in items)}, verified "
            f"{sum(r['verified'] for r in items)}, linked {sum(r['linked'] for r in items)}; "
            f"prepare_debug / plain torch.compile time: median {statistics.median(ratios):.2f}x "
            f"(min {min(ratios):.2f}x, max {max(ratios):.2f}x)"
        )


if __name__ == "__main__":
    main(sys.argv[1])
