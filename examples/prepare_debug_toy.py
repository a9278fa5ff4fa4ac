"""Run examples/toy.py under depyf.prepare_debug and show what was dumped.

Usage: python examples/prepare_debug_toy.py [--backend eager|aot_eager|inductor]
                                             [--dump-dir DIR]
Prints the dumped files (with each one's verdict and whether Dynamo runs it) and the
decompiled transformed code of `toy_example`. Exits 1 if compiled outputs differ from
eager ones.
"""

import argparse
import os
import sys

import torch

import depyf

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import toy  # noqa: E402


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="eager", help="torch.compile backend")
    parser.add_argument("--dump-dir", default="depyf_dump", help="where files are dumped")
    args = parser.parse_args(argv)

    with depyf.prepare_debug(args.dump_dir) as session:
        results = toy.run(args.backend)
    ok = all(torch.allclose(got, want) for got, want in results)

    print(f"dumped files in {session.dump_dir}:")
    for record in session.records:
        if record.source_path:
            print(f"  {os.path.basename(record.source_path)}  (original source)")
        state = "linked" if record.linked else "not linked"
        print(f"  {os.path.basename(record.path)}  ({record.verdict}, {state})")

    others = sorted(
        f for f in os.listdir(session.dump_dir)
        if f.startswith(("__compiled_fn_", "full_code_for_", "index."))
    )
    print("  " + "\n  ".join(others))

    main_record = next(r for r in session.records if r.name == "toy_example")
    print(f"\n==== {main_record.path} ====")
    with open(main_record.path, encoding="utf-8") as fh:
        print(fh.read())
    linked = sum(r.linked for r in session.records)
    print(f"{linked}/{len(session.records)} transformed code objects linked; "
          f"compiled outputs {'equal' if ok else 'DIFFER FROM'} eager outputs")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
