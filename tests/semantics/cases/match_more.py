# semantics: min-version 3.10
"""More match statements: every pattern kind nested inside sequence, mapping and class
patterns, bodies that fall through, nested matches, captures in closures."""

import enum

from _sem import case


class Color(enum.Enum):
    RED = 1
    GREEN = 2


class Pt:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Box:
    __match_args__ = ("item",)

    def __init__(self, item):
        self.item = item


VALUES = ((0,), (-1,), (None,), (True,), (False,), ([None, 1],), ([True, -2],),
          ([1, 2, 3, 4],), ((5,),), ({"a": None},), ({"a": 1, "b": [2, 3]},),
          (Pt(1, -1),), (Pt(Color.RED, 2),), (Box(Pt(0, 0)),), (Box([1, "s"]),),
          ([Color.GREEN, 2.5],), ("str",), ({"a": Pt(1, 2)},), ([[1], [2, 3]],),
          ([1, 2j],), ({"a": {"b": 1}},), (Box(None),), (b"ab",), ([],))


@case(*VALUES)
def nested_literals(v):
    match v:
        case [None, x]:
            return "none-first", x
        case [True, -2]:
            return "true-minus-two"
        case [1, 2j]:
            return "complex"
        case [Color.GREEN, f]:
            return "green", f
        case [first, *rest]:
            return "star", first, rest
    return "none"


@case(*VALUES)
def class_nesting(v):
    match v:
        case Pt(Color.RED, y):
            return "red", y
        case Pt(x, y=-1):
            return "y-1", x
        case Box(Pt(0, 0) as p):
            return "origin box", p.x
        case Box([a, str() as s]):
            return "box list", a, s
        case Box(None):
            return "empty box"
        case Box(item=it):
            return "box", type(it).__name__
    return "other"


@case(*VALUES)
def mapping_nesting(v):
    match v:
        case {"a": None}:
            return "a none"
        case {"a": 1, "b": [x, y]}:
            return "a1", x, y
        case {"a": Pt(x=px)}:
            return "pt", px
        case {"a": {"b": b}}:
            return "nested", b
    return "other"


@case(*VALUES)
def falls_through(v):
    out = []
    match v:
        case [a, b]:
            out.append(a)
            out.append(b)
        case [a, b, *c]:
            out.append(len(c))
        case Pt(x, y):
            out.append(x)
        case _:
            out.append("default")
    out.append("after")
    return out


@case(*VALUES)
def nested_match(v):
    match v:
        case [a, *rest]:
            match a:
                case [x]:
                    return "inner", x
                case Pt(x, y):
                    return "pt", x
            return "outer", len(rest)
        case Box(b):
            return "box"
    return "no"


@case(*VALUES)
def guards_and_bindings(v):
    match v:
        case [x, *_] if x:
            r = ("truthy head", x)
        case Pt(x, y) if x == y or y == -1:
            r = ("pt", x, y)
        case {"a": a} if a is not None:
            r = ("a", a)
        case _:
            r = "nothing"
    return r


@case(*VALUES)
def captured_in_closure(v):
    match v:
        case [x, y, *_]:
            return (lambda: (x, y))()
        case Pt(x, y):
            return (lambda: x)()
    return None


@case(*VALUES)
def subject_call(v):
    def f():
        return v

    match f():
        case [_, _]:
            return "pair"
        case Pt(_, _):
            return "pt"
        case {"a": _}:
            return "has a"
    return "other"


@case([[1, 2], [3], Pt(1, 2), "x", [4, 5]])
def match_in_loop(items):
    out = []
    for it in items:
        match it:
            case [a, b]:
                out.append(a + b)
                continue
            case Pt(x, y):
                out.append(x * y)
            case _:
                break
        out.append("tail")
    return out
