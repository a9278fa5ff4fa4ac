"""Inlined comprehensions (PEP 709, CPython 3.12+): the hidden locals a comprehension
binds are saved before it and restored after it (also when it raises), in functions,
loops, class bodies, call arguments, conditional expressions, nested in one another."""

import asyncio

from _sem import case


class AIter(object):
    """An async iterator over a copy of `items`."""

    def __init__(self, items):
        self.items = list(items)

    def __aiter__(self):
        return self

    async def __anext__(self):
        await asyncio.sleep(0)
        if not self.items:
            raise StopAsyncIteration
        return self.items.pop(0)


@case((4,), (0,))
def inline_restores_local(n):
    p = "outer"
    y = [p * 2 for p in range(n)]
    return y, p


@case((3,),)
def inline_unbound_after(n):
    y = [q for q in range(n)]
    try:
        return y, q  # noqa: F821
    except NameError:
        return y, "unbound"


@case((3,),)
def inline_same_name_target(n):
    p = [p + 1 for p in range(n)]
    return p


@case(([1, 0, 2],),)
def inline_restore_on_exception(xs):
    x = "kept"
    try:
        r = [10 // x for x in xs]
    except ZeroDivisionError:
        r = None
    return r, x


@case((3,),)
def inline_in_call_args(n):
    return max(1, len([i for i in range(n)]), *[j for j in range(n)]), dict(a=[k for k in range(n)])


@case((0,), (1,))
def inline_in_conditional(flag):
    return [i for i in range(3)] if flag else {i: -i for i in range(2)}, flag and {i for i in "ab"}


@case((3,),)
def inline_in_loop(n):
    out = []
    i = -1
    for i in range(n):
        out.append([i * j for j in range(i)])
        while len(out) < i:
            out.append({j for j in range(i)})
    return out, i


@case((3,),)
def inline_nested(n):
    return [[i + j for j in range(i)] for i in range(n)], {i: {j: i for j in range(i)} for i in range(n)}


@case((3,),)
def inline_statement(n):
    seen = []
    [seen.append(i) for i in range(n)]
    return seen


@case((4,),)
def inline_filters_and_loops(n):
    return [(a, b) for a in range(n) if a for b in range(a) if b != 1 if a > b]


@case((3,),)
def inline_in_genexpr_and_lambda(n):
    g = ([j for j in range(i)] for i in range(n))
    f = lambda m: {k: [k] * m for k in range(m)}  # noqa: E731
    return list(g), f(n)


@case((3,),)
def inline_class_body(n):
    class C:
        base = 10
        items = [i for i in range(n)]
        pairs = {i: n for i in range(2)}
    return C.items, C.pairs


@case((3,),)
def inline_closure_in_comp(n):
    fs = [lambda: i for i in range(n)]
    return [f() for f in fs]


@case((3,), (0,))
def inline_closure_cell_outer_too(n):
    # `i` is a cell of the function as well: the comprehension saves and restores it.
    i = 5
    fs = [lambda: i for i in range(n)]
    g = lambda: i
    return [f() for f in fs], i, g()


@case((2,),)
def inline_closure_nested_and_dict(n):
    rows = [[lambda: (i, j) for j in range(2)] for i in range(n)]
    d = {i: lambda: i * 10 for i in range(n)}
    s = {(lambda: k)() for k in range(n)}
    return [[f() for f in r] for r in rows], [d[k]() for k in d], sorted(s)


@case(([1, 2, 3],), ([],))
def inline_async(xs):
    async def main():
        a = [x async for x in AIter(xs)]
        b = {x: await asyncio.sleep(0, x) for x in xs}
        c = [x for x in xs if await asyncio.sleep(0, x % 2)]
        return a, b, c
    return asyncio.run(main())
