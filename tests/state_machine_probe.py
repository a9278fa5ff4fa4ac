"""Hand-made bytecode that no structure fits, for tests/test_state_machine.py.

Run by one interpreter (3.9+, `PYTHONPATH=<repo>/python`): builds functions whose
control flow is irreducible (a jump from before a loop into the middle of its body,
made with `CodeType.replace`), checks them against the original behaviour, decompiles
them, runs the decompiled source on the same inputs and prints one JSON object per
function: name, whether the source is a state machine, and whether results match.
"""

import dis
import json
import sys

import depyf


def _jump_arg(ins, target):
    """The oparg of the forward `JUMP_FORWARD` `ins` (no inline caches in any
    version) that lands on offset `target`: bytes before 3.10, code units after."""
    unit = 1 if sys.version_info < (3, 10) else 2
    return (target - (ins.offset + 2)) // unit


def retarget(code, after_const, store_name, target_of):
    """`code` with the unconditional forward jump that follows `<after_const>; STORE
    <store_name>` sent to the first instruction of the statement that `target_of`
    picks (an offset), instead of where it went."""
    ins = list(dis.get_instructions(code))
    for k, i in enumerate(ins):
        if (i.opname == "LOAD_CONST" and i.argval == after_const and ins[k + 1].opname.startswith("STORE")
                and ins[k + 1].argval == store_name):
            j = ins[k + 2]
            break
    else:
        raise AssertionError("no store of the marker constant")
    if j.opname not in ("JUMP_FORWARD",):
        raise AssertionError("no forward jump after the marker: " + j.opname)
    target = target_of(ins)
    arg = _jump_arg(j, target)
    assert 0 < arg < 256, arg
    raw = bytearray(code.co_code)
    raw[j.offset + 1] = arg
    new = code.replace(co_code=bytes(raw))
    moved = [x for x in dis.get_instructions(new) if x.offset == j.offset][0]
    assert moved.argval == target, (moved.argval, target)
    return new


def _second_statement_of_loop(ins):
    """The offset of `n -= 1`'s first load inside the loop (after `t += n`)."""
    for k, i in enumerate(ins):
        if i.opname.startswith("STORE") and i.argval == "t" and k > 0 and ins[k - 1].opname in ("INPLACE_ADD", "BINARY_OP"):
            return ins[k + 1].offset
    raise AssertionError("no `t += n` in the loop")


def into_loop(a, n):
    t = 0
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
    return t


def into_loop_continue(a, n):
    t = 0
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        if t % 3 == 0:
            continue
        t += 2
        if t > 5000:
            break
    return t


def into_loop_after_for(a, xs):
    s = 0
    for x in xs:
        if x < 0:
            break
        s += x
    n = len(xs)
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        if t % 3 == 0:
            continue
        t += 2
    return t, s


def into_loop_generator(a, n):
    t = 0
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        yield t
        t += n
        n -= 1
        if t % 3 == 0:
            continue
        t += 2
    yield -t


def main():
    cases = [
        ("into_loop", retarget(into_loop.__code__, 1000, "t", _second_statement_of_loop), [(1, 3), (0, 3), (1, 0), (0, 0), (True, 5)]),
        ("into_loop_continue", retarget(into_loop_continue.__code__, 1000, "t", _second_statement_of_loop),
         [(1, 3), (0, 3), (1, 0), (0, 0), (True, 9), (1, 10**6)]),
        ("into_loop_after_for", retarget(into_loop_after_for.__code__, 1000, "t", _second_statement_of_loop),
         [(1, [1, 2]), (0, [3, -1, 4]), (1, []), (0, [5]), (1, None)]),
        ("into_loop_generator", retarget(into_loop_generator.__code__, 1000, "t", _second_statement_of_loop),
         [(1, 3), (0, 2), (1, 0), (0, -1)]),
    ]
    out = []
    for name, code, inputs in cases:
        import types

        fn = types.FunctionType(code, globals())
        try:
            src = depyf.decompile(code)
        except depyf.DecompilationError as e:
            out.append({"name": name, "error": str(e)})
            continue
        ns = {}
        exec(compile(src, "<decompiled>", "exec"), ns)
        again = ns[code.co_name]

        def run(f, args):
            try:
                r = f(*args)
                if hasattr(r, "__next__"):
                    r = list(r)
                return ("ok", repr(r))
            except Exception as e:  # noqa: BLE001
                return ("raise", type(e).__name__)

        expected = [run(fn, a) for a in inputs]
        got = [run(again, a) for a in inputs]
        out.append({"name": name, "machine": "__depyf_state__" in src, "same": expected == got,
                    "expected": expected, "got": got, "source": src})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
