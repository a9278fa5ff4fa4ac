"""Chained comparisons of 2 to 120 operands (`a < b < c < d < e`): CPython tests
each link but the last with `JUMP_IF_FALSE_OR_POP` (3.12+ `COPY 1;
POP_JUMP_IF_FALSE`) to one clean-up block that drops the kept middle operand
(`Python/compile.c`/`codegen.c` `compiler_compare`). In a value (not the test of an
`if`), recovery rebuilt chains of 4 or more operands as nested `if` statements on
3.8-3.15, one level per operand (from about 100 operands the output did not
compile), and on 3.11 even `a < a < a` as `t = a < a; t and a < a`. Operands are
calls that log, so that each middle operand is evaluated once, in order, and the
chain stops at the first false link.
"""

from _sem import case


def g(log, v, k):
    log.append(k)
    return v[k]


class O:
    def __init__(self, x):
        self.x = x

    def m(self, log):
        log.append(self.x)
        return self.x


@case((1, 2), (2, 1), (1, 1))
def chain2(a, b):
    return a < b


@case((1, 2, 3), (1, 3, 2), (1, 1, 1))
def chain3(a, b, c):
    return a < b < c


@case((1, 1, 1), (0, 1, 2))
def chain3_same(a, b, c):
    return a < a < a


@case((1, 2, 3, 4), (1, 2, 4, 3), (2, 1, 3, 4), (1, 3, 2, 4))
def chain4(a, b, c, d):
    return a < b < c < d


@case((1, 2, 3, 4, 5), (1, 2, 3, 5, 4), (5, 4, 3, 2, 1))
def chain5(a, b, c, d, e):
    return a < b < c < d < e


@case(([1, 2, 3, 4, 5, 6, 7, 8], []), ([1, 2, 3, 9, 5, 6, 7, 8], []), ([1, 2, 3, 4, 5, 6, 7, 0], []), ([2, 1, 3, 4, 5, 6, 7, 8], []))
def chain8_calls(v, log):
    x = g(log, v, 0) < g(log, v, 1) < g(log, v, 2) < g(log, v, 3) < g(log, v, 4) < g(log, v, 5) < g(log, v, 6) < g(log, v, 7)
    return x, log


@case(([1, 1, 2, 2, 3, 3, 4, 4], []), ([1, 1, 2, 3, 3, 3, 4, 4], []))
def chain8_mixed(v, log):
    return g(log, v, 0) == g(log, v, 1) < g(log, v, 2) <= g(log, v, 3) != g(log, v, 4) is not None is not g(log, v, 5), log


@case(([0, 0, 0, 0], [], None, [0]), ([0, 0, 0, 0], [], 1, [0]), ([0, 0, 0, 0], [], None, [1]))
def chain_is_in(v, log, n, seq):
    return g(log, v, 0) is not n in seq not in [[]] == g(log, v, 1), log


@case((list(range(120)), []), (list(range(119)) + [118], []), ([5] + list(range(1, 120)), []), (list(range(60)) + [0] * 60, []))
def chain120(v, log):
    r = (
        g(log, v, 0) <= g(log, v, 1) != g(log, v, 2) < g(log, v, 3) <= g(log, v, 4) !=
        g(log, v, 5) < g(log, v, 6) <= g(log, v, 7) != g(log, v, 8) < g(log, v, 9) <=
        g(log, v, 10) != g(log, v, 11) < g(log, v, 12) <= g(log, v, 13) != g(log, v, 14)
        < g(log, v, 15) <= g(log, v, 16) != g(log, v, 17) < g(log, v, 18) <= g(log, v,
        19) != g(log, v, 20) < g(log, v, 21) <= g(log, v, 22) != g(log, v, 23) < g(log,
        v, 24) <= g(log, v, 25) != g(log, v, 26) < g(log, v, 27) <= g(log, v, 28) !=
        g(log, v, 29) < g(log, v, 30) <= g(log, v, 31) != g(log, v, 32) < g(log, v, 33)
        <= g(log, v, 34) != g(log, v, 35) < g(log, v, 36) <= g(log, v, 37) != g(log, v,
        38) < g(log, v, 39) <= g(log, v, 40) != g(log, v, 41) < g(log, v, 42) <= g(log,
        v, 43) != g(log, v, 44) < g(log, v, 45) <= g(log, v, 46) != g(log, v, 47) <
        g(log, v, 48) <= g(log, v, 49) != g(log, v, 50) < g(log, v, 51) <= g(log, v, 52)
        != g(log, v, 53) < g(log, v, 54) <= g(log, v, 55) != g(log, v, 56) < g(log, v,
        57) <= g(log, v, 58) != g(log, v, 59) < g(log, v, 60) <= g(log, v, 61) != g(log,
        v, 62) < g(log, v, 63) <= g(log, v, 64) != g(log, v, 65) < g(log, v, 66) <=
        g(log, v, 67) != g(log, v, 68) < g(log, v, 69) <= g(log, v, 70) != g(log, v, 71)
        < g(log, v, 72) <= g(log, v, 73) != g(log, v, 74) < g(log, v, 75) <= g(log, v,
        76) != g(log, v, 77) < g(log, v, 78) <= g(log, v, 79) != g(log, v, 80) < g(log,
        v, 81) <= g(log, v, 82) != g(log, v, 83) < g(log, v, 84) <= g(log, v, 85) !=
        g(log, v, 86) < g(log, v, 87) <= g(log, v, 88) != g(log, v, 89) < g(log, v, 90)
        <= g(log, v, 91) != g(log, v, 92) < g(log, v, 93) <= g(log, v, 94) != g(log, v,
        95) < g(log, v, 96) <= g(log, v, 97) != g(log, v, 98) < g(log, v, 99) <= g(log,
        v, 100) != g(log, v, 101) < g(log, v, 102) <= g(log, v, 103) != g(log, v, 104) <
        g(log, v, 105) <= g(log, v, 106) != g(log, v, 107) < g(log, v, 108) <= g(log, v,
        109) != g(log, v, 110) < g(log, v, 111) <= g(log, v, 112) != g(log, v, 113) <
        g(log, v, 114) <= g(log, v, 115) != g(log, v, 116) < g(log, v, 117) <= g(log, v,
        118) != g(log, v, 119)
    )
    return r, log


@case((O(1), O(2), O(3), O(4), []), (O(1), O(3), O(2), O(4), []), (O(4), O(3), O(2), O(1), []))
def chain_attrs_assign(a, b, c, d, log):
    x = a.m(log) < b.x < c.m(log) <= d.x
    return x, log


@case((1, 2, 3, 4, []), (1, 2, 2, 4, []), (4, 2, 3, 1, []))
def chain_in_if(a, b, c, d, log):
    if g(log, [a], 0) < b < g(log, [c], 0) < d:
        return 'yes', log
    return 'no', log


@case((0, 3, []), (2, 3, []))
def chain_in_while(i, n, log):
    v = [0, 1, 2, 3, 4]
    while g(log, v, 0) <= g(log, v, i) < g(log, v, n) <= 4:
        i += 1
    return i, log


@case((1, 2, 3, 4, []), (1, 3, 2, 4, []))
def chain_as_argument(a, b, c, d, log):
    return str(g(log, [a], 0) < g(log, [b], 0) < g(log, [c], 0) < d), log


@case((0, 1, 2, 3, 4, []), (1, 1, 2, 3, 4, []), (0, 1, 3, 2, 4, []), (0, 0, 0, 0, 0, []))
def chain_in_or(e, a, b, c, d, log):
    return e or a < g(log, [b], 0) < g(log, [c], 0) < d, log


@case((1, 1, 2, 3, 4, []), (0, 1, 2, 3, 4, []), (1, 1, 3, 2, 4, []))
def chain_in_and(e, a, b, c, d, log):
    y = e and a < g(log, [b], 0) < g(log, [c], 0) < d and g(log, [e], 0)
    return y, log


@case((1, 2, 3, 4, 5), (1, 2, 3, 4, 0))
def two_chains(a, b, c, d, e):
    return [a < b < c < d, b < c < d < e], (a <= b <= c) + (c < d < e < 9)


@case((1, 2, 3, 4), (4, 3, 2, 1))
def not_chain(a, b, c, d):
    return not a < b < c < d


# The value goes to a small `return` that CPython copies into both ends of the
# chain (3.12+ `Python/flowgraph.c`): no merge after the chain to fold at; in a
# `try` body, the copied `return` lies outside the `try` on both ends.
@case((1, 2, 3, []), (1, 3, 2, []), (3, 2, 1, []))
def chain3_assigned_then_returned(a, b, c, log):
    y = a < g(log, [b], 0) < c
    return y, log


@case((1, 2, 3, []), (1, 3, 2, []), (3, 2, 1, []), (1, 2, 5, []))
def chain3_in_try(a, b, c, log):
    try:
        y = a < g(log, [b], 0) < c
    except IndexError:
        y = None
    return y, log


@case((1, 2, 3, 4, 5, []), (1, 2, 4, 3, 5, []), (2, 1, 3, 4, 5, []))
def chain5_in_try(a, b, c, d, e, log):
    try:
        y = a < g(log, [b], 0) < g(log, [c], 0) < d < e
    except IndexError:
        y = None
    return y, log


# Chains of 3 operands joined by `or` in a `return` (curses.ascii `isxdigit`): each
# chain's clean-up ends in its own copy of the `return`.
@case(("5", []), ("B", []), ("b", []), ("z", []), ("@", []))
def chain3s_in_or_return(c, log):
    return c.isdigit() or 65 <= g(log, [ord(c)], 0) <= 70 or 97 <= g(log, [ord(c)], 0) <= 102, log


# Two comparisons joined by `and` that share an operand load it twice: they stay
# an `and`, not the chain `'.' not in m not in y` (pkgutil `iter_zipimport_modules`).
@case(("a.b", {}), ("ab", {}), ("ab", {"ab": 1}), ("", {}))
def and_of_compares_sharing_a_name(modname, yielded):
    if modname and '.' not in modname and modname not in yielded:
        return True
    return False


@case((0,), (5,), (12,), (-1,))
def and_of_compares_sharing_a_name_value(m):
    return 1 <= m and m <= 12


# Negated chains joined by `or` (colorsys-like range checks): each is one chain.
@case((1, 2, 3), (300, 2, 3), (1, -2, 3), (1, 2, 256))
def negated_chains_in_or(r, g, b):
    if not 0 <= r <= 255 or not 0 <= g <= 255 or not 0 <= b <= 255:
        return "out of range"
    return "ok"


# Chains in the test of an `if` that ends a loop body, its false way the
# `continue`: the chain's clean-up goes back to the loop header on its own path
# (before 3.11 straight, 3.11+ through the jump at the end of the body). Failed
# as comprehension filters ("a comprehension body of an unknown shape") and came
# out as nested ifs with `continue` in a loop.
@case(([0, 5, 12, 25, -3],), ([],))
def filter_name_or_chain(xs):
    return [x for x in xs if x or 0 <= x <= 9]


@case(([0, 5, 12, 25, -3, 29, 30],),)
def filter_chain_or_chain(xs):
    return {x: 1 for x in xs if 0 <= x <= 9 or 20 <= x <= 29}


@case(([0, 5, 12, 25, -3],),)
def filter_name_and_chain(xs):
    return [x for x in xs if x and 0 <= x <= 9]


@case(([0, 5, 12, 25, -3], []),)
def loop_if_name_or_chain(xs, out):
    for x in xs:
        if x or 0 <= x <= 9:
            out.append(x)
    return out


# A chain tested in a loop body whose false way goes back to the loop: CPython
# 3.11 sends the last link through a jump of its own (on the `if` line), the
# clean-up straight back to the header (3.11 read nested ifs over a temporary).
@case(([5, 1, 7], 2, 6), ([1, 9], 2, 6), ([], 0, 1))
def loop_return_in_chain_test(xs, lo, hi):
    for x in xs:
        if lo <= x <= hi:
            return x
    return None


@case(([0, 5, 12, 25, -3],),)
def loop_continue_unless_chain(xs):
    out = []
    for x in xs:
        if not 0 <= x <= 9:
            continue
        out.append(x)
    return out
