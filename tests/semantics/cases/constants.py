"""Constants whose repr round-trips: ints (big, negative), floats (inf, nan, -0.0,
exponents), complex, str escapes, bytes, tuples, frozensets, None/True/False,
Ellipsis; folded constant expressions."""

from _sem import case


@case((),)
def int_constants():
    return 0, 1, -1, 255, -256, 2 ** 31, 2 ** 63 - 1, 2 ** 63, -2 ** 63, 0x7fffffff


@case((),)
def big_int_constants():
    return 123456789012345678901234567890, -98765432109876543210987654321, 10 ** 40, 1 << 100


@case((),)
def float_constants():
    return 0.0, -0.0, 1.5, -2.25, 1e300, 1e-300, 3.141592653589793, 0.1 + 0.2, 1e16, 123456789.125


@case((),)
def float_special_constants():
    return 1e400, -1e400, float("inf"), 1e400 * 0, -(1e400 * 0)


@case((),)
def negative_zero_forms():
    a = -0.0
    b = 0.0 * -1
    c = (-0.0, 0.0)
    return a, b, c, str(-0.0), 1 / -1e400


@case((),)
def complex_constants():
    return 1j, -1j, 2 + 3j, 2 - 3j, -0j, 0j, 1e400j, -(1e400j), complex(0.0, -0.0), 1.5j * 2


@case((),)
def string_constants():
    return "", "a", "quote'", 'dq"', "both'\"", "\n\t\\", "\x00\x7f", "é", "\u2603", "\U0001f600", "\ud800"


@case((),)
def bytes_constants():
    return b"", b"abc", b"\x00\xff", b"'\"", b"\n\\", bytes(3), b"a" * 3


@case((),)
def tuple_constants():
    return (), (1,), (1, 2), ((1, 2), (3,)), (None, True, False), ("a", b"b", 1.5, 2j)


@case((3,),)
def frozenset_constants(x):
    return x in {1, 2, 3}, x not in {"a", "b"}, x in frozenset({1}), x in {1.5, 3}


@case((),)
def frozenset_values():
    a = frozenset({1, 2})
    return sorted(a), frozenset() == frozenset([]), {1, 2} | {3}


@case((),)
def singleton_constants():
    return None, True, False, ..., Ellipsis, NotImplemented, __debug__


@case((),)
def folded_expressions():
    return 2 * 3 + 1, "ab" * 3, (1, 2) + (3,), -(5), not True, 7 // 2, 2 ** 10, 1 << 3, ~5


@case((),)
def long_string_constants():
    return "x" * 100, "abc" * 10, len("y" * 5000), (1,) * 3, b"z" * 8


@case((),)
def nested_tuple_with_specials():
    return ((1e400, -0.0), (1j, None), (b"", "")), ((), ((),))


@case((),)
def list_dict_set_displays():
    return [1, 2, 3], [], {"a": 1, "b": [2]}, {}, {1, 2}, set(), [[]], {"k": {"n": None}}


@case((1, 2),)
def displays_with_unpacking(a, b):
    xs = [a, b]
    d = {"x": a}
    return [*xs, 3], (*xs,), {*xs, 5}, {**d, "y": b}, {"z": 0, **d}, [*xs, *xs], {**d, **{"q": 1}}


@case((),)
def constant_conditions():
    out = []
    if True:
        out.append(1)
    if False:
        out.append(2)
    if None:
        out.append(3)
    if 0:
        out.append(4)
    else:
        out.append(5)
    while False:
        out.append(6)
    return out


@case((),)
def docstring_like_string_statement():
    "not a docstring in effect, the function returns"
    return 1


@case((),)
def int_float_mixed_equality():
    return 1 == 1.0, 0.0 == -0.0, 1e400 == 1e400, (1e400 * 0) == (1e400 * 0), 2 ** 53 + 1.0
