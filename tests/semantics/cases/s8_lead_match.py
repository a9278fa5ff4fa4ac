# semantics: min-version 3.10
"""A case whose pattern ends in an or-pattern, the only or last case before code that
returns: CPython 3.12+ copies the small exit block after the `match` to each failing
path, so a failure of the first test and a failure of the last alternative land on
equal copies (`_pyrepl.utils.is_soft_keyword_used`, 3.15)."""

from _sem import case


class Tok:
    __match_args__ = ("kind",)

    def __init__(self, kind, string=""):
        self.kind = kind
        self.string = string


INPUTS = ((Tok(1, "("),), (Tok(1, "*"),), (Tok(1, "-"),), (Tok(2, "("),), ([1],), ([2],),
          ([3],), ([1, 2],), ((None, Tok(1, "m"), Tok(3)),), ((Tok(4), Tok(1, "m"), Tok(1, "*")),),
          ((Tok(4), Tok(1, "x"), Tok(3)),), (None,), ("12",))


@case(*INPUTS)
def class_keyword_or_last(t):
    match t:
        case Tok(1, string="(" | "*"):
            return True
    return False


@case(*INPUTS)
def sequence_of_or_only(t):
    match t:
        case [(1 | 2)]:
            return "one item"
    return "other"


@case(*INPUTS)
def sequence_of_class_with_or(t):
    match t:
        case [Tok(string="(" | "*")]:
            return 1
    return 0


@case(*INPUTS)
def three_tokens_with_alternatives(t):
    match t:
        case (None | Tok(4), Tok(string="m"), Tok(3 | 5) | Tok(1, string="(" | "*")):
            return "match"
        case (_, Tok(string="m"), _):
            return "m"
    return None


@case(*INPUTS)
def or_last_then_raise(t):
    match t:
        case [(1 | 2)]:
            return t[0]
    raise_it = t is None
    if raise_it:
        raise ValueError("none")
    return -1
