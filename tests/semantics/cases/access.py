"""Attributes, subscripts and slices: loads, stores, deletes, nested, on calls."""

from _sem import case


class NS(object):
    pass


def obj(**kw):
    o = NS()
    o.__dict__.update(kw)
    return o


@case((obj(a=1, b=obj(c=2)),),)
def attribute_loads(o):
    return o.a, o.b.c, o.b.__class__.__name__, getattr(o, "a"), hasattr(o.b, "c")


@case((obj(a=1),),)
def attribute_stores(o):
    o.a = 5
    o.b = obj()
    o.b.c = o.a * 2
    o.b.d = o.b.c = 7
    return o.a, o.b.c, o.b.d


@case((obj(a=1, b=2),),)
def attribute_delete(o):
    del o.a
    return hasattr(o, "a"), o.b


@case(([1, 2, 3], {"k": [4, 5]}),)
def subscript_loads(xs, d):
    return xs[0], xs[-1], d["k"][1], xs[len(xs) - 1], d.get("k")[0], [xs][0][1]


@case(([1, 2, 3], {"k": 1}),)
def subscript_stores(xs, d):
    xs[0] = 10
    xs[-1] = xs[0] + 1
    d["new"] = xs
    d["k"] = d["new"][1] = 99
    return xs, d


@case(([1, 2, 3, 4], {"a": 1, "b": 2}),)
def subscript_delete(xs, d):
    del xs[0]
    del d["a"]
    del xs[-1], d["b"]
    return xs, d


@case(([0, 1, 2, 3, 4, 5, 6],),)
def slice_loads(xs):
    return xs[1:3], xs[:2], xs[4:], xs[:], xs[::2], xs[1::2], xs[:-1:3], xs[::-1], xs[-3:-1]


@case(([0, 1, 2, 3, 4, 5], 1, 4),)
def slice_with_variables(xs, i, j):
    return xs[i:j], xs[i:], xs[:j], xs[i:j:2], xs[i + 1:j - 1], xs[-i:], xs[slice(i, j)]


@case(([0, 1, 2, 3, 4, 5],),)
def slice_stores(xs):
    xs[1:3] = ["a", "b", "c"]
    xs[:1] = []
    xs[::2] = xs[::2][::-1]
    return xs


@case(([0, 1, 2, 3, 4, 5],),)
def slice_delete(xs):
    del xs[1:3]
    del xs[::2]
    return xs


@case((),)
def tuple_subscripts():
    d = {}
    d[1, 2] = "a"
    d[(3, 4)] = "b"
    d[()] = "c"
    return d[1, 2], d[3, 4], d[()], sorted(d, key=str)


@case(("hello",),)
def string_slicing(s):
    return s[1:], s[-2:], s[::-1], s[1:4:2], s[0] + s[-1]


@case(([[1, 2], [3, 4]],),)
def nested_subscripts(m):
    m[0][1] = m[1][0] * 10
    return m[0][1], m[1][-1], [row[0] for row in m], m[-1][::-1]


@case((obj(xs=[1, 2, 3], d={"a": obj(v=1)}),),)
def mixed_attr_subscript(o):
    o.xs[0] = o.d["a"].v
    o.d["a"].v = o.xs[1:]
    return o.xs, o.d["a"].v, o.xs[len(o.xs) - 1:]


@case(([1, 2, 3],),)
def subscript_of_call(xs):
    return sorted(xs)[-1], list(reversed(xs))[0], "a,b".split(",")[1], dict(a=xs)["a"][1:]
