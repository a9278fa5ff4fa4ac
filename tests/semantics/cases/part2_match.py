# semantics: min-version 3.10
"""Part 2, match statements (3.10+): literal, capture, wildcard, value, sequence,
mapping, class, or and as patterns, guards; parenthesized with-items."""

import enum

from _sem import case


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Circle:
    __match_args__ = ("center", "r")

    def __init__(self, center, r):
        self.center = center
        self.r = r


class Ctx:
    def __init__(self, log, name):
        self.log = log
        self.name = name

    def __enter__(self):
        self.log.append(("enter", self.name))
        return self.name

    def __exit__(self, t, v, tb):
        self.log.append(("exit", self.name))
        return t is KeyError


LIMIT = 10
VALUES = ((0,), (1,), (2,), ("a",), (None,), (True,), (1.5,), ([1, 2],), ((1, 2, 3),),
          ({"k": 1},), ({"k": 1, "v": 2},), (Point(1, 2),), (Point(0, 0),),
          (Circle(Point(0, 0), 3),), (Color.RED,), ("xyz",), ([],), ([1, [2, 3]],))


@case(*VALUES)
def match_literals(v):
    match v:
        case 0:
            return "zero"
        case 1:
            return "one"
        case "a":
            return "letter a"
        case None:
            return "none"
        case True:
            return "true"
        case 1.5:
            return "float"
        case -1:
            return "minus one"
        case b"b":
            return "bytes"
    return "no match"


@case(*VALUES)
def match_capture(v):
    match v:
        case 0:
            return "zero"
        case other:
            return "captured", type(other).__name__


@case(*VALUES)
def match_wildcard(v):
    match v:
        case "a":
            r = 1
        case _:
            r = 2
    return r


@case(*VALUES)
def match_value_patterns(v):
    match v:
        case Color.RED:
            return "red"
        case Color.GREEN:
            return "green"
        case LIMIT:
            return "limit"
    return "not a value"


@case(*VALUES)
def match_sequence(v):
    match v:
        case []:
            return "empty"
        case [x]:
            return "one", x
        case [x, y]:
            return "two", x + y if isinstance(x, int) and isinstance(y, int) else None
        case [x, y, z]:
            return "three", z
        case _:
            return "other"


@case(*VALUES)
def match_sequence_star(v):
    match v:
        case [first, *rest]:
            return first, rest
        case (*init, last) if False:
            return last
        case _:
            return None


@case(*VALUES)
def match_sequence_star_middle(v):
    match v:
        case [a, *mid, b]:
            return a, mid, b
        case [*_]:
            return "short"
    return "not a sequence"


@case(*VALUES)
def match_nested_sequence(v):
    match v:
        case [a, [b, c]]:
            return a + b + c
        case (a, b, *_):
            return "tuple-ish", a, b
    return "no"


@case(*VALUES)
def match_mapping(v):
    match v:
        case {"k": 1, "v": val}:
            return "kv", val
        case {"k": k}:
            return "k", k
        case {}:
            return "empty mapping"
    return "not mapping"


@case(*VALUES)
def match_mapping_rest(v):
    match v:
        case {"k": _, **rest}:
            return rest
        case _:
            return None


@case(*VALUES)
def match_class_positional(v):
    match v:
        case Point(0, 0):
            return "origin"
        case Point(x, 0):
            return "on x", x
        case Point(x, y):
            return "point", x, y
        case Circle(Point(x=cx), r):
            return "circle", cx, r
    return "not a shape"


@case(*VALUES)
def match_class_keyword(v):
    match v:
        case Point(x=0, y=yy):
            return "x zero", yy
        case Point(y=2):
            return "y two"
        case Circle(r=r) if r > 2:
            return "big", r
    return "no"


@case(*VALUES)
def match_builtin_classes(v):
    match v:
        case bool(b):
            return "bool", b
        case int(i):
            return "int", i
        case str() as s:
            return "str", len(s)
        case float(f):
            return "float", f
        case list() | tuple():
            return "seq"
        case dict(d):
            return "dict", len(d)
    return "other"


@case(*VALUES)
def match_or_patterns(v):
    match v:
        case 0 | 1 | 2:
            return "small"
        case "a" | "xyz":
            return "str"
        case [1, _] | (1, _, _):
            return "starts with one"
        case Point(x=0) | Point(y=0):
            return "axis"
    return "no"


@case(*VALUES)
def match_as_patterns(v):
    match v:
        case (0 | 1) as small:
            return "small", small
        case [1, (2 | 3) as second]:
            return "second", second
        case Point(x=px) as p:
            return "p", px, p.y
        case [_, [_, _] as inner]:
            return "inner", inner
    return "no"


@case(*VALUES)
def match_guards(v):
    match v:
        case int(n) if n > 1:
            return "big int"
        case int(n) if n == 1 or n == 0:
            return "small int", n
        case [x, *_] if x == 1:
            return "list from one"
        case {"k": k} if k:
            return "truthy k"
        case _ if v is None:
            return "none by guard"
    return "no"


@case(*VALUES)
def match_in_loop_with_break(v):
    out = []
    for item in (v, 0, "stop", 1):
        match item:
            case "stop":
                break
            case 0:
                continue
            case _:
                out.append(item if not isinstance(item, Point) else "pt")
    return out


@case(*VALUES)
def match_falls_through_to_after(v):
    r = "start"
    match v:
        case [*_]:
            r = "seq"
        case Point():
            r = "point"
    r += "!"
    return r


@case(*VALUES)
def match_capture_binds_after(v):
    match v:
        case [x, *_]:
            pass
        case {"k": x}:
            pass
        case x:
            x = "fallback"
    return x


@case(*VALUES)
def match_subject_expression(v):
    match v, LIMIT:
        case (0, 10):
            return "zero with limit"
        case (Point(), n):
            return "point", n
        case (x, _):
            return "tuple subject", type(x).__name__


@case(*VALUES)
def match_in_try(v):
    try:
        match v:
            case [a, b]:
                return a / (b - 2)
            case {"k": k}:
                return 1 / (k - 1)
    except ZeroDivisionError:
        return "div"
    return "none"


@case((1,), (0,), ("k",))
def with_parenthesized_items(x):
    log = []
    with (
        Ctx(log, "a") as a,
        Ctx(log, "b") as b,
    ):
        log.append((a, b))
        if x == "k":
            raise KeyError(x)
        log.append(1 / x)
    return log
