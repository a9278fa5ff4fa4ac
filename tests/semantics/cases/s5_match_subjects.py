# semantics: min-version 3.10
"""Session 5 (issue #5), `match` shapes the stdlib round trip met:

- a subject that is not a plain name (`match d.get(k):`, a call with side effects:
  evaluated once, before the first case);
- a literal, value (`Color.RED`) or `None`/`True`/`False` pattern as the last tested
  case after class or sequence cases (tested on the subject itself, no copy), with
  and without a guard, followed or not by `case _:`;
- a generator whose cases `yield` and `yield from` (as dataclasses' `_get_slots`),
  driven with send/throw/close."""

from _sem import case, driven_case, drive


class Color(object):
    RED = "red"
    GREEN = "green"


class Box(object):
    __match_args__ = ("v",)

    def __init__(self, v):
        self.v = v


class Counter(object):
    def __init__(self, d):
        self.d = d
        self.calls = 0

    def get(self, k):
        self.calls += 1
        return self.d.get(k)


@case(({"a": None},), ({"a": "s"},), ({"a": 5},), ({},))
def subject_call_none_first(d):
    c = Counter(d)
    match c.get("a"):
        case None:
            r = "none"
        case str(s):
            r = "str " + s
        case _:
            r = "other"
    return r, c.calls


@case(({"a": 1},), ({"a": "s"},), ({"a": 2.5},), ({},))
def subject_call_literal_first(d):
    match d.get("a"):
        case 1:
            return "one"
        case str(s):
            return s
        case _:
            return "other"


@case(("x",), (None,), (3,), (Box(1),))
def last_case_none(x):
    match x:
        case str(s):
            return "str", s
        case None:
            return "none"
    return "fell through"


@case(({"a": "x"},), ({"a": None},), ({"a": 0},))
def last_case_none_then_default(d):
    match d.get("a"):
        case str(s):
            return s
        case None:
            return "none"
        case _:
            return "default"


@case((Box(2),), (-1,), (7,), ("red",), (2.5,))
def last_case_literals(x):
    out = []
    match x:
        case Box(v):
            out.append(("box", v))
        case -1:
            out.append("minus one")
    match x:
        case [a, b]:
            out.append((a, b))
        case "red":
            out.append("is red")
        case _:
            out.append("not red")
    match x:
        case Box():
            out.append("box again")
        case 2.5:
            out.append("two and a half")
    return out


@case(("red",), ("green",), (Box(0),), (None,))
def last_case_value_pattern(x):
    match x:
        case Box(v):
            return "box", v
        case Color.RED:
            return "red"
    return "none of them"


@case((True,), (False,), (1,), (0,), (None,))
def last_case_singletons(x):
    out = []
    match x:
        case int() if x is not True and x is not False:
            out.append("int")
        case True:
            out.append("true")
    match x:
        case str():
            out.append("str")
        case False:
            out.append("false")
        case _:
            out.append("rest")
    return out


@case((3, 1), (3, 0), ("s", 1), (4, 1))
def last_case_literal_guard(x, g):
    match x:
        case str():
            return "str"
        case 3 if g:
            return "three and g"
    return "none"


@driven_case(drive(("next",), ("send", 1), ("next",), ("next",)), (None,), ("ab",), ([1, 2],))
def gen_match_yields(slots):
    match slots:
        case None:
            got = yield "none"
            yield got
        case str(slot):
            yield slot
        case iterable if not hasattr(iterable, "__next__"):
            yield from iterable
        case _:
            raise TypeError("cannot")


@driven_case(drive(("next",), ("throw", ValueError, "v"), ("next",)), ({"k": "a"},), ({"k": None},))
def gen_match_subject_call_throw(d):
    match d.get("k"):
        case None:
            try:
                yield "none"
            except ValueError as e:
                yield ("caught", str(e))
        case str(s):
            yield s
