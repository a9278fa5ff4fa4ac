# semantics: min-version 3.14
"""3.14/3.15 shapes that the normalizers turn into 3.13's: `with` through LOAD_SPECIAL
(the hidden `self` of `__exit__`), 3.15's two-slot iterators (`for`, `break`/`return`
in loops, comprehensions, generator expressions, `yield from`), the inlined
`all`/`any`/`tuple` of a generator expression, `__annotate__` functions, imports in
functions (3.15's eager flag), class bodies with the `__classdict__` cell."""

from _sem import case


class Manager:
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("enter")
        return self

    def __exit__(self, *exc):
        self.log.append(("exit", exc[0].__name__ if exc[0] else None))
        return exc[0] is KeyError


@case((3,), (0,))
def with_return_inside(n):
    log = []
    with Manager(log) as m:
        if n:
            return log, m is not None
        log.append("body")
    return log


@case((4,),)
def with_in_loop_break_continue(n):
    log = []
    for i in range(n):
        with Manager(log):
            if i == 1:
                continue
            if i == 3:
                break
            log.append(i)
    return log


@case((1,), (2,))
def with_suppressing(n):
    log = []
    with Manager(log):
        if n == 1:
            raise KeyError(n)
        log.append("no raise")
    return log


@case(([3, 1, 2],), ([],))
def for_break_return_else(xs):
    out = []
    for x in xs:
        if x == 1:
            break
        out.append(x)
    else:
        out.append("else")
    for i, x in enumerate(xs):
        for y in xs:
            if y > x:
                return out, i, x, y
    return out


@case(([1, 0, 2],),)
def for_try_return_in_handler(xs):
    out = []
    for x in xs:
        try:
            out.append(10 // x)
        except ZeroDivisionError:
            return out, "zero"
    return out


@case((4,),)
def comprehensions_in_loop(n):
    out = []
    for i in range(n):
        out.append([j * i for j in range(i)])
        out.append({j: i for j in range(i) if j})
    return out, sum(x for x in range(n)), list(x + n for x in range(n) if x)


@case(([1, 2, 3], 2), ([], 0))
def inlined_builtin_calls(xs, k):
    return any(x > k for x in xs), all(x > k for x in xs), tuple(x * k for x in xs)


@case((3,),)
def yield_from_and_loops(n):
    def gen():
        yield from range(n)
        for i in range(n):
            yield -i
        got = yield from inner()
        yield got

    def inner():
        yield "inner"
        return "done"
    return list(gen())


@case((2,),)
def function_annotations(n):
    def f(a: int, *args: str, b: "list[int]" = n, **kw: float) -> tuple:
        return a, args, b, kw
    return f(1, "x"), f.__annotations__


@case((5,),)
def class_body_annotations(n):
    class C:
        """Doc."""
        x: int
        y: list[int] = n

        def get(self):
            return self.y

        z: "str" = "z"
    return C().get(), C.z, C.__annotations__


@case(("json",),)
def import_in_function(name):
    import json
    from os import path as p
    return json.__name__, p.join("a", "b"), name
