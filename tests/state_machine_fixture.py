"""Writes the .pyc fixture of crates/depyf_decompile/tests/state_machine.rs for the
running interpreter: tests/state_machine_probe.py compiled as a module, with the
functions named on the command line patched as the probe patches them (the jump
after `t = 1000` sent into the middle of the loop, `CodeType.replace`).

    python3.12 tests/state_machine_fixture.py OUT.pyc comp_list comp_cells ...
"""

import importlib.util
import marshal
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import state_machine_probe as probe  # noqa: E402


def main():
    out, names = sys.argv[1], set(sys.argv[2:])
    path = os.path.join(HERE, "state_machine_probe.py")
    with open(path, encoding="utf-8") as fh:
        module = compile(fh.read(), "state_machine_probe.py", "exec")
    consts = []
    for c in module.co_consts:
        if isinstance(c, types.CodeType) and c.co_name in names:
            names.discard(c.co_name)
            c = probe.retarget(c, 1000, "t", probe._second_statement_of_loop)
        consts.append(c)
    if names:
        raise SystemExit("no such functions: %s" % sorted(names))
    module = module.replace(co_consts=tuple(consts))
    with open(out, "wb") as fh:
        fh.write(importlib.util.MAGIC_NUMBER + b"\0" * 12 + marshal.dumps(module))


if __name__ == "__main__":
    main()
