"""`a and b or c` as the test of an `if` or `while`: recovery negated the jumps twice
and wrote `not (not a or not b) or c` (the same truth, the same bytecode, not the
source). Written as `a and b` again in tests, where only the truth counts; left as it is
where an operand is an `is`/`in` comparison, which CPython folds with a `not`.
"""

from _sem import case


@case((0,), (5,), (9,), (20,), ("",))
def and_inside_or_test(x):
    if x and x < 9 or x == 20:
        return 1
    return 2


@case(([3, 1, 2],), ([],), ([5, 0],))
def and_inside_or_while(xs):
    out = []
    while xs and xs[-1] > 0 or len(out) == 1:
        out.append(xs.pop() if xs else None)
    return out, xs


@case((None, 1), (1, None), ([1], 1), (2, 2))
def is_comparison_operand(a, b):
    if a is not None and b in (1, 2) or a == b:
        return "yes"
    return "no"
