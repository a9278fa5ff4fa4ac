# Input of the always-on stack-effect test (crates/depyf_ir/tests/stack_effects.rs);
# compiled by each interpreter with scripts/gen_ir_fixtures.py --source.
import os
import os.path as osp
from math import *
from collections import OrderedDict, deque

X: int = 1


def calls(a, b=2, *args, c, d=4, **kw):
    f = os.path.join(a, b)
    g = print(a, sep="", end=b)
    h = a.method(b, key=c)
    i = a(*args, **kw)
    j = a(*args)
    k = len([1, 2, *args])
    l = {**kw, "x": 1}
    m = {1, 2, *args}
    n = (1, *args, 2)
    o = a(b, *args, c=1, **kw)
    return f, g, h, i, j, k, l, m, n, o


def ops(a, b):
    a += b
    a -= 1
    x = a[1:2], a[1:2:3], a[b], -a, +a, ~a, not a
    a[1:2] = b
    a[b] = 1
    del a[b]
    del a.x
    a.y = b
    y = a if b else b
    z = a and b or a
    w = a < b < 3
    v = a is None, a is not b, a in b, a not in b, a == b, a != b, a >= b
    p = a @ b, a ** b, a // b, a % b, a << b, a >> b, a & b, a | b, a ^ b, a / b
    return x, y, z, w, v, p


def loops(items):
    total = 0
    for i in items:
        if i is None:
            continue
        if i > 10:
            break
        total += i
    else:
        total = -1
    while total > 0:
        total -= 1
    a, *b, c = items
    d, e = b
    return total, [x * 2 for x in items if x], {x: x for x in items}, {x for x in items}


def closures(n):
    def inner(m: int = 1, *, k=2) -> int:
        return n + m + k

    lam = lambda q: q + n
    return inner, lam, f"{n!r:>10} {n!s} {n!a} {n:{n}} {n}"


def large():
    x = 300000
    return [x, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20][x]


class Base:
    attr = 1

    def method(self, x):
        return super().method(x) + super().attr

    def other(self):
        return Base.attr


assert X, "message"


# Exception handling and `with` (3.9-3.10: the block stack, see normalize/pre311_exc.rs).
def exceptions(a, b):
    try:
        a()
    except ValueError as e:
        b(e)
    except (KeyError, TypeError):
        return 1
    except:
        raise
    else:
        b()
    finally:
        b(2)
    with a() as x, b():
        x()
    for i in a:
        try:
            if i:
                return i
        finally:
            b()
    try:
        a()
    except OSError as e:
        return e


async def async_forms(m, it):
    async with m:
        pass
    async with m as x:
        await x
    async for y in it:
        if y:
            break
    async with m as z:
        return z
