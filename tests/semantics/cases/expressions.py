"""Operators and precedence: arithmetic, bitwise, unary, power, comparisons, and/or/not,
conditional expressions, walrus, lambda."""

from _sem import case


@case((2, 3, 4), (-1, 5, 7))
def arith_precedence(a, b, c):
    return a + b * c, (a + b) * c, a - b - c, a - (b - c), a * b % c, a * (b % c)


@case((7, 2), (-7, 2), (7, -3))
def division_forms(a, b):
    return a / b, a // b, a % b, divmod(a, b), -a // b, -(a // b)


@case((2, 3), (-2, 2), (3, 0))
def power_forms(a, b):
    return a ** b, -a ** b, (-a) ** b, a ** -b if a else 0, 2 ** 3 ** 2, (2 ** 3) ** 2


@case((5, 3), (-6, 2))
def bitwise_ops(a, b):
    return a & b, a | b, a ^ b, ~a, a << b, a >> 1, a & b | a ^ b, a & (b | a) ^ b


@case((3, 1), (0, 9))
def unary_chain(a, b):
    return -a, +a, --a, -+a, not a, not not b, ~-a, -(a + b), -a ** 2


@case((3, [1]), (0, []), ("", "x"))
def not_not_value_uses(a, b):
    # 3.13+ fold `not not x` into a lone TO_BOOL whose bool is the value here.
    x = not not b
    y = (not not a) + 1
    z = [not not a, not not b]
    w = f"{not not b}"
    if not not a:
        x = -x
    return x, y, z, w, str(not not a), not not (a and b), not not (a or b)


@case((3,), (0,), ([],))
def not_not_returned(a):
    return not not a


@case((1, 2, 3), (3, 2, 1), (1, 1, 1))
def mixed_precedence(a, b, c):
    return a + b << c, a + (b << c), a | b & c, (a | b) & c, a < b == c, a << b + c


@case(("ab", 3), ("", 2))
def string_ops(s, n):
    return s * n, s + s, n * s + "x", "%s-%d" % (s, n), "%r" % (s,), s in "xaby"


@case(([1, 2], [3]), ([], []))
def list_ops(a, b):
    return a + b, a * 2, 2 * b, [0] + a + b, a == b, a != b, a is b, a is not b


@case((1, 2, 3), (3, 2, 1), (2, 2, 2), (1, 3, 2))
def chained_compare(a, b, c):
    return a < b < c, a <= b <= c, a < b > c, a == b == c, a != b != c, a < b < c < 4


@case((1, [1, 2]), (5, [1, 2]), (None, [None]))
def membership_identity(x, xs):
    return x in xs, x not in xs, x is None, x is not None, not x in xs, not (x is None)


@case((0, 1), (1, 0), (2, 3), ("", "a"))
def and_or_values(a, b):
    return a and b, a or b, a and b or 7, a or b and 7, (a or b) and 7, not a and b


@case((0, 0, 0), (1, 0, 2), (1, 2, 0), (0, 3, 4))
def nested_bool_ops(a, b, c):
    return (a and b) or (b and c), a and (b or c), (a or b) and (b or c), a or b or c, a and b and c


@case((0,), (1,), (-3,))
def conditional_expr(x):
    return "pos" if x > 0 else "neg" if x < 0 else "zero"


@case((1, 2), (0, 2), (3, 0))
def conditional_in_expr(a, b):
    return (a if a else b) + 1, a + (b if b else 10), [a if a > b else b for _ in range(2)]


@case((True, False), (False, True))
def conditional_bool(a, b):
    return (a if b else not a), (not a if a else b), (1 if a and b else 2 if a or b else 3)


@case(([1, 2, 3, 4],), ([],))
def walrus_in_condition(xs):
    if (n := len(xs)) > 2:
        return n, "long"
    return n, "short"


@case(([5, 0, 3],), ([],))
def walrus_in_comprehension(xs):
    ys = [y for x in xs if (y := x * 2) > 0]
    return ys


@case((10,), (0,))
def walrus_in_while(n):
    out = []
    while (n := n - 3) > 0:
        out.append(n)
    return out, n


@case((3,), (4,))
def walrus_nested_expr(x):
    return (y := x + 1) * (z := y * 2), y, z


@case((4,), (-2,))
def lambda_simple(x):
    f = lambda a: a * 2
    g = lambda a, b=3: a + b
    return f(x), g(x), g(x, 1), (lambda: x)()


@case((1, 2),)
def lambda_varargs(a, b):
    f = lambda *args, **kw: (args, sorted(kw.items()))
    g = lambda a, *, k=5: a * k
    return f(a, b, c=3), g(a), g(a, k=b)


@case((3,),)
def lambda_closure(n):
    adders = [lambda x, i=i: x + i for i in range(n)]
    mul = lambda x: lambda y: x * y
    return [f(10) for f in adders], mul(n)(4)


@case((5,), (0,))
def lambda_conditional_body(x):
    f = lambda v: "big" if v > 3 else "small"
    g = lambda v: v and v - 1 or None
    return f(x), g(x), sorted([3, 1, 2], key=lambda v: -v)


@case((2.5, 2), (-1.5, 3))
def float_arith(x, n):
    return x * n, x / n, x // 1, x % 1, round(x * n, 3), abs(x), -x, x ** 2


@case((3, 4),)
def complex_arith(a, b):
    z = complex(a, b)
    return z * 1j, z + 2j, abs(z), z.conjugate(), -z, z ** 2


@case((1, 2, 3),)
def tuple_expressions(a, b, c):
    t = a, b, c
    u = (a,)
    v = ()
    return t, u, v, (t, u), t + u, t[::-1], len(t)


@case((2,), (0,))
def compare_mixed_ops(x):
    return x == 2 and x != 3, not x == 2, -x < x < x * 2, (x > 0) == (x >= 1), x in (1, 2) or x == 0


@case((5,), (11,))
def comparisons_with_calls(x):
    return min(x, 10) < max(x, 3) <= abs(-x), len(str(x)) == 1 < x
