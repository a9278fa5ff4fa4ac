"""Unguarded `assert False` (CPython folds the constant test away: the bytecode is a
bare raise of `AssertionError`), and unpacking into a run of the same target
(`_, _, _, x`: CPython 3.13+ turns all but the last store of a run into `POP_TOP`),
in a plain assignment, a `for` loop and a generator expression."""

from _sem import case


@case((0,), (1,), (2,))
def assert_false_in_branch(x):
    if x == 1:
        assert False, "one"
    if x == 2:
        assert False
    return x


@case((True,), (False,))
def assert_false_after_loop(flag):
    for i in range(3):
        if flag:
            return i
    assert False, ("no return", flag)


@case(((1, 2, 3, 4),), ((5, 6, 7, 8),))
def unpack_run_of_underscores(v):
    _, _, _, x = v
    return x, _


@case(([(1, 2, 3, 4), (5, 6, 7, 8)],), ([],))
def genexp_unpack_run(rows):
    return sum(cnt for _, _, _, cnt in rows)


@case(([(1, 2, 3, 4, 5, 6), (7, 8, 9, 10, 11, 12)],), ([],))
def for_unpack_two_runs(rows):
    out = []
    for _, _, a, _, _, b in rows:
        out.append((a, b))
    return out
