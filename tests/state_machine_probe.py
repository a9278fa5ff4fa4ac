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


# The same irreducible loop with comprehensions in it: on CPython 3.12+ they are
# inlined (PEP 709), each with a protected range whose handler only puts back the
# locals it hides and re-raises. `x` is live across the comprehensions that bind it.

def comp_list(a, n, xs):
    x = 7
    t = 0
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        ys = [x * 2 for x in xs if x % 2]
        t += sum(ys) + x
        if t % 3 == 0:
            continue
        t += 2
    return t, x


def comp_set_dict(a, n, xs):
    x = -1
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        s = {x % 5 for x in xs}
        d = {x: k for k, x in enumerate(xs) if k != n}
        t += len(s) * 10 + sum(d.values()) + x
        if t % 3 == 0:
            continue
        x = t % 7
    return t, x, sorted(s), sorted(d.items())


def comp_nested(a, n, xs):
    y = "outer"
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        grid = [[y * x for y in range(x)] for x in xs if x != n]
        t += sum(map(sum, grid))
        if t % 3 == 0:
            continue
        t += len(y)
    return t, y


def comp_cells(a, n, xs):
    x = 3
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        fs = [lambda: x for x in xs]
        t += sum(f() for f in fs) + x
        if t % 3 == 0:
            continue
        t += 2
    return t, x


def comp_generator(a, n, xs):
    x = 11
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        yield [x + t for x in xs]
        t += n
        n -= 1
        if t % 3 == 0:
            continue
        t += 2
    yield x


def comp_inner_loop(a, n, xs):
    x = 4
    k = 2
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        k = n
        while k > 0:
            t += k
            k -= 1
            ys = [x + t for x in xs if x]
            if t % 3 == 0:
                continue
            t += len(ys)
            if t % 5 == 0:
                break
        else:
            t -= 1
        n -= 1
        if t % 7 == 0:
            continue
        t += x
    return t, x


def _second_statement_of_inner_loop(ins):
    """The offset of `k -= 1`'s first load inside the inner loop (after `t += k`)."""
    for k, i in enumerate(ins):
        loads = ins[k - 2].argval if k > 1 else None
        if (i.opname.startswith("STORE") and i.argval == "t" and ins[k - 1].opname in ("INPLACE_ADD", "BINARY_OP")
                and (loads == "k" or isinstance(loads, tuple) and "k" in loads)):
            return ins[k + 1].offset
    raise AssertionError("no `t += k` in the inner loop")


# Other protected ranges: the state machine does not stand for them, so the
# irreducible loop stays a DecompilationError.

def with_try(a, n):
    t = 0
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        try:
            t += 10 // n
        except ZeroDivisionError:
            t -= 1
        if t % 3 == 0:
            continue
        t += 2
    return t


def with_with(a, n, cm):
    t = 0
    if a:
        t = 1000
    else:
        t = 1
    while n > 0:
        t += n
        n -= 1
        with cm:
            t += 1
        if t % 3 == 0:
            continue
        t += 2
    return t


class _Cm:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


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
    lists = [[1, 2, 3], [4, 5, 6, 7], [], [0, 9], None]
    for name, fn in (("comp_list", comp_list), ("comp_set_dict", comp_set_dict), ("comp_nested", comp_nested),
                     ("comp_cells", comp_cells), ("comp_generator", comp_generator)):
        cases.append((name, retarget(fn.__code__, 1000, "t", _second_statement_of_loop),
                      [(a, n, xs) for a in (1, 0) for n in (0, 2, 5) for xs in lists]))
    cases.append(("comp_inner_loop", retarget(comp_inner_loop.__code__, 1000, "t", _second_statement_of_inner_loop),
                  [(a, n, xs) for a in (1, 0) for n in (0, 1, 3, 6) for xs in lists]))
    cases += [
        ("with_try", retarget(with_try.__code__, 1000, "t", _second_statement_of_loop), [(1, 3), (0, 5), (1, 0), (0, 1)]),
        ("with_with", retarget(with_with.__code__, 1000, "t", _second_statement_of_loop),
         [(1, 3, _Cm()), (0, 5, _Cm()), (1, 0, _Cm()), (0, 1, None)]),
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
