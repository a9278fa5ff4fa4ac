# semantics: min-version 3.11
"""`return a or b` (and `and`, a conditional expression) as the last statement of a
`try` body: CPython 3.11+ leaves the `RETURN_VALUE` where the value's branches meet
out of the protected range (it cannot raise). Recovery folded the value into that
return and wrote it after the `try` (3.11: in its `else` clause), so the call ran
outside the handlers: an `AttributeError` raised by `g` escaped the
`except AttributeError` (wrong code on 3.11-3.14, typing's `_caller` on 3.12).
3.11+ only: 3.10 reads these wrongly too (3.9 the conditional expression), not fixed
yet.
"""

from _sem import case


def _get(d):
    return d["k"].lower()


def _raise_attr(d):
    raise AttributeError("no")


@case((_get, {"k": "A"}), (_get, {"k": ""}), (_raise_attr, {}), (_get, {}))
def return_or_in_try(g, d):
    try:
        return g(d) or d
    except AttributeError:
        pass
    return None


@case((_get, {"k": "A"}), (_get, {"k": ""}), (_raise_attr, {}))
def return_and_in_try(g, d):
    try:
        return g(d) and d
    except AttributeError:
        return "caught"


@case((_get, {"k": "A"}, 1), (_raise_attr, {}, 0), (_get, {"k": "b"}, 0))
def return_ifexp_in_try(g, d, c):
    try:
        return g(d) if c else d
    except AttributeError:
        return "caught"
    finally:
        d["done"] = True


@case((_get, {"k": "A"}), (_raise_attr, {}))
def return_or_in_nested_try(g, d):
    try:
        try:
            return g(d) or d
        except KeyError:
            return "key"
    except AttributeError:
        return "attr"
