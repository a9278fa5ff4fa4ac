"""``python -m depyf run script.py [args...] [--dump-dir DIR] [--log-bytecode]``.

Runs an unchanged script (as ``__main__``, with ``sys.argv`` set to the script and its
arguments) inside ``depyf.prepare_debug(DIR)`` (default ``depyf_dump``), then prints
where the dump is. ``--dump-dir DIR`` / ``--log-bytecode`` are depyf's when they come
before the script or at the very end of the line; anything else after the script goes to
the script. Exit status: the script's; 2 when the dump folder cannot be written (the
script does not run then).
"""

import contextlib
import os
import runpy
import sys

USAGE = "usage: python -m depyf run script.py [args...] [--dump-dir DIR] [--log-bytecode]"


def _take_options(argv):
    """Split ``argv`` (after ``run``) into (dump_dir, log_bytecode, script, script_args)."""
    dump_dir, log_bytecode = "depyf_dump", False
    args = list(argv)

    def take_tail():
        nonlocal dump_dir, log_bytecode
        changed = True
        while changed:
            changed = False
            if len(args) >= 2 and args[-2] == "--dump-dir":
                dump_dir = args[-1]
                del args[-2:]
                changed = True
            elif args and args[-1].startswith("--dump-dir="):
                dump_dir = args.pop().split("=", 1)[1]
                changed = True
            elif args and args[-1] == "--log-bytecode":
                args.pop()
                log_bytecode = True
                changed = True

    while args and args[0].startswith("--"):
        opt = args.pop(0)
        if opt == "--dump-dir" and args:
            dump_dir = args.pop(0)
        elif opt.startswith("--dump-dir="):
            dump_dir = opt.split("=", 1)[1]
        elif opt == "--log-bytecode":
            log_bytecode = True
        else:
            raise SystemExit(f"depyf: unknown option {opt}\n{USAGE}")
    if not args:
        raise SystemExit(USAGE)
    script, rest = args[0], args[1:]
    args = rest
    take_tail()
    return dump_dir, log_bytecode, script, args


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    # `run --help` too, when the help comes before any script.
    if argv and (argv[0] in ("-h", "--help", "help") or (argv[0] == "run" and argv[1:2] in (["-h"], ["--help"]))):
        print(USAGE + "\n\n" + __doc__.split("\n\n", 1)[1].strip())
        return 0
    if not argv or argv[0] != "run":
        raise SystemExit(USAGE)
    dump_dir, log_bytecode, script, script_args = _take_options(argv[1:])
    if not os.path.isfile(script):
        raise SystemExit(f"depyf: no such script: {script}")
    import depyf

    sys.argv = [script, *script_args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    status = 0
    with contextlib.ExitStack() as stack:
        try:
            session = stack.enter_context(depyf.prepare_debug(dump_dir, log_bytecode=log_bytecode))
        except OSError as exc:
            # An unwritable or missing dump folder: one line, before the script runs
            # (its own errors, raised below, keep their tracebacks).
            print(f"depyf: {exc.strerror or exc}", file=sys.stderr)
            return 2
        try:
            runpy.run_path(script, run_name="__main__")
        except SystemExit as exc:
            status = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    linked = sum(r.linked for r in session.records)
    print(
        f"depyf: {len(session.records)} transformed code object{'' if len(session.records) == 1 else 's'} dumped ({linked} linked) "
        f"into {session.dump_dir}; see index.md there",
        file=sys.stderr,
    )
    return status


if __name__ == "__main__":
    sys.exit(main())
