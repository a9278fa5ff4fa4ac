"""A loop that only an `except` clause goes back to (its `try` body never ends
normally: an endless `while True:` inside it), with that inner loop in the `try` body:
heapq's `merge`. Structuring did not see the outer loop, unrolled it and gave up at the
duplication limit on every CPython. Also the `while c:` whose bottom test follows the
clause (CPython 3.12/3.13 copy the implicit `return None` into its exit): it came back as
`if c: while True: ...`, and now as `while c:`.
"""

from _sem import case, drive, driven_case


def _feeder(values):
    it = iter(values)
    return lambda: next(it)


@case(([3, 2, 1], "abcdef"), ([], "ab"), ([1], ""))
def endless_inner_loop_in_while_test(h, text):
    nxt = _feeder(text)
    out = []
    while h:
        try:
            while True:
                out.append(nxt())
                if len(out) % 2:
                    out.append("-")
        except StopIteration:
            out.append(h.pop())
            nxt = _feeder(text[: len(h)])
    return out


@case((3,), (0,), (1,))
def endless_inner_loop_in_while_true(n):
    out = []
    left = [n]
    while True:
        try:
            while True:
                if left[0] <= 0:
                    raise KeyError(left[0])
                left[0] -= 1
                out.append(left[0])
        except KeyError:
            out.append("k")
            if len(out) > 6:
                return out
            left[0] = len(out)


@case(([2, 0, 1],), ([],), ([0],))
def clause_only_loop_back_returns_in_body(h):
    while h:
        try:
            return 10 // h.pop()
        except ZeroDivisionError:
            h.sort()


@case(([[1, 2], [3], []],), ([],))
def endless_inner_loop_in_for(rows):
    out = []
    for row in rows:
        it = iter(row)
        try:
            while True:
                out.append(next(it))
        except StopIteration:
            out.append("|")
    return out


@driven_case(drive(("next",), ("next",), ("next",), ("next",), ("next",), ("next",), ("next",)), ([[1, 4], [2, 3]],), ([[5]],), ([],))
def merge_like(lists):
    h = [[it[0], i, iter(it[1:]).__next__] for i, it in enumerate(lists) if it]
    h.sort()
    while len(h) > 1:
        try:
            while True:
                value, order, nxt = s = h[0]
                yield value
                s[0] = nxt()
                h.sort()
        except StopIteration:
            h.pop(0)
    if h:
        value, order, nxt = h[0]
        yield value
        yield from nxt.__self__
    return 5
