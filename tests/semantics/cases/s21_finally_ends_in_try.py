"""A `return` in a `try` body whose `finally` body ends in a `try`/`except` (inside an
`if` too): threading's `Condition.wait`. The copy of the `finally` body before the
`return` got the `return` copied into the end of its inner `try` body and clauses
(CPython 3.12+ inline the small exit block; 3.8-3.9 jump to it from each), and the
handler's copy on 3.10 got its re-raise threaded into the inner clauses: the copy did not
read as the `finally` body ("the normal exit of a try/finally does not run the finally
body") on every CPython. The returned local is loaded before the `finally` body runs
and none of these rebinds it, so the `return` after the statement is the same flow.
"""

from _sem import case


class Waiters(object):
    def __init__(self, items):
        self.items = list(items)
        self.log = []

    def remove(self, x):
        self.log.append(("remove", x))
        self.items.remove(x)


@case((1, [1, 2]), (3, [1, 2]), (0, [0]))
def finally_ends_in_try(x, items):
    w = Waiters(items)
    got = x > 0
    try:
        got = x * 2
        return got
    finally:
        try:
            w.remove(x)
        except ValueError:
            w.log.append("missing")


@case((0, [0, 1]), (2, [1]), (1, [1]))
def finally_ends_in_if_try(x, items):
    w = Waiters(items)
    got = False
    try:
        if x > 1:
            got = x
        else:
            got = x == 1
        return got
    finally:
        w.log.append("restore")
        if not got:
            try:
                w.remove(x)
            except ValueError:
                pass


@case((0, [5]), (4, [4]), (9, []))
def finally_ends_in_try_raising(x, items):
    w = Waiters(items)
    try:
        if x == 9:
            raise KeyError(x)
        return x + 1
    finally:
        if x != 4:
            try:
                w.remove(x)
            except ValueError:
                w.log.append(("none", x))
