# semantics: min-version 3.10
"""Or-patterns (with and without captures, nested, under `as`, in class, mapping and
sequence patterns, with guards), captures bound in a different order by each
alternative, and mapping `**rest`."""

from _sem import case


class Pt:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


VALUES = ((0,), (1,), (2,), (3,), ("a",), (None,), (True,), ([1, 2],), ((2, 1),),
          ([1, 2, 3],), ([0, [5, 6]],), ({"x": 1, "y": 2},), ({"x": 3, "y": 4, "z": 5},),
          ({"k": 0},), (Pt(1, 2),), (Pt(0, 7),), (Pt(3, 0),), ([],), ([[1], 2],),
          ({"a": [1, 2]},), ("xyz",), (b"x",))


@case(*VALUES)
def literals_only(v):
    match v:
        case 0 | 1:
            return "bit"
        case "a" | "xyz":
            return "text"
    return "other"


@case(*VALUES)
def alternatives_without_captures(v):
    match v:
        case [1, _] | (2, _, _) | []:
            return "seq"
        case {"x": 1} | {"k": 0}:
            return "map"
        case Pt(x=0) | Pt(y=0):
            return "axis"
        case None | True:
            return "singleton"
    return "other"


@case(*VALUES)
def alternatives_with_captures(v):
    match v:
        case [x] | [x, 2] | (x, 2, 3):
            return "x", x
        case [x, y] | {"x": x, "y": y}:
            return "xy", x, y
        case Pt(a, b) | {"a": [a, b]}:
            return "ab", a, b
    return "none"


@case(*VALUES)
def captures_in_another_order(v):
    match v:
        case [x, y] | {"y": y, "x": x} | Pt(y, x):
            return x, y
        case [p, q, r] | (r, q, p, _):
            return p, q, r
    return None


@case(*VALUES)
def nested_alternatives(v):
    match v:
        case [0 | 1, [5 | 6, n]] | [[n], 2 | 3]:
            return "nested", n
        case (0 | 1) as bit:
            return "bit", bit
        case Pt(0 | 1 | 3, (0 | 2) as y):
            return "pt", y
        case [*_, (2 | 3) as last]:
            return "last", last
    return "no"


@case(*VALUES)
def alternatives_with_guards(v):
    match v:
        case [x, _] | (x, _, _) if x > 1:
            return "big first", x
        case [x, _] | (x, _, _) if x == 1:
            return "one first"
        case {"x": n} | Pt(x=n) if n:
            return "truthy n", n
        case 0 | 1 if v:
            return "one"
        case _:
            return "rest"


@case(*VALUES)
def alternatives_fall_through(v):
    r = []
    match v:
        case [a, *_] | {"x": a}:
            r.append(a)
        case Pt(x=a) | Pt(y=a) if a == 7:
            r.append("seven")
        case "a" | b"x":
            r.append("bytes or str")
    r.append("end")
    return r


@case(*VALUES)
def alternative_capture_in_loop(v):
    out = []
    for item in (v, [9], "stop", 4):
        match item:
            case "stop" | None:
                break
            case [n] | {"k": n}:
                out.append(n)
                continue
            case 0 | 4:
                out.append("z")
        out.append("-")
    return out


@case(*VALUES)
def mapping_rest(v):
    match v:
        case {"x": 1, "y": y, **rest}:
            return "xy", y, sorted(rest)
        case {"k": _, **others}:
            return "k", others
        case {**everything} if len(everything) > 1:
            return "big", sorted(everything)
        case {**everything}:
            return "small", everything
    return "not a mapping"


@case(*VALUES)
def mapping_rest_in_alternatives(v):
    match v:
        case {"x": x, **rest} | {"a": x, **rest}:
            return x, sorted(rest)
        case [{"z": _, **rest}] | Pt(x={**rest}):
            return "inner", rest
    return None


@case(*VALUES)
def top_level_literals_among_patterns(v):
    match v:
        case None:
            return "none"
        case 0:
            return "zero"
        case [x, *_] | (x,):
            return "first", x
        case "a":
            return "a"
        case b:
            return "other", type(b).__name__


@case(*VALUES)
def capture_last_with_guard_then_default(v):
    match v:
        case 1 | 2:
            return "small"
        case str(s):
            return s
        case it if not isinstance(it, (list, dict)):
            return "plain", type(it).__name__
        case _:
            return "container"


@case(*VALUES)
def default_after_leaving_cases(v):
    match v:
        case [x]:
            return x
        case {"x": x, "y": _}:
            return x, "y"
        case _:
            v = "default"
    return v


@case(*VALUES, ([[3, 2], 1],), (Pt(1, Pt(2, 3)),), ({"a": 2, "b": [5, 6]},), ([0, 9, 8],),
      (Pt([7, 8], None),), (Pt({"q": 4}, True),), (b"ab",), ((4,),))
def alternatives_everywhere(v):
    match v:
        case [x, [y, z]] | [[z, y], x] | Pt(x, Pt(y, z)):
            return "A", x, y, z
        case {"a": (1 | 2) as k, "b": [*rest]} | [k, *rest] if k:
            return "B", k, rest
        case Pt(x=[q, *_] | {"q": q}, y=None | True):
            return "C", q
        case (3 | 4) | [] | (4,):
            return "D"
        case str() | bytes() as s if len(s) > 1:
            return "E", s
        case other:
            return "F", type(other).__name__


@case(*VALUES, ([0, 1, [2, 3], {"x": [4]}, "q"],))
def alternatives_in_loop_body(v):
    out = []
    for it in v if isinstance(v, list) else [v]:
        match it:
            case 0 | 1 as b:
                out.append(b)
            case [a, b] | (b, a, _):
                out.append((a, b))
            case {"x": {"y": y} | [y]}:
                out.append(y)
            case _:
                out.append(None)
    return out
