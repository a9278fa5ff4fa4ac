"""Control flow: if/elif/else, while/for with else, break and continue, assert,
raise and raise from, early returns."""

from _sem import case


@case((0,), (1,), (2,), (-5,))
def if_elif_else(x):
    if x == 0:
        r = "zero"
    elif x == 1:
        r = "one"
    elif x > 1:
        r = "many"
    else:
        r = "negative"
    return r


@case((0, 0), (1, 0), (0, 1), (1, 1))
def nested_if(a, b):
    out = []
    if a:
        if b:
            out.append("ab")
        else:
            out.append("a")
    else:
        if b:
            out.append("b")
        out.append("end")
    return out


@case((0, 0, 0), (1, 2, 0), (1, 0, 3), (0, 1, 1))
def if_compound_conditions(a, b, c):
    r = []
    if a and b:
        r.append(1)
    if a or b:
        r.append(2)
    if not a and (b or c):
        r.append(3)
    if a and not b or c:
        r.append(4)
    if (a or b) and (b or c):
        r.append(5)
    return r


@case((1, 2, 3), (3, 2, 1), (1, 1, 1))
def if_chained_compare(a, b, c):
    if a < b < c:
        return "inc"
    if a > b > c:
        return "dec"
    return "other"


@case((0,), (5,))
def if_without_else_returns(x):
    if x:
        return x * 2
    return -1


@case((5,),)
def while_loop(n):
    i, total = 0, 0
    while i < n:
        total += i
        i += 1
    return total


@case((10,), (3,))
def while_break_continue(n):
    i, out = 0, []
    while True:
        i += 1
        if i % 2:
            continue
        if i > n:
            break
        out.append(i)
    return out


@case((5, 3), (5, 9))
def while_else(n, target):
    i = 0
    while i < n:
        if i == target:
            found = True
            break
        i += 1
    else:
        found = False
    return found, i


@case(([1, 2, 3],), ([],))
def for_loop(xs):
    total = 0
    for x in xs:
        total += x
    return total


@case(([1, 2, 3, 4], 3), ([1, 2], 7))
def for_else_break(xs, target):
    for i, x in enumerate(xs):
        if x == target:
            where = i
            break
    else:
        where = None
    return where


@case((range(10),),)
def for_continue(xs):
    out = []
    for x in xs:
        if x % 3 == 0:
            continue
        elif x > 7:
            break
        out.append(x)
    return out


@case((3,),)
def nested_loops(n):
    pairs = []
    for i in range(n):
        for j in range(n):
            if j > i:
                break
            if j == 1:
                continue
            pairs.append((i, j))
    return pairs


@case((4,),)
def nested_loops_with_else(n):
    primes = []
    for k in range(2, n * 5):
        for d in range(2, k):
            if k % d == 0:
                break
        else:
            primes.append(k)
    return primes


@case((3,),)
def while_in_for(n):
    out = []
    for i in range(n):
        j = i
        while j > 0:
            out.append((i, j))
            j -= 1
    return out


@case(([3, 0, 5],),)
def for_return_inside(xs):
    for x in xs:
        if not x:
            return "found zero"
    return "none"


@case((0,), (4,))
def while_return_inside(n):
    while n:
        if n == 2:
            return "two"
        n -= 1
    return "end"


@case((1,), (-1,))
def assert_simple(x):
    assert x > 0
    return x


@case((1,), (-1,))
def assert_message(x):
    assert x > 0, "x must be positive, got %d" % x
    return x


@case((1, 1), (1, 0), (0, 1))
def assert_compound(a, b):
    assert a and b or not a, f"bad {a} {b}"
    return a, b


@case((0,), (1,))
def raise_simple(x):
    if x:
        raise ValueError("boom %d" % x)
    return "ok"


@case((1,),)
def raise_class(x):
    raise KeyError


@case((1,),)
def raise_from(x):
    err = KeyError("missing %d" % x)
    exc = RuntimeError("wrapped")
    raise exc from err


@case((1,),)
def raise_from_call(x):
    raise RuntimeError("outer") from ValueError(x)


@case((1,),)
def raise_from_none(x):
    raise TypeError("no context %d" % x) from None


@case((0,), (3,))
def early_returns_chain(x):
    if x == 0:
        return "a"
    if x == 1:
        return "b"
    elif x == 2:
        return "c"
    return "d"


@case((0,), (1,))
def if_pass_branches(x):
    if x:
        pass
    else:
        x = 10
    return x


@case((5,),)
def while_with_complex_condition(n):
    i, j = 0, n
    while i < j and (j - i > 1 or i == 0):
        i += 1
        j -= 1
    return i, j


@case((6,),)
def for_over_dict_and_modify(n):
    d = {i: i * i for i in range(n)}
    for k in list(d):
        if k % 2:
            del d[k]
    return d


@case(([1, 2, 3],),)
def for_target_attribute_and_subscript(xs):
    class O:
        pass
    o = O()
    d = {}
    for o.v in xs:
        pass
    for d["k"] in xs[:2]:
        pass
    return o.v, d


@case((3,),)
def loop_variable_after_loop(n):
    for i in range(n):
        pass
    for j in []:
        pass
    return i, "j" in dir()


@case((4,),)
def if_expression_statement(x):
    out = []
    out.append(1) if x > 2 else out.append(2)
    x > 3 and out.append(3)
    x < 3 or out.append(4)
    return out


@case((3,), (0,))
def while_else_no_break(n):
    out = []
    while n > 0:
        n -= 1
        out.append(n)
    else:
        out.append("else")
    return out


@case(([5, 6],),)
def for_else_no_break(xs):
    total = 0
    for x in xs:
        total += x
    else:
        total *= 10
    return total


@case((7,),)
def elif_chain_long(x):
    if x < 1:
        return 1
    elif x < 2:
        return 2
    elif x < 3:
        return 3
    elif x < 4:
        return 4
    elif x < 5:
        return 5
    elif x < 6:
        return 6
    else:
        return 7


@case((None, [1]), (1, [1]), (None, [2]))
def assert_identity_and_membership(x, xs):
    # 3.8 loads AssertionError with LOAD_GLOBAL; its `is`/`in` tests jump on true.
    assert x is None, "x must be None"
    assert 1 in xs
    assert x is not None or xs, xs
    return xs


@case(([1, None],), ([2, 3],))
def assert_in_loop_identity(xs):
    n = 0
    for x in xs:
        assert x is not None
        n += x
    return n


@case((0, 5), (1, 5), (2, 5), (3, 5))
def if_pass_elif_chain(whence, offset):
    # `if c: pass` then `elif`s: the test falls into a block that only jumps past
    # the chain (_compression.DecompressReader.seek).
    if whence == 0:
        pass
    elif whence == 1:
        offset = offset + 1
    elif whence == 2:
        offset = -offset
    else:
        return None
    return offset


@case(("a",), ([1],), ((2,),))
def if_pass_elif_not(value):
    # `if a: pass elif not b: X` (distutils.dist._ensure_list).
    if isinstance(value, str):
        pass
    elif not isinstance(value, list):
        value = list(value)
    return value


@case(([0, 1, None],),)
def if_pass_else_in_loop(xs):
    out = []
    for x in xs:
        if x is None:
            pass
        else:
            out.append(x)
    return out
