"""Unguarded `assert False` (CPython folds the constant test away: the bytecode is a
bare raise of `AssertionError`), and unpacking into a run of the same target
(`_, _, _, x`: CPython 3.13+ turns all but the last store of a run into `POP_TOP`),
in a plain assignment, a `for` loop and a generator expression. `tuple`/`all` called on a
generator expression through a parameter or a local function (3.14+ tests the callee
against the builtin before running the loop inline)."""

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


@case(([1, "a", 2.0],), ([],))
def builtin_call_on_genexp_through_parameter(args, tuple=tuple, type=type):
    # `tuple(genexpr)` whose `tuple` is a parameter (functools._make_key): CPython
    # 3.14+ tests at run time whether it is the builtin before running the loop inline.
    return tuple(type(v).__name__ for v in args)


@case(([1, 2],), ([0, 3],))
def shadowed_all_on_genexp(xs):
    def all(it):
        return list(it)
    return all(x * 2 for x in xs), any(x for x in xs)


@case(((1, "a"), True), ((2,), False))
def builtin_call_on_genexp_after_augmented_load(args, typed, tuple=tuple, type=type):
    # `key += tuple(genexpr)`: 3.14+ loads `key` and `tuple` with one
    # LOAD_FAST_LOAD_FAST, before the run-time test of `tuple` (functools._make_key).
    key = args
    if typed:
        key += tuple(type(v).__name__ for v in args)
    return key
