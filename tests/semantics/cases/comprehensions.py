"""Comprehensions: list, set, dict, generator expressions; conditions, nested loops,
closures over locals, unpacking targets, walrus, comprehensions in class bodies."""

from _sem import case


@case((5,),)
def list_comp(n):
    return [x * x for x in range(n)]


@case((10,),)
def list_comp_condition(n):
    return [x for x in range(n) if x % 2 if x > 2]


@case((3,),)
def list_comp_nested_loops(n):
    return [(i, j) for i in range(n) for j in range(i) if i != j]


@case((3,),)
def list_comp_nested_comp(n):
    return [[i * j for j in range(n)] for i in range(n)]


@case(("hello",),)
def set_comp(s):
    return sorted({c.upper() for c in s}), {len(w) for w in s.split("l")} == {1, 0, 1}


@case((["a", "bb", "ccc"],),)
def dict_comp(words):
    return {w: len(w) for w in words}, {k: v for k, v in zip(words, range(3)) if v}


@case((4,),)
def generator_expr(n):
    g = (x + 1 for x in range(n))
    return next(g), list(g), sum(x for x in range(n) if x)


@case((3,),)
def comp_closure_over_local(n):
    k = n * 10
    return [x + k for x in range(n)], {x: k for x in range(2)}


@case(([(1, 2), (3, 4)],),)
def comp_unpacking_target(pairs):
    return [a + b for a, b in pairs], {b: a for a, b in pairs}, [x for (x, _), in [(p,) for p in pairs]]


@case(([[1, 2], [3]],),)
def comp_flatten(rows):
    return [x for row in rows for x in row], [x for row in rows if len(row) > 1 for x in row]


@case((4,),)
def comp_walrus(n):
    return [y for x in range(n) if (y := x * 3) % 2 == 0], [last := x for x in range(n)], last


@case((3,),)
def comp_in_class_body(n):
    class C:
        vals = [i * 2 for i in range(n)]
        sq = {i: i * i for i in range(n)}
    return C.vals, C.sq


@case((3,),)
def comp_shadowing(n):
    x = "outer"
    ys = [x for x in range(n)]
    return x, ys


@case((2,),)
def comp_lambda_capture(n):
    fs = [lambda: i for i in range(n)]
    gs = [lambda i=i: i for i in range(n)]
    return [f() for f in fs], [g() for g in gs]


@case((3,), (0,))
def comp_plain_after_cell(n):
    # `i` is a cell of the function (the first comprehension's closures capture
    # it); the later comprehensions bind it as a plain local.
    fs = [lambda: i for i in range(n)]
    evens = [i * 2 for i in range(n) if i % 2 == 0]
    d = {i: -i for i in range(n)}
    s = {i for i in range(n)}
    return [f() for f in fs], evens, d, sorted(s)


@case(([3, -1, 2],),)
def comp_conditional_element(xs):
    return [x if x > 0 else 0 for x in xs], ["p" if x > 0 else "n" if x < 0 else "z" for x in xs]


@case((3,),)
def comp_nested_generator_in_call(n):
    return max(sum(j for j in range(i)) for i in range(n + 2)), any(x > n for x in range(5))


@case((5,),)
def comp_iter_is_expression(n):
    xs = list(range(n))
    return [x for x in xs[1:-1]], [x for x in sorted(xs, reverse=True)[:2]], [c for c in "ab" * 2]


@case(([1, 2],),)
def comp_starred_element(xs):
    return [(*xs, i) for i in range(2)], [[i, *xs] for i in range(1)]


@case((3,),)
def comp_dict_nested(n):
    return {i: {j: i * j for j in range(i)} for i in range(n)}


@case((4,),)
def comp_async_free_generator_send(n):
    g = (x * 2 for x in range(n))
    out = [next(g)]
    out.extend(g)
    return out


@case(([None, 0, 1, 2, None],),)
def comp_conditional_condition(xs):
    # The test of a conditional expression jumps from each arm (dataclasses._hash_add).
    return [i for i, x in enumerate(xs) if (i % 2 if x is None else x)], {x for x in xs if (x if x is not None else 0)}


@case(([0, 1, 2, 3, 0], True, False),)
def comp_nested_conditional_element(xs, a, b):
    # Chained conditional expressions whose first test has several blocks (base64._85encode).
    return [b"z" if a and not x else b"y" if b and x == 3 else x + 1 for x in xs], [-x if a or b else x if x else 9 for x in xs]


@case((3,),)
def comp_class_body_reads_global(n):
    # 3.12+ gives the class body a fast slot for `len` that the comprehension saves
    # and restores (calendar._localized_month).
    class C:
        vals = [len(str(i)) for i in range(n)]
    return C.vals


@case(([3, 1, 2], 0), (None, 1), ([], 0))
def comp_iterable_with_branches(xs, k):
    # The iterable has branches of its own, so the comprehension function is made in
    # a block before the merge that calls it (asyncio.locks.Semaphore.locked).
    waiting = xs is None or any(not w for w in (xs or ()))
    return waiting, [x * 2 for x in (xs or ())], {x: k for x in (xs if k else [9])}, sorted({x for x in xs or [k] if x})


@case((None, [1, 2]), ([0, 5], None))
def comp_iterable_with_branches_nested(a, b):
    # A comprehension over `a or b` inside another one, and a generator over a
    # conditional expression passed on in a call.
    return [[y + x for y in (a or b)] for x in range(2)], list(x for x in (a if a else b))
