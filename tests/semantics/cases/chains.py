"""Chained comparisons as values and as tests, with middle operands that have side
effects: each call appends to a log, so the result shows that every middle operand
runs once, in source order, and that a failed link stops the chain."""

from _sem import case


def logger():
    log = []

    def v(x):
        log.append(x)
        return x

    return log, v


@case((5,), (200,), (-1,))
def chain_value_return(c):
    log, v = logger()
    r = 0 <= v(c) <= 127
    return r, log


@case((5,), (200,), (-1,))
def chain_return_call(c):
    log, v = logger()
    return (0 <= v(c) <= 127), log


@case((5,), (200,), (-1,))
def chain_test_call(c):
    log, v = logger()
    if 0 <= v(c) <= 127:
        return 1, log
    return 2, log


@case((1, 2, 3), (3, 2, 1), (1, 1, 1))
def chain_value_names(a, b, c):
    x = a < b < c
    y = a < b <= c != a
    return x, y, a < b < c


@case((1, 2, 3, 4), (1, 3, 2, 4), (4, 3, 2, 1), (1, 2, 4, 3))
def chain_four_calls(a, b, c, d):
    log, v = logger()
    r = v(a) < v(b) < v(c) < v(d)
    if v(a) < v(b) <= v(c) < v(d):
        r = (r, "t")
    return r, log


@case((1, 2, 3), (3, 2, 1), (2, 2, 2))
def chain_in_bool_ops(a, b, c):
    log, v = logger()
    p = a < v(b) < c and v(c) > a
    q = a > v(b) > c or a < v(c) <= 3
    s = not a < v(b) < c
    if a < v(b) < c or c < v(a) < b:
        s = (s, "or")
    if not (a <= v(c) <= b):
        s = (s, "not")
    return p, q, s, log


@case((1, 2, 3), (3, 2, 1))
def chain_in_ifexp_and_calls(a, b, c):
    log, v = logger()
    t = "in" if a < v(b) < c else "out"
    u = (a < v(b) < c) if v(a) else 0
    w = [a < v(b) < c, min(v(a) < b < v(c), True)]
    return t, u, w, log


@case(([1, 2], 1, 2), ([], 1, 2))
def chain_membership_attr(xs, a, b):
    log, v = logger()
    r = a in v(xs) == [1, 2]
    s = v(a) < len(v(xs)) + 1 < v(b) + 5
    return r, s, log


@case((1, 2, 3), (3, 2, 1))
def chain_in_loop(a, b, c):
    log, v = logger()
    n = 0
    while a < v(b) < c and n < 3:
        n += 1
    out = [x for x in range(5) if a <= v(x) < c]
    return n, out, log


@case((0, 0, 0), (1, 1, 1), (32767, 0, 1), (2, 3, 4))
def chain_four_in_if_elif(expon, himant, lomant):
    # A chain of three comparisons as a test: its first two tests jump to one clean-up
    # block that pops the kept operand (aifc._read_float, asyncore.poll).
    if expon == himant == lomant == 0:
        f = 0.0
    elif expon == 32767:
        f = 2.0
    else:
        f = 3.0
    return f


@case((1, 2, 3, 4, 5), (1, 3, 2, 4, 5), (0, 0, 0, 0, 0))
def chain_five_in_if_or(a, b, c, d, e):
    if a < b < c < d < e or a == b == c:
        return 1
    return 2


@case((8, 16), (6, 4))
def chain_while_test(m, n):
    # _pydecimal._power_exact.
    while m % 2 == n % 2 == 0:
        m //= 2
        n //= 2
    return m, n
