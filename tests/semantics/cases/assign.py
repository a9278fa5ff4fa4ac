"""Assignment forms: unpacking (nested, starred), chained, augmented on names,
attributes, subscripts and slices, del, global."""

from _sem import case

counter = 0
registry = []


class NS(object):
    def __init__(self):
        self.n = 1
        self.items = [1, 2]


@case(((1, 2),), ([3, 4],))
def unpack_pair(p):
    a, b = p
    return b, a


@case((1, 2),)
def swap_values(a, b):
    a, b = b, a
    return a, b


@case((1, 2, 3),)
def rotate_three(a, b, c):
    a, b, c = b, c, a
    return a, b, c


@case((1, 2, 3, 4),)
def rotate_four(a, b, c, d):
    a, b, c, d = d, c, b, a
    return a, b, c, d


@case(([1, [2, 3], 4],),)
def unpack_nested(xs):
    a, (b, c), d = xs
    return a + b + c + d, (a, b, c, d)


@case(([1, 2, 3, 4, 5],), ([1, 2],))
def unpack_starred_middle(xs):
    first, *middle, last = xs
    return first, middle, last


@case(([1, 2, 3],), ([1],))
def unpack_starred_ends(xs):
    *init, last = xs
    head, *tail = xs
    return init, last, head, tail


@case(([(1, 2), (3, 4)],),)
def unpack_in_for(pairs):
    out = []
    for a, b in pairs:
        out.append(a * b)
    for i, (a, b) in enumerate(pairs):
        out.append(i + a - b)
    return out


@case(([1, 2, 3],),)
def unpack_starred_in_for(rows):
    out = []
    for first, *rest in [rows, rows[::-1]]:
        out.append((first, rest))
    return out


@case((1,), (2,))
def unpack_error(n):
    a, b = range(n)
    return a, b


@case((5,),)
def chained_assignment(x):
    a = b = c = x
    d = e = [x]
    e.append(1)
    return a, b, c, d is e, d


@case(([0, 0],),)
def chained_assignment_targets(xs):
    o = NS()
    xs[0] = o.n = y = 7
    a, b = xs[1], c = (3, 4)
    return xs, o.n, y, a, b, c


@case((5, 2),)
def augmented_names(a, b):
    a += b
    a -= 1
    a *= b
    a //= 3
    a **= 2
    a %= 7
    a <<= b
    a >>= 1
    a |= 8
    a &= 0xff
    a ^= b
    c = 7.0
    c /= 2
    return a, c


@case(([1, 2, 3], {"k": 1}),)
def augmented_subscripts(xs, d):
    xs[0] += 10
    xs[-1] *= 2
    d["k"] -= 5
    d.setdefault("n", 0)
    d["n"] += len(xs)
    i = 1
    xs[i + 0] **= 2
    return xs, d


@case((),)
def augmented_attributes():
    o = NS()
    o.n += 1
    o.n *= 5
    o.items += [3]
    o.items[0] += 100
    return o.n, o.items


@case(([1, 2, 3, 4],),)
def augmented_slices(xs):
    xs[1:3] += [9]
    xs[:1] *= 2
    return xs


@case(([1],),)
def augmented_list_aliasing(xs):
    ys = xs
    ys += [2]
    t = (1,)
    u = t
    u += (2,)
    return xs, ys is xs, t, u


@case((3,),)
def global_read_write(n):
    global counter
    counter += n
    counter = counter * 2
    return counter


@case((4,),)
def global_declared_assign(n):
    global new_global_value
    new_global_value = n * 3
    return new_global_value + 1


@case(("x",),)
def global_mutation_without_decl(v):
    registry.append(v)
    return len(registry), registry[-1]


@case((2,),)
def del_names(n):
    a = n
    b = [a]
    del a
    try_name = "a" in dir()
    del b[0], b
    return try_name, n


@case((1,),)
def del_then_use(n):
    x = n
    del x
    return x


@case((),)
def del_global():
    global scratch_global
    scratch_global = 1
    del scratch_global
    return "scratch_global" in globals()


@case(("abc",),)
def unpack_string(s):
    a, b, c = s
    x, *y = s
    return c + b + a, x, y


@case(({"a": 1, "b": 2},),)
def unpack_dict_items(d):
    out = []
    for k, v in d.items():
        out.append(k * v)
    (k1, v1), *_ = d.items()
    return out, k1, v1


@case(([1, 2, 3],),)
def unpack_to_attr_and_subscript(xs):
    o = NS()
    d = {}
    o.n, d["x"], *o.items = xs
    return o.n, d, o.items


@case((1, 2),)
def annotated_locals(a, b):
    x: int = a + b
    y: list
    z: "str" = "s"
    return x, z


@case(([(1, 2, 3), (4, 5, 6)],))
def repeated_unpack_targets(rows):
    # 3.13+ compile the first of two stores to `_` in a row as POP_TOP.
    _, _, last = rows[0]
    return [x for _, _, x in rows], last, _
